//! The machine's roofline: its float32 FMA peak and its memory bandwidth, measured rather than
//! looked up (clocks, turbo and a virtual machine's share of the cores decide them), so that the
//! benchmarks can report each kernel as a fraction of what the hardware allows.
//!
//! The peak runs independent chains of fused multiply-adds in the widest vector registers the
//! CPU has (AVX-512, else AVX2 with FMA, else scalar `mul_add`), one chain set per thread; the
//! bandwidth streams arrays far larger than the caches, as STREAM's triad and a read-only sum do.

use rayon::prelude::*;
use std::time::Instant;

/// One measurement: the rate and what produced it.
#[derive(Clone, Debug, PartialEq)]
pub struct Rate {
    /// GFLOP/s for the peak, GB/s for the bandwidths.
    pub value: f64,
    /// The instruction set or access pattern measured (`"avx512"`, `"triad"`...).
    pub method: &'static str,
    pub threads: usize,
}

/// The widest float32 FMA this CPU executes, chosen at run time.
pub fn vector_isa() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return "avx512";
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return "avx2";
        }
    }
    "scalar"
}

/// Float32 FMA peak over `threads` threads (0: rayon's pool size), best of `repeats` runs of
/// about `seconds` each.
pub fn fma_peak(threads: usize, seconds: f64, repeats: usize) -> Rate {
    let threads = if threads == 0 { rayon::current_num_threads() } else { threads };
    let isa = vector_isa();
    // Calibrate the iteration count on one thread so that one run lasts about `seconds`.
    let mut iterations = 1u64 << 16;
    loop {
        let start = Instant::now();
        std::hint::black_box(fma_chains(isa, iterations));
        let elapsed = start.elapsed().as_secs_f64();
        if elapsed > seconds / 8.0 || iterations > 1 << 40 {
            iterations = ((iterations as f64) * seconds / elapsed.max(1e-9)) as u64 + 1;
            break;
        }
        iterations *= 2;
    }
    let mut best = 0.0f64;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let flops: u64 = run_on(threads, |_| fma_chains(isa, iterations)).into_iter().sum();
        best = best.max(flops as f64 / start.elapsed().as_secs_f64() / 1e9);
    }
    Rate { value: best, method: isa, threads }
}

/// Runs `work` once on each of `threads` OS threads started together; returns their results.
fn run_on<R: Send>(threads: usize, work: impl Fn(usize) -> R + Sync) -> Vec<R> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                scope.spawn({
                    let work = &work;
                    move || work(i)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("roofline thread panicked")).collect()
    })
}

/// Runs `iterations` rounds of the chains and returns the float operations done (2 per lane
/// of each FMA).
fn fma_chains(isa: &str, iterations: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: each function runs only after run-time detection found its features.
        match isa {
            "avx512" => return unsafe { x86::chains_avx512(iterations) },
            "avx2" => return unsafe { x86::chains_avx2(iterations) },
            _ => {}
        }
    }
    let _ = isa;
    scalar_chains(iterations)
}

/// Independent accumulators hide the FMA latency (4 cycles on two ports needs at least 8).
const CHAINS: usize = 12;

fn scalar_chains(iterations: u64) -> u64 {
    let mut acc = [1.0f32; CHAINS];
    let (a, b) = (std::hint::black_box(0.999_999f32), std::hint::black_box(1e-7f32));
    for _ in 0..iterations {
        for x in acc.iter_mut() {
            *x = x.mul_add(a, b);
        }
    }
    std::hint::black_box(acc);
    iterations * CHAINS as u64 * 2
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::CHAINS;
    use std::arch::x86_64::*;

    /// One chain kernel per vector width: `$set` broadcasts a float, `$fma` is the fused
    /// multiply-add, `$lanes` floats per register.
    macro_rules! chains {
        ($name:ident, $features:literal, $set:ident, $fma:ident, $lanes:literal) => {
            #[target_feature(enable = $features)]
            pub unsafe fn $name(iterations: u64) -> u64 {
                let a = $set(std::hint::black_box(0.999_999));
                let b = $set(std::hint::black_box(1e-7));
                let mut acc = [$set(1.0); CHAINS];
                for _ in 0..iterations {
                    for x in acc.iter_mut() {
                        *x = $fma(*x, a, b);
                    }
                }
                std::hint::black_box(acc);
                iterations * (CHAINS * $lanes * 2) as u64
            }
        };
    }

    chains!(chains_avx512, "avx512f", _mm512_set1_ps, _mm512_fmadd_ps, 16);
    chains!(chains_avx2, "avx2,fma", _mm256_set1_ps, _mm256_fmadd_ps, 8);
}

