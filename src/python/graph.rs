//! Tracing, traced graphs and `tf.print` for `python/ferroflow/function.py` and `_staging.py`.
//! Python drives a trace (open a frame, make placeholders, run the function, finish); Rust
//! records the ops and runs the finished graph.

use super::convert::{to_tensor, Hint};
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::error::Error;
use crate::graph::ir::{Graph, Node, NodeKind};
use crate::graph::passes::{self, Pass};
use crate::graph::print::{Piece, PrintSpec};
use crate::graph::trace::{self, Traced};
use crate::graph::{control, executor, Mode};
use crate::tensor::Tensor;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

fn tensors(list: &Bound<'_, PyAny>) -> PyResult<Vec<Tensor>> {
    list.try_iter()?.map(|o| to_tensor(&o?, Hint::Infer)).collect()
}

fn wrap_all(py: Python<'_>, ts: Vec<Tensor>) -> PyResult<Vec<Py<PyTensor>>> {
    ts.into_iter().map(|t| wrap(py, t)).collect()
}

/// A traced function: the graph as traced (what `get_operations` lists) and as optimised (what
/// runs).
#[pyclass(name = "Graph", module = "ferroflow._core", frozen)]
pub struct PyGraph {
    traced: Arc<Graph>,
    optimized: Arc<Graph>,
    specialised: bool,
}

/// (name, type, input names, output (dims, dtype enum) pairs) per node; dims are None where
/// the rank is unknown (a host call's result).
type Operation = (String, String, Vec<String>, Vec<(StaticDims, u32)>);

/// Static dims (`None` where a size is unknown), or None where the rank is.
type StaticDims = Option<Vec<Option<usize>>>;

/// A value's static dims, None where its rank is unknown.
fn dims_of(g: &Graph, v: crate::graph::ValueRef) -> StaticDims {
    (!g.unknown_rank(v)).then(|| g.info(v).dims.clone())
}

fn operations(g: &Graph) -> Vec<Operation> {
    g.nodes
        .iter()
        .map(|n: &Node| {
            let inputs =
                n.inputs.iter().map(|v| format!("{}:{}", g.nodes[v.node].name, v.output)).collect();
            let outputs = n
                .outputs
                .iter()
                .enumerate()
                .map(|(k, o)| {
                    let unknown = n.unknown_rank.get(k).copied().unwrap_or(false);
                    ((!unknown).then(|| o.dims.clone()), o.dtype as u32)
                })
                .collect();
            (n.name.clone(), n.type_name().to_string(), inputs, outputs)
        })
        .collect()
}

/// Whether `g` (or a branch or loop body in it) calls Python when it runs.
fn calls_python(g: &Graph) -> bool {
    g.nodes.iter().any(|n| match &n.kind {
        NodeKind::Print(_) | NodeKind::Op(crate::ops::registry::Op::HostCall(_)) => true,
        NodeKind::Cond(branches) => branches.iter().any(|b| calls_python(b)),
        NodeKind::While { cond, body, .. } => calls_python(cond) || calls_python(body),
        _ => false,
    })
}

/// Whether `g` (or a branch or loop body in it) has state beyond its inputs, as TensorFlow
/// calls a function stateful: it reads or assigns a variable, draws random numbers, prints or
/// calls Python. Runs of a stateless graph may happen in any order, on any thread.
fn stateful(g: &Graph) -> bool {
    g.nodes.iter().any(|n| match &n.kind {
        NodeKind::ReadVariable(_) | NodeKind::AssignVariable(_) | NodeKind::Print(_) => true,
        NodeKind::Op(op) => {
            op.primitive().tensorflow_stateful()
                || matches!(op, crate::ops::registry::Op::HostCall(_))
        }
        NodeKind::Cond(branches) => branches.iter().any(|b| stateful(b)),
        NodeKind::While { cond, body, .. } => stateful(cond) || stateful(body),
        _ => false,
    })
}

impl PyGraph {
    /// A loaded graph: the saved one and its optimised form (never specialised: saved graphs
    /// run for every shape their input specs admit).
    pub(crate) fn from_parts(traced: Arc<Graph>, optimized: Arc<Graph>) -> PyGraph {
        PyGraph { traced, optimized, specialised: false }
    }

