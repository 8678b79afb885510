//! Reads a whole SSTable (layout in `sstable_format`) into its entries. Nothing in the file is
//! trusted: every handle, length, restart and shared-prefix count is checked against the bytes
//! there are, and every block's checksum is verified, so a damaged or hostile file is a
//! `DataLoss` error, never a panic or an allocation sized by the file.

use super::sstable_format::{
    get_varint, BlockHandle, FOOTER_LEN, MAGIC, MAX_HANDLES_LEN, NO_COMPRESSION,
    SNAPPY_COMPRESSION, TRAILER_LEN,
};
use crate::io::masked_crc::unmask;

/// Why a table could not be read (the caller names the file).
pub type Damage = String;
/// A table's (key, value) entries.
pub type Rows = Vec<(Vec<u8>, Vec<u8>)>;

/// Every (key, value) of the table, in file order (increasing keys).
pub fn read_all(file: &[u8]) -> Result<Rows, Damage> {
    if file.len() < FOOTER_LEN {
        return Err(format!("{} bytes is too short for a table", file.len()));
    }
    let footer = &file[file.len() - FOOTER_LEN..];
    let magic_lo = u32::from_le_bytes(
        footer[MAX_HANDLES_LEN..MAX_HANDLES_LEN + 4].try_into().unwrap_or_default(),
    );
    let magic_hi = u32::from_le_bytes(footer[MAX_HANDLES_LEN + 4..].try_into().unwrap_or_default());
    if (u64::from(magic_hi) << 32 | u64::from(magic_lo)) != MAGIC {
        return Err("not an sstable (bad magic number)".into());
    }
    let (metaindex, used) = BlockHandle::decode(footer).ok_or("bad metaindex handle")?;
    let (index_handle, _) = BlockHandle::decode(&footer[used..]).ok_or("bad index handle")?;
    // Nothing is looked up in the metaindex (TensorFlow writes no filters), but a damaged one
    // means a damaged file.
    block_entries(&read_block(file, metaindex)?)?;
    let index = block_entries(&read_block(file, index_handle)?)?;
    let mut entries = Vec::new();
    for (_, encoded) in index {
        let (handle, _) = BlockHandle::decode(&encoded).ok_or("bad block handle in the index")?;
        entries.extend(block_entries(&read_block(file, handle)?)?);
    }
    if entries.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err("keys out of order".into());
    }
    Ok(entries)
}

/// A block's contents after checking its trailer (decompressing a Snappy block, which
/// TensorFlow's reader accepts too).
fn read_block(file: &[u8], handle: BlockHandle) -> Result<Vec<u8>, Damage> {
    let start = usize::try_from(handle.offset).map_err(|_| "block offset out of range")?;
    let size = usize::try_from(handle.size).map_err(|_| "block size out of range")?;
    let end = start
        .checked_add(size)
        .and_then(|e| e.checked_add(TRAILER_LEN))
        .filter(|&e| e <= file.len() - FOOTER_LEN)
        .ok_or("a block runs past the end of the file")?;
    let (contents, trailer) = (&file[start..start + size], &file[start + size..end]);
    let kind = trailer[0];
    let stored = unmask(u32::from_le_bytes(trailer[1..].try_into().unwrap_or_default()));
    if crc32c::crc32c_append(crc32c::crc32c(contents), &[kind]) != stored {
        return Err("block checksum mismatch".into());
    }
    match kind {
        NO_COMPRESSION => Ok(contents.to_vec()),
        SNAPPY_COMPRESSION => {
            let length = snap::raw::decompress_len(contents).map_err(|e| e.to_string())?;
            // Snappy's densest element, a 3-byte copy, yields 64 bytes: a block that claims
            // more than ~22 times its size is corrupt (and must not size an allocation).
            if length > contents.len().saturating_mul(22).saturating_add(64) {
                return Err("corrupt snappy block".into());
            }
            snap::raw::Decoder::new()
                .decompress_vec(contents)
                .map_err(|e| format!("corrupt snappy block: {e}"))
        }
        other => Err(format!("unknown block compression type {other}")),
    }
}

fn block_entries(block: &[u8]) -> Result<Rows, Damage> {
    let n = block.len();
    if n < 4 {
        return Err("a block too short for its restart count".into());
    }
    let restarts = u32::from_le_bytes(block[n - 4..].try_into().unwrap_or_default()) as usize;
    let restart_bytes = restarts
        .checked_mul(4)
        .and_then(|r| r.checked_add(4))
        .filter(|&r| r <= n)
        .ok_or("a block's restart array runs past it")?;
    let limit = n - restart_bytes;
    let mut entries: Rows = Vec::new();
    let mut at = 0;
    let mut key: Vec<u8> = Vec::new();
    while at < limit {
        let mut field = || -> Result<usize, Damage> {
            let (v, used) = get_varint(&block[at..limit]).ok_or("truncated entry header")?;
            at += used;
            // The three fields are varint32s.
            u32::try_from(v).map(|v| v as usize).map_err(|_| "entry length out of range".into())
        };
        let (shared, unshared, value_len) = (field()?, field()?, field()?);
        if shared > key.len() {
            return Err("an entry shares more of the key than there was".into());
        }
        let key_end =
            at.checked_add(unshared).filter(|&e| e <= limit).ok_or("key runs past block")?;
        let value_end = key_end
            .checked_add(value_len)
            .filter(|&e| e <= limit)
            .ok_or("value runs past block")?;
        key.truncate(shared);
        key.extend_from_slice(&block[at..key_end]);
        entries.push((key.clone(), block[key_end..value_end].to_vec()));
        at = value_end;
    }
    Ok(entries)
}
