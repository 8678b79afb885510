//! `tf.nn` functions composed from primitives: activations, softmax, cross-entropies, moments.

use super::composite::{composite, Composite};
use super::math::reduce_mean;
use super::primitive::{
    input, same_type, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use super::shape_input::ShapeArg;
use super::*;

/// The `Softmax` (or `LogSoftmax`) primitive over the last axis of a float tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Softmax {
    pub log: bool,
}

impl Primitive for Softmax {
    fn tf_name(&self) -> &'static str {
        if self.log {
            "LogSoftmax"
        } else {
            "Softmax"
        }
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    /// The name says which: there are no attributes.
    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        check_logits(x.dtype, x.rank(), self.tf_name())?;
        Ok(same_type(x))
    }

    /// float32 and float64 run one pass per row (max, exp-sum, scale) in parallel over rows;
    /// the half types run the composition (its primitives widen them).
    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let x = inputs[0];
        let fused = match x.dtype() {
            DType::F32 => Some(softmax_rows::<f32>(x, self.log)?),
            DType::F64 => Some(softmax_rows::<f64>(x, self.log)?),
            _ => None,
        };
        Ok(vec![match fused {
            Some(y) => y,
            None if self.log => log_softmax_composed(x, -1)?,
            None => softmax_composed(x, -1)?,
        }])
    }

    fn gradient(
        &self,
        _: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(crate::autodiff::rules::reduce::softmax(self.log, &outputs[0], g)?)])
    }

    /// float32 (and float16, widened); other dtypes fall back to the CPU.
    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for Softmax {
    fn names() -> Vec<&'static str> {
        vec!["Softmax", "LogSoftmax"]
    }

    fn decode(name: &str, _: &Attrs) -> Result<Softmax> {
        match name {
            "Softmax" => Ok(Softmax { log: false }),
            "LogSoftmax" => Ok(Softmax { log: true }),
            _ => Err(Error::Internal(format!("Softmax cannot decode a {name} node"))),
        }
    }
}

// The activations whose TensorFlow gradient is a rule of its own are composite nodes
// (`composite.rs` holds their decompositions and rules).

pub fn relu(x: &Tensor) -> Result<Tensor> {
    composite(Composite::Relu, &[x])
}

pub fn relu6(x: &Tensor) -> Result<Tensor> {
    composite(Composite::Relu6, &[x])
}

/// Integer inputs are computed in float32, as TensorFlow's leaky_relu casts them.
pub fn leaky_relu(x: &Tensor, alpha: f64) -> Result<Tensor> {
    if x.dtype().is_integer() {
        return leaky_relu(&cast(x, DType::F32)?, alpha);
    }
    composite(Composite::LeakyRelu { alpha }, &[x])
}

pub fn elu(x: &Tensor) -> Result<Tensor> {
    composite(Composite::Elu, &[x])
}

pub fn selu(x: &Tensor) -> Result<Tensor> {
    composite(Composite::Selu, &[x])
}

/// Exact gelu `x/2 (1 + erf(x/sqrt 2))`, or the tanh approximation.
pub fn gelu(x: &Tensor, approximate: bool) -> Result<Tensor> {
    composite(Composite::Gelu { approximate }, &[x])
}

pub(crate) fn gelu_composed(x: &Tensor, approximate: bool) -> Result<Tensor> {
    let half = mul(&scalar_like(x, 0.5), x)?;
    if approximate {
        let c = scalar_like(x, (2.0 / std::f64::consts::PI).sqrt());
        let cube = mul(&scalar_like(x, 0.044715), &pow(x, &scalar_like(x, 3.0))?)?;
        let t = tanh(&mul(&c, &add(x, &cube)?)?)?;
        mul(&half, &add(&scalar_like(x, 1.0), &t)?)
    } else {
        let e = erf(&mul(x, &scalar_like(x, std::f64::consts::FRAC_1_SQRT_2))?)?;
        mul(&half, &add(&scalar_like(x, 1.0), &e)?)
    }
}

/// log(1 + exp(x)), with TensorFlow's SoftplusGrad (sigmoid(x)).
pub fn softplus(x: &Tensor) -> Result<Tensor> {
    composite(Composite::Softplus, &[x])
}

/// Softmax over `axis`: the `Softmax` primitive (one fused GPU kernel; the CPU runs the
/// composition below).
pub fn softmax(x: &Tensor, axis: i64) -> Result<Tensor> {
    softmax_over(x, axis, false)
}

