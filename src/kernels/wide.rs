//! Loops compiled for the widest vector unit the CPU has, chosen at run time. The crate is
//! built for the x86-64 baseline (SSE2, four float lanes); `dispatch!` calls a copy of an
//! `#[inline(always)]` loop compiled with AVX-512 or AVX2 enabled when the CPU has them. Rust
//! never contracts a * b + c into a fused multiply-add by itself, so every copy computes the
//! same values, bit for bit.

/// `dispatch!(f(args..))`: calls `f` (an `#[inline(always)]` function whose arguments are
/// plain values or references) compiled for AVX-512, AVX2 or the baseline.
macro_rules! dispatch {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
            unsafe fn wide_avx512<R>(run: impl FnOnce() -> R) -> R {
                run()
            }
            #[target_feature(enable = "avx2,fma")]
            unsafe fn wide_avx2<R>(run: impl FnOnce() -> R) -> R {
                run()
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl")
            {
                // SAFETY: the CPU has every feature the copy is compiled for (checked above).
                unsafe { wide_avx512(#[inline(always)] || $f($($arg),*)) }
            } else if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: as above.
                unsafe { wide_avx2(#[inline(always)] || $f($($arg),*)) }
            } else {
                $f($($arg),*)
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            $f($($arg),*)
        }
    }};
}
pub(crate) use dispatch;
