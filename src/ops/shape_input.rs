//! Shapes known only when a graph runs. TensorFlow's Reshape, Fill, BroadcastTo and random ops
//! take their shape as a tensor. ferroflow keeps a shape the user gave as numbers as an
//! attribute, but where the shape is a traced value (`tf.shape(x)` of an unknown size, or a list
//! holding `tf.shape(x)[0]`) it records `ShapeFromInput`: the op, with its shape read from its
//! last input each time the node runs. The graph then holds for every size, with no retrace.

use crate::dispatch::{apply, apply1};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::index::ScatterNd;
use crate::ops::primitive::{
    input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::ops::reduce::Reduce;
use crate::ops::registry::Op;
use crate::ops::shape_ops::{self, BroadcastTo, Reshape};
use crate::ops::{
    creation::Fill,
    random::{RandomSpec, StatelessSpec},
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use serde_json::Value;

/// The attribute that marks a saved node whose shape is its last input.
pub const SHAPE_INPUT_ATTR: &str = "shape_input";

/// A primitive whose shape attribute can come from a tensor instead.
pub trait TakesShape {
    /// The same op with `dims` (the shape input's values) as its shape.
    fn with_dims(&self, dims: &[i64]) -> Result<Op>;
    /// Output types for a shape known in part (`None`: known only when the node runs).
    fn infer_partial(&self, inputs: &[TensorType], dims: &[Option<i64>])
        -> Result<Vec<TensorType>>;
    /// Output types for a shape input of unknown length: for most ops the output's rank is
    /// then unknown, which `TensorType` cannot say.
    fn infer_unknown_length(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let _ = inputs;
        Err(Error::Unimplemented("a shape of unknown length".into()))
    }
}

/// An op whose shape is its last input.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ShapeFromInput(pub Box<Op>);

fn takes_shape(op: &Op) -> Option<&dyn TakesShape> {
    match op {
        Op::Reshape(p) => Some(p),
        Op::BroadcastTo(p) => Some(p),
        Op::Fill(p) => Some(p),
        Op::Random(p) => Some(p),
        Op::StatelessRandom(p) if p.has_shape() => Some(p),
        Op::Reduce(p) => Some(p),
        Op::ScatterNd(p) => Some(p),
        _ => None,
    }
}

impl ShapeFromInput {
    pub fn new(op: Op) -> Result<ShapeFromInput> {
        match takes_shape(&op) {
            Some(_) => Ok(ShapeFromInput(Box::new(op))),
            None => Err(Error::Internal(format!("{} takes no shape input", op.tf_name()))),
        }
    }

    fn inner(&self) -> &dyn TakesShape {
        takes_shape(&self.0).expect("checked when made")
    }

    /// The op to run for a shape input holding `shape`.
    fn resolved(&self, shape: &Tensor) -> Result<Op> {
        self.inner().with_dims(&shape_values(shape, self.0.tf_name())?)
    }

    /// The node for its next run in a graph (a random op's next draw).
    pub fn next_run(&self) -> ShapeFromInput {
        match &*self.0 {
            Op::Random(spec) => ShapeFromInput(Box::new(Op::Random(spec.next_run()))),
            _ => self.clone(),
        }
    }

    /// This node in a new instance of its graph, when it draws random numbers (see
    /// `RandomSpec::fresh_instance`).
    pub fn fresh_instance(&self) -> Option<ShapeFromInput> {
        match &*self.0 {
            Op::Random(spec) => Some(ShapeFromInput(Box::new(Op::Random(spec.fresh_instance())))),
            _ => None,
        }
    }

    /// The node that recomputes this one for a gradient (a random op's forward numbers).
    pub fn replaying(&self) -> ShapeFromInput {
        ShapeFromInput(Box::new(self.0.replaying()))
    }
}

/// The values of a shape tensor: an int32 or int64 vector.
pub fn shape_values(shape: &Tensor, op: &str) -> Result<Vec<i64>> {
    check_shape_type(&TensorType::of(shape), op)?;
    match shape.dtype() {
        DType::I32 => Ok(shape.to_vec::<i32>()?.into_iter().map(i64::from).collect()),
        _ => shape.to_vec::<i64>(),
    }
}

pub(crate) fn check_shape_type(t: &TensorType, op: &str) -> Result<()> {
    if !matches!(t.dtype, DType::I32 | DType::I64) {
        return Err(Error::InvalidArgument(format!(
            "a shape must be int32 or int64, got {} [Op:{op}]",
            t.dtype
        )));
    }
    if t.rank() != 1 {
        return Err(Error::InvalidArgument(format!(
            "a shape must be a vector, got rank {} [Op:{op}]",
            t.rank()
        )));
    }
    Ok(())
}

/// `op` (built for the shape input's current value) with `shape` as its last input.
pub fn apply_with_shape(op: Op, inputs: &[&Tensor], shape: &Tensor) -> Result<Tensor> {
    let node = Op::ShapeFromInput(ShapeFromInput::new(op)?);
    let mut all = inputs.to_vec();
    all.push(shape);
    apply1(&node, &all)
}

impl Primitive for ShapeFromInput {
    fn tf_name(&self) -> &'static str {
        self.0.tf_name()
    }

    fn arity(&self) -> Arity {
        match self.0.primitive().arity() {
            Arity::Exactly(k) => Arity::Exactly(k + 1),
            Arity::AtLeast(k) => Arity::AtLeast(k + 1),
        }
    }

    fn attrs(&self) -> Attrs {
        let mut attrs = self.0.primitive().attrs();
        attrs.insert(SHAPE_INPUT_ATTR.into(), Value::Bool(true));
        attrs
    }

    /// Without the shape's values only its length is known.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.infer_with_values(inputs, &[])
    }

    fn infer_with_values(
        &self,
        inputs: &[TensorType],
        values: &[Option<Vec<Option<i64>>>],
    ) -> Result<Vec<TensorType>> {
        let last = inputs.len().checked_sub(1).ok_or_else(|| Error::Internal("no shape".into()))?;
        let shape = input(inputs, last)?;
        check_shape_type(shape, self.tf_name())?;
        let dims = match values.get(last) {
            Some(Some(known)) => known.clone(),
            _ => match shape.dims[0] {
                Some(n) => vec![None; n],
                None => return self.inner().infer_unknown_length(&inputs[..last]),
            },
        };
        self.inner().infer_partial(&inputs[..last], &dims)
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let (shape, rest) =
            inputs.split_last().ok_or_else(|| Error::Internal("no shape".into()))?;
        let resolved = self.resolved(shape)?;
        // The values come from a tensor (a loaded graph's, say): the resolved op's own shape
        // rule checks them (a reduction axis past the rank) before any kernel indexes by them.
        let types: Vec<TensorType> = rest.iter().map(|t| TensorType::of(t)).collect();
        resolved.primitive().infer(&types)?;
        apply(&resolved, rest)
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let (shape, rest) =
            inputs.split_last().ok_or_else(|| Error::Internal("no shape".into()))?;
        let mut grads = self.resolved(shape)?.primitive().gradient(rest, outputs, g)?;
        grads.push(None);
        Ok(grads)
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            // The resolved op is placed and run as in eager mode.
            gpu: GpuKernel::Decomposed,
            differentiable: self.0.primitive().differentiable(),
            fusable: false,
        }
    }

    fn stateful(&self) -> bool {
        self.0.primitive().stateful()
    }

    fn tensorflow_stateful(&self) -> bool {
        self.0.primitive().tensorflow_stateful()
    }
}

