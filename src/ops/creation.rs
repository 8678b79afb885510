//! `Range` and `Fill`: tensors made from scalars.

use crate::dtype::DTypeSet;
use crate::element::{Element, Num};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::with_real;

/// `tf.range(start, limit, delta)` for scalars of one real dtype; element i is
/// `start + i * delta`, computed in the dtype as TensorFlow's kernel does.
pub fn range(start: &Tensor, limit: &Tensor, delta: &Tensor) -> Result<Tensor> {
    let size = range_len(start, limit, delta)?;
    let dtype = start.dtype();
    let out = with_real!(start.buffer(), v => {
        let (first, step) = (v[0], Element::unwrap(delta.buffer()).map(|d: &Vec<_>| d[0]).ok_or_else(|| Error::Internal("range".into()))?);
        Element::wrap(crate::kernels::parallel::generate(size, |i| {
            Num::add(first, Num::mul(Element::from_u64(i as u64), step))
        }))
    }, else return Err(Error::unsupported_dtype("Range", dtype)));
    Ok(Tensor::from_buffer_unchecked(out, Shape(vec![size])))
}

/// The length of `tf.range(start, limit, delta)`, with TensorFlow's errors (host scalars).
pub fn range_len(start: &Tensor, limit: &Tensor, delta: &Tensor) -> Result<usize> {
    let dtype = start.dtype();
    if limit.dtype() != dtype || delta.dtype() != dtype {
        return Err(Error::dtype_mismatch(
            "Range",
            dtype,
            if limit.dtype() != dtype { limit.dtype() } else { delta.dtype() },
        ));
    }
    if !DTypeSet::REAL.contains(dtype) {
        return Err(Error::unsupported_dtype("Range", dtype));
    }
    for (name, t) in [("start", start), ("limit", limit), ("delta", delta)] {
        if t.num_elements() != 1 {
            return Err(Error::InvalidArgument(format!(
                "{name} must be a scalar, not shape {} [Op:Range]",
                t.shape()
            )));
        }
    }
    // Integers are sized exactly in i128 (int64 bounds lose precision in f64).
    let exact = |t: &Tensor| -> i128 {
        with_real!(t.buffer(), v => if t.dtype().is_unsigned() { v[0].to_u64() as i128 } else { v[0].to_i64() as i128 }, else 0)
    };
    let approx = |t: &Tensor| with_real!(t.buffer(), v => v[0].to_f64(), else 0.0);
    let (sign, ascending) = if dtype.is_integer() {
        let d = exact(delta);
        (d.signum() as f64, exact(start) <= exact(limit))
    } else {
        (approx(delta).signum(), approx(start) <= approx(limit))
    };
    if sign == 0.0 || approx(delta).is_nan() {
        return Err(Error::InvalidArgument("Requires delta != 0 [Op:Range]".into()));
    }
    let (s, l) = (approx(start), approx(limit));
    let empty_ok = exact(start) == exact(limit) || s == l;
    if !empty_ok && ((sign > 0.0) != ascending) {
        let rel = if sign > 0.0 {
            "start <= limit when delta > 0"
        } else {
            "start >= limit when delta < 0"
        };
        return Err(Error::InvalidArgument(format!("Requires {rel}: {s}/{l} [Op:Range]")));
    }
    let size: i128 = if dtype.is_integer() {
        let (s, l, d) = (exact(start), exact(limit), exact(delta));
        ((l - s).abs() + d.abs() - 1) / d.abs()
    } else {
        let n = ((l - s) / approx(delta)).abs().ceil();
        if n.is_finite() {
            n as i128
        } else {
            i128::MAX
        }
    };
    let size = usize::try_from(size).map_err(|_| {
        Error::ResourceExhausted(format!("Requires a range of {size} elements [Op:Range]"))
    })?;
    crate::shape::check_elements(size)?;
    Ok(size)
}

/// A tensor of `shape` filled with the scalar `value`.
pub fn fill(shape: &Shape, value: &Tensor) -> Result<Tensor> {
    if value.num_elements() != 1 {
        return Err(Error::InvalidArgument(format!(
            "value must be a scalar, not shape {} [Op:Fill]",
            value.shape()
        )));
    }
    crate::ops::shape_ops::broadcast_to(&value.with_shape(Shape(vec![1; shape.rank()])), shape)
}
