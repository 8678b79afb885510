//! Neural-network ops: convolutions, pooling, bias and activations. ferroflow's convolutions
//! and poolings are NHWC; an attribute asking for another layout, or strides, dilations or
//! padding along the batch or channel axis, is `UnimplementedError`, never ignored.

use super::op_call::{one, OpCall};
use super::run_function::Value;
use crate::error::Result;
use crate::ops::conv::{self, Padding, Window};
use crate::ops::nn;
use crate::tensor::Tensor;

pub fn run(c: &OpCall) -> Result<Option<Vec<Value>>> {
    let attrs = c.attrs;
    match c.op() {
        "Conv2D" | "DepthwiseConv2dNative" => {
            c.arity(2)?;
            nhwc_only(c)?;
            let window = Window {
                kernel: [1, 1], // the filter's own sizes are used
                strides: spatial(c, "strides")?,
                dilations: spatial(c, "dilations")?,
            };
            let padding = padding(c)?;
            let (x, filter) = (c.tensor(0)?, c.tensor(1)?);
            one(if c.op() == "Conv2D" {
                grouped_conv2d(x, filter, &window, &padding)?
            } else {
                conv::depthwise_conv2d(x, filter, &window, &padding)?
            })
        }
        "MaxPool" | "AvgPool" => {
            c.arity(1)?;
            nhwc_only(c)?;
            let window = Window {
                kernel: spatial(c, "ksize")?,
                strides: spatial(c, "strides")?,
                dilations: [1, 1],
            };
            let padding = padding(c)?;
            one(if c.op() == "MaxPool" {
                conv::max_pool2d(c.tensor(0)?, &window, &padding)?
            } else {
                conv::avg_pool2d(c.tensor(0)?, &window, &padding)?
            })
        }
        "BiasAdd" => {
            c.arity(2)?;
            let channels_first = match attrs.string("data_format")?.as_str() {
                "NHWC" => false,
                "NCHW" => true,
                other => return Err(c.unsupported("data_format", other)),
            };
            one(nn::bias_add(c.tensor(0)?, c.tensor(1)?, channels_first)?)
        }
        "Relu" | "Relu6" | "Softmax" | "LogSoftmax" | "Softplus" | "Elu" | "Selu" => {
            c.arity(1)?;
            one(activation(c, c.tensor(0)?)?)
        }
        "LeakyRelu" => {
            c.arity(1)?;
            let alpha = match attrs.value("alpha")? {
                crate::proto::tensorflow::attr_value::Value::F(a) => f64::from(*a),
                _ => return Err(c.invalid("alpha is not a float")),
            };
            one(nn::leaky_relu(c.tensor(0)?, alpha)?)
        }
        _ => Ok(None),
    }
}

/// A Conv2D whose filter has fewer input channels than the image (Keras's `groups`): the
/// image's channels and the filter's outputs split into as many groups, each convolved
/// alone, the results concatenated in order, as TensorFlow's grouped convolution does. One
/// input channel per group (ConvNeXt's) is a depthwise convolution with `filters / groups`
/// filters per channel, which orders its outputs the same way: one op, not one per channel.
fn grouped_conv2d(
    x: &Tensor,
    filter: &Tensor,
    window: &Window,
    padding: &Padding,
) -> Result<Tensor> {
    let (channels, depth) = match (x.dims(), filter.dims()) {
        (&[_, _, _, c], &[_, _, d, _]) => (c, d),
        _ => return conv::conv2d(x, filter, window, padding), // its own shape errors
    };
    let groups = channels.checked_div(depth).unwrap_or(1);
    if groups <= 1 || !channels.is_multiple_of(depth) || !filter.dims()[3].is_multiple_of(groups) {
        return conv::conv2d(x, filter, window, padding);
    }
    if depth == 1 {
        let f = filter.dims();
        let shape = [f[0], f[1], groups, f[3] / groups].map(|d| d as i64);
        let depthwise = crate::ops::reshape(filter, &shape)?;
        return conv::depthwise_conv2d(x, &depthwise, window, padding);
    }
    let images = crate::ops::split_even(x, groups, 3)?;
    let filters = crate::ops::split_even(filter, groups, 3)?;
    let parts = images
        .iter()
        .zip(&filters)
        .map(|(x, f)| conv::conv2d(x, f, window, padding))
        .collect::<Result<Vec<_>>>()?;
    crate::ops::concat(&parts.iter().collect::<Vec<_>>(), 3)
}

fn activation(c: &OpCall, x: &Tensor) -> Result<Tensor> {
    match c.op() {
        "Relu" => nn::relu(x),
        "Relu6" => nn::relu6(x),
        "Softmax" => nn::softmax(x, -1),
        "LogSoftmax" => nn::log_softmax(x, -1),
        "Softplus" => nn::softplus(x),
        "Elu" => nn::elu(x),
        _ => nn::selu(x),
    }
}

fn nhwc_only(c: &OpCall) -> Result<()> {
    match c.attrs.string("data_format")?.as_str() {
        "NHWC" => Ok(()),
        other => Err(c.unsupported("data_format", other)),
    }
}

/// The two spatial entries of an NHWC `[1, rows, cols, 1]` attribute.
fn spatial(c: &OpCall, name: &str) -> Result<[usize; 2]> {
    let values = c.attrs.ints(name)?;
    match values.as_slice() {
        &[1, r, w, 1] if r > 0 && w > 0 => Ok([r as usize, w as usize]),
        _ => Err(c.unsupported(name, values)),
    }
}

fn padding(c: &OpCall) -> Result<Padding> {
    match c.attrs.string("padding")?.as_str() {
        "SAME" => Ok(Padding::Same),
        "VALID" => Ok(Padding::Valid),
        "EXPLICIT" => {
            let p = c.attrs.ints("explicit_paddings")?;
            let side = |v: i64| usize::try_from(v).ok();
            match p.as_slice() {
                &[0, 0, t, b, l, r, 0, 0] => match (side(t), side(b), side(l), side(r)) {
                    (Some(t), Some(b), Some(l), Some(r)) => Ok(Padding::Explicit([(t, b), (l, r)])),
                    _ => Err(c.unsupported("explicit_paddings", p)),
                },
                _ => Err(c.unsupported("explicit_paddings", p)),
            }
        }
        other => Err(c.unsupported("padding", other)),
    }
}
