//! `EnsureShape`: its input, after checking at run time that the input's shape fits a partial
//! shape. `tf.ensure_shape` is this op; tracing also places one on every value whose example
//! size a composition read where the trace leaves that size unknown, so a graph built for the
//! traced size raises instead of computing with a wrong one when the size differs at run time.

use crate::error::{Error, Result};
use crate::ops::primitive::{
    describe_dims, expect_name, from_attrs, input, Arity, Attrs, Decisions, Decode, GpuKernel,
    Primitive, TensorType,
};
use crate::tensor::Tensor;
use serde::{Deserialize, Serialize};

const NAME: &str = "EnsureShape";

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EnsureShape {
    /// The expected dims, `None` where any size is accepted.
    pub shape: Vec<Option<usize>>,
    /// Placed by tracing (not by the user): its error explains the specialisation.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub traced_size: bool,
}

impl EnsureShape {
    fn mismatch(&self, actual: &[Option<usize>]) -> Error {
        let message = format!(
            "Shape of tensor {} is not compatible with expected shape {}.",
            describe_dims(actual),
            describe_dims(&self.shape)
        );
        if !self.traced_size {
            return Error::InvalidArgument(message);
        }
        Error::InvalidArgument(format!(
            "{message} This tf.function was traced with a value of the expected size and a \
             ferroflow composition used that size where TensorFlow computes it when the graph \
             runs; at run time the value has another size, so the graph cannot give \
             TensorFlow's result. Please report this."
        ))
    }

    fn fits(&self, dims: &[Option<usize>]) -> bool {
        dims.len() == self.shape.len()
            && dims.iter().zip(&self.shape).all(|(a, e)| a.is_none() || e.is_none() || a == e)
    }
}

impl Primitive for EnsureShape {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        crate::ops::primitive::attrs_of(self)
    }

    /// The input's type with the sizes the expected shape adds.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        if !self.fits(&x.dims) {
            return Err(self.mismatch(&x.dims));
        }
        let dims = x.dims.iter().zip(&self.shape).map(|(a, e)| a.or(*e)).collect();
        Ok(vec![TensorType { dtype: x.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let x = inputs.first().ok_or_else(|| Error::Internal("input 0 is missing".into()))?;
        let dims: Vec<Option<usize>> = x.shape().dims().iter().map(|&d| Some(d)).collect();
        if !self.fits(&dims) {
            return Err(self.mismatch(&dims));
        }
        Ok(vec![x.with_fresh_id()])
    }

    fn gradient(&self, _: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(g.clone())])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            // Reads only the dims and hands back the same storage, wherever it lives.
            gpu: GpuKernel::Decomposed,
            differentiable: true,
            fusable: false,
        }
    }
}

impl Decode for EnsureShape {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<EnsureShape> {
        expect_name(name, NAME)?;
        from_attrs(name, attrs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    vec![
        (
            Op::EnsureShape(EnsureShape { shape: vec![Some(2), None], traced_size: false }),
            vec![x.clone()],
        ),
        (
            Op::EnsureShape(EnsureShape { shape: vec![Some(2), Some(3)], traced_size: true }),
            vec![x],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::EnsureShape;
    use crate::ops::primitive::Primitive;
    use crate::tensor::Tensor;

    #[test]
    fn a_size_that_differs_is_an_error() {
        let x = Tensor::from_slice(&[1i32, 2, 3], &[3]).unwrap();
        let check =
            |shape: Vec<Option<usize>>| EnsureShape { shape, traced_size: false }.cpu(&[&x]);
        assert!(check(vec![None]).is_ok());
        assert!(check(vec![Some(3)]).is_ok());
        let err = check(vec![Some(2)]).unwrap_err().to_string();
        assert!(
            err.contains("Shape of tensor [3] is not compatible with expected shape [2]"),
            "{err}"
        );
        assert!(check(vec![Some(3), None]).is_err());
    }
}
