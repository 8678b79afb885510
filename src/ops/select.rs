//! `Select` (`tf.where(cond, x, y)`): picks from `x` where `cond` is true, else from `y`, with
//! broadcasting of all three.

use crate::buffer::Buffer;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::broadcast;
use crate::shape::{broadcast_shapes, Shape};
use crate::tensor::Tensor;
use crate::with_all;

pub fn cpu(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let Buffer::Bool(c) = cond.buffer() else {
        return Err(Error::InvalidArgument(format!(
            "condition must be a bool tensor, got {} [Op:SelectV2]",
            cond.dtype()
        )));
    };
    if x.dtype() != y.dtype() {
        return Err(Error::dtype_mismatch("SelectV2", x.dtype(), y.dtype()));
    }
    let shape = broadcast_shapes(cond.shape(), x.shape())
        .and_then(|s| broadcast_shapes(&s, y.shape()))
        .map_err(|e| Error::InvalidArgument(format!("{e} [Op:SelectV2]")))?;
    let out = with_all!(x.buffer(), a => select(c, cond.shape(), a, x.shape(), y, &shape)?);
    Ok(Tensor::from_buffer_unchecked(out, shape))
}

fn select<T: Element>(
    c: &[bool],
    c_shape: &Shape,
    a: &[T],
    a_shape: &Shape,
    y: &Tensor,
    out: &Shape,
) -> Result<Buffer> {
    let b =
        T::unwrap(y.buffer()).ok_or_else(|| Error::Internal("select: dtype mismatch".into()))?;
    let v = broadcast::zip3(
        c,
        c_shape,
        a,
        a_shape,
        b,
        y.shape(),
        out,
        |c, a, b| if c { a } else { b },
    )?;
    Ok(T::wrap(v))
}
