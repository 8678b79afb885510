//! One opened GPU: its wgpu device and queue, the pending batch of dispatches, the pipeline
//! cache and the buffer pool.

use crate::error::{Error, Result};
use crate::gpu::adapters::AdapterDetails;
use crate::gpu::batch::Batch;
use crate::gpu::memory::Pool;
use crate::gpu::pipelines::PipelineCache;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub struct GpuContext {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) limits: wgpu::Limits,
    pub(crate) details: AdapterDetails,
    pub(crate) batch: Mutex<Batch>,
    pub(crate) pipelines: PipelineCache,
    pub(crate) pool: Pool,
    /// The first error wgpu reported outside an error scope (validation, out of memory).
    errors: Arc<Mutex<Option<wgpu::Error>>>,
    lost: Arc<AtomicBool>,
}

fn lock_or_recover<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn features(details: &AdapterDetails) -> wgpu::Features {
    let mut features = wgpu::Features::empty();
    features.set(wgpu::Features::SHADER_INT64, details.shader_int64);
    features.set(wgpu::Features::SHADER_F16, details.shader_f16);
    features
}

impl GpuContext {
    pub fn new(adapter: &wgpu::Adapter, details: AdapterDetails) -> Result<GpuContext> {
        let supported = adapter.limits();
        // Ask for everything the adapter offers where tensors need it: large bindings and buffers.
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: supported.max_storage_buffer_binding_size,
            max_buffer_size: supported.max_buffer_size,
            max_storage_buffers_per_shader_stage: supported
                .max_storage_buffers_per_shader_stage
                .min(16),
            max_compute_workgroup_storage_size: supported.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: supported.max_compute_invocations_per_workgroup,
            ..wgpu::Limits::default()
        };
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("ferroflow"),
            // Wider and narrower dtypes, where the adapter has them (storage.rs asks the same).
            required_features: features(&details),
            required_limits: limits.clone(),
            ..Default::default()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&descriptor))
            .map_err(|e| Error::Unavailable(format!("cannot open GPU '{}': {e}", details.name)))?;
        let errors: Arc<Mutex<Option<wgpu::Error>>> = Arc::new(Mutex::new(None));
        let sink = errors.clone();
        // wgpu's default handler panics; errors are kept and raised as Python exceptions instead.
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            lock_or_recover(&sink).get_or_insert(e);
        }));
        let lost = Arc::new(AtomicBool::new(false));
        let flag = lost.clone();
        device
            .set_device_lost_callback(move |_reason, _message| flag.store(true, Ordering::SeqCst));
        let batch = Mutex::new(Batch::new());
        Ok(GpuContext {
            device,
            queue,
            limits,
            details,
            batch,
            pipelines: PipelineCache::default(),
            pool: Pool::default(),
            errors,
            lost,
        })
    }

    pub(crate) fn batch(&self) -> MutexGuard<'_, Batch> {
        lock_or_recover(&self.batch)
    }

    /// Turns a pending wgpu error (or a lost device) into a crate error.
    pub(crate) fn check(&self) -> Result<()> {
        if self.lost.load(Ordering::SeqCst) {
            return Err(Error::Unavailable(format!(
                "the GPU '{}' was lost (driver reset or removal); its tensors are gone",
                self.details.name
            )));
        }
        match lock_or_recover(&self.errors).take() {
            None => Ok(()),
            Some(wgpu::Error::OutOfMemory { .. }) => {
                self.pool.clear();
                Err(Error::ResourceExhausted(format!(
                    "OOM when allocating memory on GPU '{}'",
                    self.details.name
                )))
            }
            Some(e) => Err(Error::Internal(format!("GPU error: {e}"))),
        }
    }

    /// Records that the device is gone (the lost callback may run only at the next poll).
    pub(crate) fn mark_lost(&self) {
        self.lost.store(true, Ordering::SeqCst);
    }

    /// Largest tensor, in bytes, a single binding can address.
    pub(crate) fn max_binding(&self) -> u64 {
        self.limits.max_storage_buffer_binding_size.min(self.limits.max_buffer_size)
    }
}
