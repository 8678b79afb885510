//! `HostCall`: a node that calls a function of the host program every time it runs —
//! TensorFlow's `EagerPyFunc` (`tf.py_function`), `PyFunc` and `PyFuncStateless`
//! (`tf.numpy_function`). Plain Rust uses it too: `HostFunction::new(|inputs| ...)`, then
//! `host_call(&function, kind, &inputs, outputs)` runs it now, or records a node while a
//! `tf.function` traces.
//!
//! Decisions, each TensorFlow's:
//! - Tracing never calls the function. Its outputs are deferred values nothing can read
//!   while tracing (`cpu` refuses inside a trace), of the declared dtypes and, unless declared,
//!   of unknown rank (the py_func shape function's answer). `rank_rule` says which ops take a
//!   value of unknown rank while tracing: elementwise ops (their result's rank is unknown too),
//!   `Shape` and `EnsureShape` (which gives it a rank); others refuse with UnimplementedError.
//! - Stateful: never folded or merged, and run even when nothing reads its outputs (automatic
//!   control dependencies), except `PyFuncStateless`, which dead-code elimination may drop.
//! - Placement: the function places its own work, so the node reads its inputs wherever they
//!   live (`GpuKernel::Decomposed`).
//! - Gradients (EagerPyFunc only): a call made while a tape may record returns a backward
//!   function for that call (Python: the tape the function ran under). Run eagerly, the call is
//!   recorded on the active tapes with it; a tape inside a traced function records the node and
//!   its gradient is a second `HostCall` that applies the function's last recorded call, as
//!   TensorFlow's `EagerPyFuncGrad` reads its tape cache. Gradients are first order, as in
//!   TensorFlow.
//! - Saved graphs keep the token (`pyfunc_3`) and a process tag: a graph loaded in the process
//!   that made it calls the function again (as TensorFlow's registry does); elsewhere the node
//!   raises TensorFlow's "Could not find callback" error when it runs.

use crate::autodiff::tape::{self, GradFn, Tape};
use crate::dispatch::{self, Op};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::trace;
use crate::ops::primitive::{
    attrs_of, describe_dims, from_attrs, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive,
    TensorType,
};
use crate::tensor::Tensor;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, Weak};

/// A call of the host function: the inputs and whether a backward function is wanted (some
/// tape may record the call); returns the outputs and, when asked, that call's backward
/// function (`GradFn`: the inputs' gradients from the outputs' gradients).
pub type HostForward =
    dyn Fn(&[Tensor], bool) -> Result<(Vec<Tensor>, Option<GradFn>)> + Send + Sync;

