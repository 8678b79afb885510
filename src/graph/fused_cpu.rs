//! The CPU pass of a fused float chain: each parallel task walks its range in L1-sized blocks
//! and runs every step as a tight loop over the block, so intermediates never leave the cache
//! and nothing is allocated per block. Steps use the element functions of the eager kernels,
//! so fused and eager results agree bit for bit.

use super::fused::{Arg, FusedChain, Operand, Step};
use crate::dispatch::Op;
use crate::element::{FloatElem, Num, Real as RealElem};
use crate::kernels::broadcast::repeat_row;
use crate::kernels::parallel;
use crate::ops::composite::Composite;
use crate::ops::{BinaryOp, UnaryOp};
use std::mem::MaybeUninit;

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
        && !chain.steps.is_empty()
        && chain.steps.iter().all(|step| {
            let arity = match step.op {
                Op::Unary(_) | Op::Composite(Composite::Relu) => 1,
                Op::Binary(_) => 2,
                Op::Select(_) => 3,
                _ => return false,
            };
            step.args.len() == arity && apply::<f32>(&step.op, &[Val::slice(&[]); 3], &mut [])
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
    let layout = Layout::new(chain, inputs, kinds);
    parallel::build(n, |offset, dst| {
        // The whole task, block loop included, is compiled per vector width: the step loops
        // inline into it, so a step costs a jump-table branch per block, not a call.
        crate::kernels::wide::dispatch!(run_task(chain, inputs, kinds, &layout, offset, dst, None))
    })
}

/// A chain applied as the epilogue of the kernel that makes its input 0 (`fused::Producer`):
/// the kernel calls `run` on each tile of its output while the tile is in cache, and the
/// chain's result is written in the tile's place. One tile runs on the calling thread.
pub struct Epilogue<'a, T> {
    chain: &'a FusedChain,
    /// The chain's inputs; input 0 (the producer's output) is read from each tile instead.
    inputs: Vec<&'a [T]>,
    kinds: &'a [Operand],
    layout: Layout,
}

impl<'a, T: FloatElem> Epilogue<'a, T> {
    /// `rest`: the chain's inputs after the produced one, read as `kinds[1..]` says; the
    /// producer's output is read as `kinds[0]`, which must be `Full`.
    pub fn new(chain: &'a FusedChain, rest: &[&'a [T]], kinds: &'a [Operand]) -> Self {
        assert!(supported(chain) && kinds.first() == Some(&Operand::Full));
        let inputs: Vec<&[T]> = std::iter::once(&[][..]).chain(rest.iter().copied()).collect();
        assert_eq!(inputs.len(), kinds.len());
        let layout = Layout::new(chain, &inputs, kinds);
        Epilogue { chain, inputs, kinds, layout }
    }

    /// The chain over elements `offset..offset + tile.len()` of the output, where `tile`
    /// holds the producer's values there; writes every element of `dst` (as long as `tile`).
    pub fn run(&self, offset: usize, tile: &[T], dst: &mut [MaybeUninit<T>]) {
        assert_eq!(tile.len(), dst.len());
        let Epilogue { chain, ref inputs, kinds, ref layout } = *self;
        let produced = Some((offset, tile));
        crate::kernels::wide::dispatch!(run_task(
            chain, inputs, kinds, layout, offset, dst, produced
        ))
    }
}

/// Where each input's broadcast values live in a task's scratch, and the block length.
struct Layout {
    block: usize,
    /// Per input: the length of its broadcast region (0 for full inputs) and its start.
    regions: Vec<usize>,
    starts: Vec<usize>,
    broadcast_len: usize,
}

impl Layout {
    fn new<T>(chain: &FusedChain, inputs: &[&[T]], kinds: &[Operand]) -> Layout {
        // A block of every step's result and every input stays in L1 with room to spare for
        // the lines streaming in and out; and blocks stay long enough that the per-block
        // branch to each step's loop is small beside the loop.
        let per_element = inputs.len() + chain.steps.len();
        let block = (L1_ELEMENTS / per_element).clamp(MIN_BLOCK, MAX_BLOCK);
        // Each input's broadcast region: a block of a scalar (read by steps other than the
        // binary ones, which read the value itself); a row repeated over a block and one more
        // row (a block's values start anywhere in it); for a row longer than a block, room
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
        let starts = regions
            .iter()
            .scan(0, |at, &len| {
                *at += len;
                Some(*at - len)
            })
            .collect();
        let broadcast_len = regions.iter().sum();
        Layout { block, regions, starts, broadcast_len }
    }
}

