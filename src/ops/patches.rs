//! Image patches, the primitive under convolution and pooling: `Patches` lays every window of
//! an NHWC image out as one row (`[N, OH, OW, KH*KW*C]`, ordered kh, kw, c as TensorFlow's
//! `extract_patches` and its filter layout), so a convolution is one matrix product and a
//! pooling one reduction. `PatchesGrad` is its adjoint: each pixel sums the window entries it
//! was copied to (a gather, so it needs no atomics on the GPU and is deterministic).

use crate::element::{Element, Num, Real};
use crate::error::{Error, Result};
use crate::kernels::parallel;
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::{with_all, with_numeric, with_real};
use rayon::prelude::*;

mod decl;
#[cfg(test)]
pub(crate) use decl::registry_examples;

/// What a window reads outside the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum PatchFill {
    Zero,
    /// The dtype's lowest value (-inf for floats): padding never wins a max pool.
    Lowest,
}

/// One 2-D window geometry. Sizes are `[rows, cols]`; `pad` is the padding before each axis
/// (the padding after follows from `out`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PatchSpec {
    pub kernel: [usize; 2],
    pub strides: [usize; 2],
    pub dilations: [usize; 2],
    pub pad: [usize; 2],
    pub out: [usize; 2],
    pub fill: PatchFill,
}

impl PatchSpec {
    pub fn window(&self) -> usize {
        self.kernel[0] * self.kernel[1]
    }

    /// Refuses geometries no caller builds (zero strides, empty kernels, sizes past 2^31): a
    /// hand-edited graph must raise, not divide by zero or overflow. Within these bounds
    /// `source`'s `o * stride + k * dilation` fits a u64.
    pub fn check(&self, op: &str) -> Result<()> {
        const LIMIT: usize = i32::MAX as usize;
        let fields = [self.kernel, self.strides, self.dilations];
        let positive = fields.iter().flatten().all(|&d| d >= 1);
        let bounded = fields.iter().chain([&self.pad, &self.out]).flatten().all(|&d| d <= LIMIT)
            && self.kernel[0].checked_mul(self.kernel[1]).is_some_and(|w| w <= LIMIT);
        if !positive || !bounded {
            return Err(Error::InvalidArgument(format!(
                "window sizes, strides and dilations must be positive and below 2^31, got kernel {:?}, strides {:?}, dilations {:?}, padding {:?}, outputs {:?} [Op:{op}]",
                self.kernel, self.strides, self.dilations, self.pad, self.out
            )));
        }
        Ok(())
    }

    /// The image row (or column) that window position `o`, tap `k` reads on `axis`, if inside.
    #[inline(always)]
    pub(crate) fn source(&self, axis: usize, o: usize, k: usize, size: usize) -> Option<usize> {
        let at = (o * self.strides[axis] + k * self.dilations[axis]).checked_sub(self.pad[axis])?;
        (at < size).then_some(at)
    }
}

/// The adjoint of `Patches`: window rows back to an image of `image` (`[rows, cols]`) pixels.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct PatchesGrad {
    pub spec: PatchSpec,
    pub image: [usize; 2],
}

/// TensorFlow's MaxPoolGrad. Inputs: the pooled image and the pooled gradient; each window's
/// gradient goes to its first maximum.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct MaxPoolGrad(pub PatchSpec);

pub(crate) fn image_dims(x: &Tensor, op: &str) -> Result<[usize; 4]> {
    match x.dims() {
        &[n, h, w, c] => Ok([n, h, w, c]),
        d => Err(Error::InvalidArgument(format!(
            "input must be 4-dimensional [batch, height, width, channels], got shape {d:?} [Op:{op}]"
        ))),
    }
}

/// The shape rule of `Patches` (shared with the GPU kernel).
pub fn patches_shape(x: &Tensor, spec: &PatchSpec) -> Result<Shape> {
    spec.check("ExtractImagePatches")?;
    let [n, _, _, c] = image_dims(x, "ExtractImagePatches")?;
    let dims = [n, spec.out[0], spec.out[1], spec.window() * c];
    let total = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    crate::shape::check_alloc(total.unwrap_or(usize::MAX), x.dtype())?;
    Ok(Shape(dims.to_vec()))
}

/// The shape rule of `PatchesGrad`: `cols` is `[N, OH, OW, KH*KW*C]`, the image `[N, H, W, C]`.
pub fn patches_grad_shape(cols: &Tensor, spec: &PatchSpec, image: [usize; 2]) -> Result<Shape> {
    spec.check("ExtractImagePatchesGrad")?;
    let [n, oh, ow, k] = image_dims(cols, "ExtractImagePatchesGrad")?;
    if [oh, ow] != spec.out || k % spec.window() != 0 {
        return Err(Error::InvalidArgument(format!(
            "patch gradients of shape {:?} do not match windows {:?} over outputs {:?} [Op:ExtractImagePatchesGrad]",
            cols.dims(),
            spec.kernel,
            spec.out
        )));
    }
    let dims = [n, image[0], image[1], k / spec.window()];
    let total = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    crate::shape::check_alloc(total.unwrap_or(usize::MAX), cols.dtype())?;
    Ok(Shape(dims.to_vec()))
}