/// Memory bandwidth in GB/s over arrays of `bytes` bytes each (much larger than the caches),
/// split across `threads` rayon workers (0: the whole pool), best of `repeats`:
/// - `"triad"`: `a = b + s * c`, counting 12 bytes per element (two reads, one write), the
///   access pattern of a binary elementwise op;
/// - `"read"`: a sum of one array, 4 bytes per element, the pattern of a reduction.
pub fn memory_bandwidth(bytes: usize, threads: usize, repeats: usize) -> (Rate, Rate) {
    let threads = if threads == 0 { rayon::current_num_threads() } else { threads };
    let n = (bytes / 4).max(1 << 16);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().ok();
    // Allocated as kernels allocate their outputs (huge pages when large), so that the roof
    // and the kernels measured against it see the same page sizes.
    let filled = |f: fn(usize) -> f32| {
        let mut v: Vec<f32> = crate::kernels::alloc::with_capacity(n);
        v.extend((0..n).map(f));
        v
    };
    let mut a = filled(|_| 0.0);
    let b = filled(|i| (i % 7) as f32);
    let c = filled(|i| (i % 5) as f32);
    let chunk = n.div_ceil(threads * 8).max(1 << 14);
    let (mut triad, mut read) = (0.0f64, 0.0f64);
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        in_pool(&pool, || {
            a.par_chunks_mut(chunk).zip(b.par_chunks(chunk)).zip(c.par_chunks(chunk)).for_each(
                |((a, b), c)| {
                    for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
                        *a = b + 3.0 * c;
                    }
                },
            )
        });
        triad = triad.max(12.0 * n as f64 / start.elapsed().as_secs_f64() / 1e9);
        let start = Instant::now();
        let total: f32 = in_pool(&pool, || a.par_chunks(chunk).map(sum_lanes).sum());
        std::hint::black_box(total);
        read = read.max(4.0 * n as f64 / start.elapsed().as_secs_f64() / 1e9);
    }
    (Rate { value: triad, method: "triad", threads }, Rate { value: read, method: "read", threads })
}

/// Runs `f` on `pool`'s threads (on the global pool when it could not be built).
fn in_pool<R: Send>(pool: &Option<rayon::ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// A sum in 16 independent lanes, which the compiler vectorises (one accumulator would make
/// it a latency-bound chain, not a bandwidth test).
fn sum_lanes(x: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 16];
    let mut blocks = x.chunks_exact(16);
    for block in &mut blocks {
        for (l, v) in lanes.iter_mut().zip(block) {
            *l += v;
        }
    }
    lanes.iter().sum::<f32>() + blocks.remainder().iter().sum::<f32>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_is_positive_and_names_its_instruction_set() {
        let rate = fma_peak(1, 0.01, 1);
        assert!(rate.value > 0.1, "{rate:?}");
        assert_eq!(rate.method, vector_isa());
        assert_eq!(rate.threads, 1);
    }

    #[test]
    fn every_chain_kernel_counts_the_same_work_per_lane() {
        // 12 chains x 2 flops per lane per iteration, whatever the vector width.
        assert_eq!(scalar_chains(10), 240);
        #[cfg(target_arch = "x86_64")]
        if vector_isa() != "scalar" {
            let flops = fma_chains(vector_isa(), 10);
            assert!(flops == 240 * 8 || flops == 240 * 16, "{flops}");
        }
    }

    #[test]
    fn bandwidths_are_positive() {
        let (triad, read) = memory_bandwidth(1 << 20, 1, 1);
        assert!(triad.value > 0.0 && read.value > 0.0);
        assert_eq!((triad.method, read.method), ("triad", "read"));
    }

    #[test]
    fn the_lane_sum_matches_a_plain_sum() {
        let x: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        assert_eq!(sum_lanes(&x), 499_500.0);
    }
}
