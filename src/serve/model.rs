//! A served model: a SavedModel in either format (`saved_model::SavedModel`). The server sees
//! one interface: the signatures and a call by signature name.

use super::signature::{ferroflow_signatures, tensorflow_signatures, SignatureInfo};
use crate::SavedModel;

pub type ServedModel = SavedModel;

/// Every signature of `model`, sorted by name.
pub fn signatures(model: &SavedModel) -> Vec<SignatureInfo> {
    match model {
        SavedModel::Ferroflow(model) => ferroflow_signatures(model),
        SavedModel::TensorFlow(model) => tensorflow_signatures(model),
    }
}
