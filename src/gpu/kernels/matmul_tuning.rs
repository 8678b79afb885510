//! Which tiling a matmul runs with, per adapter and problem class. A product large enough to
//! matter, on a hardware adapter, is first timed with every candidate tiling (a short autotune,
//! once per class); the winner is kept in memory and in a small file under the user's cache
//! directory, so that later processes on the same adapter and driver start tuned.
//!
//! `FERROFLOW_GPU_AUTOTUNE=0` turns the autotune off (every product takes the default tiling),
//! `=1` turns it on for software adapters too. `FERROFLOW_CACHE_DIR` moves the cache file.

use super::matmul_source::{Tiling, CANDIDATES, DEFAULT};
use crate::error::{Error, Result};
use crate::gpu::context::GpuContext;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// Products with fewer multiply-adds than this keep the default tiling: a few microseconds of
/// work cannot repay timing eleven kernels, and their timings would be mostly submission cost.
const TUNE_FROM: u64 = 1 << 27;
const CACHE_FILE: &str = "gpu_matmul_tiling.tsv";
/// A cache file larger than this is not ours (or is damaged): it is ignored, then replaced.
const MAX_CACHE_BYTES: u64 = 1 << 20;

/// A tiling forced for every product (1 + its index in `CANDIDATES`; 0: none), for the tests
/// that check each tiling and for benchmarks.
static FORCED: AtomicUsize = AtomicUsize::new(0);

/// Forces `name` (one of `candidate_names`) for every later product; `None` lifts it.
pub fn force(name: Option<&str>) -> Result<()> {
    let slot = match name {
        None => 0,
        Some(name) => {
            1 + CANDIDATES.iter().position(|t| t.name() == name).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown matmul tiling '{name}'; the tilings are {:?}",
                    candidate_names()
                ))
            })?
        }
    };
    FORCED.store(slot, Ordering::Relaxed);
    Ok(())
}

pub fn candidate_names() -> Vec<String> {
    CANDIDATES.iter().map(|t| t.name()).collect()
}

fn forced() -> Option<Tiling> {
    match FORCED.load(Ordering::Relaxed) {
        0 => None,
        slot => CANDIDATES.get(slot - 1).copied(),
    }
}

fn autotune_on(ctx: &GpuContext) -> bool {
    match std::env::var("FERROFLOW_GPU_AUTOTUNE").as_deref() {
        Ok("0") | Ok("off") | Ok("false") => false,
        Ok("1") | Ok("on") | Ok("true") => true,
        _ => !ctx.details.software,
    }
}

/// Whether `tiling` fits the device's workgroup limits for elements of `bytes` bytes.
pub fn fits(ctx: &GpuContext, tiling: Tiling, bytes: u32) -> bool {
    tiling.threads() <= ctx.limits.max_compute_invocations_per_workgroup
        && tiling.shared_bytes(bytes) <= ctx.limits.max_compute_workgroup_storage_size
}

/// The tiling for a product of `work` multiply-adds in problem class `class` (the kernel's
/// variant and the size buckets). `time` runs one tiling on the real operands and returns its
/// seconds per product, or `None` where that tiling cannot run (it did not compile, or the
/// grid is too large); it is called only while tuning.
pub fn choose(
    ctx: &GpuContext,
    class: &str,
    work: u64,
    bytes: u32,
    mut time: impl FnMut(Tiling) -> Result<Option<f64>>,
) -> Result<Tiling> {
    if let Some(tiling) = forced() {
        return Ok(tiling);
    }
    if work < TUNE_FROM || !autotune_on(ctx) {
        return Ok(DEFAULT);
    }
    let key = cache_key(ctx, class);
    if let Some(tiling) = lock(choices()).get(&key) {
        return Ok(*tiling);
    }
    // One tuning at a time: each waits for the whole GPU, so two at once would time each
    // other's kernels. Whoever waited finds the other's choice.
    static TUNING: Mutex<()> = Mutex::new(());
    let _tuning = lock(&TUNING);
    if let Some(tiling) = lock(choices()).get(&key) {
        return Ok(*tiling);
    }
    let mut best: Option<(f64, Tiling)> = None;
    for tiling in CANDIDATES.into_iter().filter(|t| fits(ctx, *t, bytes)) {
        if let Some(seconds) = time(tiling)? {
            if best.is_none_or(|(fastest, _)| seconds < fastest) {
                best = Some((seconds, tiling));
            }
        }
    }
    // Nothing ran: the default is used but not remembered, so a later process tries again.
    let Some((_, tiling)) = best else { return Ok(DEFAULT) };
    let mut map = lock(choices());
    map.insert(key.clone(), tiling);
    save(&key, tiling);
    Ok(tiling)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Adapter, driver and backend (a driver update can change the best tiling) and the class.
fn cache_key(ctx: &GpuContext, class: &str) -> String {
    let d = &ctx.details;
    format!("{}|{}|{}|{class}", d.name, d.driver, d.backend).replace(['\t', '\n', '\r'], " ")
}

fn choices() -> &'static Mutex<BTreeMap<String, Tiling>> {
    static CHOICES: OnceLock<Mutex<BTreeMap<String, Tiling>>> = OnceLock::new();
    CHOICES.get_or_init(|| Mutex::new(cache_path().map(|p| load(&p)).unwrap_or_default()))
}

