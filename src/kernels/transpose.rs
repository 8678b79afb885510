//! Permuting a row-major array's axes in cache-sized tiles. Copying in output order reads the
//! input with a large stride: the rows of a 64 x 256 float32 matrix lie 1 KiB apart, so
//! reading down a column touches lines that share a few L1 sets and evict each other (the
//! transpose took 18 µs, as long as a 64 x 64 x 256 matrix product). Here the plane of the
//! two axes that trade places (the input's innermost and the output's innermost) is copied in
//! 16 x 32 tiles, whose lines stay cached while the tile is read and written.

use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Tile sides: `TILE_I` positions along the input's innermost axis (one 64-byte line of
/// float32), `TILE_J` along the output's innermost.
const TILE_I: usize = 16;
const TILE_J: usize = 32;

/// `v` (row-major, `dims`) with its axes permuted: output axis k is input axis `perm[k]`.
/// `perm` must be a permutation of `0..dims.len()` and `v` hold `dims`' element count.
pub fn permute<T: Clone + Send + Sync + 'static>(
    v: &[T],
    dims: &[usize],
    perm: &[usize],
) -> Vec<T> {
    let (dims, perm) = merge_adjacent(dims, perm);
    let total: usize = dims.iter().product();
    debug_assert_eq!(v.len(), total);
    let mut out: Vec<T> = super::alloc::with_capacity(total);
    if total == 0 {
        return out;
    }
    let plan = Plan::new(&dims, &perm);
    let dst = &mut out.spare_capacity_mut()[..total];
    let jobs = plan.jobs(dst);
    if total <= super::parallel::GRAIN {
        jobs.into_iter().for_each(|(job, part)| plan.run(v, job, part));
    } else {
        jobs.into_par_iter().for_each(|(job, part)| plan.run(v, job, part));
    }
    // SAFETY: the jobs' parts cover the output, and `run` writes every element of its part.
    unsafe { out.set_len(total) };
    out
}

/// `dims` and `perm` with runs of axes that stay next to each other in order merged into one
/// axis, and size-1 axes dropped (neither changes the element order).
fn merge_adjacent(dims: &[usize], perm: &[usize]) -> (Vec<usize>, Vec<usize>) {
    // The axes of more than one element, numbered among themselves.
    let big: Vec<usize> = (0..dims.len()).filter(|&a| dims[a] != 1).collect();
    let renumbered: Vec<usize> =
        perm.iter().filter_map(|&a| big.iter().position(|&b| b == a)).collect();
    if renumbered.is_empty() {
        return (vec![1], vec![0]);
    }
    // Runs of consecutive input axes, in output order.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &a in &renumbered {
        match groups.last_mut() {
            Some((first, len)) if *first + *len == a => *len += 1,
            _ => groups.push((a, 1)),
        }
    }
    // A merged axis is numbered by where its run starts in the input.
    let mut starts: Vec<usize> = groups.iter().map(|&(first, _)| first).collect();
    starts.sort_unstable();
    let size =
        |first: usize, len: usize| big[first..first + len].iter().map(|&a| dims[a]).product();
    let merged_dims = starts
        .iter()
        .map(|s| groups.iter().find(|g| g.0 == *s).map_or(1, |&(f, l)| size(f, l)))
        .collect();
    let merged_perm =
        groups.iter().map(|g| starts.iter().position(|s| *s == g.0).unwrap_or(0)).collect();
    (merged_dims, merged_perm)
}

/// The copy in the merged axes: the output is `lead` blocks (its axes before `q`, where the
/// input's innermost axis lands), each `rows` rows of `row` elements.
struct Plan {
    /// Input strides of the output's axes, in output order.
    strides: Vec<usize>,
    out_dims: Vec<usize>,
    /// The output axis holding the input's innermost (stride 1) axis.
    q: usize,
    /// Elements per output position of axis `q` (the product of the output dims after it).
    row: usize,
}

/// One job: lead blocks `leads`, rows `start..end` of axis `q` in each.
type Job = (std::ops::Range<usize>, usize, usize);

impl Plan {
    fn new(dims: &[usize], perm: &[usize]) -> Plan {
        let rank = dims.len();
        let mut input_strides = vec![1usize; rank];
        for a in (0..rank.saturating_sub(1)).rev() {
            input_strides[a] = input_strides[a + 1] * dims[a + 1];
        }
        let strides: Vec<usize> = perm.iter().map(|&a| input_strides[a]).collect();
        let out_dims: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
        let q = perm.iter().position(|&a| a == rank - 1).unwrap_or(rank - 1);
        let row = out_dims[q + 1..].iter().product();
        Plan { strides, out_dims, q, row }
    }

