//! Random draws (`tf.random.uniform`, `normal`, `truncated_normal`, and the uniform draws of
//! `tf.nn.dropout`) as TensorFlow's stateful random ops, scaled and shifted as TensorFlow's
//! own `tf.random` functions write them. Each call of the loaded function draws new numbers,
//! as in ferroflow. The numbers themselves are TensorFlow's generator's, not ferroflow's: a
//! seeded draw keeps its seed (the node's key as `seed`/`seed2`), so every load of the model
//! repeats the same sequence, as reloading ferroflow's does; an unseeded one is written with
//! both seeds 0, which TensorFlow seeds afresh.

use super::attrs::{self, enum_of};
use super::body::{unimplemented, Body, TensorRef, Typed};
use crate::error::Result;
use crate::ops::random::{Distribution, RandomSpec};
use crate::tensor::Tensor;

/// A draw of `spec`'s shape, or of the shape `shape` holds when the function runs (a shape
/// known only then, as `tf.nn.dropout`'s of an input with an unknown batch size).
pub fn random(
    b: &mut Body,
    spec: &RandomSpec,
    shape: Option<&Typed>,
    name: &str,
) -> Result<Vec<TensorRef>> {
    let dtype = enum_of(spec.dtype);
    let dims: Vec<i64> = spec.shape.dims().iter().map(|&d| d as i64).collect();
    let shape = match shape {
        Some(shape) => shape.clone(),
        None => b.ints(&dims, false, &format!("{name}/shape"))?,
    };
    let stream = &spec.stream;
    let (seed, seed2) = match stream.unseeded {
        true => (0, 0),
        // Both zero would mean "unseeded" to TensorFlow.
        false => (i64::from(stream.key[0]), i64::from(stream.key[1]).max(1)),
    };
    let seeds = || vec![("seed", attrs::int(seed)), ("seed2", attrs::int(seed2))];
    let scalar = |b: &mut Body, v: f64, hint: &str| -> Result<(TensorRef, i32)> {
        let t = crate::ops::cast(&Tensor::scalar(v), spec.dtype)?;
        Ok((b.constant(&t, &format!("{name}/{hint}"))?, dtype))
    };
    let (op, scale, offset) = match spec.distribution {
        Distribution::Uniform { minval, maxval } if spec.dtype.is_integer() => {
            let low = scalar(b, minval, "minval")?;
            let high = scalar(b, maxval, "maxval")?;
            let args = [vec![shape], vec![low], vec![high]];
            return b.op("RandomUniformInt", name, &args, &[dtype], seeds());
        }
        Distribution::Uniform { minval, maxval } => ("RandomUniform", maxval - minval, minval),
        Distribution::Normal { mean, stddev } => ("RandomStandardNormal", stddev, mean),
        Distribution::TruncatedNormal { mean, stddev } => ("TruncatedNormal", stddev, mean),
        Distribution::Permutation => return Err(unimplemented("RandomPermutation")),
    };
    let draw = b.op(op, &format!("{name}/draw"), &[vec![shape]], &[dtype], seeds())?;
    let scale = scalar(b, scale, "scale")?;
    let scaled = b.op(
        "Mul",
        &format!("{name}/mul"),
        &[vec![(draw[0].clone(), dtype)], vec![scale]],
        &[dtype],
        vec![],
    )?;
    let offset = scalar(b, offset, "offset")?;
    b.op("AddV2", name, &[vec![(scaled[0].clone(), dtype)], vec![offset]], &[dtype], vec![])
}
