//! `ResizeBilinear` and its adjoint `ResizeBilinearGrad` on the host, computed as TensorFlow's
//! CPU kernels compute them (`resize_bilinear_op.cc`), so that results agree bit for bit: the
//! source position of output row/column `i` is `(i + 0.5) * scale - 0.5` with half-pixel
//! centres (else `i * scale`), all in float32, its lower and upper neighbours clamped to the
//! image, and each output the lerp of the two top neighbours, of the two bottom ones, then of
//! those two (columns first). The gradient scatters each output gradient back to its four
//! neighbours in TensorFlow's order (rows, columns, then the four corners), so its sums round
//! as TensorFlow's do.
//!
//! ResizeBilinear reads every image dtype TensorFlow's kernel takes, converting each value it
//! reads to float32 as that kernel does (so a decoded uint8 image is never cast whole first),
//! and returns float32. ResizeBilinearGrad sums the gradient as TensorFlow's kernel does (in
//! double for a double image, else in float32), and is not differentiable itself, as
//! TensorFlow declares it (a second derivative through a resize is None there, not an error).
//! The output size is an attribute (`tf.image.resize` uses the primitive only for a static
//! size; a size computed in a graph takes the composition of gathers in `image/resize.py`). On
//! a GPU, the Python layer keeps that composition too.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    describe_dims, from_variant, input, variant_attrs, Arity, Attrs, Decisions, Decode, GpuKernel,
    Primitive, TensorType,
};
use crate::ops::registry::Op;
use crate::shape::Shape;
use crate::tensor::Tensor;
use num_traits::AsPrimitive;
use rayon::prelude::*;
use std::mem::MaybeUninit;
use std::ops::AddAssign;

/// The sampling grid of both ops (TensorFlow's `align_corners` and `half_pixel_centers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Grid {
    pub align_corners: bool,
    pub half_pixel_centers: bool,
}

/// The resize ops with their attributes; the variant names are TensorFlow's op names.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Resize {
    /// Input: float32 images `[batch, height, width, channels]`; output `[batch, size..,
    /// channels]`.
    ResizeBilinear { size: [usize; 2], grid: Grid },
    /// Inputs: the output's gradient, the original images (for their shape).
    ResizeBilinearGrad { grid: Grid },
}

use Resize::*;

const NAMES: &[&str] = &["ResizeBilinear", "ResizeBilinearGrad"];

/// Work below this many output values runs on the calling thread.
const PARALLEL_MIN: usize = 1 << 15;

fn invalid(message: impl std::fmt::Display, op: &str) -> Error {
    Error::InvalidArgument(format!("{message} [Op:{op}]"))
}

/// TensorFlow's `CalculateResizeScale`.
fn scale(in_size: usize, out_size: usize, align_corners: bool) -> f32 {
    if align_corners && out_size > 1 {
        (in_size as f32 - 1.0) / (out_size as f32 - 1.0)
    } else {
        in_size as f32 / out_size as f32
    }
}

/// Output position `i`'s neighbours and weight along one axis (TensorFlow's
/// `CachedInterpolation`).
#[derive(Clone, Copy)]
struct Tap {
    lower: usize,
    upper: usize,
    lerp: f32,
}

fn taps(in_size: usize, out_size: usize, grid: Grid) -> Vec<Tap> {
    let s = scale(in_size, out_size, grid.align_corners);
    (0..out_size)
        .map(|i| {
            let pos =
                if grid.half_pixel_centers { (i as f32 + 0.5) * s - 0.5 } else { i as f32 * s };
            let floor = pos.floor();
            // Past 2^24 float32 positions round, and may round beyond the last pixel.
            Tap {
                lower: ((floor as i64).max(0) as usize).min(in_size - 1),
                upper: (pos.ceil() as i64).min(in_size as i64 - 1).max(0) as usize,
                lerp: pos - floor,
            }
        })
        .collect()
}

/// A value TensorFlow's kernel reads as `static_cast<float>(v)` (`as_` rounds the same; the
/// half types widen exactly).
trait Pixel: AsPrimitive<f32> + Send + Sync {}
impl<T: AsPrimitive<f32> + Send + Sync> Pixel for T {}