/// One task: the elements `offset..offset + dst.len()`, block by block. With `produced`
/// (an epilogue's tile and where it starts), input 0 is read from the tile.
#[inline(always)]
fn run_task<T: FloatElem>(
    chain: &FusedChain,
    inputs: &[&[T]],
    kinds: &[Operand],
    layout: &Layout,
    offset: usize,
    dst: &mut [MaybeUninit<T>],
    produced: Option<(usize, &[T])>,
) {
    let Layout { block, ref regions, ref starts, broadcast_len } = *layout;
    let steps = chain.steps.len();
    // Left uninitialised: every region and block is written before it is read. The last
    // step writes straight into `dst`, so its block needs no room here.
    let mut scratch: Vec<MaybeUninit<T>> =
        Vec::with_capacity(broadcast_len + block * steps.saturating_sub(1));
    // SAFETY: `MaybeUninit` elements need no initialisation.
    unsafe { scratch.set_len(scratch.capacity()) };
    let (broadcast, blocks) = scratch.split_at_mut(broadcast_len);
    for (i, input) in inputs.iter().enumerate() {
        let region = &mut broadcast[starts[i]..starts[i] + regions[i]];
        match kinds[i] {
            Operand::Scalar => region.fill(MaybeUninit::new(input[0])),
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
            // SAFETY (each `assume_init` below): a scalar's region was filled whole, a short
            // row's for a block and one more row (`from < row.len()`), a wrapping long row's
            // first `len` elements above; step `j < k` wrote the first `len` elements of its
            // block in this iteration.
            let arg = |a: Arg| -> Val<T> {
                match a {
                    Arg::Input(i) => match kinds[i] {
                        Operand::Full => Val::slice(match produced {
                            Some((first, tile)) if i == 0 => &tile[at - first..][..len],
                            _ => &inputs[i][at..at + len],
                        }),
                        Operand::Scalar => Val {
                            values: unsafe {
                                parallel::assume_init(&broadcast[starts[i]..][..len])
                            },
                            scalar: Some(inputs[i][0]),
                        },
                        Operand::Row => {
                            let row = inputs[i];
                            let from = at % row.len();
                            Val::slice(if row.len() < block {
                                unsafe {
                                    parallel::assume_init(&broadcast[starts[i] + from..][..len])
                                }
                            } else if from + len <= row.len() {
                                &row[from..from + len]
                            } else {
                                unsafe { parallel::assume_init(&broadcast[starts[i]..][..len]) }
                            })
                        }
                    },
                    Arg::Step(j) => {
                        Val::slice(unsafe { parallel::assume_init(&done[j * block..][..len]) })
                    }
                }
            };
            let args = step_args(step, arg);
            let out = if k + 1 == steps { &mut dst[start..start + len] } else { &mut rest[..len] };
            // `supported` admitted every step; a step without a loop would leave `out`
            // uninitialised, so it must stop here rather than be read.
            let ran = apply_loops(&step.op, &args, out);
            assert!(ran, "fused step {:?} has no CPU loop", step.op);
        }
    }
}

/// A step's operand over one block: its values, and the value itself when it is a scalar
/// (binary steps then read it from a register rather than from a block of copies).
#[derive(Clone, Copy)]
struct Val<'a, T> {
    values: &'a [T],
    scalar: Option<T>,
}

impl<'a, T> Val<'a, T> {
    fn slice(values: &'a [T]) -> Self {
        Val { values, scalar: None }
    }
}

fn step_args<'a, T: Copy>(step: &Step, arg: impl Fn(Arg) -> Val<'a, T>) -> [Val<'a, T>; 3] {
    let first = arg(step.args[0]);
    let nth = |k: usize| step.args.get(k).map_or(first, |a| arg(*a));
    [first, nth(1), nth(2)]
}

/// `apply_loops` compiled for the CPU's widest vectors, as `run_task` runs it: a chain makes
/// one pass over an L1 block per step, and in baseline SSE2 those passes, not memory, set
/// the chain's speed. Here for `supported`'s probe and the tests.
fn apply<T: FloatElem>(op: &Op, args: &[Val<T>; 3], out: &mut [MaybeUninit<T>]) -> bool {
    crate::kernels::wide::dispatch!(apply_loops(op, args, out))
}

