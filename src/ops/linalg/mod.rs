//! `tf.linalg`'s decompositions and solvers as primitives (TensorFlow's op names: Cholesky,
//! MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, MatrixSolve, MatrixTriangularSolve,
//! Qr, Svd, SelfAdjointEigV2, Eig, Lu). Each works on the last two axes, batched over the
//! leading ones (matrices in parallel), in float32/float64/complex64/complex128 through
//! `faer`; all stay on the CPU (soft placement moves them there). Gradients are TensorFlow's
//! rules (`linalg_grad.py`) written with ops (`grad.rs`), so they differentiate again.
//! Compositions of other primitives (band part, diagonals, adjoint) are in `matrix.rs`.

mod grad;
mod kernels;
pub mod matrix;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    describe_dims, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::tensor::Tensor;
use kernels::{per_matrix, tensor, with_linalg};
use num_complex::Complex;
use serde_json::Value;

/// One `tf.linalg` decomposition or solver; the variant is TensorFlow's op name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "op")]
pub enum LinalgOp {
    /// The lower Cholesky factor (NaN where the matrix is not positive definite).
    Cholesky,
    MatrixInverse {
        adjoint: bool,
    },
    MatrixDeterminant,
    /// Outputs: sign, log |det|.
    LogMatrixDeterminant,
    /// Inputs: matrix, right-hand sides.
    MatrixSolve {
        adjoint: bool,
    },
    /// Inputs: matrix, right-hand sides (batch dims broadcast).
    MatrixTriangularSolve {
        lower: bool,
        adjoint: bool,
    },
    /// Outputs: q, r.
    Qr {
        full_matrices: bool,
    },
    /// Outputs: s, u, v (u and v empty without `compute_uv`).
    Svd {
        compute_uv: bool,
        full_matrices: bool,
    },
    /// Outputs: e (ascending), v (empty without `compute_v`).
    SelfAdjointEigV2 {
        compute_v: bool,
    },
    /// Outputs (complex): e, v (empty without `compute_v`).
    Eig {
        compute_v: bool,
    },
    /// Outputs: the packed LU factors and the row permutation (int32, or int64 with
    /// `index_i64`).
    Lu {
        index_i64: bool,
    },
}

const NAMES: [&str; 11] = [
    "Cholesky",
    "MatrixInverse",
    "MatrixDeterminant",
    "LogMatrixDeterminant",
    "MatrixSolve",
    "MatrixTriangularSolve",
    "Qr",
    "Svd",
    "SelfAdjointEigV2",
    "Eig",
    "Lu",
];

const ALLOWED: &str = "double, float, half, complex64, complex128";

impl LinalgOp {
    fn name(&self) -> &'static str {
        match self {
            LinalgOp::Cholesky => "Cholesky",
            LinalgOp::MatrixInverse { .. } => "MatrixInverse",
            LinalgOp::MatrixDeterminant => "MatrixDeterminant",
            LinalgOp::LogMatrixDeterminant => "LogMatrixDeterminant",
            LinalgOp::MatrixSolve { .. } => "MatrixSolve",
            LinalgOp::MatrixTriangularSolve { .. } => "MatrixTriangularSolve",
            LinalgOp::Qr { .. } => "Qr",
            LinalgOp::Svd { .. } => "Svd",
            LinalgOp::SelfAdjointEigV2 { .. } => "SelfAdjointEigV2",
            LinalgOp::Eig { .. } => "Eig",
            LinalgOp::Lu { .. } => "Lu",
        }
    }

    fn error(&self, message: &str) -> Error {
        Error::InvalidArgument(format!("{message} [Op:{}]", self.name()))
    }

    /// TensorFlow's dtype checks: the attr error for a type the op does not declare, and no
    /// kernel for half (TensorFlow declares it but registers one on the CPU only for Qr and
    /// MatrixInverse).
    fn check_dtype(&self, dtype: DType) -> Result<()> {
        match dtype {
            DType::F32 | DType::F64 | DType::C64 | DType::C128 => Ok(()),
            DType::F16 if matches!(self, LinalgOp::Qr { .. } | LinalgOp::MatrixInverse { .. }) => {
                Ok(())
            }
            DType::F16 => Err(Error::NotFound(format!(
                "Could not find device for node: {{{{node {0}}}}} = {0}[T=DT_HALF]",
                self.name()
            ))),
            other => Err(Error::InvalidArgument(format!(
                "Value for attr 'T' of {} is not in the list of allowed values: {ALLOWED} \
                 [Op:{}]",
                other.name(),
                self.name()
            ))),
        }
    }

    /// A matrix operand: rank at least 2, square where the op needs it.
    fn matrix<'a>(&self, x: &'a TensorType, k: usize, square: bool) -> Result<&'a TensorType> {
        if x.rank() < 2 {
            return Err(
                self.error(&format!("Input tensor {k} must have rank >= 2, got {}", x.rank()))
            );
        }
        let r = x.rank();
        if square {
            if let (Some(a), Some(b)) = (x.dims[r - 2], x.dims[r - 1]) {
                if a != b {
                    return Err(self.error("Input matrix must be square."));
                }
            }
        }
        Ok(x)
    }

    fn square(&self, inputs: &[TensorType]) -> Result<TensorType> {
        let x = input(inputs, 0)?;
        self.check_dtype(x.dtype)?;
        Ok(self.matrix(x, 0, true)?.clone())
    }
}