pub fn log_softmax(x: &Tensor, axis: i64) -> Result<Tensor> {
    softmax_over(x, axis, true)
}

/// The `Softmax`/`LogSoftmax` primitive over the last axis; another axis is swapped there and
/// back, as TensorFlow's graphs do.
fn softmax_over(x: &Tensor, axis: i64, log: bool) -> Result<Tensor> {
    check_float(x, if log { "LogSoftmax" } else { "Softmax" })?;
    let last = x.rank() as i64 - 1;
    let op = crate::dispatch::Op::Softmax(Softmax { log });
    if crate::shape::normalize_axis(axis, x.rank())? as i64 == last {
        return crate::dispatch::apply1(&op, &[x]);
    }
    let y = crate::dispatch::apply1(&op, &[&swap_axes(x, axis, last)?])?;
    swap_axes(&y, axis, last)
}

/// Softmax (or log-softmax) of each last-axis row of a contiguous float tensor, as
/// TensorFlow's Eigen kernel computes it: shift by the row's max, exponentiate, divide by the
/// sum (log: subtract the sum's log).
fn softmax_rows<T: Element + crate::element::FloatElem + Send + Sync>(
    x: &Tensor,
    log: bool,
) -> Result<Tensor> {
    use rayon::prelude::*;
    let values = x.to_vec::<T>()?;
    let row = x.shape().dims().last().copied().unwrap_or(1);
    let mut out = values;
    if row > 0 && !out.is_empty() {
        let rows_per_task = (crate::kernels::parallel::GRAIN / row).max(1);
        out.par_chunks_mut(rows_per_task * row).for_each(|chunk| {
            for r in chunk.chunks_mut(row) {
                let max = r.iter().fold(T::neg_infinity(), |m, &v| if v > m { v } else { m });
                let mut sum = <T as crate::element::Num>::zero();
                if log {
                    for v in r.iter() {
                        sum = sum + (*v - max).tf_exp();
                    }
                    // (x - max) - log(sum): folding max into the log first loses the
                    // difference's digits when max is large.
                    let log_sum = sum.ln();
                    r.iter_mut().for_each(|v| *v = (*v - max) - log_sum);
                } else {
                    // Exponentiate first (the loop vectorises), then sum in order.
                    r.iter_mut().for_each(|v| *v = (*v - max).tf_exp());
                    for v in r.iter() {
                        sum = sum + *v;
                    }
                    r.iter_mut().for_each(|v| *v = *v / sum);
                }
            }
        });
    }
    Ok(Tensor::from_vec(out, x.shape().clone()))
}

/// max-shifted exp over the sum: the CPU path of the `Softmax` primitive and other axes.
pub fn softmax_composed(x: &Tensor, axis: i64) -> Result<Tensor> {
    let shifted = sub(x, &reduce(ReduceOp::Max, x, Some(&[axis]), true)?)?;
    let e = exp(&shifted)?;
    div(&e, &reduce_sum(&e, Some(&[axis]), true)?)
}

pub fn log_softmax_composed(x: &Tensor, axis: i64) -> Result<Tensor> {
    let shifted = sub(x, &reduce(ReduceOp::Max, x, Some(&[axis]), true)?)?;
    sub(&shifted, &log(&reduce_sum(&exp(&shifted)?, Some(&[axis]), true)?)?)
}

fn check_float(x: &Tensor, op: &str) -> Result<()> {
    check_logits(x.dtype(), x.rank(), op)
}

/// Softmax and the cross-entropies take float logits with a class axis.
pub(crate) fn check_logits(dtype: DType, rank: usize, op: &str) -> Result<()> {
    if !dtype.is_floating() {
        return Err(Error::unsupported_dtype(op, dtype));
    }
    if rank == 0 {
        return Err(Error::InvalidArgument(format!(
            "logits must have >= 1 dimension, got shape () [Op:{op}]"
        )));
    }
    Ok(())
}

