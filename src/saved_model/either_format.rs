//! A SavedModel directory in either format, loaded from Rust with no Python: ferroflow's
//! (`saved_model.json`, which ferroflow's own saves always hold) or TensorFlow's
//! (`saved_model.pb` alone: a directory TensorFlow wrote). Both give signatures by name.

use super::load::FerroflowSavedModel;
use super::tensorflow::TfSavedModel;
use super::write::MODEL_FILE;
use crate::error::Result;
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::path::Path;

pub enum SavedModel {
    Ferroflow(FerroflowSavedModel),
    TensorFlow(TfSavedModel),
}

impl SavedModel {
    /// Loads `dir`: ferroflow's format when it has `saved_model.json`, else TensorFlow's.
    pub fn load(dir: impl AsRef<Path>) -> Result<SavedModel> {
        let dir = dir.as_ref();
        if !dir.join(MODEL_FILE).is_file() && TfSavedModel::is_tensorflow_format(dir) {
            return TfSavedModel::load(dir).map(SavedModel::TensorFlow);
        }
        FerroflowSavedModel::load(dir).map(SavedModel::Ferroflow)
    }

    /// The names of the signatures (`serving_default`, ...), sorted.
    pub fn signature_names(&self) -> Vec<&str> {
        match self {
            SavedModel::Ferroflow(m) => m.signature_names(),
            SavedModel::TensorFlow(m) => m.signature_names(),
        }
    }

    /// Calls a signature with named inputs; returns its named outputs, sorted by name.
    pub fn call_signature(
        &self,
        name: &str,
        inputs: &[(&str, Tensor)],
    ) -> Result<Vec<(String, Tensor)>> {
        match self {
            SavedModel::Ferroflow(m) => m.call_signature(name, inputs),
            SavedModel::TensorFlow(m) => m.call_signature(name, inputs),
        }
    }

    /// The restored variables.
    pub fn variables(&self) -> Vec<&Variable> {
        match self {
            SavedModel::Ferroflow(m) => m.variables().iter().collect(),
            SavedModel::TensorFlow(m) => m.variables(),
        }
    }
}
