//! Output allocation. Large buffers ask the kernel for transparent huge pages, as numpy does:
//! a fresh 40 MB output otherwise costs ~10 000 page faults, more than the arithmetic itself.

/// Bytes above which an allocation is advised to use huge pages.
const HUGE_PAGE_THRESHOLD: usize = 4 << 20;

/// An empty vector with room for `n` elements, backed by huge pages when large.
pub fn with_capacity<T>(n: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(n);
    let bytes = n.saturating_mul(std::mem::size_of::<T>());
    if bytes >= HUGE_PAGE_THRESHOLD {
        advise_huge_pages(v.as_ptr() as usize, bytes);
    }
    v
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, bytes: usize) {
    const PAGE: usize = 4096;
    let begin = start.div_ceil(PAGE) * PAGE;
    let end = (start + bytes) / PAGE * PAGE;
    if end > begin {
        // SAFETY: the range lies inside this vector's own allocation; MADV_HUGEPAGE only changes
        // how the kernel backs those pages and never their contents. Failure is harmless.
        unsafe {
            libc::madvise(begin as *mut libc::c_void, end - begin, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_start: usize, _bytes: usize) {}