/// Runs one step over a block; false if the op has no loop here.
#[inline(always)]
fn apply_loops<T: FloatElem>(op: &Op, args: &[Val<T>; 3], out: &mut [MaybeUninit<T>]) -> bool {
    let [a, b, c] = args.map(|v| v.values);
    match op {
        Op::Unary(u) => unary(*u, a, out),
        Op::Binary(op) => binary(*op, args[0], args[1], out),
        // Relu's decomposition, `maximum(x, 0)`, element by element.
        Op::Composite(Composite::Relu) => {
            let zero = <T as Num>::zero();
            for (o, &x) in out.iter_mut().zip(a) {
                o.write(x.tf_maximum(zero));
            }
            true
        }
        // The condition is a comparison's mask (see `supported`).
        Op::Select(_) => {
            let zero = <T as Num>::zero();
            for (((o, &c), &x), &y) in out.iter_mut().zip(a).zip(b).zip(c) {
                o.write(if c != zero { x } else { y });
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

/// `f` element by element; a scalar operand is read once, not once per element.
#[inline(always)]
fn map2<T: Copy>(out: &mut [MaybeUninit<T>], a: Val<T>, b: Val<T>, f: impl Fn(T, T) -> T) -> bool {
    match (a.scalar, b.scalar) {
        (None, Some(y)) => {
            for (o, &x) in out.iter_mut().zip(a.values) {
                o.write(f(x, y));
            }
        }
        (Some(x), None) => {
            for (o, &y) in out.iter_mut().zip(b.values) {
                o.write(f(x, y));
            }
        }
        _ => {
            for ((o, &x), &y) in out.iter_mut().zip(a.values).zip(b.values) {
                o.write(f(x, y));
            }
        }
    }
    true
}

#[inline(always)]
fn unary<T: FloatElem>(op: UnaryOp, a: &[T], out: &mut [MaybeUninit<T>]) -> bool {
    crate::ops::unary::fused_map_loops(op, a, out)
}

#[inline(always)]
fn binary<T: FloatElem>(op: BinaryOp, a: Val<T>, b: Val<T>, out: &mut [MaybeUninit<T>]) -> bool {
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
    use crate::kernels::parallel::as_uninit_mut;

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
            let args = match op {
                Op::Select(_) => [&mask, &a, &b],
                _ => [&a, &b, &b],
            }
            .map(|v| Val::slice(v));
            let (mut wide, mut plain) = (vec![0f32; a.len()], vec![0f32; a.len()]);
            assert!(apply(&op, &args, as_uninit_mut(&mut wide)));
            assert!(apply_loops(&op, &args, as_uninit_mut(&mut plain)));
            for ((w, p), x) in wide.iter().zip(&plain).zip(&a) {
                assert!(w.to_bits() == p.to_bits() || w.is_nan() && p.is_nan(), "{op:?}({x})");
            }
        }
    }

    /// A binary step reading a scalar operand as a value gives the bits it gives reading the
    /// scalar's block of copies, on either side.
    #[test]
    fn scalar_operands_read_as_values_match_their_blocks() {
        let a: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.61).cos() * 7.0).collect();
        use BinaryOp::*;
        for op in [Add, Sub, Mul, Div, Maximum, Minimum, Pow, Less].map(Op::Binary) {
            for s in [2.5f32, -0.0, f32::NAN, f32::INFINITY] {
                let copies = vec![s; a.len()];
                let scalar = Val { values: &copies[..], scalar: Some(s) };
                for (x, y, as_values) in [
                    (Val::slice(&a[..]), scalar, [Val::slice(&a[..]), Val::slice(&copies[..])]),
                    (scalar, Val::slice(&a[..]), [Val::slice(&copies[..]), Val::slice(&a[..])]),
                ] {
                    let (mut got, mut want) = (vec![0f32; a.len()], vec![0f32; a.len()]);
                    assert!(apply(&op, &[x, y, x], as_uninit_mut(&mut got)));
                    let [p, q] = as_values;
                    assert!(apply(&op, &[p, q, p], as_uninit_mut(&mut want)));
                    for (g, w) in got.iter().zip(&want) {
                        assert!(g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(), "{op:?}");
                    }
                }
            }
        }
    }
}
