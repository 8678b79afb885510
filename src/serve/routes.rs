//! TensorFlow Serving's REST routes: a request's method, path and body to a status and JSON
//! body, independent of the HTTP server that carries them (the binary's). A request that
//! fails gets `{"error": ...}` with the status TensorFlow Serving gives its code; a panic
//! inside a request is caught and answered as an internal error, so no request takes a worker
//! or the server down.

use super::classify::{self, Method};
use super::decode::{self, Format};
use super::encode;
use super::error::{ServeError, ServeResult};
use super::registry::Registry;
use super::signature;
use super::status;
use regex::Regex;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::LazyLock;

static PREDICTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^/v1/models/([^/:]+)(?:/versions/(\d+))?:(classify|regress|predict)$")
        .expect("a valid pattern")
});
static MODEL_STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^/v1/models(?:/([^/:]+))?(?:/versions/(\d+))?(?:/(metadata))?$")
        .expect("a valid pattern")
});

/// An answer: HTTP status and JSON body.
pub struct Reply {
    pub status: u16,
    pub body: String,
}

fn version_number(text: Option<regex::Match<'_>>) -> ServeResult<Option<i64>> {
    text.map(|m| {
        m.as_str().parse::<i64>().map_err(|_| {
            ServeError::invalid(format!("Failed to convert version: {} to numeric.", m.as_str()))
        })
    })
    .transpose()
}

fn predict(servable: &super::registry::Servable, body: &[u8]) -> ServeResult<String> {
    let doc = decode::parse_body(body)?;
    let requested = decode::signature_name(&doc)?;
    let signature = signature::find(&servable.signatures, &requested)?;
    let (format, inputs): (Format, _) = decode::predict_inputs(&doc, signature)?;
    let named: Vec<(&str, crate::Tensor)> =
        inputs.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let outputs = servable.model.call_signature(&signature.name, &named)?;
    encode::predict_response(&outputs, format)
}

fn classify_or_regress(
    servable: &super::registry::Servable,
    body: &[u8],
    method: Method,
) -> ServeResult<String> {
    let doc = decode::parse_body(body)?;
    let requested = decode::signature_name(&doc)?;
    let examples = classify::examples_tensor(&doc, method)?;
    let signature = signature::find(&servable.signatures, &requested)?;
    let input = classify::check_signature(signature, method)?;
    let count = examples.dims()[0];
    let outputs = servable.model.call_signature(&signature.name, &[(input.as_str(), examples)])?;
    match method {
        Method::Classify => classify::classify_response(&outputs, count),
        Method::Regress => classify::regress_response(&outputs, count),
    }
}

/// Answers one request (`path` without its query string).
pub fn route(registry: &Registry, method: &str, path: &str, body: &[u8]) -> ServeResult<String> {
    if method.eq_ignore_ascii_case("POST") {
        if let Some(c) = PREDICTION.captures(path) {
            let version = version_number(c.get(2))?;
            let servable = registry.servable(&c[1], version)?;
            return match c[3].to_ascii_lowercase().as_str() {
                "classify" => classify_or_regress(&servable, body, Method::Classify),
                "regress" => classify_or_regress(&servable, body, Method::Regress),
                _ => predict(&servable, body),
            };
        }
    } else if method.eq_ignore_ascii_case("GET") {
        if let Some(c) = MODEL_STATUS.captures(path) {
            let Some(name) = c.get(1) else {
                return Err(ServeError::invalid("Missing model name in request."));
            };
            let version = version_number(c.get(2))?;
            if c.get(3).is_some() {
                let servable = registry.servable(name.as_str(), version)?;
                return Ok(status::metadata_json(&servable));
            }
            return Ok(status::status_json(&registry.status(name.as_str(), version)?));
        }
    }
    let error = format!("Malformed request: {method} {path}");
    if path.to_ascii_lowercase().starts_with("/v1/") {
        Err(ServeError::invalid(error))
    } else {
        Err(ServeError::not_found(error))
    }
}

/// `route` with failures and panics turned into error replies.
pub fn answer(registry: &Registry, method: &str, path: &str, body: &[u8]) -> Reply {
    match catch_unwind(AssertUnwindSafe(|| route(registry, method, path, body))) {
        Ok(Ok(body)) => Reply { status: 200, body },
        Ok(Err(e)) => Reply { status: e.http_status(), body: e.to_json() },
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            let e = ServeError::internal(format!("The request failed inside the server: {why}"));
            Reply { status: 500, body: e.to_json() }
        }
    }
}