/// A `SoftmaxCrossEntropyWithLogits` node over the last axis (other axes are moved there first,
/// as TensorFlow does); its gradient is TensorFlow's `softmax - labels`.
pub fn softmax_cross_entropy_with_logits(
    labels: &Tensor,
    logits: &Tensor,
    axis: i64,
) -> Result<Tensor> {
    if labels.shape() != logits.shape() {
        return Err(Error::InvalidArgument(format!(
            "logits and labels must be broadcastable: logits_size={} labels_size={} [Op:SoftmaxCrossEntropyWithLogits]",
            logits.shape(),
            labels.shape()
        )));
    }
    check_float(logits, "SoftmaxCrossEntropyWithLogits")?;
    let last = logits.rank() as i64 - 1;
    if crate::shape::normalize_axis(axis, logits.rank())? as i64 != last {
        let (labels, logits) = (swap_axes(labels, axis, last)?, swap_axes(logits, axis, last)?);
        return softmax_cross_entropy_with_logits(&labels, &logits, -1);
    }
    composite(Composite::SoftmaxCrossEntropy, &[logits, labels])
}

/// `x` with axes `a` and `b` exchanged.
fn swap_axes(x: &Tensor, a: i64, b: i64) -> Result<Tensor> {
    let rank = x.rank();
    let (a, b) = (normalize_axis(a, rank)?, normalize_axis(b, rank)?);
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(a, b);
    transpose(x, Some(&perm))
}

pub(crate) fn softmax_cross_entropy_composed(logits: &Tensor, labels: &Tensor) -> Result<Tensor> {
    let ls = log_softmax(logits, -1)?;
    neg(&reduce_sum(&mul(labels, &ls)?, Some(&[-1]), false)?)
}

/// A `SparseSoftmaxCrossEntropyWithLogits` node: labels are class indices, checked when the node
/// runs (in a traced function, on every call).
pub fn sparse_softmax_cross_entropy_with_logits(
    labels: &Tensor,
    logits: &Tensor,
) -> Result<Tensor> {
    if labels.rank() + 1 != logits.rank() || logits.dims()[..labels.rank()] != *labels.dims() {
        return Err(Error::InvalidArgument(format!(
            "labels shape {} must equal logits shape {} without its last dimension [Op:SparseSoftmaxCrossEntropyWithLogits]",
            labels.shape(),
            logits.shape()
        )));
    }
    composite(Composite::SparseSoftmaxCrossEntropy, &[logits, labels])
}

pub(crate) fn sparse_softmax_cross_entropy_composed(
    logits: &Tensor,
    labels: &Tensor,
) -> Result<Tensor> {
    let classes = logits.dims()[logits.rank() - 1] as i64;
    let bad = reduce(
        ReduceOp::Any,
        &logical_or(
            &less(labels, &scalar_like(labels, 0.0))?,
            &greater_equal(labels, &scalar_like(labels, classes as f64))?,
        )?,
        None,
        false,
    )?;
    if bad.to_vec::<bool>()?[0] {
        return Err(Error::InvalidArgument(format!(
            "Received a label value outside the valid range of [0, {classes}) [Op:SparseSoftmaxCrossEntropyWithLogits]"
        )));
    }
    let ls = log_softmax(logits, -1)?;
    let picked = gather(&ls, &expand_dims(labels, -1)?, -1, labels.rank() as i64)?;
    neg(&squeeze(&picked, Some(&[-1]))?)
}

/// max(x, 0) - x * z + log(1 + exp(-|x|)), TensorFlow's stable form.
pub fn sigmoid_cross_entropy_with_logits(labels: &Tensor, logits: &Tensor) -> Result<Tensor> {
    if labels.shape() != logits.shape() {
        return Err(Error::Value(format!(
            "logits and labels must have the same shape, received ({} vs {}).",
            logits.shape().tf_string(),
            labels.shape().tf_string()
        )));
    }
    // TensorFlow's composition, selects included: at logits == 0 its gradient is
    // sigmoid(0) - labels, where relu's and abs's kinks would give -labels - 1/2.
    let positive = greater_equal(logits, &scalar_like(logits, 0.0))?;
    let zeros = zeros_like(logits)?;
    let relu_logits = select(&positive, logits, &zeros)?;
    let neg_abs_logits = select(&positive, &neg(logits)?, logits)?;
    let t = sub(&relu_logits, &mul(logits, labels)?)?;
    add(&t, &log1p(&exp(&neg_abs_logits)?)?)
}

pub fn l2_loss(x: &Tensor) -> Result<Tensor> {
    div(&reduce_sum(&square(x)?, None, false)?, &scalar_like(x, 2.0))
}

