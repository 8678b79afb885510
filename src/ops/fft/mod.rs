//! TensorFlow's FFT primitives (`tf.signal.fft` ... `irfftnd`): FFT/IFFT, FFT2D/IFFT2D,
//! FFT3D/IFFT3D, FFTND/IFFTND and the real RFFT*/IRFFT* variants, one declaration for all
//! sixteen names. Inputs as TensorFlow's: the signal, then (real and N-D ops) an int32
//! `fft_length`, then (N-D ops) int32 `axes`. The ops crop the transformed axes to
//! `fft_length` (the Python wrappers pad first); the real forward op keeps the last axis'
//! n/2+1 non-negative frequencies. Batched over every other axis.
//!
//! GPU: complex64/float32 transforms whose lengths factor into primes up to 13 run as
//! Stockham passes in WGSL (`gpu/kernels/fft.rs`); float64/complex128 and other lengths run
//! here by soft placement.

mod kernel;

use crate::dispatch::apply1;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, describe_dims, from_attrs, input, Arity, Attrs, Decisions, Decode, GpuKernel,
    Primitive, TensorType,
};
use crate::ops::registry::Op;
use crate::ops::shape_ops::PadMode;
use crate::ops::{self, UnaryOp};
use crate::shape::Shape;
use crate::tensor::Tensor;
use kernel::Array;
use num_complex::{Complex32, Complex64};

/// One FFT primitive: real or complex, forward or inverse, over the last 1, 2 or 3 axes
/// (`rank`) or over the `axes` input (`rank: None`, the N-D ops).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Fft {
    pub real: bool,
    pub inverse: bool,
    pub rank: Option<u8>,
}

const TF_NAMES: [(&str, Fft); 16] = {
    const fn f(real: bool, inverse: bool, rank: Option<u8>) -> Fft {
        Fft { real, inverse, rank }
    }
    [
        ("FFT", f(false, false, Some(1))),
        ("IFFT", f(false, true, Some(1))),
        ("FFT2D", f(false, false, Some(2))),
        ("IFFT2D", f(false, true, Some(2))),
        ("FFT3D", f(false, false, Some(3))),
        ("IFFT3D", f(false, true, Some(3))),
        ("FFTND", f(false, false, None)),
        ("IFFTND", f(false, true, None)),
        ("RFFT", f(true, false, Some(1))),
        ("IRFFT", f(true, true, Some(1))),
        ("RFFT2D", f(true, false, Some(2))),
        ("IRFFT2D", f(true, true, Some(2))),
        ("RFFT3D", f(true, false, Some(3))),
        ("IRFFT3D", f(true, true, Some(3))),
        ("RFFTND", f(true, false, None)),
        ("IRFFTND", f(true, true, None)),
    ]
};

impl Fft {
    /// The op of this family with `rank` axes (None: N-D).
    pub fn new(real: bool, inverse: bool, rank: Option<u8>) -> Fft {
        Fft { real, inverse, rank }
    }

    fn inputs(&self) -> usize {
        match (self.rank, self.real) {
            (None, _) => 3,
            (Some(_), true) => 2,
            (Some(_), false) => 1,
        }
    }

    fn output_dtype(&self, x: DType) -> DType {
        match (self.real, self.inverse, x) {
            (true, false, DType::F64) => DType::C128,
            (true, false, _) => DType::C64,
            (true, true, x) => x.real_dtype(),
            (false, _, x) => x,
        }
    }

    fn check_dtype(&self, x: DType) -> Result<()> {
        let (attr, allowed, ok) = if self.real && !self.inverse {
            ("Treal", "float, double", matches!(x, DType::F32 | DType::F64))
        } else {
            ("Tcomplex", "complex64, complex128", matches!(x, DType::C64 | DType::C128))
        };
        if ok {
            return Ok(());
        }
        Err(Error::Type(format!(
            "Value for attr '{attr}' of {} is not in the list of allowed values: {allowed} \
             [Op:{}]",
            x.name(),
            self.tf_name()
        )))
    }

