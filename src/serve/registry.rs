//! The models being served and their versions. Each model's base path holds one directory per
//! version, named by its number; a poll lists them, loads the versions the model's policy wants
//! and is not serving yet, and retires the others. Loading happens outside the lock, so
//! requests are served while a new version loads; a request holds its version by an `Arc`, so
//! a retired version finishes the requests it has.

use super::config::ModelConfig;
use super::error::{ServeError, ServeResult};
use super::model::{signatures, ServedModel};
use super::signature::SignatureInfo;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, RwLock};

/// TensorFlow Serving's `--max_num_load_retries` default: a version that failed to load this
/// many times stays failed until its directory goes away.
const MAX_LOAD_ATTEMPTS: u32 = 6;

/// One loaded version.
pub struct Servable {
    pub model_name: String,
    pub version: i64,
    pub model: ServedModel,
    pub signatures: Vec<SignatureInfo>,
}

enum VersionState {
    Available(Arc<Servable>),
    /// Loading failed `attempts` times; the last error is reported in the status.
    Failed {
        error: ServeError,
        attempts: u32,
    },
    /// Retired: the policy no longer wants it, or its directory went away.
    End,
}

/// A version's state as the status API reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionStatus {
    pub version: i64,
    /// `AVAILABLE` or `END`.
    pub state: &'static str,
    /// The load error, if loading failed.
    pub error: Option<ServeError>,
}

struct Model {
    config: ModelConfig,
    versions: BTreeMap<i64, VersionState>,
}

pub struct Registry {
    models: RwLock<BTreeMap<String, Model>>,
}

/// The numbered version directories under `base` (ascending); none when it cannot be read.
fn versions_on_disk(base: &Path) -> Vec<i64> {
    let Ok(entries) = std::fs::read_dir(base) else { return Vec::new() };
    let mut versions: Vec<i64> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().into_string().ok()?;
            let all_digits = !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit());
            let version = name.parse::<i64>().ok().filter(|_| all_digits)?;
            e.file_type().ok()?.is_dir().then_some(version)
        })
        .collect();
    versions.sort_unstable();
    versions
}

fn load(config: &ModelConfig, version: i64) -> ServeResult<Servable> {
    let dir = config.base_path.join(version.to_string());
    // Loading runs the file's graphs through the optimiser: a corrupt model must fail its
    // load, not the server.
    let model = std::panic::catch_unwind(|| ServedModel::load(&dir))
        .map_err(|_| ServeError::internal(format!("loading {} panicked", dir.display())))??;
    let signatures = signatures(&model);
    Ok(Servable { model_name: config.name.clone(), version, model, signatures })
}

impl Registry {
    pub fn new(configs: Vec<ModelConfig>) -> Registry {
        let models = configs
            .into_iter()
            .map(|config| (config.name.clone(), Model { config, versions: BTreeMap::new() }))
            .collect();
        Registry { models: RwLock::new(models) }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, Model>> {
        // A panic while the lock was held cannot leave the map half-written (every write is
        // one insert), so a poisoned lock is still good.
        self.models.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Looks at every model's base path once: loads wanted versions, retires unwanted ones.
    /// Returns one line per change, for the log.
    pub fn poll(&self) -> Vec<String> {
        let plans: Vec<(ModelConfig, Vec<i64>, Vec<i64>)> = self
            .read()
            .values()
            .map(|m| {
                let wanted = m.config.policy.choose(&versions_on_disk(&m.config.base_path));
                let to_load = wanted
                    .iter()
                    .copied()
                    .filter(|v| match m.versions.get(v) {
                        None | Some(VersionState::End) => true,
                        Some(VersionState::Failed { attempts, .. }) => {
                            *attempts < MAX_LOAD_ATTEMPTS
                        }
                        Some(VersionState::Available(_)) => false,
                    })
                    .collect();
                (m.config.clone(), wanted, to_load)
            })
            .collect();
        let mut log = Vec::new();
        for (config, wanted, to_load) in plans {
            // Newest first: the version requests go to by default is ready soonest.
            let loaded: Vec<(i64, ServeResult<Servable>)> =
                to_load.iter().rev().map(|&v| (v, load(&config, v))).collect();
            let mut models = self.models.write().unwrap_or_else(|e| e.into_inner());
            let Some(model) = models.get_mut(&config.name) else { continue };
            for (version, result) in loaded {
                let state = match result {
                    Ok(servable) => {
                        log.push(format!(
                            "Successfully loaded servable version {{name: {} version: {version}}}",
                            config.name
                        ));
                        VersionState::Available(Arc::new(servable))
                    }
                    Err(error) => {
                        let attempts = match model.versions.get(&version) {
                            Some(VersionState::Failed { attempts, .. }) => attempts + 1,
                            _ => 1,
                        };
                        log.push(format!(
                            "Loading servable {{name: {} version: {version}}} failed: {error}",
                            config.name
                        ));
                        VersionState::Failed { error, attempts }
                    }
                };
                model.versions.insert(version, state);
            }
            // Availability first, as TensorFlow Serving's default policy: unwanted versions are
            // retired only once a wanted one serves, so a damaged new version does not take the
            // model offline.
            let serving = wanted
                .iter()
                .any(|v| matches!(model.versions.get(v), Some(VersionState::Available(_))));
            for (version, state) in model.versions.iter_mut() {
                if !serving && matches!(state, VersionState::Available(_)) {
                    continue;
                }
                if !wanted.contains(version) && !matches!(state, VersionState::End) {
                    if matches!(state, VersionState::Available(_)) {
                        log.push(format!(
                            "Unloaded servable version {{name: {} version: {version}}}",
                            config.name
                        ));
                    }
                    *state = VersionState::End;
                }
            }
        }
        log
    }

    /// The version a request addresses: the given one, or the highest available.
    pub fn servable(&self, name: &str, version: Option<i64>) -> ServeResult<Arc<Servable>> {
        let models = self.read();
        let available = |state: &VersionState| match state {
            VersionState::Available(s) => Some(s.clone()),
            _ => None,
        };
        let found = models.get(name).and_then(|m| match version {
            Some(v) => m.versions.get(&v).and_then(available),
            None => m.versions.values().rev().find_map(available),
        });
        found.ok_or_else(|| {
            let request = match version {
                Some(v) => format!("Specific({name}, {v})"),
                None => format!("Latest({name})"),
            };
            ServeError::not_found(format!("Servable not found for request: {request}"))
        })
    }

    /// The states of a model's versions (newest first), or of one version.
    pub fn status(&self, name: &str, version: Option<i64>) -> ServeResult<Vec<VersionStatus>> {
        let models = self.read();
        let model = models.get(name).filter(|m| !m.versions.is_empty()).ok_or_else(|| {
            ServeError::not_found(format!("Could not find any versions of model {name}"))
        })?;
        let describe = |(&version, state): (&i64, &VersionState)| match state {
            VersionState::Available(_) => {
                VersionStatus { version, state: "AVAILABLE", error: None }
            }
            VersionState::Failed { error, .. } => {
                VersionStatus { version, state: "END", error: Some(error.clone()) }
            }
            VersionState::End => VersionStatus { version, state: "END", error: None },
        };
        match version {
            None => Ok(model.versions.iter().rev().map(describe).collect()),
            Some(v) => {
                model.versions.get_key_value(&v).map(|s| vec![describe(s)]).ok_or_else(|| {
                    ServeError::not_found(format!("Could not find version {v} of model {name}"))
                })
            }
        }
    }
}
