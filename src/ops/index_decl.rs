//! The indexing primitives' declarations (`index.rs` holds their kernels and attributes):
//! gather, gather_nd, scatter_nd and `Where`.

use super::index::{
    axis_out_of_range, gather, gather_nd, is_index_dtype, scatter_nd, where_indices, Gather,
    GatherNd, ScatterNd, WhereIndices,
};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, dims_of, expect_name, from_attrs, input, Arity, Attrs, Decisions,
    Decode, GpuKernel, Primitive, TensorType,
};
use crate::ops::registry::Op;
use crate::shape::Shape;
use crate::tensor::Tensor;

fn arg<'a>(inputs: &[&'a Tensor], k: usize) -> Result<&'a Tensor> {
    inputs.get(k).copied().ok_or_else(|| Error::Internal(format!("input {k} is missing")))
}

fn one(t: Result<Tensor>) -> Result<Vec<Tensor>> {
    t.map(|t| vec![t])
}

fn check_index_type(indices: &TensorType, op: &str) -> Result<()> {
    if is_index_dtype(indices.dtype) {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "indices must be int32 or int64, got {} [Op:{op}]",
        indices.dtype
    )))
}

/// The selection rules' gradient: `g` scattered back to the params, none to the indices.
fn scattered_back(op: Op, inputs: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let mut grads = vec![Some(crate::autodiff::rules::select::scatter_back(&op, inputs, g)?)];
    grads.resize(inputs.len(), None);
    Ok(grads)
}

impl Primitive for Gather {
    fn tf_name(&self) -> &'static str {
        "GatherV2"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(2)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (p, i) = (input(inputs, 0)?, input(inputs, 1)?);
        Ok(vec![TensorType { dtype: p.dtype, dims: gather_dims(self, p, i)? }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(gather(arg(inputs, 0)?, arg(inputs, 1)?, self.axis, self.batch_dims))
    }

    /// Rows gathered along axis 0 get their gradient rows scattered back whole where params'
    /// shape is known (`select::scatter_rows`); other gathers scatter element positions.
    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        if self.axis == 0 && self.batch_dims == 0 {
            let rows = crate::autodiff::rules::select::scatter_rows(&inputs[0], &inputs[1], g)?;
            if let Some(rows) = rows {
                return Ok(vec![Some(rows), None]);
            }
        }
        scattered_back(Op::Gather(self.clone()), inputs, g)
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: {
                if self.batch_dims == 0 {
                    GpuKernel::Wgsl
                } else {
                    GpuKernel::CpuOnly("the WGSL gather kernel has no batch axes (batch_dims > 0)")
                }
            },
            differentiable: true,
            fusable: false,
        }
    }
}

/// `params[..axis] ++ indices[batch_dims..] ++ params[axis + 1..]`; a batch dim is known
/// where params' or the indices' is.
fn gather_dims(attrs: &Gather, p: &TensorType, i: &TensorType) -> Result<Vec<Option<usize>>> {
    let (axis, bd) = (attrs.axis, attrs.batch_dims);
    check_index_type(i, "GatherV2")?;
    if axis >= p.rank() {
        return Err(axis_out_of_range(axis, p.rank()));
    }
    if bd > axis || bd > i.rank() {
        return Err(Error::InvalidArgument(format!(
            "batch_dims ({bd}) must be <= axis ({axis}) and <= rank(indices) ({}) [Op:GatherV2]",
            i.rank()
        )));
    }
    let (pb, ib) = (&p.dims[..bd], &i.dims[..bd]);
    if pb.iter().zip(ib).any(|(a, b)| a.zip(*b).is_some_and(|(a, b)| a != b)) {
        return Err(Error::InvalidArgument(format!(
            "params.shape[:{bd}] {} and indices.shape[:{bd}] {} must match [Op:GatherV2]",
            describe_dims(pb),
            describe_dims(ib)
        )));
    }
    Ok(pb
        .iter()
        .zip(ib)
        .map(|(a, b)| a.or(*b))
        .chain(p.dims[bd..axis].iter().copied())
        .chain(i.dims[bd..].iter().copied())
        .chain(p.dims[axis + 1..].iter().copied())
        .collect())
}

