//! CPU kernels of Conv2D and its two gradients for float32 and float64, without the patch
//! matrix: windows are copied into a cache-sized tile of rows (im2col, one tile at a time) that
//! feeds the packed GEMM directly, so memory stays O(tile) instead of KH·KW times the image.
//! Each computes what the `Patches` + `MatMul` decomposition in `conv.rs` defines (the
//! decomposition stays the GPU's and every other dtype's path).
//!
//! - forward: tiles of output pixels, each `patches(tile) @ filter[K, C_out]`, in parallel;
//! - filter gradient: `sum over tiles of patches(tile)^T @ g(tile)`, accumulated in a fixed
//!   number of groups summed in order, so the result does not depend on thread scheduling;
//! - input gradient: per image, `g(tile) @ filter^T` scattered back onto the image's pixels
//!   (images run in parallel; an image's tiles run in order, so overlapping windows need no
//!   synchronisation).

use super::patches::PatchSpec;
use crate::element::Num;
use crate::kernels::gemm::{matmul_into, MatRef, Parallelism};
use crate::kernels::parallel;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Bytes of patch rows one tile holds: about half of a core's L2, so that the tile and the
/// GEMM's packed panels stay in cache together.
const TILE_BYTES: usize = 256 << 10;
/// Groups the filter gradient's tiles are summed in (fixed, for deterministic sums).
const FILTER_GROUPS: usize = 16;

/// The geometry every kernel shares: image `[n, h, w, c]`, the window, `c_out`.
#[derive(Clone, Copy)]
pub struct ConvShape<'a> {
    pub image: [usize; 4],
    pub spec: &'a PatchSpec,
    pub c_out: usize,
}

impl ConvShape<'_> {
    /// Entries per patch row: KH·KW·C.
    fn k(&self) -> usize {
        self.spec.window() * self.image[3]
    }

    /// Output pixels per image.
    fn pixels(&self) -> usize {
        self.spec.out[0] * self.spec.out[1]
    }

    fn tile_rows<T>(&self) -> usize {
        (TILE_BYTES / (self.k() * std::mem::size_of::<T>()).max(1)).clamp(8, 1024)
    }

    /// Writes the patch rows of output pixels `first..first + tile.len() / k` (pixels counted
    /// over the whole batch) into `tile`; taps outside the image are zero.
    fn fill_patches<T: Num>(&self, x: &[T], first: usize, tile: &mut [T]) {
        let [_, h, w, c] = self.image;
        let ([oh, ow], [kh, kw]) = (self.spec.out, self.spec.kernel);
        let k = self.k();
        for (r, row) in tile.chunks_mut(k).enumerate() {
            let pos = first + r;
            let (col, out_row, image) = (pos % ow, (pos / ow) % oh, pos / (ow * oh));
            // Undilated windows whose columns all lie inside the image read each window row
            // as one contiguous run of KW·C values (one copy instead of KW; with few channels
            // the per-tap copies dominated).
            let first_col = self.spec.source(1, col, 0, w);
            let whole_rows = self.spec.dilations[1] == 1
                && first_col.is_some()
                && self.spec.source(1, col, kw - 1, w).is_some();
            for ty in 0..kh {
                let source_row = self.spec.source(0, out_row, ty, h);
                if let (true, Some(x0)) = (whole_rows, first_col) {
                    let dst = &mut row[ty * kw * c..(ty + 1) * kw * c];
                    match source_row {
                        Some(y) => {
                            let src = ((image * h + y) * w + x0) * c;
                            dst.copy_from_slice(&x[src..src + kw * c]);
                        }
                        None => dst.fill(T::zero()),
                    }
                    continue;
                }
                for tx in 0..kw {
                    let dst = &mut row[(ty * kw + tx) * c..(ty * kw + tx + 1) * c];
                    match source_row.zip(self.spec.source(1, col, tx, w)) {
                        Some((y, x_at)) => {
                            let src = ((image * h + y) * w + x_at) * c;
                            dst.copy_from_slice(&x[src..src + c]);
                        }
                        None => dst.fill(T::zero()),
                    }
                }
            }
        }
    }

    /// Adds patch rows (the adjoint of `fill_patches`) of pixels `first..` of one image back
    /// onto that image's pixels `dx` (`[h, w, c]`).
    fn scatter_patches<T: Num>(&self, rows: &[T], first: usize, dx: &mut [T]) {
        let [_, h, w, c] = self.image;
        let ([_, ow], [kh, kw]) = (self.spec.out, self.spec.kernel);
        for (r, row) in rows.chunks(self.k()).enumerate() {
            let pos = first + r;
            let (col, out_row) = (pos % ow, pos / ow);
            for ty in 0..kh {
                let Some(y) = self.spec.source(0, out_row, ty, h) else { continue };
                for tx in 0..kw {
                    let Some(x_at) = self.spec.source(1, col, tx, w) else { continue };
                    let taps = &row[(ty * kw + tx) * c..(ty * kw + tx + 1) * c];
                    let at = (y * w + x_at) * c;
                    for (d, &v) in dx[at..at + c].iter_mut().zip(taps) {
                        *d = d.add(v);
                    }
                }
            }
        }
    }
}

