//! The GPU backend of a build without the `gpu` feature: the same interface as `gpu/` with no
//! devices, so the rest of the crate calls `crate::gpu::...` without `cfg` (candle's dummy
//! backends). Device storage cannot exist here: `GpuStorage` holds an uninhabited value, so
//! every arm that would touch one is statically unreachable.

use crate::buffer::Buffer;
pub use crate::device::AdapterDetails;
use crate::dtype::DType;
use crate::error::{Error, Result};
use std::convert::Infallible;

fn no_gpu() -> Error {
    Error::Unavailable("this build of ferroflow has no GPU support (feature `gpu`)".into())
}

/// A device buffer: never constructed in this build.
#[derive(Debug)]
pub struct GpuStorage {
    pub device: usize,
    pub dtype: DType,
    pub len: usize,
    never: Infallible,
}

impl GpuStorage {
    pub fn alloc(_device: usize, _dtype: DType, _len: usize) -> Result<GpuStorage> {
        Err(no_gpu())
    }

    /// No device can hold anything.
    pub fn upload(_device: usize, _host: &Buffer) -> Result<Option<GpuStorage>> {
        Ok(None)
    }

    pub fn host(&self) -> Result<&Buffer> {
        match self.never {}
    }

    pub fn copy_from(&mut self, _src: &GpuStorage) -> Result<()> {
        match self.never {}
    }

    pub fn copy_to(&self, _device: usize) -> Result<Option<GpuStorage>> {
        match self.never {}
    }
}

pub fn physical_devices() -> Vec<AdapterDetails> {
    Vec::new()
}

pub fn visible_devices() -> Vec<usize> {
    Vec::new()
}

pub fn visible_count() -> usize {
    0
}

/// Hiding every GPU is all a build without GPUs can do.
pub fn set_visible_devices(indices: &[usize]) -> Result<()> {
    if indices.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!("no GPU {indices:?}: {}", no_gpu())))
    }
}

/// No adapter to split.
pub fn set_logical_split(physical: usize, _limits: &[Option<u64>]) -> Result<()> {
    Err(Error::Value(format!("Unrecognized device: GPU:{physical}")))
}

pub fn memory_info(_device: usize) -> Result<(u64, u64)> {
    Err(no_gpu())
}

pub fn reset_memory_stats(_device: usize) -> Result<()> {
    Err(no_gpu())
}

pub fn supports_dtype(_device: usize, _dtype: DType) -> bool {
    false
}

pub fn dispatch_count() -> u64 {
    0
}

pub fn synchronize(_device: usize) -> Result<()> {
    Err(no_gpu())
}

pub fn simulate_device_loss(_device: usize) -> Result<()> {
    Err(no_gpu())
}

pub mod kernels {
    //! No kernels: placement never picks a GPU, so these are never asked to run.
    use crate::dispatch::Op;
    use crate::error::Result;
    use crate::tensor::Tensor;

    pub fn supported(_op: &Op, _inputs: &[&Tensor], _device: usize) -> bool {
        false
    }

    pub fn run(_op: &Op, _inputs: &[&Tensor], _device: usize) -> Result<Option<Vec<Tensor>>> {
        Ok(None)
    }

    pub mod fused {
        use crate::error::Result;
        use crate::graph::fused::FusedChain;
        use crate::tensor::Tensor;

        use crate::shape::Shape;

        pub fn run(
            _chain: &FusedChain,
            _inputs: &[&Tensor],
            _shape: &Shape,
            _device: usize,
        ) -> Result<Option<Tensor>> {
            Ok(None)
        }
    }
}