/// A gradient sum: TensorFlow's ResizeBilinearGrad kernel adds its float32 products into the
/// image's own type, `output(..) += T(product)` (double sums in double), except for half and
/// bfloat16, which it sums in float32 and rounds once.
trait GradientSum: Copy + Default + AddAssign + Send + Sync + 'static {}
impl<T: Copy + Default + AddAssign + Send + Sync + 'static> GradientSum for T {}

/// The input dtypes ResizeBilinear reads directly (TensorFlow's `REGISTER_KERNEL` list).
const PIXELS: &[DType] = &[
    DType::U8,
    DType::I8,
    DType::U16,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
];

/// The image dtypes ResizeBilinearGrad returns its gradient in (see `GradientSum`).
const GRADIENTS: &[DType] = &[DType::F16, DType::BF16, DType::F32, DType::F64];

fn floats<'a>(t: &'a Tensor, op: &str) -> Result<&'a [f32]> {
    match t.buffer() {
        Buffer::F32(v) => Ok(v),
        _ => Err(Error::unsupported_dtype(op, t.dtype())),
    }
}

fn image_dims(t: &Tensor, what: &str, op: &str) -> Result<[usize; 4]> {
    match *t.dims() {
        [n, h, w, c] => Ok([n, h, w, c]),
        _ => Err(invalid(format!("{what} must be 4-dimensional{}", describe_dims(&known(t))), op)),
    }
}

/// An output shape whose element count is checked: a raw op's `size` may ask for more than
/// memory (TensorFlow: ResourceExhausted), and the product itself may overflow.
fn output_shape(dims: [usize; 4]) -> Result<Shape> {
    let n = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    crate::shape::check_alloc(n.unwrap_or(usize::MAX), DType::F32)?;
    Ok(Shape::new(dims.to_vec()))
}

fn known(t: &Tensor) -> Vec<Option<usize>> {
    t.dims().iter().map(|&d| Some(d)).collect()
}

/// TensorFlow's ResizeBilinear CPU kernel on images `[n, h, w, c]`.
fn resize<T: Pixel>(
    x: &[T],
    [n, h, w, c]: [usize; 4],
    [oh, ow]: [usize; 2],
    grid: Grid,
) -> Vec<f32> {
    let total = n * oh * ow * c;
    if total == 0 {
        return Vec::new();
    }
    // TensorFlow's no-op resize is a plain cast.
    if (oh, ow) == (h, w) {
        return crate::kernels::parallel::map(x, |v| v.as_());
    }
    let ys = taps(h, oh, grid);
    let xs = taps(w, ow, grid);
    // Images of 1, 3 or 4 channels get a row kernel compiled for that count (its channel
    // loop unrolled); others the one that reads `c` at run time.
    let lerp_row = match c {
        1 => lerp_row::<T, 1>,
        3 => lerp_row::<T, 3>,
        4 => lerp_row::<T, 4>,
        _ => lerp_row::<T, 0>,
    };
    let row = |(r, out_row): (usize, &mut [MaybeUninit<f32>])| {
        let (b, y) = (r / oh, r % oh);
        let image = &x[b * h * w * c..(b + 1) * h * w * c];
        let top = &image[ys[y].lower * w * c..][..w * c];
        let bottom = &image[ys[y].upper * w * c..][..w * c];
        lerp_row(top, bottom, &xs, ys[y].lerp, out_row, c);
    };
    // Written in place, never zero-filled first: every row writes all of its values.
    let mut out = crate::kernels::alloc::with_capacity(total);
    {
        let rows = &mut out.spare_capacity_mut()[..total];
        if total >= PARALLEL_MIN {
            rows.par_chunks_mut(ow * c).enumerate().for_each(row);
        } else {
            rows.chunks_mut(ow * c).enumerate().for_each(row);
        }
    }
    // SAFETY: the rows cover 0..total, and `lerp_row` writes each value of its row (`ow`
    // pixels of `c` channels).
    unsafe { out.set_len(total) };
    out
}

