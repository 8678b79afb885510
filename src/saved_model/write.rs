//! Writing a SavedModel directory. Everything is written into a fresh sibling directory first;
//! then that directory replaces the target in two renames, so a crash leaves either the old
//! model or the new one complete (and, between the renames, both on disk under their names).

use super::format::{SavedModelFile, FORMAT, VERSION};
use super::graph_codec;
use super::to_tensorflow;
use crate::checkpoint;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::tensor::Tensor;
use crate::variable::Variable;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

pub const MODEL_FILE: &str = "saved_model.json";
pub const VARIABLES_PREFIX: &str = "variables/variables";
pub const CONSTANTS_PREFIX: &str = "constants";

/// What a SavedModel directory holds; anything else in an existing target makes the save
/// replace these entries one by one instead of swapping the whole directory.
const MANAGED: [&str; 6] = [
    MODEL_FILE,
    to_tensorflow::MODEL_FILE,
    "variables",
    "assets",
    "constants.index",
    "constants.data-00000-of-00001",
];

/// Writes `dir`. `meta` is `saved_model.json` without its graphs: the n-th concrete function
/// gets `graphs[n]`, encoded against `variables` (which must match `meta["variables"]`);
/// `object_graph` is stored with the variables checkpoint, as a `tf.train.Checkpoint` stores it.
///
/// `meta["tensorflow"]`, when present, holds the functions' Python structures that
/// TensorFlow's `saved_model.pb` needs; that file is written too unless some function uses an
/// op TensorFlow's format cannot express here: then the result says which, and only
/// ferroflow's files are written.
pub fn write(
    dir: &Path,
    mut meta: Value,
    graphs: &[&Graph],
    variables: &[Variable],
    object_graph: &Value,
) -> Result<Option<String>> {
    let structures = meta.as_object_mut().and_then(|m| m.remove("tensorflow"));
    let mut constants = Vec::new();
    let concretes = meta
        .get_mut("concrete_functions")
        .and_then(Value::as_array_mut)
        .ok_or_else(|| Error::InvalidArgument("saved model metadata lacks functions".into()))?;
    if concretes.len() != graphs.len() {
        return Err(Error::InvalidArgument("one graph per concrete function".into()));
    }
    for (concrete, graph) in concretes.iter_mut().zip(graphs) {
        let def = graph_codec::encode(graph, variables, &mut constants)?;
        let def = serde_json::to_value(def).map_err(|e| Error::Internal(e.to_string()))?;
        if let Some(fields) = concrete.as_object_mut() {
            fields.insert("graph".into(), def);
        }
    }
    if let Some(fields) = meta.as_object_mut() {
        fields.insert("format".into(), FORMAT.into());
        fields.insert("version".into(), VERSION.into());
    }
    let file: SavedModelFile = serde_json::from_value(meta)
        .map_err(|e| Error::InvalidArgument(format!("saved model metadata: {e}")))?;
    if file.variables.len() != variables.len() {
        return Err(Error::InvalidArgument("one variable per variable entry".into()));
    }
    let text = serde_json::to_vec(&file).map_err(|e| Error::Internal(e.to_string()))?;
    let (tensorflow, not_written) = match &structures {
        None => (None, Some("no function structures were given".to_string())),
        Some(s) => match to_tensorflow::saved_model_pb(&file, graphs, variables, s, object_graph) {
            Ok(bytes) => (Some(bytes), None),
            Err(Error::Unimplemented(why)) => (None, Some(why)),
            Err(e) => return Err(e),
        },
    };

    let staging = sibling(dir, "tmp")?;
    fs::create_dir_all(staging.join("variables")).map_err(|e| io(&staging, e))?;
    fs::create_dir_all(staging.join("assets")).map_err(|e| io(&staging, e))?;
    let result = (|| {
        let values: Vec<(String, Tensor)> = file
            .variables
            .iter()
            .zip(variables)
            .map(|(def, v)| (def.checkpoint_key.clone(), v.peek()))
            .collect();
        checkpoint::write(&staging.join(VARIABLES_PREFIX), &values, object_graph)?;
        let constants: Vec<(String, Tensor)> =
            constants.into_iter().enumerate().map(|(i, t)| (i.to_string(), t)).collect();
        checkpoint::write(&staging.join(CONSTANTS_PREFIX), &constants, &Value::Null)?;
        if let Some(bytes) = &tensorflow {
            checkpoint::write_atomic(&staging.join(to_tensorflow::MODEL_FILE), bytes)?;
        }
        checkpoint::write_atomic(&staging.join(MODEL_FILE), &text)?;
        replace(&staging, dir)
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&staging);
    }
    result.map(|()| not_written)
}

fn io(path: &Path, e: std::io::Error) -> Error {
    checkpoint::io_error(e, path)
}

/// `.<name>.<tag>-<pid>-<n>` beside `dir`: same file system, so renames are atomic.
fn sibling(dir: &Path, tag: &str) -> Result<PathBuf> {
    let name = dir
        .file_name()
        .ok_or_else(|| Error::InvalidArgument(format!("cannot save to {}", dir.display())))?;
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    for n in 0.. {
        let candidate =
            parent.join(format!(".{}.{tag}-{}-{n}", name.to_string_lossy(), std::process::id()));
        if !candidate.exists() {
            return Ok(candidate);
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

/// Moves the staged directory to `dir`.
fn replace(staging: &Path, dir: &Path) -> Result<()> {
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::rename(staging, dir).map_err(|e| io(dir, e))?;
        }
        Err(e) => return Err(io(dir, e)),
        Ok(m) if !m.is_dir() => {
            return Err(Error::FailedPrecondition(format!(
                "cannot save a model to {}: it exists and is not a directory",
                dir.display()
            )))
        }
        Ok(_) if only_managed(dir)? => {
            let old = sibling(dir, "old")?;
            fs::rename(dir, &old).map_err(|e| io(dir, e))?;
            fs::rename(staging, dir).map_err(|e| io(dir, e))?;
            let _ = fs::remove_dir_all(old);
        }
        Ok(_) => replace_entries(staging, dir)?,
    }
    sync_dir(dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")));
    Ok(())
}

fn only_managed(dir: &Path) -> Result<bool> {
    for entry in fs::read_dir(dir).map_err(|e| io(dir, e))? {
        let entry = entry.map_err(|e| io(dir, e))?;
        if !MANAGED.iter().any(|m| entry.file_name() == *m) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The target holds other files too (the user's): replace only our entries, the model file
/// last, so a reader sees the old model file until everything it names is in place.
fn replace_entries(staging: &Path, dir: &Path) -> Result<()> {
    for name in MANAGED.iter().rev() {
        let (from, to) = (staging.join(name), dir.join(name));
        if !from.exists() {
            // A file of an earlier save that this one does not write (TensorFlow's model
            // file, when this model cannot be written in TensorFlow's format) must not
            // outlive it: TensorFlow would load the stale model.
            if to.is_file() {
                fs::remove_file(&to).map_err(|e| io(&to, e))?;
            }
            continue;
        }
        if to.is_dir() {
            let old = sibling(&to, "old")?;
            fs::rename(&to, &old).map_err(|e| io(&to, e))?;
            fs::rename(&from, &to).map_err(|e| io(&to, e))?;
            let _ = fs::remove_dir_all(old);
        } else {
            fs::rename(&from, &to).map_err(|e| io(&to, e))?;
        }
    }
    sync_dir(dir);
    let _ = fs::remove_dir_all(staging);
    Ok(())
}

fn sync_dir(dir: &Path) {
    if let Ok(f) = fs::File::open(dir) {
        let _ = f.sync_all();
    }
}