    /// The output cut into jobs: a block of many rows is cut into `TILE_I` rows of axis
    /// `q`; whole blocks (a contiguous run of the input each, or no more than `TILE_I` rows)
    /// are grouped up to about `GRAIN` elements, so many small blocks make few jobs.
    fn jobs<'a, T>(
        &self,
        mut dst: &'a mut [MaybeUninit<T>],
    ) -> Vec<(Job, &'a mut [MaybeUninit<T>])> {
        let leads: usize = self.out_dims[..self.q].iter().product();
        let rows = self.out_dims[self.q];
        let block = rows * self.row;
        let mut jobs = Vec::new();
        let mut take = |len: usize, job: Job| {
            let (part, rest) = std::mem::take(&mut dst).split_at_mut(len);
            jobs.push((job, part));
            dst = rest;
        };
        if self.q + 1 == self.out_dims.len() || rows <= TILE_I {
            let group = (super::parallel::GRAIN / block.max(1)).max(1);
            for first in (0..leads).step_by(group) {
                let last = (first + group).min(leads);
                take((last - first) * block, (first..last, 0, rows));
            }
        } else {
            for lead in 0..leads {
                for start in (0..rows).step_by(TILE_I) {
                    let end = (start + TILE_I).min(rows);
                    take((end - start) * self.row, (lead..lead + 1, start, end));
                }
            }
        }
        jobs
    }

    /// Input offset of output position `index` over the output axes `axes`.
    fn offset(&self, mut index: usize, axes: std::ops::Range<usize>) -> usize {
        let mut offset = 0;
        for a in axes.rev() {
            offset += (index % self.out_dims[a]) * self.strides[a];
            index /= self.out_dims[a];
        }
        offset
    }

    /// Writes rows `start..end` of each lead block of the job into `part`, one after another.
    fn run<T: Clone + 'static>(
        &self,
        v: &[T],
        (leads, start, end): Job,
        part: &mut [MaybeUninit<T>],
    ) {
        let len = (end - start) * self.row;
        for (lead, part) in leads.zip(part.chunks_mut(len.max(1))) {
            self.run_block(v, lead, start..end, part);
        }
    }

    /// Rows `rows` of lead block `lead` into `part`.
    fn run_block<T: Clone + 'static>(
        &self,
        v: &[T],
        lead: usize,
        std::ops::Range { start, end }: std::ops::Range<usize>,
        part: &mut [MaybeUninit<T>],
    ) {
        let rank = self.out_dims.len();
        let base = self.offset(lead, 0..self.q) + start;
        if self.q == rank - 1 {
            // The innermost axis stays innermost: each row is one contiguous run.
            for (o, x) in part.iter_mut().zip(&v[base..base + (end - start)]) {
                o.write(x.clone());
            }
            return;
        }
        // Between q and the last output axis lie `middle` positions, each a run of `inner`
        // output elements that read the input `jump` apart.
        let inner = self.out_dims[rank - 1];
        let jump = self.strides[rank - 1];
        let middle = self.row / inner;
        for m in 0..middle {
            let plane = Plane {
                from: base + self.offset(m, self.q + 1..rank - 1),
                jump,
                to: m * inner,
                row: self.row,
                rows: end - start,
                inner,
            };
            let (rows_done, inner_done) = plane.blocks_of_four_bytes(v, part);
            // What 8 x 8 blocks left: the last rows, then the last columns of the others.
            plane.copy(v, part, rows_done..plane.rows, 0..inner);
            plane.copy(v, part, 0..rows_done, inner_done..inner);
        }
    }
}

/// One plane of a job: output element (i, j) at `to + i * row + j` of the part is input
/// element `from + i + j * jump`, for i < `rows` and j < `inner`.
struct Plane {
    from: usize,
    jump: usize,
    to: usize,
    row: usize,
    rows: usize,
    inner: usize,
}

impl Plane {
    /// Element by element, `TILE_J` columns at a time: each column reads one run of the
    /// input, and the tile's output lines stay cached until they are full.
    fn copy<T: Clone>(
        &self,
        v: &[T],
        part: &mut [MaybeUninit<T>],
        rows: std::ops::Range<usize>,
        columns: std::ops::Range<usize>,
    ) {
        for j0 in columns.clone().step_by(TILE_J) {
            for j in j0..(j0 + TILE_J).min(columns.end) {
                for i in rows.clone() {
                    part[self.to + i * self.row + j]
                        .write(v[self.from + i + j * self.jump].clone());
                }
            }
        }
    }

