//! The CPU kernel of TensorFlow's MaxPoolGrad, alone and with an elementwise epilogue fused
//! after it (the gradient through a Relu that fed the pool: `graph::fused::Producer`). With
//! an epilogue each image's gradient is routed into a scratch image, which stays in cache
//! while the epilogue reads it, instead of a full gradient written to memory and read back.

use super::patches::{image_dims, PatchSpec};
use crate::element::{Element, Num, Real};
use crate::error::{Error, Result};
use crate::kernels::parallel;
use crate::tensor::Tensor;
use crate::with_real;
use std::mem::MaybeUninit;

/// The gradient of a max pool of `x` with windows `spec`, given the pooled gradient `g`.
pub fn max_pool_grad(x: &Tensor, g: &Tensor, spec: &PatchSpec) -> Result<Tensor> {
    let image = check(x, g, spec)?;
    let out = with_real!(x.buffer(), xv => {
        let gv = Element::unwrap(g.buffer()).ok_or_else(|| Error::Internal("dtype checked".into()))?;
        Element::wrap(route_to_first_max(xv, gv, image, spec))
    }, else return Err(Error::InvalidArgument(format!(
        "MaxPoolGrad takes real numbers, got {} [Op:MaxPoolGrad]", x.dtype()
    ))));
    Ok(Tensor::from_buffer_unchecked(out, x.shape().clone()))
}

/// The image dims of `x`, if `g` is a pooled gradient of `x` under `spec`.
pub fn check(x: &Tensor, g: &Tensor, spec: &PatchSpec) -> Result<[usize; 4]> {
    spec.check("MaxPoolGrad")?;
    let image = image_dims(x, "MaxPoolGrad")?;
    let expected = [image[0], spec.out[0], spec.out[1], image[3]];
    if g.dims() != expected || g.dtype() != x.dtype() {
        return Err(Error::InvalidArgument(format!(
            "pooled gradient must be {} of shape {expected:?}, got {} of shape {:?} [Op:MaxPoolGrad]",
            x.dtype(),
            g.dtype(),
            g.dims()
        )));
    }
    Ok(image)
}

/// TensorFlow's MaxPoolGrad: each window's gradient goes to its first maximum (in tap order),
/// never to padding. Images run in parallel; one image's windows run in order, so the sums
/// into overlapping windows' pixels need no synchronisation and are deterministic.
fn route_to_first_max<T: Real + Num>(
    x: &[T],
    g: &[T],
    image: [usize; 4],
    spec: &PatchSpec,
) -> Vec<T> {
    let [n, h, w, c] = image;
    if n * h * w * c == 0 {
        return Vec::new();
    }
    parallel::filled_chunks(n * h * w * c, h * w * c, T::zero(), |img, dx| {
        crate::kernels::wide::dispatch!(route_image(x, g, img, image, spec, dx))
    })
}

/// MaxPoolGrad with `epilogue(offset, gradient, dst)` run on each image's gradient (its
/// elements `offset..`), which writes the result into `dst`, the image's part of the output.
pub fn max_pool_grad_then<T: Real + Num>(
    x: &[T],
    g: &[T],
    image: [usize; 4],
    spec: &PatchSpec,
    epilogue: impl Fn(usize, &[T], &mut [MaybeUninit<T>]) + Sync,
) -> Vec<T> {
    let [n, h, w, c] = image;
    let pixels = h * w * c;
    if n * pixels == 0 {
        return Vec::new();
    }
    parallel::build_chunks(n * pixels, pixels, |img, dst| {
        let mut dx = vec![T::zero(); pixels];
        crate::kernels::wide::dispatch!(route_image(x, g, img, image, spec, &mut dx));
        epilogue(img * pixels, &dx, dst);
    })
}

/// Routes image `img`'s pooled gradients into `dx` (its zeroed gradient), a window's
/// channels `LANES` at a time (`route_window`).
#[inline(always)]
fn route_image<T: Real + Num>(
    x: &[T],
    g: &[T],
    img: usize,
    image: [usize; 4],
    spec: &PatchSpec,
    dx: &mut [T],
) {
    let [_, h, w, c] = image;
    let ([oh, ow], [kh, kw]) = (spec.out, spec.kernel);
    let src = &x[img * h * w * c..][..h * w * c];
    // The offsets of the window's in-image pixels, in tap order.
    let mut taps: Vec<usize> = Vec::new();
    let grouped = c - c % LANES;
    for row in 0..oh {
        for col in 0..ow {
            taps.clear();
            for ty in 0..kh {
                let Some(y) = spec.source(0, row, ty, h) else { continue };
                for tx in 0..kw {
                    let Some(xx) = spec.source(1, col, tx, w) else { continue };
                    taps.push((y * w + xx) * c);
                }
            }
            if taps.is_empty() {
                continue;
            }
            let grads = &g[((img * oh + row) * ow + col) * c..][..c];
            for ch in (0..grouped).step_by(LANES) {
                route_window::<T, LANES>(src, &taps, ch, &grads[ch..ch + LANES], dx);
            }
            for ch in grouped..c {
                route_window::<T, 1>(src, &taps, ch, &grads[ch..ch + 1], dx);
            }
        }
    }
}

