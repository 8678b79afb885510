//! Host time per graph node type, for finding where a traced step spends its time (a
//! developer's tool: `ferroflow._core.op_times_start()` / `op_times_take()`, used by
//! `benches/profile_ops.py`). Off by default; when off a node pays one relaxed load.
//!
//! Times are wall time on the calling thread around each node: a CPU kernel's parallel work
//! is inside it, a GPU node's only its recording (GPU work is asynchronous). A loop or branch
//! node's time includes the nodes of its body, which are also counted on their own.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Per key: how many nodes ran and their total time.
static TIMES: Mutex<Option<HashMap<String, (u64, Duration)>>> = Mutex::new(None);

pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Clears the counts and starts counting.
pub fn start() {
    *TIMES.lock().unwrap_or_else(|e| e.into_inner()) = Some(HashMap::new());
    ENABLED.store(true, Ordering::Relaxed);
}

/// Stops counting; the counts as (key, nodes, seconds), longest total first.
pub fn take() -> Vec<(String, u64, f64)> {
    ENABLED.store(false, Ordering::Relaxed);
    let times = TIMES.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
    let mut rows: Vec<(String, u64, f64)> =
        times.into_iter().map(|(k, (n, t))| (k, n, t.as_secs_f64())).collect();
    rows.sort_by(|a, b| b.2.total_cmp(&a.2));
    rows
}

pub fn record(key: String, elapsed: Duration) {
    if let Some(times) = TIMES.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        let entry = times.entry(key).or_default();
        entry.0 += 1;
        entry.1 += elapsed;
    }
}
