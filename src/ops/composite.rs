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

use super::conv::{self, Padding, Window};
use super::nn;
use super::*;
use crate::autodiff::Tape;

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
            Composite::BiasAdd { .. } => "BiasAdd",
            Composite::SoftmaxCrossEntropy => "SoftmaxCrossEntropyWithLogits",
            Composite::SparseSoftmaxCrossEntropy => "SparseSoftmaxCrossEntropyWithLogits",
        }
    }

    pub fn arity(&self) -> usize {
        match self {
            Composite::Conv2D { .. }
            | Composite::BiasAdd { .. }
            | Composite::SoftmaxCrossEntropy
            | Composite::SparseSoftmaxCrossEntropy => 2,
            Composite::Conv2DBackpropInput { .. } | Composite::Conv2DBackpropFilter { .. } => 3,
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
            // ReluGrad: passes where x > 0 (0 at the kink, where `maximum`'s rule gives 1).
            Composite::Relu => passing_where(&greater(x, &zero(x))?, g),
            Composite::Relu6 => {
                let inside = logical_and(&greater(x, &zero(x))?, &less(x, &scalar_like(x, 6.0))?)?;
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
            // The chain rule through the parts is TensorFlow's gradient here (the backprops are
            // linear in their operands; their own gradients are convolutions again).
            Composite::Gelu { .. }
            | Composite::AvgPool { .. }
            | Composite::Conv2DBackpropInput { .. }
            | Composite::Conv2DBackpropFilter { .. } => {
                return through_decomposition(self, inputs, g)
            }
        };
        Ok(vec![Some(grad?)])
    }
}

/// Runs a composite: the one entry point ops use.
pub fn composite(c: Composite, inputs: &[&Tensor]) -> Result<Tensor> {
    crate::dispatch::apply1(&crate::dispatch::Op::Composite(c), inputs)
}

/// The upstream gradient where `mask` holds, zero elsewhere.
fn passing_where(mask: &Tensor, g: &Tensor) -> Result<Tensor> {
    select(mask, g, &fill(&[], &scalar_like(g, 0.0))?)
}

/// The chain rule through the decomposition: the forward parts run again under a private tape
/// (outer tapes record them too, so higher derivatives follow).
fn through_decomposition(
    c: &Composite,
    inputs: &[Tensor],
    g: &Tensor,
) -> Result<Vec<Option<Tensor>>> {
    let tape = Tape::new(false, false);
    let inputs: Vec<Tensor> = inputs.iter().map(Tensor::with_new_id).collect();
    inputs.iter().for_each(|t| tape.watch(t));
    tape.push();
    let refs: Vec<&Tensor> = inputs.iter().collect();
    let outputs = c.forward(&refs);
    tape.pop();
    let ids: Vec<u64> = inputs.iter().map(Tensor::id).collect();
    tape.gradient(&outputs?, &ids, &[Some(g.clone())])
}
