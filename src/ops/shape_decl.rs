//! The movement primitives' declarations (`shape_ops.rs` holds their kernels and attributes):
//! reshape, transpose, broadcast_to, concat, strided slice, pad, tile and `Shape`.

use super::cast;
use super::shape_ops::{
    self, BroadcastTo, Concat, Pad, PadMode, Reshape, ShapeOf, SliceSpec, Tile, Transpose,
};
use super::slicing::{self, SliceItem};
use crate::autodiff::rules::{select as grads, unbroadcast};
use crate::error::{Error, Result};
use crate::ops;
use crate::ops::primitive::{
    attrs_of, describe_dims, dims_of, expect_name, from_attrs, input, Arity, Attrs, Decisions,
    Decode, GpuKernel, Primitive, TensorType,
};
use crate::ops::registry::Op;
use crate::shape::Shape;
use crate::tensor::Tensor;

/// `Decode` for a type with one TensorFlow name whose attributes are its serde form.
macro_rules! decode_serde {
    ($($ty:ty => $name:literal),* $(,)?) => {
        $(impl Decode for $ty {
            fn names() -> Vec<&'static str> {
                vec![$name]
            }

            fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
                expect_name(name, $name)?;
                from_attrs(name, attrs)
            }
        })*
    };
}

decode_serde! {
    Reshape => "Reshape",
    Transpose => "Transpose",
    BroadcastTo => "BroadcastTo",
    Concat => "ConcatV2",
    SliceSpec => "StridedSlice",
    Pad => "PadV2",
    Tile => "Tile",
    ShapeOf => "Shape",
}

/// The input at `k` (dispatch checks the arity first; a direct call gets an error, not a panic).
fn arg<'a>(inputs: &[&'a Tensor], k: usize) -> Result<&'a Tensor> {
    inputs.get(k).copied().ok_or_else(|| Error::Internal(format!("input {k} is missing")))
}

fn one(t: Result<Tensor>) -> Result<Vec<Tensor>> {
    t.map(|t| vec![t])
}

impl Primitive for Reshape {
    fn tf_name(&self) -> &'static str {
        "Reshape"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        Ok(vec![TensorType { dtype: x.dtype, dims: reshape_dims(x, &self.0)? }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(shape_ops::reshape(arg(inputs, 0)?, &self.0))
    }

    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(crate::ops::static_shape::reshape_like(g, &inputs[0])?)])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

/// The -1 dim is known only with the element count, that is with every input dim.
fn reshape_dims(x: &TensorType, dims: &[i64]) -> Result<Vec<Option<usize>>> {
    if x.fully_known() {
        let n = x.dims.iter().flatten().product();
        return Ok(dims_of(&shape_ops::reshape_shape(n, dims)?));
    }
    let (partial, inferred) = shape_ops::reshape_request(dims)?;
    Ok(partial
        .dims()
        .iter()
        .enumerate()
        .map(|(a, &d)| (Some(a) != inferred).then_some(d))
        .collect())
}

