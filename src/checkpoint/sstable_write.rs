//! Writes an SSTable (layout in `sstable_format`) from keys given in increasing order, the way
//! TensorFlow's `TableBuilder` does without compression: restart points every 16 entries in
//! data blocks, every entry in the index block, and an empty metaindex.

use super::sstable_format::{put_varint, BlockHandle, MAGIC, MAX_HANDLES_LEN, NO_COMPRESSION};
use crate::io::masked_crc::mask;

/// Data blocks end once they pass this size (TensorFlow's default block size).
const BLOCK_SIZE: usize = 256 * 1024;
const RESTART_INTERVAL: usize = 16;

struct BlockBuilder {
    bytes: Vec<u8>,
    restarts: Vec<u32>,
    since_restart: usize,
    interval: usize,
    last_key: Vec<u8>,
}

impl BlockBuilder {
    fn new(interval: usize) -> BlockBuilder {
        BlockBuilder {
            bytes: Vec::new(),
            restarts: vec![0],
            since_restart: 0,
            interval,
            last_key: Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn add(&mut self, key: &[u8], value: &[u8]) {
        let shared = if self.since_restart < self.interval {
            key.iter().zip(&self.last_key).take_while(|(a, b)| a == b).count()
        } else {
            self.restarts.push(self.bytes.len() as u32);
            self.since_restart = 0;
            0
        };
        put_varint(&mut self.bytes, shared as u64);
        put_varint(&mut self.bytes, (key.len() - shared) as u64);
        put_varint(&mut self.bytes, value.len() as u64);
        self.bytes.extend_from_slice(&key[shared..]);
        self.bytes.extend_from_slice(value);
        self.last_key = key.to_vec();
        self.since_restart += 1;
    }

    /// The finished block's contents (entries and restart array), leaving the builder empty.
    fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.bytes);
        for restart in &self.restarts {
            out.extend_from_slice(&restart.to_le_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        *self = BlockBuilder::new(self.interval);
        out
    }
}

/// Appends a block and its trailer to `file`; returns its handle.
fn write_block(file: &mut Vec<u8>, contents: &[u8]) -> BlockHandle {
    let handle = BlockHandle { offset: file.len() as u64, size: contents.len() as u64 };
    file.extend_from_slice(contents);
    file.push(NO_COMPRESSION);
    let crc = crc32c::crc32c_append(crc32c::crc32c(contents), &[NO_COMPRESSION]);
    file.extend_from_slice(&mask(crc).to_le_bytes());
    handle
}

/// The bytes of a table holding `entries`, whose keys must be strictly increasing.
pub fn build<'a>(entries: impl IntoIterator<Item = (&'a [u8], &'a [u8])>) -> Vec<u8> {
    let mut file = Vec::new();
    let mut data = BlockBuilder::new(RESTART_INTERVAL);
    let mut index = BlockBuilder::new(1);
    let mut last_key: Option<Vec<u8>> = None;
    let flush = |data: &mut BlockBuilder, index: &mut BlockBuilder, file: &mut Vec<u8>| {
        let key = data.last_key.clone();
        let handle = write_block(file, &data.finish());
        let mut encoded = Vec::new();
        handle.encode(&mut encoded);
        // The block's own last key is a valid separator: at or after every key in it and
        // before the next block's first.
        index.add(&key, &encoded);
    };
    for (key, value) in entries {
        debug_assert!(last_key.as_deref().is_none_or(|last| last < key), "keys out of order");
        data.add(key, value);
        last_key = Some(key.to_vec());
        if data.bytes.len() >= BLOCK_SIZE {
            flush(&mut data, &mut index, &mut file);
        }
    }
    if !data.is_empty() {
        flush(&mut data, &mut index, &mut file);
    }
    let metaindex = write_block(&mut file, &BlockBuilder::new(RESTART_INTERVAL).finish());
    let index_handle = write_block(&mut file, &index.finish());
    let mut footer = Vec::with_capacity(MAX_HANDLES_LEN + 8);
    metaindex.encode(&mut footer);
    index_handle.encode(&mut footer);
    footer.resize(MAX_HANDLES_LEN, 0);
    footer.extend_from_slice(&(MAGIC as u32).to_le_bytes());
    footer.extend_from_slice(&((MAGIC >> 32) as u32).to_le_bytes());
    file.extend_from_slice(&footer);
    file
}
