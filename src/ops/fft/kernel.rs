//! The CPU kernels of the FFT primitives: `rustfft` plans per length (mixed radix, Rader and
//! Bluestein, so every length is O(n log n)); transforms along one axis at a time, rows in
//! parallel with rayon. Inverse transforms are scaled by 1/n as TensorFlow's.

use num_complex::Complex;
use rayon::prelude::*;
use rustfft::{FftNum, FftPlanner};

/// Below this many elements a transform runs on one thread (rayon's overhead dominates).
const PARALLEL_MIN: usize = 1 << 14;

/// A contiguous row-major array and its dims.
pub struct Array<T> {
    pub data: Vec<Complex<T>>,
    pub dims: Vec<usize>,
}

impl<T: FftNum> Array<T> {
    /// The array cropped or zero-padded (at the end) along `axes` to `lens`.
    pub fn resized(self, axes: &[usize], lens: &[usize]) -> Array<T> {
        let mut dims = self.dims.clone();
        for (&a, &n) in axes.iter().zip(lens) {
            dims[a] = n;
        }
        if dims == self.dims {
            return self;
        }
        let total: usize = dims.iter().product();
        let mut data = vec![Complex::new(T::zero(), T::zero()); total];
        if total > 0 && !self.data.is_empty() {
            // Copy the common box row by row along the last axis.
            let common: Vec<usize> = dims.iter().zip(&self.dims).map(|(&a, &b)| a.min(b)).collect();
            let (rank, last) = (dims.len(), *common.last().unwrap_or(&1));
            let rows: usize = common[..rank.saturating_sub(1)].iter().product();
            let mut index = vec![0usize; rank.saturating_sub(1)];
            for _ in 0..rows {
                let (mut src, mut dst) = (0usize, 0usize);
                for k in 0..rank.saturating_sub(1) {
                    src = src * self.dims[k] + index[k];
                    dst = dst * dims[k] + index[k];
                }
                if rank > 0 {
                    src *= self.dims[rank - 1];
                    dst *= dims[rank - 1];
                }
                data[dst..dst + last].copy_from_slice(&self.data[src..src + last]);
                for k in (0..index.len()).rev() {
                    index[k] += 1;
                    if index[k] < common[k] {
                        break;
                    }
                    index[k] = 0;
                }
            }
        }
        Array { data, dims }
    }

    /// Transforms along `axis` in place (unscaled in both directions).
    pub fn transform(&mut self, axis: usize, inverse: bool, planner: &mut FftPlanner<T>) {
        let n = self.dims[axis];
        if n <= 1 || self.data.is_empty() {
            return;
        }
        let plan = if inverse { planner.plan_fft_inverse(n) } else { planner.plan_fft_forward(n) };
        let rows = |buffer: &mut [Complex<T>]| {
            let parallel = buffer.len() >= PARALLEL_MIN && buffer.len() > n;
            let per_task = if parallel { n * (PARALLEL_MIN / n).max(1) } else { buffer.len() };
            buffer.par_chunks_mut(per_task).for_each(|chunk| {
                let mut scratch =
                    vec![Complex::new(T::zero(), T::zero()); plan.get_inplace_scratch_len()];
                plan.process_with_scratch(chunk, &mut scratch);
            });
        };
        let inner: usize = self.dims[axis + 1..].iter().product();
        if inner == 1 {
            rows(&mut self.data);
            return;
        }
        // Another axis: each block [n][inner] is transposed to rows of length n and back.
        let mut columns = vec![Complex::new(T::zero(), T::zero()); n * inner];
        for block in self.data.chunks_mut(n * inner) {
            columns.par_chunks_mut(n).enumerate().for_each(|(j, column)| {
                for (i, v) in column.iter_mut().enumerate() {
                    *v = block[i * inner + j];
                }
            });
            rows(&mut columns);
            block.par_chunks_mut(inner).enumerate().for_each(|(i, row)| {
                for (j, v) in row.iter_mut().enumerate() {
                    *v = columns[j * n + i];
                }
            });
        }
    }

    /// Multiplies every element by `s`.
    pub fn scale(&mut self, s: T) {
        self.data.par_iter_mut().for_each(|v| *v = *v * s);
    }
}

