//! TensorFlow's SNAPPY-compressed record files (`Dataset.save(compression="SNAPPY")`, and
//! `snapshot`'s default "AUTO"): the TFRecord stream cut into blocks, each written as a 4-byte
//! big-endian length and a raw snappy block (the `snap` crate's raw format).

use crate::error::{Error, Result};

/// Uncompressed bytes per written block (snappy's own block size).
const BLOCK: usize = 1 << 16;

/// A snappy block expands at most about 21 times (a 3-byte copy tag makes 64 bytes); a block
/// declaring more is damaged, and is refused before its declared size is allocated.
const MAX_EXPANSION: usize = 32;

/// `data` as SNAPPY blocks.
pub fn compress_blocks(data: &[u8]) -> Result<Vec<u8>> {
    let mut encoder = snap::raw::Encoder::new();
    let mut out = Vec::with_capacity(data.len() / 2 + 16);
    for chunk in data.chunks(BLOCK) {
        let block = encoder
            .compress_vec(chunk)
            .map_err(|e| Error::Internal(format!("snappy compression failed: {e}")))?;
        let length = u32::try_from(block.len())
            .map_err(|_| Error::Internal("a snappy block exceeds 4 GiB".into()))?;
        out.extend_from_slice(&length.to_be_bytes());
        out.extend_from_slice(&block);
    }
    Ok(out)
}

/// The stream that SNAPPY blocks `data` hold; DataLoss naming `path` when they are damaged.
pub fn decompress_blocks(data: &[u8], path: &str) -> Result<Vec<u8>> {
    let damaged =
        |why: String| Error::DataLoss(format!("{path} is not a valid snappy file: {why}"));
    let mut decoder = snap::raw::Decoder::new();
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        if rest.len() < 4 {
            return Err(damaged("a block length is cut short".into()));
        }
        let (head, tail) = rest.split_at(4);
        let length = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        if length > tail.len() {
            return Err(damaged(format!("a block of {length} bytes runs past the file")));
        }
        let (block, tail) = tail.split_at(length);
        let size = snap::raw::decompress_len(block).map_err(|e| damaged(e.to_string()))?;
        if size > block.len().saturating_mul(MAX_EXPANSION) {
            return Err(damaged(format!("a block of {length} bytes declares {size} bytes")));
        }
        let start = out.len();
        out.resize(start + size, 0);
        decoder.decompress(block, &mut out[start..]).map_err(|e| damaged(e.to_string()))?;
        rest = tail;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_and_damage_is_data_loss() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let packed = compress_blocks(&data).unwrap();
        assert!(packed.len() < data.len() / 4, "not compressed: {}", packed.len());
        assert_eq!(decompress_blocks(&packed, "f").unwrap(), data);
        assert!(decompress_blocks(&[], "f").unwrap().is_empty());
        for cut in [1, 3, 4, 10, packed.len() - 1] {
            let r = decompress_blocks(&packed[..cut], "f");
            assert!(matches!(r, Err(Error::DataLoss(_))), "cut at {cut}: {r:?}");
        }
        // A block declaring far more than it can hold.
        let liar = [0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0x0f];
        assert!(matches!(decompress_blocks(&liar, "f"), Err(Error::DataLoss(_))));
        let mut flipped = packed.clone();
        flipped[20] ^= 0xff;
        assert!(decompress_blocks(&flipped, "f").map_or(true, |d| d != data));
    }
}
