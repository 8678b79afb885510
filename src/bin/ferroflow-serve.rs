//! TensorFlow Serving's REST API for SavedModels (see `ferroflow::serve`): the flags, then an
//! HTTP server whose worker threads share one listening socket and answer requests through
//! `ferroflow::serve::routes`.
// Proving a loaded model `Send` walks wgpu-core's types: deeper than the default limit (as in
// the library).
#![recursion_limit = "256"]

use ferroflow::serve::flags::{self, FlagError, Flags};
use ferroflow::serve::registry::Registry;
use ferroflow::serve::{enter_device, routes, start, ServeError};
use std::process::ExitCode;
use std::sync::Arc;

fn handle(registry: &Registry, mut request: tiny_http::Request) {
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let path = url.split_once('?').map_or(url.as_str(), |(p, _)| p);
    let mut body = Vec::new();
    let reply = match request.as_reader().read_to_end(&mut body) {
        Ok(_) => routes::answer(registry, &method, path, &body),
        Err(e) => {
            let e = ServeError::invalid(format!("Failed to read the request body: {e}"));
            routes::Reply { status: e.http_status(), body: e.to_json() }
        }
    };
    let json = tiny_http::Header::from_bytes(&b"Content-Type"[..], &b"application/json"[..])
        .expect("a valid header");
    let response = tiny_http::Response::from_string(reply.body)
        .with_status_code(reply.status)
        .with_header(json);
    // A client that went away cannot be answered; the worker goes on.
    let _ = request.respond(response);
}

fn serve(flags: Flags) -> Result<(), String> {
    enter_device(&flags).map_err(|e| e.to_string())?;
    let registry = start(&flags).map_err(|e| e.to_string())?;
    let address = format!("{}:{}", flags.rest_api_host, flags.rest_api_port);
    let server = Arc::new(
        tiny_http::Server::http(&address)
            .map_err(|e| format!("cannot listen on {address}: {e}"))?,
    );
    eprintln!("Exporting HTTP/REST API at:{address} ...");
    let workers: Vec<_> = (0..flags.rest_api_num_threads.max(1))
        .map(|i| {
            let (server, registry, flags) = (server.clone(), registry.clone(), flags.clone());
            std::thread::Builder::new().name(format!("rest-worker-{i}")).spawn(move || {
                // The main thread entered the same scope above, so this cannot fail.
                let _ = enter_device(&flags);
                while let Ok(request) = server.recv() {
                    handle(&registry, request);
                }
            })
        })
        .collect::<std::io::Result<_>>()
        .map_err(|e| format!("cannot start the worker threads: {e}"))?;
    for worker in workers {
        let _ = worker.join();
    }
    Ok(())
}

fn main() -> ExitCode {
    let flags = match flags::parse(std::env::args().skip(1)) {
        Ok(flags) => flags,
        Err(FlagError::Help) => {
            print!("{}", flags::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n\n{}", flags::USAGE);
            return ExitCode::from(2);
        }
    };
    match serve(flags) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
