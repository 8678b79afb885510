//! The names of a checkpoint's files, TensorFlow's: `<prefix>.index` and
//! `<prefix>.data-NNNNN-of-NNNNN`.

use std::path::{Path, PathBuf};

/// The entry holding the serialized object graph (a string scalar).
pub const OBJECT_GRAPH_KEY: &str = "_CHECKPOINTABLE_OBJECT_GRAPH";

pub fn index_path(prefix: &Path) -> PathBuf {
    suffixed(prefix, ".index")
}

/// The data file of a single-shard checkpoint (what ferroflow writes).
pub fn data_path(prefix: &Path) -> PathBuf {
    shard_path(prefix, 0, 1)
}

pub fn shard_path(prefix: &Path, shard: usize, num_shards: usize) -> PathBuf {
    suffixed(prefix, &format!(".data-{shard:05}-of-{num_shards:05}"))
}

fn suffixed(prefix: &Path, suffix: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}
