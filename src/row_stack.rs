//! Storage for a stack of equally shaped host tensors kept one handle per row: a `While`
//! keeping a value of every iteration for its gradient (`graph::loop_saves`) hands its
//! iterations over without copying, and the backward loop's read of row t is that row's own
//! tensor again (TensorFlow's TensorList accumulators move tensors the same way). Any other
//! reader sees ordinary contiguous values, concatenated once on first read.

use crate::buffer::Buffer;
use crate::tensor::Tensor;
use std::sync::OnceLock;

#[derive(Debug)]
pub struct RowStack {
    rows: Vec<Tensor>,
    dense: OnceLock<Buffer>,
}

impl RowStack {
    /// `rows` as one stack, or `None` (giving nothing up) unless there is at least one and
    /// all are host values on one logical CPU, of one dtype and shape, whose elements are at
    /// hand, and a dense copy of them could be allocated (so reading it later cannot fail).
    pub(crate) fn new(rows: &[Tensor]) -> Option<RowStack> {
        let first = rows.first()?;
        let fits = |t: &Tensor| {
            t.is_plain_host()
                && t.device() == first.device()
                && t.dtype() == first.dtype()
                && t.shape() == first.shape()
        };
        let total = rows.len().checked_mul(first.shape().num_elements())?;
        let allocatable = crate::shape::check_alloc(total, first.dtype()).is_ok();
        (allocatable && rows.iter().all(fits))
            .then(|| RowStack { rows: rows.to_vec(), dense: OnceLock::new() })
    }

    pub(crate) fn rows(&self) -> &[Tensor] {
        &self.rows
    }

    /// The rows' elements one after another, made the first time they are asked for (the
    /// copy then lives beside the rows as long as the stack does).
    pub(crate) fn dense(&self) -> &Buffer {
        self.dense.get_or_init(|| {
            let mut dense = self.rows[0].buffer().clone();
            for row in &self.rows[1..] {
                // `new` admitted rows of one dtype only, so every append fits.
                dense.extend_from(row.buffer());
            }
            dense
        })
    }
}