    /// The plane's 8 x 8 blocks of 4-byte elements, moved through AVX registers where the
    /// CPU has them. Returns how many rows and columns the blocks covered (none otherwise).
    fn blocks_of_four_bytes<T: 'static>(
        &self,
        v: &[T],
        part: &mut [MaybeUninit<T>],
    ) -> (usize, usize) {
        use std::any::TypeId;
        let four_bytes = [TypeId::of::<f32>(), TypeId::of::<i32>(), TypeId::of::<u32>()];
        #[cfg(target_arch = "x86_64")]
        if four_bytes.contains(&TypeId::of::<T>()) && std::arch::is_x86_feature_detected!("avx") {
            let (rows, inner) = (self.rows / 8 * 8, self.inner / 8 * 8);
            // Every block reads and writes inside the slices: the last element read is
            // `from + (rows - 1) + (inner - 1) * jump`, the last written `to + (rows - 1) *
            // row + inner - 1`, both below the ends `run`'s plane bounds guarantee.
            if rows > 0 && inner > 0 {
                assert!(self.from + (rows - 1) + (inner - 1) * self.jump < v.len());
                assert!(self.to + (rows - 1) * self.row + inner - 1 < part.len());
            }
            for j0 in (0..inner).step_by(8) {
                for i0 in (0..rows).step_by(8) {
                    // SAFETY: T is f32, i32 or u32 (checked above), moved as 32-bit lanes
                    // without arithmetic; the asserts keep all 64 reads and writes in bounds;
                    // the CPU has AVX (checked above).
                    unsafe {
                        avx::block8(
                            v.as_ptr().add(self.from + i0 + j0 * self.jump).cast(),
                            self.jump,
                            part.as_mut_ptr().add(self.to + i0 * self.row + j0).cast(),
                            self.row,
                        );
                    }
                }
            }
            return (rows, inner);
        }
        let _ = (v, part, four_bytes);
        (0, 0)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::*;

    /// Transposes the 8 x 8 block of 32-bit lanes at `src` (rows `src_stride` apart) into
    /// `dst` (rows `dst_stride` apart).
    ///
    /// # Safety
    /// The CPU must have AVX; all 8 rows of 8 lanes at both ends must be valid.
    #[target_feature(enable = "avx")]
    pub unsafe fn block8(src: *const f32, src_stride: usize, dst: *mut f32, dst_stride: usize) {
        // Written out rather than in closures, which would not inherit the target feature
        // (and call each intrinsic out of line).
        unsafe {
            let load = |k: usize| src.add(k * src_stride);
            let (r0, r1) = (_mm256_loadu_ps(load(0)), _mm256_loadu_ps(load(1)));
            let (r2, r3) = (_mm256_loadu_ps(load(2)), _mm256_loadu_ps(load(3)));
            let (r4, r5) = (_mm256_loadu_ps(load(4)), _mm256_loadu_ps(load(5)));
            let (r6, r7) = (_mm256_loadu_ps(load(6)), _mm256_loadu_ps(load(7)));
            // Pairs of rows interleaved: a0 b0 a1 b1 | a4 b4 a5 b5, and the high halves.
            let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
            let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
            let (t4, t5) = (_mm256_unpacklo_ps(r4, r5), _mm256_unpackhi_ps(r4, r5));
            let (t6, t7) = (_mm256_unpacklo_ps(r6, r7), _mm256_unpackhi_ps(r6, r7));
            // Four rows' lane k in each 128-bit half: a0 b0 c0 d0 | a4 b4 c4 d4, ...
            let (s0, s1) = (_mm256_shuffle_ps::<0x44>(t0, t2), _mm256_shuffle_ps::<0xEE>(t0, t2));
            let (s2, s3) = (_mm256_shuffle_ps::<0x44>(t1, t3), _mm256_shuffle_ps::<0xEE>(t1, t3));
            let (s4, s5) = (_mm256_shuffle_ps::<0x44>(t4, t6), _mm256_shuffle_ps::<0xEE>(t4, t6));
            let (s6, s7) = (_mm256_shuffle_ps::<0x44>(t5, t7), _mm256_shuffle_ps::<0xEE>(t5, t7));
            // Halves joined: column k of the block, then column k + 4.
            let store = |k: usize| dst.add(k * dst_stride);
            _mm256_storeu_ps(store(0), _mm256_permute2f128_ps::<0x20>(s0, s4));
            _mm256_storeu_ps(store(1), _mm256_permute2f128_ps::<0x20>(s1, s5));
            _mm256_storeu_ps(store(2), _mm256_permute2f128_ps::<0x20>(s2, s6));
            _mm256_storeu_ps(store(3), _mm256_permute2f128_ps::<0x20>(s3, s7));
            _mm256_storeu_ps(store(4), _mm256_permute2f128_ps::<0x31>(s0, s4));
            _mm256_storeu_ps(store(5), _mm256_permute2f128_ps::<0x31>(s1, s5));
            _mm256_storeu_ps(store(6), _mm256_permute2f128_ps::<0x31>(s2, s6));
            _mm256_storeu_ps(store(7), _mm256_permute2f128_ps::<0x31>(s3, s7));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The permutation element by element.
    fn naive<T: Clone>(v: &[T], dims: &[usize], perm: &[usize]) -> Vec<T> {
        let out_dims: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
        let total: usize = dims.iter().product();
        (0..total)
            .map(|mut o| {
                let mut index = vec![0; dims.len()];
                for k in (0..dims.len()).rev() {
                    index[perm[k]] = o % out_dims[k];
                    o /= out_dims[k];
                }
                let flat = index.iter().zip(dims).fold(0, |acc, (i, d)| acc * d + i);
                v[flat].clone()
            })
            .collect()
    }

    fn all_perms(rank: usize) -> Vec<Vec<usize>> {
        if rank == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in all_perms(rank - 1) {
            for at in 0..rank {
                let mut q = p.clone();
                q.insert(at, rank - 1);
                out.push(q);
            }
        }
        out
    }

    #[test]
    fn every_permutation_of_odd_sizes_matches_the_element_by_element_copy() {
        for dims in [vec![3, 17, 33], vec![1, 40, 5, 1], vec![2, 1, 3, 35], vec![70, 2]] {
            let total: usize = dims.iter().product();
            let v: Vec<i64> = (0..total as i64).collect();
            for perm in all_perms(dims.len()) {
                assert_eq!(permute(&v, &dims, &perm), naive(&v, &dims, &perm), "{dims:?} {perm:?}");
            }
        }
    }

    #[test]
    fn four_byte_elements_moved_in_simd_blocks_match_around_the_block_edges() {
        for dims in [vec![8, 8], vec![17, 9], vec![3, 24, 40], vec![9, 2, 16, 7]] {
            let total: usize = dims.iter().product();
            let ints: Vec<i32> = (0..total as i32).collect();
            let floats: Vec<f32> = (0..total).map(|i| i as f32 * 0.5 - 3.0).collect();
            for perm in all_perms(dims.len()) {
                let expected = naive(&ints, &dims, &perm);
                assert_eq!(permute(&ints, &dims, &perm), expected, "{dims:?} {perm:?}");
                let floats_out = permute(&floats, &dims, &perm);
                assert_eq!(floats_out, naive(&floats, &dims, &perm), "{dims:?} {perm:?}");
            }
        }
        // NaN payloads and signed zeros are moved bit for bit.
        let odd = [f32::from_bits(0x7fc0_1234), -0.0, f32::INFINITY, 1e-42];
        let v: Vec<f32> = (0..64).map(|i| odd[i % 4]).collect();
        let bits = |x: Vec<f32>| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(permute(&v, &[8, 8], &[1, 0])), bits(naive(&v, &[8, 8], &[1, 0])));
    }

    #[test]
    fn large_transposes_split_across_threads_match() {
        // Few large blocks, then many small ones grouped into jobs.
        for dims in [[3, 130, 257], [20_000, 2, 3]] {
            let total: usize = dims.iter().product();
            let v: Vec<i64> = (0..total as i64).collect();
            for perm in [[0, 2, 1], [2, 1, 0], [1, 0, 2], [2, 0, 1]] {
                assert_eq!(permute(&v, &dims, &perm), naive(&v, &dims, &perm), "{dims:?} {perm:?}");
            }
        }
    }

    #[test]
    fn empty_and_scalar_arrays() {
        assert!(permute::<i64>(&[], &[0, 3], &[1, 0]).is_empty());
        assert_eq!(permute(&[7i64], &[], &[]), vec![7]);
        assert_eq!(permute(&[7i64], &[1, 1], &[1, 0]), vec![7]);
    }
}
