//! `Tensor`: a cheap-to-clone handle to immutable, reference-counted storage plus shape and dtype.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::shape::Shape;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Identities for tensors and variables: the tape keys gradients by them. Clones of a handle
/// share an identity; every op output gets a fresh one.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

pub fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Where a tensor's elements live. Storage is shared between tensors (reshape shares it) and
/// freed when the last handle drops.
#[derive(Debug)]
pub enum Storage {
    Cpu(Buffer),
    /// Host memory another library owns, read in place (DLPack import, see `Borrowed`).
    Borrowed(crate::buffer::Borrowed),
    Gpu(crate::gpu::GpuStorage),
    /// Equally shaped host tensors, one per row along axis 0 (see `row_stack`).
    Rows(crate::row_stack::RowStack),
    /// A traced op's output whose kernel has not run (see `graph::deferred`).
    Deferred {
        run: Arc<crate::graph::deferred::DeferredRun>,
        output: usize,
    },
}

#[derive(Clone, Debug)]
pub struct Tensor {
    storage: Arc<Storage>,
    /// The shape; for a lazy tensor, a stand-in of the right rank (see `shape`).
    shape: Shape,
    dtype: DType,
    id: u64,
    /// A deferred value whose sizes depend on values (a boolean mask's): its shape is known
    /// once its kernel has run, which happens only if something reads the shape or values.
    lazy: bool,
    /// The logical CPU a host tensor is on (see `device`): logical CPUs share the host's memory,
    /// so moving a tensor between them relabels it without copying.
    cpu: u32,
}

impl Tensor {
    /// Wraps a buffer whose length must match the shape.
    pub fn from_buffer(buffer: Buffer, shape: Shape) -> Result<Tensor> {
        let (len, dtype) = (buffer.len(), buffer.dtype());
        Tensor::host_storage(Storage::Cpu(buffer), len, dtype, shape)
    }

    /// A host tensor reading memory another library owns (see `Borrowed`); its length must
    /// match the shape.
    pub fn from_borrowed(borrowed: crate::buffer::Borrowed, shape: Shape) -> Result<Tensor> {
        let (len, dtype) = (borrowed.buffer().len(), borrowed.buffer().dtype());
        Tensor::host_storage(Storage::Borrowed(borrowed), len, dtype, shape)
    }

    fn host_storage(storage: Storage, len: usize, dtype: DType, shape: Shape) -> Result<Tensor> {
        if len != shape.num_elements() {
            return Err(Error::InvalidArgument(format!(
                "{len} values cannot fill a tensor of shape {shape}"
            )));
        }
        Ok(Tensor { storage: Arc::new(storage), shape, dtype, id: fresh_id(), lazy: false, cpu: 0 })
    }

    /// Whether the values are read in place from another library's memory.
    pub fn is_borrowed(&self) -> bool {
        matches!(&*self.storage, Storage::Borrowed(_))
    }

    /// Internal constructor for kernels, which always produce the right length.
    pub(crate) fn from_vec<T: Element>(data: Vec<T>, shape: Shape) -> Tensor {
        debug_assert_eq!(data.len(), shape.num_elements());
        Tensor {
            storage: Arc::new(Storage::Cpu(T::wrap(data))),
            shape,
            dtype: T::DTYPE,
            id: fresh_id(),
            lazy: false,
            cpu: 0,
        }
    }