fn batch(x: &TensorType) -> Vec<Option<usize>> {
    x.dims[..x.rank() - 2].to_vec()
}

fn with_dims(dtype: DType, dims: Vec<Option<usize>>) -> TensorType {
    TensorType { dtype, dims }
}

fn empty(dtype: DType) -> TensorType {
    TensorType::known(dtype, &[0])
}

/// The complex dtype of the same precision.
fn complex_of(dtype: DType) -> DType {
    match dtype {
        DType::F64 | DType::C128 => DType::C128,
        _ => DType::C64,
    }
}

/// Broadcast batch dims of two operands (MatrixTriangularSolve), or TensorFlow's error.
fn broadcast_batch(
    op: &LinalgOp,
    a: &[Option<usize>],
    b: &[Option<usize>],
) -> Result<Vec<Option<usize>>> {
    let rank = a.len().max(b.len());
    (0..rank)
        .map(|k| {
            let pick = |d: &[Option<usize>]| (k + d.len()).checked_sub(rank).map(|i| d[i]);
            match (pick(a), pick(b)) {
                (None, Some(d)) | (Some(d), None) => Ok(d),
                (Some(Some(1)), Some(d)) | (Some(d), Some(Some(1))) => Ok(d),
                (Some(Some(x)), Some(Some(y))) if x != y => Err(op.error(&format!(
                    "Incompatible shapes: {} vs. {}",
                    describe_dims(a),
                    describe_dims(b)
                ))),
                (Some(x), Some(y)) => Ok(x.or(y)),
                (None, None) => Ok(None),
            }
        })
        .collect()
}

