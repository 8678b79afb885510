//! Device buffers and the pool they return to when the last tensor using them drops.
//!
//! Sizes are rounded to classes (powers of two up to 1 MiB, then whole MiB) so that freed
//! buffers fit later requests; the pool keeps at most `POOL_LIMIT` bytes idle.
//!
//! Each logical GPU counts the bytes its live buffers hold (`MemoryStats`: what
//! `tf.config.experimental.get_memory_info` reports) and refuses allocations past its
//! `memory_limit` with TensorFlow's ResourceExhaustedError. Idle pooled buffers count for no one.

use crate::error::{Error, Result};
use crate::gpu::context::GpuContext;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const POOL_LIMIT: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

pub const USAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_SRC)
    .union(wgpu::BufferUsages::COPY_DST);

#[derive(Default)]
pub struct Pool {
    free: Mutex<HashMap<u64, Vec<wgpu::Buffer>>>,
    idle_bytes: AtomicU64,
}

pub fn size_class(bytes: u64) -> u64 {
    let bytes = bytes.max(16);
    if bytes <= MIB {
        bytes.next_power_of_two()
    } else {
        bytes.div_ceil(MIB) * MIB
    }
}

impl Pool {
    fn take(&self, class: u64) -> Option<wgpu::Buffer> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        let buffer = free.get_mut(&class)?.pop()?;
        self.idle_bytes.fetch_sub(class, Ordering::Relaxed);
        Some(buffer)
    }

    fn give(&self, buffer: wgpu::Buffer) {
        let class = buffer.size();
        if self.idle_bytes.load(Ordering::Relaxed) + class > POOL_LIMIT {
            return; // dropped: wgpu frees it once pending work is done
        }
        self.idle_bytes.fetch_add(class, Ordering::Relaxed);
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        free.entry(class).or_default().push(buffer);
    }

    pub fn clear(&self) {
        self.free.lock().unwrap_or_else(|p| p.into_inner()).clear();
        self.idle_bytes.store(0, Ordering::Relaxed);
    }
}

/// Bytes in use on one logical GPU: now, at most since the last reset, and the limit its
/// logical device configuration gave.
#[derive(Debug, Default)]
pub struct MemoryStats {
    current: AtomicU64,
    peak: AtomicU64,
    limit: Option<u64>,
    /// The logical GPU's index, for messages.
    index: usize,
}

impl MemoryStats {
    pub fn new(index: usize, limit: Option<u64>) -> MemoryStats {
        MemoryStats { index, limit, ..MemoryStats::default() }
    }

    pub fn current(&self) -> u64 {
        self.current.load(Ordering::SeqCst)
    }

    pub fn peak(&self) -> u64 {
        self.peak.load(Ordering::SeqCst)
    }

    pub fn limit(&self) -> Option<u64> {
        self.limit
    }

    /// The peak starts again from the bytes in use now (`reset_memory_stats`).
    pub fn reset_peak(&self) {
        self.peak.store(self.current(), Ordering::SeqCst);
    }

    /// Counts `bytes` more in use; ResourceExhausted, counting nothing, past the limit.
    pub fn reserve(&self, bytes: u64) -> Result<()> {
        let mut now = self.current();
        loop {
            let next = now + bytes;
            if let Some(limit) = self.limit.filter(|&limit| next > limit) {
                return Err(Error::ResourceExhausted(format!(
                    "OOM when allocating {bytes} bytes on \
                     /job:localhost/replica:0/task:0/device:GPU:{} by allocator GPU_{}_bfc: \
                     {now} of its {limit} bytes (memory_limit) are in use",
                    self.index, self.index
                )));
            }
            match self.current.compare_exchange(now, next, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => {
                    self.peak.fetch_max(next, Ordering::SeqCst);
                    return Ok(());
                }
                Err(actual) => now = actual,
            }
        }
    }

    pub fn release(&self, bytes: u64) {
        self.current.fetch_sub(bytes, Ordering::SeqCst);
    }
}

/// A device allocation owned by one tensor storage, counted in its logical GPU's statistics
/// while it lives.
pub struct GpuBuffer {
    buffer: Option<wgpu::Buffer>,
    ctx: Arc<GpuContext>,
    stats: Arc<MemoryStats>,
}

