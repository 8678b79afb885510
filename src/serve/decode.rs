//! JSON request bodies to tensors, by TensorFlow Serving's rules (`json_tensor.cc`): the row
//! form (`"instances"`: one element per batch row, objects when the signature has several
//! inputs) and the columnar form (`"inputs"`: whole tensors), values converted to the dtype the
//! signature declares, binary strings as `{"b64": "..."}`, `NaN` and infinities as
//! TensorFlow Serving's parser reads them (`non_finite.rs`).

use super::error::{ServeError, ServeResult};
use super::non_finite;
use super::signature::{type_string, SignatureInfo, TensorInfo};
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::io::base64;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use serde_json::{Map, Value};

/// Which form the request used; the response answers in the same one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Row,
    Columnar,
}

pub type Object = Map<String, Value>;

/// Parses a request body, which must be a JSON object.
pub fn parse_body(body: &[u8]) -> ServeResult<Object> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ServeError::invalid("JSON Parse error: The document is empty"));
    }
    match serde_json::from_slice(&non_finite::quote_tokens(body)) {
        Ok(Value::Object(doc)) => Ok(doc),
        Ok(other) => Err(ServeError::invalid(format!("JSON Value: {other} Is not object"))),
        Err(e) => Err(ServeError::invalid(format!("JSON Parse error: {e}"))),
    }
}

/// The optional `signature_name` (`""` when absent: the default signature).
pub fn signature_name(doc: &Object) -> ServeResult<String> {
    match doc.get("signature_name") {
        None => Ok(String::new()),
        Some(v @ Value::String(s)) if non_finite::value_of(v).is_none() => Ok(s.clone()),
        Some(_) => Err(ServeError::invalid(format!(
            "JSON Value: {} not formatted correctly. 'signature_name' key must be a string value.",
            Value::Object(doc.clone())
        ))),
    }
}

fn json_type(v: &Value) -> &'static str {
    if non_finite::value_of(v).is_some() {
        return "Number";
    }
    match v {
        Value::Null => "Null",
        Value::Bool(false) => "False",
        Value::Bool(true) => "True",
        Value::Object(_) => "Object",
        Value::Array(_) => "Array",
        Value::String(_) => "String",
        Value::Number(_) => "Number",
    }
}

fn type_error(v: &Value, dtype: DType) -> ServeError {
    ServeError::invalid(format!(
        "JSON Value: {} Type: {} is not of expected type: {}",
        non_finite::display(v),
        json_type(v),
        type_string(dtype)
    ))
}

/// `{"b64": "<string>"}` and nothing else.
pub fn is_base64_object(v: &Value) -> bool {
    matches!(v, Value::Object(o) if o.len() == 1 && o.get("b64").is_some_and(Value::is_string))
}

pub fn decode_base64_object(v: &Value) -> ServeResult<Vec<u8>> {
    let text = match v {
        Value::Object(o) if is_base64_object(v) => o["b64"].as_str().unwrap_or_default(),
        _ => {
            return Err(ServeError::invalid(format!(
                "JSON Value: {v} not formatted correctly for base64 data"
            )))
        }
    };
    base64::decode(text).ok_or_else(|| ServeError::invalid("Unable to base64 decode"))
}

/// Whether a JSON number fits a float type of `digits` mantissa bits and range `max` without
/// losing precision (TensorFlow Serving's `IsLosslessDecimal`): integers must be exact.
pub fn is_lossless(n: &serde_json::Number, digits: u32, max: f64) -> bool {
    let largest_exact = (1u64 << digits) - 1;
    if let Some(u) = n.as_u64() {
        return u <= largest_exact;
    }
    if let Some(i) = n.as_i64() {
        return i.unsigned_abs() <= largest_exact;
    }
    let d = n.as_f64().unwrap_or(f64::NAN);
    !d.is_finite() || (-max..=max).contains(&d)
}