/// `conv2d(x, filter)`: `x` NHWC, `filter` `[K, C_out]` flattened; returns `[N·OH·OW, C_out]`.
pub fn forward<T: Num + 'static>(s: ConvShape<'_>, x: &[T], filter: &[T]) -> Vec<T> {
    let c_out = s.c_out;
    let rows = s.image[0] * s.pixels();
    // Each tile is zeroed just before its product writes it, in cache (a whole-output fill
    // first would stream the output through memory twice).
    parallel::filled_chunks(rows * c_out, s.tile_rows::<T>() * c_out, T::zero(), |t, dst| {
        forward_tile(s, x, filter, t, dst)
    })
}

/// `forward` with `epilogue(offset, tile, dst)` run on each tile of output rows while it is in
/// cache (elements `offset..` of the output); the epilogue writes the result into `dst`.
pub fn forward_then<T: Num + 'static>(
    s: ConvShape<'_>,
    x: &[T],
    filter: &[T],
    epilogue: impl Fn(usize, &[T], &mut [MaybeUninit<T>]) + Sync,
) -> Vec<T> {
    let c_out = s.c_out;
    let rows = s.image[0] * s.pixels();
    let tile = s.tile_rows::<T>() * c_out;
    parallel::build_chunks(rows * c_out, tile, |t, dst| {
        let mut out = vec![T::zero(); dst.len()];
        forward_tile(s, x, filter, t, &mut out);
        epilogue(t * tile, &out, dst);
    })
}

/// Output rows of tile `t` (`dst`, zeroed: `tile_rows` rows but the last): the tile's patch
/// rows times the filter.
fn forward_tile<T: Num + 'static>(
    s: ConvShape<'_>,
    x: &[T],
    filter: &[T],
    t: usize,
    dst: &mut [T],
) {
    let (k, c_out) = (s.k(), s.c_out);
    if k == 0 || c_out == 0 {
        return;
    }
    let n = dst.len() / c_out;
    let mut patches = vec![T::zero(); n * k];
    s.fill_patches(x, t * s.tile_rows::<T>(), &mut patches);
    let f = MatRef::rows(filter, k, c_out);
    matmul_into(dst, MatRef::rows(&patches, n, k), f, false, (false, false), Parallelism::None);
}

/// Conv2DBackpropFilter: `g` is `[N·OH·OW, C_out]`; returns the filter gradient `[K, C_out]`.
pub fn filter_gradient<T: Num + 'static>(s: ConvShape<'_>, x: &[T], g: &[T]) -> Vec<T> {
    let (k, c_out) = (s.k(), s.c_out);
    let rows = s.image[0] * s.pixels();
    let tile = s.tile_rows::<T>();
    let tiles = if k == 0 { 0 } else { rows.div_ceil(tile) };
    let per_group = tiles.div_ceil(FILTER_GROUPS).max(1);
    let partials: Vec<Vec<T>> = (0..tiles.div_ceil(per_group))
        .into_par_iter()
        .map(|group| {
            let mut acc = vec![T::zero(); k * c_out];
            let mut patches = vec![T::zero(); tile * k];
            for t in group * per_group..((group + 1) * per_group).min(tiles) {
                let first = t * tile;
                let n = tile.min(rows - first);
                s.fill_patches(x, first, &mut patches[..n * k]);
                let a = MatRef::rows(&patches[..n * k], n, k).t();
                let b = MatRef::rows(&g[first * c_out..(first + n) * c_out], n, c_out);
                matmul_into(&mut acc, a, b, true, (false, false), Parallelism::None);
            }
            acc
        })
        .collect();
    let mut total = vec![T::zero(); k * c_out];
    for part in partials {
        for (t, p) in total.iter_mut().zip(part) {
            *t = t.add(p);
        }
    }
    total
}

