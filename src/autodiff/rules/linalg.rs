//! The gradient of (batched) matmul with TensorFlow's rule table for transposed and adjoint
//! operands, summed back over broadcast batch dimensions.

use super::{conj, operand_dims, unbroadcast};
use crate::error::Result;
use crate::ops::{self, MatMulAttrs};
use crate::tensor::Tensor;

pub(crate) fn matmul(
    attrs: MatMulAttrs,
    x: &Tensor,
    y: &Tensor,
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let t_x = attrs.transpose_a || attrs.adjoint_a;
    let t_y = attrs.transpose_b || attrs.adjoint_b;
    // BatchMatMul's rule uses adjoints; MatMul's (plain transposes) conjugates the operands
    // and transposes plainly. They agree for real dtypes.
    let plain = (attrs.transpose_a && !attrs.adjoint_a) || (attrs.transpose_b && !attrs.adjoint_b);
    let (a, b) = if plain { (conj(x)?, conj(y)?) } else { (x.clone(), y.clone()) };
    let mm = |p: &Tensor, q: &Tensor, tp: bool, tq: bool| {
        let attrs = if plain {
            MatMulAttrs { transpose_a: tp, transpose_b: tq, ..Default::default() }
        } else {
            MatMulAttrs { adjoint_a: tp, adjoint_b: tq, ..Default::default() }
        };
        ops::matmul(p, q, attrs)
    };
    let (gx, gy) = match (t_x, t_y) {
        (false, false) => (mm(g, &b, false, true)?, mm(&a, g, true, false)?),
        (false, true) => (mm(g, &b, false, false)?, mm(g, &a, true, false)?),
        (true, false) => (mm(&b, g, false, true)?, mm(&a, g, false, false)?),
        (true, true) => (mm(&b, g, true, true)?, mm(g, &a, true, true)?),
    };
    // Only batch dims broadcast: an operand's matrix dims count as 1 against the other's.
    let batch = |t: &Tensor| {
        let mut dims = operand_dims(t);
        let n = dims.len();
        dims[n.saturating_sub(2)..].fill(Some(1));
        dims
    };
    Ok(vec![Some(unbroadcast(&gx, x, &[batch(y)])?), Some(unbroadcast(&gy, y, &[batch(x)])?)])
}
