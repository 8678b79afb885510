//! Composite ops: one graph node each, named as TensorFlow names it (`Relu`, `MaxPool`, ...),
//! run by a decomposition into primitives and differentiated by one rule that tapes and graphs
//! share. They exist where TensorFlow's gradient is not the chain rule through the parts
//! (relu at 0, the first maximum of a pooling window, elu's saturated branch) or where a graph
//! should read like TensorFlow's; a backend may later run one directly.
//!
//! `dispatch::apply` runs the decomposition with tapes paused and tracing suspended, then
//! records the composite once: on tapes (gradient below) and, while tracing, as one node. A
//! traced function called under an outer tape therefore differentiates exactly as eager code.
//! Attributes hold what the user asked for (window, padding, alpha); sizes are worked out from
//! the inputs each time the node runs.

use super::batch_norm::{self, BatchNorm};
use super::conv::{self, Padding, Window};
use super::nn;
use super::primitive::{
    attrs_of, describe_dims, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive,
    TensorType,
};
use super::*;
use crate::autodiff::{record_custom, GradFn, Tape};
use serde_json::Value;

/// The composite ops and their attributes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Composite {
    Relu,
    Relu6,
    Elu,
    Selu,
    Softplus,
    LeakyRelu {
        alpha: f64,
    },
    Gelu {
        approximate: bool,
    },
    MaxPool {
        window: Window,
        padding: Padding,
    },
    AvgPool {
        window: Window,
        padding: Padding,
    },
    /// Inputs: image, filter.
    Conv2D {
        window: Window,
        padding: Padding,
    },
    /// Inputs: the image (for its dims), filter, output gradient.
    Conv2DBackpropInput {
        window: Window,
        padding: Padding,
    },
    /// Inputs: image, the filter (for its dims), output gradient.
    Conv2DBackpropFilter {
        window: Window,
        padding: Padding,
    },
    /// Inputs: image, filter `[KH, KW, C, M]`; each channel convolved with its own M filters.
    DepthwiseConv2dNative {
        window: Window,
        padding: Padding,
    },
    /// Inputs: x, scale, offset, mean, variance. Six outputs (`batch_norm::fused_batch_norm`).
    FusedBatchNormV3(BatchNorm),
    /// Inputs: value, bias (added along the channel axis).
    BiasAdd {
        channels_first: bool,
    },
    /// Inputs: logits, labels (probabilities), over the last axis.
    SoftmaxCrossEntropy,
    /// Inputs: logits, integer class labels.
    SparseSoftmaxCrossEntropy,
}

/// SELU's constants (Klambauer et al.), as TensorFlow's kernel uses them.
const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

