//! A SavedModel's assets and resource objects. An asset (a vocabulary file saved under
//! `assets/`) is bound as the string scalar of its path in this directory. A resource (a
//! hash table) is made as TensorFlow's loader makes it: its object's `_create_resource`
//! function returns the handle, then its `_initialize` function fills it, with the handle,
//! constants and assets bound. A resource whose creator uses an op ferroflow lacks is left
//! unbound with that reason, so only the functions that need it fail.

use super::captures::Captures;
use super::run_function::{Library, Value};
use crate::error::{Error, Result};
use crate::proto::tensorflow::{saved_object::Kind, MetaGraphDef, SavedObjectGraph};
use crate::tensor::Tensor;
use crate::tstring::TfString;
use std::collections::BTreeMap;
use std::path::{Component, Path};

/// Every asset object's path, by node id, as a string scalar.
pub fn assets_of(
    dir: &Path,
    meta: &MetaGraphDef,
    objects: &SavedObjectGraph,
    corrupt: impl Fn(String) -> Error,
) -> Result<BTreeMap<usize, Tensor>> {
    let mut assets = BTreeMap::new();
    for (id, object) in objects.nodes.iter().enumerate() {
        let Some(Kind::Asset(asset)) = &object.kind else { continue };
        let file = usize::try_from(asset.asset_file_def_index)
            .ok()
            .and_then(|i| meta.asset_file_def.get(i))
            .map(|def| def.filename.as_str())
            .ok_or_else(|| corrupt(format!("asset object {id} names no asset file")))?;
        // The name comes from the file: it must stay inside `assets/`.
        let relative = Path::new(file);
        if file.is_empty() || !relative.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(corrupt(format!("asset file name '{file}' leaves the assets directory")));
        }
        let path = dir.join("assets").join(relative);
        let text = TfString::new(path.to_string_lossy().as_bytes());
        assets.insert(id, crate::ops::strings::string_tensor(vec![text], &[]));
    }
    Ok(assets)
}

/// Makes and initializes every resource object, adding its handle to `captures.resources`
/// (or, when its creator cannot run here, the reason to `captures.unavailable`).
pub fn create_resources(
    objects: &SavedObjectGraph,
    library: &Library,
    captures: &mut Captures,
) -> Result<()> {
    let resources: Vec<usize> = (0..objects.nodes.len())
        .filter(|&id| matches!(objects.nodes[id].kind, Some(Kind::Resource(_))))
        .collect();
    for &id in &resources {
        let Some(creator) = concrete_child(objects, id, "_create_resource") else { continue };
        match call(objects, library, captures, &creator) {
            Ok(mut outputs) if outputs.len() == 1 => {
                captures.resources.insert(id, outputs.remove(0));
            }
            Ok(_) => {
                return Err(Error::DataLoss(format!(
                    "the creator '{creator}' of resource object {id} does not return one handle"
                )))
            }
            Err(Error::Unimplemented(why)) => {
                captures.unavailable.insert(id, why);
            }
            Err(e) => return Err(e),
        }
    }
    for &id in &resources {
        if !captures.resources.contains_key(&id) {
            continue;
        }
        if let Some(initializer) = concrete_child(objects, id, "_initialize") {
            match call(objects, library, captures, &initializer) {
                Ok(_) => {}
                // An op ferroflow lacks: only the functions needing this resource fail.
                Err(Error::Unimplemented(why)) => {
                    captures.resources.remove(&id);
                    captures.unavailable.insert(id, why);
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// The concrete function of object `id`'s child `name` (a `tf.function` or a bare one).
fn concrete_child(objects: &SavedObjectGraph, id: usize, name: &str) -> Option<String> {
    let child = objects.nodes[id].children.iter().find(|c| c.local_name == name)?;
    let node = objects.nodes.get(usize::try_from(child.node_id).ok()?)?;
    match node.kind.as_ref()? {
        Kind::Function(f) => f.concrete_functions.first().cloned(),
        Kind::BareConcreteFunction(b) => Some(b.concrete_function_name.clone()),
        _ => None,
    }
}

fn call(
    objects: &SavedObjectGraph,
    library: &Library,
    captures: &Captures,
    name: &str,
) -> Result<Vec<Value>> {
    let who = format!("function '{name}'");
    let bound = objects.concrete_functions.get(name).map(|c| c.bound_inputs.as_slice());
    let args = bound
        .unwrap_or_default()
        .iter()
        .map(|&node| captures.bound(&who, node))
        .collect::<Result<Vec<_>>>()?;
    library.call(name, args, 0)
}