/// The transform over `axes` to `lens` (forward or inverse, scaled by 1/N when inverse).
pub fn complex<T: FftNum>(x: Array<T>, axes: &[usize], lens: &[usize], inverse: bool) -> Array<T> {
    let mut planner = FftPlanner::new();
    let mut x = x.resized(axes, lens);
    for &a in axes {
        x.transform(a, inverse, &mut planner);
    }
    if inverse {
        x.scale(inverse_size(lens));
    }
    x
}

/// The real-to-complex transform: the last of `axes` keeps its n/2+1 non-negative frequencies.
pub fn real_forward<T: FftNum>(x: Array<T>, axes: &[usize], lens: &[usize]) -> Array<T> {
    let mut planner = FftPlanner::new();
    let (&last, rest) = axes.split_last().expect("at least one axis");
    let n = *lens.last().expect("at least one length");
    let mut x = x.resized(axes, lens);
    x.transform(last, false, &mut planner);
    let mut half = lens.to_vec();
    *half.last_mut().expect("one length") = n / 2 + 1;
    let mut x = x.resized(axes, &half);
    for &a in rest {
        x.transform(a, false, &mut planner);
    }
    x
}

/// The complex-to-real transform: the input's last axis holds n/2+1 frequencies of a
/// Hermitian spectrum (imaginary parts at 0 and n/2 are ignored, as TensorFlow's C2R does).
pub fn real_inverse<T: FftNum>(x: Array<T>, axes: &[usize], lens: &[usize]) -> Vec<T> {
    let mut planner = FftPlanner::new();
    let (&last, rest) = axes.split_last().expect("at least one axis");
    let n = *lens.last().expect("at least one length");
    let mut half = lens.to_vec();
    *half.last_mut().expect("one length") = n / 2 + 1;
    let mut x = x.resized(axes, &half);
    for &a in rest {
        x.transform(a, true, &mut planner);
    }
    // Rebuild the full spectrum along the last axis (as the last axis, moved there if needed).
    let mut full = x.resized(&[last], &[n]);
    if full.data.is_empty() {
        return Vec::new();
    }
    let inner: usize = full.dims[last + 1..].iter().product();
    let m = n / 2 + 1;
    full.data.par_chunks_mut(n * inner).for_each(|block| {
        for k in m..n {
            for j in 0..inner {
                block[k * inner + j] = block[(n - k) * inner + j].conj();
            }
        }
    });
    full.transform(last, true, &mut planner);
    let s = inverse_size(lens);
    full.data.par_iter().map(|v| v.re * s).collect()
}

fn inverse_size<T: FftNum>(lens: &[usize]) -> T {
    let n: usize = lens.iter().product();
    T::one() / T::from_usize(n.max(1)).expect("a length is a float")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[Complex<f64>], inverse: bool) -> Vec<Complex<f64>> {
        let n = x.len();
        let sign = if inverse { 1.0 } else { -1.0 };
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Complex::new(0.0, 0.0), |acc, (t, &v)| {
                    let angle = sign * 2.0 * std::f64::consts::PI * (k * t) as f64 / n as f64;
                    acc + v * Complex::new(angle.cos(), angle.sin())
                })
            })
            .collect()
    }

    #[test]
    fn columns_transform_as_rows_do() {
        // [3][5] transformed along axis 0 equals the naive DFT of each column.
        let data: Vec<Complex<f64>> =
            (0..15).map(|i| Complex::new(i as f64, (i * i % 7) as f64)).collect();
        let out = complex(Array { data: data.clone(), dims: vec![3, 5] }, &[0], &[3], false);
        for j in 0..5 {
            let column: Vec<_> = (0..3).map(|i| data[i * 5 + j]).collect();
            for (i, want) in naive(&column, false).into_iter().enumerate() {
                assert!((out.data[i * 5 + j] - want).norm() < 1e-9);
            }
        }
    }

    #[test]
    fn real_round_trip_for_odd_and_even_lengths() {
        for n in [1usize, 2, 5, 6, 7, 16] {
            let x: Vec<Complex<f64>> =
                (0..n).map(|i| Complex::new((i as f64).sin(), 0.0)).collect();
            let spectrum = real_forward(Array { data: x.clone(), dims: vec![n] }, &[0], &[n]);
            assert_eq!(spectrum.dims, [n / 2 + 1]);
            let back = real_inverse(spectrum, &[0], &[n]);
            for (a, b) in back.iter().zip(&x) {
                assert!((a - b.re).abs() < 1e-12, "{n}");
            }
        }
    }
}
