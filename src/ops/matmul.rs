//! `BatchMatMulV2`: batched matrix products with broadcasting batch dimensions, transposes and
//! adjoints. float32/float64/complex use the `gemm` crate's packed SIMD kernels; half types go
//! through float32 (as TensorFlow accumulates them); integers use a plain loop.

use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::element::{Element, Num};
use crate::error::{Error, Result};
use crate::kernels::gemm::{matmul_uninit, parallelism_for, MatRef, Parallelism};
use crate::ops::cast;
use crate::ops::primitive::{
    attrs_of, broadcast, describe_dims, from_attrs, input, Arity, Attrs, Decisions, Decode,
    GpuKernel, Primitive, TensorType,
};
use crate::shape::{broadcast_shapes, Shape};
use crate::tensor::Tensor;
use rayon::prelude::*;
use std::mem::MaybeUninit;

#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct MatMulAttrs {
    pub transpose_a: bool,
    pub transpose_b: bool,
    pub adjoint_a: bool,
    pub adjoint_b: bool,
}

impl Primitive for MatMulAttrs {
    fn tf_name(&self) -> &'static str {
        "BatchMatMulV2"
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(2)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        Ok(vec![product_type(*self, input(inputs, 0)?, input(inputs, 1)?)?])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![cpu(inputs[0], inputs[1], *self)?])
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        _outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        crate::autodiff::rules::linalg::matmul(*self, &inputs[0], &inputs[1], g)
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for MatMulAttrs {
    fn names() -> Vec<&'static str> {
        vec!["BatchMatMulV2"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_attrs(name, attrs)
    }
}

/// `geometry`'s rule over static dims, with its errors (in its order) where the known dims
/// already decide them.
fn product_type(attrs: MatMulAttrs, a: &TensorType, b: &TensorType) -> Result<TensorType> {
    if a.dtype != b.dtype {
        return Err(Error::dtype_mismatch("MatMul", a.dtype, b.dtype));
    }
    let (ad, bd) = (&a.dims, &b.dims);
    if ad.len() < 2 || bd.len() < 2 {
        return Err(Error::InvalidArgument(format!(
            "In[0] and In[1] must be at least rank 2, got shapes {} and {} [Op:MatMul]",
            describe_dims(ad),
            describe_dims(bd)
        )));
    }
    let (ra, rb) = (ad.len(), bd.len());
    let ta = attrs.transpose_a || attrs.adjoint_a;
    let tb = attrs.transpose_b || attrs.adjoint_b;
    let (m, ka) = if ta { (ad[ra - 1], ad[ra - 2]) } else { (ad[ra - 2], ad[ra - 1]) };
    let (kb, n) = if tb { (bd[rb - 1], bd[rb - 2]) } else { (bd[rb - 2], bd[rb - 1]) };
    if ka.zip(kb).is_some_and(|(ka, kb)| ka != kb) {
        return Err(Error::InvalidArgument(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {} [Op:MatMul]",
            describe_dims(ad),
            describe_dims(bd)
        )));
    }
    let batch_a = TensorType { dtype: a.dtype, dims: ad[..ra - 2].to_vec() };
    let batch_b = TensorType { dtype: b.dtype, dims: bd[..rb - 2].to_vec() };
    let mut dims = broadcast(&[&batch_a, &batch_b], "BatchMatMulV2").map_err(|_| {
        Error::InvalidArgument(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {} \
             [Op:BatchMatMulV2]",
            describe_dims(ad),
            describe_dims(bd)
        ))
    })?;
    // Booleans pass the shape rule and then find no kernel.
    if !DTypeSet::NUMERIC.contains(a.dtype) {
        return Err(Error::unsupported_dtype("MatMul", a.dtype));
    }
    dims.extend([m, n]);
    Ok(TensorType { dtype: a.dtype, dims })
}

/// Geometry of one batched product.
#[derive(Clone, Copy)]
struct Dims {
    m: usize,
    n: usize,
    k: usize,
    ta: bool,
    tb: bool,
}

/// The shape rule of `BatchMatMulV2`, shared by the CPU and GPU kernels: validated sizes, the
/// batch shapes of both inputs and of the output, and the output shape (allocation checked).
pub struct Geometry {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub transpose_a: bool,
    pub transpose_b: bool,
    pub batch_a: Shape,
    pub batch_b: Shape,
    pub batch: Shape,
    pub out_shape: Shape,
}