impl Decode for ShapeFromInput {
    /// Saved under its inner op's name, told apart by `SHAPE_INPUT_ATTR` (see `Op::decode`).
    fn names() -> Vec<&'static str> {
        Vec::new()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let mut inner = attrs.clone();
        inner.remove(SHAPE_INPUT_ATTR);
        ShapeFromInput::new(Op::decode(name, &inner)?).map_err(|_| {
            Error::DataLoss(format!("a saved {name} node cannot take its shape as an input"))
        })
    }
}

fn known_dims(dims: &[Option<i64>], op: &str) -> Result<Vec<Option<usize>>> {
    dims.iter()
        .map(|d| match d {
            None => Ok(None),
            Some(d) => usize::try_from(*d).map(Some).map_err(|_| {
                Error::InvalidArgument(format!("Dimension {d} must be >= 0 [Op:{op}]"))
            }),
        })
        .collect()
}

fn checked_shape(dims: &[i64], op: &str) -> Result<Shape> {
    Shape::checked(dims).map_err(|e| Error::InvalidArgument(format!("{e} [Op:{op}]")))
}

impl TakesShape for Reshape {
    fn with_dims(&self, dims: &[i64]) -> Result<Op> {
        shape_ops::reshape_request(dims)?;
        Ok(Op::Reshape(Reshape(dims.to_vec())))
    }