fn lossy(v: &Value, target: &str) -> ServeError {
    ServeError::invalid(format!(
        "Cannot convert JSON value: {v} to {target} without loss of precision."
    ))
}

/// Appends one leaf value to `values` (a buffer of the signature's dtype).
fn push_leaf(v: &Value, dtype: DType, values: &mut Buffer) -> ServeResult<()> {
    if let (Value::Object(_), Buffer::Str(strings)) = (v, &mut *values) {
        strings.push(TfString::from_vec(decode_base64_object(v)?));
        return Ok(());
    }
    if let Some(x) = non_finite::value_of(v) {
        match values {
            Buffer::F32(out) => out.push(x as f32),
            Buffer::F64(out) => out.push(x),
            _ => return Err(type_error(v, dtype)),
        }
        return Ok(());
    }
    let number = v.as_number();
    // TensorFlow's `IsInt`: an integer token that fits int32.
    let int32 = || v.as_i64().and_then(|i| i32::try_from(i).ok());
    let pushed = match values {
        Buffer::F32(out) => {
            let n = number.ok_or_else(|| type_error(v, dtype))?;
            if !is_lossless(n, f32::MANTISSA_DIGITS, f32::MAX as f64) {
                return Err(lossy(v, "float"));
            }
            out.push(n.as_f64().unwrap_or_default() as f32);
            true
        }
        Buffer::F64(out) => {
            let n = number.ok_or_else(|| type_error(v, dtype))?;
            if !is_lossless(n, f64::MANTISSA_DIGITS, f64::MAX) {
                return Err(lossy(v, "double"));
            }
            out.push(n.as_f64().unwrap_or_default());
            true
        }
        // Narrower integers take any int32 and wrap, as TensorFlow Serving's int_val does.
        Buffer::I32(out) => int32().map(|i| out.push(i)).is_some(),
        Buffer::I16(out) => int32().map(|i| out.push(i as i16)).is_some(),
        Buffer::I8(out) => int32().map(|i| out.push(i as i8)).is_some(),
        Buffer::U8(out) => int32().map(|i| out.push(i as u8)).is_some(),
        Buffer::I64(out) => v.as_i64().map(|i| out.push(i)).is_some(),
        Buffer::U32(out) => {
            v.as_u64().and_then(|u| u32::try_from(u).ok()).map(|u| out.push(u)).is_some()
        }
        Buffer::U64(out) => v.as_u64().map(|u| out.push(u)).is_some(),
        Buffer::Bool(out) => v.as_bool().map(|b| out.push(b)).is_some(),
        Buffer::Str(out) => v.as_str().map(|s| out.push(TfString::from(s))).is_some(),
        _ => {
            return Err(ServeError::unimplemented(format!(
                "Conversion of JSON Value: {v} to type: {}",
                type_string(dtype)
            )))
        }
    };
    if pushed {
        Ok(())
    } else {
        Err(type_error(v, dtype))
    }
}

/// The dense shape a nested list implies, following first elements (`GetDenseTensorShape`).
fn dense_shape(mut v: &Value) -> Vec<usize> {
    let mut dims = Vec::new();
    while let Value::Array(items) = v {
        dims.push(items.len());
        match items.first() {
            Some(first) => v = first,
            None => break,
        }
    }
    dims
}

/// Checks `v` against `dims` level by level and appends its leaves (`FillTensorProto`).
fn fill(
    v: &Value,
    level: usize,
    dims: &[usize],
    dtype: DType,
    out: &mut Buffer,
) -> ServeResult<()> {
    let Value::Array(items) = v else {
        if level != dims.len() {
            return Err(ServeError::invalid(format!(
                "JSON Value: {v} found at incorrect level: {} in the JSON DOM. Expected at \
                 level: {}",
                level + 1,
                dims.len()
            )));
        }
        return push_leaf(v, dtype, out);
    };
    if level >= dims.len() {
        return Err(ServeError::invalid(format!(
            "Encountered list at unexpected level: {level} expected < {}",
            dims.len()
        )));
    }
    if items.len() != dims[level] {
        return Err(ServeError::invalid(format!(
            "Encountered list at unexpected size: {} at level: {level} expected size: {}",
            items.len(),
            dims[level]
        )));
    }
    items.iter().try_for_each(|item| fill(item, level + 1, dims, dtype, out))
}

