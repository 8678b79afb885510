//! CPU kernels of MaxPool and AvgPool for float32 and float64 in one pass over the image: each
//! output pixel reads its window's taps in place (no window matrix), channels innermost so that
//! the loop runs over contiguous memory. They compute what `conv.rs`'s decompositions define.

use super::patches::PatchSpec;
use crate::kernels::parallel;

/// How one window's taps combine.
#[derive(Clone, Copy)]
pub enum Pooling {
    /// TensorFlow's CPU rule: start at the dtype's lowest finite value and take only greater
    /// taps, so NaN never wins and padding never counts.
    Max,
    /// The mean of the in-image taps (padding is left out of the count).
    Average,
}

/// Float types the kernels run on.
pub trait PoolFloat: Copy + Send + Sync + PartialOrd + std::ops::Add<Output = Self> {
    const LOWEST: Self;
    const ZERO: Self;
    fn divide(self, count: usize) -> Self;
}

impl PoolFloat for f32 {
    const LOWEST: f32 = f32::MIN;
    const ZERO: f32 = 0.0;
    fn divide(self, count: usize) -> f32 {
        self / count as f32
    }
}

impl PoolFloat for f64 {
    const LOWEST: f64 = f64::MIN;
    const ZERO: f64 = 0.0;
    fn divide(self, count: usize) -> f64 {
        self / count as f64
    }
}

/// Pools `x` (`[n, h, w, c]`) over `spec`'s windows into `[n, OH, OW, c]`.
pub fn pool<T: PoolFloat>(x: &[T], image: [usize; 4], spec: &PatchSpec, how: Pooling) -> Vec<T> {
    let [n, _, _, c] = image;
    let [oh, ow] = spec.out;
    // One output row of one image per task, zeroed in cache just before it is pooled.
    parallel::filled_chunks(n * oh * ow * c, ow * c, T::ZERO, |task, row| {
        crate::kernels::wide::dispatch!(pool_row(x, image, spec, how, task, row))
    })
}

/// Output row `task % OH` of image `task / OH`.
#[inline(always)]
fn pool_row<T: PoolFloat>(
    x: &[T],
    image: [usize; 4],
    spec: &PatchSpec,
    how: Pooling,
    task: usize,
    row: &mut [T],
) {
    let [_, h, w, c] = image;
    let [oh, _] = spec.out;
    let (out_row, img) = (task % oh, task / oh);
    let rows: Vec<usize> =
        (0..spec.kernel[0]).filter_map(|t| spec.source(0, out_row, t, h)).collect();
    for (col, acc) in row.chunks_mut(c).enumerate() {
        let start = match how {
            Pooling::Max => T::LOWEST,
            Pooling::Average => T::ZERO,
        };
        acc.fill(start);
        let mut count = 0;
        // Taps in the decomposition's order (window rows, then columns), so that average
        // sums round as the decomposition's and the GPU's do.
        for &y in &rows {
            for t in 0..spec.kernel[1] {
                let Some(x_at) = spec.source(1, col, t, w) else { continue };
                let at = ((img * h + y) * w + x_at) * c;
                let taps = &x[at..at + c];
                // Selects, not branches: random data would mispredict half of them, and
                // the select compiles to a vector max with this NaN rule.
                match how {
                    Pooling::Max => acc
                        .iter_mut()
                        .zip(taps)
                        .for_each(|(a, &v)| *a = if v > *a { v } else { *a }),
                    Pooling::Average => acc.iter_mut().zip(taps).for_each(|(a, &v)| *a = *a + v),
                }
                count += 1;
            }
        }
        if let Pooling::Average = how {
            acc.iter_mut().for_each(|a| *a = a.divide(count.max(1)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::patches::PatchFill;

    fn spec(pad: usize, out: [usize; 2]) -> PatchSpec {
        PatchSpec {
            kernel: [2, 3],
            strides: [2, 1],
            dilations: [1, 1],
            pad: [pad; 2],
            out,
            fill: PatchFill::Lowest,
        }
    }

    #[test]
    fn windows_pool_their_in_image_taps() {
        // One image 3 x 4, two channels: channel 1 is channel 0 negated.
        let x: Vec<f32> = (0..12).flat_map(|i| [i as f32, -(i as f32)]).collect();
        let s = spec(1, [2, 4]);
        let max = pool(&x, [1, 3, 4, 2], &s, Pooling::Max);
        // Output (0, 0) reads rows {0} (row -1 is padding) and columns {0, 1}.
        assert_eq!(&max[..2], &[1.0, 0.0]);
        let avg = pool(&x, [1, 3, 4, 2], &s, Pooling::Average);
        assert_eq!(&avg[..2], &[0.5, -0.5]);
        // Output (1, 3) reads rows {1, 2} and columns {2, 3}: values 6, 7, 10, 11.
        let at = (4 + 3) * 2;
        assert_eq!(max[at], 11.0);
        assert_eq!(avg[at], 8.5);
    }

    #[test]
    fn nan_never_wins_a_max_window_and_minus_infinity_pools_to_the_lowest() {
        let s = PatchSpec { kernel: [1, 2], strides: [1, 2], out: [1, 2], ..spec(0, [1, 2]) };
        let x = [f64::NAN, 2.0, f64::NEG_INFINITY, f64::NEG_INFINITY];
        assert_eq!(pool(&x, [1, 1, 4, 1], &s, Pooling::Max), vec![2.0, f64::MIN]);
    }
}
