//! `Range` and `Fill`: tensors made from scalars.

use crate::dtype::DTypeSet;
use crate::element::{Element, Num};
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, dims_of, expect_name, from_attrs, input, Arity, Attrs, Decisions,
    Decode, GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::with_real;

/// `tf.range`. Inputs: the scalars start, limit and delta.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Range;

/// A tensor of this shape filled with the scalar input.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct Fill(pub Shape);

impl Primitive for Range {
    fn tf_name(&self) -> &'static str {
        "Range"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(3)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    /// The length depends on the values: it stays unknown.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let start = input(inputs, 0)?;
        let (limit, delta) = (input(inputs, 1)?, input(inputs, 2)?);
        for other in [limit, delta] {
            if other.dtype != start.dtype {
                return Err(Error::dtype_mismatch("Range", start.dtype, other.dtype));
            }
        }
        if !DTypeSet::REAL.contains(start.dtype) {
            return Err(Error::unsupported_dtype("Range", start.dtype));
        }
        for (name, t) in [("start", start), ("limit", limit), ("delta", delta)] {
            scalar(name, t, "Range")?;
        }
        Ok(vec![TensorType { dtype: start.dtype, dims: vec![None] }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![range(inputs[0], inputs[1], inputs[2])?])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: false, fusable: false }
    }
}

impl Decode for Range {
    fn names() -> Vec<&'static str> {
        vec!["Range"]
    }

    /// A unit struct reads back from no attributes (serde would want `null`).
    fn decode(name: &str, _attrs: &Attrs) -> Result<Self> {
        expect_name(name, "Range")?;
        Ok(Range)
    }
}

impl Primitive for Fill {
    fn tf_name(&self) -> &'static str {
        "Fill"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let value = input(inputs, 0)?;
        scalar("value", value, "Fill")?;
        Ok(vec![TensorType { dtype: value.dtype, dims: dims_of(&self.0) }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![fill(&self.0, inputs[0])?])
    }

    /// Every element is the one value.
    fn gradient(
        &self,
        _inputs: &[Tensor],
        _outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(crate::ops::reduce_sum(g, None, false)?)])
    }

    fn bakes_shape(&self) -> bool {
        true
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for Fill {
    fn names() -> Vec<&'static str> {
        vec!["Fill"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_attrs(name, attrs)
    }
}

/// A known dimension other than 1 rules out a single element.
fn scalar(name: &str, t: &TensorType, op: &str) -> Result<()> {
    if t.dims.iter().all(|&d| d.is_none_or(|d| d == 1)) {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "{name} must be a scalar, not shape {} [Op:{op}]",
        describe_dims(&t.dims)
    )))
}

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
    // Integers compare exactly; floats by value (`exact` truncates them: 0.5 and -0.4 are both 0).
    let empty_ok = if dtype.is_integer() { exact(start) == exact(limit) } else { s == l };
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

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    vec![
        (
            Op::Range(Range),
            vec![Tensor::scalar(0.5f32), Tensor::scalar(4.0f32), Tensor::scalar(1.5f32)],
        ),
        (
            Op::Range(Range),
            vec![Tensor::scalar(10i32), Tensor::scalar(0i32), Tensor::scalar(-3i32)],
        ),
        (Op::Fill(Fill(Shape(vec![2, 3]))), vec![Tensor::scalar(2.5f32)]),
    ]
}
