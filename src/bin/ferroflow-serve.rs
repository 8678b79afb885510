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

/// The largest request body read (1 GiB): a larger one is refused before it is read.
const MAX_BODY_BYTES: u64 = 1 << 30;

fn handle(registry: &Registry, mut request: tiny_http::Request) {
    use std::io::Read;
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let path = url.split_once('?').map_or(url.as_str(), |(p, _)| p);
    let mut body = Vec::new();
    let too_large = || {
        let e = ServeError::invalid(format!("the request body exceeds {MAX_BODY_BYTES} bytes"));
        routes::Reply { status: e.http_status(), body: e.to_json() }
    };
    let reply = if request.body_length().is_some_and(|n| n as u64 > MAX_BODY_BYTES) {
        too_large()
    } else {
        // A chunked body has no declared length: read one byte past the limit to notice.
        match request.as_reader().take(MAX_BODY_BYTES + 1).read_to_end(&mut body) {
            Ok(n) if n as u64 > MAX_BODY_BYTES => too_large(),
            Ok(_) => routes::answer(registry, &method, path, &body),
            Err(e) => {
                let e = ServeError::invalid(format!("Failed to read the request body: {e}"));
                routes::Reply { status: e.http_status(), body: e.to_json() }
            }
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
                // tiny_http stops accepting for good after an accept error (out of file
                // descriptors, say): a server that no longer accepts must not look alive.
                eprintln!("error: the HTTP listener stopped accepting connections");
                std::process::exit(1);
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
