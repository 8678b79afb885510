//! Output tensors to JSON response text, as TensorFlow Serving writes them: `"predictions"`
//! (row form: one entry per batch row, objects when there are several outputs) or `"outputs"`
//! (columnar form); floats in the shortest of `%g` and `%.9g`/`%.17g` that reads back exactly,
//! with `.0` on whole numbers and `NaN`/`Infinity` for non-finite values; strings whose output
//! name ends in `_bytes` as `{"b64": ...}`.

use super::decode::Format;
use super::error::{ServeError, ServeResult};
use super::signature::type_string;
use crate::buffer::Buffer;
use crate::io::base64;
use crate::tensor::Tensor;
use std::fmt::Write;

/// C's `printf("%.{precision}g", v)` for a finite, non-zero `v`.
fn format_g(v: f64, precision: usize) -> String {
    let strip = |s: &str| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    let scientific = format!("{:.*e}", precision - 1, v);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent < -4 || exponent >= precision as i32 {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), exponent.unsigned_abs())
    } else {
        strip(&format!("{:.*}", (precision as i32 - 1 - exponent) as usize, v))
    }
}

/// A float as TensorFlow Serving's `WriteDecimal` writes it; `digits` is `max_digits10` of the
/// float type, `reads_back` whether a decimal text parses back to the same value in that type.
fn decimal(v: f64, digits: usize, reads_back: impl Fn(&str) -> bool) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-Infinity" } else { "Infinity" }.into();
    }
    let mut text = if v == 0.0 {
        if v.is_sign_negative() { "-0" } else { "0" }.to_string()
    } else {
        format_g(v, 6)
    };
    if !reads_back(&text) {
        text = format_g(v, digits);
    }
    if !text.contains('.') && !text.contains('e') {
        text.push_str(".0");
    }
    text
}

pub fn write_f32(out: &mut String, v: f32) {
    out.push_str(&decimal(v as f64, 9, |s| s.parse::<f32>().is_ok_and(|r| r == v)));
}

pub fn write_f64(out: &mut String, v: f64) {
    out.push_str(&decimal(v, 17, |s| s.parse::<f64>().is_ok_and(|r| r == v)));
}

pub fn write_str(out: &mut String, s: &str) {
    // Writing a string's JSON form cannot fail.
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

/// Element `k` of a host buffer.
fn write_leaf(out: &mut String, values: &Buffer, k: usize, as_bytes: bool) -> ServeResult<()> {
    match values {
        Buffer::F32(v) => write_f32(out, v[k]),
        Buffer::F64(v) => write_f64(out, v[k]),
        Buffer::F16(v) => write_f32(out, v[k].to_f32()),
        Buffer::BF16(v) => write_f32(out, v[k].to_f32()),
        Buffer::I8(v) => _ = write!(out, "{}", v[k]),
        Buffer::I16(v) => _ = write!(out, "{}", v[k]),
        Buffer::I32(v) => _ = write!(out, "{}", v[k]),
        Buffer::I64(v) => _ = write!(out, "{}", v[k]),
        Buffer::U8(v) => _ = write!(out, "{}", v[k]),
        Buffer::U16(v) => _ = write!(out, "{}", v[k]),
        Buffer::U32(v) => _ = write!(out, "{}", v[k]),
        Buffer::U64(v) => _ = write!(out, "{}", v[k]),
        Buffer::Bool(v) => out.push_str(if v[k] { "true" } else { "false" }),
        Buffer::Str(v) if as_bytes => {
            out.push_str("{\"b64\": ");
            write_str(out, &base64::encode(v[k].as_bytes()));
            out.push('}');
        }
        Buffer::Str(v) => write_str(out, &String::from_utf8_lossy(v[k].as_bytes())),
        Buffer::C64(_) | Buffer::C128(_) => {
            return Err(ServeError::invalid(format!(
                "Failed to write JSON value for tensor type: {}",
                type_string(values.dtype())
            )))
        }
    }
    Ok(())
}

/// Writes the elements from `*offset` on as nested lists of `dims` (a scalar when empty).
fn write_nested(
    out: &mut String,
    values: &Buffer,
    dims: &[usize],
    as_bytes: bool,
    offset: &mut usize,
) -> ServeResult<()> {
    let Some((&first, rest)) = dims.split_first() else {
        write_leaf(out, values, *offset, as_bytes)?;
        *offset += 1;
        return Ok(());
    };
    out.push('[');
    for i in 0..first {
        if i > 0 {
            out.push_str(", ");
        }
        write_nested(out, values, rest, as_bytes, offset)?;
    }
    out.push(']');
    Ok(())
}

/// A named output ready to write: its host values and dims.
struct Output<'a> {
    name: &'a str,
    values: &'a Buffer,
    dims: &'a [usize],
    as_bytes: bool,
}