/// A host function registered for `HostCall` nodes; nodes hold it, so it lives as long as the
/// graphs that call it.
pub struct HostFunction {
    id: u64,
    /// The process that registered it (a saved graph's token names another process's function).
    process: u64,
    /// None: a saved graph's token whose function is not in this process.
    forward: Option<Box<HostForward>>,
    differentiable: bool,
    /// A tape inside a traced function differentiated a call: every call records its backward.
    graph_gradient: AtomicBool,
    /// The backward of the last call that recorded one (TensorFlow's tape cache).
    last: Mutex<Option<GradFn>>,
    /// A gradient replays a call (a staged `tf.cond` branch's): calls keep their outputs.
    replayed: AtomicBool,
    /// The outputs of the last call, while `replayed`.
    last_outputs: Mutex<Option<Vec<Tensor>>>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// This process's tag, so a token saved by another process never names a function here.
static PROCESS: LazyLock<u64> = LazyLock::new(|| {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
});

/// Live functions by id, for tokens read back from saved graphs.
static LIVE: LazyLock<Mutex<HashMap<u64, Weak<HostFunction>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn live() -> std::sync::MutexGuard<'static, HashMap<u64, Weak<HostFunction>>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

impl HostFunction {
    /// A function of the inputs with no gradient.
    pub fn new<F>(f: F) -> Arc<HostFunction>
    where
        F: Fn(&[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
    {
        HostFunction::custom(Box::new(move |inputs, _| Ok((f(inputs)?, None))), false)
    }

    /// A function whose gradient is `rule(inputs, outputs, upstream)`.
    pub fn with_gradient<F, G>(f: F, rule: G) -> Arc<HostFunction>
    where
        F: Fn(&[Tensor]) -> Result<Vec<Tensor>> + Send + Sync + 'static,
        G: Fn(&[Tensor], &[Tensor], &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>>
            + Send
            + Sync
            + 'static,
    {
        let rule: GradFn = Arc::new(rule);
        HostFunction::custom(Box::new(move |inputs, _| Ok((f(inputs)?, Some(rule.clone())))), true)
    }

    /// A function that returns each call's own backward function when asked (`HostForward`).
    pub fn custom(forward: Box<HostForward>, differentiable: bool) -> Arc<HostFunction> {
        let function = Arc::new(HostFunction {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            process: *PROCESS,
            forward: Some(forward),
            differentiable,
            graph_gradient: AtomicBool::new(false),
            last: Mutex::new(None),
            replayed: AtomicBool::new(false),
            last_outputs: Mutex::new(None),
        });
        live().insert(function.id, Arc::downgrade(&function));
        function
    }

    /// TensorFlow's token for it (`pyfunc_3`).
    pub fn token(&self) -> String {
        format!("pyfunc_{}", self.id)
    }

    /// The function a saved token names: the live one of this process, else one that raises.
    fn resolve(id: u64, process: u64) -> Arc<HostFunction> {
        if process == *PROCESS {
            if let Some(f) = live().get(&id).and_then(Weak::upgrade) {
                return f;
            }
        }
        Arc::new(HostFunction {
            id,
            process,
            forward: None,
            differentiable: false,
            graph_gradient: AtomicBool::new(false),
            last: Mutex::new(None),
            replayed: AtomicBool::new(false),
            last_outputs: Mutex::new(None),
        })
    }

    fn last_call(&self) -> Result<GradFn> {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).clone().ok_or_else(|| {
            Error::Internal(format!(
                "the gradient of {} found no call of it recorded for differentiation",
                self.token()
            ))
        })
    }
}

impl Drop for HostFunction {
    fn drop(&mut self) {
        if self.forward.is_some() {
            live().remove(&self.id);
        }
    }
}

impl std::fmt::Debug for HostFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.token())
    }
}

/// Which TensorFlow op the node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HostKind {
    /// `tf.py_function`: tensors in and out, differentiable.
    EagerPyFunc,
    /// `tf.numpy_function` (stateful).
    PyFunc,
    /// `tf.numpy_function(stateful=False)`: pruned when nothing reads it.
    PyFuncStateless,
}

impl HostKind {
    pub fn tf_name(self) -> &'static str {
        match self {
            HostKind::EagerPyFunc => "EagerPyFunc",
            HostKind::PyFunc => "PyFunc",
            HostKind::PyFuncStateless => "PyFuncStateless",
        }
    }
}

/// A declared output: its dtype and dims (`None`: unknown rank; `None` dims: unknown sizes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostOutput {
    pub dtype: DType,
    pub dims: Option<Vec<Option<usize>>>,
}

impl HostOutput {
    /// An output of unknown shape, as TensorFlow's py_func declares every output.
    pub fn unknown(dtype: DType) -> HostOutput {
        HostOutput { dtype, dims: None }
    }
}

#[derive(Clone)]
pub struct HostCall {
    pub function: Arc<HostFunction>,
    pub kind: HostKind,
    pub out: Vec<HostOutput>,
    /// Gives the last call's outputs again instead of calling the function: the forward half
    /// of a gradient that recomputes a staged branch (`Op::replaying`), so the function runs
    /// once per call of the graph, as in TensorFlow.
    pub replay: bool,
}