/// Rows of output (or pixels of the adjoint) per parallel task: enough work to pay for a task.
fn rows_per_task(row_len: usize) -> usize {
    (parallel::GRAIN / 4 / row_len.max(1)).max(1)
}

/// Copies each window's taps as contiguous runs of `c` channels; taps outside the image keep
/// the fill value.
fn copy_windows<T: Element>(v: &[T], image: [usize; 4], spec: &PatchSpec, fill: T) -> Vec<T> {
    let [n, h, w, c] = image;
    let ([oh, ow], [kh, kw]) = (spec.out, spec.kernel);
    let k = kh * kw * c;
    let mut out = vec![fill; n * oh * ow * k];
    if out.is_empty() {
        return out; // zero-sized chunks would panic below
    }
    let rows = rows_per_task(k);
    out.par_chunks_mut(rows * k).enumerate().for_each(|(task, chunk)| {
        for (r, row) in chunk.chunks_mut(k).enumerate() {
            let pos = task * rows + r;
            let (col, out_row, image) = (pos % ow, (pos / ow) % oh, pos / (ow * oh));
            for ty in 0..kh {
                let Some(y) = spec.source(0, out_row, ty, h) else { continue };
                for tx in 0..kw {
                    let Some(x) = spec.source(1, col, tx, w) else { continue };
                    let src = ((image * h + y) * w + x) * c;
                    let dst = (ty * kw + tx) * c;
                    row[dst..dst + c].copy_from_slice(&v[src..src + c]);
                }
            }
        }
    });
    out
}

