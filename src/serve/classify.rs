//! `:classify` and `:regress`: JSON examples become serialized `tf.Example` protos (the
//! `context`, when given, merged into each), fed to a signature that takes one string tensor;
//! its `classes`/`scores` or `outputs` become TensorFlow Serving's `{"results": ...}`.

use super::decode::{decode_base64_object, is_base64_object, is_lossless, Object};
use super::encode::{write_f32, write_str};
use super::error::{ServeError, ServeResult};
use super::non_finite;
use super::signature::{type_string, SignatureInfo};
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::proto::tensorflow::{feature::Kind, BytesList, Example, Feature, FloatList, Int64List};
use crate::tensor::Tensor;
use crate::tstring::TfString;
use prost::Message;
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Classify,
    Regress,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Classify => "classify",
            Method::Regress => "regress",
        }
    }
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::BytesList(_) => "bytes",
        Kind::FloatList(_) => "float",
        Kind::Int64List(_) => "int64",
    }
}

/// Appends one JSON value to a feature, whose kind the first value fixes (`AddValueToFeature`).
fn add_value(v: &Value, name: &str, feature: &mut Feature) -> ServeResult<()> {
    let unexpected = |v: &Value| {
        ServeError::invalid(format!(
            "Feature: {name} has element with unexpected JSON type: {}",
            match v {
                Value::Null => "Null",
                Value::Array(_) => "Array",
                _ => "Object",
            }
        ))
    };
    let wanted = match v {
        _ if non_finite::value_of(v).is_some() => Kind::FloatList(FloatList::default()),
        Value::Null | Value::Array(_) => return Err(unexpected(v)),
        Value::Object(_) if !is_base64_object(v) => return Err(unexpected(v)),
        Value::Object(_) | Value::String(_) => Kind::BytesList(BytesList::default()),
        Value::Number(n) if n.is_f64() => Kind::FloatList(FloatList::default()),
        Value::Bool(_) | Value::Number(_) => Kind::Int64List(Int64List::default()),
    };
    let kind = feature.kind.get_or_insert(wanted.clone());
    if std::mem::discriminant(kind) != std::mem::discriminant(&wanted) {
        return Err(ServeError::invalid(format!(
            "Unexpected element type in feature: {name} expecting type: {}",
            kind_name(kind)
        )));
    }
    match (kind, v) {
        (Kind::FloatList(list), _) if non_finite::value_of(v).is_some() => {
            list.value.push(non_finite::value_of(v).unwrap_or_default() as f32);
        }
        (Kind::BytesList(list), Value::String(s)) => list.value.push(s.clone().into_bytes()),
        (Kind::BytesList(list), _) => list.value.push(decode_base64_object(v)?),
        (Kind::FloatList(list), Value::Number(n)) => {
            if !is_lossless(n, f32::MANTISSA_DIGITS, f32::MAX as f64) {
                return Err(ServeError::invalid(format!(
                    "Cannot convert JSON value: {v} to float without loss of precision."
                )));
            }
            list.value.push(n.as_f64().unwrap_or_default() as f32);
        }
        (Kind::Int64List(list), Value::Bool(b)) => list.value.push(*b as i64),
        (Kind::Int64List(list), Value::Number(n)) => match n.as_i64() {
            Some(i) => list.value.push(i),
            None => {
                return Err(ServeError::invalid(format!(
                    "Feature: {name} has uint64 element. Only int64 is supported."
                )))
            }
        },
        _ => unreachable!("the kind was chosen from the value"),
    }
    Ok(())
}

/// One JSON object as a serialized `tf.Example`: each key a feature, each value a list of
/// values or one value.
fn example_bytes(v: &Value) -> ServeResult<Vec<u8>> {
    let Value::Object(fields) = v else {
        return Err(ServeError::invalid(format!(
            "Example must be JSON object but got JSON {}",
            match v {
                Value::Array(_) => "Array",
                Value::String(_) => "String",
                Value::Number(_) => "Number",
                Value::Null => "Null",
                _ => "Bool",
            }
        )));
    };
    let mut example = Example::default();
    let features = &mut example.features.get_or_insert_with(Default::default).feature;
    for (name, content) in fields {
        let mut feature = Feature::default();
        match content {
            Value::Array(items) => {
                items.iter().try_for_each(|item| add_value(item, name, &mut feature))?
            }
            _ => add_value(content, name, &mut feature)?,
        }
        features.insert(name.clone(), feature);
    }
    Ok(example.encode_to_vec())
}

/// How many bytes of context copies one request may make (1 GiB).
const MAX_MERGED_CONTEXT_BYTES: usize = 1 << 30;