    fn error(&self, message: String) -> Error {
        Error::InvalidArgument(format!("{message} [Op:{}]", self.tf_name()))
    }

    /// The transformed axes and their lengths, from the input's rank and dims and the known
    /// values of `fft_length` and `axes` (None where unknown).
    #[allow(clippy::type_complexity)] // (axes, lengths) read once by two callers
    fn plan(
        &self,
        x: &TensorType,
        lengths: Option<&[Option<i64>]>,
        axes: Option<&[Option<i64>]>,
    ) -> Result<Option<(Vec<usize>, Vec<Option<usize>>)>> {
        let rank = x.rank();
        let axes: Vec<usize> = match self.rank {
            Some(r) => {
                let r = r as usize;
                if rank < r {
                    return Err(self.error(format!(
                        "Input must have rank of at least {r} but got: {}",
                        describe_dims(&x.dims)
                    )));
                }
                (rank - r..rank).collect()
            }
            None => match axes {
                None => return Ok(None),
                Some(axes) => {
                    let mut out = Vec::with_capacity(axes.len());
                    for a in axes {
                        let Some(a) = *a else { return Ok(None) };
                        let axis = crate::shape::normalize_axis(a, rank)
                            .map_err(|e| self.error(e.to_string()))?;
                        if out.contains(&axis) {
                            return Err(self.error(format!("axes must be distinct, got {a} twice")));
                        }
                        out.push(axis);
                    }
                    out
                }
            },
        };
        if self.real && axes.is_empty() {
            // The real transforms halve their last axis: they need one.
            return Err(self.error("a real FFT needs at least one axis".into()));
        }
        let lens: Vec<Option<usize>> = match (self.real || self.rank.is_none(), lengths) {
            (false, _) => axes.iter().map(|&a| x.dims[a]).collect(),
            (true, None) => vec![None; axes.len()],
            (true, Some(lengths)) => {
                if lengths.len() != axes.len() {
                    return Err(self.error(format!("fft_length must have shape [{}]", axes.len())));
                }
                lengths
                    .iter()
                    .enumerate()
                    .map(|(i, n)| match n {
                        Some(n) if *n < 0 => {
                            Err(self.error(format!("fft_length[{i}] must >= 0, but got: {n}")))
                        }
                        n => Ok(n.map(|n| n as usize)),
                    })
                    .collect::<Result<_>>()?
            }
        };
        Ok(Some((axes, lens)))
    }

    fn check_int_input(&self, t: &TensorType, k: usize, name: &str) -> Result<()> {
        if t.dtype != DType::I32 {
            return Err(self.error(format!(
                "cannot compute {} as input #{k}(zero-based) was expected to be a int32 tensor \
                 but is a {} tensor",
                self.tf_name(),
                t.dtype.name()
            )));
        }
        if t.rank() != 1 {
            return Err(self
                .error(format!("{name} must be a vector, got shape {}", describe_dims(&t.dims))));
        }
        Ok(())
    }
}