    /// A -1 is resolved from the element count when that and every other size are known.
    fn infer_partial(
        &self,
        inputs: &[TensorType],
        dims: &[Option<i64>],
    ) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        if let Some(all) = dims.iter().copied().collect::<Option<Vec<i64>>>() {
            return Reshape(all).infer(inputs);
        }
        let out = dims
            .iter()
            .map(|d| match d {
                Some(-1) | None => Ok(None),
                Some(d) => usize::try_from(*d).map(Some).map_err(|_| {
                    Error::InvalidArgument(format!("Dimension {d} must be >= -1 [Op:Reshape]"))
                }),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(vec![TensorType { dtype: x.dtype, dims: out }])
    }
}

impl TakesShape for BroadcastTo {
    fn with_dims(&self, dims: &[i64]) -> Result<Op> {
        Ok(Op::BroadcastTo(BroadcastTo(checked_shape(dims, "BroadcastTo")?)))
    }

    /// Where the target size is unknown, a known input size above 1 is the output's.
    fn infer_partial(
        &self,
        inputs: &[TensorType],
        dims: &[Option<i64>],
    ) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        let target = known_dims(dims, "BroadcastTo")?;
        let lead = target.len().checked_sub(x.rank()).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "Rank of input ({}) must be no greater than rank of output shape ({}) \
                 [Op:BroadcastTo]",
                x.rank(),
                target.len()
            ))
        })?;
        let mut out = target.clone();
        for (a, &d) in x.dims.iter().enumerate() {
            match (d, target[lead + a]) {
                (Some(d), Some(t)) if d != 1 && d != t => {
                    return Err(Error::InvalidArgument(format!(
                        "Unable to broadcast tensor of shape {} to tensor of shape {} \
                         [Op:BroadcastTo]",
                        crate::ops::primitive::describe_dims(&x.dims),
                        crate::ops::primitive::describe_dims(&target)
                    )))
                }
                (Some(d), None) if d != 1 => out[lead + a] = Some(d),
                _ => {}
            }
        }
        Ok(vec![TensorType { dtype: x.dtype, dims: out }])
    }
}

impl TakesShape for Fill {
    fn with_dims(&self, dims: &[i64]) -> Result<Op> {
        Ok(Op::Fill(Fill(checked_shape(dims, "Fill")?)))
    }

    fn infer_partial(
        &self,
        inputs: &[TensorType],
        dims: &[Option<i64>],
    ) -> Result<Vec<TensorType>> {
        // The scalar form checks the value input.
        let dtype = Fill(Shape::scalar()).infer(inputs)?[0].dtype;
        Ok(vec![TensorType { dtype, dims: known_dims(dims, "Fill")? }])
    }
}

