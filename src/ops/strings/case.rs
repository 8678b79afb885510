//! Case mapping, stripping and lengths: one string in, one value out.

use super::{string_tensor, strs};
use crate::error::Result;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use rayon::prelude::*;

/// Above this many elements the kernels run in parallel.
const GRAIN: usize = 1 << 14;

#[derive(Clone, Copy)]
pub enum Case {
    Lower,
    Upper,
}

/// Applies `f` to every element (in parallel for large inputs).
pub(crate) fn each<U: Send>(v: &[TfString], f: impl Fn(&[u8]) -> U + Sync + Send) -> Vec<U> {
    if v.len() > GRAIN {
        v.par_iter().map(|s| f(s.as_bytes())).collect()
    } else {
        v.iter().map(|s| f(s.as_bytes())).collect()
    }
}

/// TensorFlow's default maps ASCII letters byte by byte; with encoding='utf-8' it maps Unicode
/// characters (a string that is not UTF-8 keeps its bytes outside ASCII).
pub fn map(x: &Tensor, case: Case, utf8: bool) -> Result<Tensor> {
    let out = each(strs(x)?, |b| match (utf8, std::str::from_utf8(b)) {
        (true, Ok(s)) => TfString::from(
            match case {
                Case::Lower => s.to_lowercase(),
                Case::Upper => s.to_uppercase(),
            }
            .as_str(),
        ),
        _ => TfString::from_vec(match case {
            Case::Lower => b.to_ascii_lowercase(),
            Case::Upper => b.to_ascii_uppercase(),
        }),
    });
    Ok(string_tensor(out, x.dims()))
}

/// C's `isspace` in the C locale, which `absl::StripAsciiWhitespace` uses.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

pub fn strip(x: &Tensor) -> Result<Tensor> {
    let out = each(strs(x)?, |b| {
        let start = b.iter().position(|&c| !is_space(c)).unwrap_or(b.len());
        let end = b.iter().rposition(|&c| !is_space(c)).map_or(start, |e| e + 1);
        TfString::new(&b[start..end])
    });
    Ok(string_tensor(out, x.dims()))
}

/// How many UTF-8 characters: bytes that do not continue a character (TensorFlow's count,
/// which also counts each invalid byte).
pub(crate) fn utf8_chars(b: &[u8]) -> usize {
    b.iter().filter(|&&c| (c & 0xc0) != 0x80).count()
}

pub fn length(x: &Tensor, utf8: bool) -> Result<Tensor> {
    let out: Vec<i32> = each(strs(x)?, |b| if utf8 { utf8_chars(b) } else { b.len() } as i32);
    Tensor::from_slice(&out, x.dims())
}