impl Primitive for LinalgOp {
    fn tf_name(&self) -> &'static str {
        self.name()
    }

    fn arity(&self) -> Arity {
        match self {
            LinalgOp::MatrixSolve { .. } | LinalgOp::MatrixTriangularSolve { .. } => {
                Arity::Exactly(2)
            }
            _ => Arity::Exactly(1),
        }
    }

    fn attrs(&self) -> Attrs {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Attrs::new(),
        }
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        match self {
            LinalgOp::Cholesky | LinalgOp::MatrixInverse { .. } => Ok(vec![self.square(inputs)?]),
            LinalgOp::MatrixDeterminant => {
                let x = self.square(inputs)?;
                Ok(vec![with_dims(x.dtype, batch(&x))])
            }
            LinalgOp::LogMatrixDeterminant => {
                let x = self.square(inputs)?;
                let t = with_dims(x.dtype, batch(&x));
                Ok(vec![t.clone(), t])
            }
            LinalgOp::Lu { index_i64 } => {
                let x = self.square(inputs)?;
                let mut p = batch(&x);
                p.push(x.dims[x.rank() - 1]);
                let index = if *index_i64 { DType::I64 } else { DType::I32 };
                Ok(vec![x.clone(), with_dims(index, p)])
            }
            LinalgOp::SelfAdjointEigV2 { compute_v } => {
                let x = self.square(inputs)?;
                let mut e = batch(&x);
                e.push(x.dims[x.rank() - 1]);
                let v = if *compute_v { x.clone() } else { empty(x.dtype) };
                Ok(vec![with_dims(x.dtype, e), v])
            }
            LinalgOp::Eig { compute_v } => {
                let x = self.square(inputs)?;
                let c = complex_of(x.dtype);
                let mut e = batch(&x);
                e.push(x.dims[x.rank() - 1]);
                let v = if *compute_v { x.with_dtype(c) } else { empty(c) };
                Ok(vec![with_dims(c, e), v])
            }
            LinalgOp::Qr { full_matrices } => {
                let x = input(inputs, 0)?;
                self.check_dtype(x.dtype)?;
                self.matrix(x, 0, false)?;
                let (m, n) = (x.dims[x.rank() - 2], x.dims[x.rank() - 1]);
                let p = if *full_matrices { m } else { min_dim(m, n) };
                let mut q = batch(x);
                q.extend([m, p]);
                let mut r = batch(x);
                r.extend([p, n]);
                Ok(vec![with_dims(x.dtype, q), with_dims(x.dtype, r)])
            }
            LinalgOp::Svd { compute_uv, full_matrices } => {
                let x = input(inputs, 0)?;
                self.check_dtype(x.dtype)?;
                self.matrix(x, 0, false)?;
                let (m, n) = (x.dims[x.rank() - 2], x.dims[x.rank() - 1]);
                let p = min_dim(m, n);
                let mut s = batch(x);
                s.push(p);
                let s = with_dims(x.dtype, s);
                if !compute_uv {
                    return Ok(vec![s, empty(x.dtype), empty(x.dtype)]);
                }
                let (uc, vc) = if *full_matrices { (m, n) } else { (p, p) };
                let mut u = batch(x);
                u.extend([m, uc]);
                let mut v = batch(x);
                v.extend([n, vc]);
                Ok(vec![s, with_dims(x.dtype, u), with_dims(x.dtype, v)])
            }
            LinalgOp::MatrixSolve { .. } => {
                let a = self.square(inputs)?;
                let b = input(inputs, 1)?;
                if b.dtype != a.dtype {
                    return Err(Error::InvalidArgument(format!(
                        "cannot compute MatrixSolve as input #1(zero-based) was expected to be \
                         a {} tensor but is a {} tensor [Op:MatrixSolve]",
                        a.dtype.name(),
                        b.dtype.name()
                    )));
                }
                self.matrix(b, 1, false)?;
                if a.rank() != b.rank() {
                    return Err(self.error("All input tensors must have the same rank."));
                }
                let r = a.rank();
                for k in 0..r - 1 {
                    if let (Some(x), Some(y)) = (a.dims[k], b.dims[k]) {
                        if x != y {
                            let message = if k == r - 2 {
                                "Input matrix and rhs are incompatible."
                            } else {
                                "All input tensors must have the same outer dimensions."
                            };
                            return Err(self.error(message));
                        }
                    }
                }
                Ok(vec![b.clone()])
            }
            LinalgOp::MatrixTriangularSolve { lower, adjoint } => {
                let a = self.square(inputs)?;
                let b = input(inputs, 1)?;
                if b.dtype != a.dtype {
                    return Err(Error::InvalidArgument(format!(
                        "cannot compute MatrixTriangularSolve as input #1(zero-based) was \
                         expected to be a {} tensor but is a {} tensor [Op:MatrixTriangularSolve]",
                        a.dtype.name(),
                        b.dtype.name()
                    )));
                }
                self.matrix(b, 1, false)?;
                let (n, rows) = (a.dims[a.rank() - 1], b.dims[b.rank() - 2]);
                if let (Some(n), Some(rows)) = (n, rows) {
                    if n != rows {
                        return Err(self.error(&format!(
                            "In[0] mismatch In[1] shape: {n} vs. {rows}: {} {} {} {}",
                            describe_dims(&a.dims),
                            describe_dims(&b.dims),
                            u8::from(*lower),
                            u8::from(*adjoint)
                        )));
                    }
                }
                let mut dims = broadcast_batch(self, &batch(&a), &batch(b))?;
                dims.extend([b.dims[b.rank() - 2], b.dims[b.rank() - 1]]);
                Ok(vec![with_dims(a.dtype, dims)])
            }
        }
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        let out_types = self.infer(&types)?;
        let dims =
            |k: usize| -> Vec<usize> { out_types[k].dims.iter().map(|d| d.unwrap_or(0)).collect() };
        if inputs.iter().any(|t| t.dtype() == DType::F16) {
            // The half kernels (Qr, MatrixInverse): computed in float32, the results rounded.
            let wide = inputs.iter().map(|t| crate::ops::cast::cpu(t, DType::F32));
            let wide = wide.collect::<Result<Vec<Tensor>>>()?;
            let outs = self.cpu(&wide.iter().collect::<Vec<&Tensor>>())?;
            return outs.iter().map(|t| crate::ops::cast::cpu(t, DType::F16)).collect();
        }
        let x = inputs[0];
        let (count, rows, cols) = kernels::batch_of(x);
        match self {
            LinalgOp::MatrixSolve { adjoint } => solve(x, inputs[1], *adjoint, dims(0)),
            LinalgOp::MatrixTriangularSolve { lower, adjoint } => {
                triangular_solve(x, inputs[1], *lower, *adjoint, dims(0))
            }
            LinalgOp::Eig { compute_v } => {
                let compute_v = *compute_v;
                let single = matches!(x.dtype(), DType::F32 | DType::C64);
                let outs = with_linalg!(x.buffer(), d => {
                    per_matrix(d, (count, rows, cols), 2, |m| kernels::eig(m, compute_v, single))?
                }, else return Err(Error::unsupported_dtype("Eig", x.dtype())));
                Ok(outs
                    .into_iter()
                    .enumerate()
                    .map(|(k, o)| {
                        if single {
                            let narrow: Vec<Complex<f32>> = o
                                .into_iter()
                                .map(|z| Complex::new(z.re as f32, z.im as f32))
                                .collect();
                            tensor(narrow, dims(k))
                        } else {
                            tensor(o, dims(k))
                        }
                    })
                    .collect())
            }
            LinalgOp::Lu { index_i64 } => {
                use rayon::prelude::*;
                let index_i64 = *index_i64;
                with_linalg!(x.buffer(), d => {
                    let size = rows * cols;
                    let parts: Vec<_> = if size == 0 {
                        Vec::new()
                    } else {
                        d.par_chunks(size)
                            .map(|c| kernels::lu(kernels::view(c, rows, cols)))
                            .collect::<Result<_>>()
                            .map_err(|e| match e {
                                Error::InvalidArgument(m) => self.error(&m),
                                other => other,
                            })?
                    };
                    let (mut lu, mut p) = (Vec::new(), Vec::new());
                    for (a, b) in parts {
                        lu.extend(a);
                        p.extend(b);
                    }
                    let p = if index_i64 {
                        tensor(p, dims(1))
                    } else {
                        let narrow: Vec<i32> = p.into_iter().map(|v| v as i32).collect();
                        tensor(narrow, dims(1))
                    };
                    Ok(vec![tensor(lu, dims(0)), p])
                }, else Err(Error::unsupported_dtype("Lu", x.dtype())))
            }
            _ => {
                let op = self.clone();
                let n_out = out_types.len();
                with_linalg!(x.buffer(), d => {
                    let outs = per_matrix(d, (count, rows, cols), n_out, |m| match &op {
                        LinalgOp::Cholesky => kernels::cholesky(m),
                        LinalgOp::MatrixInverse { adjoint } => kernels::inverse(m, *adjoint),
                        LinalgOp::MatrixDeterminant => kernels::determinant(m),
                        LinalgOp::LogMatrixDeterminant => kernels::slogdet(m),
                        LinalgOp::Qr { full_matrices } => kernels::qr(m, *full_matrices),
                        LinalgOp::Svd { compute_uv, full_matrices } => {
                            kernels::svd(m, *compute_uv, *full_matrices)
                        }
                        LinalgOp::SelfAdjointEigV2 { compute_v } => kernels::eigh(m, *compute_v),
                        _ => Err(Error::Internal("unreachable linalg kernel".into())),
                    })
                    .map_err(|e| match e {
                        Error::InvalidArgument(m) => self.error(&m),
                        other => other,
                    })?;
                    Ok(outs.into_iter().enumerate().map(|(k, o)| tensor(o, dims(k))).collect())
                }, else Err(Error::unsupported_dtype(self.name(), x.dtype())))
            }
        }
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let upstream = vec![Some(g.clone()); 1];
        self.gradient_of_outputs(inputs, outputs, &upstream)
    }

    fn gradient_of_outputs(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        grad::gradient(self, inputs, outputs, upstream)
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly(
                "dense factorisations are sequential pivoting algorithms run by faer on the host",
            ),
            // TensorFlow registers no gradient for Lu.
            differentiable: !matches!(self, LinalgOp::Lu { .. }),
            fusable: false,
        }
    }
}