/// One output row between input rows `top` and `bottom`: columns first, then rows, as
/// TensorFlow's kernel computes them (bit for bit). `C` is the channel count where it is
/// known when compiling, 0 where `c` says.
fn lerp_row<T: Pixel, const C: usize>(
    top: &[T],
    bottom: &[T],
    xs: &[Tap],
    y_lerp: f32,
    out_row: &mut [MaybeUninit<f32>],
    c: usize,
) {
    let c = if C == 0 { c } else { C };
    debug_assert_eq!(out_row.len(), xs.len() * c);
    for (tap, out_px) in xs.iter().zip(out_row.chunks_exact_mut(c)) {
        let (lo, hi, x_lerp) = (tap.lower * c, tap.upper * c, tap.lerp);
        let (top_lo, top_hi) = (&top[lo..lo + c], &top[hi..hi + c]);
        let (bottom_lo, bottom_hi) = (&bottom[lo..lo + c], &bottom[hi..hi + c]);
        for k in 0..c {
            let (top_left, top_right) = (top_lo[k].as_(), top_hi[k].as_());
            let (bottom_left, bottom_right) = (bottom_lo[k].as_(), bottom_hi[k].as_());
            let upper = top_left + (top_right - top_left) * x_lerp;
            let lower = bottom_left + (bottom_right - bottom_left) * x_lerp;
            out_px[k].write(upper + (lower - upper) * y_lerp);
        }
    }
}

/// TensorFlow's ResizeBilinearGrad CPU kernel: `g` `[n, oh, ow, c]` scattered onto
/// `[n, h, w, c]`, images in parallel (each one's sums in TensorFlow's order).
fn resize_grad<T: GradientSum>(
    g: &[f32],
    [n, oh, ow, c]: [usize; 4],
    [h, w]: [usize; 2],
    grid: Grid,
) -> Vec<T>
where
    f32: AsPrimitive<T>,
{
    let mut out = crate::kernels::alloc::with_capacity(n * h * w * c);
    out.resize(n * h * w * c, T::default());
    if out.is_empty() || g.is_empty() {
        return out;
    }
    let ys = taps(h, oh, grid);
    let xs = taps(w, ow, grid);
    let image = |(b, acc): (usize, &mut [T])| {
        let g = &g[b * oh * ow * c..(b + 1) * oh * ow * c];
        for (y, ty) in ys.iter().enumerate() {
            let inverse_y = 1.0 - ty.lerp;
            for (x, tx) in xs.iter().enumerate() {
                let inverse_x = 1.0 - tx.lerp;
                let (top, bottom) = (ty.lower * w, ty.upper * w);
                let (left, right) = (tx.lower, tx.upper);
                for k in 0..c {
                    let v = g[(y * ow + x) * c + k];
                    acc[(top + left) * c + k] += (v * inverse_y * inverse_x).as_();
                    acc[(top + right) * c + k] += (v * inverse_y * tx.lerp).as_();
                    acc[(bottom + left) * c + k] += (v * ty.lerp * inverse_x).as_();
                    acc[(bottom + right) * c + k] += (v * ty.lerp * tx.lerp).as_();
                }
            }
        }
    };
    if n > 1 && n * oh * ow * c >= PARALLEL_MIN {
        out.par_chunks_mut(h * w * c).enumerate().for_each(image);
    } else {
        out.chunks_mut(h * w * c).enumerate().for_each(image);
    }
    out
}

impl Resize {
    fn grid(&self) -> Grid {
        match self {
            ResizeBilinear { grid, .. } | ResizeBilinearGrad { grid } => *grid,
        }
    }

    fn check_grid(&self) -> Result<()> {
        let grid = self.grid();
        if grid.align_corners && grid.half_pixel_centers {
            return Err(invalid(
                "If half_pixel_centers is True, align_corners must be False.",
                self.tf_name(),
            ));
        }
        Ok(())
    }
}

fn check_type(t: &TensorType, what: &str, op: &str) -> Result<()> {
    if t.dtype != DType::F32 {
        return Err(Error::unsupported_dtype(op, t.dtype));
    }
    if t.rank() != 4 {
        return Err(invalid(format!("{what} must be 4-dimensional{}", describe_dims(&t.dims)), op));
    }
    Ok(())
}

