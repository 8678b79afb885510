//! The CPU pass of a fused float chain: each parallel task walks its range in L1-sized blocks
//! and runs every step as a tight loop over the block, so intermediates never leave the cache
//! and nothing is allocated per block. Steps use the element functions of the eager kernels,
//! so fused and eager results agree bit for bit.

use super::fused::{Arg, FusedChain, Operand, Step};
use crate::dispatch::Op;
use crate::element::{FloatElem, Num, Real as RealElem};
use crate::kernels::parallel;
use crate::ops::composite::Composite;
use crate::ops::{BinaryOp, UnaryOp};

/// Elements of the blocks of one chain that fit a core's L1 together (32 KiB of float32).
const L1_ELEMENTS: usize = 8192;
/// Block lengths: at least this long (long chains spill to L2 rather than pay per-block
/// costs on tiny blocks), at most this long (short chains gain nothing from longer ones).
const MIN_BLOCK: usize = 256;
const MAX_BLOCK: usize = 2048;

/// Whether every step of the chain has a loop here (probed on empty blocks). Comparisons
/// make masks (one and zero in the chain's type) that only a select reads; a chain whose
/// result is a mask (a bool tensor) runs through the eager kernels.
pub fn supported(chain: &FusedChain) -> bool {
    let ends_in_mask = chain.steps.last().is_some_and(|s| makes_mask(&s.op));
    !ends_in_mask
        && chain.steps.iter().all(|step| {
            let arity = match step.op {
                Op::Unary(_) | Op::Composite(Composite::Relu) => 1,
                Op::Binary(_) => 2,
                Op::Select(_) => 3,
                _ => return false,
            };
            step.args.len() == arity && apply::<f32>(&step.op, &[&[], &[], &[]], &mut [])
        })
}

fn makes_mask(op: &Op) -> bool {
    matches!(op, Op::Binary(b) if b.is_comparison())
}

/// Runs a chain of `n` elements whose inputs are read as `kinds` says: full inputs have `n`
/// elements, scalars one, rows one per index of the last axis (repeated every row length).
pub fn run<T: FloatElem + Send + Sync>(
    chain: &FusedChain,
    inputs: &[&[T]],
    kinds: &[Operand],
    n: usize,
) -> Vec<T> {
    let steps = chain.steps.len();
    // Blocks as long as L1 allows for every step's and input's block: each step's loop is
    // one call per block, so short blocks cost calls and dispatch per element.
    let block = (L1_ELEMENTS / (inputs.len() + steps)).clamp(MIN_BLOCK, MAX_BLOCK);
    // Each input's broadcast region: a block of a scalar; a row repeated over a block and one
    // more row (a block's values start anywhere in it); for a row longer than a block, room
    // to copy the blocks that wrap around its end.
    let regions: Vec<usize> = inputs
        .iter()
        .zip(kinds)
        .map(|(input, kind)| match kind {
            Operand::Full => 0,
            Operand::Scalar => block,
            Operand::Row if input.len() < block => block + input.len(),
            Operand::Row => block,
        })
        .collect();
    let starts: Vec<usize> = regions
        .iter()
        .scan(0, |at, &len| {
            *at += len;
            Some(*at - len)
        })
        .collect();
    let broadcast_len: usize = regions.iter().sum();
    parallel::build(n, |offset, dst| {
        let mut scratch = vec![<T as Num>::zero(); broadcast_len + block * steps];
        let (broadcast, blocks) = scratch.split_at_mut(broadcast_len);
        for (i, input) in inputs.iter().enumerate() {
            let region = &mut broadcast[starts[i]..starts[i] + regions[i]];
            match kinds[i] {
                Operand::Scalar => region.fill(input[0]),
                Operand::Row if input.len() < block => repeat_row(input, 0, region),
                _ => {}
            }
        }
        for start in (0..dst.len()).step_by(block) {
            let len = block.min(dst.len() - start);
            let at = offset + start;
            // Rows longer than a block: copy a block that wraps around the row's end.
            for (i, input) in inputs.iter().enumerate() {
                let from = at % input.len().max(1);
                if kinds[i] == Operand::Row && input.len() >= block && from + len > input.len() {
                    repeat_row(input, at, &mut broadcast[starts[i]..][..len]);
                }
            }
            for (k, step) in chain.steps.iter().enumerate() {
                let (done, rest) = blocks.split_at_mut(k * block);
                let arg = |a: Arg| -> &[T] {
                    match a {
                        Arg::Input(i) => match kinds[i] {
                            Operand::Full => &inputs[i][at..at + len],
                            Operand::Scalar => &broadcast[starts[i]..][..len],
                            Operand::Row => {
                                let row = inputs[i];
                                let from = at % row.len();
                                if row.len() < block {
                                    &broadcast[starts[i] + from..][..len]
                                } else if from + len <= row.len() {
                                    &row[from..from + len]
                                } else {
                                    &broadcast[starts[i]..][..len]
                                }
                            }
                        },
                        Arg::Step(j) => &done[j * block..][..len],
                    }
                };
                let args = step_args(step, arg);
                apply(&step.op, &args, &mut rest[..len]);
            }
            let result = &blocks[(steps - 1) * block..][..len];
            for (o, &v) in dst[start..start + len].iter_mut().zip(result) {
                o.write(v);
            }
        }
    })
}