impl Composite {
    /// TensorFlow's op name, as graphs and placement logs show it.
    pub fn tf_name(&self) -> &'static str {
        match self {
            Composite::Relu => "Relu",
            Composite::Relu6 => "Relu6",
            Composite::Elu => "Elu",
            Composite::Selu => "Selu",
            Composite::Softplus => "Softplus",
            Composite::LeakyRelu { .. } => "LeakyRelu",
            Composite::Gelu { .. } => "Gelu",
            Composite::MaxPool { .. } => "MaxPool",
            Composite::AvgPool { .. } => "AvgPool",
            Composite::Conv2D { .. } => "Conv2D",
            Composite::Conv2DBackpropInput { .. } => "Conv2DBackpropInput",
            Composite::Conv2DBackpropFilter { .. } => "Conv2DBackpropFilter",
            Composite::DepthwiseConv2dNative { .. } => "DepthwiseConv2dNative",
            Composite::FusedBatchNormV3(_) => "FusedBatchNormV3",
            Composite::BiasAdd { .. } => "BiasAdd",
            Composite::SoftmaxCrossEntropy => "SoftmaxCrossEntropyWithLogits",
            Composite::SparseSoftmaxCrossEntropy => "SparseSoftmaxCrossEntropyWithLogits",
        }
    }

    pub fn arity(&self) -> usize {
        match self {
            Composite::Conv2D { .. }
            | Composite::DepthwiseConv2dNative { .. }
            | Composite::BiasAdd { .. }
            | Composite::SoftmaxCrossEntropy
            | Composite::SparseSoftmaxCrossEntropy => 2,
            Composite::Conv2DBackpropInput { .. } | Composite::Conv2DBackpropFilter { .. } => 3,
            Composite::FusedBatchNormV3(_) => 5,
            _ => 1,
        }
    }

    /// The decomposition: what the node computes.
    pub(crate) fn forward(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let x = inputs[0];
        let zero = || scalar_like(x, 0.0);
        let y = match self {
            Composite::Relu => maximum(x, &zero()),
            Composite::Relu6 => minimum(&maximum(x, &zero())?, &scalar_like(x, 6.0)),
            Composite::Elu => select(&greater(x, &zero())?, x, &unary(UnaryOp::Expm1, x)?),
            Composite::Selu => {
                let neg = mul(&scalar_like(x, SELU_ALPHA), &unary(UnaryOp::Expm1, x)?)?;
                mul(&scalar_like(x, SELU_SCALE), &select(&greater(x, &zero())?, x, &neg)?)
            }
            // log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)).
            Composite::Softplus => add(&maximum(x, &zero())?, &log1p(&exp(&neg(&abs(x)?)?)?)?),
            Composite::LeakyRelu { alpha } => {
                select(&greater(x, &zero())?, x, &mul(x, &scalar_like(x, *alpha))?)
            }
            Composite::Gelu { approximate } => nn::gelu_composed(x, *approximate),
            Composite::MaxPool { window, padding } => conv::max_pool_composed(x, window, padding),
            Composite::AvgPool { window, padding } => conv::avg_pool_composed(x, window, padding),
            Composite::Conv2D { window, padding } => {
                conv::conv2d_composed(x, inputs[1], window, padding)
            }
            Composite::Conv2DBackpropInput { window, padding } => {
                conv::conv2d_backprop_input(x, inputs[1], inputs[2], window, padding)
            }
            Composite::Conv2DBackpropFilter { window, padding } => {
                conv::conv2d_backprop_filter(x, inputs[1], inputs[2], window, padding)
            }
            Composite::DepthwiseConv2dNative { window, padding } => {
                conv::depthwise_conv2d_composed(x, inputs[1], window, padding)
            }
            Composite::FusedBatchNormV3(attrs) => return batch_norm::forward(attrs, inputs),
            Composite::BiasAdd { channels_first } => {
                nn::bias_add_composed(x, inputs[1], *channels_first)
            }
            Composite::SoftmaxCrossEntropy => nn::softmax_cross_entropy_composed(x, inputs[1]),
            Composite::SparseSoftmaxCrossEntropy => {
                nn::sparse_softmax_cross_entropy_composed(x, inputs[1])
            }
        };
        Ok(vec![y?])
    }

    /// TensorFlow's registered gradient: the inputs' gradients from the output's `g`.
    pub(crate) fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let (x, y) = (&inputs[0], &outputs[0]);
        let zero = |t: &Tensor| scalar_like(t, 0.0);
        let grad = match self {
            // ReluGrad reads the output, as TensorFlow's does: g where y > 0, g * 0 elsewhere
            // and at the kink (where `maximum`'s rule gives 1). Reading y leaves the forward
            // pass's input alone, so a bias add before the activation can fuse with it.
            Composite::Relu => passing_where(&greater(y, &zero(y))?, g),
            Composite::Relu6 => {
                let inside = logical_and(&greater(y, &zero(y))?, &less(y, &scalar_like(y, 6.0))?)?;
                passing_where(&inside, g)
            }
            // EluGrad reads the output: g * (y + 1) where y < 0. Never exp(x) of a large x,
            // which would give inf * 0 = NaN on the branch `select` did not take.
            Composite::Elu => {
                let saturated = mul(g, &add(y, &scalar_like(y, 1.0))?)?;
                select(&less(y, &zero(y))?, &saturated, g)
            }
            Composite::Selu => {
                let scaled_alpha = scalar_like(y, SELU_SCALE * SELU_ALPHA);
                let negative = mul(g, &add(y, &scaled_alpha)?)?;
                select(&less(y, &zero(y))?, &negative, &mul(g, &scalar_like(g, SELU_SCALE))?)
            }
            // SoftplusGrad: g * sigmoid(x), also at 0 where the composition's kinks give 0.
            Composite::Softplus => mul(g, &sigmoid(x)?),
            Composite::LeakyRelu { alpha } => {
                select(&greater(x, &zero(x))?, g, &mul(g, &scalar_like(g, *alpha))?)
            }
            // MaxPoolGrad: each window's gradient goes to its first maximum.
            Composite::MaxPool { window, padding } => conv::max_pool_grad(x, g, window, padding),
            Composite::Conv2D { window, padding } => {
                let (f, w, p) = (&inputs[1], *window, padding.clone());
                let dx = composite(
                    Composite::Conv2DBackpropInput { window: w, padding: p.clone() },
                    &[x, f, g],
                )?;
                let df = composite(
                    Composite::Conv2DBackpropFilter { window: w, padding: p },
                    &[x, f, g],
                )?;
                return Ok(vec![Some(dx), Some(df)]);
            }
            // BiasAddGrad: the gradient summed over every axis but the channels'.
            Composite::BiasAdd { channels_first } => {
                let channel = if *channels_first { 1 } else { g.rank() - 1 };
                let others: Vec<i64> =
                    (0..g.rank() as i64).filter(|&a| a != channel as i64).collect();
                let db = reduce_sum(g, Some(&others), false)?;
                return Ok(vec![Some(g.clone()), Some(db)]);
            }
            // TensorFlow's: (softmax - labels) for the logits, -log_softmax for the labels.
            Composite::SoftmaxCrossEntropy => {
                let (labels, g) = (&inputs[1], expand_dims(g, -1)?);
                let dlogits = mul(&g, &sub(&nn::softmax(x, -1)?, labels)?)?;
                let dlabels = mul(&g, &neg(&nn::log_softmax(x, -1)?)?)?;
                return Ok(vec![Some(dlogits), Some(dlabels)]);
            }
            Composite::SparseSoftmaxCrossEntropy => {
                let (labels, g) = (&inputs[1], expand_dims(g, -1)?);
                let classes = x.dims()[x.rank() - 1];
                let (one, zero) = (scalar_like(x, 1.0), scalar_like(x, 0.0));
                let onehot = one_hot(labels, classes, &one, &zero, -1)?;
                let dlogits = mul(&g, &sub(&nn::softmax(x, -1)?, &onehot)?)?;
                return Ok(vec![Some(dlogits), None]);
            }
            // FusedBatchNormGradV3 (y's gradient only; the running statistics get none).
            Composite::FusedBatchNormV3(attrs) => return batch_norm::gradient(attrs, inputs, g),
            // The chain rule through the parts is TensorFlow's gradient here (the backprops are
            // linear in their operands; their own gradients are convolutions again).
            // DepthwiseConv2dNative's registered gradients are the DepthwiseConv2dNativeBackprop
            // {Input,Filter} ops; through the patches they are PatchesGrad of g times the
            // filter, and the patches times g summed over the windows: the same values.
            Composite::Gelu { .. }
            | Composite::AvgPool { .. }
            | Composite::DepthwiseConv2dNative { .. }
            | Composite::Conv2DBackpropInput { .. }
            | Composite::Conv2DBackpropFilter { .. } => {
                return through_decomposition(self, inputs, g)
            }
        };
        Ok(vec![Some(grad?)])
    }
}