impl Primitive for Fft {
    fn tf_name(&self) -> &'static str {
        TF_NAMES.iter().find(|(_, f)| f == self).map_or("FFT", |(n, _)| n)
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(self.inputs())
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.infer_with_values(inputs, &[])
    }

    fn infer_with_values(
        &self,
        inputs: &[TensorType],
        values: &[Option<Vec<Option<i64>>>],
    ) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        self.check_dtype(x.dtype)?;
        for (k, name) in [(1, "fft_length"), (2, "axes")].into_iter().take(self.inputs() - 1) {
            self.check_int_input(input(inputs, k)?, k, name)?;
        }
        let value = |k: usize| values.get(k).and_then(|v| v.as_deref());
        let dtype = self.output_dtype(x.dtype);
        let Some((axes, lens)) = self.plan(x, value(1), value(2))? else {
            return Ok(vec![TensorType { dtype, dims: vec![None; x.rank()] }]);
        };
        let mut dims = x.dims.clone();
        for (&a, &n) in axes.iter().zip(&lens) {
            dims[a] = n;
        }
        if let (true, false, Some(&last)) = (self.real, self.inverse, axes.last()) {
            dims[last] = dims[last].map(|n| n / 2 + 1);
        }
        Ok(vec![TensorType { dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let x = inputs[0];
        let HostPlan { axes, lens, shape } = self.host_plan(inputs)?;
        let t = match x.dtype() {
            DType::F32 | DType::C64 => self.run::<f32>(x, &axes, &lens, shape)?,
            _ => self.run::<f64>(x, &axes, &lens, shape)?,
        };
        Ok(vec![t])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::Wgsl,
            // TensorFlow registers gradients for FFT/IFFT 1-3D and RFFT/IRFFT 1-2D only.
            differentiable: matches!(
                (self.real, self.rank),
                (false, Some(_)) | (true, Some(1 | 2))
            ),
            fusable: false,
        }
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        _outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let rank = self.rank.unwrap_or(1) as usize;
        let x = &inputs[0];
        let size: usize = g.dims()[g.rank() - rank..].iter().product();
        let inverse = Fft { inverse: !self.inverse, ..*self };
        let grad = match (self.real, self.inverse) {
            // FFT's adjoint is N times the inverse, IFFT's 1/N times the forward transform.
            (false, false) => {
                ops::mul(&apply1(&Op::Fft(inverse), &[g])?, &ops::scalar_like(g, size as f64))?
            }
            (false, true) => ops::mul(
                &apply1(&Op::Fft(inverse), &[g])?,
                &ops::scalar_like(g, 1.0 / size as f64),
            )?,
            // RFFT's adjoint: the real part of N times the inverse complex transform of the
            // gradient padded with zeros to the full last axis (the negative frequencies that
            // RFFT drops contribute nothing).
            (true, false) => {
                let n = *lengths(&inputs[1])?.last().unwrap_or(&0);
                let mut full_dims = g.dims().to_vec();
                full_dims[g.rank() - 1] = n as usize;
                let full = fit_to(g, &full_dims)?;
                let complex = Fft { real: false, inverse: true, rank: self.rank };
                let back = apply1(&Op::Fft(complex), &[&full])?;
                let size: usize = full.dims()[full.rank() - rank..].iter().product();
                let back = ops::mul(&back, &ops::scalar_like(&back, size as f64))?;
                fit_to(&ops::unary(UnaryOp::Real, &back)?, x.dims())?
            }
            // IRFFT's: TensorFlow's rule, RFFT of the gradient with the doubled interior
            // frequencies (each stands for itself and its conjugate), over N.
            (true, true) => {
                let n = *lengths(&inputs[1])?.last().unwrap_or(&0) as usize;
                let forward = Fft { real: true, inverse: false, rank: self.rank };
                let spectrum = apply1(&Op::Fft(forward), &[g, &inputs[1]])?;
                let mask: Vec<f64> = (0..n / 2 + 1)
                    .map(|k| {
                        let doubled = k != 0 && (n % 2 == 1 || k != n / 2);
                        (if doubled { 2.0 } else { 1.0 }) / size as f64
                    })
                    .collect();
                let mask = complex_vector(&mask, spectrum.dtype());
                fit_to(&ops::mul(&spectrum, &mask)?, x.dims())?
            }
        };
        let mut out = vec![Some(grad)];
        out.resize(inputs.len(), None);
        Ok(out)
    }
}

