//! Strings to numbers (`StringToNumber`) and numbers to strings (`AsString`).

use super::case::{each, is_space};
use super::printf::Spec;
use super::{string_tensor, strs, StringOp};
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::tstring::TfString;

fn trim(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|&c| !is_space(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|&c| !is_space(c)).map_or(start, |e| e + 1);
    &b[start..end]
}

/// A decimal integer with an optional sign between optional whitespace (`safe_strto64`).
fn integer(b: &[u8]) -> Option<i64> {
    let s = std::str::from_utf8(trim(b)).ok()?;
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A float as double-conversion reads it: decimal, `inf`/`infinity`/`nan` in any case, or a
/// hexadecimal integer; out-of-range values become infinities or zeros.
fn float(b: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(trim(b)).ok()?;
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let v = hex
            .bytes()
            .fold(0.0f64, |acc, c| acc * 16.0 + (c as char).to_digit(16).unwrap_or(0) as f64);
        return Some(if negative { -v } else { v });
    }
    // Rust's parser also takes a second sign, which double-conversion refuses.
    if body.starts_with(['+', '-']) {
        return None;
    }
    body.parse::<f64>().ok().map(|v| if negative { -v } else { v })
}

pub fn to_number(x: &Tensor, out_type: DType) -> Result<Tensor> {
    let v = strs(x)?;
    let bad = |s: &TfString| {
        Error::InvalidArgument(format!(
            "StringToNumberOp could not correctly convert string: {} [Op:StringToNumber]",
            String::from_utf8_lossy(s.as_bytes())
        ))
    };
    let dims = x.dims();
    macro_rules! parse {
        ($t:ty, $f:expr) => {{
            let out: Vec<Option<$t>> = each(v, $f);
            let out = out
                .into_iter()
                .zip(v)
                .map(|(o, s)| o.ok_or_else(|| bad(s)))
                .collect::<Result<Vec<$t>>>()?;
            Tensor::from_slice(&out, dims)
        }};
    }
    match out_type {
        DType::F32 => parse!(f32, |b| {
            // Parsed straight to f32: rounding twice (via f64) could differ by an ulp.
            float(b).map(|d| {
                let s = std::str::from_utf8(trim(b)).unwrap_or("");
                s.parse::<f32>().unwrap_or(d as f32)
            })
        }),
        DType::F64 => parse!(f64, float),
        DType::I32 => parse!(i32, |b| integer(b).and_then(|i| i32::try_from(i).ok())),
        DType::I64 => parse!(i64, integer),
        other => Err(Error::unsupported_dtype("StringToNumber", other)),
    }
}

fn fields(op: &StringOp) -> (i64, bool, bool, i64, &str) {
    match op {
        StringOp::AsString { precision, scientific, shortest, width, fill } => {
            (*precision, *scientific, *shortest, *width, fill.as_str())
        }
        _ => (-1, false, false, -1, ""),
    }
}

/// TensorFlow's AsString attribute checks for an input dtype.
pub fn check_as_string(op: &StringOp, dtype: DType) -> Result<()> {
    let (precision, scientific, shortest, _, fill) = fields(op);
    let bad = |m: String| Err(Error::InvalidArgument(format!("{m} [Op:AsString]")));
    if scientific && shortest {
        return bad("Cannot select both scientific and shortest notation".into());
    }
    if fill.chars().count() > 1 {
        return bad(format!("Fill string must be one or fewer characters: \"{fill}\""));
    }
    if let Some(c) = fill.chars().next() {
        if !" +-0#".contains(c) {
            return bad(format!("Fill argument not supported: \"{fill}\""));
        }
    }
    let name = dtype.name();
    if dtype.is_integer() || dtype.is_bool() {
        if precision > -1 {
            return bad(format!("precision not supported for datatype {name}"));
        }
        if scientific {
            return bad(format!("scientific not supported for datatype {name}"));
        }
        if shortest {
            return bad(format!("shortest not supported for datatype {name}"));
        }
    }
    Ok(())
}

pub fn as_string(op: &StringOp, x: &Tensor) -> Result<Tensor> {
    let (precision, scientific, shortest, width, fill) = fields(op);
    let conv = if shortest {
        'g'
    } else if scientific {
        'e'
    } else {
        'f'
    };
    let spec = Spec {
        flag: fill.chars().next(),
        width: width.max(0) as usize,
        precision: usize::try_from(precision).ok(),
        conv,
    };
    let int = |v: i128| TfString::from(spec.int(v).as_str());
    // TensorFlow's CPU threads flush subnormals to zero, so they print as (signed) zeros.
    let flush = |v: f64, tiny: f64| if v != 0.0 && v.abs() < tiny { 0.0f64.copysign(v) } else { v };
    let float = |v: f64| TfString::from(spec.float(flush(v, f64::MIN_POSITIVE)).as_str());
    let float32 =
        |v: f32| TfString::from(spec.float(flush(v as f64, f32::MIN_POSITIVE as f64)).as_str());
    let complex = |re: f64, im: f64| {
        TfString::from(format!("({},{})", spec.float(re), spec.float(im)).as_str())
    };
    let out: Vec<TfString> = match x.buffer() {
        Buffer::Str(v) => v.clone(),
        Buffer::Bool(v) => {
            v.iter().map(|&b| TfString::from(if b { "true" } else { "false" })).collect()
        }
        Buffer::F16(v) => v.iter().map(|&a| float(a.to_f64())).collect(),
        Buffer::BF16(v) => v.iter().map(|&a| float(a.to_f64())).collect(),
        Buffer::F32(v) => v.iter().map(|&a| float32(a)).collect(),
        Buffer::F64(v) => v.iter().map(|&a| float(a)).collect(),
        Buffer::C64(v) => v
            .iter()
            .map(|a| {
                complex(
                    flush(a.re as f64, f32::MIN_POSITIVE as f64),
                    flush(a.im as f64, f32::MIN_POSITIVE as f64),
                )
            })
            .collect(),
        Buffer::C128(v) => v
            .iter()
            .map(|a| complex(flush(a.re, f64::MIN_POSITIVE), flush(a.im, f64::MIN_POSITIVE)))
            .collect(),
        Buffer::I8(v) => v.iter().map(|&a| int(a as i128)).collect(),
        Buffer::I16(v) => v.iter().map(|&a| int(a as i128)).collect(),
        Buffer::I32(v) => v.iter().map(|&a| int(a as i128)).collect(),
        Buffer::I64(v) => v.iter().map(|&a| int(a as i128)).collect(),
        Buffer::U8(v) => v.iter().map(|&a| int(a as i128)).collect(),
        Buffer::U16(v) => v.iter().map(|&a| int(a as i128)).collect(),
        Buffer::U32(v) => v.iter().map(|&a| int(a as i128)).collect(),
        Buffer::U64(v) => v.iter().map(|&a| int(a as i128)).collect(),
    };
    Ok(string_tensor(out, x.dims()))
}
