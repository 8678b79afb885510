//! A served model in either SavedModel format: ferroflow's (`saved_model.json`) or
//! TensorFlow's (`saved_model.pb`, run by `saved_model::tensorflow`). The server sees one
//! interface: the signatures and a call by signature name.

use super::signature::{ferroflow_signatures, tensorflow_signatures, SignatureInfo};
use crate::error::Result;
use crate::saved_model::tensorflow::TfSavedModel;
use crate::tensor::Tensor;
use crate::SavedModel;
use std::path::Path;

pub enum ServedModel {
    Ferroflow(SavedModel),
    TensorFlow(TfSavedModel),
}

impl ServedModel {
    /// Loads `dir`; a directory with TensorFlow's `saved_model.pb` and no ferroflow
    /// `saved_model.json` is TensorFlow's format.
    pub fn load(dir: &Path) -> Result<ServedModel> {
        if TfSavedModel::is_tensorflow_format(dir) && !dir.join("saved_model.json").is_file() {
            return TfSavedModel::load(dir).map(ServedModel::TensorFlow);
        }
        SavedModel::load(dir).map(ServedModel::Ferroflow)
    }

    /// Every signature, sorted by name.
    pub fn signatures(&self) -> Vec<SignatureInfo> {
        match self {
            ServedModel::Ferroflow(model) => ferroflow_signatures(model),
            ServedModel::TensorFlow(model) => tensorflow_signatures(model),
        }
    }

    pub fn call_signature(
        &self,
        name: &str,
        inputs: &[(&str, Tensor)],
    ) -> Result<Vec<(String, Tensor)>> {
        match self {
            ServedModel::Ferroflow(model) => model.call_signature(name, inputs),
            ServedModel::TensorFlow(model) => model.call_signature(name, inputs),
        }
    }
}