    pub(crate) fn traced(&self) -> Arc<Graph> {
        self.traced.clone()
    }
}

/// One output of `call_many_stacked`: stacked, or each run's value.
enum Column {
    Stacked(Tensor),
    Runs(Vec<Tensor>),
}

fn unwrap_batches(batches: &[Vec<Bound<'_, PyTensor>>]) -> Vec<Vec<Tensor>> {
    batches.iter().map(|inputs| inputs.iter().map(|t| t.get().inner.clone()).collect()).collect()
}

impl PyGraph {
    /// Runs the graph once per list of flat inputs (see `call_many`), without touching Python.
    fn run_many(
        &self,
        batches: Vec<Vec<Tensor>>,
        parallel: bool,
    ) -> Vec<crate::error::Result<Vec<Tensor>>> {
        use rayon::prelude::*;
        let graph = &self.optimized;
        let host = crate::device::call_site_host();
        let run_one = |inputs: Vec<Tensor>| -> crate::error::Result<Vec<Tensor>> {
            let mut outputs = executor::run_owned(graph, inputs, Mode::Run)?;
            for t in outputs.iter_mut().filter(|t| t.device().is_cpu() && t.device() != host) {
                if let Some(moved) = t.to_device(host)? {
                    *t = moved;
                }
            }
            Ok(outputs)
        };
        match graph_runs_pool() {
            Some(pool) if parallel && batches.len() > 1 && !calls_python(graph) => {
                pool.install(|| batches.into_par_iter().map(run_one).collect())
            }
            _ => batches.into_iter().map(run_one).collect(),
        }
    }
}

/// The pool `tf.data`'s parallel map runs graphs on (None if its threads could not start:
/// the runs then go one after another). Not rayon's global pool: Python's main thread is a
/// member of that one (`kernels/pool.rs`) and, waiting inside a kernel, could steal a run and
/// execute it under its own device scopes, tapes and check-numerics state.
fn graph_runs_pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().build().ok()).as_ref()
}

#[pymethods]
impl PyGraph {
    /// Runs the graph on the flat input tensors; returns the flat outputs.
    fn call(
        &self,
        py: Python<'_>,
        inputs: Vec<Bound<'_, PyTensor>>,
    ) -> PyResult<Vec<Py<PyTensor>>> {
        let inputs: Vec<Tensor> = inputs.iter().map(|t| t.get().inner.clone()).collect();
        let mut outputs = executor::run(&self.optimized, &inputs, Mode::Run).py()?;
        // As TensorFlow's call op, the function's host outputs are on the logical CPU it was
        // called on, whichever logical CPUs its ops ran on.
        let host = crate::device::call_site_host();
        for t in outputs.iter_mut().filter(|t| t.device().is_cpu() && t.device() != host) {
            if let Some(moved) = t.to_device(host).py()? {
                *t = moved;
            }
        }
        wrap_all(py, outputs)
    }

    /// Runs the graph once per list of flat inputs in `batches`, without the GIL, on the
    /// thread pool when `parallel` (`tf.data`'s parallel `map`); returns, in order, each run's
    /// flat outputs or the exception it raised. A graph that calls Python (`py_function`,
    /// `tf.print`) runs its inputs one after another, in order: those calls take the GIL
    /// anyway, and their side effects then happen in element order.
    fn call_many(
        &self,
        py: Python<'_>,
        batches: Vec<Vec<Bound<'_, PyTensor>>>,
        parallel: bool,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let batches = unwrap_batches(&batches);
        let results = py.detach(|| self.run_many(batches, parallel));
        results
            .into_iter()
            .map(|r| match r.py() {
                Ok(outputs) => Ok(wrap_all(py, outputs)?.into_pyobject(py)?.into_any().unbind()),
                Err(e) => Ok(e.into_value(py).into_any()),
            })
            .collect()
    }

