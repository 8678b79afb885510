//! The pending batch: dispatches are recorded into one command encoder and submitted together,
//! when the batch is full or when a value is read back. Kernel parameters of a batch live in one
//! buffer, mapped at creation and filled at submission, so no write can race recorded work.

use crate::error::{Error, Result};
use crate::gpu::context::GpuContext;
use crate::gpu::pipelines::Kernel;
use std::sync::atomic::{AtomicU64, Ordering};

/// Dispatches recorded since the process started, on every device (`gpu::dispatch_count`:
/// benchmarks count a training step's kernels with it).
pub(crate) static DISPATCHES: AtomicU64 = AtomicU64::new(0);

/// Dispatches per submission; bounds both latency and the parameter buffer.
const MAX_DISPATCHES: usize = 256;
/// Bytes reserved per dispatch for parameters (also the storage offset alignment we assume).
const PARAM_STRIDE: usize = 256;
pub const MAX_PARAMS: usize = PARAM_STRIDE / 4;

pub struct Batch {
    /// The open compute pass every dispatch of the batch is recorded into. wgpu-core pays for
    /// each pass at `finish` (two raw command buffers, a tracker sized by every buffer the device
    /// has made, barriers from it), which was most of a small op's host cost with a pass per
    /// dispatch; inside one pass it still places a barrier between dependent dispatches.
    /// Declared before `encoder` so it is ended first when the batch is dropped.
    pass: Option<wgpu::ComputePass<'static>>,
    encoder: Option<wgpu::CommandEncoder>,
    params_buffer: Option<wgpu::Buffer>,
    params: Vec<u8>,
    dispatches: usize,
}

impl Batch {
    pub fn new() -> Batch {
        Batch { pass: None, encoder: None, params_buffer: None, params: Vec::new(), dispatches: 0 }
    }

    /// The encoder, for commands outside a compute pass (copies, clears): ends the open pass.
    fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        self.pass = None;
        self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
        })
    }

    /// The open compute pass, begun on the encoder when none is open.
    fn pass(&mut self, device: &wgpu::Device) -> &mut wgpu::ComputePass<'static> {
        if self.pass.is_none() {
            let pass = self
                .encoder(device)
                .begin_compute_pass(&wgpu::ComputePassDescriptor::default())
                .forget_lifetime();
            self.pass = Some(pass);
        }
        self.pass.as_mut().expect("opened above")
    }

    /// Submits everything recorded so far.
    fn flush(&mut self, ctx: &GpuContext) -> Result<()> {
        self.pass = None;
        if let Some(buffer) = self.params_buffer.take() {
            if !self.params.is_empty() {
                buffer
                    .get_mapped_range_mut(..self.params.len() as u64)
                    .map_err(|e| Error::Internal(format!("GPU parameter write failed: {e}")))?
                    .copy_from_slice(&self.params);
            }
            buffer.unmap();
        }
        self.params.clear();
        self.dispatches = 0;
        if let Some(encoder) = self.encoder.take() {
            ctx.queue.submit([encoder.finish()]);
        }
        ctx.check()
    }
}

fn groups_for(ctx: &GpuContext, workgroups: u64) -> Result<[u32; 3]> {
    let max = u64::from(ctx.limits.max_compute_workgroups_per_dimension);
    if workgroups <= max {
        return Ok([workgroups.max(1) as u32, 1, 1]);
    }
    let y = workgroups.div_ceil(max);
    if y > max {
        return Err(Error::ResourceExhausted(format!(
            "{workgroups} workgroups exceed GPU '{}' dispatch limits",
            ctx.details.name
        )));
    }
    Ok([max as u32, y as u32, 1])
}

impl GpuContext {
    /// Records one dispatch of `kernel` over `workgroups` workgroups (laid out on a 2D grid when
    /// they exceed one dimension; kernels rebuild the linear index from `num_workgroups`).
    pub(crate) fn launch(
        &self,
        kernel: &Kernel,
        buffers: &[&wgpu::Buffer],
        params: &[u32],
        workgroups: u64,
    ) -> Result<()> {
        let grid = groups_for(self, workgroups)?;
        self.dispatch(kernel, buffers, params, grid)
    }

