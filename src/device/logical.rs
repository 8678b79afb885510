//! The host's logical CPUs: `tf.config.set_logical_device_configuration` splits the CPU into
//! several, placed on by `tf.device('/CPU:k')`. (The logical GPUs live with the adapters, in
//! `gpu::adapters`, since each maps onto one.)

use std::sync::atomic::{AtomicUsize, Ordering};

static CPU_COUNT: AtomicUsize = AtomicUsize::new(1);

/// How many logical CPUs the host is split into (1 unless configured).
pub fn logical_cpu_count() -> usize {
    CPU_COUNT.load(Ordering::Relaxed)
}

/// Splits the host into `count` logical CPUs (at least one). `tf.config` allows it only before
/// the runtime is initialised, as TensorFlow does.
pub fn set_logical_cpu_count(count: usize) {
    CPU_COUNT.store(count.max(1), Ordering::Relaxed);
}
