//! `Tensor`: a cheap-to-clone handle to immutable, reference-counted storage plus shape and dtype.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::shape::Shape;
use std::sync::Arc;

/// Where a tensor's elements live. Storage is shared between tensors (reshape shares it) and
/// freed when the last handle drops.
#[derive(Debug)]
pub enum Storage {
    Cpu(Buffer),
    #[cfg(feature = "gpu")]
    Gpu(crate::gpu::GpuStorage),
}

#[derive(Clone, Debug)]
pub struct Tensor {
    storage: Arc<Storage>,
    shape: Shape,
    dtype: DType,
}

impl Tensor {
    /// Wraps a buffer whose length must match the shape.
    pub fn from_buffer(buffer: Buffer, shape: Shape) -> Result<Tensor> {
        if buffer.len() != shape.num_elements() {
            return Err(Error::InvalidArgument(format!(
                "{} values cannot fill a tensor of shape {}",
                buffer.len(),
                shape
            )));
        }
        let dtype = buffer.dtype();
        Ok(Tensor { storage: Arc::new(Storage::Cpu(buffer)), shape, dtype })
    }

    /// Internal constructor for kernels, which always produce the right length.
    pub(crate) fn from_vec<T: Element>(data: Vec<T>, shape: Shape) -> Tensor {
        debug_assert_eq!(data.len(), shape.num_elements());
        Tensor { storage: Arc::new(Storage::Cpu(T::wrap(data))), shape, dtype: T::DTYPE }
    }

    pub(crate) fn from_buffer_unchecked(buffer: Buffer, shape: Shape) -> Tensor {
        debug_assert_eq!(buffer.len(), shape.num_elements());
        let dtype = buffer.dtype();
        Tensor { storage: Arc::new(Storage::Cpu(buffer)), shape, dtype }
    }

    /// A tensor from a slice and dimensions.
    ///
    /// ```
    /// use ferroflow::Tensor;
    /// let t = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    /// assert_eq!(t.shape().dims(), &[2, 2]);
    /// ```
    pub fn from_slice<T: Element>(data: &[T], dims: &[usize]) -> Result<Tensor> {
        Tensor::from_buffer(T::wrap(data.to_vec()), Shape::from(dims))
    }

    pub fn scalar<T: Element>(value: T) -> Tensor {
        Tensor::from_vec(vec![value], Shape::scalar())
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    pub fn dims(&self) -> &[usize] {
        self.shape.dims()
    }

    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    pub fn num_elements(&self) -> usize {
        self.shape.num_elements()
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn device(&self) -> Device {
        match &*self.storage {
            Storage::Cpu(_) => Device::Cpu,
            #[cfg(feature = "gpu")]
            Storage::Gpu(g) => Device::Gpu(g.device),
        }
    }

    /// The values on the host; a GPU tensor is read back (waiting for its kernels) the first
    /// time and the copy is kept.
    pub fn host(&self) -> Result<&Buffer> {
        match &*self.storage {
            Storage::Cpu(b) => Ok(b),
            #[cfg(feature = "gpu")]
            Storage::Gpu(g) => g.host(),
        }
    }

    /// The host buffer, for CPU kernels. The dispatcher reads GPU inputs back (with `host`,
    /// which reports failures) before any CPU kernel runs, so this never waits or fails there.
    pub fn buffer(&self) -> &Buffer {
        match self.host() {
            Ok(b) => b,
            Err(e) => panic!("reading a GPU tensor back failed: {e}"),
        }
    }

    #[cfg(feature = "gpu")]
    pub(crate) fn gpu_storage(&self) -> Option<&crate::gpu::GpuStorage> {
        match &*self.storage {
            Storage::Gpu(g) => Some(g),
            Storage::Cpu(_) => None,
        }
    }

    #[cfg(feature = "gpu")]
    pub(crate) fn from_gpu(storage: crate::gpu::GpuStorage, shape: Shape) -> Tensor {
        debug_assert_eq!(storage.len, shape.num_elements());
        let dtype = storage.dtype;
        Tensor { storage: Arc::new(Storage::Gpu(storage)), shape, dtype }
    }

    /// This tensor on `device`: itself when it is already there, else a copy. `None` when the
    /// dtype cannot live on that device.
    pub fn to_device(&self, device: Device) -> Result<Option<Tensor>> {
        if self.device() == device {
            return Ok(Some(self.clone()));
        }
        match device {
            Device::Cpu => {
                Ok(Some(Tensor::from_buffer_unchecked(self.host()?.clone(), self.shape.clone())))
            }
            #[cfg(feature = "gpu")]
            Device::Gpu(i) => Ok(crate::gpu::GpuStorage::upload(i, self.host()?)?
                .map(|g| Tensor::from_gpu(g, self.shape.clone()))),
            #[cfg(not(feature = "gpu"))]
            Device::Gpu(_) => Ok(None),
        }
    }

    /// The elements as a `Vec<T>`; `T` must be this tensor's element type.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        T::unwrap(self.host()?).cloned().ok_or_else(|| {
            Error::InvalidArgument(format!("cannot read a {} tensor as {}", self.dtype, T::DTYPE))
        })
    }

    /// The same storage under another shape with the same element count.
    pub(crate) fn with_shape(&self, shape: Shape) -> Tensor {
        debug_assert_eq!(shape.num_elements(), self.num_elements());
        Tensor { storage: self.storage.clone(), shape, dtype: self.dtype }
    }

    /// True when both handles share one storage (no copy was made).
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }
}
