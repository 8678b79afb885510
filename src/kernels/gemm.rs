//! Safe entries to the `gemm` crate's packed SIMD matrix products (AVX-512 or AVX2 chosen at
//! run time by the crate's `x86-v4` feature): matmul and the convolution kernels call it with
//! strided views, so that transposes are strides and no operand is copied first.

use crate::element::Num;
pub use gemm::Parallelism;
use std::mem::MaybeUninit;

/// A `rows x cols` matrix read from `data` at `row * row_stride + col * col_stride`.
#[derive(Clone, Copy)]
pub struct MatRef<'a, T> {
    pub data: &'a [T],
    pub rows: usize,
    pub cols: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

impl<'a, T> MatRef<'a, T> {
    /// Row-major `rows x cols` at the start of `data`.
    pub fn rows(data: &'a [T], rows: usize, cols: usize) -> Self {
        MatRef { data, rows, cols, row_stride: cols, col_stride: 1 }
    }

    /// The transpose, reading the same memory.
    pub fn t(self) -> Self {
        MatRef {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..self
        }
    }

    /// Whether every element the strides reach lies inside `data`, and the strides fit the
    /// `isize` the crate takes.
    fn in_bounds(&self) -> bool {
        if self.row_stride > isize::MAX as usize || self.col_stride > isize::MAX as usize {
            return false;
        }
        if self.rows == 0 || self.cols == 0 {
            return true;
        }
        let last = (self.rows - 1)
            .checked_mul(self.row_stride)
            .zip((self.cols - 1).checked_mul(self.col_stride))
            .and_then(|(r, c)| r.checked_add(c));
        last.is_some_and(|l| l < self.data.len())
    }
}

/// `dst = a @ b` (or `dst += a @ b` when `accumulate`), `dst` row-major `a.rows x b.cols`;
/// `conj_a`/`conj_b` conjugate complex operands. Panics when the shapes disagree or a view
/// reaches outside its slice: callers build the views from checked shapes.
pub fn matmul_into<T: Num + 'static>(
    dst: &mut [T],
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    accumulate: bool,
    conj: (bool, bool),
    parallelism: Parallelism,
) {
    let fits = a.rows.checked_mul(b.cols).is_some_and(|len| dst.len() >= len);
    assert!(b.rows == a.cols && fits, "gemm operands of mismatched shapes");
    if a.cols == 0 {
        if !accumulate {
            dst[..a.rows * b.cols].fill(T::zero());
        }
        return;
    }
    // SAFETY: `dst` holds at least m x n initialised elements (checked above).
    unsafe { product(dst.as_mut_ptr(), a, b, accumulate, conj, parallelism) }
}

/// `matmul_into` of a new product into memory not yet written (the output of an op): it
/// skips zeroing memory the product overwrites anyway.
pub fn matmul_uninit<T: Num + 'static>(
    dst: &mut [MaybeUninit<T>],
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    conj: (bool, bool),
    parallelism: Parallelism,
) {
    let fits = a.rows.checked_mul(b.cols).is_some_and(|len| dst.len() >= len);
    assert!(b.rows == a.cols && fits, "gemm operands of mismatched shapes");
    if a.cols == 0 {
        dst[..a.rows * b.cols].iter_mut().for_each(|d| {
            d.write(T::zero());
        });
        return;
    }
    // SAFETY: `dst` has room for m x n elements (checked above); the product does not read
    // `dst` when not accumulating, and writes every one of its m x n elements.
    unsafe { product(dst.as_mut_ptr().cast(), a, b, false, conj, parallelism) }
}

/// `dst` (row-major m x n, row stride n) = a b, or += a b when `accumulate`.
///
/// # Safety
/// `dst` must be valid for writes of m x n elements, and for reads of them when
/// `accumulate`; the inner dimension must not be empty.
unsafe fn product<T: Num + 'static>(
    dst: *mut T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    accumulate: bool,
    (conj_a, conj_b): (bool, bool),
    parallelism: Parallelism,
) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    assert!(a.in_bounds() && b.in_bounds(), "gemm view outside its slice");
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: the asserts above keep every element the views address inside their slices;
    // the caller vouches for `dst`.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst,
            1,
            n as isize,
            accumulate,
            a.data.as_ptr(),
            a.col_stride as isize,
            a.row_stride as isize,
            b.data.as_ptr(),
            b.col_stride as isize,
            b.row_stride as isize,
            T::one(),
            T::one(),
            false,
            conj_a,
            conj_b,
            parallelism,
        );
    }
}

/// Rayon's whole pool when the product is large enough to split, else the calling thread.
/// Below about 128^3 multiply-adds (tens of microseconds on one core) waking a sleeping
/// worker costs the caller more than the worker saves: an LSTM(64) train step, whose
/// products are 64 x 64 x 256, took 16.5 ms splitting them and 13.3 ms not.
pub fn parallelism_for(m: usize, n: usize, k: usize) -> Parallelism {
    if m.saturating_mul(n).saturating_mul(k) >= 128 * 128 * 128 {
        Parallelism::Rayon(rayon::current_num_threads())
    } else {
        Parallelism::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Vec<f64> {
        let mut out = vec![0.0; a.rows * b.cols];
        for i in 0..a.rows {
            for j in 0..b.cols {
                for k in 0..a.cols {
                    out[i * b.cols + j] += a.data[i * a.row_stride + k * a.col_stride]
                        * b.data[k * b.row_stride + j * b.col_stride];
                }
            }
        }
        out
    }

    #[test]
    fn strided_views_and_accumulation_match_a_plain_product() {
        let a: Vec<f64> = (0..12).map(|i| i as f64 - 3.0).collect();
        let b: Vec<f64> = (0..20).map(|i| (i * 7 % 5) as f64).collect();
        let (va, vb) = (MatRef::rows(&a, 3, 4), MatRef::rows(&b, 4, 5));
        let mut dst = vec![0.0; 15];
        matmul_into(&mut dst, va, vb, false, (false, false), Parallelism::None);
        assert_eq!(dst, naive(va, vb));
        // a^T stored: read back through the transpose.
        let at: Vec<f64> = (0..12).map(|i| a[(i % 3) * 4 + i / 3]).collect();
        let mut again = vec![1.0; 15];
        matmul_into(
            &mut again,
            MatRef::rows(&at, 4, 3).t(),
            vb,
            true,
            (false, false),
            Parallelism::None,
        );
        let expected: Vec<f64> = naive(va, vb).iter().map(|v| v + 1.0).collect();
        assert_eq!(again, expected);
    }

    #[test]
    #[should_panic(expected = "outside its slice")]
    fn a_view_past_its_slice_panics_instead_of_reading_out_of_bounds() {
        let a = vec![1.0f32; 5];
        let mut dst = vec![0.0f32; 4];
        matmul_into(
            &mut dst,
            MatRef::rows(&a, 2, 3),
            MatRef::rows(&a, 3, 2),
            false,
            (false, false),
            Parallelism::None,
        );
    }

    #[test]
    fn an_empty_inner_dimension_gives_zeros() {
        let mut dst = vec![5.0f32; 4];
        matmul_into(
            &mut dst,
            MatRef::rows(&[], 2, 0),
            MatRef::rows(&[], 0, 2),
            false,
            (false, false),
            Parallelism::None,
        );
        assert_eq!(dst, vec![0.0; 4]);
    }
}