/// The request's examples as a string tensor of serialized protos, one per example. A context
/// is merged into each by concatenating the serializations (protobuf's merge: an example's own
/// feature replaces the context's of the same name).
pub fn examples_tensor(doc: &Object, method: Method) -> ServeResult<Tensor> {
    let whole = || Value::Object(doc.clone());
    let context = doc.get("context").map(example_bytes).transpose()?.unwrap_or_default();
    let examples = match doc.get("examples") {
        None => {
            return Err(ServeError::invalid(format!(
                "JSON Value: {} When method is {}, key 'examples' is expected and was not found",
                whole(),
                method.name()
            )))
        }
        Some(Value::Array(items)) if items.is_empty() => {
            return Err(ServeError::invalid(format!(
                "JSON Value: {} 'examples' value is an empty array",
                whole()
            )))
        }
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(ServeError::invalid(format!(
                "JSON Value: {} Expecting 'examples' value to be an list/array",
                whole()
            )))
        }
    };
    // Each example carries its own copy of the context: bound the total before copying.
    if context.len().saturating_mul(examples.len()) > MAX_MERGED_CONTEXT_BYTES {
        return Err(ServeError::invalid(format!(
            "the request's context ({} bytes) repeated for {} examples exceeds {} bytes",
            context.len(),
            examples.len(),
            MAX_MERGED_CONTEXT_BYTES
        )));
    }
    let serialized = examples
        .iter()
        .map(|e| {
            let mut bytes = context.clone();
            bytes.extend(example_bytes(e)?);
            Ok(TfString::from_vec(bytes))
        })
        .collect::<ServeResult<Vec<_>>>()?;
    let n = serialized.len();
    Ok(Tensor::from_buffer(Buffer::Str(serialized), [n][..].into())?)
}

/// The signature's one input, when it can take serialized examples for `method`, with the
/// outputs that method reads; else why not.
pub fn check_signature(signature: &SignatureInfo, method: Method) -> ServeResult<String> {
    let why_not = |why: String| {
        ServeError::invalid(format!(
            "Signature \"{}\" cannot {}: {why}",
            signature.name,
            method.name()
        ))
    };
    let [input] = signature.inputs.as_slice() else {
        return Err(why_not(format!(
            "Expected one input Tensor, found {}",
            signature.inputs.len()
        )));
    };
    if input.dtype != DType::String {
        return Err(why_not(format!(
            "its input {} is {}, not a string tensor of serialized tf.Example protos",
            input.name,
            type_string(input.dtype)
        )));
    }
    let names: Vec<&str> = signature.outputs.iter().map(|o| o.name.as_str()).collect();
    let fits = match method {
        Method::Classify => {
            !names.is_empty() && names.iter().all(|n| *n == "classes" || *n == "scores")
        }
        Method::Regress => names == ["outputs"],
    };
    if !fits {
        let wanted = match method {
            Method::Classify => "'classes' and/or 'scores'",
            Method::Regress => "'outputs'",
        };
        return Err(why_not(format!("its outputs are {names:?}, not {wanted}")));
    }
    Ok(input.name.clone())
}

fn output<'a>(outputs: &'a [(String, Tensor)], name: &str) -> Option<&'a Tensor> {
    outputs.iter().find(|(n, _)| n == name).map(|(_, t)| t)
}

fn batch_mismatch(examples: usize, got: usize) -> ServeError {
    ServeError::invalid(format!(
        "Input batch size did not match output batch size: {examples} vs. {got}"
    ))
}

