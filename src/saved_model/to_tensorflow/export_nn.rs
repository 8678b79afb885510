//! Composite primitives (activations, convolutions, pooling, batch normalisation) as
//! TensorFlow's nn ops, NHWC as ferroflow's kernels are. GELU, which TensorFlow runs as a
//! composition rather than an op, is written as the same composition.

use super::attrs::{self, enum_of};
use super::body::{unimplemented, Body, TensorRef, Typed};
use super::export_ops::same_op;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::batch_norm::BatchNormFormat;
use crate::ops::composite::Composite;
use crate::ops::conv::{Padding, Window};
use crate::proto::tensorflow::AttrValue;
use crate::tensor::Tensor;

pub fn composite(
    b: &mut Body,
    c: &Composite,
    ins: &[Typed],
    out: &[i32],
    name: &str,
) -> Result<Vec<TensorRef>> {
    let one = |k: usize| vec![ins[k].clone()];
    match c {
        Composite::LeakyRelu { alpha } => {
            b.op("LeakyRelu", name, &[one(0)], out, vec![("alpha", attrs::float(*alpha))])
        }
        Composite::Gelu { approximate } => gelu(b, &ins[0], *approximate, name),
        Composite::MaxPool { window, padding } | Composite::AvgPool { window, padding } => {
            if window.dilations != [1, 1] || matches!(padding, Padding::Explicit(_)) {
                return Err(unimplemented(&format!(
                    "{} with dilations or explicit padding",
                    c.tf_name()
                )));
            }
            let [kh, kw] = window.kernel.map(|k| k as i64);
            let mut a = conv_attrs(window, padding);
            a.retain(|(k, _)| *k != "dilations" && *k != "explicit_paddings");
            a.push(("ksize", attrs::ints([1, kh, kw, 1])));
            b.op(c.tf_name(), name, &[one(0)], out, a)
        }
        Composite::Conv2D { window, padding }
        | Composite::DepthwiseConv2dNative { window, padding } => {
            b.op(c.tf_name(), name, &[one(0), one(1)], out, conv_attrs(window, padding))
        }
        Composite::Conv2DBackpropInput { window, padding } => {
            let sizes = shape_of(b, &ins[0], name)?;
            b.op(
                c.tf_name(),
                name,
                &[vec![sizes], one(1), one(2)],
                out,
                conv_attrs(window, padding),
            )
        }
        Composite::Conv2DBackpropFilter { window, padding } => {
            let sizes = shape_of(b, &ins[1], name)?;
            b.op(
                c.tf_name(),
                name,
                &[one(0), vec![sizes], one(2)],
                out,
                conv_attrs(window, padding),
            )
        }
        Composite::FusedBatchNormV3(bn) => {
            let format = match bn.data_format {
                BatchNormFormat::Nhwc => "NHWC",
                BatchNormFormat::Nchw => "NCHW",
                _ => return Err(unimplemented("FusedBatchNormV3 over 5-D data")),
            };
            let a = vec![
                ("epsilon", attrs::float(bn.epsilon)),
                ("exponential_avg_factor", attrs::float(bn.exponential_avg_factor)),
                ("data_format", attrs::string(format)),
                ("is_training", attrs::boolean(bn.is_training)),
            ];
            let args: Vec<Vec<Typed>> = (0..5).map(one).collect();
            b.op("FusedBatchNormV3", name, &args, out, a)
        }
        Composite::BiasAdd { channels_first } => {
            let format = if *channels_first { "NCHW" } else { "NHWC" };
            b.op(
                "BiasAdd",
                name,
                &[one(0), one(1)],
                out,
                vec![("data_format", attrs::string(format))],
            )
        }
        _ => same_op(b, c.tf_name(), ins, out, name),
    }
}

fn conv_attrs(window: &Window, padding: &Padding) -> Vec<(&'static str, AttrValue)> {
    let [sh, sw] = window.strides.map(|s| s as i64);
    let [dh, dw] = window.dilations.map(|d| d as i64);
    let (padding, explicit) = match padding {
        Padding::Valid => ("VALID", vec![]),
        Padding::Same => ("SAME", vec![]),
        Padding::Explicit([(t, bo), (l, r)]) => {
            ("EXPLICIT", vec![0, 0, *t as i64, *bo as i64, *l as i64, *r as i64, 0, 0])
        }
    };
    vec![
        ("strides", attrs::ints([1, sh, sw, 1])),
        ("dilations", attrs::ints([1, dh, dw, 1])),
        ("padding", attrs::string(padding)),
        ("explicit_paddings", attrs::ints(explicit)),
        ("data_format", attrs::string("NHWC")),
    ]
}

fn shape_of(b: &mut Body, t: &Typed, name: &str) -> Result<Typed> {
    let i32_ = enum_of(DType::I32);
    let out = b.op("Shape", &format!("{name}/sizes"), &[vec![t.clone()]], &[i32_], vec![])?;
    Ok((out[0].clone(), i32_))
}

/// A scalar constant of `x`'s dtype.
fn scalar_like(b: &mut Body, x: &Typed, value: f64, name: &str) -> Result<Typed> {
    let t = crate::ops::cast(&Tensor::scalar(value), DType::from_enum(x.1 as u32)?)?;
    Ok((b.constant(&t, name)?, x.1))
}

fn binary(b: &mut Body, op: &str, x: &Typed, y: &Typed, name: &str) -> Result<Typed> {
    let out = b.op(op, name, &[vec![x.clone()], vec![y.clone()]], &[x.1], vec![])?;
    Ok((out[0].clone(), x.1))
}

fn unary(b: &mut Body, op: &str, x: &Typed, name: &str) -> Result<Typed> {
    let out = b.op(op, name, &[vec![x.clone()]], &[x.1], vec![])?;
    Ok((out[0].clone(), x.1))
}

/// 0.5·x·(1 + erf(x/√2)), or with tanh's approximation, as `nn::gelu_composed` computes it.
fn gelu(b: &mut Body, x: &Typed, approximate: bool, name: &str) -> Result<Vec<TensorRef>> {
    let half = scalar_like(b, x, 0.5, &format!("{name}/half"))?;
    let one = scalar_like(b, x, 1.0, &format!("{name}/one"))?;
    let half_x = binary(b, "Mul", &half, x, &format!("{name}/half_x"))?;
    let inner = if approximate {
        let c = scalar_like(b, x, (2.0 / std::f64::consts::PI).sqrt(), &format!("{name}/c"))?;
        let k = scalar_like(b, x, 0.044715, &format!("{name}/k"))?;
        let three = scalar_like(b, x, 3.0, &format!("{name}/three"))?;
        let cube = binary(b, "Pow", x, &three, &format!("{name}/cube"))?;
        let cube = binary(b, "Mul", &k, &cube, &format!("{name}/k_cube"))?;
        let sum = binary(b, "AddV2", x, &cube, &format!("{name}/sum"))?;
        let scaled = binary(b, "Mul", &c, &sum, &format!("{name}/scaled"))?;
        unary(b, "Tanh", &scaled, &format!("{name}/tanh"))?
    } else {
        let r = scalar_like(b, x, std::f64::consts::FRAC_1_SQRT_2, &format!("{name}/rsqrt2"))?;
        let scaled = binary(b, "Mul", x, &r, &format!("{name}/scaled"))?;
        unary(b, "Erf", &scaled, &format!("{name}/erf"))?
    };
    let sum = binary(b, "AddV2", &one, &inner, &format!("{name}/one_plus"))?;
    let out = binary(b, "Mul", &half_x, &sum, name)?;
    Ok(vec![out.0])
}