impl HostCall {
    /// Runs the function on `inputs` and checks what it returned against the declaration.
    fn invoke(&self, inputs: &[&Tensor], record: bool) -> Result<(Vec<Tensor>, Option<GradFn>)> {
        let f = &self.function;
        if self.replay {
            let outputs = f.last_outputs.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let outputs = outputs.ok_or_else(|| {
                Error::Internal(format!("{} replays a call that did not happen", f.token()))
            })?;
            let backward = f.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
            return Ok((outputs, backward.filter(|_| record)));
        }
        let forward = f.forward.as_ref().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "ValueError: Could not find callback with key={} in the registry.",
                f.token()
            ))
        })?;
        let args: Vec<Tensor> = inputs.iter().map(|t| (*t).clone()).collect();
        let (outputs, backward) = forward(&args, record)?;
        self.check(&outputs)?;
        if let Some(b) = &backward {
            *f.last.lock().unwrap_or_else(|e| e.into_inner()) = Some(b.clone());
        }
        if f.replayed.load(Ordering::Relaxed) {
            *f.last_outputs.lock().unwrap_or_else(|e| e.into_inner()) = Some(outputs.clone());
        }
        Ok((outputs, backward))
    }

    /// TensorFlow's checks of a py_func's results (count, then each dtype), plus any dims the
    /// node declares.
    fn check(&self, outputs: &[Tensor]) -> Result<()> {
        let token = self.function.token();
        if outputs.len() != self.out.len() {
            return Err(Error::InvalidArgument(format!(
                "{token} returns {} values, but expects to see {} values.",
                outputs.len(),
                self.out.len()
            )));
        }
        for (i, (t, o)) in outputs.iter().zip(&self.out).enumerate() {
            if t.dtype() != o.dtype {
                return Err(Error::InvalidArgument(format!(
                    "{i}-th value returned by {token} is {}, but expects {}",
                    t.dtype().cpp_name(),
                    o.dtype.cpp_name()
                )));
            }
            if let Some(dims) = &o.dims {
                let declared = TensorType { dtype: o.dtype, dims: dims.clone() };
                if !declared.admits(t.dtype(), t.dims()) {
                    return Err(Error::InvalidArgument(format!(
                        "{i}-th value returned by {token} has shape {}, but expects {}",
                        t.shape().tf_string(),
                        describe_dims(dims)
                    )));
                }
            }
        }
        Ok(())
    }

    fn types(&self) -> Vec<TensorType> {
        // An unknown rank is stood in for by a scalar; `rank_rule` marks it.
        let of = |o: &HostOutput| TensorType {
            dtype: o.dtype,
            dims: o.dims.clone().unwrap_or_default(),
        };
        self.out.iter().map(of).collect()
    }

    /// The node that recomputes this call for a gradient: it gives the call's outputs again.
    pub fn replaying(&self) -> HostCall {
        self.function.replayed.store(true, Ordering::Relaxed);
        HostCall { replay: true, ..self.clone() }
    }

    /// The outputs whose rank is unknown.
    fn unknown_rank(&self) -> Vec<bool> {
        self.out.iter().map(|o| o.dims.is_none()).collect()
    }

    /// The node that differentiates this call inside a traced function: it takes the call's
    /// inputs, outputs and the outputs' gradients, and applies the last recorded call's
    /// backward function when the graph runs.
    fn gradient_node(&self, inputs: &[Tensor], outputs: &[Tensor]) -> HostCall {
        let forward = self.function.clone();
        forward.graph_gradient.store(true, Ordering::Relaxed);
        let (n, m) = (inputs.len(), outputs.len());
        let grad = move |args: &[Tensor], _: bool| -> Result<(Vec<Tensor>, Option<GradFn>)> {
            let (xs, rest) = args.split_at(n.min(args.len()));
            let (ys, dys) = rest.split_at(m.min(rest.len()));
            let upstream: Vec<Option<Tensor>> = dys.iter().cloned().map(Some).collect();
            let grads = forward.last_call()?(xs, ys, &upstream)?;
            // TensorFlow's gradient functions give zeros where no gradient flows.
            let grads = xs
                .iter()
                .zip(grads.into_iter().chain(std::iter::repeat(None)))
                .map(|(x, g)| g.map_or_else(|| crate::ops::zeros_like(x), Ok))
                .collect::<Result<Vec<Tensor>>>()?;
            Ok((grads, None))
        };
        let out = inputs
            .iter()
            .map(|x| HostOutput {
                dtype: x.dtype(),
                dims: (!trace::has_unknown_rank(x)).then(|| trace::static_dims(x)),
            })
            .collect();
        HostCall {
            function: HostFunction::custom(Box::new(grad), false),
            kind: HostKind::EagerPyFunc,
            out,
            replay: false,
        }
    }
}