pub fn geometry(a: &Tensor, b: &Tensor, attrs: MatMulAttrs) -> Result<Geometry> {
    if a.dtype() != b.dtype() {
        return Err(Error::dtype_mismatch("MatMul", a.dtype(), b.dtype()));
    }
    if a.rank() < 2 || b.rank() < 2 {
        return Err(Error::InvalidArgument(format!(
            "In[0] and In[1] must be at least rank 2, got shapes {} and {} [Op:MatMul]",
            a.shape(),
            b.shape()
        )));
    }
    let ta = attrs.transpose_a || attrs.adjoint_a;
    let tb = attrs.transpose_b || attrs.adjoint_b;
    let (ad, bd) = (a.dims(), b.dims());
    let (ra, rb) = (ad.len(), bd.len());
    let (m, ka) = if ta { (ad[ra - 1], ad[ra - 2]) } else { (ad[ra - 2], ad[ra - 1]) };
    let (kb, n) = if tb { (bd[rb - 1], bd[rb - 2]) } else { (bd[rb - 2], bd[rb - 1]) };
    if ka != kb {
        return Err(Error::InvalidArgument(format!(
            "Matrix size-incompatible: In[0]: {}, In[1]: {} [Op:MatMul]",
            a.shape(),
            b.shape()
        )));
    }
    let batch_a = Shape(ad[..ra - 2].to_vec());
    let batch_b = Shape(bd[..rb - 2].to_vec());
    let batch = broadcast_shapes(&batch_a, &batch_b).map_err(|_| {
        Error::InvalidArgument(format!(
            "In[0] and In[1] must have compatible batch dimensions: {} vs. {} [Op:BatchMatMulV2]",
            a.shape(),
            b.shape()
        ))
    })?;
    let mut out_dims = batch.0.clone();
    out_dims.extend([m, n]);
    let total = out_dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    crate::shape::check_alloc(total.unwrap_or(usize::MAX), a.dtype())?;
    let out_shape = Shape(out_dims);
    Ok(Geometry {
        m,
        n,
        k: ka,
        transpose_a: ta,
        transpose_b: tb,
        batch_a,
        batch_b,
        batch,
        out_shape,
    })
}

pub fn cpu(a: &Tensor, b: &Tensor, attrs: MatMulAttrs) -> Result<Tensor> {
    let g = geometry(a, b, attrs)?;
    let (batch, batch_a, batch_b, out_shape) = (&g.batch, &g.batch_a, &g.batch_b, g.out_shape);
    let dims = Dims { m: g.m, n: g.n, k: g.k, ta: g.transpose_a, tb: g.transpose_b };
    // Map each output batch index to the (broadcast) batch index of each input.
    let nb = batch.num_elements();
    crate::shape::check_alloc(nb.saturating_mul(16), DType::U8)?;
    let pairs: Vec<(usize, usize)> = (0..nb)
        .map(|i| (source_index(i, batch, batch_a), source_index(i, batch, batch_b)))
        .collect();
    let (ca, cb) = (attrs.adjoint_a, attrs.adjoint_b);
    let out = match (a.buffer(), b.buffer()) {
        (Buffer::F32(x), Buffer::F32(y)) => Buffer::F32(batched(x, y, &pairs, dims, false, false)),
        (Buffer::F64(x), Buffer::F64(y)) => Buffer::F64(batched(x, y, &pairs, dims, false, false)),
        (Buffer::C64(x), Buffer::C64(y)) => Buffer::C64(batched(x, y, &pairs, dims, ca, cb)),
        (Buffer::C128(x), Buffer::C128(y)) => Buffer::C128(batched(x, y, &pairs, dims, ca, cb)),
        (Buffer::F16(_), _) | (Buffer::BF16(_), _) => {
            let wide = |t: &Tensor| cast::cpu(t, DType::F32);
            let r = cpu(&wide(a)?, &wide(b)?, attrs)?;
            return cast::cpu(&r, a.dtype());
        }
        _ => crate::with_int!(a.buffer(), x => {
            let y = Element::unwrap(b.buffer()).ok_or_else(|| Error::Internal("matmul dtype".into()))?;
            Element::wrap(naive_batched(x, y, &pairs, dims))
        }, else return Err(Error::unsupported_dtype("MatMul", a.dtype()))),
    };
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

/// Flat index into `src` batch shape (right-aligned, size-1 dims broadcast) for output batch `i`.
fn source_index(i: usize, out: &Shape, src: &Shape) -> usize {
    let offset = out.rank() - src.rank();
    let mut rest = i;
    let mut idx = 0;
    let strides = out.strides();
    let src_strides = src.strides();
    for axis in 0..out.rank() {
        let coord = rest / strides[axis];
        rest %= strides[axis];
        if axis >= offset {
            let d = src.dims()[axis - offset];
            idx += if d == 1 { 0 } else { coord * src_strides[axis - offset] };
        }
    }
    idx
}

fn batched<T: Num + 'static>(
    x: &[T],
    y: &[T],
    pairs: &[(usize, usize)],
    d: Dims,
    conj_a: bool,
    conj_b: bool,
) -> Vec<T> {
    let (sa, sb, so) = (d.m * d.k, d.k * d.n, d.m * d.n);
    let total = pairs.len() * so;
    let mut out: Vec<T> = crate::kernels::alloc::with_capacity(total);
    if so == 0 {
        return out;
    }
    let big = matches!(parallelism_for(d.m, d.n, d.k), Parallelism::Rayon(_));
    // A transposed b is laid out row-major first, each of its matrices once however many
    // products read it: the crate reading b down its columns ran at 60-90% of the plain
    // product's speed (64 x 64 x 256: 34 vs 21 µs; 512^3: 1.8 vs 1.2 ms), and the tiled
    // transpose costs a few percent of a product of 16 rows or more (below, as much as the
    // product itself, so those read b in place).
    let laid_out = (d.tb && d.m >= 16).then(|| {
        crate::kernels::transpose::permute(y, &[y.len() / sb.max(1), d.n, d.k], &[0, 2, 1])
    });
    let run = |dst: &mut [MaybeUninit<T>], (ia, ib): (usize, usize), par: Parallelism| {
        let a = MatRef::rows(&x[ia * sa..ia * sa + sa], d.m, d.k);
        let a = if d.ta { MatRef::rows(&x[ia * sa..ia * sa + sa], d.k, d.m).t() } else { a };
        let b = match &laid_out {
            Some(laid_out) => MatRef::rows(&laid_out[ib * sb..ib * sb + sb], d.k, d.n),
            None if d.tb => MatRef::rows(&y[ib * sb..ib * sb + sb], d.n, d.k).t(),
            None => MatRef::rows(&y[ib * sb..ib * sb + sb], d.k, d.n),
        };
        matmul_uninit(dst, a, b, (conj_a, conj_b), par);
    };
    let dst = &mut out.spare_capacity_mut()[..total];
    // One product at a time, each split across the threads, only when there are fewer products
    // than threads: otherwise whole products per thread scale better (a batch of 64 products of
    // 256^3 ran at 63% of the FMA peak split, one product per thread avoids the splitting).
    if pairs.len() == 1 || (big && pairs.len() < rayon::current_num_threads()) {
        let par = parallelism_for(d.m, d.n, d.k);
        for (dst, &p) in dst.chunks_mut(so).zip(pairs) {
            run(dst, p, par);
        }
    } else {
        dst.par_chunks_mut(so)
            .zip(pairs.par_iter())
            .for_each(|(dst, &p)| run(dst, p, Parallelism::None));
    }
    // SAFETY: each of the `pairs.len()` chunks of `so` elements was written by its product.
    unsafe { out.set_len(total) };
    out
}