pub fn bias_add(x: &Tensor, bias: &Tensor, channels_first: bool) -> Result<Tensor> {
    if bias.rank() != 1 || x.rank() < 2 {
        return Err(Error::InvalidArgument(format!(
            "Biases must be 1D and value at least 2D: bias {} value {} [Op:BiasAdd]",
            bias.shape(),
            x.shape()
        )));
    }
    let axis = if channels_first { 1 } else { x.rank() - 1 };
    if x.dims()[axis] != bias.dims()[0] {
        return Err(Error::InvalidArgument(format!(
            "Must provide as many biases as the channel dimension of the input tensor: {} vs. {} in {} [Op:BiasAdd]",
            bias.dims()[0],
            x.dims()[axis],
            x.shape()
        )));
    }
    composite(Composite::BiasAdd { channels_first }, &[x, bias])
}

pub(crate) fn bias_add_composed(x: &Tensor, bias: &Tensor, channels_first: bool) -> Result<Tensor> {
    let axis = if channels_first { 1 } else { x.rank() - 1 };
    let mut dims = vec![1i64; x.rank() - axis];
    dims[0] = bias.dims()[0] as i64;
    add(x, &reshape(bias, &dims)?)
}

/// Inverted dropout: keeps each element with probability 1 - rate and scales it by 1/(1 - rate).
pub fn dropout(
    x: &Tensor,
    rate: f64,
    noise_shape: Option<ShapeArg>,
    seed: Option<i64>,
) -> Result<Tensor> {
    if !(0.0..1.0).contains(&rate) {
        return Err(Error::Value(format!(
            "rate must be a scalar tensor or a float in the range [0, 1), got {rate}"
        )));
    }
    if !x.dtype().is_floating() {
        return Err(Error::Value(format!("x has to be a floating point tensor since it's going to be scaled. Got a {} tensor instead.", x.dtype())));
    }
    if rate == 0.0 {
        return Ok(x.clone());
    }
    // The mask takes `x`'s shape (or a traced noise shape) when the node runs where a size is
    // known only then.
    let shape = match noise_shape {
        Some(s) => s,
        None => static_shape::shape_arg_of(x)?,
    };
    let unit = random::Distribution::Uniform { minval: 0.0, maxval: 1.0 };
    let (stream, dtype) = (random::next_stream(seed), x.dtype());
    let u = shape.apply(&[], |dims| random::spec(unit, &Shape::checked(dims)?, dtype, stream))?;
    let keep = greater_equal(&u, &scalar_like(x, rate))?;
    let scaled = mul(x, &scalar_like(x, 1.0 / (1.0 - rate)))?;
    select(&keep, &scaled, &scalar_like(x, 0.0))
}

/// (mean, variance) over `axes`.
pub fn moments(x: &Tensor, axes: &[i64], keepdims: bool) -> Result<(Tensor, Tensor)> {
    let mean = reduce_mean(x, Some(axes), true)?;
    let var = reduce_mean(&math::squared_difference(x, &mean)?, Some(axes), keepdims)?;
    let mean = if keepdims { mean } else { squeeze(&mean, Some(axes))? };
    Ok((mean, var))
}

/// Both primitives over the last axis of a matrix.
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    let x = || Tensor::from_slice(&[1.0f32, 2.0, 3.0, -1.0, 0.5, 0.25], &[2, 3]).unwrap();
    [false, true]
        .into_iter()
        .map(|log| (crate::ops::registry::Op::Softmax(Softmax { log }), vec![x()]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_of_the_seeds_tensor() {
        let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let s = softmax(&x, -1).unwrap().to_vec::<f32>().unwrap();
        let want = [0.09003057f32, 0.24472848, 0.6652409];
        for (got, want) in s.iter().zip(want.iter().chain(want.iter())) {
            assert!((got - want).abs() < 1e-7, "{got} vs {want}");
        }
    }

    #[test]
    fn sparse_cross_entropy_equals_dense() {
        let logits = Tensor::from_slice(&[2.0f32, 1.0, 0.1, 0.5, 2.5, 0.3], &[2, 3]).unwrap();
        let labels = Tensor::from_slice(&[0i32, 1], &[2]).unwrap();
        let onehot = Tensor::from_slice(&[1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0], &[2, 3]).unwrap();
        let a = sparse_softmax_cross_entropy_with_logits(&labels, &logits)
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        let b = softmax_cross_entropy_with_logits(&onehot, &logits, -1)
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-6);
        }
        let bad = Tensor::from_slice(&[0i32, 3], &[2]).unwrap();
        assert!(sparse_softmax_cross_entropy_with_logits(&bad, &logits).is_err());
    }
}
