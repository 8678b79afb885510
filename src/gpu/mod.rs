//! The GPU backend: WGSL compute kernels (generated from the templates in `shaders/`) run
//! through wgpu on any Vulkan, Metal or DX12 adapter.
//!
//! Work is asynchronous: kernels are recorded into a pending batch and submitted together; only
//! reading a value back waits. See `docs/architecture.md`.

pub mod adapters;
pub(crate) mod batch;
pub mod context;
pub mod kernels;
pub mod memory;
pub(crate) mod pipelines;
pub mod storage;

pub use adapters::{
    physical_devices, set_logical_split, set_visible_devices, visible_count, visible_devices,
    AdapterDetails,
};
pub use storage::{supports_dtype, GpuStorage};

/// Waits until visible GPU `device` has finished all work recorded so far (benchmarks time
/// GPU work with it; reading a value waits anyway).
pub fn synchronize(device: usize) -> crate::error::Result<()> {
    adapters::context(device)?.wait()
}

/// Kernel dispatches recorded since the process started, on every GPU.
pub fn dispatch_count() -> u64 {
    batch::DISPATCHES.load(std::sync::atomic::Ordering::Relaxed)
}

/// (current, peak) bytes the live tensors of logical GPU `device` hold
/// (`tf.config.experimental.get_memory_info`).
pub fn memory_info(device: usize) -> crate::error::Result<(u64, u64)> {
    let stats = adapters::memory(device)?;
    Ok((stats.current(), stats.peak()))
}

/// Starts logical GPU `device`'s peak again from its current use.
pub fn reset_memory_stats(device: usize) -> crate::error::Result<()> {
    adapters::memory(device)?.reset_peak();
    Ok(())
}

/// Destroys visible GPU `device` as a driver reset would, so tests can check that a lost device
/// raises `UnavailableError` instead of crashing.
pub fn simulate_device_loss(device: usize) -> crate::error::Result<()> {
    let ctx = adapters::context(device)?;
    ctx.device.destroy();
    ctx.mark_lost();
    Ok(())
}
