//! `ferroflow-serve`: SavedModels served over TensorFlow Serving's REST API.
//!
//! ```text
//! ferroflow-serve --rest_api_port=8501 --model_name=mlp --model_base_path=/models/mlp
//! curl -d '{"instances": [[1, 2, 3, 4]]}' localhost:8501/v1/models/mlp:predict
//! ```
//!
//! Routes (TensorFlow Serving's): `GET /v1/models/NAME[/versions/N]` (status),
//! `GET /v1/models/NAME[/versions/N]/metadata` (signatures) and
//! `POST /v1/models/NAME[/versions/N]:predict|classify|regress`. The base path's numbered
//! version directories are polled, and a new version is served without a restart.
//!
//! One file per job: [`flags`] (command line), [`textproto`] and [`config`] (the model config
//! file), [`registry`] (models, versions, polling), [`signature`] (what a signature takes),
//! [`decode`] and [`encode`] (JSON to tensors and back), [`classify`] (`tf.Example` requests),
//! [`status`] (status and metadata), [`routes`] (requests to replies). The HTTP server and its
//! worker threads are the binary's (`src/bin/ferroflow-serve.rs`), which keeps the library free
//! of an HTTP crate.

pub mod classify;
pub mod config;
pub mod decode;
pub mod encode;
pub mod error;
pub mod flags;
pub mod model;
pub mod non_finite;
pub mod registry;
pub mod routes;
pub mod signature;
pub mod status;
pub mod textproto;

pub use error::{ServeError, ServeResult};
pub use flags::Flags;

use config::{ModelConfig, VersionPolicy};
use registry::Registry;
use std::sync::Arc;
use std::time::Duration;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("--device: {0}")]
    Device(crate::Error),
    #[error("cannot read the model config file {path}: {error}")]
    ConfigFile { path: String, error: std::io::Error },
    #[error("the model config file {path}: {error}")]
    Config { path: String, error: config::ConfigError },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

fn model_configs(flags: &Flags) -> Result<Vec<ModelConfig>, StartError> {
    let Some(path) = &flags.model_config_file else {
        let base_path = flags.model_base_path.clone().unwrap_or_default();
        let name = flags.model_name.clone();
        return Ok(vec![ModelConfig { name, base_path, policy: VersionPolicy::default() }]);
    };
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|error| StartError::ConfigFile { path: shown.clone(), error })?;
    config::parse_model_server_config(&text)
        .map_err(|error| StartError::Config { path: shown, error })
}

fn log_lines(lines: Vec<String>) {
    for line in lines {
        eprintln!("{line}");
    }
}

/// Enters `--device`'s scope on this thread (models then load and run there).
pub fn enter_device(flags: &Flags) -> Result<(), StartError> {
    if let Some(device) = &flags.device {
        crate::device::push_scope(device).map_err(StartError::Device)?;
    }
    Ok(())
}

/// Loads the models (on the calling thread, which must have entered the device scope) and
/// starts polling for new versions; the registry is then ready for [`routes::answer`].
pub fn start(flags: &Flags) -> Result<Arc<Registry>, StartError> {
    if flags.grpc_port.is_some() {
        eprintln!("note: --port (gRPC) is accepted and ignored: only the REST API is served");
    }
    let registry = Arc::new(Registry::new(model_configs(flags)?));
    // TensorFlow Serving loads what is there before it listens.
    log_lines(registry.poll());
    if flags.file_system_poll_wait_seconds > 0 {
        let (registry, flags) = (registry.clone(), flags.clone());
        let wait = Duration::from_secs(flags.file_system_poll_wait_seconds as u64);
        std::thread::Builder::new().name("version-poller".into()).spawn(move || {
            // Checked by the caller's own enter_device.
            let _ = enter_device(&flags);
            loop {
                std::thread::sleep(wait);
                log_lines(registry.poll());
            }
        })?;
    }
    Ok(registry)
}
