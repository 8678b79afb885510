//! `StringSplitV2`: Python's `str.split` on every string of a vector, as a sparse matrix
//! (int64 indices, values, int64 dense shape) that `tf.strings.split` makes ragged.

use super::case::is_space;
use super::{string_tensor, strs};
use crate::error::Result;
use crate::tensor::Tensor;
use crate::tstring::TfString;

/// Splits on runs of whitespace, ignoring it at both ends; after `maxsplit` splits the rest
/// (leading whitespace skipped) is the last token.
fn on_whitespace(s: &[u8], maxsplit: i64, out: &mut Vec<TfString>) {
    let mut i = 0;
    let mut splits = 0;
    loop {
        while i < s.len() && is_space(s[i]) {
            i += 1;
        }
        if i == s.len() {
            return;
        }
        if maxsplit >= 0 && splits >= maxsplit {
            out.push(TfString::new(&s[i..]));
            return;
        }
        let start = i;
        while i < s.len() && !is_space(s[i]) {
            i += 1;
        }
        out.push(TfString::new(&s[start..i]));
        splits += 1;
    }
}

/// Splits at each `sep`; empty tokens are kept.
fn on_separator(s: &[u8], sep: &[u8], maxsplit: i64, out: &mut Vec<TfString>) {
    let mut start = 0;
    let mut i = 0;
    let mut splits = 0;
    while i + sep.len() <= s.len() && (maxsplit < 0 || splits < maxsplit) {
        if &s[i..i + sep.len()] == sep {
            out.push(TfString::new(&s[start..i]));
            i += sep.len();
            start = i;
            splits += 1;
        } else {
            i += 1;
        }
    }
    out.push(TfString::new(&s[start..]));
}

pub fn split(x: &Tensor, sep: &str, maxsplit: i64) -> Result<Vec<Tensor>> {
    let v = strs(x)?;
    let mut indices: Vec<i64> = Vec::new();
    let mut values: Vec<TfString> = Vec::new();
    let mut widest = 0usize;
    let mut tokens = Vec::new();
    for (row, s) in v.iter().enumerate() {
        tokens.clear();
        if sep.is_empty() {
            on_whitespace(s.as_bytes(), maxsplit, &mut tokens);
        } else {
            on_separator(s.as_bytes(), sep.as_bytes(), maxsplit, &mut tokens);
        }
        widest = widest.max(tokens.len());
        for (k, t) in tokens.drain(..).enumerate() {
            indices.extend([row as i64, k as i64]);
            values.push(t);
        }
    }
    let n = values.len();
    Ok(vec![
        Tensor::from_slice(&indices, &[n, 2])?,
        string_tensor(values, &[n]),
        Tensor::from_slice(&[v.len() as i64, widest as i64], &[2])?,
    ])
}
