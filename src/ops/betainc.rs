//! `Betainc` (`tf.math.betainc(a, b, x)`): the regularized incomplete beta function. As in
//! TensorFlow, the three inputs share a float32/float64 dtype and every non-scalar input has
//! one shape (no broadcasting beyond scalars).

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernels::broadcast;
use crate::ops::primitive::{
    expect_name, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::ops::special_fns;
use crate::ops::{self, scalar_like};
use crate::shape::Shape;
use crate::tensor::Tensor;

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Betainc;

const NAMES: [&str; 3] = ["a", "b", "x"];

/// The output dims: those of the non-scalar inputs, which must agree.
fn output_dims(dims: [&[Option<usize>]; 3]) -> Result<Vec<Option<usize>>> {
    let mut out: Option<(usize, &[Option<usize>])> = None;
    for (i, &d) in dims.iter().enumerate() {
        if d.is_empty() {
            continue;
        }
        match out {
            None => out = Some((i, d)),
            Some((j, o)) => {
                let agree = o.len() == d.len()
                    && o.iter().zip(d.iter()).all(|(p, q)| p.is_none() || q.is_none() || p == q);
                if !agree {
                    let show = |v: &[Option<usize>]| {
                        let s: Vec<String> = v
                            .iter()
                            .map(|d| d.map_or("?".to_string(), |n| n.to_string()))
                            .collect();
                        format!("[{}]", s.join(","))
                    };
                    return Err(Error::InvalidArgument(format!(
                        "Shapes of {} and {} are inconsistent: {} vs. {} [Op:Betainc]",
                        NAMES[j],
                        NAMES[i],
                        show(o),
                        show(d)
                    )));
                }
            }
        }
    }
    Ok(out.map_or_else(Vec::new, |(_, d)| d.to_vec()))
}

impl Primitive for Betainc {
    fn tf_name(&self) -> &'static str {
        "Betainc"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(3)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (a, b, x) = (input(inputs, 0)?, input(inputs, 1)?, input(inputs, 2)?);
        for t in [b, x] {
            if t.dtype != a.dtype {
                return Err(Error::dtype_mismatch("Betainc", a.dtype, t.dtype));
            }
        }
        if !matches!(a.dtype, DType::F32 | DType::F64) {
            return Err(Error::unsupported_dtype("Betainc", a.dtype));
        }
        let dims = output_dims([&a.dims[..], &b.dims[..], &x.dims[..]])?;
        Ok(vec![TensorType { dtype: a.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        let out = self.infer(&types)?.remove(0);
        let dims: Vec<usize> = out.dims.iter().map(|d| d.unwrap_or(0)).collect();
        let shape = Shape::new(dims);
        let (a, b, x) = (inputs[0], inputs[1], inputs[2]);
        let buffer = match (a.buffer(), b.buffer(), x.buffer()) {
            (Buffer::F32(p), Buffer::F32(q), Buffer::F32(r)) => Buffer::F32(broadcast::zip3(
                p,
                a.shape(),
                q,
                b.shape(),
                r,
                x.shape(),
                &shape,
                |a, b, x| special_fns::betainc(a as f64, b as f64, x as f64) as f32,
            )?),
            (Buffer::F64(p), Buffer::F64(q), Buffer::F64(r)) => Buffer::F64(broadcast::zip3(
                p,
                a.shape(),
                q,
                b.shape(),
                r,
                x.shape(),
                &shape,
                special_fns::betainc,
            )?),
            _ => return Err(Error::unsupported_dtype("Betainc", a.dtype())),
        };
        Ok(vec![Tensor::from_buffer_unchecked(buffer, shape)])
    }

    /// Only x has a gradient (TensorFlow's BetaincGrad gives None for a and b):
    /// x^(a-1) (1-x)^(b-1) / B(a, b), in logs.
    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        use crate::ops::{BinaryOp, UnaryOp};
        let (a, b, x) = (&inputs[0], &inputs[1], &inputs[2]);
        let one = scalar_like(x, 1.0);
        let lg = |t: &Tensor| ops::unary(UnaryOp::Lgamma, t);
        let log_beta = ops::sub(&ops::add(&lg(a)?, &lg(b)?)?, &lg(&ops::add(a, b)?)?)?;
        let log1p_part = ops::binary(BinaryOp::Xlog1py, &ops::sub(b, &one)?, &ops::neg(x)?)?;
        let log_part = ops::binary(BinaryOp::Xlogy, &ops::sub(a, &one)?, x)?;
        let d = ops::exp(&ops::sub(&ops::add(&log1p_part, &log_part)?, &log_beta)?)?;
        let gx = ops::mul(g, &d)?;
        let others =
            [crate::autodiff::rules::operand_dims(a), crate::autodiff::rules::operand_dims(b)];
        Ok(vec![None, None, Some(crate::autodiff::rules::unbroadcast(&gx, x, &others)?)])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("special function: float64 continued fraction on the CPU"),
            differentiable: true,
            fusable: false,
        }
    }
}

impl Decode for Betainc {
    fn names() -> Vec<&'static str> {
        vec!["Betainc"]
    }

    fn decode(name: &str, _: &Attrs) -> Result<Betainc> {
        expect_name(name, "Betainc").map(|()| Betainc)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    let v = |s: &[f32]| Tensor::from_slice(s, &[s.len()]).unwrap();
    let inputs = vec![v(&[1.5, 2.0, 0.5]), v(&[2.0, 3.0, 1.0]), v(&[0.3, 0.5, 0.9])];
    vec![(crate::ops::registry::Op::Betainc(Betainc), inputs)]
}
