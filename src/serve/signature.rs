//! What a request needs to know of a signature: its inputs' and outputs' names, dtypes and
//! shapes, read through the public APIs of `SavedModel` (ferroflow's format) and
//! `TfSavedModel` (TensorFlow's).

use super::error::{ServeError, ServeResult};
use crate::dtype::DType;
use crate::proto::tensorflow::DataType;
use crate::saved_model::tensorflow::{SignatureSpec, TfSavedModel};
use crate::saved_model::FerroflowSavedModel;

/// TensorFlow's default signature key.
pub const DEFAULT_SIGNATURE: &str = "serving_default";

/// One named tensor of a signature; `None` dims accept any size.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorInfo {
    pub name: String,
    pub dtype: DType,
    pub dims: Vec<Option<usize>>,
    /// Any rank (then `dims` is empty).
    pub unknown_rank: bool,
    /// The graph tensor a TensorFlow-written SignatureDef names, for metadata.
    pub tensor_name: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SignatureInfo {
    pub name: String,
    /// Sorted by name, as a protobuf map's keys iterate in TensorFlow Serving.
    pub inputs: Vec<TensorInfo>,
    pub outputs: Vec<TensorInfo>,
    /// A TensorFlow-written SignatureDef's `method_name`, for metadata.
    pub method_name: Option<String>,
}

impl SignatureInfo {
    pub fn input(&self, name: &str) -> Option<&TensorInfo> {
        self.inputs.iter().find(|i| i.name == name)
    }
}

/// Every signature of a ferroflow-format `model`, sorted by name.
pub fn ferroflow_signatures(model: &FerroflowSavedModel) -> Vec<SignatureInfo> {
    let file = model.file();
    let mut all: Vec<SignatureInfo> = model
        .signature_names()
        .into_iter()
        .filter_map(|name| {
            let signature = file.signatures.get(name)?;
            let concrete = file.concrete_functions.get(signature.concrete)?;
            let mut inputs: Vec<TensorInfo> = signature
                .inputs
                .iter()
                .zip(&concrete.inputs)
                .map(|(n, spec)| TensorInfo {
                    name: n.clone(),
                    dtype: spec.dtype,
                    dims: spec.dims.clone(),
                    unknown_rank: false,
                    tensor_name: None,
                })
                .collect();
            inputs.sort_by(|a, b| a.name.cmp(&b.name));
            let mut outputs: Vec<TensorInfo> = signature
                .outputs
                .iter()
                .filter_map(|(n, i)| {
                    let spec = concrete.outputs.get(*i)?;
                    Some(TensorInfo {
                        name: n.clone(),
                        dtype: spec.dtype,
                        dims: spec.dims.clone(),
                        unknown_rank: false,
                        tensor_name: None,
                    })
                })
                .collect();
            outputs.sort_by(|a, b| a.name.cmp(&b.name));
            Some(SignatureInfo { name: name.to_string(), inputs, outputs, method_name: None })
        })
        .collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}

/// Every signature of a TensorFlow-format `model`, sorted by name (inputs and outputs too).
pub fn tensorflow_signatures(model: &TfSavedModel) -> Vec<SignatureInfo> {
    let info = |spec: &SignatureSpec| TensorInfo {
        name: spec.key.clone(),
        dtype: spec.dtype,
        dims: spec.dims.clone().unwrap_or_default(),
        unknown_rank: spec.dims.is_none(),
        tensor_name: Some(spec.tensor_name.clone()).filter(|n| !n.is_empty()),
    };
    let sorted = |specs: &[SignatureSpec]| {
        let mut all: Vec<TensorInfo> = specs.iter().map(info).collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    };
    model
        .signature_names()
        .into_iter()
        .filter_map(|name| {
            let (inputs, outputs) = model.signature_specs(name).ok()?;
            Some(SignatureInfo {
                name: name.to_string(),
                inputs: sorted(inputs),
                outputs: sorted(outputs),
                method_name: model.signature_method(name).ok().map(str::to_string),
            })
        })
        .collect()
}

/// The signature a request names (`""` is the default), or TensorFlow Serving's error.
pub fn find<'a>(all: &'a [SignatureInfo], requested: &str) -> ServeResult<&'a SignatureInfo> {
    let name = if requested.is_empty() { DEFAULT_SIGNATURE } else { requested };
    all.iter().find(|s| s.name == name).ok_or_else(|| {
        ServeError::invalid(format!(
            "Serving signature name: \"{name}\" not found in signature def"
        ))
    })
}

/// TensorFlow's enum name of a dtype (`DT_FLOAT`), as metadata prints it.
pub fn proto_name(dtype: DType) -> &'static str {
    DataType::try_from(dtype as i32).map_or("DT_INVALID", |d| d.as_str_name())
}

/// TensorFlow's `DataTypeString` (`float`, `int32`), as error messages print it.
pub fn type_string(dtype: DType) -> String {
    proto_name(dtype).trim_start_matches("DT_").to_ascii_lowercase()
}
