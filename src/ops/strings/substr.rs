//! `tf.strings.substr`: `len` bytes or UTF-8 characters from `pos` (from the end when
//! negative), broadcasting the strings against the positions.

use super::{string_tensor, strs};
use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::error::{Error, Result};
use crate::kernels::broadcast;
use crate::ops::primitive::{describe_dims, TensorType};
use crate::shape::broadcast_shapes;
use crate::tensor::Tensor;
use crate::tstring::TfString;

/// `pos` and `len`: one integer dtype and one shape, as TensorFlow's op definition requires.
pub fn check_positions(pos: &TensorType, len: &TensorType) -> Result<()> {
    let ints = DTypeSet::of(&[DType::I32, DType::I64]);
    if !ints.contains(pos.dtype) {
        return Err(Error::unsupported_dtype("Substr", pos.dtype));
    }
    if pos.dtype != len.dtype {
        return Err(Error::dtype_mismatch("Substr", pos.dtype, len.dtype));
    }
    let differ = pos.dims.len() != len.dims.len()
        || pos
            .dims
            .iter()
            .zip(&len.dims)
            .any(|(a, b)| matches!((a, b), (Some(a), Some(b)) if a != b));
    if differ {
        return Err(Error::InvalidArgument(format!(
            "pos and len should have the same shape, got: {} vs {} [Op:Substr]",
            describe_dims(&pos.dims),
            describe_dims(&len.dims)
        )));
    }
    Ok(())
}

fn ints(t: &Tensor) -> Vec<i64> {
    match t.buffer() {
        Buffer::I32(v) => v.iter().map(|&x| x as i64).collect(),
        Buffer::I64(v) => v.clone(),
        _ => Vec::new(),
    }
}

/// Byte offsets of each UTF-8 character's start, and the end.
fn char_starts(b: &[u8]) -> Vec<usize> {
    let mut starts: Vec<usize> = (0..b.len()).filter(|&i| (b[i] & 0xc0) != 0x80).collect();
    starts.push(b.len());
    starts
}

fn one(s: &[u8], pos: i64, len: i64, utf8: bool, index: usize) -> Result<TfString> {
    let starts = if utf8 { char_starts(s) } else { Vec::new() };
    let size = if utf8 { starts.len() as i64 - 1 } else { s.len() as i64 };
    if pos > size || pos < -size {
        return Err(Error::InvalidArgument(format!(
            "pos {pos} out of range for string b'{}' at index {index} [Op:Substr]",
            String::from_utf8_lossy(s)
        )));
    }
    let start = if pos < 0 { pos + size } else { pos };
    // A negative length reads to the end of bytes (TensorFlow's size_t conversion) and
    // nothing of characters.
    let end = match (len < 0, utf8) {
        (true, false) => size,
        (true, true) => start,
        (false, _) => (start + len).min(size),
    };
    let (a, b) = (start as usize, end as usize);
    Ok(if utf8 { TfString::new(&s[starts[a]..starts[b]]) } else { TfString::new(&s[a..b]) })
}

pub fn substr(x: &Tensor, pos: &Tensor, len: &Tensor, utf8: bool) -> Result<Tensor> {
    let out_shape = broadcast_shapes(x.shape(), pos.shape()).map_err(|_| {
        Error::InvalidArgument(format!(
            "Incompatible shapes: {} vs. {} [Op:Substr]",
            describe_dims(&TensorType::of(x).dims),
            describe_dims(&TensorType::of(pos).dims)
        ))
    })?;
    let s = strs(x)?;
    let (p, l) = (ints(pos), ints(len));
    let is: Vec<usize> = (0..s.len()).collect();
    let ip: Vec<usize> = (0..p.len()).collect();
    let pairs = broadcast::zip2(&is, x.shape(), &ip, pos.shape(), &out_shape, |i, j| (i, j))?;
    let out = pairs
        .into_iter()
        .enumerate()
        .map(|(k, (i, j))| one(s[i].as_bytes(), p[j], l[j], utf8, k))
        .collect::<Result<Vec<_>>>()?;
    Ok(string_tensor(out, out_shape.dims()))
}