fn min_dim(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (Some(0), None) | (None, Some(0)) => Some(0),
        _ => None,
    }
}

impl Decode for LinalgOp {
    fn names() -> Vec<&'static str> {
        NAMES.to_vec()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let mut attrs = attrs.clone();
        attrs.insert("op".into(), Value::String(name.into()));
        serde_json::from_value(Value::Object(attrs)).map_err(|e| {
            Error::DataLoss(format!("the attributes of a saved {name} node are invalid: {e}"))
        })
    }
}

/// `MatrixSolve`: batch dims equal (checked by the shape rule).
fn solve(a: &Tensor, b: &Tensor, adjoint: bool, dims: Vec<usize>) -> Result<Vec<Tensor>> {
    let (count, n, _) = kernels::batch_of(a);
    let k = dims[dims.len() - 1];
    Ok(vec![solve_typed(a, b, adjoint, count, n, k)?])
}

fn solve_typed(
    a: &Tensor,
    b: &Tensor,
    adjoint: bool,
    count: usize,
    n: usize,
    k: usize,
) -> Result<Tensor> {
    use rayon::prelude::*;
    macro_rules! run {
        ($ad:expr, $bd:expr) => {{
            let parts: Vec<_> = (0..count)
                .into_par_iter()
                .map(|i| {
                    let am = kernels::view(&$ad[i * n * n..(i + 1) * n * n], n, n);
                    let bm = kernels::view(&$bd[i * n * k..(i + 1) * n * k], n, k);
                    kernels::solve(am, bm, adjoint)
                })
                .collect::<Result<_>>()
                .map_err(|e| match e {
                    Error::InvalidArgument(m) => {
                        Error::InvalidArgument(format!("{m} [Op:MatrixSolve]"))
                    }
                    other => other,
                })?;
            let flat: Vec<_> = parts.into_iter().flatten().collect();
            Ok(tensor(flat, b.dims().to_vec()))
        }};
    }
    use crate::buffer::Buffer;
    match (a.buffer(), b.buffer()) {
        (Buffer::F32(ad), Buffer::F32(bd)) => run!(ad, bd),
        (Buffer::F64(ad), Buffer::F64(bd)) => run!(ad, bd),
        (Buffer::C64(ad), Buffer::C64(bd)) => run!(ad, bd),
        (Buffer::C128(ad), Buffer::C128(bd)) => run!(ad, bd),
        _ => Err(Error::unsupported_dtype("MatrixSolve", a.dtype())),
    }
}