/// One whole tensor of `info`'s dtype from a JSON value.
fn tensor_from_json(v: &Value, info: &TensorInfo) -> ServeResult<Tensor> {
    let dims = dense_shape(v);
    let mut values = Buffer::zeros(info.dtype, 0);
    fill(v, 0, &dims, info.dtype, &mut values)?;
    Ok(Tensor::from_buffer(values, dims.as_slice().into())?)
}

/// A nested error as TensorFlow Serving wraps one: `INVALID_ARGUMENT: <message>`.
fn status_string(e: &ServeError) -> String {
    format!("{}: {}", e.code_name(), e.message)
}

/// One input's rows from `"instances"`: the values so far and the shape every row must have.
struct Rows<'a> {
    info: &'a TensorInfo,
    values: Buffer,
    row_dims: Option<Vec<usize>>,
}

impl Rows<'_> {
    fn add(&mut self, v: &Value) -> ServeResult<()> {
        let dims = dense_shape(v);
        let before = self.values.len();
        fill(v, 0, &dims, self.info.dtype, &mut self.values)?;
        let size = self.values.len() - before;
        match &self.row_dims {
            None => self.row_dims = Some(dims),
            Some(first) => {
                let expected: usize = first.iter().product();
                if expected != size {
                    return Err(ServeError::invalid(format!(
                        "Expecting tensor size: {expected} but got: {size}"
                    )));
                }
                if first != &dims {
                    return Err(ServeError::invalid(format!(
                        "Expecting shape {} but got: {}",
                        shape_string(first),
                        shape_string(&dims)
                    )));
                }
            }
        }
        Ok(())
    }
}

fn shape_string(dims: &[usize]) -> String {
    let parts: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(","))
}

/// The row form: element `i` of `"instances"` is row `i` of every input.
fn from_instances(
    instances: &[Value],
    signature: &SignatureInfo,
) -> ServeResult<Vec<(String, Tensor)>> {
    let inputs = &signature.inputs;
    if !instances[0].is_object() && inputs.len() > 1 {
        return Err(ServeError::invalid(
            "instances is a plain list, but expecting list of objects as multiple input \
             tensors required as per tensorinfo_map",
        ));
    }
    let is_element_object = |v: &Value| v.is_object() && !is_base64_object(v);
    let objects = is_element_object(&instances[0]);
    let mut rows: Vec<Rows> = inputs
        .iter()
        .map(|info| Rows { info, values: Buffer::zeros(info.dtype, 0), row_dims: None })
        .collect();
    for (index, element) in instances.iter().enumerate() {
        if !objects {
            if is_element_object(element) {
                return Err(ServeError::invalid(format!(
                    "Expecting value/list but got object at item {index} of input list"
                )));
            }
            rows[0].add(element).map_err(|e| {
                ServeError::invalid(format!(
                    "Failed to process element: {index} of 'instances' list. Error: {}",
                    status_string(&e)
                ))
            })?;
            continue;
        }
        let Value::Object(fields) = element else {
            return Err(ServeError::invalid(format!(
                "Expecting object but got list at item {index} of input list"
            )));
        };
        for (name, value) in fields {
            let added = match rows.iter_mut().find(|r| &r.info.name == name) {
                Some(r) => r.add(value),
                None => Err(ServeError::invalid(format!(
                    "JSON object: does not have named input: {name}"
                ))),
            };
            added.map_err(|e| {
                ServeError::invalid(format!(
                    "Failed to process element: {index} key: {name} of 'instances' list. \
                     Error: {}",
                    status_string(&e)
                ))
            })?;
        }
        let all_named =
            fields.len() == inputs.len() && inputs.iter().all(|i| fields.contains_key(&i.name));
        if !all_named {
            let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
            return Err(ServeError::invalid(format!(
                "Failed to process element: {index} of 'instances' list. JSON object: {element} \
                 keys must be equal to: {}",
                names.join(",")
            )));
        }
    }
    rows.into_iter()
        .filter_map(|r| {
            let row_dims = r.row_dims?;
            let dims: Vec<usize> = std::iter::once(instances.len()).chain(row_dims).collect();
            Some(
                Tensor::from_buffer(r.values, dims.as_slice().into())
                    .map(|t| (r.info.name.clone(), t)),
            )
        })
        .collect::<crate::Result<Vec<_>>>()
        .map_err(ServeError::from)
}

