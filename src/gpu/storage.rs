//! Tensor storage on a GPU and the copies between host and device. Values are immutable, so the
//! first readback is kept: printing a GPU tensor twice reads it once.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::adapters;
use crate::gpu::memory::GpuBuffer;
use std::sync::OnceLock;

/// The dtypes every GPU holds. Booleans are stored as one `u32` per element (WGSL has no
/// 1-byte storage type).
pub fn supports_dtype(dtype: DType) -> bool {
    matches!(dtype, DType::F32 | DType::I32 | DType::U32 | DType::Bool)
}

/// Bytes per element on the device.
pub const ELEMENT_BYTES: u64 = 4;

#[derive(Debug)]
pub struct GpuStorage {
    pub(crate) buffer: GpuBuffer,
    pub(crate) device: usize,
    pub(crate) dtype: DType,
    pub(crate) len: usize,
    host: OnceLock<Buffer>,
}

fn encode(buffer: &Buffer) -> Option<Vec<u8>> {
    Some(match buffer {
        Buffer::F32(v) => bytemuck::cast_slice(v).to_vec(),
        Buffer::I32(v) => bytemuck::cast_slice(v).to_vec(),
        Buffer::U32(v) => bytemuck::cast_slice(v).to_vec(),
        Buffer::Bool(v) => v.iter().flat_map(|&b| u32::from(b).to_le_bytes()).collect(),
        _ => return None,
    })
}

fn decode(bytes: &[u8], dtype: DType, len: usize) -> Result<Buffer> {
    let bytes = &bytes[..len * ELEMENT_BYTES as usize];
    let words = || bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    Ok(match dtype {
        DType::F32 => Buffer::F32(words().map(f32::from_le_bytes).collect()),
        DType::I32 => Buffer::I32(words().map(i32::from_le_bytes).collect()),
        DType::U32 => Buffer::U32(words().map(u32::from_le_bytes).collect()),
        DType::Bool => Buffer::Bool(words().map(|w| u32::from_le_bytes(w) != 0).collect()),
        other => return Err(Error::Internal(format!("{other} tensors do not live on the GPU"))),
    })
}

impl GpuStorage {
    /// A kernel output: `len` elements of `dtype`, uninitialised until the kernel runs.
    pub fn alloc(device: usize, dtype: DType, len: usize) -> Result<GpuStorage> {
        let ctx = adapters::context(device)?;
        crate::shape::check_elements(len)?;
        let buffer = GpuBuffer::alloc(&ctx, len as u64 * ELEMENT_BYTES)?;
        Ok(GpuStorage { buffer, device, dtype, len, host: OnceLock::new() })
    }

    /// Copies a host buffer to GPU `device`; `None` when the dtype cannot live there.
    pub fn upload(device: usize, host: &Buffer) -> Result<Option<GpuStorage>> {
        let Some(bytes) = encode(host) else { return Ok(None) };
        let ctx = adapters::context(device)?;
        let buffer = GpuBuffer::upload(&ctx, &bytes)?;
        let storage = GpuStorage {
            buffer,
            device,
            dtype: host.dtype(),
            len: host.len(),
            host: OnceLock::new(),
        };
        // The host copy is already known; keep it so reading back costs nothing.
        let _ = storage.host.set(host.clone());
        Ok(Some(storage))
    }

    /// The values on the host, read back (waiting for pending work) the first time.
    pub fn host(&self) -> Result<&Buffer> {
        if let Some(b) = self.host.get() {
            return Ok(b);
        }
        let ctx = self.buffer.context();
        let bytes = ctx.read(self.buffer.raw(), self.len as u64 * ELEMENT_BYTES)?;
        let buffer = decode(&bytes, self.dtype, self.len)?;
        Ok(self.host.get_or_init(|| buffer))
    }

    pub fn raw(&self) -> &wgpu::Buffer {
        self.buffer.raw()
    }
}