impl std::fmt::Debug for HostCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let replay = if self.replay { ", replay" } else { "" };
        write!(f, "{}({:?}, {:?}{replay})", self.kind.tf_name(), self.function, self.out)
    }
}

impl PartialEq for HostCall {
    fn eq(&self, other: &HostCall) -> bool {
        self.function.id == other.function.id
            && self.function.process == other.function.process
            && self.kind == other.kind
            && self.out == other.out
            && self.replay == other.replay
    }
}

/// What a saved graph holds of a node: TensorFlow's token and this process's tag.
#[derive(Serialize, Deserialize)]
struct SavedHostCall {
    token: String,
    process: String,
    kind: HostKind,
    out: Vec<HostOutput>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    replay: bool,
}

impl Serialize for HostCall {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        SavedHostCall {
            token: self.function.token(),
            process: format!("{:016x}", self.function.process),
            kind: self.kind,
            out: self.out.clone(),
            replay: self.replay,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for HostCall {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<HostCall, D::Error> {
        use serde::de::Error as _;
        let saved = SavedHostCall::deserialize(d)?;
        let id =
            saved.token.strip_prefix("pyfunc_").and_then(|n| n.parse::<u64>().ok()).ok_or_else(
                || D::Error::custom(format!("'{}' is not a py_func token", saved.token)),
            )?;
        let process = u64::from_str_radix(&saved.process, 16)
            .map_err(|e| D::Error::custom(format!("process tag: {e}")))?;
        let function = HostFunction::resolve(id, process);
        Ok(HostCall { function, kind: saved.kind, out: saved.out, replay: saved.replay })
    }
}

impl Primitive for HostCall {
    fn tf_name(&self) -> &'static str {
        self.kind.tf_name()
    }

    fn arity(&self) -> Arity {
        Arity::AtLeast(0)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    /// The declared outputs; the inputs do not matter (the function is opaque).
    fn infer(&self, _: &[TensorType]) -> Result<Vec<TensorType>> {
        Ok(self.types())
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        if trace::open() {
            // An example run while tracing (a staged branch's): TensorFlow never calls the
            // function then, so the results are stand-ins of the declared types.
            return self.types().iter().map(stand_in).collect();
        }
        Ok(self.invoke(inputs, false)?.0)
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            // The function places its own work; the node reads its inputs where they live.
            gpu: GpuKernel::Decomposed,
            differentiable: self.kind == HostKind::EagerPyFunc && self.function.differentiable,
            fusable: false,
        }
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let mut upstream = vec![None; outputs.len()];
        if let Some(first) = upstream.first_mut() {
            *first = Some(g.clone());
        }
        self.gradient_of_outputs(inputs, outputs, &upstream)
    }

    fn gradient_of_outputs(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        if !trace::recording() {
            return self.function.last_call()?(inputs, outputs, upstream);
        }
        // A tape inside a traced function: the gradient is a node of the graph.
        let grad = self.gradient_node(inputs, outputs);
        let mut args: Vec<Tensor> = inputs.iter().chain(outputs).cloned().collect();
        for (y, g) in outputs.iter().zip(upstream) {
            args.push(match g {
                Some(g) => g.clone(),
                None => crate::ops::zeros_like(y)?,
            });
        }
        let refs: Vec<&Tensor> = args.iter().collect();
        Ok(dispatch::apply(&Op::HostCall(grad), &refs)?.into_iter().map(Some).collect())
    }

