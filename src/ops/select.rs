//! `Select` (`tf.where(cond, x, y)`): picks from `x` where `cond` is true, else from `y`, with
//! broadcasting of all three.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::broadcast;
use crate::ops::primitive::{
    self, expect_name, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::shape::{broadcast_shapes, Shape};
use crate::tensor::Tensor;
use crate::with_all;

/// `SelectV2`: inputs cond (bool), x, y, broadcast together.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Select;

impl Primitive for Select {
    fn tf_name(&self) -> &'static str {
        "SelectV2"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(3)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (cond, x, y) = (input(inputs, 0)?, input(inputs, 1)?, input(inputs, 2)?);
        if cond.dtype != DType::Bool {
            return Err(not_bool(cond.dtype));
        }
        if x.dtype != y.dtype {
            return Err(Error::dtype_mismatch("SelectV2", x.dtype, y.dtype));
        }
        let dims = primitive::broadcast(&[cond, x, y], "SelectV2")?;
        Ok(vec![TensorType { dtype: x.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![cpu(inputs[0], inputs[1], inputs[2])?])
    }

    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        crate::autodiff::rules::elementwise::select(inputs, g)
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: true }
    }
}

impl Decode for Select {
    fn names() -> Vec<&'static str> {
        vec!["SelectV2"]
    }

    fn decode(name: &str, _: &Attrs) -> Result<Select> {
        expect_name(name, "SelectV2").map(|()| Select)
    }
}

fn not_bool(dtype: DType) -> Error {
    Error::InvalidArgument(format!("condition must be a bool tensor, got {dtype} [Op:SelectV2]"))
}

pub fn cpu(cond: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let Buffer::Bool(c) = cond.buffer() else {
        return Err(not_bool(cond.dtype()));
    };
    if x.dtype() != y.dtype() {
        return Err(Error::dtype_mismatch("SelectV2", x.dtype(), y.dtype()));
    }
    let shape = broadcast_shapes(cond.shape(), x.shape())
        .and_then(|s| broadcast_shapes(&s, y.shape()))
        .map_err(|e| Error::InvalidArgument(format!("{e} [Op:SelectV2]")))?;
    let out = with_all!(x.buffer(), a => select(c, cond.shape(), a, x.shape(), y, &shape)?, else {
        select_by_index(c, cond.shape(), x, y, &shape)?
    });
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

/// `select` for elements that are not `Copy` (strings): broadcasts positions, then clones the
/// chosen elements once each.
fn select_by_index(
    c: &[bool],
    c_shape: &Shape,
    x: &Tensor,
    y: &Tensor,
    out: &Shape,
) -> Result<Buffer> {
    let (Buffer::Str(a), Buffer::Str(b)) = (x.buffer(), y.buffer()) else {
        return Err(Error::Internal("select: dtype mismatch".into()));
    };
    let ia: Vec<usize> = (0..a.len()).collect();
    let ib: Vec<usize> = (a.len()..a.len() + b.len()).collect();
    let picks =
        broadcast::zip3(
            c,
            c_shape,
            &ia,
            x.shape(),
            &ib,
            y.shape(),
            out,
            |c, i, j| if c { i } else { j },
        )?;
    let element = |p: usize| if p < a.len() { a[p].clone() } else { b[p - a.len()].clone() };
    Ok(Buffer::Str(picks.into_iter().map(element).collect()))
}

/// A condition that broadcasts against a matrix and a scalar.
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    let cond = Tensor::from_slice(&[true, false, false, true], &[2, 2]).unwrap();
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let y = Tensor::scalar(-1.0f32);
    vec![(crate::ops::registry::Op::Select(Select), vec![cond, x, y])]
}