fn outputs(tensors: &[(String, Tensor)]) -> ServeResult<Vec<Output<'_>>> {
    if tensors.is_empty() {
        return Err(ServeError::invalid("Cannot convert empty tensor map to JSON"));
    }
    tensors
        .iter()
        .map(|(name, t)| {
            let values = t.host()?;
            let as_bytes = matches!(values, Buffer::Str(_)) && name.ends_with("_bytes");
            Ok(Output { name, values, dims: t.dims(), as_bytes })
        })
        .collect()
}

fn row_form(tensors: &[(String, Tensor)]) -> ServeResult<String> {
    let outputs = outputs(tensors)?;
    let mut batch = None;
    for o in &outputs {
        let Some(&rows) = o.dims.first() else {
            return Err(ServeError::invalid(format!(
                "Tensor name: {} has no shape information ",
                o.name
            )));
        };
        match batch {
            Some(b) if b != rows => {
                return Err(ServeError::invalid(format!(
                    "Tensor name: {} has inconsistent batch size: {rows} expecting: {b}",
                    o.name
                )))
            }
            _ => batch = Some(rows),
        }
    }
    let mut offsets = vec![0usize; outputs.len()];
    let mut out = String::from("{\"predictions\": [");
    for row in 0..batch.unwrap_or(0) {
        if row > 0 {
            out.push_str(", ");
        }
        write_each(&mut out, &outputs, |out, i, o| {
            write_nested(out, o.values, &o.dims[1..], o.as_bytes, &mut offsets[i])
        })?;
    }
    out.push_str("]}");
    Ok(out)
}

fn columnar_form(tensors: &[(String, Tensor)]) -> ServeResult<String> {
    let outputs = outputs(tensors)?;
    let mut out = String::from("{\"outputs\": ");
    write_each(&mut out, &outputs, |out, _, o| {
        write_nested(out, o.values, o.dims, o.as_bytes, &mut 0)
    })?;
    out.push('}');
    Ok(out)
}

/// Writes each output with `write_one`: bare when there is one, else as an object keyed by
/// output name.
fn write_each(
    out: &mut String,
    outputs: &[Output<'_>],
    mut write_one: impl FnMut(&mut String, usize, &Output<'_>) -> ServeResult<()>,
) -> ServeResult<()> {
    let objects = outputs.len() > 1;
    if objects {
        out.push('{');
    }
    for (i, o) in outputs.iter().enumerate() {
        if objects {
            if i > 0 {
                out.push_str(", ");
            }
            write_str(out, o.name);
            out.push_str(": ");
        }
        write_one(out, i, o)?;
    }
    if objects {
        out.push('}');
    }
    Ok(())
}

/// A predict response in the form the request used; `tensors` sorted by name.
pub fn predict_response(tensors: &[(String, Tensor)], format: Format) -> ServeResult<String> {
    match format {
        Format::Row => row_form(tensors),
        Format::Columnar => columnar_form(tensors),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_text(v: f32) -> String {
        let mut s = String::new();
        write_f32(&mut s, v);
        s
    }

    #[test]
    fn floats_are_written_as_tensorflow_serving_writes_them() {
        assert_eq!(f32_text(0.2), "0.2");
        assert_eq!(f32_text(3.0), "3.0");
        assert_eq!(f32_text(-0.0), "-0.0");
        assert_eq!(f32_text(1e6), "1e+06");
        assert_eq!(f32_text(3e-5), "3e-05");
        assert_eq!(f32_text(1234567.0), "1234567.0");
        assert_eq!(f32_text(0.1 + 0.2), "0.3");
        assert_eq!(f32_text(1.0 / 3.0), "0.333333343");
        assert_eq!(f32_text(f32::NAN), "NaN");
        assert_eq!(f32_text(f32::NEG_INFINITY), "-Infinity");
        let mut s = String::new();
        write_f64(&mut s, 0.1 + 0.2);
        assert_eq!(s, "0.30000000000000004");
    }

    #[test]
    fn row_and_columnar_responses() {
        let scores = Tensor::from_slice(&[0.5f32, 1.0, 2.0, 3.5], &[2, 2]).unwrap();
        let ids = Tensor::from_slice(&[7i64, 8], &[2]).unwrap();
        let one = [("scores".to_string(), scores.clone())];
        assert_eq!(
            predict_response(&one, Format::Row).unwrap(),
            r#"{"predictions": [[0.5, 1.0], [2.0, 3.5]]}"#
        );
        let two = [("ids".to_string(), ids), ("scores".to_string(), scores)];
        assert_eq!(
            predict_response(&two, Format::Row).unwrap(),
            r#"{"predictions": [{"ids": 7, "scores": [0.5, 1.0]}, {"ids": 8, "scores": [2.0, 3.5]}]}"#
        );
        assert_eq!(
            predict_response(&two, Format::Columnar).unwrap(),
            r#"{"outputs": {"ids": [7, 8], "scores": [[0.5, 1.0], [2.0, 3.5]]}}"#
        );
        let scalar = [("s".to_string(), Tensor::scalar(1.5f64))];
        assert_eq!(predict_response(&scalar, Format::Columnar).unwrap(), r#"{"outputs": 1.5}"#);
        assert!(predict_response(&scalar, Format::Row).unwrap_err().message.contains("no shape"));
    }
}