impl Primitive for Composite {
    fn tf_name(&self) -> &'static str {
        Composite::tf_name(self)
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(Composite::arity(self))
    }

    /// Serde writes a variant with fields as `{"MaxPool": {fields}}` and one without as its
    /// bare name; the node's name already says which, so the attributes are the fields.
    fn attrs(&self) -> Attrs {
        match attrs_of(self).into_iter().next() {
            Some((_, Value::Object(fields))) => fields,
            _ => Attrs::new(),
        }
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        let name = Composite::tf_name(self);
        let out = match self {
            Composite::MaxPool { window, padding } | Composite::AvgPool { window, padding } => {
                pooled(x, window, padding, name)?
            }
            Composite::Conv2D { window, padding } => {
                convolved(x, input(inputs, 1)?, window, padding)?
            }
            Composite::DepthwiseConv2dNative { window, padding } => {
                depthwise(x, input(inputs, 1)?, window, padding)?
            }
            Composite::FusedBatchNormV3(attrs) => return batch_norm::infer(attrs, inputs),
            // Shaped like the image and the filter they were given for their dims.
            Composite::Conv2DBackpropInput { .. } => x.clone(),
            Composite::Conv2DBackpropFilter { .. } => input(inputs, 1)?.clone(),
            Composite::SoftmaxCrossEntropy | Composite::SparseSoftmaxCrossEntropy => {
                nn::check_logits(x.dtype, x.rank(), name)?;
                TensorType { dtype: x.dtype, dims: x.dims[..x.rank() - 1].to_vec() }
            }
            // The activations, and BiasAdd (the bias broadcasts along the channels).
            _ => x.clone(),
        };
        Ok(vec![out])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        if let Some(out) = conv::direct_cpu(self, inputs)? {
            return Ok(vec![out]);
        }
        self.forward(inputs)
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        Composite::gradient(self, inputs, outputs, g)
    }

    /// FusedBatchNormV3 reads y's gradient alone, as TensorFlow's registered gradient does;
    /// when only the statistics are differentiated, y's gradient is zeros (TensorFlow's tapes
    /// fill a missing output gradient so), not nothing.
    fn gradient_of_outputs(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        match (self, upstream.first()) {
            (Composite::FusedBatchNormV3(attrs), Some(None)) => {
                batch_norm::gradient(attrs, inputs, &zeros_like(&outputs[0])?)
            }
            (_, Some(Some(g))) => Composite::gradient(self, inputs, outputs, g),
            _ => Ok(vec![None; inputs.len()]),
        }
    }

    fn decisions(&self) -> Decisions {
        // Relu joins elementwise chains (a bias add and its activation become one pass);
        // the fused kernels compute it as its decomposition does, `maximum(x, 0)`.
        let fusable = matches!(self, Composite::Relu);
        Decisions { gpu: GpuKernel::Decomposed, differentiable: true, fusable }
    }
}

