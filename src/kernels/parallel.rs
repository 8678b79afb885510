//! Parallel element maps over slices. Below `GRAIN` elements work stays on the calling thread:
//! rayon's fork/join costs microseconds, more than a small op itself.

use rayon::prelude::*;
use std::mem::MaybeUninit;

pub const GRAIN: usize = 1 << 15;

/// `build` with chunks of `chunk` elements (the last may be shorter), numbered: `fill(index,
/// chunk)` for kernels whose work splits by images or rows rather than by elements.
pub fn build_chunks<U: Send>(
    n: usize,
    chunk: usize,
    fill: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync,
) -> Vec<U> {
    let mut out: Vec<U> = super::alloc::with_capacity(n);
    out.spare_capacity_mut()[..n].par_chunks_mut(chunk.max(1)).enumerate().for_each(|(i, part)| {
        fill(i, part);
    });
    // SAFETY: `fill` wrote every element of every chunk, and the chunks cover 0..n.
    unsafe { out.set_len(n) };
    out
}

/// Fills a new vector of `n` elements by calling `fill(offset, chunk)` on disjoint chunks in
/// parallel; every element of each chunk must be written.
pub fn build<U: Send>(n: usize, fill: impl Fn(usize, &mut [MaybeUninit<U>]) + Sync) -> Vec<U> {
    let mut out: Vec<U> = super::alloc::with_capacity(n);
    {
        let dst = &mut out.spare_capacity_mut()[..n];
        if n <= GRAIN {
            fill(0, dst);
        } else {
            dst.par_chunks_mut(GRAIN).enumerate().for_each(|(i, chunk)| fill(i * GRAIN, chunk));
        }
    }
    // SAFETY: `fill` wrote every element of every chunk, and the chunks cover 0..n.
    unsafe { out.set_len(n) };
    out
}

pub fn map<T: Copy + Sync, U: Send>(src: &[T], f: impl Fn(T) -> U + Sync) -> Vec<U> {
    build(src.len(), |offset, dst| {
        let src = &src[offset..offset + dst.len()];
        for (o, &x) in dst.iter_mut().zip(src) {
            o.write(f(x));
        }
    })
}

pub fn zip_map<A: Copy + Sync, B: Copy + Sync, U: Send>(
    a: &[A],
    b: &[B],
    f: impl Fn(A, B) -> U + Sync,
) -> Vec<U> {
    debug_assert_eq!(a.len(), b.len());
    build(a.len(), |offset, dst| {
        let n = dst.len();
        let (a, b) = (&a[offset..offset + n], &b[offset..offset + n]);
        for ((o, &x), &y) in dst.iter_mut().zip(a).zip(b) {
            o.write(f(x, y));
        }
    })
}

/// `out[i] = f(i)` for i in 0..n.
pub fn generate<U: Send>(n: usize, f: impl Fn(usize) -> U + Sync) -> Vec<U> {
    build(n, |offset, dst| {
        for (i, o) in dst.iter_mut().enumerate() {
            o.write(f(offset + i));
        }
    })
}

/// A new vector of `n` copies of `value` in chunks of `chunk` elements, each set and then
/// passed to `fill(index, chunk)` by the same task, in parallel. For kernels that accumulate
/// into their output (scatters): each chunk is initialised while it is about to be used, in
/// cache, where a whole-vector fill first would stream it through memory twice.
pub fn filled_chunks<T: Copy + Send + Sync>(
    n: usize,
    chunk: usize,
    value: T,
    fill: impl Fn(usize, &mut [T]) + Sync,
) -> Vec<T> {
    let mut out: Vec<T> = super::alloc::with_capacity(n);
    out.spare_capacity_mut()[..n].par_chunks_mut(chunk.max(1)).enumerate().for_each(|(i, part)| {
        for e in part.iter_mut() {
            e.write(value);
        }
        // SAFETY: every element of `part` was just written, and `MaybeUninit<T>` has `T`'s
        // layout, so the slice is a valid, initialised `[T]`.
        let part = unsafe { &mut *(part as *mut [std::mem::MaybeUninit<T>] as *mut [T]) };
        fill(i, part);
    });
    // SAFETY: the chunks cover 0..n and each was initialised above.
    unsafe { out.set_len(n) };
    out
}

/// A slice as room to write into, for tests of loops that write `MaybeUninit` outputs. Only
/// in tests: safe code could store `MaybeUninit::uninit()` through the result and leave the
/// `[T]` uninitialised, so it is no public API.
#[cfg(test)]
pub(crate) fn as_uninit_mut<T: Copy>(s: &mut [T]) -> &mut [MaybeUninit<T>] {
    // SAFETY: same layout; the tests that call it write only `T` values through it.
    unsafe { &mut *(s as *mut [T] as *mut [MaybeUninit<T>]) }
}

/// # Safety
/// Every element of `s` has been written.
pub unsafe fn assume_init<T>(s: &[MaybeUninit<T>]) -> &[T] {
    // SAFETY: initialised (the caller's promise), and `MaybeUninit<T>` has `T`'s layout.
    unsafe { &*(s as *const [MaybeUninit<T>] as *const [T]) }
}