/// `out[j] = row[(at + j) % row.len()]`: a row operand's values for elements `at..`.
fn repeat_row<T: Copy>(row: &[T], at: usize, out: &mut [T]) {
    if row.is_empty() {
        return;
    }
    let mut from = at % row.len();
    let mut filled = 0;
    while filled < out.len() {
        let take = (row.len() - from).min(out.len() - filled);
        out[filled..filled + take].copy_from_slice(&row[from..from + take]);
        filled += take;
        from = 0;
    }
}

fn step_args<'a, T>(step: &Step, arg: impl Fn(Arg) -> &'a [T]) -> [&'a [T]; 3] {
    let first = arg(step.args[0]);
    let nth = |k: usize| step.args.get(k).map_or(first, |a| arg(*a));
    [first, nth(1), nth(2)]
}

/// Runs one step over a block; false if the op has no loop here. The loops run compiled for
/// the CPU's widest vectors (`kernels::wide`): a chain makes one pass over an L1 block per
/// step, and in baseline SSE2 those passes, not memory, set the chain's speed.
fn apply<T: FloatElem>(op: &Op, args: &[&[T]; 3], out: &mut [T]) -> bool {
    crate::kernels::wide::dispatch!(apply_loops(op, args, out))
}

#[inline(always)]
fn apply_loops<T: FloatElem>(op: &Op, args: &[&[T]; 3], out: &mut [T]) -> bool {
    match op {
        Op::Unary(u) => unary(*u, args[0], out),
        Op::Binary(b) => binary(*b, args[0], args[1], out),
        // Relu's decomposition, `maximum(x, 0)`, element by element.
        Op::Composite(Composite::Relu) => {
            let zero = <T as Num>::zero();
            for (o, &x) in out.iter_mut().zip(args[0]) {
                *o = x.tf_maximum(zero);
            }
            true
        }
        // The condition is a comparison's mask (see `supported`).
        Op::Select(_) => {
            let zero = <T as Num>::zero();
            for (((o, &c), &x), &y) in out.iter_mut().zip(args[0]).zip(args[1]).zip(args[2]) {
                *o = if c != zero { x } else { y };
            }
            true
        }
        _ => false,
    }
}

/// A comparison's truth as a mask element.
#[inline(always)]
fn mask<T: FloatElem>(truth: bool) -> T {
    if truth {
        <T as Num>::one()
    } else {
        <T as Num>::zero()
    }
}

#[inline(always)]
fn map2<T: Copy>(out: &mut [T], a: &[T], b: &[T], f: impl Fn(T, T) -> T) -> bool {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
    true
}

#[inline(always)]
fn unary<T: FloatElem>(op: UnaryOp, a: &[T], out: &mut [T]) -> bool {
    crate::ops::unary::fused_map_loops(op, a, out)
}

#[inline(always)]
fn binary<T: FloatElem>(op: BinaryOp, a: &[T], b: &[T], out: &mut [T]) -> bool {
    use BinaryOp::*;
    match op {
        Add => map2(out, a, b, Num::add),
        Sub => map2(out, a, b, Num::sub),
        Mul => map2(out, a, b, Num::mul),
        Div => map2(out, a, b, Num::div),
        Maximum => map2(out, a, b, RealElem::tf_maximum),
        Minimum => map2(out, a, b, RealElem::tf_minimum),
        Pow => map2(out, a, b, RealElem::pow),
        // The eager kernels' comparisons (NaN compares unequal and unordered).
        Equal => map2(out, a, b, |x, y| mask(x == y)),
        NotEqual => map2(out, a, b, |x, y| mask(x != y)),
        Less => map2(out, a, b, |x, y| mask(x < y)),
        LessEqual => map2(out, a, b, |x, y| mask(x <= y)),
        Greater => map2(out, a, b, |x, y| mask(x > y)),
        GreaterEqual => map2(out, a, b, |x, y| mask(x >= y)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::Op;

    /// The wide copies of the binary, select and Relu loops give the baseline's bits (the
    /// unary loops are checked in `ops::unary`).
    #[test]
    fn wide_and_baseline_step_loops_agree_bit_for_bit() {
        let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 1e-40, f32::MAX];
        let a: Vec<f32> = (0..4000)
            .map(|i| if i % 13 == 0 { specials[i % 7] } else { (i as f32 * 0.37).sin() * 50.0 })
            .collect();
        let b: Vec<f32> = a.iter().rev().map(|v| v * 0.5 - 1.0).collect();
        let mask: Vec<f32> = a.iter().map(|v| if *v > 0.0 { 1.0 } else { 0.0 }).collect();
        use BinaryOp::*;
        let mut ops: Vec<Op> = [Add, Sub, Mul, Div, Maximum, Minimum, Pow, Equal, Less]
            .into_iter()
            .map(Op::Binary)
            .collect();
        ops.push(Op::Composite(Composite::Relu));
        ops.push(Op::Select(Default::default()));
        for op in ops {
            let args: [&[f32]; 3] = match op {
                Op::Select(_) => [&mask, &a, &b],
                _ => [&a, &b, &b],
            };
            let (mut wide, mut plain) = (vec![0f32; a.len()], vec![0f32; a.len()]);
            assert!(apply(&op, &args, &mut wide));
            assert!(apply_loops(&op, &args, &mut plain));
            for ((w, p), x) in wide.iter().zip(&plain).zip(&a) {
                assert!(w.to_bits() == p.to_bits() || w.is_nan() && p.is_nan(), "{op:?}({x})");
            }
        }
    }
}
