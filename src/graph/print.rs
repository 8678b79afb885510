//! `tf.print`: a template of text pieces and tensor slots, formatted when it runs (eagerly, or
//! each time a graph containing it runs) in TensorFlow's layout: `[1 2 ... 8 9]`, floats with
//! the fewest digits (6 or 15) that read back exactly, else 9 or 17.

use crate::buffer::Buffer;
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Piece {
    Text(String),
    /// The n-th tensor input.
    Tensor(usize),
}

pub type Sink = Arc<dyn Fn(&str) -> Result<()> + Send + Sync>;

pub struct PrintSpec {
    pub pieces: Vec<Piece>,
    /// Elements shown at each end of a long dimension.
    pub summarize: usize,
    /// Where the text goes, as `tf.print`'s `output_stream` named it: `stderr`, `stdout`, a
    /// `file://` URL, or `other` (a Python callable). Kept so a saved graph prints to the same
    /// place after loading.
    pub stream: String,
    pub sink: Sink,
}

impl PrintSpec {
    pub fn emit(&self, tensors: &[&Tensor]) -> Result<()> {
        let mut text = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(s) => text += s,
                Piece::Tensor(i) => text += &format_tensor(tensors[*i], self.summarize)?,
            }
        }
        (self.sink)(&text)
    }
}

/// One tensor as `tf.print` shows it.
pub fn format_tensor(t: &Tensor, summarize: usize) -> Result<String> {
    let buffer = t.host()?;
    let items: Vec<String> = element_strings(buffer);
    let mut out = String::new();
    nest(&mut out, &items, t.dims(), 0, summarize);
    Ok(out)
}

fn element_strings(buffer: &Buffer) -> Vec<String> {
    match buffer {
        Buffer::F32(v) => v
            .iter()
            .map(|&x| float_text(x as f64, 6, 9, |s| s.parse::<f32>().ok() == Some(x)))
            .collect(),
        Buffer::F64(v) => {
            v.iter().map(|&x| float_text(x, 15, 17, |s| s.parse::<f64>().ok() == Some(x))).collect()
        }
        Buffer::F16(v) => v.iter().map(|x| float_text(x.to_f64(), 6, 9, |_| true)).collect(),
        Buffer::BF16(v) => v.iter().map(|x| float_text(x.to_f64(), 6, 9, |_| true)).collect(),
        Buffer::Bool(v) => v.iter().map(|&b| if b { "1" } else { "0" }.to_string()).collect(),
        Buffer::Str(v) => {
            v.iter().map(|s| format!("\"{}\"", crate::tstring::c_escape(s.as_bytes()))).collect()
        }
        other => crate::with_movable!(other, v => v.iter().map(|x| format!("{x:?}")).collect()),
    }
}

pub(crate) fn float_text(
    x: f64,
    short: usize,
    long: usize,
    reads_back: impl Fn(&str) -> bool,
) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format_g(x, short);
    if reads_back(&s) {
        s
    } else {
        format_g(x, long)
    }
}

/// C's `%.{precision}g`.
pub fn format_g(x: f64, precision: usize) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let p = precision.max(1);
    let sci = format!("{:.*e}", p - 1, x);
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("number");
    if exp < -4 || exp >= p as i32 {
        let mantissa = trim_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    let decimals = (p as i32 - 1 - exp).max(0) as usize;
    trim_zeros(&format!("{x:.decimals$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

fn nest(out: &mut String, items: &[String], dims: &[usize], depth: usize, summarize: usize) {
    let Some((&n, rest)) = dims.split_first() else {
        out.push_str(&items[0]);
        return;
    };
    let stride: usize = rest.iter().product();
    out.push('[');
    let separator =
        if rest.is_empty() { " ".to_string() } else { format!("\n{}", " ".repeat(depth + 1)) };
    let shown: Vec<Option<usize>> = if n > summarize.saturating_mul(2) {
        (0..summarize).map(Some).chain([None]).chain((n - summarize..n).map(Some)).collect()
    } else {
        (0..n).map(Some).collect()
    };
    for (k, i) in shown.iter().enumerate() {
        if k > 0 {
            out.push_str(&separator);
        }
        match i {
            Some(i) => nest(out, &items[i * stride..(i + 1) * stride], rest, depth + 1, summarize),
            None => out.push_str("..."),
        }
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_tensorflow() {
        assert_eq!(format_g(2.0, 6), "2");
        assert_eq!(format_g(1e-8, 6), "1e-08");
        assert_eq!(
            float_text(123456789.0f32 as f64, 6, 9, |s| s.parse::<f32>().ok() == Some(123456789.0)),
            "123456792"
        );
        assert_eq!(
            float_text(1.0 / 3.0, 15, 17, |s| s.parse::<f64>().ok() == Some(1.0 / 3.0)),
            "0.33333333333333331"
        );
        let t = Tensor::from_slice(&(0..12).collect::<Vec<i32>>(), &[3, 4]).unwrap();
        assert_eq!(format_tensor(&t, 3).unwrap(), "[[0 1 2 3]\n [4 5 6 7]\n [8 9 10 11]]");
        let t = Tensor::from_slice(&(0..10).collect::<Vec<i32>>(), &[10]).unwrap();
        assert_eq!(format_tensor(&t, 3).unwrap(), "[0 1 2 ... 7 8 9]");
    }
}