impl Decode for Composite {
    fn names() -> Vec<&'static str> {
        vec![
            "Relu",
            "Relu6",
            "Elu",
            "Selu",
            "Softplus",
            "LeakyRelu",
            "Gelu",
            "MaxPool",
            "AvgPool",
            "Conv2D",
            "Conv2DBackpropInput",
            "Conv2DBackpropFilter",
            "BiasAdd",
            "DepthwiseConv2dNative",
            "FusedBatchNormV3",
            "SoftmaxCrossEntropyWithLogits",
            "SparseSoftmaxCrossEntropyWithLogits",
        ]
    }

    /// The serde form back from the name (the variant) and the attributes (its fields).
    fn decode(name: &str, attrs: &Attrs) -> Result<Composite> {
        let variant = match name {
            "SoftmaxCrossEntropyWithLogits" => "SoftmaxCrossEntropy",
            "SparseSoftmaxCrossEntropyWithLogits" => "SparseSoftmaxCrossEntropy",
            other => other,
        };
        let tagged = if attrs.is_empty() {
            Value::String(variant.to_string())
        } else {
            Value::Object(Attrs::from_iter([(variant.to_string(), Value::Object(attrs.clone()))]))
        };
        serde_json::from_value(tagged).map_err(|e| {
            Error::DataLoss(format!("the attributes of a saved {name} node are invalid: {e}"))
        })
    }
}

/// A pooling's output: the windows' positions over the image, the channels kept.
fn pooled(x: &TensorType, w: &Window, padding: &Padding, op: &str) -> Result<TensorType> {
    let [n, rows, cols, c] = nhwc(x, op)?;
    let real = x.dtype != DType::Bool && !x.dtype.is_complex();
    if (op == "MaxPool" && !real) || (op == "AvgPool" && !x.dtype.is_floating()) {
        return Err(Error::unsupported_dtype(op, x.dtype));
    }
    let rows = output_size(rows, Some(w.kernel[0]), w, padding, 0, op)?;
    let cols = output_size(cols, Some(w.kernel[1]), w, padding, 1, op)?;
    Ok(TensorType { dtype: x.dtype, dims: vec![n, rows, cols, c] })
}