impl Primitive for GatherNd {
    fn tf_name(&self) -> &'static str {
        "GatherNd"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(2)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (p, i) = (input(inputs, 0)?, input(inputs, 1)?);
        Ok(vec![TensorType { dtype: p.dtype, dims: gather_nd_dims(p, i)? }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(gather_nd(arg(inputs, 0)?, arg(inputs, 1)?))
    }

    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        scattered_back(Op::GatherNd(GatherNd), inputs, g)
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

/// The index rows' dims, then params' dims after the `k` each row indexes. With `k` unknown
/// the output's rank is unknown, which a `TensorType` cannot say.
fn gather_nd_dims(p: &TensorType, i: &TensorType) -> Result<Vec<Option<usize>>> {
    check_index_type(i, "GatherNd")?;
    let Some((&k, lead)) = i.dims.split_last() else {
        return Err(Error::InvalidArgument("indices must be at least 1-D [Op:GatherNd]".into()));
    };
    let k = k.ok_or_else(|| {
        Error::Unimplemented(
            "the last dimension of GatherNd's indices must be known: it sets the output's rank \
             [Op:GatherNd]"
                .into(),
        )
    })?;
    if k > p.rank() {
        return Err(Error::InvalidArgument(format!(
            "index innermost dimension length must be <= params rank; saw: {k} vs. {} [Op:GatherNd]",
            p.rank()
        )));
    }
    Ok(lead.iter().chain(&p.dims[k..]).copied().collect())
}

impl Primitive for ScatterNd {
    fn tf_name(&self) -> &'static str {
        "ScatterNd"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(2)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (i, u) = (input(inputs, 0)?, input(inputs, 1)?);
        check_scatter_types(&self.0, i, u)?;
        Ok(vec![TensorType { dtype: u.dtype, dims: dims_of(&self.0) }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(scatter_nd(arg(inputs, 0)?, arg(inputs, 1)?, &self.0))
    }

    /// Linear in the updates: each reads `g` where it was scattered. Indices get none.
    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![None, Some(crate::ops::gather_nd(g, &inputs[0])?)])
    }

    fn bakes_shape(&self) -> bool {
        true
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

/// `check_scatter_updates` on static dims, where the index depth is known.
fn check_scatter_types(shape: &Shape, i: &TensorType, u: &TensorType) -> Result<()> {
    check_index_type(i, "ScatterNd")?;
    let Some((&k, lead)) = i.dims.split_last() else {
        return Err(Error::InvalidArgument("indices must be at least 1-D [Op:ScatterNd]".into()));
    };
    let Some(k) = k else { return Ok(()) };
    if k > shape.rank() {
        return Err(Error::InvalidArgument(format!(
            "index innermost dimension length must be <= params rank; saw: {k} vs. {} [Op:ScatterNd]",
            shape.rank()
        )));
    }
    let mut expected = lead.to_vec();
    expected.extend(shape.dims()[k..].iter().map(|&d| Some(d)));
    let fits = u.rank() == expected.len()
        && u.dims.iter().zip(&expected).all(|(a, b)| a.zip(*b).is_none_or(|(a, b)| a == b));
    if fits {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "updates has shape {} but must have shape {} for indices of shape {} and output shape {shape} [Op:ScatterNd]",
        describe_dims(&u.dims),
        describe_dims(&expected),
        describe_dims(&i.dims)
    )))
}

impl Primitive for WhereIndices {
    fn tf_name(&self) -> &'static str {
        "Where"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    /// How many elements are true is known only from the values.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        Ok(vec![TensorType { dtype: DType::I64, dims: vec![None, Some(x.rank())] }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        one(where_indices(arg(inputs, 0)?))
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: false, fusable: false }
    }
}

impl Decode for Gather {
    fn names() -> Vec<&'static str> {
        vec!["GatherV2"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        expect_name(name, "GatherV2")?;
        from_attrs(name, attrs)
    }
}

impl Decode for GatherNd {
    fn names() -> Vec<&'static str> {
        vec!["GatherNd"]
    }

    fn decode(name: &str, _: &Attrs) -> Result<Self> {
        expect_name(name, "GatherNd")?;
        Ok(GatherNd)
    }
}

impl Decode for ScatterNd {
    fn names() -> Vec<&'static str> {
        vec!["ScatterNd"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        expect_name(name, "ScatterNd")?;
        from_attrs(name, attrs)
    }
}

impl Decode for WhereIndices {
    fn names() -> Vec<&'static str> {
        vec!["Where"]
    }

    fn decode(name: &str, _: &Attrs) -> Result<Self> {
        expect_name(name, "Where")?;
        Ok(WhereIndices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(dtype: DType, dims: &[Option<usize>]) -> TensorType {
        TensorType { dtype, dims: dims.to_vec() }
    }

    #[test]
    fn partial_dims() {
        let p = ty(DType::F32, &[Some(2), None, Some(4)]);
        let i = ty(DType::I32, &[None, Some(5)]);
        let g = Gather { axis: 1, batch_dims: 1 }.infer(&[p.clone(), i.clone()]).unwrap();
        assert_eq!(g[0].dims, [Some(2), Some(5), Some(4)]);
        let nd = GatherNd.infer(&[p.clone(), ty(DType::I64, &[None, Some(2)])]).unwrap();
        assert_eq!(nd[0].dims, [None, Some(4)]);
        assert!(GatherNd.infer(&[p.clone(), ty(DType::F32, &[Some(1), Some(1)])]).is_err());
        let s = ScatterNd(Shape(vec![3, 4]));
        let u = ty(DType::F32, &[None, Some(4)]);
        assert_eq!(
            s.infer(&[ty(DType::I32, &[None, Some(1)]), u]).unwrap()[0].dims,
            [Some(3), Some(4)]
        );
        let bad = ty(DType::F32, &[None, Some(5)]);
        assert!(s.infer(&[ty(DType::I32, &[None, Some(1)]), bad]).is_err());
        let w = WhereIndices.infer(&[p]).unwrap();
        assert_eq!(w[0], ty(DType::I64, &[None, Some(3)]));
    }
}