impl Primitive for Resize {
    fn tf_name(&self) -> &'static str {
        match self {
            ResizeBilinear { .. } => "ResizeBilinear",
            ResizeBilinearGrad { .. } => "ResizeBilinearGrad",
        }
    }

    fn arity(&self) -> Arity {
        match self {
            ResizeBilinear { .. } => Arity::Exactly(1),
            ResizeBilinearGrad { .. } => Arity::Exactly(2),
        }
    }

    fn attrs(&self) -> Attrs {
        variant_attrs(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let op = self.tf_name();
        self.check_grid()?;
        match self {
            ResizeBilinear { size, .. } => {
                let x = input(inputs, 0)?;
                if !PIXELS.contains(&x.dtype) {
                    return Err(Error::unsupported_dtype(op, x.dtype));
                }
                check_type(&x.with_dtype(DType::F32), "input", op)?;
                if size[0] == 0 || size[1] == 0 {
                    return Err(invalid("output dimensions must be positive", op));
                }
                let dims = vec![x.dims[0], Some(size[0]), Some(size[1]), x.dims[3]];
                Ok(vec![TensorType { dtype: DType::F32, dims }])
            }
            ResizeBilinearGrad { .. } => {
                let (g, original) = (input(inputs, 0)?, input(inputs, 1)?);
                check_type(g, "input_grad", op)?;
                if !GRADIENTS.contains(&original.dtype) {
                    return Err(Error::unsupported_dtype(op, original.dtype));
                }
                check_type(&original.with_dtype(DType::F32), "original_image", op)?;
                Ok(vec![original.clone()])
            }
        }
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let op = self.tf_name();
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.infer(&types)?;
        let grid = self.grid();
        Ok(vec![match self {
            ResizeBilinear { size, .. } => {
                let dims = image_dims(inputs[0], "input", op)?;
                if dims[1] == 0 || dims[2] == 0 {
                    return Err(invalid("input image must be of non-zero size", op));
                }
                let shape = output_shape([dims[0], size[0], size[1], dims[3]])?;
                let out = match inputs[0].buffer() {
                    Buffer::U8(v) => resize(v, dims, *size, grid),
                    Buffer::I8(v) => resize(v, dims, *size, grid),
                    Buffer::U16(v) => resize(v, dims, *size, grid),
                    Buffer::I16(v) => resize(v, dims, *size, grid),
                    Buffer::I32(v) => resize(v, dims, *size, grid),
                    Buffer::I64(v) => resize(v, dims, *size, grid),
                    Buffer::F16(v) => resize(v, dims, *size, grid),
                    Buffer::BF16(v) => resize(v, dims, *size, grid),
                    Buffer::F64(v) => resize(v, dims, *size, grid),
                    _ => resize(floats(inputs[0], op)?, dims, *size, grid),
                };
                Tensor::from_vec(out, shape)
            }
            ResizeBilinearGrad { .. } => {
                let gd = image_dims(inputs[0], "input_grad", op)?;
                let [n, h, w, c] = image_dims(inputs[1], "original_image", op)?;
                if gd[0] != n || gd[3] != c {
                    return Err(invalid(
                        "input_grad and original_image must have the same batch size and depth",
                        op,
                    ));
                }
                let g = floats(inputs[0], op)?;
                let shape = output_shape([n, h, w, c])?;
                let size = [h, w];
                match inputs[1].dtype() {
                    DType::F64 => Tensor::from_vec(resize_grad::<f64>(g, gd, size, grid), shape),
                    // Half and bfloat16 gradients are summed in float32, then rounded once.
                    dtype => {
                        let sums = Tensor::from_vec(resize_grad::<f32>(g, gd, size, grid), shape);
                        match dtype {
                            DType::F32 => sums,
                            _ => crate::ops::cast(&sums, dtype)?,
                        }
                    }
                }
            }
        }])
    }

    /// ResizeBilinear's adjoint is ResizeBilinearGrad, which TensorFlow declares not
    /// differentiable (`NotDifferentiable`: a second derivative through a resize is None there).
    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        let grid = self.grid();
        match self {
            // Integer images carry no gradient.
            ResizeBilinear { .. } if !GRADIENTS.contains(&inputs[0].dtype()) => Ok(vec![None]),
            ResizeBilinear { .. } => {
                let adjoint = Op::Resize(ResizeBilinearGrad { grid });
                Ok(vec![Some(crate::dispatch::apply1(&adjoint, &[g, &inputs[0]])?)])
            }
            ResizeBilinearGrad { .. } => Ok(vec![None, None]),
        }
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly(
                "TensorFlow's CPU kernel, bit for bit; on a GPU tf.image.resize composes gathers",
            ),
            differentiable: matches!(self, ResizeBilinear { .. }),
            fusable: false,
        }
    }
}