    /// Never run while tracing, never folded or merged.
    fn stateful(&self) -> bool {
        true
    }
}

impl Decode for HostCall {
    fn names() -> Vec<&'static str> {
        vec!["EagerPyFunc", "PyFunc", "PyFuncStateless"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<HostCall> {
        let call: HostCall = from_attrs(name, attrs)?;
        if call.kind.tf_name() != name {
            return Err(Error::DataLoss(format!("a saved {name} node holds a {:?}", call.kind)));
        }
        Ok(call)
    }
}

/// Has effects beyond its outputs: runs even when nothing reads it.
pub(crate) fn has_effects(call: &HostCall) -> bool {
    call.kind != HostKind::PyFuncStateless && !call.replay
}

/// Calls `function` on `inputs` now, or, while a `tf.function` traces, records a node that
/// calls it each time the graph runs (its outputs' values are unknown until then).
pub fn host_call(
    function: &Arc<HostFunction>,
    kind: HostKind,
    inputs: &[&Tensor],
    out: Vec<HostOutput>,
) -> Result<Vec<Tensor>> {
    let call = HostCall { function: function.clone(), kind, out, replay: false };
    if trace::open() {
        return dispatch::apply(&Op::HostCall(call), inputs);
    }
    run_now(&call, inputs)
}

/// Active tapes paused while the host function runs: its own ops are not theirs (its backward
/// function stands for them), yet a tape it opens records.
struct TapesPaused(Vec<Tape>);

impl TapesPaused {
    fn new() -> TapesPaused {
        let tapes = tape::active_tapes();
        tapes.iter().for_each(Tape::pause);
        TapesPaused(tapes)
    }
}

impl Drop for TapesPaused {
    fn drop(&mut self) {
        self.0.iter().for_each(Tape::resume);
    }
}

/// One call outside traces (eagerly, or a graph running): the call goes on the active tapes
/// with its own backward function.
pub(crate) fn run_now(call: &HostCall, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
    let record = call.differentiable()
        && (tape::any_active() || call.function.graph_gradient.load(Ordering::Relaxed));
    let (mut outputs, backward) = {
        let _paused = TapesPaused::new();
        call.invoke(inputs, record)?
    };
    if let (Some(backward), true) = (backward, call.differentiable()) {
        tape::record_custom(inputs, &mut outputs, backward);
    }
    Ok(outputs)
}

/// Output types of `op` where some inputs' ranks are unknown (`unknown[i]`), and which
/// outputs' ranks are unknown (their types stand in with no dims). None where no rank is
/// unknown. Elementwise ops give results of unknown rank; `Shape` gives a vector of unknown
/// length; `EnsureShape` gives its shape. Other ops read a rank ferroflow's shape rules need
/// while tracing: UnimplementedError.
pub(crate) fn rank_rule(
    op: &Op,
    types: &[TensorType],
    unknown: &[bool],
) -> Result<Option<(Vec<TensorType>, Vec<bool>)>> {
    if let Op::HostCall(call) = op {
        let marks = call.unknown_rank();
        return Ok(marks.iter().any(|&m| m).then(|| (call.types(), marks)));
    }
    let unknown_rank = |t: TensorType| TensorType { dtype: t.dtype, dims: Vec::new() };
    // A reshape to a shape of unknown length (the shape of a value of unknown rank, as a
    // gradient reshapes to it) has an unknown rank; a reshape of a value of unknown rank to a
    // shape of known length has that rank.
    if let (Op::ShapeFromInput(wrapped), Some(shape)) = (op, types.last()) {
        if let Op::Reshape(_) = &*wrapped.0 {
            let dtype = types.first().map_or(DType::F32, |t| t.dtype);
            match shape.dims.as_slice() {
                [None] => {
                    return Ok(Some((vec![TensorType { dtype, dims: Vec::new() }], vec![true])));
                }
                [Some(n)] if unknown.first() == Some(&true) => {
                    return Ok(Some((
                        vec![TensorType { dtype, dims: vec![None; *n] }],
                        vec![false],
                    )));
                }
                _ => {}
            }
        }
    }
    if !unknown.iter().any(|&u| u) {
        return Ok(None);
    }
    match op {
        Op::Unary(_) | Op::Binary(_) | Op::Select(_) | Op::Cast(_) => {
            // The stand-ins still check dtypes (and known operands' sizes) as the rule does.
            let inferred = op.primitive().infer(types)?;
            let marks = vec![true; inferred.len()];
            Ok(Some((inferred.into_iter().map(unknown_rank).collect(), marks)))
        }
        Op::EnsureShape(check) => {
            let dtype = types.first().map_or(DType::F32, |t| t.dtype);
            Ok(Some((vec![TensorType { dtype, dims: check.shape.clone() }], vec![false])))
        }
        // The target shape holds the rank (a -1 stays unknown).
        Op::Reshape(target) => {
            let dims = target.0.iter().map(|&d| usize::try_from(d).ok()).collect();
            let dtype = types.first().map_or(DType::F32, |t| t.dtype);
            Ok(Some((vec![TensorType { dtype, dims }], vec![false])))
        }
        Op::Shape(shape) => {
            Ok(Some((vec![TensorType { dtype: shape.0, dims: vec![None] }], vec![false])))
        }
        _ => Err(Error::Unimplemented(format!(
            "{} cannot take a value of unknown rank (a tf.py_function or tf.numpy_function \
             result) while ferroflow traces: its shape rule needs the rank. Give the value a \
             shape first with tf.ensure_shape(value, shape)",
            op.tf_name()
        ))),
    }
}

/// A stand-in example of a value that depends on a host call's results while tracing (they
/// have no value before the graph runs): zeros of its type, unknown sizes as 1 (as
/// `get_concrete_function`'s examples of a TensorSpec), an unknown rank as a scalar. Where a
/// composition reads its sizes, the trace is specialised and checked as for any example.
pub(crate) fn stand_in(t: &TensorType) -> Result<Tensor> {
    let dims: Vec<i64> = t.dims.iter().map(|d| d.map_or(1, |d| d as i64)).collect();
    crate::ops::zeros(&dims, t.dtype)
}

/// `x` flattened where a reduction over all its axes meets a value of unknown rank (a host
/// call's result inside a trace): the flat vector's one axis is every axis, whatever the rank
/// turns out to be. None elsewhere, and where `keepdims` needs the rank.
pub(crate) fn flat_for_full_reduction(
    x: &Tensor,
    axes: Option<&[i64]>,
    keepdims: bool,
) -> Result<Option<Tensor>> {
    if axes.is_some() || keepdims || !trace::has_unknown_rank(x) {
        return Ok(None);
    }
    crate::ops::reshape(x, &[-1]).map(Some)
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(Op, Vec<Tensor>)> {
    let double = |inputs: &[Tensor]| {
        Ok(vec![crate::ops::binary(crate::ops::BinaryOp::Add, &inputs[0], &inputs[0])?])
    };
    let rule = |_: &[Tensor], _: &[Tensor], g: &[Option<Tensor>]| {
        let g = g[0].clone().ok_or_else(|| Error::Internal("no gradient".into()))?;
        Ok(vec![Some(crate::ops::binary(crate::ops::BinaryOp::Add, &g, &g)?)])
    };
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let out = vec![HostOutput { dtype: DType::F32, dims: Some(vec![Some(3)]) }];
    let eager = HostCall {
        function: HostFunction::with_gradient(double, rule),
        kind: HostKind::EagerPyFunc,
        out: out.clone(),
        replay: false,
    };
    let numpy = |kind| HostCall {
        function: HostFunction::new(double),
        kind,
        out: out.clone(),
        replay: false,
    };
    let calls = [eager, numpy(HostKind::PyFunc), numpy(HostKind::PyFuncStateless)];
    calls.into_iter().map(|c| (Op::HostCall(c), vec![x.clone()])).collect()
}

#[cfg(test)]
mod tests {
    use super::{host_call, HostFunction, HostKind, HostOutput};
    use crate::autodiff::tape::Tape;
    use crate::dtype::DType;
    use crate::error::Error;
    use crate::graph::passes::{optimize, ALL};
    use crate::graph::{run, trace, Mode};
    use crate::ops;
    use crate::tensor::Tensor;
    use crate::test_support::CpuScope;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    fn add(a: &Tensor, b: &Tensor) -> crate::error::Result<Tensor> {
        ops::binary(ops::BinaryOp::Add, a, b)
    }

    /// A function that doubles its input and counts its calls.
    fn counted() -> (Arc<HostFunction>, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = calls.clone();
        let f = HostFunction::with_gradient(
            move |x: &[Tensor]| {
                seen.fetch_add(1, Ordering::SeqCst);
                Ok(vec![add(&x[0], &x[0])?])
            },
            |_, _, g| Ok(vec![g[0].as_ref().map(|g| add(g, g)).transpose()?]),
        );
        (f, calls)
    }

    fn unknown_f32() -> Vec<HostOutput> {
        vec![HostOutput::unknown(DType::F32)]
    }

    #[test]
    fn eager_calls_run_the_function_and_check_its_results() {
        let (f, calls) = counted();
        let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let y = host_call(&f, HostKind::EagerPyFunc, &[&x], unknown_f32()).unwrap();
        assert_eq!(y[0].to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // TensorFlow's errors for a wrong count and a wrong dtype.
        let two = vec![HostOutput::unknown(DType::F32); 2];
        let err = host_call(&f, HostKind::PyFunc, &[&x], two).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("returns 1 values, but expects to see 2 values")),
            "{err:?}"
        );
        let ints = vec![HostOutput::unknown(DType::I32)];
        let err = host_call(&f, HostKind::PyFunc, &[&x], ints).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("0-th value returned by") && m.contains("is float, but expects int32")),
            "{err:?}"
        );
        let declared = vec![HostOutput { dtype: DType::F32, dims: Some(vec![Some(3)]) }];
        assert!(host_call(&f, HostKind::PyFunc, &[&x], declared).is_err());
    }

