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
    let s = with_real!(start.buffer(), v => v[0].to_f64(), else 0.0);
    let l = with_real!(limit.buffer(), v => v[0].to_f64(), else 0.0);
    let d = with_real!(delta.buffer(), v => v[0].to_f64(), else 0.0);
    if d == 0.0 {
        return Err(Error::InvalidArgument("Requires delta != 0: 0 [Op:Range]".into()));
    }
    if (d > 0.0 && s > l) || (d < 0.0 && s < l) {
        let rel =
            if d > 0.0 { "start <= limit when delta > 0" } else { "start >= limit when delta < 0" };
        return Err(Error::InvalidArgument(format!("Requires {rel}: {s}/{l} [Op:Range]")));
    }
    let size = if dtype.is_integer() {
        let (s, l, d) = (s as i128, l as i128, d as i128);
        ((l - s).abs() + d.abs() - 1) / d.abs()
    } else {
        ((l - s) / d).abs().ceil() as i128
    };
    let size = usize::try_from(size).map_err(|_| {
        Error::ResourceExhausted(format!("Requires a range of {size} elements [Op:Range]"))
    })?;
    crate::shape::check_elements(size)?;
    let out = with_real!(start.buffer(), v => {
        let (first, step) = (v[0], Element::unwrap(delta.buffer()).map(|d: &Vec<_>| d[0]).ok_or_else(|| Error::Internal("range".into()))?);
        Element::wrap(crate::kernels::parallel::generate(size, |i| {
            Num::add(first, Num::mul(Element::from_u64(i as u64), step))
        }))
    }, else return Err(Error::unsupported_dtype("Range", dtype)));
    Ok(Tensor::from_buffer_unchecked(out, Shape(vec![size])))
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
