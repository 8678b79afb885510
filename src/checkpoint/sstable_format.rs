//! The on-disk layout shared by the SSTable writer and reader: TensorFlow's `table` format
//! (LevelDB's), which holds a checkpoint's `.index`.
//!
//! ```text
//! data block*  metaindex block  index block  footer
//! block:   entry* restart:u32* num_restarts:u32   then a 5-byte trailer:
//!          compression type (0 = none) and the masked CRC-32C of block + type byte
//! entry:   shared:varint32 unshared:varint32 value_len:varint32 key[shared..] value
//! footer:  metaindex handle, index handle (varint64 offset + size each), zero-padded to
//!          40 bytes, then the magic number as fixed64
//! ```
//! The index block maps a key at or after each data block's last key to the block's handle.

pub const MAGIC: u64 = 0xdb47_7524_8b80_fb57;
pub const FOOTER_LEN: usize = 48;
/// A handle is two varint64s: at most 10 bytes each.
pub const MAX_HANDLES_LEN: usize = 40;
pub const TRAILER_LEN: usize = 5;
pub const NO_COMPRESSION: u8 = 0;
pub const SNAPPY_COMPRESSION: u8 = 1;

use prost::encoding::{decode_varint, encode_varint};

/// Reads a varint at the start of `bytes` (protobuf's encoding, which TensorFlow's tables use
/// too): (value, bytes used), or None when it is truncated or malformed.
pub fn get_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut rest = bytes;
    let value = decode_varint(&mut rest).ok()?;
    Some((value, bytes.len() - rest.len()))
}

pub fn put_varint(out: &mut Vec<u8>, value: u64) {
    encode_varint(value, out);
}

/// Where a block lies in the file (its size excludes the trailer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockHandle {
    pub offset: u64,
    pub size: u64,
}

impl BlockHandle {
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.offset);
        put_varint(out, self.size);
    }

    /// (handle, bytes used) from the start of `bytes`.
    pub fn decode(bytes: &[u8]) -> Option<(BlockHandle, usize)> {
        let (offset, a) = get_varint(bytes)?;
        let (size, b) = get_varint(&bytes[a..])?;
        Some((BlockHandle { offset, size }, a + b))
    }
}
