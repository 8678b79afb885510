//! Tensors to and from safetensors' little-endian bytes. complex128 has no safetensors dtype:
//! it is stored as float64 with a trailing axis of 2 (real, imaginary) and marked in the
//! file's metadata.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use safetensors::Dtype as Stored;

#[cfg(target_endian = "big")]
compile_error!("checkpoint files are little-endian; big-endian hosts would need byte swaps");

/// The stored dtype and dims of a tensor of `dtype` and `dims`.
pub fn stored_form(dtype: DType, dims: &[usize]) -> (Stored, Vec<usize>) {
    let stored = match dtype {
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
        DType::C64 => Stored::C64,
        DType::C128 => return (Stored::F64, [dims, &[2]].concat()),
    };
    (stored, dims.to_vec())
}

/// The host bytes of a tensor's elements.
pub fn to_bytes(t: &Tensor) -> Result<Vec<u8>> {
    let buffer = t.host()?;
    Ok(crate::with_all!(buffer, v => {
        // SAFETY: every element type is plain old data without padding (bool is one byte of
        // 0 or 1; complex is two floats, repr(C)); the slice covers exactly the vector.
        let bytes = unsafe {
            std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(&v[..]))
        };
        bytes.to_vec()
    }))
}

/// A tensor of `dtype` (complex128 already folded back) from stored bytes; `dims` are the
/// stored dims. Every byte pattern is accepted except a bool that is not 0 or 1.
pub fn from_bytes(dtype: DType, stored_dims: &[usize], bytes: &[u8]) -> Result<Tensor> {
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
            });
            buffer
        }
    };
    Tensor::from_buffer(buffer, Shape(dims))
}