impl Primitive for Transpose {
    fn tf_name(&self) -> &'static str {
        "Transpose"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        shape_ops::check_permutation(x.rank(), &self.0)?;
        Ok(vec![TensorType { dtype: x.dtype, dims: self.0.iter().map(|&p| x.dims[p]).collect() }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(shape_ops::transpose(arg(inputs, 0)?, &self.0))
    }

    fn gradient(&self, _: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let perm: Vec<i64> = self.0.iter().map(|&p| p as i64).collect();
        Ok(vec![Some(ops::transpose(g, Some(&ops::inverse_permutation(&perm)))?)])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Primitive for BroadcastTo {
    fn tf_name(&self) -> &'static str {
        "BroadcastTo"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        check_broadcast_to(x, &self.0)?;
        Ok(vec![TensorType { dtype: x.dtype, dims: dims_of(&self.0) }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(shape_ops::broadcast_to(arg(inputs, 0)?, &self.0))
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        // The target as the trace knows it: under a shape input (`ShapeFromInput`) the
        // attribute holds the example's sizes, which must not decide the summed axes.
        let target = crate::ops::static_shape::static_dims(&outputs[0]);
        Ok(vec![Some(unbroadcast(g, &inputs[0], &[target])?)])
    }

    fn bakes_shape(&self) -> bool {
        true
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

/// Aligned from the right, each known input dim is 1 or the target's.
fn check_broadcast_to(x: &TensorType, shape: &Shape) -> Result<()> {
    let fits = shape.rank().checked_sub(x.rank()).is_some_and(|lead| {
        x.dims.iter().zip(&shape.dims()[lead..]).all(|(d, &t)| d.is_none_or(|d| d == 1 || d == t))
    });
    if fits {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "Unable to broadcast tensor of shape {} to tensor of shape {shape} [Op:BroadcastTo]",
        describe_dims(&x.dims)
    )))
}

impl Primitive for Concat {
    fn tf_name(&self) -> &'static str {
        "ConcatV2"
    }

    fn arity(&self) -> Arity {
        Arity::AtLeast(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        Ok(vec![concat_type(inputs, self.0)?])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(shape_ops::concat(inputs, self.0))
    }

    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        grads::concat(inputs, self.0, g)
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

/// The concat axis is known when every input's is; another axis when any input's is (known
/// sizes must agree).
fn concat_type(inputs: &[TensorType], axis: usize) -> Result<TensorType> {
    let first = input(inputs, 0)?;
    let rank = first.rank();
    if axis >= rank {
        return Err(Error::InvalidArgument(format!(
            "ConcatOp : Expected concatenating dimensions in the range [{}, {rank}), but got {axis} [Op:ConcatV2]",
            -(rank as i64)
        )));
    }
    let mut dims = first.dims.clone();
    for (k, t) in inputs.iter().enumerate() {
        if t.dtype != first.dtype {
            return Err(Error::dtype_mismatch("ConcatV2", first.dtype, t.dtype));
        }
        let clash = (0..rank.min(t.rank()))
            .find(|&a| a != axis && dims[a].zip(t.dims[a]).is_some_and(|(d, e)| d != e));
        if t.rank() != rank || clash.is_some() {
            return Err(Error::InvalidArgument(format!(
                "ConcatOp : Dimension {} in both shapes must be equal: shape[0] = {} vs. shape[{k}] = {} [Op:ConcatV2]",
                clash.unwrap_or(0),
                describe_dims(&first.dims),
                describe_dims(&t.dims)
            )));
        }
        for (d, &e) in dims.iter_mut().zip(&t.dims) {
            *d = d.or(e);
        }
    }
    dims[axis] = inputs.iter().try_fold(0usize, |sum, t| sum.checked_add(t.dims[axis]?));
    Ok(TensorType { dtype: first.dtype, dims })
}

impl Primitive for SliceSpec {
    fn tf_name(&self) -> &'static str {
        "StridedSlice"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        Ok(vec![TensorType { dtype: x.dtype, dims: slice_dims(self, x)? }])
    }

    /// A traced slice meeting an input of another shape resolves its items again.
    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let x = arg(inputs, 0)?;
        if x.shape() == &self.input {
            return one(shape_ops::strided_slice(x, self));
        }
        one(shape_ops::strided_slice(x, &slicing::resolve(x.shape(), &self.items)?))
    }

    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let mut out = vec![Some(grads::scatter_back(&Op::StridedSlice(self.clone()), inputs, g)?)];
        out.resize(inputs.len(), None);
        Ok(out)
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

/// Far above any real size and any index a user passes, so only known axes can fail.
pub(crate) const STAND_IN: usize = i64::MAX as usize;

/// The shape a slice of `x` is resolved against while tracing: a lazy value's static dims,
/// `STAND_IN` where unknown (reading its shape would run its kernel), else its shape. The
/// node resolves its items again against the shape it meets when it runs.
pub(crate) fn slice_resolution_shape(x: &Tensor) -> Shape {
    if !x.is_lazy() {
        return x.shape().clone();
    }
    let known = crate::graph::deferred::static_type(x);
    Shape(known.dims.iter().map(|d| d.unwrap_or(STAND_IN)).collect())
}

/// The items resolved against the input's dims; an unknown input dim stands in as `STAND_IN`
/// (for the errors of the known ones), and the output dims it gives are unknown.
fn slice_dims(spec: &SliceSpec, x: &TensorType) -> Result<Vec<Option<usize>>> {
    let shape = Shape(x.dims.iter().map(|d| d.unwrap_or(STAND_IN)).collect());
    if x.fully_known() && shape == spec.input {
        return Ok(dims_of(&spec.out_shape));
    }
    let resolved = slicing::resolve(&shape, &spec.items)?;
    let sources = slice_sources(x.rank(), &spec.items);
    Ok(resolved
        .out_shape
        .dims()
        .iter()
        .zip(sources)
        .map(|(&d, source)| match source {
            Some(a) if x.dims[a].is_none() => None,
            _ => Some(d),
        })
        .collect())
}

/// For each output dim of a slice, the input axis it comes from (`None` for a new axis),
/// expanding the ellipsis (or the implicit trailing one) as `slicing::resolve` does.
fn slice_sources(rank: usize, items: &[SliceItem]) -> Vec<Option<usize>> {
    let consuming =
        items.iter().filter(|i| matches!(i, SliceItem::Index(_) | SliceItem::Range { .. })).count();
    let fill = rank.saturating_sub(consuming);
    let mut out = Vec::with_capacity(rank + items.len());
    let mut axis = 0;
    for item in items {
        match item {
            SliceItem::NewAxis => out.push(None),
            SliceItem::Index(_) => axis += 1,
            SliceItem::Range { .. } => {
                out.push(Some(axis));
                axis += 1;
            }
            SliceItem::Ellipsis => {
                out.extend((axis..axis + fill).map(Some));
                axis += fill;
            }
        }
    }
    if !items.contains(&SliceItem::Ellipsis) {
        out.extend((axis..axis + fill).map(Some));
    }
    out
}

impl Primitive for Pad {
    fn tf_name(&self) -> &'static str {
        "PadV2"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(2)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (x, c) = (input(inputs, 0)?, input(inputs, 1)?);
        let dims = shape_ops::pad_dims(x, &self.paddings, self.mode, c)?;
        Ok(vec![TensorType { dtype: x.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let (x, c) = (arg(inputs, 0)?, arg(inputs, 1)?);
        one(shape_ops::pad(x, &self.paddings, self.mode, c))
    }

    /// The constant is an attribute in TensorFlow: no gradient flows to it.
    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let op = Op::Pad(self.clone());
        Ok(vec![Some(grads::pad(&op, &inputs[0], &self.paddings, self.mode, g)?), None])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: {
                match self.mode {
                    PadMode::Constant => GpuKernel::Wgsl,
                    PadMode::Reflect | PadMode::Symmetric => GpuKernel::CpuOnly(
                        "the WGSL pad kernel fills constants; mirror padding is CPU-only",
                    ),
                }
            },
            differentiable: true,
            fusable: false,
        }
    }
}

impl Primitive for Tile {
    fn tf_name(&self) -> &'static str {
        "Tile"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        Ok(vec![TensorType { dtype: x.dtype, dims: shape_ops::tile_dims(x, &self.0)? }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(shape_ops::tile(arg(inputs, 0)?, &self.0))
    }

    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(grads::tile(&inputs[0], &self.0, g)?)])
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Primitive for ShapeOf {
    fn tf_name(&self) -> &'static str {
        "Shape"
    }

    fn reads_only_shapes(&self) -> bool {
        true
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        Ok(vec![TensorType { dtype: self.0, dims: vec![Some(x.rank())] }])
    }

    /// Only the dims are read: dispatch runs this before placement, with no readback.
    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let dims = arg(inputs, 0)?.shape().dims_i64();
        one(cast::cpu(&Tensor::from_slice(&dims, &[dims.len()])?, self.0))
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: { GpuKernel::CpuOnly("reads only the input's dims; no device work") },
            differentiable: false,
            fusable: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;

    fn ty(dims: &[Option<usize>]) -> TensorType {
        TensorType { dtype: DType::F32, dims: dims.to_vec() }
    }

    fn out(p: &dyn Primitive, inputs: &[TensorType]) -> Vec<Option<usize>> {
        p.infer(inputs).unwrap().remove(0).dims
    }

    #[test]
    fn partial_dims() {
        let x = ty(&[None, Some(3)]);
        assert_eq!(out(&Reshape(vec![-1, 6]), std::slice::from_ref(&x)), [None, Some(6)]);
        assert_eq!(out(&Transpose(vec![1, 0]), std::slice::from_ref(&x)), [Some(3), None]);
        let y = ty(&[Some(2), None]);
        assert_eq!(out(&Concat(0), &[x.clone(), y.clone()]), [None, Some(3)]);
        assert_eq!(out(&Concat(1), &[x.clone(), y]), [Some(2), None]);
        assert!(Concat(1).infer(&[x.clone(), ty(&[Some(2)])]).is_err());
        assert_eq!(out(&Tile(vec![0, 2]), std::slice::from_ref(&x)), [Some(0), Some(6)]);
        assert!(BroadcastTo(Shape(vec![4, 2])).infer(std::slice::from_ref(&x)).is_err());
        let pad = Pad { paddings: vec![(1, 1), (2, 0)], mode: PadMode::Reflect };
        assert_eq!(out(&pad, &[x.clone(), ty(&[])]), [None, Some(5)]);
        assert!(Pad { paddings: vec![(0, 0), (3, 0)], ..pad }.infer(&[x, ty(&[])]).is_err());
    }

    #[test]
    fn slices_keep_the_dims_of_known_axes() {
        let r = |start, stop, step| SliceItem::Range { start, stop, step };
        let items =
            [r(Some(1), None, 1), SliceItem::NewAxis, SliceItem::Ellipsis, SliceItem::Index(-1)];
        let spec = slicing::resolve(&Shape(vec![4, 5, 6]), &items).unwrap();
        assert_eq!(spec.out_shape, Shape(vec![3, 1, 5]));
        let x = ty(&[Some(4), None, Some(6)]);
        assert_eq!(out(&spec, &[x]), [Some(3), Some(1), None]);
        let x = ty(&[None, Some(7), Some(6)]);
        assert_eq!(out(&spec, &[x]), [None, Some(1), Some(7)]);
        assert!(spec.infer(&[ty(&[None, None, Some(0)])]).is_err());
    }
}