impl Decode for Resize {
    fn names() -> Vec<&'static str> {
        NAMES.to_vec()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_variant(name, attrs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(Op, Vec<Tensor>)> {
    let grid = Grid { align_corners: false, half_pixel_centers: true };
    let values: Vec<f32> = (0..2 * 3 * 4 * 2).map(|v| v as f32 * 0.5).collect();
    let image = Tensor::from_slice(&values, &[2, 3, 4, 2]).unwrap();
    let g = Tensor::from_slice(&vec![1.0f32; 2 * 5 * 3 * 2], &[2, 5, 3, 2]).unwrap();
    let pixels = Tensor::from_slice(&[0u8, 255, 7, 9, 100, 3], &[1, 2, 3, 1]).unwrap();
    vec![
        (Op::Resize(ResizeBilinear { size: [5, 3], grid }), vec![image.clone()]),
        (Op::Resize(ResizeBilinear { size: [3, 2], grid }), vec![pixels]),
        (Op::Resize(ResizeBilinearGrad { grid }), vec![g, image]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upsampling_matches_tensorflow() {
        // tf.image.resize([[1, 2], [3, 4]] as [1, 2, 2, 1], [3, 3]) under TensorFlow 2.21.
        let grid = Grid { align_corners: false, half_pixel_centers: true };
        let out = resize(&[1.0, 2.0, 3.0, 4.0], [1, 2, 2, 1], [3, 3], grid);
        let expected = [1.0, 1.5, 2.0, 2.0, 2.5, 3.0, 3.0, 3.5, 4.0];
        assert_eq!(out, expected);
    }

    #[test]
    fn gradient_is_the_adjoint() {
        // <resize(x), g> == <x, resize_grad(g)> for a random-ish x and g.
        let grid = Grid { align_corners: false, half_pixel_centers: true };
        let x: Vec<f32> = (0..3 * 5 * 2).map(|v| ((v * 7) % 11) as f32).collect();
        let g: Vec<f32> = (0..4 * 3 * 2).map(|v| ((v * 5) % 7) as f32).collect();
        let y = resize(&x, [1, 3, 5, 2], [4, 3], grid);
        let back = resize_grad::<f32>(&g, [1, 4, 3, 2], [3, 5], grid);
        let lhs: f64 = y.iter().zip(&g).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum();
        let rhs: f64 = x.iter().zip(&back).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum();
        assert!((lhs - rhs).abs() < 1e-3, "{lhs} vs {rhs}");
    }

    #[test]
    fn taps_stay_inside_wide_images() {
        // Past 2^24 pixels float32 positions round up beyond the last pixel.
        let width = (1 << 25) + 3;
        for half_pixel_centers in [false, true] {
            let grid = Grid { align_corners: false, half_pixel_centers };
            for tap in taps(width, 7, grid) {
                assert!(tap.lower < width && tap.upper < width);
            }
        }
    }

    #[test]
    fn outputs_beyond_memory_are_resource_exhausted() {
        let x = Tensor::from_slice(&[1.0f32; 4], &[1, 2, 2, 1]).unwrap();
        let grid = Grid { align_corners: false, half_pixel_centers: false };
        for size in [[1 << 32, 1 << 32], [usize::MAX / 2, 3]] {
            let err = Resize::ResizeBilinear { size, grid }.cpu(&[&x]).unwrap_err();
            assert!(matches!(err, Error::ResourceExhausted(_)), "{err}");
        }
    }
}
