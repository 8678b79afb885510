//! TensorFlow's seed rules: with a global seed and no op seed, each call takes the next value of a
//! counter that `set_seed` resets; with both, repeated calls still differ (per-(seed, op seed)
//! call count) and `set_seed` restarts the sequence. Without any seed, calls are nondeterministic.
//! Inside a trace, as in TensorFlow's function graphs, op seeds come from the graph's own
//! counter (two functions traced after one `set_seed` draw alike) and the call number is the
//! node's run count, advanced by the executor (`RandomSpec::next_run`).

use super::philox::Stream;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

struct SeedState {
    global: Option<i64>,
    op_counter: i64,
    calls: HashMap<(i64, i64), u32>,
    entropy: u64,
}

static STATE: LazyLock<Mutex<SeedState>> = LazyLock::new(|| {
    Mutex::new(SeedState { global: None, op_counter: 0, calls: HashMap::new(), entropy: 0 })
});
const DEFAULT_GRAPH_SEED: i64 = 87654321;

/// `tf.random.set_seed`.
pub fn set_seed(seed: Option<i64>) {
    let mut s = STATE.lock().unwrap_or_else(|e| e.into_inner());
    s.global = seed;
    s.op_counter = 0;
    s.calls.clear();
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream for one call of a random op with optional op seed.
pub fn next_stream(op_seed: Option<i64>) -> Stream {
    let mut s = STATE.lock().unwrap_or_else(|e| e.into_inner());
    let (g, o) = match (s.global, op_seed) {
        (None, None) => {
            return Stream { key: entropy_key(&mut s), call: 0, unseeded: true };
        }
        (Some(g), None) => match crate::graph::trace::next_op_seed() {
            Some(o) => (g, o),
            None => {
                s.op_counter += 1;
                (g, s.op_counter)
            }
        },
        (None, Some(o)) => (DEFAULT_GRAPH_SEED, o),
        (Some(g), Some(o)) => (g, o),
    };
    let k = splitmix(splitmix(g as u64) ^ (o as u64));
    if crate::graph::trace::open() {
        // A traced node counts its own runs; tracing must not use up eager calls.
        return Stream { key: [k as u32, (k >> 32) as u32], call: 0, unseeded: false };
    }
    let call = s.calls.entry((g, o)).or_insert(0);
    let this = *call;
    *call = call.wrapping_add(1);
    Stream { key: [k as u32, (k >> 32) as u32], call: this, unseeded: false }
}

/// A key for an unseeded stream: nondeterministic, never the same twice in a process.
fn entropy_key(s: &mut SeedState) -> [u32; 2] {
    s.entropy = s.entropy.wrapping_add(1);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let k = splitmix(t ^ splitmix(s.entropy) ^ (std::process::id() as u64) << 32);
    [k as u32, (k >> 32) as u32]
}

/// A new key for an unseeded stream (see `Stream::unseeded`).
pub fn fresh_entropy_key() -> [u32; 2] {
    entropy_key(&mut STATE.lock().unwrap_or_else(|e| e.into_inner()))
}
