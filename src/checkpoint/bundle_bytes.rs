//! One tensor's bytes in a TensorFlow bundle's data file, and their checksum.
//!
//! Numbers are their little-endian elements, back to back. A string tensor is every element's
//! length as a varint64, a masked CRC-32C of those lengths, then the elements' bytes; its
//! checksum covers the lengths as fixed-width integers (not their varint bytes), the length
//! checksum and the bytes, as TensorFlow computes it.

use super::sstable_format::{get_varint, put_varint};
use super::tensor_bytes;
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::io::masked_crc::mask;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;

/// (the bytes to store, their unmasked CRC-32C).
pub fn encode(t: &Tensor) -> Result<(Vec<u8>, u32)> {
    let Buffer::Str(strings) = t.host()? else {
        let bytes = tensor_bytes::to_bytes(t)?;
        let crc = crc32c::crc32c(&bytes);
        return Ok((bytes, crc));
    };
    let mut out = Vec::new();
    let mut crc = 0;
    for s in strings {
        put_varint(&mut out, s.len() as u64);
        crc = extend_with_length(crc, s.len() as u64);
    }
    let length_checksum = mask(crc).to_le_bytes();
    out.extend_from_slice(&length_checksum);
    crc = crc32c::crc32c_append(crc, &length_checksum);
    for s in strings {
        out.extend_from_slice(s.as_bytes());
        crc = crc32c::crc32c_append(crc, s.as_bytes());
    }
    Ok((out, crc))
}

/// Lengths that fit in 32 bits are checksummed as u32 (older checkpoints held only those).
fn extend_with_length(crc: u32, length: u64) -> u32 {
    match u32::try_from(length) {
        Ok(short) => crc32c::crc32c_append(crc, &short.to_le_bytes()),
        Err(_) => crc32c::crc32c_append(crc, &length.to_le_bytes()),
    }
}

/// The tensor stored as `bytes`, after checking them against the entry's masked checksum.
pub fn decode(
    key: &str,
    dtype: DType,
    dims: &[usize],
    bytes: &[u8],
    stored: u32,
) -> Result<Tensor> {
    let mismatch = |calculated: u32| {
        Error::DataLoss(format!(
            "Checksum does not match: stored {stored} vs. calculated on the restored bytes \
             {calculated} (tensor '{key}')"
        ))
    };
    if dtype == DType::String {
        return decode_strings(key, dims, bytes, stored);
    }
    let crc = mask(crc32c::crc32c(bytes));
    if crc != stored {
        return Err(mismatch(crc));
    }
    let stored_dims = match dtype {
        DType::C128 => [dims, &[2]].concat(),
        _ => dims.to_vec(),
    };
    tensor_bytes::from_bytes(dtype, &stored_dims, bytes)
        .map_err(|e| Error::DataLoss(format!("tensor '{key}': {e}")))
}

fn decode_strings(key: &str, dims: &[usize], bytes: &[u8], stored: u32) -> Result<Tensor> {
    let damaged = |why: &str| Error::DataLoss(format!("string tensor '{key}' is corrupt: {why}"));
    let n = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| damaged("too large"))?;
    // Every length takes at least one byte, so `n` is bounded by the bytes read.
    if n > bytes.len() {
        return Err(damaged("fewer bytes than elements"));
    }
    let mut lengths = Vec::with_capacity(n);
    let (mut at, mut crc) = (0, 0);
    for _ in 0..n {
        let (length, used) = get_varint(&bytes[at..]).ok_or_else(|| damaged("bad length"))?;
        at += used;
        crc = extend_with_length(crc, length);
        lengths.push(usize::try_from(length).map_err(|_| damaged("length out of range"))?);
    }
    let checksum = bytes.get(at..at + 4).ok_or_else(|| damaged("no length checksum"))?;
    if u32::from_le_bytes(checksum.try_into().unwrap_or_default()) != mask(crc) {
        return Err(damaged("the lengths' checksum does not match"));
    }
    crc = crc32c::crc32c_append(crc, checksum);
    at += 4;
    let mut strings = Vec::with_capacity(n);
    for length in lengths {
        let end = at.checked_add(length).filter(|&e| e <= bytes.len());
        let s = &bytes[at..end.ok_or_else(|| damaged("a string runs past the data"))?];
        crc = crc32c::crc32c_append(crc, s);
        strings.push(TfString::new(s));
        at += length;
    }
    if at != bytes.len() {
        return Err(damaged("bytes left over after the last string"));
    }
    if mask(crc) != stored {
        return Err(Error::DataLoss(format!(
            "Checksum does not match: stored {stored} vs. calculated on the restored bytes {} \
             (tensor '{key}')",
            mask(crc)
        )));
    }
    Tensor::from_buffer(Buffer::Str(strings), Shape(dims.to_vec()))
}
