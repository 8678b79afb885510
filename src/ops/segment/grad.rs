//! TensorFlow's gradients of the segment reductions (`math_grad.py`), written with ops so they
//! run on any device and differentiate again. Unsorted ops gather with negative ids clipped to
//! 0 and zero those rows (`_GatherDropNegatives`); max and min share each segment's gradient
//! evenly between the rows equal to its result; prod divides the product by each row, with
//! TensorFlow's cases for one zero (the product of the other rows) and several (zero).

use super::{segment, Segment, SegmentKind};
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::{self, scalar_like};
use crate::tensor::Tensor;

/// `x` with `k` trailing axes of size 1, to broadcast an id mask over the rows' elements.
fn trailing_ones(x: &Tensor, k: usize) -> Result<Tensor> {
    let mut x = x.clone();
    for _ in 0..k {
        x = ops::expand_dims(&x, -1)?;
    }
    Ok(x)
}

/// Gather takes int32 or int64 indices; the unsorted ops also take int16 ids.
fn gatherable(ids: &Tensor) -> Result<Tensor> {
    match ids.dtype() {
        DType::I16 => ops::cast(ids, DType::I32),
        _ => Ok(ids.clone()),
    }
}

/// What `_GatherDropNegatives` shares between its calls: the ids clipped at 0 and where they
/// were not negative (with trailing axes for the rows' elements).
struct Clipped {
    ids: Tensor,
    positive: Tensor,
    sorted: bool,
}

impl Clipped {
    fn of(ids: &Tensor, row_rank: usize, sorted: bool) -> Result<Clipped> {
        let ids = gatherable(ids)?;
        let zero = ops::zeros_like(&ids)?;
        let positive = trailing_ones(&ops::greater_equal(&ids, &zero)?, row_rank)?;
        Ok(Clipped { ids: ops::maximum(&ids, &zero)?, positive, sorted })
    }

    /// `params` gathered at the clipped ids, zero where the id was negative. (A scalar zero,
    /// not `zeros_like`: a sorted op's gradient has a size known only when the graph runs, and
    /// a shape-only op of such a value would be read while the trace records it.)
    fn gather(&self, params: &Tensor) -> Result<Tensor> {
        let gathered = ops::gather(params, &self.ids, 0, 0)?;
        if self.sorted {
            return Ok(gathered); // sorted ids are never negative
        }
        ops::select(&self.positive, &gathered, &scalar_like(params, 0.0))
    }
}

pub(super) fn gradient(op: Segment, inputs: &[Tensor], out: &Tensor, g: &Tensor) -> Result<Tensor> {
    let (data, ids) = (&inputs[0], &inputs[1]);
    let num = inputs.get(2);
    // Segment sums of a tensor shaped like the data, by the same ids.
    let sum = |x: &Tensor| {
        let op = Segment::of(SegmentKind::Sum, op.sorted()).expect("sums exist sorted or not");
        segment(op, x, ids, num)
    };
    let row_rank = data.rank() - ids.rank();
    let clipped = Clipped::of(ids, row_rank, op.sorted())?;
    match op.kind() {
        SegmentKind::Sum => clipped.gather(g),
        SegmentKind::Mean => {
            let ones = trailing_ones(&ops::ones_like(&ops::cast(ids, g.dtype())?)?, row_rank)?;
            clipped.gather(&ops::div(g, &sum(&ones)?)?)
        }
        SegmentKind::Max | SegmentKind::Min => {
            let selected = ops::equal(data, &clipped.gather(out)?)?;
            let selected = ops::logical_and(&selected, &clipped.positive)?;
            let count = sum(&ops::cast(&selected, g.dtype())?)?;
            let shared = clipped.gather(&ops::div(g, &count)?)?;
            ops::select(&selected, &shared, &scalar_like(g, 0.0))
        }
        SegmentKind::Prod => {
            let is_zero = ops::equal(data, &scalar_like(data, 0.0))?;
            let zeros = sum(&ops::cast(&is_zero, DType::I32)?)?;
            let several = ops::greater(&zeros, &Tensor::scalar(1i32))?;
            let g = ops::select(&several, &scalar_like(g, 0.0), g)?;
            let non_zero = ops::select(&is_zero, &ops::ones_like(data)?, data)?;
            let non_zero_prod = segment(op, &non_zero, ids, num)?;
            let gathered_prod = ops::gather(out, &clipped.ids, 0, 0)?;
            let others = ops::gather(&non_zero_prod, &clipped.ids, 0, 0)?;
            // TensorFlow divides by the data (unsorted) or by the data with ones for zeros.
            let divisor = if op.sorted() { &non_zero } else { data };
            let partial = ops::select(&is_zero, &others, &ops::div(&gathered_prod, divisor)?)?;
            ops::mul(&clipped.gather(&g)?, &partial)
        }
    }
}