/// `$FERROFLOW_CACHE_DIR`, else `$XDG_CACHE_HOME/ferroflow`, else `~/.cache/ferroflow`.
fn cache_path() -> Option<PathBuf> {
    let env = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let dir = env("FERROFLOW_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("ferroflow")))
        .or_else(|| env("HOME").map(|d| d.join(".cache").join("ferroflow")))?;
    Some(dir.join(CACHE_FILE))
}

/// The cache file's choices. Nothing in it is trusted: lines that do not parse, or name a
/// tiling this build does not have, are dropped; an oversized file, or one that is not a
/// regular file (a FIFO would block, `/dev/zero` would never end), is ignored.
fn load(path: &std::path::Path) -> BTreeMap<String, Tiling> {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else { return BTreeMap::new() };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return BTreeMap::new();
    }
    let mut bytes = Vec::new();
    if file.take(MAX_CACHE_BYTES + 1).read_to_end(&mut bytes).is_err()
        || bytes.len() as u64 > MAX_CACHE_BYTES
    {
        return BTreeMap::new();
    }
    parse(&String::from_utf8_lossy(&bytes))
}

fn parse(text: &str) -> BTreeMap<String, Tiling> {
    text.lines()
        .filter_map(|line| {
            let (key, name) = line.split_once('\t')?;
            Some((key.to_string(), Tiling::named(name.trim())?))
        })
        .collect()
}

fn render(map: &BTreeMap<String, Tiling>) -> String {
    map.iter().map(|(key, tiling)| format!("{key}\t{}\n", tiling.name())).collect()
}

/// Adds one choice to the cache file: the file is read again (other processes may have added
/// theirs) and rewritten through a new temporary file and a rename, so that a crash mid-write
/// leaves the old file whole. The cache only saves time: failing to write it is not an error.
fn save(key: &str, tiling: Tiling) {
    use std::io::Write;
    let Some(path) = cache_path() else { return };
    let Some(dir) = path.parent() else { return };
    let mut map = load(&path);
    map.insert(key.to_string(), tiling);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let temp = dir.join(format!("{CACHE_FILE}.{}-{nanos}.tmp", std::process::id()));
    // `create_new` refuses an existing path, a planted link included.
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::OpenOptions::new().write(true).create_new(true).open(&temp))
        .and_then(|mut file| file.write_all(render(&map).as_bytes()))
        .and_then(|()| std::fs::rename(&temp, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_lines_round_trip_and_damage_is_dropped() {
        let mut map = BTreeMap::new();
        map.insert("NVIDIA H200|580|Vulkan|f32:false".to_string(), CANDIDATES[5]);
        map.insert("lavapipe|1|Vulkan|i32:true".to_string(), DEFAULT);
        let text = render(&map);
        assert_eq!(parse(&text), map);
        let damaged = format!(
            "{text}no tab here\nkey\t999x1x1/1x1\n\t\nkey2\t{}\u{0}\n{}",
            DEFAULT.name(),
            &text[..text.len() / 2]
        );
        let parsed = parse(&damaged);
        assert_eq!(parsed.len(), map.len(), "{parsed:?}");
    }

    #[test]
    fn arbitrary_bytes_parse_to_known_tilings_only() {
        // A damaged or hostile cache file: random bytes, tabs and newlines, and fragments of
        // real lines; parsing never fails and keeps only names this build has.
        let good = render(&BTreeMap::from([("k".to_string(), CANDIDATES[3])]));
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..2000 {
            let mut bytes = Vec::new();
            for _ in 0..(state % 200) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                bytes.push(match state % 8 {
                    0 => b'\t',
                    1 => b'\n',
                    2 => good.as_bytes()[(state >> 8) as usize % good.len()],
                    _ => (state >> 16) as u8,
                });
            }
            for tiling in parse(&String::from_utf8_lossy(&bytes)).values() {
                assert!(CANDIDATES.contains(tiling));
            }
        }
    }

    #[test]
    fn forcing_an_unknown_tiling_is_an_invalid_argument() {
        assert!(matches!(force(Some("1x1x1/1x1")), Err(Error::InvalidArgument(_))));
        assert_eq!(forced(), None);
    }
}
