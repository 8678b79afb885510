//! Tensor storage on a GPU and the copies between host and device. Values are immutable, so the
//! first readback is kept: printing a GPU tensor twice reads it once.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::gpu::adapters;
use crate::gpu::memory::GpuBuffer;
use std::sync::OnceLock;

/// Whether visible GPU `device` holds `dtype`: float32, int32, uint32 and bool everywhere
/// (booleans as one `u32` each: WGSL has no 1-byte storage), int64 and uint64 where the adapter
/// has `SHADER_INT64`, float16 where it has `SHADER_F16`.
pub fn supports_dtype(device: usize, dtype: DType) -> bool {
    match dtype {
        DType::F32 | DType::I32 | DType::U32 | DType::Bool => true,
        DType::I64 | DType::U64 => adapters::details_say(device, |d| d.shader_int64),
        DType::F16 => adapters::details_say(device, |d| d.shader_f16),
        // Pairs of float32 (re, im). Only the kernels that say so take them: `kernels::supported`
        // sends every other op with a complex operand to the CPU.
        DType::C64 => true,
        _ => false,
    }
}

/// Bytes per element on the device.
pub fn element_bytes(dtype: DType) -> u64 {
    match dtype {
        DType::I64 | DType::U64 | DType::C64 => 8,
        DType::F16 => 2,
        _ => 4,
    }
}

/// Bytes a buffer of `len` elements spans: copies and mappings move whole 4-byte words.
fn span(dtype: DType, len: usize) -> u64 {
    (len as u64 * element_bytes(dtype)).next_multiple_of(4)
}

#[derive(Debug)]
pub struct GpuStorage {
    pub(crate) buffer: GpuBuffer,
    pub(crate) device: usize,
    pub(crate) dtype: DType,
    pub(crate) len: usize,
    host: OnceLock<Buffer>,
}

fn encode(buffer: &Buffer) -> Option<Vec<u8>> {
    let mut bytes = match buffer {
        Buffer::F16(v) => v.iter().flat_map(|h| h.to_bits().to_le_bytes()).collect(),
        Buffer::F32(v) => bytemuck::cast_slice(v).to_vec(),
        Buffer::I32(v) => bytemuck::cast_slice(v).to_vec(),
        Buffer::U32(v) => bytemuck::cast_slice(v).to_vec(),
        Buffer::I64(v) => bytemuck::cast_slice(v).to_vec(),
        Buffer::U64(v) => bytemuck::cast_slice(v).to_vec(),
        Buffer::Bool(v) => v.iter().flat_map(|&b| u32::from(b).to_le_bytes()).collect(),
        Buffer::C64(v) => v.iter().flat_map(|c| [c.re, c.im]).flat_map(f32::to_le_bytes).collect(),
        _ => return None,
    };
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    Some(bytes)
}

fn decode(bytes: &[u8], dtype: DType, len: usize) -> Result<Buffer> {
    let bytes = &bytes[..len * element_bytes(dtype) as usize];
    let words = || bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    let longs = || bytes.chunks_exact(8).map(|c| <[u8; 8]>::try_from(c).unwrap_or_default());
    let halves = || bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
    Ok(match dtype {
        DType::F32 => Buffer::F32(words().map(f32::from_le_bytes).collect()),
        DType::I32 => Buffer::I32(words().map(i32::from_le_bytes).collect()),
        DType::U32 => Buffer::U32(words().map(u32::from_le_bytes).collect()),
        DType::Bool => Buffer::Bool(words().map(|w| u32::from_le_bytes(w) != 0).collect()),
        DType::I64 => Buffer::I64(longs().map(i64::from_le_bytes).collect()),
        DType::F16 => Buffer::F16(halves().map(half::f16::from_bits).collect()),
        DType::U64 => Buffer::U64(longs().map(u64::from_le_bytes).collect()),
        DType::C64 => Buffer::C64(
            longs()
                .map(|c| {
                    let half = |k: usize| f32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]]);
                    num_complex::Complex32::new(half(0), half(4))
                })
                .collect(),
        ),
        other => return Err(Error::Internal(format!("{other} tensors do not live on the GPU"))),
    })
}

impl GpuStorage {
    /// A kernel output: `len` elements of `dtype`, uninitialised until the kernel runs.
    pub fn alloc(device: usize, dtype: DType, len: usize) -> Result<GpuStorage> {
        let ctx = adapters::context(device)?;
        crate::shape::check_elements(len)?;
        let buffer = GpuBuffer::alloc(&ctx, &adapters::memory(device)?, span(dtype, len))?;
        Ok(GpuStorage { buffer, device, dtype, len, host: OnceLock::new() })
    }

    /// Copies a host buffer to GPU `device`; `None` when the dtype cannot live there.
    pub fn upload(device: usize, host: &Buffer) -> Result<Option<GpuStorage>> {
        let Some(bytes) = encode(host) else { return Ok(None) };
        let ctx = adapters::context(device)?;
        let buffer = GpuBuffer::upload(&ctx, &adapters::memory(device)?, &bytes)?;
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
        let bytes = ctx.read(self.buffer.raw(), span(self.dtype, self.len))?;
        let buffer = decode(&bytes, self.dtype, self.len)?;
        Ok(self.host.get_or_init(|| buffer))
    }

    /// Records a copy of `src` (same dtype and length) into this buffer and forgets the host
    /// copy, so a variable's assignment keeps its device buffer.
    pub fn copy_from(&mut self, src: &GpuStorage) -> Result<()> {
        let ctx = self.buffer.context();
        if src.device != self.device || src.dtype != self.dtype || src.len != self.len {
            return Err(Error::Internal("GPU copy between mismatched buffers".into()));
        }
        ctx.copy(src.raw(), self.raw(), span(self.dtype, self.len))?;
        self.host = OnceLock::new();
        Ok(())
    }

    /// A copy on logical GPU `device` made on the device, when that logical GPU is on the same
    /// adapter as this one; `None` when it is on another (the copy goes through the host).
    pub fn copy_to(&self, device: usize) -> Result<Option<GpuStorage>> {
        let target = adapters::context(device)?;
        if !std::sync::Arc::ptr_eq(&target, self.buffer.context()) {
            return Ok(None);
        }
        let buffer =
            GpuBuffer::alloc(&target, &adapters::memory(device)?, span(self.dtype, self.len))?;
        target.copy(self.raw(), buffer.raw(), span(self.dtype, self.len))?;
        let copy =
            GpuStorage { buffer, device, dtype: self.dtype, len: self.len, host: OnceLock::new() };
        if let Some(host) = self.host.get() {
            let _ = copy.host.set(host.clone());
        }
        Ok(Some(copy))
    }

    pub fn raw(&self) -> &wgpu::Buffer {
        self.buffer.raw()
    }
}