/// Conv2D's output `[N, OH, OW, C_out]`: the window's size is the filter's.
fn convolved(x: &TensorType, f: &TensorType, w: &Window, padding: &Padding) -> Result<TensorType> {
    let op = "Conv2D";
    let [n, rows, cols, c] = nhwc(x, op)?;
    if x.dtype == DType::Bool || x.dtype.is_complex() {
        return Err(Error::unsupported_dtype(op, x.dtype));
    }
    let &[kh, kw, cin, cout] = f.dims.as_slice() else {
        return Err(Error::InvalidArgument(format!(
            "filter must be 4-dimensional [height, width, in_channels, out_channels], got shape {} [Op:{op}]",
            describe_dims(&f.dims)
        )));
    };
    if f.dtype != x.dtype {
        return Err(Error::InvalidArgument(format!(
            "filter must have the input's dtype {}, got {} [Op:{op}]",
            x.dtype, f.dtype
        )));
    }
    if let (Some(c), Some(cin)) = (c, cin) {
        if c != cin {
            return Err(Error::InvalidArgument(format!(
                "input depth must be evenly divisible by filter depth: {c} vs {cin} (grouped convolutions are not supported) [Op:{op}]"
            )));
        }
    }
    let rows = output_size(rows, kh, w, padding, 0, op)?;
    let cols = output_size(cols, kw, w, padding, 1, op)?;
    Ok(TensorType { dtype: x.dtype, dims: vec![n, rows, cols, cout] })
}

/// DepthwiseConv2dNative's output `[N, OH, OW, C * M]`.
fn depthwise(x: &TensorType, f: &TensorType, w: &Window, padding: &Padding) -> Result<TensorType> {
    let op = "DepthwiseConv2dNative";
    let [n, rows, cols, c] = nhwc(x, op)?;
    if !x.dtype.is_floating() {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, float, double [Op:{op}]",
            x.dtype
        )));
    }
    let &[kh, kw, cin, m] = f.dims.as_slice() else {
        return Err(Error::InvalidArgument(format!(
            "filter must be 4-dimensional: {} [Op:{op}]",
            describe_dims(&f.dims)
        )));
    };
    if f.dtype != x.dtype {
        return Err(Error::InvalidArgument(format!(
            "cannot compute {op} as input #1(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{op}]",
            x.dtype, f.dtype
        )));
    }
    conv::check_depthwise_channels(c, cin, op)?;
    let rows = output_size(rows, kh, w, padding, 0, op)?;
    let cols = output_size(cols, kw, w, padding, 1, op)?;
    let channels = c.or(cin).zip(m).map(|(c, m)| c * m);
    Ok(TensorType { dtype: x.dtype, dims: vec![n, rows, cols, channels] })
}

fn nhwc(x: &TensorType, op: &str) -> Result<[Option<usize>; 4]> {
    match *x.dims.as_slice() {
        [n, h, w, c] => Ok([n, h, w, c]),
        _ => Err(Error::InvalidArgument(format!(
            "input must be 4-dimensional [batch, height, width, channels], got shape {} [Op:{op}]",
            describe_dims(&x.dims)
        ))),
    }
}

