//! `Cast`: converts every element to another dtype with TensorFlow's rules (see `element::cast`).

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::element::{cast, Element};
use crate::error::{Error, Result};
use crate::kernels::parallel;
use crate::ops::primitive::{
    attrs_of, expect_name, from_attrs, input, Arity, Attrs, Decisions, Decode, GpuKernel,
    Primitive, TensorType,
};
use crate::tensor::Tensor;
use crate::{with_all, with_dtype};

/// `Cast` to this dtype.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Cast(pub DType);

impl Primitive for Cast {
    fn tf_name(&self) -> &'static str {
        "Cast"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    /// Every dtype converts to every other.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        Ok(vec![input(inputs, 0)?.with_dtype(self.0)])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![cpu(inputs[0], self.0)?])
    }

    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![crate::autodiff::rules::elementwise::cast(&inputs[0], g)?])
    }

    /// Gradients pass between inexact dtypes only; the rule gives None for the rest.
    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: true }
    }
}

impl Decode for Cast {
    fn names() -> Vec<&'static str> {
        vec!["Cast"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Cast> {
        expect_name(name, "Cast")?;
        from_attrs(name, attrs)
    }
}

fn cast_slice<T: Element, U: Element>(v: &[T]) -> Buffer {
    U::wrap(parallel::map(v, cast::<T, U>))
}

pub fn cpu(x: &Tensor, to: DType) -> Result<Tensor> {
    if x.dtype() == to {
        return Ok(x.clone());
    }
    let unsupported = || {
        Error::Unimplemented(format!(
            "Cast {} to {} is not supported",
            x.dtype().cpp_name(),
            to.cpp_name()
        ))
    };
    let out = with_all!(x.buffer(), v => with_dtype!(to, U => cast_slice::<_, U>(v), else return Err(unsupported())), else return Err(unsupported()));
    Ok(Tensor::from_buffer_unchecked(out, x.shape().clone()))
}

/// A widening (differentiable) and a truncating cast.
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    let x = || Tensor::from_slice(&[1.5f32, -2.25, 3.0], &[3]).unwrap();
    vec![
        (crate::ops::registry::Op::Cast(Cast(DType::F64)), vec![x()]),
        (crate::ops::registry::Op::Cast(Cast(DType::I32)), vec![x()]),
    ]
}
