//! Fused batch normalisation (`FusedBatchNormV3`): a composite whose decomposition is the
//! textbook formula over every axis but the channels', and whose gradient is TensorFlow's
//! FusedBatchNormGradV3 written with ops. Statistics are computed in float32 (TensorFlow's `U`)
//! whatever the input's float type; `y` is cast back to it.

use super::composite::Composite;
use super::primitive::{describe_dims, input, TensorType};
use super::*;

/// Where the channels are: TensorFlow's `data_format` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BatchNormFormat {
    #[serde(rename = "NHWC")]
    Nhwc,
    #[serde(rename = "NCHW")]
    Nchw,
    #[serde(rename = "NDHWC")]
    Ndhwc,
    #[serde(rename = "NCDHW")]
    Ncdhw,
}

impl BatchNormFormat {
    pub fn parse(name: &str) -> Result<BatchNormFormat> {
        Ok(match name {
            "NHWC" => BatchNormFormat::Nhwc,
            "NCHW" => BatchNormFormat::Nchw,
            "NDHWC" => BatchNormFormat::Ndhwc,
            "NCDHW" => BatchNormFormat::Ncdhw,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "Value for attr 'data_format' of \"{name}\" is not in the list of allowed values: \"NHWC\", \"NCHW\", \"NDHWC\", \"NCDHW\" [Op:FusedBatchNormV3]"
                )))
            }
        })
    }

    fn rank(self) -> usize {
        match self {
            BatchNormFormat::Nhwc | BatchNormFormat::Nchw => 4,
            BatchNormFormat::Ndhwc | BatchNormFormat::Ncdhw => 5,
        }
    }

    fn channel_axis(self) -> usize {
        match self {
            BatchNormFormat::Nchw | BatchNormFormat::Ncdhw => 1,
            _ => self.rank() - 1,
        }
    }
}

/// FusedBatchNormV3's attributes.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BatchNorm {
    pub epsilon: f64,
    /// The running statistics' blend: `(1 - f) * running + f * batch` (training only).
    pub exponential_avg_factor: f64,
    pub data_format: BatchNormFormat,
    pub is_training: bool,
}

const OP: &str = "FusedBatchNormV3";

/// The statistics' type (TensorFlow's `U`).
const STATS: DType = DType::F32;

/// `tf.compat.v1.nn.fused_batch_norm`'s op. Inputs: x, scale, offset, mean, variance (the
/// running statistics; empty in training when the factor is 1). Outputs: y, the running mean
/// and variance (the batch's when training: its mean and Bessel-corrected variance, blended
/// with the inputs when the factor is not 1), reserve_space_1/2 (the batch mean and biased
/// variance when training, the given statistics otherwise) and an empty reserve_space_3.
pub fn fused_batch_norm(inputs: [&Tensor; 5], attrs: BatchNorm) -> Result<Vec<Tensor>> {
    crate::dispatch::apply(&Op::Composite(Composite::FusedBatchNormV3(attrs)), &inputs)
}

/// The shape rule, with TensorFlow's checks.
pub(crate) fn infer(attrs: &BatchNorm, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
    let x = input(inputs, 0)?;
    if !matches!(x.dtype, DType::F16 | DType::BF16 | DType::F32) {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, float [Op:{OP}]",
            x.dtype.name()
        )));
    }
    let rank = attrs.data_format.rank();
    if x.rank() != rank {
        return Err(Error::InvalidArgument(format!(
            "input must be {rank}-dimensional{} [Op:{OP}]",
            describe_dims(&x.dims)
        )));
    }
    let channels = x.dims[attrs.data_format.channel_axis()];
    let names = ["scale", "offset", "estimated_mean", "estimated_variance"];
    let u = input(inputs, 1)?.dtype;
    if u == DType::BF16 {
        return Err(Error::InvalidArgument(format!(
            "{OP} computes its statistics in float32: scale, offset, mean and variance must be float32, got bfloat16 [Op:{OP}]"
        )));
    }
    if u != STATS {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'U' of {} is not in the list of allowed values: bfloat16, float [Op:{OP}]",
            u.name()
        )));
    }
    for (k, name) in names.iter().enumerate() {
        let v = input(inputs, k + 1)?;
        if v.dtype != u {
            return Err(Error::InvalidArgument(format!(
                "cannot compute {OP} as input #{}(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{OP}]",
                k + 1,
                u.name(),
                v.dtype.name()
            )));
        }
        if v.rank() != 1 {
            return Err(Error::InvalidArgument(format!(
                "{name} must be 1-dimensional{} [Op:{OP}]",
                describe_dims(&v.dims)
            )));
        }
        // The running statistics are read only in inference or when blended.
        let read = k < 2 || !attrs.is_training || attrs.exponential_avg_factor != 1.0;
        if let (true, Some(c), Some(n)) = (read, channels, v.dims[0]) {
            if n != c {
                let (name, prefix) = match k {
                    0 | 1 => (*name, String::new()),
                    _ if attrs.is_training => (
                        &name["estimated_".len()..],
                        "When exponential_avg_factor != 1, ".to_string(),
                    ),
                    _ => (&name["estimated_".len()..], "When is_training=false, ".to_string()),
                };
                return Err(Error::InvalidArgument(format!(
                    "{prefix}{name} must have the same number of elements as the channels of x, got {n} and {c} [Op:{OP}]"
                )));
            }
        }
    }
    let stats = TensorType { dtype: u, dims: vec![channels] };
    let mut out = vec![x.clone()];
    out.extend(std::iter::repeat_n(stats, 4));
    out.push(TensorType { dtype: u, dims: vec![Some(0)] });
    Ok(out)
}

