//! `tf.debugging.enable_check_numerics`: after every op the dispatcher runs, its floating-point
//! outputs are checked for NaN and infinity, and the first bad one raises InvalidArgumentError
//! with TensorFlow's message ("Detected Infinity or NaN in output 0 of eagerly-executing op
//! ...").
//!
//! As in TensorFlow the switch is per thread. A process-wide count of threads that turned it on
//! keeps the usual path to one relaxed atomic load per op; only when it is non-zero is the
//! thread's own flag read. Inside a trace nothing is checked: the graph's ops are checked when
//! it runs ("graph op" wording, with the graph name Python sets for the call).

use crate::buffer::Buffer;
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::{ReduceOp, UnaryOp};
use crate::tensor::Tensor;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads with the check on (a thread that exits while on leaves it counted: the slow path
/// then reads that its own flag is off).
static THREADS_ON: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static ON: Cell<bool> = const { Cell::new(false) };
    /// Set while an op's outputs are being produced and checked: the ops a composite kernel or
    /// the check itself runs are parts of that op, not ops of their own.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// The name of the tf.function graph running on this thread (None: eager).
    static GRAPH: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// TensorFlow's `OP_CALLBACK_SKIP_OPS`, `SAFE_OPS` (ops that cannot make a NaN or infinity
/// that their inputs did not hold) and the check op itself.
const SKIPPED: &[&str] = &[
    "Enter",
    "Exit",
    "Identity",
    "If",
    "LoopCond",
    "Merge",
    "NextIteration",
    "StatelessIf",
    "StatefulPartitionedCall",
    "Switch",
    "While",
    "RemoteCall",
    "DestroyResourceOp",
    "Concat",
    "ConcatV2",
    "ExpandDims",
    "Fill",
    "Gather",
    "Maximum",
    "Minimum",
    "Reshape",
    "Slice",
    "Squeeze",
    "Stack",
    "StridedSlice",
    "StridedSliceGrad",
    "TensorListConcatV2",
    "TensorListGather",
    "TensorListGetItem",
    "TensorListPopBack",
    "TensorListStack",
    "Transpose",
    "Unpack",
    "CheckNumerics",
    "CheckNumericsV2",
];

/// Turns the check on or off for this thread (`enable_check_numerics` /
/// `disable_check_numerics`; both idempotent).
pub fn set_enabled(on: bool) {
    ON.with(|flag| {
        if flag.replace(on) != on {
            if on {
                THREADS_ON.fetch_add(1, Ordering::Relaxed);
            } else {
                THREADS_ON.fetch_sub(1, Ordering::Relaxed);
            }
        }
    });
}

pub fn enabled() -> bool {
    THREADS_ON.load(Ordering::Relaxed) != 0 && ON.with(Cell::get)
}

/// Names the graph running on this thread (None: back to eager); returns the previous name.
pub fn set_graph(name: Option<String>) -> Option<String> {
    GRAPH.with(|g| g.replace(name))
}

/// Held while one top-level op runs with the check on.
pub struct Outermost(());

impl Drop for Outermost {
    fn drop(&mut self) {
        INSIDE.with(|i| i.set(false));
    }
}

/// `Some` when this op's outputs are to be checked: the switch is on, no trace is open, and
/// the op is not a part of another checked op. The dispatcher holds it while the op runs.
#[inline]
pub fn outermost(op: &Op) -> Option<Outermost> {
    if THREADS_ON.load(Ordering::Relaxed) == 0 {
        return None;
    }
    outermost_slow(op)
}

#[cold]
fn outermost_slow(op: &Op) -> Option<Outermost> {
    if !ON.with(Cell::get) || INSIDE.with(Cell::get) || crate::graph::trace::open() {
        return None;
    }
    if SKIPPED.contains(&op.tf_name()) {
        return None;
    }
    INSIDE.with(|i| i.set(true));
    Some(Outermost(()))
}

impl Outermost {
    /// Checks the op's outputs; the first one holding NaN or infinity is an error.
    pub fn check(&self, op: &Op, inputs: &[&Tensor], outputs: &[Tensor]) -> Result<()> {
        let name = match op.tf_name() {
            // tf.matmul runs MatMul for matrices, BatchMatMulV2 for batches.
            "BatchMatMulV2" if inputs.iter().all(|t| t.rank() == 2) => "MatMul",
            other => other,
        };
        for (slot, out) in outputs.iter().enumerate() {
            // TensorFlow ignores the batch statistics of FusedBatchNorm (NaN for empty input).
            if !checked_dtype(out.dtype()) || (name.starts_with("FusedBatchNorm") && slot > 0) {
                continue;
            }
            if let Some(counts) = bad_counts(out)? {
                return Err(Error::InvalidArgument(message(
                    slot,
                    outputs.len(),
                    name,
                    out,
                    inputs,
                    counts,
                )));
            }
        }
        Ok(())
    }
}

/// TensorFlow checks `dtype.is_floating` outputs: not complex ones.
fn checked_dtype(dtype: DType) -> bool {
    matches!(dtype, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
}

/// (-Inf, +Inf, NaN) counts, None when every element is finite.
fn bad_counts(t: &Tensor) -> Result<Option<[usize; 3]>> {
    if t.num_elements() == 0 {
        return Ok(None);
    }
    if t.device().is_gpu() {
        // Reduce on the device first: only a tensor holding a bad value is read back whole.
        let finite = crate::ops::unary(UnaryOp::IsFinite, t)?;
        let all = crate::ops::reduce(ReduceOp::All, &finite, None, false)?;
        if all.to_vec::<bool>()?.first().copied().unwrap_or(true) {
            return Ok(None);
        }
    }
    let counts = count(t.host()?);
    Ok((counts != [0, 0, 0]).then_some(counts))
}

/// (-Inf, +Inf, NaN) counts of a floating-point buffer (zeros for other dtypes).
pub fn count(buffer: &Buffer) -> [usize; 3] {
    crate::with_float!(buffer, v => {
        let mut c = [0usize; 3];
        for x in v.iter() {
            let x = crate::element::Element::to_f64(*x);
            if x.is_nan() {
                c[2] += 1;
            } else if x == f64::NEG_INFINITY {
                c[0] += 1;
            } else if x == f64::INFINITY {
                c[1] += 1;
            }
        }
        c
    }, else [0, 0, 0])
}

/// A shape as Python prints a TensorShape: `()`, `(4,)`, `(2, 3)`.
fn shape_text(t: &Tensor) -> String {
    match t.shape().dims() {
        [d] => format!("({d},)"),
        dims => format!("({})", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

fn tensor_text(t: &Tensor, graph: bool) -> String {
    let kind = if graph { "Tensor" } else { "tf.Tensor" };
    format!("{kind}(shape={}, dtype={})", shape_text(t), t.dtype().name())
}

/// TensorFlow's `get_check_numerics_error_message` followed by CheckNumericsV2's
/// " : Tensor had ... values" (input tensors are described by shape and dtype, not values).
fn message(
    slot: usize,
    num_outputs: usize,
    op_type: &str,
    out: &Tensor,
    inputs: &[&Tensor],
    [neg, pos, nan]: [usize; 3],
) -> String {
    let graph = GRAPH.with(|g| g.borrow().clone());
    let qualifier = if graph.is_some() { "graph" } else { "eagerly-executing" };
    let mut m = format!(
        "\n\n!!! Detected Infinity or NaN in output {slot} of {qualifier} op \"{op_type}\" \
         (# of outputs: {num_outputs}) !!!\n  dtype: <dtype: '{}'>\n  shape: {}\n",
        out.dtype().name(),
        shape_text(out)
    );
    if graph.is_none() {
        for (n, what) in [(neg, "-Inf"), (pos, "+Inf"), (nan, "+NaN")] {
            if n > 0 {
                m += &format!("  # of {what} elements: {n}\n");
            }
        }
    }
    match inputs {
        [] => {}
        [x] => m += &format!("\n  Input tensor: {}\n", tensor_text(x, graph.is_some())),
        _ => {
            m += &format!("\n  Input tensors ({}):\n", inputs.len());
            for (k, x) in inputs.iter().enumerate() {
                m += &format!("         {k}: {}\n", tensor_text(x, graph.is_some()));
            }
        }
    }
    if let Some(name) = &graph {
        m += &format!("  Graph name: \"{name}\"\n");
    }
    let kinds: Vec<&str> = [(neg, "-Inf"), (pos, "+Inf"), (nan, "NaN")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(_, w)| w)
        .collect();
    let kinds = match kinds.as_slice() {
        [a] => a.to_string(),
        [a, b] => format!("{a} and {b}"),
        [a, b, c] => format!("{a}, {b}, and {c}"),
        _ => String::new(),
    };
    m + &format!("\n : Tensor had {kinds} values")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::apply1;
    use crate::ops::BinaryOp;

    fn div(a: &[f32], b: &[f32]) -> Result<Tensor> {
        let a = Tensor::from_slice(a, &[a.len()]).unwrap();
        let b = Tensor::from_slice(b, &[b.len()]).unwrap();
        apply1(&Op::Binary(BinaryOp::Div), &[&a, &b])
    }

    #[test]
    fn checks_float_outputs_while_enabled() {
        assert!(div(&[1.0, 0.0, -1.0], &[0.0, 0.0, 0.0]).is_ok());
        set_enabled(true);
        set_enabled(true);
        assert!(enabled());
        let err = div(&[1.0, 0.0, -1.0, 0.0], &[0.0, 0.0, 0.0, 1.0]).unwrap_err();
        let Error::InvalidArgument(m) = err else { panic!("{err:?}") };
        assert!(m.contains(
            "!!! Detected Infinity or NaN in output 0 of eagerly-executing op \"RealDiv\" \
             (# of outputs: 1) !!!"
        ));
        assert!(m.contains("  dtype: <dtype: 'float32'>\n  shape: (4,)\n"));
        assert!(
            m.contains("# of -Inf elements: 1\n  # of +Inf elements: 1\n  # of +NaN elements: 1")
        );
        assert!(m.ends_with(" : Tensor had -Inf, +Inf, and NaN values"));
        // Finite results and integer ops are unaffected.
        assert!(div(&[1.0], &[2.0]).is_ok());
        let i = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
        assert!(apply1(&Op::Binary(BinaryOp::Add), &[&i, &i]).is_ok());
        // Another thread has its own switch.
        std::thread::spawn(|| assert!(div(&[1.0], &[0.0]).is_ok())).join().unwrap();
        set_enabled(false);
        assert!(!enabled());
        assert!(div(&[1.0], &[0.0]).is_ok());
    }

    #[test]
    fn counts_and_kinds() {
        let b = Buffer::F64(vec![f64::NAN, 1.0, f64::NEG_INFINITY, f64::NAN]);
        assert_eq!(count(&b), [1, 0, 2]);
        assert_eq!(count(&Buffer::I32(vec![1, 2])), [0, 0, 0]);
    }
}
