//! rayon's global pool, started with the thread that runs ops (Python's main thread, for the
//! extension) as one of its workers.
//!
//! A parallel kernel called from a thread outside the pool injects its jobs and sleeps on a
//! latch until a worker finishes them: two context switches per op, and the pool's idle
//! workers spin beside the caller for a core. An LSTM train step (a few thousand small ops)
//! ran 15-18 ms with one rayon thread and 27 ms with two. With the caller inside the pool its
//! jobs go on its own deque, it works on them itself and the other workers steal; ops from
//! other threads still inject as before.

use std::sync::{Once, OnceLock};
use std::thread::ThreadId;

/// The thread that may join the pool (set once, by the thread that loads the extension when it
/// is Python's main thread: a worker thread could exit and leave the pool a dead member).
static HOME: OnceLock<ThreadId> = OnceLock::new();
static STARTED: Once = Once::new();

/// Marks the calling thread as the one that joins the pool when it starts.
pub fn set_home_thread() {
    let _ = HOME.set(std::thread::current().id());
}

/// Starts the global pool (once; later calls return at the cost of one atomic load). The home
/// thread joins it if it starts it and the pool has two threads or more: a pool whose only
/// member is the home thread would never run jobs other threads inject (the home thread takes
/// work only while it waits inside rayon itself), so their parallel kernels would hang.
/// `RAYON_NUM_THREADS` (set by `tf.config.threading.set_intra_op_parallelism_threads` before
/// the first op) counts the home thread as one of the pool's threads. If the pool was started
/// elsewhere first, it is used as it is.
pub fn start() {
    STARTED.call_once(|| {
        let threads = std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let mut builder = rayon::ThreadPoolBuilder::new().num_threads(threads);
        if threads >= 2 && HOME.get() == Some(&std::thread::current().id()) {
            builder = builder.use_current_thread();
        }
        let _ = builder.build_global();
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn starting_twice_keeps_the_first_pool() {
        super::start();
        let threads = rayon::current_num_threads();
        super::start();
        assert_eq!(rayon::current_num_threads(), threads);
        assert!(threads >= 1);
    }
}