/// One spatial axis's output size, by `conv::geometry`'s rules: SAME gives ceil(size /
/// stride), VALID and explicit padding the count of strided window starts that fit.
fn output_size(
    size: Option<usize>,
    kernel: Option<usize>,
    w: &Window,
    padding: &Padding,
    axis: usize,
    op: &str,
) -> Result<Option<usize>> {
    let (s, d) = (w.strides[axis], w.dilations[axis]);
    if s == 0 || d == 0 || kernel == Some(0) {
        return Err(Error::InvalidArgument(format!(
            "window sizes, strides and dilations must be positive, got kernel {:?}, strides {:?}, dilations {:?} [Op:{op}]",
            w.kernel, w.strides, w.dilations
        )));
    }
    let (before, after) = match padding {
        Padding::Same => return Ok(size.map(|n| n.div_ceil(s))),
        Padding::Valid => (0, 0),
        Padding::Explicit(p) => p[axis],
    };
    let (Some(size), Some(k)) = (size, kernel) else { return Ok(None) };
    let span = (k - 1).saturating_mul(d).saturating_add(1);
    let padded = size.saturating_add(before).saturating_add(after);
    if padded < span {
        let negative = (padded as i64 - span as i64 + s as i64) / s as i64;
        return Err(Error::InvalidArgument(format!(
            "Computed output size would be negative: {negative} [input_size: {padded}, effective_filter_size: {span}, stride: {s}] [Op:{op}]"
        )));
    }
    Ok(Some((padded - span) / s + 1))
}

/// Every composite on small float32 inputs: activations around their kinks (not on them),
/// poolings and convolutions of each padding, consistent convolution gradients.
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use super::batch_norm::BatchNormFormat;
    use Composite as C;
    let acts = || Tensor::from_slice(&[-1.5f32, -0.25, 0.5, 1.0, 2.0, 7.0], &[2, 3]).unwrap();
    // Distinct values (7 is invertible modulo 17): no ties in a pooling window.
    let ramp = |dims: &[usize]| {
        let n: usize = dims.iter().product();
        let v: Vec<f32> = (0..n).map(|i| ((i * 7) % 17) as f32 * 0.25 - 2.0).collect();
        Tensor::from_slice(&v, dims).unwrap()
    };
    let w = |kernel, strides| Window { kernel, strides, dilations: [1, 1] };
    let (image, filter) = (|| ramp(&[1, 4, 4, 2]), || ramp(&[2, 2, 2, 3]));
    let logits = || Tensor::from_slice(&[2.0f32, 1.0, 0.1, 0.5, 2.5, 0.3], &[2, 3]).unwrap();
    let probs = Tensor::from_slice(&[0.2f32, 0.3, 0.5, 0.1, 0.6, 0.3], &[2, 3]).unwrap();
    let classes = Tensor::from_slice(&[0i32, 2], &[2]).unwrap();
    let bias = Tensor::from_slice(&[0.5f32, -1.0, 2.0], &[3]).unwrap();
    let valid = || w([2, 2], [1, 1]);
    let batch_norm = |data_format, is_training, exponential_avg_factor| BatchNorm {
        epsilon: 0.001,
        exponential_avg_factor,
        data_format,
        is_training,
    };
    // x with 2 channels (last, or first), scale, offset and running statistics of `stats`
    // entries (0: none, as training takes them).
    let norm_inputs = |channels_first: bool, stats: usize| {
        let x = if channels_first { ramp(&[2, 2, 3, 2]) } else { ramp(&[2, 3, 2, 2]) };
        let v = |values: &[f32]| Tensor::from_slice(&values[..stats], &[stats]).unwrap();
        let (scale, offset) = ([1.5f32, -0.5], [0.25f32, 1.0]);
        let (s, o) = (Tensor::from_slice(&scale, &[2]), Tensor::from_slice(&offset, &[2]));
        vec![x, s.unwrap(), o.unwrap(), v(&[0.5, -0.25]), v(&[2.0, 0.75])]
    };
    let examples = vec![
        (C::Relu, vec![acts()]),
        (C::Relu6, vec![acts()]),
        (C::Elu, vec![acts()]),
        (C::Selu, vec![acts()]),
        (C::Softplus, vec![acts()]),
        (C::LeakyRelu { alpha: 0.2 }, vec![acts()]),
        (C::Gelu { approximate: false }, vec![acts()]),
        (C::Gelu { approximate: true }, vec![acts()]),
        (
            C::MaxPool { window: w([2, 2], [2, 2]), padding: Padding::Valid },
            vec![ramp(&[1, 4, 4, 1])],
        ),
        (
            C::AvgPool { window: w([3, 3], [2, 2]), padding: Padding::Same },
            vec![ramp(&[1, 4, 4, 1])],
        ),
        (
            C::Conv2D { window: valid(), padding: Padding::Explicit([(1, 0), (0, 1)]) },
            vec![image(), filter()],
        ),
        (C::Conv2D { window: w([2, 2], [2, 2]), padding: Padding::Same }, vec![image(), filter()]),
        // The gradient of a VALID stride-1 convolution of a 4x4 image is 3x3.
        (
            C::Conv2DBackpropInput { window: valid(), padding: Padding::Valid },
            vec![image(), filter(), ramp(&[1, 3, 3, 3])],
        ),
        (
            C::Conv2DBackpropFilter { window: valid(), padding: Padding::Valid },
            vec![image(), filter(), ramp(&[1, 3, 3, 3])],
        ),
        // Two filters per channel, unpadded; one per channel, SAME, strided and dilated.
        (
            C::DepthwiseConv2dNative {
                window: valid(),
                padding: Padding::Explicit([(1, 0), (0, 1)]),
            },
            vec![image(), ramp(&[2, 2, 2, 2])],
        ),
        (
            C::DepthwiseConv2dNative {
                window: Window { kernel: [1, 1], strides: [2, 1], dilations: [1, 2] },
                padding: Padding::Same,
            },
            vec![image(), ramp(&[2, 2, 2, 1])],
        ),
        (C::FusedBatchNormV3(batch_norm(BatchNormFormat::Nhwc, true, 1.0)), norm_inputs(false, 0)),
        (C::FusedBatchNormV3(batch_norm(BatchNormFormat::Nchw, true, 0.5)), norm_inputs(true, 2)),
        (C::FusedBatchNormV3(batch_norm(BatchNormFormat::Nhwc, false, 1.0)), norm_inputs(false, 2)),
        (C::BiasAdd { channels_first: false }, vec![acts(), bias]),
        (C::SoftmaxCrossEntropy, vec![logits(), probs]),
        (C::SparseSoftmaxCrossEntropy, vec![logits(), classes]),
    ];
    examples
        .into_iter()
        .map(|(c, inputs)| (crate::ops::registry::Op::Composite(c), inputs))
        .collect()
}

