//! Tensors to and from safetensors' little-endian bytes. complex128 has no safetensors dtype:
//! it is stored as float64 with a trailing axis of 2 (real, imaginary) and marked in the
//! file's metadata.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use safetensors::Dtype as Stored;

#[cfg(target_endian = "big")]
compile_error!("checkpoint files are little-endian; big-endian hosts would need byte swaps");

/// The stored dtype and dims of a tensor of `dtype` and `dims`.
pub fn stored_form(dtype: DType, dims: &[usize]) -> (Stored, Vec<usize>) {
    let stored = match dtype.storage() {
        DType::F16 => Stored::F16,
        DType::BF16 => Stored::BF16,
        DType::F32 => Stored::F32,
        DType::F64 => Stored::F64,
        DType::I8 => Stored::I8,
        DType::I16 => Stored::I16,
        DType::I32 => Stored::I32,
        DType::I64 => Stored::I64,
        DType::U8 => Stored::U8,
        DType::U16 => Stored::U16,
        DType::U32 => Stored::U32,
        DType::U64 => Stored::U64,
        DType::Bool => Stored::BOOL,
        // Never written: `to_bytes` refuses string tensors first.
        DType::String => Stored::U8,
        DType::C64 => Stored::C64,
        DType::C128 => return (Stored::F64, [dims, &[2]].concat()),
        // Quantized types are stored as their integer storage (`dtype.storage()` above).
        DType::QI8 | DType::QU8 | DType::QI16 | DType::QU16 | DType::QI32 => Stored::U8,
    };
    (stored, dims.to_vec())
}

/// The host bytes of a tensor's elements. Strings are stored as every element's length (u64,
/// little-endian) followed by all their bytes; the entry's shape is then kept beside it.
pub fn to_bytes(t: &Tensor) -> Result<Vec<u8>> {
    let buffer = t.host()?;
    if let Buffer::Str(v) = buffer {
        let total: usize = v.iter().map(|s| s.len()).sum();
        let mut out = Vec::with_capacity(8 * v.len() + total);
        for s in v {
            out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        }
        for s in v {
            out.extend_from_slice(s.as_bytes());
        }
        return Ok(out);
    }
    Ok(crate::with_all!(buffer, v => {
        // SAFETY: every element type is plain old data without padding (bool is one byte of
        // 0 or 1; complex is two floats, repr(C)); the slice covers exactly the vector.
        let bytes = unsafe {
            std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(&v[..]))
        };
        bytes.to_vec()
    }, else return Err(Error::Internal("string entries are encoded above".into()))))
}

/// A string tensor of `dims` from `to_bytes`' layout. Nothing in the file is trusted: the
/// lengths must fit in the bytes there are and account for all of them.
fn strings_from_bytes(dims: &[usize], bytes: &[u8]) -> Result<Tensor> {
    let damaged = |why: &str| Error::DataLoss(format!("string entry of shape {dims:?}: {why}"));
    let n = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| damaged("too large"))?;
    let header =
        n.checked_mul(8).filter(|&h| h <= bytes.len()).ok_or_else(|| damaged("truncated"))?;
    let (lengths, mut rest) = bytes.split_at(header);
    let mut strings = Vec::with_capacity(n);
    for chunk in lengths.chunks_exact(8) {
        let len = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l <= rest.len())
            .ok_or_else(|| damaged("a length runs past the data"))?;
        let (s, tail) = rest.split_at(len);
        strings.push(TfString::new(s));
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(damaged("bytes left over after the last string"));
    }
    Tensor::from_buffer(Buffer::Str(strings), Shape(dims.to_vec()))
}

/// A tensor of `dtype` (complex128 already folded back) from stored bytes; `dims` are the
/// stored dims (for strings, the tensor's own). Every byte pattern is accepted except a bool
/// that is not 0 or 1.
pub fn from_bytes(dtype: DType, stored_dims: &[usize], bytes: &[u8]) -> Result<Tensor> {
    if dtype == DType::String {
        return strings_from_bytes(stored_dims, bytes);
    }
    if dtype.is_quantized() {
        return Ok(from_bytes(dtype.storage(), stored_dims, bytes)?.retagged(dtype));
    }
    let dims = match dtype {
        DType::C128 => match stored_dims.split_last() {
            Some((2, rest)) => rest.to_vec(),
            _ => {
                return Err(Error::DataLoss("complex128 entry without a trailing axis of 2".into()))
            }
        },
        _ => stored_dims.to_vec(),
    };
    let n: usize = dims.iter().product();
    if n.checked_mul(dtype.size()) != Some(bytes.len()) {
        return Err(Error::DataLoss(format!(
            "entry of shape {dims:?} and dtype {} has {} bytes",
            dtype.name(),
            bytes.len()
        )));
    }
    let buffer = match dtype {
        DType::Bool => {
            if bytes.iter().any(|&b| b > 1) {
                return Err(Error::DataLoss("a bool entry holds a byte other than 0 or 1".into()));
            }
            Buffer::Bool(bytes.iter().map(|&b| b == 1).collect())
        }
        _ => {
            let mut buffer = Buffer::zeros(dtype, n);
            crate::with_all!(&mut buffer, v => {
                // SAFETY: as in `to_bytes`; bool is handled above, so every byte pattern is a
                // valid element, and the lengths were checked.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        bytes.as_ptr(),
                        v.as_mut_ptr().cast::<u8>(),
                        bytes.len(),
                    )
                };
            }, else {});
            buffer
        }
    };
    Tensor::from_buffer(buffer, Shape(dims))
}