    /// `call_many` with each output stacked along a new first axis (`tf.data`'s map and batch
    /// fused: no element is built in Python). Returns, per flat output, the stacked tensor, or
    /// the list of the runs' values where `stack` says not to stack it (a composite's part)
    /// or the runs' shapes differ (the caller reports TensorFlow's error for those). The first
    /// failing run's error is raised. Stacking happens on this thread, under the caller's
    /// device scope (the host, for an input pipeline).
    fn call_many_stacked(
        &self,
        py: Python<'_>,
        batches: Vec<Vec<Bound<'_, PyTensor>>>,
        parallel: bool,
        stack: Vec<bool>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let batches = unwrap_batches(&batches);
        let columns = py.detach(|| -> crate::error::Result<Vec<Column>> {
            let runs = self.run_many(batches, parallel);
            let runs: Vec<Vec<Tensor>> = runs.into_iter().collect::<crate::error::Result<_>>()?;
            let width = self.optimized.outputs.len();
            let mut columns: Vec<Vec<Tensor>> =
                (0..width).map(|_| Vec::with_capacity(runs.len())).collect();
            for outputs in runs {
                for (column, t) in columns.iter_mut().zip(outputs) {
                    column.push(t);
                }
            }
            columns
                .into_iter()
                .enumerate()
                .map(|(i, column)| {
                    let same = column.windows(2).all(|w| w[0].shape() == w[1].shape());
                    if stack.get(i).copied().unwrap_or(false) && same && !column.is_empty() {
                        let refs: Vec<&Tensor> = column.iter().collect();
                        Ok(Column::Stacked(crate::ops::stack(&refs, 0)?))
                    } else {
                        Ok(Column::Runs(column))
                    }
                })
                .collect()
        });
        columns
            .py()?
            .into_iter()
            .map(|column| match column {
                Column::Stacked(t) => Ok(wrap(py, t)?.into_any()),
                Column::Runs(ts) => Ok(wrap_all(py, ts)?.into_pyobject(py)?.into_any().unbind()),
            })
            .collect()
    }

    /// Whether running the graph calls into Python (a host call or `tf.print`, nested in
    /// control flow too).
    #[getter]
    fn calls_python(&self) -> bool {
        calls_python(&self.optimized)
    }

    /// Whether the graph has state beyond its inputs (variables, random draws, Python calls):
    /// `tf.data` fuses and parallelises only graphs without.
    #[getter]
    fn stateful(&self) -> bool {
        stateful(&self.traced)
    }

    /// (name, static dims or None for an unknown rank, dtype enum) of each output of the
    /// traced graph.
    fn outputs(&self) -> Vec<(String, StaticDims, u32)> {
        let g = &self.traced;
        g.outputs
            .iter()
            .map(|v| {
                let name = format!("{}:{}", g.nodes[v.node].name, v.output);
                (name, dims_of(g, *v), g.info(*v).dtype as u32)
            })
            .collect()
    }

    /// The traced graph's operations, in order.
    fn operations(&self) -> Vec<Operation> {
        operations(&self.traced)
    }

    /// The operations of the graph that runs (after the passes).
    fn optimized_operations(&self) -> Vec<Operation> {
        operations(&self.optimized)
    }