    /// Records one dispatch over an explicit workgroup grid.
    pub(crate) fn dispatch(
        &self,
        kernel: &Kernel,
        buffers: &[&wgpu::Buffer],
        params: &[u32],
        grid: [u32; 3],
    ) -> Result<()> {
        debug_assert_eq!(buffers.len(), kernel.tensors);
        if params.len() > MAX_PARAMS {
            return Err(Error::Internal(format!(
                "{} kernel parameters exceed {MAX_PARAMS}",
                params.len()
            )));
        }
        let mut batch = self.batch();
        if batch.dispatches >= MAX_DISPATCHES {
            batch.flush(self)?;
        }
        if batch.params_buffer.is_none() {
            batch.params_buffer = Some(self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ferroflow params"),
                size: (MAX_DISPATCHES * PARAM_STRIDE) as u64,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: true,
            }));
        }
        let offset = batch.params.len();
        let mut block = [0u8; PARAM_STRIDE];
        for (i, p) in params.iter().enumerate() {
            block[i * 4..i * 4 + 4].copy_from_slice(&p.to_le_bytes());
        }
        batch.params.extend_from_slice(&block);
        batch.dispatches += 1;
        DISPATCHES.fetch_add(1, Ordering::Relaxed);
        let params_buffer = batch.params_buffer.as_ref().expect("created above");
        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        entries.push(wgpu::BindGroupEntry {
            binding: buffers.len() as u32,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: params_buffer,
                offset: offset as u64,
                size: std::num::NonZeroU64::new(PARAM_STRIDE as u64),
            }),
        });
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &kernel.layout,
            entries: &entries,
        });
        let pass = batch.pass(&self.device);
        pass.set_pipeline(&kernel.pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
        self.check()
    }

    /// Records zeroing `buffer` (for kernels that accumulate into their output).
    pub(crate) fn clear(&self, buffer: &wgpu::Buffer) -> Result<()> {
        let mut batch = self.batch();
        batch.encoder(&self.device).clear_buffer(buffer, 0, None);
        drop(batch);
        self.check()
    }

    /// Records copying `bytes` bytes from `src` to `dst` after the work already recorded.
    pub(crate) fn copy(&self, src: &wgpu::Buffer, dst: &wgpu::Buffer, bytes: u64) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        let mut batch = self.batch();
        batch.encoder(&self.device).copy_buffer_to_buffer(src, 0, dst, 0, bytes);
        drop(batch);
        self.check()
    }

    /// Submits pending work without waiting for it.
    pub fn submit(&self) -> Result<()> {
        self.batch().flush(self)
    }

    /// Submits pending work and waits until the GPU has finished it.
    pub fn wait(&self) -> Result<()> {
        self.submit()?;
        self.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: None }).map_err(
            |e| Error::Unavailable(format!("waiting for GPU '{}' failed: {e}", self.details.name)),
        )?;
        self.check()
    }

    /// Copies `bytes` bytes of `src` to the host, submitting the batch and waiting for it.
    pub(crate) fn read(&self, src: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>> {
        if bytes == 0 {
            return Ok(Vec::new());
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("ferroflow readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.check()?;
        {
            let mut batch = self.batch();
            batch.encoder(&self.device).copy_buffer_to_buffer(src, 0, &staging, 0, bytes);
            batch.flush(self)?;
        }
        let (sender, receiver) = std::sync::mpsc::channel();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = sender.send(r);
        });
        self.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: None }).map_err(
            |e| Error::Unavailable(format!("waiting for GPU '{}' failed: {e}", self.details.name)),
        )?;
        self.check()?;
        match receiver.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(Error::Internal(format!("GPU readback failed: {e}"))),
            Err(_) => return Err(Error::Internal("GPU readback never completed".into())),
        }
        let data = staging
            .get_mapped_range(..)
            .map_err(|e| Error::Internal(format!("GPU readback failed: {e}")))?
            .to_vec();
        staging.unmap();
        Ok(data)
    }
}