pub fn patches(x: &Tensor, spec: &PatchSpec) -> Result<Tensor> {
    let out_shape = patches_shape(x, spec)?;
    let image = image_dims(x, "ExtractImagePatches")?;
    let lowest = spec.fill == PatchFill::Lowest;
    let out = with_real!(x.buffer(), v => {
        let fill = if lowest { lowest_of(v) } else { Default::default() };
        Element::wrap(copy_windows(v, image, spec, fill))
    }, else with_all!(x.buffer(), v => Element::wrap(copy_windows(v, image, spec, Default::default())), else {
        return Err(Error::unsupported_dtype("ExtractImagePatches", x.dtype()))
    }));
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

fn lowest_of<T: Real>(_: &[T]) -> T {
    T::lowest()
}

/// Each pixel sums the `c`-channel runs of the window taps that read it.
fn gather_taps<T: Num>(cols: &[T], image: [usize; 4], spec: &PatchSpec) -> Vec<T> {
    let [n, h, w, c] = image;
    let ([oh, ow], [kh, kw]) = (spec.out, spec.kernel);
    let k = kh * kw * c;
    // The window position whose tap `tap` reads pixel `at` of an axis, if any.
    let hit = |axis: usize, at: usize, tap: usize, outs: usize| -> Option<usize> {
        let shifted = (at + spec.pad[axis]).checked_sub(tap * spec.dilations[axis])?;
        let o = (shifted % spec.strides[axis] == 0).then_some(shifted / spec.strides[axis])?;
        (o < outs).then_some(o)
    };
    let mut out = vec![T::zero(); n * h * w * c];
    if out.is_empty() {
        return out;
    }
    let pixels = rows_per_task(c);
    out.par_chunks_mut(pixels * c).enumerate().for_each(|(task, chunk)| {
        for (p, sums) in chunk.chunks_mut(c).enumerate() {
            let pix = task * pixels + p;
            let (x, y, image) = (pix % w, (pix / w) % h, pix / (w * h));
            for ty in 0..kh {
                let Some(row) = hit(0, y, ty, oh) else { continue };
                for tx in 0..kw {
                    let Some(col) = hit(1, x, tx, ow) else { continue };
                    let at = ((image * oh + row) * ow + col) * k + (ty * kw + tx) * c;
                    for (sum, &g) in sums.iter_mut().zip(&cols[at..at + c]) {
                        *sum = sum.add(g);
                    }
                }
            }
        }
    });
    out
}

pub use super::max_pool_grad_cpu::{
    check as check_max_pool_grad, max_pool_grad, max_pool_grad_then,
};

pub fn patches_grad(cols: &Tensor, spec: &PatchSpec, image: [usize; 2]) -> Result<Tensor> {
    let out_shape = patches_grad_shape(cols, spec, image)?;
    let d = out_shape.dims();
    let dims = [d[0], d[1], d[2], d[3]];
    let out = with_numeric!(cols.buffer(), v => Element::wrap(gather_taps(v, dims, spec)),
    else return Err(Error::InvalidArgument(format!(
        "patch gradients need a numeric dtype, got {} [Op:ExtractImagePatchesGrad]", cols.dtype()
    ))));
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn spec(kernel: usize, stride: usize, pad: usize, out: usize) -> PatchSpec {
        PatchSpec {
            kernel: [kernel; 2],
            strides: [stride; 2],
            dilations: [1; 2],
            pad: [pad; 2],
            out: [out; 2],
            fill: PatchFill::Zero,
        }
    }

    #[test]
    fn windows_are_rows_ordered_row_col_channel() {
        // 3x3 image of 0..9, one channel, 2x2 windows, stride 1, no padding.
        let x = Tensor::from_slice(&(0..9).map(|v| v as f32).collect::<Vec<_>>(), &[1, 3, 3, 1])
            .unwrap();
        let p = patches(&x, &spec(2, 1, 0, 2)).unwrap();
        assert_eq!(p.dims(), &[1, 2, 2, 4]);
        let expected = [0., 1., 3., 4., 1., 2., 4., 5., 3., 4., 6., 7., 4., 5., 7., 8.];
        assert_eq!(p.to_vec::<f32>().unwrap(), expected);
    }

    #[test]
    fn padding_reads_the_fill_value() {
        let x = Tensor::from_slice(&[5i32], &[1, 1, 1, 1]).unwrap();
        let mut s = spec(3, 1, 1, 1);
        assert_eq!(patches(&x, &s).unwrap().to_vec::<i32>().unwrap(), [0, 0, 0, 0, 5, 0, 0, 0, 0]);
        s.fill = PatchFill::Lowest;
        let low = i32::MIN;
        assert_eq!(
            patches(&x, &s).unwrap().to_vec::<i32>().unwrap(),
            [low, low, low, low, 5, low, low, low, low]
        );
    }

    #[test]
    fn the_gradient_is_the_adjoint() {
        // <patches(x), g> == <x, patches_grad(g)> for a strided, padded, dilated window.
        let s = PatchSpec {
            kernel: [3, 2],
            strides: [2, 1],
            dilations: [1, 2],
            pad: [1, 1],
            out: [3, 4],
            fill: PatchFill::Zero,
        };
        let xs: Vec<f64> = (0..2 * 5 * 4 * 3).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
        let x = Tensor::from_slice(&xs, &[2, 5, 4, 3]).unwrap();
        let p = patches(&x, &s).unwrap();
        let gs: Vec<f64> = (0..p.num_elements()).map(|i| ((i * 5) % 13) as f64 - 6.0).collect();
        let g = Tensor::from_slice(&gs, p.dims()).unwrap();
        let back = patches_grad(&g, &s, [5, 4]).unwrap();
        assert_eq!(back.dims(), x.dims());
        let lhs: f64 = p.to_vec::<f64>().unwrap().iter().zip(&gs).map(|(a, b)| a * b).sum();
        let rhs: f64 = back.to_vec::<f64>().unwrap().iter().zip(&xs).map(|(a, b)| a * b).sum();
        assert_eq!(lhs, rhs);
    }

    #[test]
    fn empty_images_give_empty_patches() {
        let x = Tensor::from_slice::<f32>(&[], &[2, 3, 3, 0]).unwrap();
        let p = patches(&x, &spec(2, 1, 0, 2)).unwrap();
        assert_eq!(p.dims(), &[2, 2, 2, 0]);
        assert_eq!(patches_grad(&p, &spec(2, 1, 0, 2), [3, 3]).unwrap().dims(), &[2, 3, 3, 0]);
    }

    #[test]
    fn bad_geometry_is_an_error() {
        let x = Tensor::from_slice(&[1.0f32; 4], &[1, 2, 2, 1]).unwrap();
        assert!(patches(&x, &spec(2, 0, 0, 1)).is_err());
        assert!(patches(&Tensor::from_slice(&[1.0f32; 4], &[2, 2]).unwrap(), &spec(1, 1, 0, 2))
            .is_err());
        let g = Tensor::from_slice(&[1.0f32; 4], &[1, 2, 2, 1]).unwrap();
        assert!(patches_grad(&g, &spec(2, 1, 0, 1), [2, 2]).is_err());
        // A hand-edited graph's window whose size would wrap to zero, or strides that would
        // overflow the tap arithmetic, is refused before any kernel runs.
        let mut huge = spec(1 << 32, 1, 0, 1);
        assert!(patches_grad(&g, &huge, [2, 2]).is_err());
        huge = spec(1, usize::MAX, 0, 1);
        assert!(patches(&x, &huge).is_err());
    }
}