fn naive_batched<T: Num>(x: &[T], y: &[T], pairs: &[(usize, usize)], d: Dims) -> Vec<T> {
    let (sa, sb, so) = (d.m * d.k, d.k * d.n, d.m * d.n);
    let mut out = vec![T::zero(); pairs.len() * so];
    if so == 0 {
        return out;
    }
    out.par_chunks_mut(so).zip(pairs.par_iter()).for_each(|(dst, &(ia, ib))| {
        let a = |i: usize, k: usize| {
            if d.ta {
                x[ia * sa + k * d.m + i]
            } else {
                x[ia * sa + i * d.k + k]
            }
        };
        let b = |k: usize, j: usize| {
            if d.tb {
                y[ib * sb + j * d.k + k]
            } else {
                y[ib * sb + k * d.n + j]
            }
        };
        for i in 0..d.m {
            for k in 0..d.k {
                let av = a(i, k);
                for j in 0..d.n {
                    dst[i * d.n + j] = dst[i * d.n + j].add(av.mul(b(k, j)));
                }
            }
        }
    });
    out
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let t = |v: &[f32], d: &[usize]| Tensor::from_slice(v, d).unwrap();
    let a = t(&[1.0, 2.0, -1.0, 0.5, 3.0, -2.0], &[2, 3]);
    let b = t(&[0.5, -1.0, 2.0, 1.0, -0.5, 1.5], &[3, 2]);
    let batched = t(&(0..12).map(|i| i as f32 * 0.25 - 1.0).collect::<Vec<_>>(), &[2, 2, 3]);
    vec![
        (Op::MatMul(MatMulAttrs::default()), vec![a.clone(), b.clone()]),
        // Batch dims broadcast; b is read transposed ([n, k] = [2, 3]).
        (Op::MatMul(MatMulAttrs { transpose_b: true, ..Default::default() }), vec![batched, a]),
        (Op::MatMul(MatMulAttrs { adjoint_a: true, ..Default::default() }), vec![b.clone(), b]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_product() {
        let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let attrs = MatMulAttrs { transpose_b: true, ..Default::default() };
        let r = cpu(&x, &x, attrs).unwrap();
        assert_eq!(r.to_vec::<f32>().unwrap(), vec![14.0, 32.0, 32.0, 77.0]);
    }

    #[test]
    fn integer_and_batched_products() {
        let a = Tensor::from_slice(&[1i32, 2, 3, 4, 5, 6, 7, 8], &[2, 2, 2]).unwrap();
        let b = Tensor::from_slice(&[1i32, 0, 0, 1], &[2, 2]).unwrap();
        let r = cpu(&a, &b, MatMulAttrs::default()).unwrap();
        assert_eq!(r.dims(), &[2, 2, 2]);
        assert_eq!(r.to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 5, 6, 7, 8]);
        let bad = Tensor::from_slice(&[1i32; 3], &[3, 1]).unwrap();
        assert!(cpu(&a, &bad, MatMulAttrs::default()).is_err());
    }
}
