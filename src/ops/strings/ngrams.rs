//! `StringNGrams`: windows of adjacent tokens of each row of a ragged string tensor, joined
//! with a separator, optionally padded at both ends, as TensorFlow's kernel builds them.

use super::{string_tensor, strs};
use crate::buffer::Buffer;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::tstring::TfString;

pub struct NGrams<'a> {
    pub separator: &'a [u8],
    pub widths: &'a [i64],
    pub left_pad: &'a [u8],
    pub right_pad: &'a [u8],
    /// Pad elements on each side; -1 pads `width - 1`. Never more than `width - 1`.
    pub pad_width: i64,
    pub preserve_short: bool,
}

fn fail<T>(why: String) -> Result<T> {
    Err(Error::InvalidArgument(format!("{why} [Op:StringNGrams]")))
}

impl NGrams<'_> {
    fn pad(&self, width: i64) -> i64 {
        let p = if self.pad_width < 0 { width - 1 } else { self.pad_width };
        p.min(width - 1)
    }

    fn count(&self, length: i64, width: i64) -> i64 {
        (length + 2 * self.pad(width) - width + 1).max(0)
    }

    /// The `count` n-grams of `width` over `tokens`, appended to `out`.
    fn build(&self, tokens: &[TfString], count: i64, width: i64, out: &mut Vec<TfString>) {
        let pad = self.pad(width);
        for index in 0..count {
            let left = (pad - index).max(0);
            let right = (pad - (count - index - 1)).max(0);
            let taken = (width - left - right).max(0) as usize;
            let first = if left > 0 { 0 } else { (index - pad).max(0) as usize };
            let words = tokens.get(first..first + taken).unwrap_or(&[]);
            let pieces = (0..left)
                .map(|_| self.left_pad)
                .chain(words.iter().map(TfString::as_bytes))
                .chain((0..right).map(|_| self.right_pad));
            let mut gram = Vec::with_capacity(self.separator.len() * width as usize + 16);
            for (k, piece) in pieces.enumerate() {
                if k > 0 {
                    gram.extend_from_slice(self.separator);
                }
                gram.extend_from_slice(piece);
            }
            out.push(TfString::from_vec(gram));
        }
    }
}

fn split_values(t: &Tensor) -> Result<Vec<i64>> {
    match t.buffer() {
        Buffer::I32(v) => Ok(v.iter().map(|&x| x as i64).collect()),
        Buffer::I64(v) => Ok(v.clone()),
        _ => Err(Error::unsupported_dtype("StringNGrams", t.dtype())),
    }
}

fn splits_like(values: &[i64], like: &Tensor) -> Result<Tensor> {
    match like.buffer() {
        Buffer::I32(_) => {
            let v: Vec<i32> = values.iter().map(|&x| x as i32).collect();
            Tensor::from_slice(&v, like.dims())
        }
        _ => Tensor::from_slice(values, like.dims()),
    }
}

pub fn ngrams(data: &Tensor, splits: &Tensor, g: &NGrams) -> Result<Vec<Tensor>> {
    if let Some(w) = g.widths.iter().find(|&&w| w < 1) {
        return fail(format!("ngram_widths must contain positive values, got {w}"));
    }
    let tokens = strs(data)?;
    let s = split_values(splits)?;
    let n = tokens.len() as i64;
    if let Some(&first) = s.first() {
        if first != 0 {
            return fail(format!("First split value must be 0, got {first}"));
        }
        for w in s.windows(2) {
            if w[1] < w[0] || w[1] > n {
                return fail(format!("Invalid split value {}, must be in [{}, {n}]", w[1], w[0]));
            }
        }
        let last = s.last().copied().unwrap_or(0);
        if last != n {
            return fail(format!("Last split value must be data size. Expected {n}, got {last}"));
        }
    }
    let rows = s.len().saturating_sub(1);
    if tokens.is_empty() || s.is_empty() {
        return Ok(vec![string_tensor(Vec::new(), &[0]), splits_like(&vec![0; s.len()], splits)?]);
    }
    let mut out: Vec<TfString> = Vec::new();
    let mut out_splits = vec![0i64; rows + 1];
    for r in 0..rows {
        let row = tokens.get(s[r] as usize..s[r + 1] as usize).unwrap_or(&[]);
        let length = row.len() as i64;
        let before = out.len();
        for &width in g.widths {
            g.build(row, g.count(length, width), width, &mut out);
        }
        if g.preserve_short && out.len() == before && length > 0 {
            if g.pad_width < 0 {
                return fail(format!(
                    "Pad width should be >= 0 when preserve_short_sequences is True and \
                     ngram_widths are not provided, got {}",
                    g.pad_width
                ));
            }
            g.build(row, 1, length + 2 * g.pad_width, &mut out);
        }
        out_splits[r + 1] = out.len() as i64;
    }
    let count = out.len();
    Ok(vec![string_tensor(out, &[count]), splits_like(&out_splits, splits)?])
}