impl TakesShape for RandomSpec {
    fn with_dims(&self, dims: &[i64]) -> Result<Op> {
        let spec = RandomSpec { shape: checked_shape(dims, self.tf_name())?, ..self.clone() };
        spec.validate()?;
        Ok(Op::Random(spec))
    }

    fn infer_partial(&self, _: &[TensorType], dims: &[Option<i64>]) -> Result<Vec<TensorType>> {
        Ok(vec![TensorType { dtype: self.dtype, dims: known_dims(dims, self.tf_name())? }])
    }
}

/// A stateless draw whose shape is known only when the node runs: the seed's numbers for that
/// shape, as TensorFlow's stateless ops take their shape as a tensor.
impl TakesShape for StatelessSpec {
    fn with_dims(&self, dims: &[i64]) -> Result<Op> {
        let shape = checked_shape(dims, StatelessSpec::tf_name(self))?;
        Ok(Op::StatelessRandom(StatelessSpec { shape, ..self.clone() }))
    }

    fn infer_partial(
        &self,
        inputs: &[TensorType],
        dims: &[Option<i64>],
    ) -> Result<Vec<TensorType>> {
        // The dtype and state checks of the op itself, for a stand-in shape.
        self.with_dims(&vec![0; dims.len()])?.primitive().infer(inputs)?;
        Ok(vec![TensorType {
            dtype: self.dtype,
            dims: known_dims(dims, StatelessSpec::tf_name(self))?,
        }])
    }
}

/// A reduction whose axes are its last input (TensorFlow's `reduction_indices`), as
/// gradients over broadcasts need: the axes are known only when the node runs.
impl TakesShape for Reduce {
    fn with_dims(&self, axes: &[i64]) -> Result<Op> {
        let mut axes = axes
            .iter()
            .map(|&a| {
                usize::try_from(a).map_err(|_| {
                    Error::InvalidArgument(format!(
                        "a reduction axis must be >= 0 here, got {a} [Op:{}]",
                        self.tf_name()
                    ))
                })
            })
            .collect::<Result<Vec<usize>>>()?;
        axes.sort_unstable();
        axes.dedup();
        Ok(Op::Reduce(Reduce { axes, ..self.clone() }))
    }

    fn infer_partial(
        &self,
        inputs: &[TensorType],
        axes: &[Option<i64>],
    ) -> Result<Vec<TensorType>> {
        match axes.iter().copied().collect::<Option<Vec<i64>>>() {
            Some(known) => self.with_dims(&known)?.primitive().infer(inputs),
            None => self.infer_unknown_length(inputs),
        }
    }

    /// With its dims kept, any dimension may have been reduced to 1.
    fn infer_unknown_length(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        if !self.keepdims {
            return Err(Error::Unimplemented(
                "a reduction over axes known only at run time without keepdims".into(),
            ));
        }
        let dims = x.dims.iter().map(|&d| d.filter(|&n| n == 1)).collect();
        Ok(vec![TensorType { dtype: x.dtype, dims }])
    }
}

/// A scatter into a shape known only when the node runs (a gather's gradient under an unknown
/// size).
impl TakesShape for ScatterNd {
    fn with_dims(&self, dims: &[i64]) -> Result<Op> {
        Ok(Op::ScatterNd(ScatterNd(checked_shape(dims, "ScatterNd")?)))
    }

    /// The updates' dtype, the shape's sizes as far as they are known; the index checks run
    /// with the node.
    fn infer_partial(
        &self,
        inputs: &[TensorType],
        dims: &[Option<i64>],
    ) -> Result<Vec<TensorType>> {
        if let Some(all) = dims.iter().copied().collect::<Option<Vec<i64>>>() {
            return self.with_dims(&all)?.primitive().infer(inputs);
        }
        let updates = input(inputs, 1)?;
        Ok(vec![TensorType { dtype: updates.dtype, dims: known_dims(dims, "ScatterNd")? }])
    }
}