/// Runs a composite: the one entry point ops use.
pub fn composite(c: Composite, inputs: &[&Tensor]) -> Result<Tensor> {
    crate::dispatch::apply1(&crate::dispatch::Op::Composite(c), inputs)
}

/// The upstream gradient where `mask` holds, `g * 0` elsewhere: TensorFlow's ReluGrad
/// multiplies by the mask, so a NaN or infinite gradient at an inactive unit stays NaN (and a
/// negative one gives -0). A select of zero there hid NaNs that TensorFlow propagates.
fn passing_where(mask: &Tensor, g: &Tensor) -> Result<Tensor> {
    select(mask, g, &mul(g, &scalar_like(g, 0.0))?)
}

/// The chain rule through the decomposition: the forward parts run again under a private tape
/// (outer tapes record them too, so higher derivatives follow).
fn through_decomposition(
    c: &Composite,
    inputs: &[Tensor],
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let tape = Tape::new(false, false);
    // Each input under its own identity (one tensor passed twice gets a gradient per slot),
    // which outer tapes see as an identity of the original: without it a second derivative
    // would lose the parts' dependence on the inputs (gelu's, a depthwise filter's).
    let pass: GradFn = std::sync::Arc::new(|_, _, upstream| Ok(vec![upstream[0].clone()]));
    let inputs: Vec<Tensor> = inputs
        .iter()
        .map(|t| {
            let mut copy = t.with_new_id();
            record_custom(&[t], std::slice::from_mut(&mut copy), pass.clone());
            copy
        })
        .collect();
    inputs.iter().for_each(|t| tape.watch(t));
    tape.push();
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let outputs = c.forward(&refs);
    tape.pop();
    let ids: Vec<u64> = inputs.iter().map(Tensor::id).collect();
    // `g` is the first output's gradient; a target without a seed would be seeded with ones.
    let first = outputs?.into_iter().take(1).collect::<Vec<_>>();
    tape.gradient(&first, &ids, &[Some(g.clone())])
}