/// `{"results": [[[label, score], ...], ...]}` from `classes` [batch, n] strings and/or
/// `scores` [batch, n] floats.
pub fn classify_response(outputs: &[(String, Tensor)], examples: usize) -> ServeResult<String> {
    let matrix = |name: &str, dtype: DType| -> ServeResult<Option<(&Buffer, usize)>> {
        let Some(t) = output(outputs, name) else { return Ok(None) };
        if t.dtype() != dtype {
            return Err(ServeError::invalid(format!(
                "Expected {name} Tensor of {}. Got: {}",
                type_string(dtype),
                type_string(t.dtype())
            )));
        }
        let &[rows, cols] = t.dims() else {
            return Err(ServeError::invalid(format!(
                "Expected Tensor shape: [batch_size num_classes] but got {:?}",
                t.dims()
            )));
        };
        if rows != examples {
            return Err(batch_mismatch(examples, rows));
        }
        Ok(Some((t.host()?, cols)))
    };
    let classes = matrix("classes", DType::String)?;
    let scores = matrix("scores", DType::F32)?;
    if let (Some((_, a)), Some((_, b))) = (classes, scores) {
        if a != b {
            return Err(ServeError::invalid(format!(
                "Tensors class and score should match in dim[1]. Got {a} vs. {b}"
            )));
        }
    }
    let cols = classes.or(scores).map_or(0, |(_, c)| c);
    let mut out = String::from("{\"results\": [");
    for row in 0..examples {
        out.push_str(if row > 0 { ", [" } else { "[" });
        for col in 0..cols {
            let k = row * cols + col;
            out.push_str(if col > 0 { ", [" } else { "[" });
            match classes {
                Some((Buffer::Str(labels), _)) => {
                    write_str(&mut out, &String::from_utf8_lossy(labels[k].as_bytes()))
                }
                _ => out.push_str("\"\""),
            }
            out.push_str(", ");
            match scores {
                Some((Buffer::F32(values), _)) => write_f32(&mut out, values[k]),
                _ => write_f32(&mut out, 0.0),
            }
            out.push(']');
        }
        out.push(']');
    }
    out.push_str("]}");
    Ok(out)
}

/// `{"results": [v, ...]}` from `outputs` of shape [batch] or [batch, 1].
pub fn regress_response(outputs: &[(String, Tensor)], examples: usize) -> ServeResult<String> {
    let t = output(outputs, "outputs").ok_or_else(|| ServeError::invalid("No outputs found."))?;
    let rows = match t.dims() {
        &[rows] | &[rows, 1] => rows,
        dims => {
            return Err(ServeError::invalid(format!(
                "Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but \
                 got {dims:?}"
            )))
        }
    };
    if rows != examples {
        return Err(batch_mismatch(examples, rows));
    }
    let Buffer::F32(values) = t.host()? else {
        return Err(ServeError::invalid(format!(
            "Expected output Tensor of DT_FLOAT. Got: {}",
            type_string(t.dtype())
        )));
    };
    let mut out = String::from("{\"results\": [");
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_f32(&mut out, *v);
    }
    out.push_str("]}");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::decode::parse_body;

    #[test]
    fn examples_become_serialized_protos_with_the_context_merged() {
        let doc = parse_body(
            br#"{"context": {"c": "x"}, "examples": [{"f": [1.5, 2.0], "i": 3}, {"b": {"b64": "AA=="}}]}"#,
        )
        .unwrap();
        let t = examples_tensor(&doc, Method::Classify).unwrap();
        let Buffer::Str(protos) = t.host().unwrap() else { panic!() };
        let first = Example::decode(protos[0].as_bytes()).unwrap().features.unwrap().feature;
        assert_eq!(first["f"].kind, Some(Kind::FloatList(FloatList { value: vec![1.5, 2.0] })));
        assert_eq!(first["i"].kind, Some(Kind::Int64List(Int64List { value: vec![3] })));
        assert_eq!(
            first["c"].kind,
            Some(Kind::BytesList(BytesList { value: vec![b"x".to_vec()] }))
        );
        let second = Example::decode(protos[1].as_bytes()).unwrap().features.unwrap().feature;
        assert_eq!(second["b"].kind, Some(Kind::BytesList(BytesList { value: vec![vec![0]] })));
        // As in TensorFlow Serving, 2 is an int64 and 2.0 a float: one feature cannot mix them.
        let mixed = parse_body(br#"{"examples": [{"f": [1, 2.0]}]}"#).unwrap();
        assert_eq!(
            examples_tensor(&mixed, Method::Regress).unwrap_err().message,
            "Unexpected element type in feature: f expecting type: int64"
        );
    }

    #[test]
    fn results_as_tensorflow_serving_writes_them() {
        let classes =
            Tensor::from_buffer(Buffer::Str(vec!["a".into(), "b".into()]), [1usize, 2][..].into())
                .unwrap();
        let scores = Tensor::from_slice(&[0.25f32, 0.75], &[1, 2]).unwrap();
        let outputs = [("classes".to_string(), classes), ("scores".to_string(), scores)];
        assert_eq!(
            classify_response(&outputs, 1).unwrap(),
            r#"{"results": [[["a", 0.25], ["b", 0.75]]]}"#
        );
        let values =
            [("outputs".to_string(), Tensor::from_slice(&[1.0f32, 2.5], &[2, 1]).unwrap())];
        assert_eq!(regress_response(&values, 2).unwrap(), r#"{"results": [1.0, 2.5]}"#);
        assert!(regress_response(&values, 3).unwrap_err().message.contains("3 vs. 2"));
    }
}