/// Channels a window scan keeps in registers at once (one AVX-512 vector of float32).
const LANES: usize = 16;

/// Adds `grads` (channels `ch..ch + L` of one window) to `dx` at each channel's first
/// maximum in `src` among the window's pixels `taps` (offsets in tap order, not empty): a tap
/// wins only where it is strictly greater, so ties and NaN keep the earlier tap, as
/// TensorFlow's scan from the window's first tap does. The running maxima live in local
/// arrays and are updated by selects, which vectorise (a branch per element mispredicted half
/// the comparisons on random data). The sums are vector selects too: every tap's pixel gets
/// its gradient or zero, never a scalar store per channel. Adding zero changes no value (a
/// gradient starts at +0 and +0 + -0 is +0, so no element is ever -0).
#[inline(always)]
fn route_window<T: Real + Num, const L: usize>(
    src: &[T],
    taps: &[usize],
    ch: usize,
    grads: &[T],
    dx: &mut [T],
) {
    let mut best: [T; L] = std::array::from_fn(|l| src[taps[0] + ch + l]);
    let mut index = [0u32; L];
    for (k, &pixel) in (1u32..).zip(&taps[1..]) {
        let values = &src[pixel + ch..pixel + ch + L];
        for ((b, i), &v) in best.iter_mut().zip(index.iter_mut()).zip(values) {
            let greater = v > *b;
            *b = if greater { v } else { *b };
            *i = if greater { k } else { *i };
        }
    }
    let grads: [T; L] = std::array::from_fn(|l| grads[l]);
    for (k, &pixel) in (0u32..).zip(taps) {
        let out = &mut dx[pixel + ch..pixel + ch + L];
        for ((o, &i), &gv) in out.iter_mut().zip(&index).zip(&grads) {
            *o = o.add(if i == k { gv } else { T::zero() });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::patches::PatchFill;

    /// Max-pool windows (padding never wins).
    fn spec(kernel: usize, stride: usize, pad: usize, out: usize) -> PatchSpec {
        let windows = crate::ops::patches::tests::spec(kernel, stride, pad, out);
        PatchSpec { fill: PatchFill::Lowest, ..windows }
    }

    #[test]
    fn max_pool_gradients_go_to_the_first_maximum() {
        // 2x3 image, one channel, 2x2 windows, stride 1: windows [[1,5],[5,2]] and [[5,3],[2,5]].
        let x = Tensor::from_slice(&[1.0f32, 5., 3., 5., 2., 5.], &[1, 2, 3, 1]).unwrap();
        let g = Tensor::from_slice(&[10.0f32, 100.], &[1, 1, 2, 1]).unwrap();
        let mut s = spec(2, 1, 0, 1);
        s.out = [1, 2];
        let dx = max_pool_grad(&x, &g, &s).unwrap();
        assert_eq!(dx.to_vec::<f32>().unwrap(), [0., 110., 0., 0., 0., 0.]);
        let wrong = Tensor::from_slice(&[1.0f32], &[1, 1, 1, 1]).unwrap();
        assert!(max_pool_grad(&x, &wrong, &s).is_err());
    }

    /// The epilogue sees each image's routed gradient at its offset and writes the output.
    #[test]
    fn epilogues_run_on_each_images_gradient() {
        // Two 3x3 images of two channels, 3x3 windows, stride 2, padding 1: overlapping windows.
        let x: Vec<f32> = (0..36).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
        let g: Vec<f32> = (0..16).map(|i| i as f32 + 0.5).collect();
        let mut s = spec(3, 2, 1, 2);
        s.out = [2, 2];
        let image = [2, 3, 3, 2];
        let plain = route_to_first_max(&x, &g, image, &s);
        let then = max_pool_grad_then(&x, &g, image, &s, |offset, dx, dst| {
            for (k, (o, &v)) in dst.iter_mut().zip(dx).enumerate() {
                o.write(v * 2.0 + x[offset + k]);
            }
        });
        let want: Vec<f32> = plain.iter().zip(&x).map(|(v, xv)| v * 2.0 + xv).collect();
        assert_eq!(then, want);
        assert!(plain.iter().filter(|v| **v != 0.0).count() > 4);
    }
}