/// The columnar form: `"inputs"` holds each input whole.
fn from_inputs(value: &Value, signature: &SignatureInfo) -> ServeResult<Vec<(String, Tensor)>> {
    let inputs = &signature.inputs;
    let Value::Object(named) = value else {
        return single_input(value, signature);
    };
    if is_base64_object(value) {
        return single_input(value, signature);
    }
    inputs
        .iter()
        .map(|info| {
            let item = named.get(&info.name).ok_or_else(|| {
                ServeError::invalid(format!(
                    "Missing named input: {} in 'inputs' object.",
                    info.name
                ))
            })?;
            Ok((info.name.clone(), tensor_from_json(item, info)?))
        })
        .collect()
}

fn single_input(value: &Value, signature: &SignatureInfo) -> ServeResult<Vec<(String, Tensor)>> {
    if signature.inputs.len() > 1 {
        return Err(ServeError::invalid(
            "inputs is a plain value/list, but expecting an object as multiple input tensors \
             required as per tensorinfo_map",
        ));
    }
    let info = &signature.inputs[0];
    Ok(vec![(info.name.clone(), tensor_from_json(value, info)?)])
}

/// A predict request's input tensors, by name, and the form it used.
pub fn predict_inputs(
    doc: &Object,
    signature: &SignatureInfo,
) -> ServeResult<(Format, Vec<(String, Tensor)>)> {
    if signature.inputs.is_empty() {
        return Err(ServeError::invalid(format!(
            "Failed to get input map for signature: {}",
            signature.name
        )));
    }
    let whole = || Value::Object(doc.clone());
    match (doc.get("instances"), doc.get("inputs")) {
        (Some(_), Some(_)) => Err(ServeError::invalid(format!(
            "JSON Value: {} Not formatted correctly expecting only one of 'inputs' or \
             'instances' keys to exist ",
            whole()
        ))),
        (Some(Value::Array(instances)), None) if !instances.is_empty() => {
            Ok((Format::Row, from_instances(instances, signature)?))
        }
        (Some(Value::Array(_)), None) => Err(ServeError::invalid(format!(
            "JSON Value: {} No values in 'instances' array",
            whole()
        ))),
        (Some(_), None) => Err(ServeError::invalid(format!(
            "JSON Value: {} Excepting 'instances' to be an list/array",
            whole()
        ))),
        (None, Some(inputs)) => Ok((Format::Columnar, from_inputs(inputs, signature)?)),
        (None, None) => Err(ServeError::invalid("Missing 'inputs' or 'instances' key")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signature(inputs: &[(&str, DType)]) -> SignatureInfo {
        SignatureInfo {
            name: "serving_default".into(),
            inputs: inputs
                .iter()
                .map(|(n, d)| TensorInfo {
                    name: n.to_string(),
                    dtype: *d,
                    dims: vec![None],
                    unknown_rank: false,
                    tensor_name: None,
                })
                .collect(),
            outputs: vec![],
            method_name: None,
        }
    }

    fn decode(body: &str, sig: &SignatureInfo) -> ServeResult<(Format, Vec<(String, Tensor)>)> {
        predict_inputs(&parse_body(body.as_bytes())?, sig)
    }

    #[test]
    fn rows_and_columns_give_the_same_tensors() {
        let sig = signature(&[("x", DType::F32)]);
        let (format, rows) = decode(r#"{"instances": [[1, 2.5], [3, 4]]}"#, &sig).unwrap();
        assert_eq!(format, Format::Row);
        assert_eq!(rows[0].1.dims(), &[2, 2]);
        assert_eq!(rows[0].1.to_vec::<f32>().unwrap(), [1.0, 2.5, 3.0, 4.0]);
        let (format, cols) = decode(r#"{"inputs": {"x": [[1, 2.5], [3, 4]]}}"#, &sig).unwrap();
        assert_eq!(format, Format::Columnar);
        assert_eq!(cols[0].1.to_vec::<f32>().unwrap(), [1.0, 2.5, 3.0, 4.0]);
        let (_, scalar) = decode(r#"{"inputs": 7}"#, &sig).unwrap();
        assert_eq!(scalar[0].1.dims(), &[] as &[usize]);
    }

    #[test]
    fn named_rows_strings_and_base64() {
        let sig = signature(&[("a", DType::I64), ("s", DType::String)]);
        let body = r#"{"instances": [{"a": 1, "s": "hi"}, {"a": -2, "s": {"b64": "/w=="}}]}"#;
        let (_, tensors) = decode(body, &sig).unwrap();
        assert_eq!(tensors[0].1.to_vec::<i64>().unwrap(), [1, -2]);
        let Buffer::Str(s) = tensors[1].1.host().unwrap() else { panic!() };
        assert_eq!(s[0].as_bytes(), b"hi");
        assert_eq!(s[1].as_bytes(), b"\xff");
    }

    #[test]
    fn bad_requests_give_tensorflow_serving_messages() {
        let f32_sig = signature(&[("x", DType::F32)]);
        let err = |body: &str, sig: &SignatureInfo| decode(body, sig).unwrap_err().message;
        assert!(err("{", &f32_sig).starts_with("JSON Parse error"));
        assert_eq!(err("", &f32_sig), "JSON Parse error: The document is empty");
        assert_eq!(err("{}", &f32_sig), "Missing 'inputs' or 'instances' key");
        assert_eq!(
            err(r#"{"instances": [[1, 2], [3]]}"#, &f32_sig),
            "Failed to process element: 1 of 'instances' list. Error: INVALID_ARGUMENT: \
             Expecting tensor size: 2 but got: 1"
        );
        assert_eq!(
            err(r#"{"inputs": [[1, 2], 3]}"#, &f32_sig),
            "JSON Value: 3 found at incorrect level: 2 in the JSON DOM. Expected at level: 2"
        );
        assert_eq!(
            err(r#"{"inputs": ["a"]}"#, &f32_sig),
            "JSON Value: \"a\" Type: String is not of expected type: float"
        );
        assert_eq!(
            err(r#"{"inputs": [16777217]}"#, &f32_sig),
            "Cannot convert JSON value: 16777217 to float without loss of precision."
        );
        let int_sig = signature(&[("i", DType::I32)]);
        assert_eq!(
            err(r#"{"inputs": [1.5]}"#, &int_sig),
            "JSON Value: 1.5 Type: Number is not of expected type: int32"
        );
        let two = signature(&[("a", DType::F32), ("b", DType::F32)]);
        assert!(err(r#"{"instances": [1]}"#, &two).starts_with("instances is a plain list"));
        assert_eq!(
            err(r#"{"inputs": {"a": [1]}}"#, &two),
            "Missing named input: b in 'inputs' object."
        );
        assert!(err(r#"{"instances": [{"a": 1}]}"#, &two).ends_with("keys must be equal to: a,b"));
        assert!(err(r#"{"instances": [], "x": 1}"#, &f32_sig)
            .ends_with("No values in 'instances' array"));
        assert!(err(r#"{"inputs": {"b64": "@@"}}"#, &signature(&[("s", DType::String)]))
            .contains("Unable to base64 decode"));
    }
}