impl std::fmt::Debug for GpuBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuBuffer({} bytes on {})", self.raw().size(), self.ctx.details.name)
    }
}

impl GpuBuffer {
    pub(crate) fn raw(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("buffer present until drop")
    }

    pub(crate) fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// The pool class for `bytes`, or the exact size when the class would not fit a binding.
    fn checked_class(ctx: &GpuContext, bytes: u64) -> Result<u64> {
        let exact = bytes.max(4).div_ceil(4) * 4;
        if exact > ctx.max_binding() {
            return Err(Error::ResourceExhausted(format!(
                "a tensor of {bytes} bytes exceeds the largest buffer GPU '{}' can bind ({} bytes)",
                ctx.details.name,
                ctx.max_binding()
            )));
        }
        let class = size_class(bytes);
        Ok(if class > ctx.max_binding() { exact } else { class })
    }

    /// An uninitialised buffer of at least `bytes` bytes (from the pool when one fits), counted
    /// in `stats`.
    pub fn alloc(ctx: &Arc<GpuContext>, stats: &Arc<MemoryStats>, bytes: u64) -> Result<GpuBuffer> {
        let class = Self::checked_class(ctx, bytes)?;
        stats.reserve(class)?;
        let buffer = match ctx.pool.take(class) {
            Some(b) => b,
            None => {
                let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: class,
                    usage: USAGE,
                    mapped_at_creation: false,
                });
                if let Err(e) = ctx.check() {
                    stats.release(class);
                    return Err(e);
                }
                b
            }
        };
        Ok(GpuBuffer { buffer: Some(buffer), ctx: ctx.clone(), stats: stats.clone() })
    }

    /// A new buffer holding `bytes`. It is written while mapped at creation rather than with
    /// `queue.write_buffer`, whose copy would run before dispatches already recorded in the
    /// pending batch that may still read a recycled buffer.
    pub fn upload(
        ctx: &Arc<GpuContext>,
        stats: &Arc<MemoryStats>,
        bytes: &[u8],
    ) -> Result<GpuBuffer> {
        let class = Self::checked_class(ctx, bytes.len() as u64)?;
        stats.reserve(class)?;
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: class,
            usage: USAGE,
            mapped_at_creation: true,
        });
        if let Err(e) = ctx.check() {
            stats.release(class);
            return Err(e);
        }
        // Counted from here on: dropping it on a failed write below releases the bytes.
        let buffer = GpuBuffer { buffer: Some(buffer), ctx: ctx.clone(), stats: stats.clone() };
        let raw = buffer.raw();
        if !bytes.is_empty() {
            raw.get_mapped_range_mut(..bytes.len() as u64)
                .map_err(|e| Error::Internal(format!("GPU upload failed: {e}")))?
                .copy_from_slice(bytes);
        }
        raw.unmap();
        Ok(buffer)
    }
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if let Some(buffer) = self.buffer.take() {
            self.stats.release(buffer.size());
            self.ctx.pool.give(buffer);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_count_bytes_keep_the_peak_and_refuse_past_the_limit() {
        let stats = MemoryStats::new(1, Some(3 * MIB));
        stats.reserve(2 * MIB).unwrap();
        assert_eq!((stats.current(), stats.peak()), (2 * MIB, 2 * MIB));
        let refused = stats.reserve(2 * MIB).unwrap_err();
        assert!(matches!(refused, Error::ResourceExhausted(_)), "{refused:?}");
        assert!(refused.to_string().contains("GPU:1"), "{refused}");
        assert_eq!(stats.current(), 2 * MIB, "a refused allocation counts nothing");
        stats.release(MIB);
        assert_eq!((stats.current(), stats.peak()), (MIB, 2 * MIB));
        stats.reset_peak();
        assert_eq!(stats.peak(), MIB);
        stats.reserve(2 * MIB).unwrap();
        assert_eq!((stats.current(), stats.peak()), (3 * MIB, 3 * MIB));
    }

    #[test]
    fn unlimited_stats_take_anything() {
        let stats = MemoryStats::new(0, None);
        stats.reserve(1 << 40).unwrap();
        assert_eq!(stats.limit(), None);
        assert_eq!(stats.current(), 1 << 40);
    }
}