    /// The graph rewritten by the named passes only ("fold", "cse", "dce", "fuse"), for tests.
    fn with_passes(&self, names: Vec<String>) -> PyResult<PyGraph> {
        let passes = names
            .iter()
            .map(|n| match n.as_str() {
                "fold" => Ok(Pass::Fold),
                "cse" => Ok(Pass::Cse),
                "dce" => Ok(Pass::Dce),
                "fuse" => Ok(Pass::Fuse),
                other => Err(PyValueError::new_err(format!("unknown pass {other}"))),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let optimized = Arc::new(passes::optimize(&self.traced, &passes));
        Ok(PyGraph { traced: self.traced.clone(), optimized, specialised: self.specialised })
    }

    /// Whether the graph draws random numbers when it runs (see `fresh_instance`).
    #[getter]
    fn draws_random(&self) -> bool {
        self.optimized.draws_random()
    }

    /// The graph as a new instance, for a new `tf.data` iterator: its random ops draw their
    /// sequence from the start again when seeded, from new keys when not.
    fn fresh_instance(&self) -> PyGraph {
        PyGraph {
            traced: Arc::new(self.traced.fresh_instance()),
            optimized: Arc::new(self.optimized.fresh_instance()),
            specialised: self.specialised,
        }
    }

    /// Only valid for the traced input shapes (see `trace::Traced::specialised`).
    #[getter]
    fn specialised(&self) -> bool {
        self.specialised
    }

    /// The variables the graph reads or assigns, in first-use order (unique ids).
    fn variable_ids(&self) -> Vec<u64> {
        self.traced.variables().iter().map(|v| v.id()).collect()
    }
}

/// A finished subgraph (branch, loop condition or body) waiting to become a node.
#[pyclass(name = "Subgraph", module = "ferroflow._core", frozen)]
pub struct PySubgraph {
    traced: Mutex<Option<Traced>>,
}

impl PySubgraph {
    fn take(&self) -> PyResult<Traced> {
        self.traced
            .lock()
            .map_err(|_| PyValueError::new_err("subgraph lock poisoned"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("this subgraph was already used"))
    }
}

#[pymethods]
impl PySubgraph {
    /// Static dims of each output (`None` where unknown; the whole entry where the rank is).
    fn output_dims(&self) -> PyResult<Vec<StaticDims>> {
        let guard =
            self.traced.lock().map_err(|_| PyValueError::new_err("subgraph lock poisoned"))?;
        let t = guard
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("this subgraph was already used"))?;
        Ok(t.graph.outputs.iter().map(|v| dims_of(&t.graph, *v)).collect())
    }
}

#[pyfunction]
fn graph_tracing() -> bool {
    trace::open()
}

#[pyfunction]
fn is_symbolic(value: &Bound<'_, PyAny>) -> bool {
    value.cast::<PyTensor>().is_ok_and(|t| trace::is_symbolic(&t.get().inner))
}

/// (graph name, static dims) of a tensor of the trace in progress, else None.
#[pyfunction]
fn symbolic_info(value: &Bound<'_, PyTensor>) -> Option<(String, StaticDims)> {
    let t = &value.get().inner;
    let (name, dims) = trace::describe(t)?;
    // A host call's result: its rank is unknown until the graph runs.
    Some((name, (!trace::has_unknown_rank(t)).then_some(dims)))
}

#[pyfunction]
fn trace_begin() {
    trace::begin();
}

#[pyfunction]
fn trace_abandon() {
    trace::abandon();
}

#[pyfunction]
fn trace_placeholder(
    py: Python<'_>,
    example: &Bound<'_, PyAny>,
    name: &str,
    dims: Vec<Option<usize>>,
) -> PyResult<Py<PyTensor>> {
    let example = to_tensor(example, Hint::Infer)?;
    wrap(py, trace::placeholder(&example, name, dims).py()?)
}

/// Ends the function's trace: the optimised graph that runs it.
#[pyfunction]
fn trace_finish(outputs: &Bound<'_, PyAny>) -> PyResult<PyGraph> {
    let traced = trace::finish(&tensors(outputs)?).py()?;
    if !traced.captures.is_empty() {
        return Err(Error::Internal(
            "a function graph captured values of an enclosing frame".into(),
        ))
        .py();
    }
    let optimized = Arc::new(passes::optimize(&traced.graph, &passes::ALL));
    Ok(PyGraph { traced: Arc::new(traced.graph), optimized, specialised: traced.specialised })
}

/// Ends a branch or loop trace.
#[pyfunction]
fn trace_finish_subgraph(outputs: &Bound<'_, PyAny>) -> PyResult<PySubgraph> {
    let traced = trace::finish(&tensors(outputs)?).py()?;
    Ok(PySubgraph { traced: Mutex::new(Some(traced)) })
}

#[pyfunction]
fn record_cond(
    py: Python<'_>,
    selector: &Bound<'_, PyAny>,
    branches: Vec<Bound<'_, PySubgraph>>,
) -> PyResult<Vec<Py<PyTensor>>> {
    let selector = to_tensor(selector, Hint::Infer)?;
    let branches = branches.iter().map(|b| b.get().take()).collect::<PyResult<Vec<_>>>()?;
    wrap_all(py, control::record_cond(&selector, branches).py()?)
}

#[pyfunction]
fn record_while(
    py: Python<'_>,
    vars: &Bound<'_, PyAny>,
    cond: &Bound<'_, PySubgraph>,
    body: &Bound<'_, PySubgraph>,
) -> PyResult<Vec<Py<PyTensor>>> {
    let vars = tensors(vars)?;
    wrap_all(py, control::record_while(&vars, cond.get().take()?, body.get().take()?).py()?)
}

/// `tf.print`: `pieces` are strings and ints (the index of a tensor in `values`); the text goes
/// to `stream.write` now, or each time the traced graph runs. `stream_name` says where that is
/// for a saved graph (see `PrintSpec::stream`).
#[pyfunction]
#[pyo3(signature = (pieces, values, summarize, stream, stream_name="stderr".to_string()))]
fn print_tensors(
    pieces: Vec<Bound<'_, PyAny>>,
    values: &Bound<'_, PyAny>,
    summarize: usize,
    stream: Py<PyAny>,
    stream_name: String,
) -> PyResult<()> {
    let pieces = pieces
        .iter()
        .map(|p| match p.extract::<usize>() {
            Ok(i) => Ok(Piece::Tensor(i)),
            Err(_) => p.extract::<String>().map(Piece::Text),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let values = tensors(values)?;
    if pieces.iter().any(|p| matches!(p, Piece::Tensor(i) if *i >= values.len())) {
        return Err(PyValueError::new_err("a print piece names a tensor that was not given"));
    }
    let sink = Arc::new(move |text: &str| {
        Python::attach(|py| stream.call_method1(py, "write", (text,)).map(|_| ()))
            .map_err(super::errors::from_py)
    });
    let spec = PrintSpec { pieces, summarize, stream: stream_name, sink };
    if trace::recording() {
        let refs: Vec<&Tensor> = values.iter().collect();
        trace::record_node(NodeKind::Print(Arc::new(spec)), &refs, &mut [], vec![], "PrintV2");
        return Ok(());
    }
    let refs: Vec<&Tensor> = values.iter().collect();
    spec.emit(&refs).py()
}

/// `tf.shape` as a graph op (for values whose traced dims are not all known).
#[pyfunction]
fn shape_op(py: Python<'_>, x: &Bound<'_, PyAny>, dtype: u32) -> PyResult<Py<PyTensor>> {
    let x = to_tensor(x, Hint::Infer)?;
    let op = crate::dispatch::Op::Shape(crate::ops::shape_ops::ShapeOf(super::args::dtype(dtype)?));
    wrap(py, crate::dispatch::apply1(&op, &[&x]).py()?)
}

/// `tf.name_scope` inside a trace: the prefix of the names of nodes recorded from now on;
/// returns the previous prefix.
#[pyfunction]
fn set_name_scope(prefix: String) -> String {
    trace::set_name_scope(prefix)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_name_scope, m)?)?;
    m.add_function(wrap_pyfunction!(shape_op, m)?)?;
    m.add_class::<PyGraph>()?;
    m.add_class::<PySubgraph>()?;
    m.add_function(wrap_pyfunction!(graph_tracing, m)?)?;
    m.add_function(wrap_pyfunction!(is_symbolic, m)?)?;
    m.add_function(wrap_pyfunction!(symbolic_info, m)?)?;
    m.add_function(wrap_pyfunction!(trace_begin, m)?)?;
    m.add_function(wrap_pyfunction!(trace_abandon, m)?)?;
    m.add_function(wrap_pyfunction!(trace_placeholder, m)?)?;
    m.add_function(wrap_pyfunction!(trace_finish, m)?)?;
    m.add_function(wrap_pyfunction!(trace_finish_subgraph, m)?)?;
    m.add_function(wrap_pyfunction!(record_cond, m)?)?;
    m.add_function(wrap_pyfunction!(record_while, m)?)?;
    m.add_function(wrap_pyfunction!(print_tensors, m)?)?;
    Ok(())
}
