//! `BroadcastGradientArgs`: the axes along which each operand of a broadcasting op was
//! broadcast, computed from the operands' shapes when the node runs. A gradient sums over
//! them; TensorFlow's graphs do the same, so a traced gradient holds for operands whose sizes
//! (1 or more along an unknown dimension) are only known at run time.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    expect_name, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::ops::shape_input::{check_shape_type, shape_values};
use crate::tensor::Tensor;

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct BroadcastGradientArgs;

const NAME: &str = "BroadcastGradientArgs";

/// The reduction axes of `s0` and `s1` against their broadcast shape, as TensorFlow's BCast
/// gives them: none when the shapes are equal; otherwise an axis of size 1 in an operand (or
/// missing from it, for the shorter one) is that operand's, and both get an axis where both
/// are 1.
pub fn reduction_axes(s0: &[i64], s1: &[i64]) -> Result<(Vec<i64>, Vec<i64>)> {
    if s0 == s1 {
        return Ok((Vec::new(), Vec::new()));
    }
    let rank = s0.len().max(s1.len());
    let padded = |s: &[i64]| {
        let mut out = vec![1; rank - s.len()];
        out.extend_from_slice(s);
        out
    };
    let (x, y) = (padded(s0), padded(s1));
    let (mut r0, mut r1) = (Vec::new(), Vec::new());
    for (axis, (&a, &b)) in x.iter().zip(&y).enumerate() {
        let axis = axis as i64;
        match (a, b) {
            (1, 1) => {
                r0.push(axis);
                r1.push(axis);
            }
            (1, _) => r0.push(axis),
            (_, 1) => r1.push(axis),
            (a, b) if a == b => {}
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "Incompatible shapes: {} vs. {} [Op:{NAME}]",
                    bracketed(s0),
                    bracketed(s1)
                )))
            }
        }
    }
    Ok((r0, r1))
}

fn bracketed(dims: &[i64]) -> String {
    let parts: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(","))
}

fn vector(values: Vec<i64>, dtype: DType) -> Result<Tensor> {
    let n = values.len();
    match dtype {
        DType::I32 => {
            let narrow: Vec<i32> = values.into_iter().map(|v| v as i32).collect();
            Tensor::from_slice(&narrow, &[n])
        }
        _ => Tensor::from_slice(&values, &[n]),
    }
}

impl Primitive for BroadcastGradientArgs {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(2)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    /// Two index vectors of the shapes' dtype; their lengths depend on the shapes' values.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.infer_with_values(inputs, &[])
    }

    fn infer_with_values(
        &self,
        inputs: &[TensorType],
        values: &[Option<Vec<Option<i64>>>],
    ) -> Result<Vec<TensorType>> {
        let (s0, s1) = (input(inputs, 0)?, input(inputs, 1)?);
        check_shape_type(s0, NAME)?;
        check_shape_type(s1, NAME)?;
        if s0.dtype != s1.dtype {
            return Err(Error::InvalidArgument(format!(
                "{NAME}'s shapes differ in dtype: {} vs. {} [Op:{NAME}]",
                s0.dtype, s1.dtype
            )));
        }
        let known =
            |k: usize| -> Option<Vec<i64>> { values.get(k)?.as_ref()?.iter().copied().collect() };
        let lengths = match (known(0), known(1)) {
            (Some(a), Some(b)) => {
                let (r0, r1) = reduction_axes(&a, &b)?;
                [Some(r0.len()), Some(r1.len())]
            }
            _ => [None, None],
        };
        Ok(lengths.iter().map(|&n| TensorType { dtype: s0.dtype, dims: vec![n] }).collect())
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let (s0, s1) = (shape_values(inputs[0], NAME)?, shape_values(inputs[1], NAME)?);
        let (r0, r1) = reduction_axes(&s0, &s1)?;
        Ok(vec![vector(r0, inputs[0].dtype())?, vector(r1, inputs[0].dtype())?])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("arithmetic on two short shape vectors; no device work"),
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for BroadcastGradientArgs {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, _: &Attrs) -> Result<BroadcastGradientArgs> {
        expect_name(name, NAME).map(|()| BroadcastGradientArgs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let shape = |dims: &[i32]| Tensor::from_slice(dims, &[dims.len()]).unwrap();
    let shape64 = |dims: &[i64]| Tensor::from_slice(dims, &[dims.len()]).unwrap();
    vec![
        (Op::BroadcastGradientArgs(BroadcastGradientArgs), vec![shape(&[2, 1, 5]), shape(&[3, 1])]),
        (Op::BroadcastGradientArgs(BroadcastGradientArgs), vec![shape64(&[4]), shape64(&[1])]),
    ]
}

#[cfg(test)]
mod tests {
    use super::reduction_axes;

    /// TensorFlow 2.21's answers (tf.raw_ops.BroadcastGradientArgs and bcast_ops_test.py).
    #[test]
    fn axes_match_tensorflow() {
        // (s0, s1, r0, r1)
        type Case = (&'static [i64], &'static [i64], &'static [i64], &'static [i64]);
        let cases: &[Case] = &[
            (&[1, 2], &[1, 2], &[], &[]),
            (&[2, 1, 5], &[3, 1], &[1], &[0, 2]),
            (&[3, 1], &[2, 1, 5], &[0, 2], &[1]),
            (&[1], &[1, 1], &[0, 1], &[0, 1]),
            (&[0, 3], &[1, 3], &[], &[0]),
            (&[2, 3, 5], &[1], &[], &[0, 1, 2]),
            (&[2, 0, 3, 0, 5], &[3, 1, 5], &[], &[0, 1, 3]),
        ];
        for &(s0, s1, r0, r1) in cases {
            assert_eq!(
                reduction_axes(s0, s1).unwrap(),
                (r0.to_vec(), r1.to_vec()),
                "{s0:?} {s1:?}"
            );
        }
        let err = reduction_axes(&[2, 3], &[4, 3]).unwrap_err().to_string();
        assert!(err.contains("Incompatible shapes: [2,3] vs. [4,3]"), "{err}");
    }
}
