//! Whole-file writes that either happen completely or not at all: a temporary file in the same
//! directory, flushed to disk, then renamed over the target (rename is atomic on POSIX and
//! Windows filesystems), then the directory flushed so the rename itself survives a crash.

use crate::error::{Error, Result};
use std::fs;
use std::io::Write;
use std::path::Path;

pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| {
        Error::InvalidArgument(format!("'{}' is not a file path", path.display()))
    })?;
    let temporary = dir.join(format!(
        ".{}.tmp-{}-{}",
        name.to_string_lossy(),
        std::process::id(),
        unique_suffix()
    ));
    let written = (|| {
        let mut file = fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temporary);
        return Err(io_error(e, path));
    }
    // Flushing the directory makes the rename durable; some filesystems refuse, which only
    // weakens durability after a power loss, not atomicity.
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Distinguishes concurrent writers within one process.
fn unique_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// An I/O failure as TensorFlow reports it.
pub(crate) fn io_error(e: std::io::Error, path: &Path) -> Error {
    let what = format!("{}: {e}", path.display());
    match e.kind() {
        std::io::ErrorKind::NotFound => Error::NotFound(what),
        std::io::ErrorKind::PermissionDenied => Error::PermissionDenied(what),
        _ => Error::Internal(what),
    }
}
