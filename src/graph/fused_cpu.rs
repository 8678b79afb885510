//! The CPU pass of a fused float chain: each parallel task walks its range in L1-sized blocks
//! and runs every step as a tight loop over the block, so intermediates never leave the cache
//! and nothing is allocated per block. Steps use the element functions of the eager kernels,
//! so fused and eager results agree bit for bit.

use super::fused::{Arg, FusedChain, Step};
use crate::dispatch::Op;
use crate::element::{FloatElem, Num, Real as RealElem};
use crate::kernels::parallel;
use crate::ops::{BinaryOp, UnaryOp};

/// Elements per block: a block per step of a long chain still fits in L1.
const BLOCK: usize = 256;

/// Whether every step of the chain has a loop here (probed on empty blocks). Comparisons
/// make masks (one and zero in the chain's type) that only a select reads; a chain whose
/// result is a mask (a bool tensor) runs through the eager kernels.
pub fn supported(chain: &FusedChain) -> bool {
    let ends_in_mask = chain.steps.last().is_some_and(|s| makes_mask(&s.op));
    !ends_in_mask
        && chain.steps.iter().all(|step| {
            let arity = match step.op {
                Op::Unary(_) => 1,
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

/// Runs a chain whose inputs all have `n` elements or one (a scalar, broadcast).
pub fn run<T: FloatElem + Send + Sync>(chain: &FusedChain, inputs: &[&[T]], n: usize) -> Vec<T> {
    let steps = chain.steps.len();
    parallel::build(n, |offset, dst| {
        // One block per input (scalars broadcast once) and one per step.
        let mut scratch = vec![<T as Num>::zero(); BLOCK * (inputs.len() + steps)];
        let (scalars, blocks) = scratch.split_at_mut(BLOCK * inputs.len());
        for (i, input) in inputs.iter().enumerate() {
            if input.len() == 1 {
                scalars[i * BLOCK..(i + 1) * BLOCK].fill(input[0]);
            }
        }
        for start in (0..dst.len()).step_by(BLOCK) {
            let len = BLOCK.min(dst.len() - start);
            let at = offset + start;
            for (k, step) in chain.steps.iter().enumerate() {
                let (done, rest) = blocks.split_at_mut(k * BLOCK);
                let arg = |a: Arg| -> &[T] {
                    match a {
                        Arg::Input(i) if inputs[i].len() == 1 => &scalars[i * BLOCK..][..len],
                        Arg::Input(i) => &inputs[i][at..at + len],
                        Arg::Step(j) => &done[j * BLOCK..][..len],
                    }
                };
                let args = step_args(step, arg);
                apply(&step.op, &args, &mut rest[..len]);
            }
            let result = &blocks[(steps - 1) * BLOCK..][..len];
            for (o, &v) in dst[start..start + len].iter_mut().zip(result) {
                o.write(v);
            }
        }
    })
}

fn step_args<'a, T>(step: &Step, arg: impl Fn(Arg) -> &'a [T]) -> [&'a [T]; 3] {
    let first = arg(step.args[0]);
    let nth = |k: usize| step.args.get(k).map_or(first, |a| arg(*a));
    [first, nth(1), nth(2)]
}

/// Runs one step over a block; false if the op has no loop here.
fn apply<T: FloatElem>(op: &Op, args: &[&[T]; 3], out: &mut [T]) -> bool {
    match op {
        Op::Unary(u) => unary(*u, args[0], out),
        Op::Binary(b) => binary(*b, args[0], args[1], out),
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

fn unary<T: FloatElem>(op: UnaryOp, a: &[T], out: &mut [T]) -> bool {
    crate::ops::unary::fused_map(op, a, out)
}

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