/// `MatrixTriangularSolve` with broadcast batch dims.
fn triangular_solve(
    a: &Tensor,
    b: &Tensor,
    lower: bool,
    adjoint: bool,
    dims: Vec<usize>,
) -> Result<Vec<Tensor>> {
    use crate::buffer::Buffer;
    use rayon::prelude::*;
    let r = dims.len();
    let batch_dims = &dims[..r - 2];
    let count: usize = batch_dims.iter().product();
    let (n, k) = (dims[r - 2], dims[r - 1]);
    // Broadcast both operands' batches to the output's, as index maps.
    let index = |t: &Tensor| -> Vec<usize> {
        let td = &t.dims()[..t.rank() - 2];
        let lead = batch_dims.len() - td.len();
        (0..count)
            .map(|flat| {
                let mut rem = flat;
                let mut idx = 0;
                let mut stride = 1;
                for ax in (0..batch_dims.len()).rev() {
                    let c = rem % batch_dims[ax];
                    rem /= batch_dims[ax];
                    if ax >= lead {
                        let size = td[ax - lead];
                        idx += if size == 1 { 0 } else { c * stride };
                        stride *= size;
                    }
                }
                idx
            })
            .collect()
    };
    let (ia, ib) = (index(a), index(b));
    macro_rules! run {
        ($ad:expr, $bd:expr) => {{
            let parts: Vec<_> = (0..count)
                .into_par_iter()
                .map(|i| {
                    let am = kernels::view(&$ad[ia[i] * n * n..(ia[i] + 1) * n * n], n, n);
                    let bm = kernels::view(&$bd[ib[i] * n * k..(ib[i] + 1) * n * k], n, k);
                    kernels::triangular_solve(am, bm, lower, adjoint)
                })
                .collect();
            let flat: Vec<_> = parts.into_iter().flatten().collect();
            Ok(vec![tensor(flat, dims.clone())])
        }};
    }
    match (a.buffer(), b.buffer()) {
        (Buffer::F32(ad), Buffer::F32(bd)) => run!(ad, bd),
        (Buffer::F64(ad), Buffer::F64(bd)) => run!(ad, bd),
        (Buffer::C64(ad), Buffer::C64(bd)) => run!(ad, bd),
        (Buffer::C128(ad), Buffer::C128(bd)) => run!(ad, bd),
        _ => Err(Error::unsupported_dtype("MatrixTriangularSolve", a.dtype())),
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let spd = Tensor::from_slice(&[4.0f64, 2.0, 2.0, 3.0], &[2, 2]).unwrap();
    let gen =
        Tensor::from_slice(&[1.0f64, 2.0, 0.0, 3.0, 4.0, 1.0, 0.5, 1.0, 2.0], &[3, 3]).unwrap();
    let tall = Tensor::from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 7.0], &[3, 2]).unwrap();
    let rhs = Tensor::from_slice(&[1.0f64, 0.0, 2.0, 1.0, 0.0, 3.0], &[3, 2]).unwrap();
    let one = |op: LinalgOp, x: &Tensor| (Op::Linalg(op), vec![x.clone()]);
    vec![
        one(LinalgOp::Cholesky, &spd),
        one(LinalgOp::MatrixInverse { adjoint: false }, &gen),
        one(LinalgOp::MatrixDeterminant, &gen),
        one(LinalgOp::LogMatrixDeterminant, &gen),
        (Op::Linalg(LinalgOp::MatrixSolve { adjoint: true }), vec![gen.clone(), rhs.clone()]),
        (
            Op::Linalg(LinalgOp::MatrixTriangularSolve { lower: true, adjoint: false }),
            vec![gen.clone(), rhs],
        ),
        one(LinalgOp::Qr { full_matrices: false }, &tall),
        one(LinalgOp::Svd { compute_uv: true, full_matrices: false }, &tall),
        one(LinalgOp::SelfAdjointEigV2 { compute_v: true }, &spd),
        one(LinalgOp::Lu { index_i64: false }, &gen),
        one(LinalgOp::Eig { compute_v: true }, &gen),
    ]
}