impl Fft {
    /// The transformed axes, their lengths and the output shape, for inputs whose values are
    /// on hand, after every check the kernels need (the CPU's errors; the GPU kernel declines
    /// where this fails, so the CPU reports it).
    pub(crate) fn host_plan(&self, inputs: &[&Tensor]) -> Result<HostPlan> {
        let x = inputs[0];
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.check_dtype(x.dtype()).map_err(crate::ops::segment::eager_error)?;
        let values: Vec<Option<Vec<Option<i64>>>> = inputs
            .iter()
            .enumerate()
            .map(|(k, t)| match (k, t.dtype()) {
                (1.., DType::I32) => Some(
                    t.to_vec::<i32>()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|v| Some(v as i64))
                        .collect(),
                ),
                _ => None,
            })
            .collect();
        let out = self.infer_with_values(&types, &values)?.remove(0);
        let (axes, lens) = self
            .plan(
                &types[0],
                values.get(1).and_then(|v| v.as_deref()),
                values.get(2).and_then(|v| v.as_deref()),
            )?
            .ok_or_else(|| Error::Internal("FFT axes unknown on the host".into()))?;
        let lens: Vec<usize> = lens.into_iter().map(|n| n.unwrap_or(0)).collect();
        let dims: Vec<usize> = out.dims.iter().map(|d| d.unwrap_or(0)).collect();
        let nonempty = x.num_elements() > 0;
        // The fixed-rank real ops crop only (their Python wrappers pad), as TensorFlow's kernels.
        for (i, (&a, &n)) in axes.iter().zip(&lens).enumerate() {
            let last = i + 1 == axes.len();
            let need = if self.real && self.inverse && last { n / 2 + 1 } else { n };
            if self.real && self.rank.is_some() && nonempty && x.dims()[a] < need {
                return Err(self.error(format!(
                    "Input dimension {a} must have length of at least {need} but got: {}",
                    x.dims()[a]
                )));
            }
            // TensorFlow's DUCC kernels abort the process on a zero length with data.
            if n == 0 && nonempty {
                return Err(
                    self.error(format!("fft_length[{i}] must be positive for a non-empty input"))
                );
            }
        }
        Ok(HostPlan { axes, lens, shape: Shape(dims) })
    }

    fn run<T: Precision>(
        &self,
        x: &Tensor,
        axes: &[usize],
        lens: &[usize],
        shape: Shape,
    ) -> Result<Tensor>
    where
        num_complex::Complex<T>: crate::element::Element,
    {
        let array = Array { data: T::complex_of(x)?, dims: x.dims().to_vec() };
        Ok(match (self.real, self.inverse) {
            (false, inverse) => {
                Tensor::from_vec(kernel::complex(array, axes, lens, inverse).data, shape)
            }
            (true, false) => Tensor::from_vec(kernel::real_forward(array, axes, lens).data, shape),
            (true, true) => Tensor::from_vec(kernel::real_inverse(array, axes, lens), shape),
        })
    }
}

/// What an FFT primitive does to its input: the transformed axes (in order), their lengths
/// (`fft_length`, or the input's sizes), and the output's shape.
pub(crate) struct HostPlan {
    pub axes: Vec<usize>,
    pub lens: Vec<usize>,
    pub shape: Shape,
}

/// float32/complex64 or float64/complex128 elements, read as complex numbers.
trait Precision: rustfft::FftNum + crate::element::Element
where
    num_complex::Complex<Self>: crate::element::Element,
{
    fn complex_of(x: &Tensor) -> Result<Vec<num_complex::Complex<Self>>>;
}

macro_rules! precision {
    ($t:ty, $real:ident, $complex:ident) => {
        impl Precision for $t {
            fn complex_of(x: &Tensor) -> Result<Vec<num_complex::Complex<$t>>> {
                match x.buffer() {
                    crate::buffer::Buffer::$real(v) => {
                        Ok(v.iter().map(|&re| num_complex::Complex::new(re, 0.0)).collect())
                    }
                    crate::buffer::Buffer::$complex(v) => Ok(v.clone()),
                    _ => Err(Error::unsupported_dtype("FFT", x.dtype())),
                }
            }
        }
    };
}
precision!(f32, F32, C64);
precision!(f64, F64, C128);

/// `fft_length` values.
fn lengths(t: &Tensor) -> Result<Vec<i64>> {
    Ok(t.to_vec::<i32>()?.into_iter().map(i64::from).collect())
}