/// Every axis but the channels'.
fn batch_axes(attrs: &BatchNorm) -> Vec<i64> {
    let channel = attrs.data_format.channel_axis();
    (0..attrs.data_format.rank()).filter(|&a| a != channel).map(|a| a as i64).collect()
}

/// A `[C]` vector shaped to broadcast along `x`'s channel axis.
fn per_channel(v: &Tensor, attrs: &BatchNorm) -> Result<Tensor> {
    let trailing = attrs.data_format.rank() - 1 - attrs.data_format.channel_axis();
    let mut dims = vec![-1i64];
    dims.extend(std::iter::repeat_n(1, trailing));
    reshape(v, &dims)
}

/// rsqrt(variance + epsilon), the statistics' reciprocal standard deviation.
fn inverse_std(variance: &Tensor, epsilon: f64) -> Result<Tensor> {
    unary(UnaryOp::Rsqrt, &add(variance, &scalar_like(variance, epsilon))?)
}

/// The batch's mean and biased variance, kept broadcastable against `x` (in float32).
fn batch_moments(x: &Tensor, attrs: &BatchNorm) -> Result<(Tensor, Tensor)> {
    let axes = batch_axes(attrs);
    let mean = math::reduce_mean(x, Some(&axes), true)?;
    let variance = math::reduce_mean(&square(&sub(x, &mean)?)?, Some(&axes), true)?;
    Ok((mean, variance))
}

/// FusedBatchNormV3's decomposition.
pub(crate) fn forward(attrs: &BatchNorm, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
    infer(attrs, &types)?;
    let [x, scale, offset, mean, variance] = inputs else {
        return Err(Error::Internal(format!("{OP} takes 5 inputs")));
    };
    let xf = cast(x, STATS)?;
    let normalise = |mean: &Tensor, variance: &Tensor| -> Result<Tensor> {
        let factor = mul(&inverse_std(variance, attrs.epsilon)?, &per_channel(scale, attrs)?)?;
        let y = add(&mul(&sub(&xf, mean)?, &factor)?, &per_channel(offset, attrs)?)?;
        cast(&y, x.dtype())
    };
    let empty = zeros(&[0], STATS)?;
    if !attrs.is_training {
        let y = normalise(&per_channel(mean, attrs)?, &per_channel(variance, attrs)?)?;
        let (m, v) = ((*mean).clone(), (*variance).clone());
        return Ok(vec![y, m.clone(), v.clone(), m, v, empty]);
    }
    let (batch_mean, batch_var) = batch_moments(&xf, attrs)?;
    let y = normalise(&batch_mean, &batch_var)?;
    let c = [x.dims()[attrs.data_format.channel_axis()] as i64];
    let (batch_mean, batch_var) = (reshape(&batch_mean, &c)?, reshape(&batch_var, &c)?);
    // The running variance is the unbiased one; TensorFlow's kernel divides by n - 1 but
    // never by 0 (a single value per channel gives 0).
    let n = x.shape().num_elements() / x.dims()[attrs.data_format.channel_axis()].max(1);
    let bessel = n as f64 / n.saturating_sub(1).max(1) as f64;
    let unbiased = mul(&batch_var, &scalar_like(&batch_var, bessel))?;
    let f = attrs.exponential_avg_factor;
    let (running_mean, running_var) = if f == 1.0 {
        (batch_mean.clone(), unbiased)
    } else {
        let blend = |old: &Tensor, new: &Tensor| {
            add(&mul(old, &scalar_like(old, 1.0 - f))?, &mul(new, &scalar_like(new, f))?)
        };
        (blend(mean, &batch_mean)?, blend(variance, &unbiased)?)
    };
    Ok(vec![y, running_mean, running_var, batch_mean, batch_var, empty])
}

/// TensorFlow's FusedBatchNormGradV3, from y's gradient `g`: in training the batch statistics
/// depend on x (x_hat = (x - mean) * inv; dx = scale * inv * (g - mean(g) - x_hat *
/// mean(g * x_hat))); in inference they are constants. As in TensorFlow, the running
/// statistics get no gradient, and the outputs after y pass none back. The batch statistics
/// are recomputed from x rather than read from the reserve outputs, so that a second
/// derivative sees their dependence on x.
pub(crate) fn gradient(
    attrs: &BatchNorm,
    inputs: &[Tensor],
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let [x, scale, _, mean, variance] = inputs else {
        return Err(Error::Internal(format!("{OP}'s gradient takes 5 inputs")));
    };
    let (xf, g) = (cast(x, STATS)?, cast(g, STATS)?);
    let axes = batch_axes(attrs);
    let (mean, variance) = if attrs.is_training {
        batch_moments(&xf, attrs)?
    } else {
        (per_channel(mean, attrs)?, per_channel(variance, attrs)?)
    };
    let inv = inverse_std(&variance, attrs.epsilon)?;
    let x_hat = mul(&sub(&xf, &mean)?, &inv)?;
    let doffset = reduce_sum(&g, Some(&axes), false)?;
    let dscale = reduce_sum(&mul(&g, &x_hat)?, Some(&axes), false)?;
    let factor = mul(&inv, &per_channel(scale, attrs)?)?;
    let dx = if attrs.is_training {
        let n = x.shape().num_elements() / x.dims()[attrs.data_format.channel_axis()].max(1);
        let per_n = |t: &Tensor| -> Result<Tensor> {
            div(&per_channel(t, attrs)?, &scalar_like(t, n.max(1) as f64))
        };
        let centred = sub(&sub(&g, &per_n(&doffset)?)?, &mul(&x_hat, &per_n(&dscale)?)?)?;
        mul(&centred, &factor)?
    } else {
        mul(&g, &factor)?
    };
    Ok(vec![Some(cast(&dx, x.dtype())?), Some(dscale), Some(doffset), None, None])
}
