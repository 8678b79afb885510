//! `StringFormat`: tensors summarized into a template, in the layout `tf.print` shows
//! (TensorFlow's `SummarizeValue` with `print_v2`): the first and last `summarize` entries of
//! each dimension, `...` between, blank lines between blocks of rank three and more, strings
//! quoted and C-escaped (bytes above 0x7F kept), complex numbers as `?`.

use crate::buffer::Buffer;
use crate::error::Result;
use crate::graph::print::float_text;
use crate::tensor::Tensor;

/// absl's `Utf8SafeCEscape`: like C escapes, but bytes of multi-byte characters stay as they are.
fn utf8_safe_escape(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        match b {
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\'' => out.extend_from_slice(b"\\'"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x20..=0x7e | 0x80..=0xff => out.push(b),
            _ => out.extend_from_slice(format!("\\{b:03o}").as_bytes()),
        }
    }
}

fn f32_text(x: f32) -> String {
    float_text(x as f64, 6, 9, |s| s.parse::<f32>().ok() == Some(x))
}

/// Each element's text, or None for dtypes TensorFlow prints as `?`.
fn elements(buffer: &Buffer) -> Option<Vec<Vec<u8>>> {
    let text = |s: String| s.into_bytes();
    Some(match buffer {
        Buffer::F32(v) => v.iter().map(|&x| text(f32_text(x))).collect(),
        Buffer::F64(v) => v
            .iter()
            .map(|&x| text(float_text(x, 15, 17, |s| s.parse::<f64>().ok() == Some(x))))
            .collect(),
        Buffer::F16(v) => v.iter().map(|x| text(f32_text(x.to_f32()))).collect(),
        Buffer::BF16(v) => v.iter().map(|x| text(f32_text(x.to_f32()))).collect(),
        Buffer::Bool(v) => v.iter().map(|&b| vec![if b { b'1' } else { b'0' }]).collect(),
        Buffer::Str(v) => v
            .iter()
            .map(|s| {
                let mut out = vec![b'"'];
                utf8_safe_escape(s.as_bytes(), &mut out);
                out.push(b'"');
                out
            })
            .collect(),
        Buffer::C64(_) | Buffer::C128(_) => return None,
        Buffer::I8(v) => v.iter().map(|x| text(x.to_string())).collect(),
        Buffer::I16(v) => v.iter().map(|x| text(x.to_string())).collect(),
        Buffer::I32(v) => v.iter().map(|x| text(x.to_string())).collect(),
        Buffer::I64(v) => v.iter().map(|x| text(x.to_string())).collect(),
        Buffer::U8(v) => v.iter().map(|x| text(x.to_string())).collect(),
        Buffer::U16(v) => v.iter().map(|x| text(x.to_string())).collect(),
        Buffer::U32(v) => v.iter().map(|x| text(x.to_string())).collect(),
        Buffer::U64(v) => v.iter().map(|x| text(x.to_string())).collect(),
    })
}

/// The space between two entries of dimension `dim` of `rank`: one space in the last
/// dimension, else a newline per remaining dimension and an indent.
fn spacing(dim: usize, rank: usize, out: &mut Vec<u8>) {
    if dim + 1 == rank {
        out.push(b' ');
        return;
    }
    out.extend(std::iter::repeat_n(b'\n', rank - dim - 1));
    out.extend(std::iter::repeat_n(b' ', dim + 1));
}

struct Layout<'a> {
    items: &'a [Vec<u8>],
    dims: &'a [usize],
    ends: usize,
}

impl Layout<'_> {
    fn write(&self, dim: usize, start: usize, out: &mut Vec<u8>) {
        let rank = self.dims.len();
        if dim == rank {
            if let Some(item) = self.items.get(start) {
                out.extend_from_slice(item);
            }
            return;
        }
        out.push(b'[');
        let n = self.dims[dim];
        let stride: usize = self.dims[dim + 1..].iter().product();
        for i in 0..self.ends.min(n) {
            if i > 0 {
                spacing(dim, rank, out);
            }
            self.write(dim + 1, start + stride * i, out);
        }
        if n > self.ends.saturating_mul(2) {
            spacing(dim, rank, out);
            out.extend_from_slice(b"...");
        }
        for i in self.ends.max(n.saturating_sub(self.ends))..n {
            spacing(dim, rank, out);
            self.write(dim + 1, start + stride * i, out);
        }
        out.push(b']');
    }
}

/// One tensor as TensorFlow's `SummarizeValue(summarize, print_v2=true)` writes it; a
/// negative `summarize` shows every entry.
pub fn summarize(t: &Tensor, summarize: i64) -> Result<Vec<u8>> {
    let count = t.num_elements();
    let limit = if summarize < 0 { count } else { (summarize as usize).min(count) };
    let buffer = t.host()?;
    let mut out = Vec::new();
    let Some(items) = elements(buffer) else {
        // Complex numbers: one `?` per shown entry, flat.
        let nested = !t.dims().is_empty();
        if nested {
            out.push(b'[');
        }
        out.extend(vec!["?"; limit].join(" ").bytes());
        if summarize >= 0 && (summarize as usize) < count {
            out.extend_from_slice(b"...");
        }
        if nested {
            out.push(b']');
        }
        return Ok(out);
    };
    if t.dims().is_empty() {
        for (i, item) in items.iter().take(limit).enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            out.extend_from_slice(item);
        }
        if count > limit {
            out.extend_from_slice(b"...");
        }
        return Ok(out);
    }
    Layout { items: &items, dims: t.dims(), ends: limit }.write(0, 0, &mut out);
    Ok(out)
}

/// The template with each placeholder replaced by the next tensor's summary.
pub fn format(
    inputs: &[&Tensor],
    template: &str,
    placeholder: &str,
    limit: i64,
) -> Result<Vec<u8>> {
    let pieces: Vec<&str> =
        if placeholder.is_empty() { vec![template] } else { template.split(placeholder).collect() };
    if pieces.len() != inputs.len() + 1 {
        return Err(crate::error::Error::InvalidArgument(format!(
            "num placeholders in template and num inputs must match: {} vs {} [Op:StringFormat]",
            pieces.len() - 1,
            inputs.len()
        )));
    }
    let mut out = Vec::new();
    for (k, piece) in pieces.iter().enumerate() {
        out.extend_from_slice(piece.as_bytes());
        if let Some(t) = inputs.get(k) {
            out.extend(summarize(t, limit)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(t: &Tensor, n: i64) -> String {
        String::from_utf8(summarize(t, n).unwrap()).unwrap()
    }

    #[test]
    fn layouts_match_tensorflow() {
        let t = Tensor::from_slice(&(0..24).collect::<Vec<i32>>(), &[2, 3, 4]).unwrap();
        let want = "[[[0 ... 3]\n  ...\n  [8 ... 11]]\n\n [[12 ... 15]\n  ...\n  [20 ... 23]]]";
        assert_eq!(show(&t, 1), want);
        assert_eq!(show(&Tensor::from_slice::<f32>(&[], &[2, 0]).unwrap(), 3), "[\n ...]");
        assert_eq!(
            show(&Tensor::from_slice(&(0..10).collect::<Vec<i64>>(), &[10]).unwrap(), 0),
            "[ ...]"
        );
        assert_eq!(show(&Tensor::from_slice::<f32>(&[], &[0]).unwrap(), 3), "[]");
        assert_eq!(show(&Tensor::scalar(2.5f64), 0), "...");
    }
}