    #[test]
    fn graphs_call_the_function_per_run_never_while_tracing() {
        let _cpu = CpuScope::new();
        let (f, calls) = counted();
        let (unused, unused_calls) = counted();
        let (pruned, pruned_calls) = counted();
        let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        trace::begin();
        let p = trace::placeholder(&x, "x", vec![None]).unwrap();
        let y = host_call(&f, HostKind::EagerPyFunc, &[&p], unknown_f32()).unwrap();
        assert!(trace::has_unknown_rank(&y[0]));
        // Elementwise ops keep the unknown rank; EnsureShape gives one.
        let z = add(&y[0], &Tensor::scalar(1.0f32)).unwrap();
        assert!(trace::has_unknown_rank(&z));
        let check = crate::ops::ensure_shape::EnsureShape { shape: vec![None], traced_size: false };
        let checked =
            crate::dispatch::apply1(&crate::dispatch::Op::EnsureShape(check), &[&z]).unwrap();
        assert!(!trace::has_unknown_rank(&checked));
        assert_eq!(trace::static_dims(&checked), vec![None]);
        // Reading the values while tracing gives stand-ins: TensorFlow never calls the
        // function then.
        assert!(z.host().is_ok());
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        // Ops whose shape rules need the rank refuse too; a reduction over every axis flattens.
        let op = crate::dispatch::Op::Softmax(crate::ops::nn::Softmax { log: false });
        assert!(matches!(crate::dispatch::apply(&op, &[&z]), Err(Error::Unimplemented(_))));
        let total = ops::reduce_sum(&z, None, false).unwrap();
        assert!(!trace::has_unknown_rank(&total));
        assert_eq!(trace::static_dims(&total), Vec::<Option<usize>>::new());
        host_call(&unused, HostKind::PyFunc, &[&p], unknown_f32()).unwrap();
        host_call(&pruned, HostKind::PyFuncStateless, &[&p], unknown_f32()).unwrap();
        let traced = trace::finish(&[z, total]).unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 0);
        let g = optimize(&traced.graph, &ALL);
        let names: Vec<&str> = g.nodes.iter().map(|n| n.type_name()).collect();
        assert!(names.contains(&"PyFunc") && !names.contains(&"PyFuncStateless"), "{names:?}");
        let other = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[6]).unwrap();
        for n in 1..=2 {
            let out = run(&g, std::slice::from_ref(&other), Mode::Run).unwrap();
            assert_eq!(out[0].dims(), &[6]);
            assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![3.0, 5.0, 7.0, 9.0, 11.0, 13.0]);
            assert_eq!(out[1].to_vec::<f32>().unwrap(), vec![48.0]);
            assert_eq!(calls.load(Ordering::SeqCst), n);
            assert_eq!(unused_calls.load(Ordering::SeqCst), n);
        }
        assert_eq!(pruned_calls.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn gradients_flow_eagerly_and_inside_traces() {
        let _cpu = CpuScope::new();
        let (f, _) = counted();
        let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        // A graph run under an eager tape: the call is recorded with its backward function.
        trace::begin();
        let p = trace::placeholder(&x, "x", vec![Some(2)]).unwrap();
        let y = host_call(&f, HostKind::EagerPyFunc, &[&p], unknown_f32()).unwrap();
        let g = trace::finish(&y).unwrap().graph;
        let tape = Tape::new(false, true);
        tape.watch(&x);
        tape.push();
        let out = run(&g, std::slice::from_ref(&x), Mode::Run).unwrap();
        tape.pop();
        let grads = tape.gradient(&out, &[x.id()], &[None]).unwrap();
        assert_eq!(grads[0].as_ref().unwrap().to_vec::<f32>().unwrap(), vec![2.0, 2.0]);

        // A tape inside the trace: the gradient is a node that runs the recorded call's rule.
        trace::begin();
        let p = trace::placeholder(&x, "x", vec![Some(2)]).unwrap();
        let inner = Tape::new(false, true);
        inner.watch(&p);
        inner.push();
        let y = host_call(&f, HostKind::EagerPyFunc, &[&p], unknown_f32()).unwrap();
        inner.pop();
        let dy = inner.gradient(&y, &[p.id()], &[None]).unwrap()[0].clone().unwrap();
        assert_eq!(trace::static_dims(&dy), vec![Some(2)]);
        let g = optimize(&trace::finish(&[dy]).unwrap().graph, &ALL);
        let names: Vec<&str> = g.nodes.iter().map(|n| n.type_name()).collect();
        assert_eq!(names.iter().filter(|n| **n == "EagerPyFunc").count(), 2, "{names:?}");
        let out = run(&g, std::slice::from_ref(&x), Mode::Run).unwrap();
        assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![2.0, 2.0]);
    }

    #[test]
    fn a_replayed_call_gives_the_last_outputs_without_calling() {
        let (f, calls) = counted();
        let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let call = super::HostCall {
            function: f,
            kind: HostKind::EagerPyFunc,
            out: unknown_f32(),
            replay: false,
        };
        let replay = call.replaying();
        let first = super::run_now(&call, &[&x]).unwrap();
        let again = super::run_now(&replay, &[&x]).unwrap();
        assert_eq!(again[0].to_vec::<f32>().unwrap(), first[0].to_vec::<f32>().unwrap());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_saved_token_of_another_process_raises_when_run() {
        let (f, _) = counted();
        let call = super::HostCall {
            function: f,
            kind: HostKind::PyFunc,
            out: unknown_f32(),
            replay: false,
        };
        let mut attrs = crate::ops::primitive::Primitive::attrs(&call);
        let same = <super::HostCall as crate::ops::primitive::Decode>::decode("PyFunc", &attrs);
        assert!(Arc::ptr_eq(&same.unwrap().function, &call.function));
        attrs.insert("process".into(), serde_json::json!("0000000000000001"));
        let other = <super::HostCall as crate::ops::primitive::Decode>::decode("PyFunc", &attrs);
        let x = Tensor::scalar(1.0f32);
        let err = super::run_now(&other.unwrap(), &[&x]).unwrap_err();
        assert!(
            matches!(&err, Error::InvalidArgument(m) if m.contains("Could not find callback")),
            "{err:?}"
        );
    }
}
