//! Device buffers and the pool they return to when the last tensor using them drops.
//!
//! Sizes are rounded to classes (powers of two up to 1 MiB, then whole MiB) so that freed
//! buffers fit later requests; the pool keeps at most `POOL_LIMIT` bytes idle.

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

/// A device allocation owned by one tensor storage.
pub struct GpuBuffer {
    buffer: Option<wgpu::Buffer>,
    ctx: Arc<GpuContext>,
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

    /// An uninitialised buffer of at least `bytes` bytes (from the pool when one fits).
    pub fn alloc(ctx: &Arc<GpuContext>, bytes: u64) -> Result<GpuBuffer> {
        let class = Self::checked_class(ctx, bytes)?;
        let buffer = match ctx.pool.take(class) {
            Some(b) => b,
            None => {
                let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: None,
                    size: class,
                    usage: USAGE,
                    mapped_at_creation: false,
                });
                ctx.check()?;
                b
            }
        };
        Ok(GpuBuffer { buffer: Some(buffer), ctx: ctx.clone() })
    }

    /// A new buffer holding `bytes`. It is written while mapped at creation rather than with
    /// `queue.write_buffer`, whose copy would run before dispatches already recorded in the
    /// pending batch that may still read a recycled buffer.
    pub fn upload(ctx: &Arc<GpuContext>, bytes: &[u8]) -> Result<GpuBuffer> {
        let class = Self::checked_class(ctx, bytes.len() as u64)?;
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: class,
            usage: USAGE,
            mapped_at_creation: true,
        });
        ctx.check()?;
        if !bytes.is_empty() {
            buffer
                .get_mapped_range_mut(..bytes.len() as u64)
                .map_err(|e| Error::Internal(format!("GPU upload failed: {e}")))?
                .copy_from_slice(bytes);
        }
        buffer.unmap();
        Ok(GpuBuffer { buffer: Some(buffer), ctx: ctx.clone() })
    }
}

impl Drop for GpuBuffer {
    fn drop(&mut self) {
        if let Some(buffer) = self.buffer.take() {
            self.ctx.pool.give(buffer);
        }
    }
}