/// A shape as an op's caller gives it: numbers (what the caller asked for, never an example's
/// size), or (inside a trace) a symbolic integer vector.
#[derive(Clone, Debug)]
pub enum ShapeArg {
    Dims(Vec<i64>),
    Traced(Tensor),
}

impl ShapeArg {
    /// The op `make` builds for the dims, run on `inputs`; for a traced shape, the op built for
    /// the shape's current value with the shape as its last input.
    pub fn apply(&self, inputs: &[&Tensor], make: impl Fn(&[i64]) -> Result<Op>) -> Result<Tensor> {
        match self {
            ShapeArg::Dims(dims) => {
                let _asked = crate::graph::trace::requested_shape();
                apply1(&make(dims)?, inputs)
            }
            ShapeArg::Traced(shape) => {
                // The op's attributes only stand in for the shape the node reads when it runs:
                // a shape whose values are not computed yet is not run for them.
                let standing_in = crate::graph::deferred::static_type(shape);
                let dims = match (shape.values_ready(), standing_in.dims.as_slice()) {
                    (false, [Some(n)]) if matches!(shape.dtype(), DType::I32 | DType::I64) => {
                        vec![1; *n]
                    }
                    // The shape of a value of unknown rank: so is the result (`rank_rule`).
                    (false, [None]) => Vec::new(),
                    _ => shape_values(shape, "Shape")?,
                };
                apply_with_shape(make(&dims)?, inputs, shape)
            }
        }
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(Op, Vec<Tensor>)> {
    use crate::ops::random::{Distribution, Stream};
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let x2 = x.clone();
    let sum = Reduce { op: crate::ops::reduce::ReduceOp::Sum, axes: vec![1], keepdims: true };
    let shape = |dims: &[i32]| Tensor::from_slice(dims, &[dims.len()]).unwrap();
    let wrap = |op: Op| Op::ShapeFromInput(ShapeFromInput::new(op).unwrap());
    let uniform = Distribution::Uniform { minval: 0.0, maxval: 1.0 };
    let random = crate::ops::random::spec(
        uniform,
        &Shape(vec![2]),
        DType::F32,
        Stream { key: [1, 2], call: 3, unseeded: false },
    );
    vec![
        (wrap(Op::Reshape(Reshape(vec![3, -1]))), vec![x.clone(), shape(&[3, -1])]),
        (wrap(Op::BroadcastTo(BroadcastTo(Shape(vec![2, 2, 3])))), vec![x, shape(&[2, 2, 3])]),
        (wrap(Op::Fill(Fill(Shape(vec![2, 2])))), vec![Tensor::scalar(1.5f32), shape(&[2, 2])]),
        (wrap(random.unwrap()), vec![shape(&[4, 2])]),
        (wrap(Op::Reduce(sum)), vec![x2, shape(&[1])]),
        (
            wrap(Op::ScatterNd(ScatterNd(Shape(vec![4])))),
            vec![
                Tensor::from_slice(&[3i32, 0, 3], &[3, 1]).unwrap(),
                Tensor::from_slice(&[1.0f32, 2.0, 4.0], &[3]).unwrap(),
                shape(&[4]),
            ],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::reduce::ReduceOp;

    #[test]
    fn axes_from_an_input_are_checked_against_the_rank() {
        let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let sum = Reduce { op: ReduceOp::Sum, axes: vec![], keepdims: true };
        let node = ShapeFromInput::new(Op::Reduce(sum)).unwrap();
        for axes in [vec![5i32], vec![-1], vec![0, 9]] {
            let axes = Tensor::from_slice(&axes, &[axes.len()]).unwrap();
            let err = node.cpu(&[&x, &axes]).unwrap_err();
            assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
        }
        let ok = Tensor::from_slice(&[1i32], &[1]).unwrap();
        assert_eq!(node.cpu(&[&x, &ok]).unwrap()[0].to_vec::<f32>().unwrap(), vec![3.0, 7.0]);
    }
}
