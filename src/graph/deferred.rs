//! Tracing as abstract evaluation: while a trace is open, an op on traced values does not run
//! its kernel. Its outputs' shapes and dtypes come from its declared shape rule over the
//! inputs' example types, and its values stay deferred (`Storage::Deferred`): they are
//! computed once, only if something reads them (a composition that needs a
//! value, a `tf.cond` example branch choice). Ops whose output sizes depend on values (where,
//! unique, a shape input) run at once, as do ops on constants only (the trace's constant
//! folding).

use crate::dispatch::Op;
use crate::error::{Error, Result};
use crate::ops::primitive::TensorType;
use crate::shape::Shape;
use crate::tensor::Tensor;
use std::cell::Cell;
use std::sync::{Arc, OnceLock};

thread_local! {
    /// Set while deferred values are being computed: their parts run for real.
    static MATERIALISING: Cell<usize> = const { Cell::new(0) };
}

/// One deferred op call: its inputs and, once read, its outputs.
#[derive(Debug)]
pub struct DeferredRun {
    op: Op,
    inputs: Vec<Tensor>,
    results: OnceLock<Vec<Tensor>>,
}

impl DeferredRun {
    /// The outputs, computed the first time (inputs first, so a failure is an error).
    pub fn results(&self) -> Result<&[Tensor]> {
        if let Some(done) = self.results.get() {
            return Ok(done);
        }
        MATERIALISING.with(|m| m.set(m.get() + 1));
        let computed = (|| {
            for t in &self.inputs {
                t.host()?;
            }
            let refs: Vec<&Tensor> = self.inputs.iter().collect();
            let _quiet = (super::trace::suspend(), crate::autodiff::tape::pause_all());
            let outputs = crate::dispatch::execute_now(&self.op, &refs)?;
            for t in &outputs {
                t.host()?;
            }
            Ok(outputs)
        })();
        MATERIALISING.with(|m| m.set(m.get() - 1));
        let outputs: Vec<Tensor> = computed?;
        Ok(self.results.get_or_init(|| outputs))
    }
}

/// `op`'s outputs as deferred values, or None where it must run now: outside traces, on
/// constants only, or where an output size depends on values.
pub fn defer(op: &Op, inputs: &[&Tensor]) -> Result<Option<Vec<Tensor>>> {
    if !super::trace::open() || MATERIALISING.with(Cell::get) > 0 {
        return Ok(None);
    }
    let primitive = op.primitive();
    let traced = |t: &&Tensor| t.is_deferred() || super::trace::is_symbolic(t);
    if !primitive.stateful() && !inputs.iter().any(traced) {
        return Ok(None);
    }
    if !primitive.arity().admits(inputs.len()) {
        return Ok(None);
    }
    // The example's own dims: reading them must not specialise the trace.
    let types: Vec<TensorType> =
        inputs.iter().map(|t| TensorType::known(t.dtype(), t.shape().dims())).collect();
    let outputs = primitive.infer(&types)?;
    let mut shapes = Vec::with_capacity(outputs.len());
    for t in &outputs {
        match t.dims.iter().copied().collect::<Option<Vec<usize>>>() {
            Some(dims) => shapes.push((t.dtype, Shape(dims))),
            None => return Ok(None),
        }
    }
    let run = Arc::new(DeferredRun {
        op: op.clone(),
        inputs: inputs.iter().map(|t| (*t).clone()).collect(),
        results: OnceLock::new(),
    });
    Ok(Some(
        shapes
            .into_iter()
            .enumerate()
            .map(|(i, (dtype, shape))| Tensor::deferred(run.clone(), i, shape, dtype))
            .collect(),
    ))
}

/// The `output`-th result of a deferred run, computed if need be.
pub fn value(run: &DeferredRun, output: usize) -> Result<&Tensor> {
    run.results()?
        .get(output)
        .ok_or_else(|| Error::Internal(format!("{} has no output {output}", run.op.tf_name())))
}