/// Conv2DBackpropInput: `g` is `[N·OH·OW, C_out]`; returns the image gradient (NHWC, shaped
/// like `x`).
pub fn input_gradient<T: Num + 'static>(s: ConvShape<'_>, filter: &[T], g: &[T]) -> Vec<T> {
    let [n, h, w, c] = s.image;
    let (k, c_out, pixels) = (s.k(), s.c_out, s.pixels());
    if n * h * w * c == 0 || pixels == 0 {
        return vec![T::zero(); n * h * w * c];
    }
    let f_t = MatRef::rows(filter, k, c_out).t();
    let tile = s.tile_rows::<T>().min(pixels);
    // Few images: parallelise each product instead of the images.
    let par = if n < rayon::current_num_threads() {
        Parallelism::Rayon(rayon::current_num_threads())
    } else {
        Parallelism::None
    };
    parallel::filled_chunks(n * h * w * c, h * w * c, T::zero(), |image, dx| {
        let mut rows = vec![T::zero(); tile * k];
        for first in (0..pixels).step_by(tile) {
            let m = tile.min(pixels - first);
            let at = (image * pixels + first) * c_out;
            let gt = MatRef::rows(&g[at..at + m * c_out], m, c_out);
            matmul_into(&mut rows[..m * k], gt, f_t, false, (false, false), par);
            s.scatter_patches(&rows[..m * k], first, dx);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::patches::PatchFill;

    /// The convolution by its definition, one output at a time.
    fn reference(x: &[f64], f: &[f64], s: ConvShape<'_>) -> Vec<f64> {
        let [n, h, w, c] = s.image;
        let ([oh, ow], [kh, kw]) = (s.spec.out, s.spec.kernel);
        let mut out = vec![0.0; n * oh * ow * s.c_out];
        for i in 0..n {
            for (oy, ox) in (0..oh).flat_map(|y| (0..ow).map(move |x| (y, x))) {
                for co in 0..s.c_out {
                    let mut sum = 0.0;
                    for (ty, tx) in (0..kh).flat_map(|y| (0..kw).map(move |x| (y, x))) {
                        let (Some(y), Some(xx)) =
                            (s.spec.source(0, oy, ty, h), s.spec.source(1, ox, tx, w))
                        else {
                            continue;
                        };
                        for ci in 0..c {
                            sum += x[((i * h + y) * w + xx) * c + ci]
                                * f[((ty * kw + tx) * c + ci) * s.c_out + co];
                        }
                    }
                    out[((i * oh + oy) * ow + ox) * s.c_out + co] = sum;
                }
            }
        }
        out
    }

    fn values(n: usize, seed: usize) -> Vec<f64> {
        (0..n).map(|i| ((i * 37 + seed * 11) % 23) as f64 / 7.0 - 1.5).collect()
    }

    fn spec(strides: usize, dilation: usize, pad: usize, out: [usize; 2]) -> PatchSpec {
        PatchSpec {
            kernel: [3, 2],
            strides: [strides; 2],
            dilations: [dilation; 2],
            pad: [pad; 2],
            out,
            fill: PatchFill::Zero,
        }
    }

    /// Each geometry: strided, dilated and padded windows, over more rows than one tile.
    fn geometries() -> Vec<PatchSpec> {
        vec![spec(1, 1, 0, [5, 6]), spec(2, 1, 1, [4, 4]), spec(1, 2, 2, [7, 7])]
    }

    #[test]
    fn tiles_compute_the_definition_and_its_adjoints() {
        let image = [3, 7, 7, 5];
        for spec in geometries() {
            let s = ConvShape { image, spec: &spec, c_out: 4 };
            let x = values(image.iter().product(), 1);
            let f = values(s.k() * 4, 2);
            let y = forward(s, &x, &f);
            let expected = reference(&x, &f, s);
            assert!(y.iter().zip(&expected).all(|(a, b)| (a - b).abs() < 1e-9));
            // <conv(x, f), g> = <x, dx(g)> = <f, df(g)>: the gradients are the adjoints.
            let g = values(y.len(), 3);
            let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
            let lhs = dot(&y, &g);
            assert!((lhs - dot(&x, &input_gradient(s, &f, &g))).abs() < 1e-7 * lhs.abs().max(1.0));
            assert!((lhs - dot(&f, &filter_gradient(s, &x, &g))).abs() < 1e-7 * lhs.abs().max(1.0));
        }
    }

    #[test]
    fn the_filter_gradient_sums_in_a_fixed_order() {
        let spec = spec(1, 1, 1, [31, 31]);
        let s = ConvShape { image: [9, 31, 31, 3], spec: &spec, c_out: 2 };
        let x: Vec<f32> = values(9 * 31 * 31 * 3, 4).iter().map(|&v| v as f32 * 0.37).collect();
        let g: Vec<f32> = values(9 * 31 * 31 * 2, 5).iter().map(|&v| v as f32 * 1.3).collect();
        let first = filter_gradient(s, &x, &g);
        for _ in 0..3 {
            assert_eq!(filter_gradient(s, &x, &g), first);
        }
    }

    #[test]
    fn empty_batches_and_images_give_empty_results() {
        // Windows that fit nowhere: no output pixels, so the gradients are all zeros.
        let spec = spec(1, 1, 0, [0, 0]);
        let s = ConvShape { image: [2, 2, 1, 3], spec: &spec, c_out: 4 };
        let (x, f) = ([1.0f32; 12], [1.0f32; 72]);
        assert!(forward(s, &x, &f).is_empty());
        assert_eq!(input_gradient(s, &f, &[]), vec![0.0; 12]);
        assert_eq!(filter_gradient(s, &x, &[]), vec![0.0; 72]);
        // No channels: patch rows are empty.
        let s = ConvShape { image: [2, 2, 2, 0], spec: &spec, c_out: 4 };
        assert_eq!(filter_gradient::<f32>(s, &[], &[]), Vec::<f32>::new());
    }
}