    pub(crate) fn from_buffer_unchecked(buffer: Buffer, shape: Shape) -> Tensor {
        debug_assert_eq!(buffer.len(), shape.num_elements());
        let dtype = buffer.dtype();
        Tensor {
            storage: Arc::new(Storage::Cpu(buffer)),
            shape,
            dtype,
            id: fresh_id(),
            lazy: false,
            cpu: 0,
        }
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

    /// The shape; a lazy tensor's runs its kernel the first time (see `graph::deferred`).
    pub fn shape(&self) -> &Shape {
        if self.lazy {
            if let Storage::Deferred { run, output } = &*self.storage {
                if let Some(shape) = crate::graph::deferred::shape(run, *output) {
                    return shape;
                }
            }
        }
        &self.shape
    }

    /// The dims; inside a trace, reading a value whose dims the signature leaves unknown
    /// specialises the graph to the traced shapes (see `trace::note_dims_read`).
    pub fn dims(&self) -> &[usize] {
        crate::graph::trace::note_dims_read(self);
        self.shape().dims()
    }

    pub fn rank(&self) -> usize {
        // A lazy value's rank is its static type's (`set_shape` may have given it one).
        if self.lazy {
            return crate::graph::deferred::static_type(self).rank();
        }
        self.shape.rank()
    }

    pub fn num_elements(&self) -> usize {
        crate::graph::trace::note_dims_read(self);
        self.shape().num_elements()
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn device(&self) -> Device {
        match &*self.storage {
            Storage::Cpu(_)
            | Storage::Borrowed(_)
            | Storage::Rows(_)
            | Storage::Deferred { .. } => Device::cpu(self.cpu as usize),
            Storage::Gpu(g) => Device::Gpu(g.device),
        }
    }

    /// A traced value whose kernel has not run (its values are computed if read).
    pub fn is_deferred(&self) -> bool {
        matches!(&*self.storage, Storage::Deferred { .. })
    }

    /// A deferred output; `lazy` when `shape` only stands in for sizes known once it runs.
    pub(crate) fn deferred(
        run: Arc<crate::graph::deferred::DeferredRun>,
        output: usize,
        shape: Shape,
        dtype: DType,
        lazy: bool,
    ) -> Tensor {
        Tensor {
            storage: Arc::new(Storage::Deferred { run, output }),
            shape,
            dtype,
            id: fresh_id(),
            lazy,
            cpu: 0,
        }
    }

    /// Whether the values are at hand without running anything (a deferred value's once read).
    pub(crate) fn values_ready(&self) -> bool {
        match &*self.storage {
            Storage::Deferred { run, .. } => run.is_done(),
            _ => true,
        }
    }

    /// `self` with `rows` appended along axis 0, in `self`'s own memory when nothing else holds
    /// it (a graph value at its last reader): filling an array row by row then costs amortised
    /// O(row) per row instead of a copy of everything so far. Gives `self` back where that
    /// does not apply (shared or non-host memory, other dtypes or trailing dims).
    pub(crate) fn append_rows_in_place(
        mut self,
        rows: &Tensor,
    ) -> std::result::Result<Tensor, Tensor> {
        let fits = self.dtype == rows.dtype
            && !self.lazy
            && !rows.lazy
            && self.rank() >= 1
            && rows.rank() == self.rank()
            && self.shape.dims()[1..] == rows.shape.dims()[1..];
        let extra = match &*rows.storage {
            Storage::Cpu(b) => b,
            Storage::Borrowed(b) => b.buffer(),
            _ => return Err(self),
        };
        // `get_mut` answers only for the one handle to the storage (rows sharing it included).
        let appended = fits
            && match Arc::get_mut(&mut self.storage) {
                Some(Storage::Cpu(buffer)) => buffer.extend_from(extra),
                _ => false,
            };
        if !appended {
            return Err(self);
        }
        let mut dims = self.shape.dims().to_vec();
        dims[0] += rows.shape.dims()[0];
        self.shape = Shape::new(dims);
        self.id = fresh_id();
        Ok(self)
    }

    /// `change` applied to this tensor's host buffer in its own memory when nothing else holds
    /// the storage (a graph value at its last reader), under a new identity; gives `self`
    /// back, unchanged, where that does not apply. `change` must leave the buffer as it was
    /// when it fails.
    pub(crate) fn update_in_place(
        mut self,
        change: impl FnOnce(&mut Buffer) -> Result<()>,
    ) -> std::result::Result<Result<Tensor>, Tensor> {
        if self.lazy {
            return Err(self);
        }
        let Some(Storage::Cpu(buffer)) = Arc::get_mut(&mut self.storage) else {
            return Err(self);
        };
        if let Err(e) = change(buffer) {
            return Ok(Err(e));
        }
        self.id = fresh_id();
        Ok(Ok(self))
    }

    /// A deferred value whose shape is known only once its kernel runs.
    pub fn is_lazy(&self) -> bool {
        self.lazy
    }

    /// The deferred run and output behind this tensor, if it is deferred.
    pub(crate) fn deferred_source(&self) -> Option<(&crate::graph::deferred::DeferredRun, usize)> {
        match &*self.storage {
            Storage::Deferred { run, output } => Some((run, *output)),
            _ => None,
        }
    }

    /// The values on the host; a GPU tensor is read back (waiting for its kernels) the first
    /// time and the copy is kept.
    pub fn host(&self) -> Result<&Buffer> {
        match &*self.storage {
            Storage::Cpu(b) => Ok(b),
            Storage::Borrowed(b) => Ok(b.buffer()),
            Storage::Rows(rows) => Ok(rows.dense()),
            Storage::Gpu(g) => g.host(),
            Storage::Deferred { run, output } => {
                crate::graph::deferred::value(run, *output)?.host()
            }
        }
    }

    /// The host buffer, for CPU kernels. The dispatcher reads GPU inputs back (with `host`,
    /// which reports failures) before any CPU kernel runs, so this never waits or fails there.
    pub fn buffer(&self) -> &Buffer {
        match self.host() {
            Ok(b) => b,
            Err(e) => panic!("reading a GPU or deferred tensor's values failed: {e}"),
        }
    }

    pub(crate) fn gpu_storage(&self) -> Option<&crate::gpu::GpuStorage> {
        match &*self.storage {
            Storage::Gpu(g) => Some(g),
            Storage::Cpu(_)
            | Storage::Borrowed(_)
            | Storage::Rows(_)
            | Storage::Deferred { .. } => None,
        }
    }

    /// A host value whose elements are at hand (not a GPU, deferred or row-stack value).
    pub(crate) fn is_plain_host(&self) -> bool {
        !self.lazy && matches!(&*self.storage, Storage::Cpu(_) | Storage::Borrowed(_))
    }

    /// `rows` stacked along a new axis 0 without copying them (see `row_stack`); `None` when
    /// they are not all plain host values of one dtype and shape.
    pub(crate) fn stack_rows(rows: &[Tensor]) -> Option<Tensor> {
        let stack = crate::row_stack::RowStack::new(rows)?;
        let first = &rows[0];
        let shape = Shape::new([&[rows.len()][..], first.shape.dims()].concat());
        Some(Tensor {
            storage: Arc::new(Storage::Rows(stack)),
            shape,
            dtype: first.dtype,
            id: fresh_id(),
            lazy: false,
            cpu: first.cpu,
        })
    }

    /// Row `i` of a row stack as the tensor it keeps (a new identity, nothing copied); `None`
    /// for other storage, or a stack seen under another shape.
    pub(crate) fn stacked_row(&self, i: usize) -> Option<Tensor> {
        let Storage::Rows(stack) = &*self.storage else { return None };
        let row = stack.rows().get(i)?;
        let (lead, rest) = self.shape.dims().split_first()?;
        (*lead == stack.rows().len() && rest == row.shape.dims() && row.dtype == self.dtype)
            .then(|| row.with_fresh_id())
    }

    /// A row stack (see `row_stack`): its values are concatenated on first read, which can
    /// neither wait nor fail, so CPU kernels need not read it beforehand (and one that reads
    /// a single row never concatenates).
    pub(crate) fn is_row_stack(&self) -> bool {
        matches!(&*self.storage, Storage::Rows(_))
    }

    pub(crate) fn from_gpu(storage: crate::gpu::GpuStorage, shape: Shape) -> Tensor {
        debug_assert_eq!(storage.len, shape.num_elements());
        let dtype = storage.dtype;
        Tensor {
            storage: Arc::new(Storage::Gpu(storage)),
            shape,
            dtype,
            id: fresh_id(),
            lazy: false,
            cpu: 0,
        }
    }

    /// The same storage under another dtype of the same element type (a quantized type and
    /// its integer storage, see `ops::quantized`): a new identity, nothing copied.
    pub(crate) fn retagged(&self, dtype: DType) -> Tensor {
        debug_assert_eq!(dtype.storage(), self.dtype.storage());
        Tensor { dtype, id: fresh_id(), ..self.clone() }
    }

    /// This tensor on `device`: itself when it is already there, else a copy. `None` when the
    /// dtype cannot live on that device.
    pub fn to_device(&self, device: Device) -> Result<Option<Tensor>> {
        // Copies are built from buffers, which know only the storage type.
        let moved = self.to_device_untagged(device)?;
        Ok(moved.map(|t| if t.dtype == self.dtype { t } else { Tensor { dtype: self.dtype, ..t } }))
    }

    fn to_device_untagged(&self, device: Device) -> Result<Option<Tensor>> {
        if self.device() == device {
            return Ok(Some(self.clone()));
        }
        let (_, index) = device.kind_and_index();
        match device {
            // Logical CPUs share the host's memory: a new handle on the same storage.
            Device::Cpu | Device::SplitCpu(_) if self.device().is_cpu() => {
                Ok(Some(Tensor { id: fresh_id(), cpu: index as u32, ..self.clone() }))
            }
            Device::Cpu | Device::SplitCpu(_) => {
                let host = self.host()?.clone();
                let copy = Tensor::from_buffer_unchecked(host, self.shape().clone());
                Ok(Some(Tensor { cpu: index as u32, ..copy }))
            }
            Device::Gpu(i) => {
                // Between logical GPUs of one adapter: a device-side copy.
                if let Some(g) = self.gpu_storage() {
                    if let Some(copy) = g.copy_to(i)? {
                        return Ok(Some(Tensor::from_gpu(copy, self.shape().clone())));
                    }
                }
                Ok(crate::gpu::GpuStorage::upload(i, self.host()?)?
                    .map(|g| Tensor::from_gpu(g, self.shape().clone())))
            }
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
        Tensor {
            storage: self.storage.clone(),
            shape,
            dtype: self.dtype,
            id: fresh_id(),
            lazy: false,
            cpu: self.cpu,
        }
    }

    /// True when both handles share one storage (no copy was made).
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// The identity the tape keys this tensor's gradient by.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The same value under a new identity: tapes see a new tensor; an open trace sees the
    /// same traced value (a copy it did not know would otherwise become a constant holding the
    /// example's numbers).
    pub fn with_new_id(&self) -> Tensor {
        let copy = self.with_fresh_id();
        crate::graph::trace::alias(self, &copy);
        copy
    }

    /// The same data under an identity nothing has seen (tracing's own bookkeeping: it maps
    /// the new identity itself).
    pub(crate) fn with_fresh_id(&self) -> Tensor {
        Tensor { id: fresh_id(), ..self.clone() }
    }

    pub(crate) fn with_id(&self, id: u64) -> Tensor {
        Tensor { id, ..self.clone() }
    }

    /// A copy with its own storage on `device` (where it is when the dtype cannot live there).
    pub fn deep_copy_to(&self, device: Device) -> Result<Tensor> {
        let copy = self.deep_copy_untagged(device)?;
        Ok(Tensor { dtype: self.dtype, ..copy })
    }

    fn deep_copy_untagged(&self, device: Device) -> Result<Tensor> {
        let moved = match self.to_device(device)? {
            Some(t) if !t.shares_storage(self) => return Ok(t),
            Some(t) => t,
            None => self.clone(),
        };
        match &*moved.storage {
            Storage::Cpu(_)
            | Storage::Borrowed(_)
            | Storage::Rows(_)
            | Storage::Deferred { .. } => {
                let copy =
                    Tensor::from_buffer_unchecked(moved.host()?.clone(), self.shape().clone());
                Ok(Tensor { cpu: moved.cpu, ..copy })
            }
            Storage::Gpu(g) => {
                let mut copy = crate::gpu::GpuStorage::alloc(g.device, g.dtype, g.len)?;
                copy.copy_from(g)?;
                Ok(Tensor::from_gpu(copy, self.shape().clone()))
            }
        }
    }

    /// Overwrites this tensor's storage with `value`'s elements when no other handle shares it
    /// (so a variable keeps its buffer); returns false, changing nothing, when it cannot.
    pub(crate) fn overwrite_in_place(&mut self, value: &Tensor) -> Result<bool> {
        if value.dtype != self.dtype
            || value.shape() != self.shape()
            || value.device() != self.device()
            || Arc::ptr_eq(&self.storage, &value.storage)
        {
            return Ok(false);
        }
        let Some(storage) = Arc::get_mut(&mut self.storage) else { return Ok(false) };
        match storage {
            Storage::Cpu(buffer) => Ok(buffer.copy_from(value.host()?)),
            Storage::Gpu(g) => match value.gpu_storage() {
                Some(src) => g.copy_from(src).map(|()| true),
                None => Ok(false),
            },
            // Never write into another library's memory (or rows other values hold): the
            // caller allocates instead.
            Storage::Borrowed(_) | Storage::Rows(_) | Storage::Deferred { .. } => Ok(false),
        }
    }

    /// `overwrite_in_place` of a value this call owns: when nothing else holds `value`'s host
    /// buffer, this storage takes that buffer instead of copying its elements (the storage
    /// stays this tensor's; only the memory behind it changes hands). Gives `value` back when
    /// neither can be done.
    pub(crate) fn overwrite_in_place_owned(
        &mut self,
        value: Tensor,
    ) -> Result<std::result::Result<(), Tensor>> {
        let fits = value.dtype == self.dtype
            && value.shape() == self.shape()
            && value.device() == self.device()
            && !Arc::ptr_eq(&self.storage, &value.storage);
        let Some(Storage::Cpu(buffer)) = Arc::get_mut(&mut self.storage).filter(|_| fits) else {
            return Ok(match self.overwrite_in_place(&value)? {
                true => Ok(()),
                false => Err(value),
            });
        };
        let value = match Arc::try_unwrap(value.storage) {
            Ok(Storage::Cpu(adopted)) if adopted.dtype() == buffer.dtype() => {
                *buffer = adopted;
                return Ok(Ok(()));
            }
            Ok(other) => Tensor { storage: Arc::new(other), ..value },
            Err(shared) => Tensor { storage: shared, ..value },
        };
        Ok(match self.overwrite_in_place(&value)? {
            true => Ok(()),
            false => Err(value),
        })
    }

    /// The address of the storage, for tests that check a buffer is reused.
    pub fn storage_address(&self) -> usize {
        Arc::as_ptr(&self.storage) as *const u8 as usize
    }
}