/// A complex vector of `dtype` from real values.
fn complex_vector(values: &[f64], dtype: DType) -> Tensor {
    let dims = Shape(vec![values.len()]);
    match dtype {
        DType::C64 => {
            Tensor::from_vec(values.iter().map(|&v| Complex32::new(v as f32, 0.0)).collect(), dims)
        }
        _ => Tensor::from_vec(values.iter().map(|&v| Complex64::new(v, 0.0)).collect(), dims),
    }
}

/// `t` cropped or zero-padded (at the end of each axis) to `dims`: the adjoint of the ops'
/// own cropping.
fn fit_to(t: &Tensor, dims: &[usize]) -> Result<Tensor> {
    let pads: Vec<(i64, i64)> =
        t.dims().iter().zip(dims).map(|(&a, &b)| (0, (b as i64 - a as i64).max(0))).collect();
    let padded = ops::pad(t, &pads, PadMode::Constant, 0.0)?;
    let size: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    ops::slice(&padded, &vec![0; dims.len()], &size)
}

impl Decode for Fft {
    fn names() -> Vec<&'static str> {
        TF_NAMES.iter().map(|(n, _)| *n).collect()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let op: Fft = from_attrs(name, attrs)?;
        if op.tf_name() != name {
            return Err(Error::DataLoss(format!(
                "a saved {name} node has the attributes of {}",
                op.tf_name()
            )));
        }
        Ok(op)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(Op, Vec<Tensor>)> {
    let signal: Vec<Complex32> =
        (0..24).map(|i| Complex32::new(i as f32, (i % 5) as f32)).collect();
    let c = Tensor::from_slice(&signal, &[2, 3, 4]).unwrap();
    let r = Tensor::from_slice(&(0..24).map(|i| (i as f64).sin()).collect::<Vec<_>>(), &[2, 3, 4])
        .unwrap();
    let lengths = |v: &[i32]| Tensor::from_slice(v, &[v.len()]).unwrap();
    let mut out = Vec::new();
    for (name, op) in TF_NAMES {
        let rank = op.rank.map_or(2, usize::from);
        let dims = [2usize, 3, 4];
        let mut lens: Vec<i32> = dims[3 - rank..].iter().map(|&d| d as i32).collect();
        if op.real && op.inverse {
            // The input's last axis holds n/2+1 = 3 frequencies of a length-4 or -5 signal.
            *lens.last_mut().unwrap() = if name.ends_with('D') { 5 } else { 4 };
        }
        let x = match (op.real, op.inverse) {
            (true, false) => r.clone(),
            (true, true) => ops::slice(&c, &[0, 0, 0], &[2, 3, 3]).unwrap(),
            _ => c.clone(),
        };
        let mut inputs = vec![x];
        if op.real || op.rank.is_none() {
            inputs.push(lengths(&lens));
        }
        if op.rank.is_none() {
            inputs.push(lengths(&[1, 2]));
        }
        out.push((Op::Fft(op), inputs));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_transforms_crop_and_halve_the_last_axis() {
        let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], &[5]).unwrap();
        let n = Tensor::from_slice(&[3i32], &[1]).unwrap();
        let y = Fft::new(true, false, Some(1)).cpu(&[&x, &n]).unwrap().remove(0);
        assert_eq!(y.dims(), &[2]);
        let v = y.to_vec::<Complex32>().unwrap();
        assert!((v[0] - Complex32::new(6.0, 0.0)).norm() < 1e-5);
        assert!((v[1] - Complex32::new(-1.5, 0.866_025_4)).norm() < 1e-5);
        let long = Tensor::from_slice(&[8i32], &[1]).unwrap();
        let err = Fft::new(true, false, Some(1)).cpu(&[&x, &long]).unwrap_err().to_string();
        assert!(err.contains("must have length of at least 8 but got: 5"), "{err}");
    }
}
