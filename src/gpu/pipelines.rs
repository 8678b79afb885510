//! Compiled compute pipelines, cached by the name of the generated kernel. Every kernel binds
//! its tensors as storage buffers `0..n` (inputs read-only, outputs read-write) and its
//! parameters as a read-only `array<u32>` at the last binding.

use crate::error::{Error, Result};
use crate::gpu::kernels::source::enable_extensions;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub struct Kernel {
    pub(crate) pipeline: wgpu::ComputePipeline,
    pub(crate) layout: wgpu::BindGroupLayout,
    /// Number of tensor bindings (the parameters follow them).
    pub(crate) tensors: usize,
}

#[derive(Default)]
pub struct PipelineCache {
    kernels: Mutex<HashMap<String, Arc<Kernel>>>,
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl PipelineCache {
    /// The pipeline named `key`, compiling `source()` the first time. `inputs` read-only
    /// tensors come first, then `outputs` writable ones.
    pub fn get(
        &self,
        device: &wgpu::Device,
        key: &str,
        inputs: usize,
        outputs: usize,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<Kernel>> {
        self.compile(device, key, inputs, outputs, source, wgpu::ShaderRuntimeChecks::checked())
    }

    /// `get` without the bounds checks and loop bounding wgpu adds to a kernel. Those checks
    /// clamp every dynamic index and keep the driver's compiler from unrolling loops, which cost
    /// the tiled matmul most of its speed on NVIDIA's compiler.
    ///
    /// # Safety
    /// Every index the kernel forms into a buffer, workgroup array or vector must be in bounds
    /// for every dispatch the caller records, and every loop must end.
    pub unsafe fn get_in_bounds(
        &self,
        device: &wgpu::Device,
        key: &str,
        inputs: usize,
        outputs: usize,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<Kernel>> {
        // SAFETY: the caller's promise is what the dropped checks would have enforced.
        let checks = wgpu::ShaderRuntimeChecks::unchecked();
        // Its own key space: a kernel compiled without checks never serves a checked request.
        self.compile(device, &format!("unchecked:{key}"), inputs, outputs, source, checks)
    }

    fn compile(
        &self,
        device: &wgpu::Device,
        key: &str,
        inputs: usize,
        outputs: usize,
        source: impl FnOnce() -> String,
        checks: wgpu::ShaderRuntimeChecks,
    ) -> Result<Arc<Kernel>> {
        let mut kernels = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = kernels.get(key) {
            return Ok(k.clone());
        }
        let tensors = inputs + outputs;
        let mut entries: Vec<_> =
            (0..tensors).map(|i| storage_entry(i as u32, i < inputs)).collect();
        entries.push(storage_entry(tensors as u32, true));
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(key),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(key),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let descriptor = wgpu::ShaderModuleDescriptor {
            label: Some(key),
            source: wgpu::ShaderSource::Wgsl(enable_extensions(source()).into()),
        };
        // SAFETY: with `checked()` wgpu keeps all of its checks; `unchecked()` reaches here only
        // through `get_in_bounds`, whose caller has promised what the checks would enforce.
        let module = unsafe { device.create_shader_module_trusted(descriptor, checks) };
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(key),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Internal(format!("GPU kernel '{key}' failed to compile: {e}")));
        }
        let kernel = Arc::new(Kernel { pipeline, layout, tensors });
        kernels.insert(key.to_string(), kernel.clone());
        Ok(kernel)
    }
}
