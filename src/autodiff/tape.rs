//! Gradient tapes: which tensors are watched, and the ops recorded on them. Tapes are per
//! thread, as in TensorFlow; `dispatch::apply` calls `record` after every op, which costs one
//! thread-local check when no tape is active.

use super::backprop;
use super::gradient::Gradient;
use crate::dispatch::Op;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

/// A gradient written by hand: given the entry's inputs, outputs and the outputs' gradients
/// (None where nothing flows back), the inputs' gradients.
pub type GradFn = Arc<
    dyn Fn(&[Tensor], &[Tensor], &[Option<Tensor>]) -> Result<Vec<Option<Tensor>>> + Send + Sync,
>;

pub(crate) enum Backward {
    Op(Op),
    /// A variable read: the gradient passes through unchanged.
    Identity,
    Custom(GradFn),
    /// A staged `While`: as TensorFlow's While gradient, it answers (with zeros) for its
    /// floating inputs even when the target is one of its integer outputs (a `Cond` does not:
    /// TensorFlow's If gradient gives None there).
    ControlFlow(GradFn),
}

/// One recorded op. Inputs and outputs are kept alive (their storage is shared, not copied)
/// because gradient rules need their values.
pub(crate) struct Entry {
    pub backward: Backward,
    pub inputs: Vec<Tensor>,
    pub outputs: Vec<Tensor>,
}

#[derive(Default)]
pub(crate) struct TapeState {
    pub persistent: bool,
    pub watch_accessed_variables: bool,
    /// `stop_recording` nesting depth.
    pub paused: usize,
    /// Ids whose gradients this tape tracks: watched sources and everything computed from them.
    pub watched: HashSet<u64>,
    pub entries: Vec<Arc<Entry>>,
    pub variables: Vec<Variable>,
    /// A non-persistent tape gives one set of gradients.
    pub used: bool,
    /// Records every op and variable read, as if every tensor were watched: a traced
    /// function's tape, which `tf.gradients` asks (a graph's ops are all differentiable
    /// there, whatever a user's tapes watch).
    pub watch_all: bool,
}

/// A handle to one tape; clones refer to the same tape.
#[derive(Clone, Default)]
pub struct Tape {
    state: Arc<Mutex<TapeState>>,
}

thread_local! {
    /// Tapes entered on this thread, innermost last.
    static ACTIVE: RefCell<Vec<Tape>> = const { RefCell::new(Vec::new()) };
    /// Depth of `pause_all` guards: while positive no tape records (custom gradients' forward
    /// passes and variable writes).
    static PAUSED: Cell<usize> = const { Cell::new(0) };
}

/// Only floating and complex tensors carry gradients, as in TensorFlow.
pub(crate) fn differentiable(t: &Tensor) -> bool {
    t.dtype().is_floating() || t.dtype().is_complex()
}

impl Tape {
    pub fn new(persistent: bool, watch_accessed_variables: bool) -> Tape {
        let state = TapeState { persistent, watch_accessed_variables, ..Default::default() };
        Tape { state: Arc::new(Mutex::new(state)) }
    }

    /// A persistent tape recording everything (see `TapeState::watch_all`).
    pub fn watching_everything() -> Tape {
        let state = TapeState { persistent: true, watch_all: true, ..Default::default() };
        Tape { state: Arc::new(Mutex::new(state)) }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, TapeState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn same(&self, other: &Tape) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }

    /// Makes this tape record ops run on this thread (`with tape:`).
    pub fn push(&self) {
        ACTIVE.with(|a| a.borrow_mut().push(self.clone()));
    }

    /// Stops recording; the innermost occurrence of this tape leaves the stack.
    pub fn pop(&self) {
        ACTIVE.with(|a| {
            let mut active = a.borrow_mut();
            if let Some(i) = active.iter().rposition(|t| t.same(self)) {
                active.remove(i);
            }
        });
    }

    pub fn is_active(&self) -> bool {
        ACTIVE.with(|a| a.borrow().iter().any(|t| t.same(self)))
    }

    /// Watches a tensor: gradients with respect to it can be asked for. Integer tensors are
    /// ignored, as TensorFlow ignores them.
    pub fn watch(&self, t: &Tensor) {
        if differentiable(t) {
            self.lock().watched.insert(t.id());
        }
    }

    pub fn watch_variable(&self, v: &Variable) {
        let mut state = self.lock();
        if differentiable(&v.peek()) && state.watched.insert(v.id()) {
            state.variables.push(v.clone());
        }
    }

    pub fn watched_variables(&self) -> Vec<Variable> {
        self.lock().variables.clone()
    }

    pub fn persistent(&self) -> bool {
        self.lock().persistent
    }

    /// `stop_recording`: ops run until `resume` are not recorded on this tape.
    pub fn pause(&self) {
        self.lock().paused += 1;
    }

    pub fn resume(&self) {
        let mut state = self.lock();
        state.paused = state.paused.saturating_sub(1);
    }

    /// Forgets everything recorded and watched (`tape.reset()`).
    pub fn reset(&self) {
        let mut state = self.lock();
        state.watched.clear();
        state.entries.clear();
        state.variables.clear();
        state.used = false;
    }

    /// Gradients of `targets` with respect to `sources` (ids), seeded with `seeds` (ones where
    /// None). A non-persistent tape answers once and then drops what it recorded.
    pub fn gradient(
        &self,
        targets: &[Tensor],
        sources: &[u64],
        seeds: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        let mut all = self.gradients(targets, sources, &[seeds.to_vec()])?;
        Ok(all.pop().unwrap_or_default())
    }

    /// One backward pass per list of seeds (a jacobian's rows), counted as one use.
    pub fn gradients(
        &self,
        targets: &[Tensor],
        sources: &[u64],
        seed_lists: &[Vec<Option<Tensor>>],
    ) -> Result<Vec<Vec<Option<Tensor>>>> {
        self.gradients_with_rows(targets, sources, seed_lists, &[])?
            .into_iter()
            .map(|grads| grads.into_iter().map(|g| g.map(Gradient::dense).transpose()).collect())
            .collect()
    }

    /// `gradients`, where a source that only gathers reached (an embedding table) gets the
    /// rows it received (TensorFlow's IndexedSlices) rather than a dense tensor. Gradients do
    /// not pass back through the values `stops` names (`tf.gradients`' stop_gradients).
    pub fn gradients_with_rows(
        &self,
        targets: &[Tensor],
        sources: &[u64],
        seed_lists: &[Vec<Option<Tensor>>],
        stops: &[u64],
    ) -> Result<Vec<Vec<Option<Gradient>>>> {
        let (entries, watched, watch_all) = {
            let mut state = self.lock();
            if state.used {
                return Err(Error::Runtime(
                    "A non-persistent GradientTape can only be used to compute one set of \
                     gradients (or jacobians)"
                        .into(),
                ));
            }
            if !state.persistent {
                state.used = true;
            }
            // Gradients flow only to what the tape watched (directly or as computed from it).
            let watched: Vec<bool> =
                sources.iter().map(|s| state.watch_all || state.watched.contains(s)).collect();
            (state.entries.clone(), watched, state.watch_all)
        };
        let tracked: Vec<u64> =
            sources.iter().zip(&watched).filter(|(_, w)| **w).map(|(s, _)| *s).collect();
        // The backward pass is not recorded on this tape itself (outer tapes do record it,
        // which is what gives higher-order gradients). A traced function's tape does record
        // it: `tf.gradients` of a `tf.gradients` result (`tf.hessians`) differentiates it.
        if !watch_all {
            self.pause();
        }
        let result: Result<Vec<_>> = seed_lists
            .iter()
            .map(|seeds| {
                let grads = backprop::run(&entries, targets, &tracked, seeds, stops)?;
                let mut found = grads.into_iter();
                Ok(watched.iter().map(|&w| if w { found.next().flatten() } else { None }).collect())
            })
            .collect();
        if !watch_all {
            self.resume();
        }
        if !self.persistent() {
            self.lock().entries.clear();
        }
        result
    }
}

/// While alive, no tape on this thread records.
pub struct PauseGuard(());

pub fn pause_all() -> PauseGuard {
    PAUSED.with(|p| p.set(p.get() + 1));
    PauseGuard(())
}

impl Drop for PauseGuard {
    fn drop(&mut self) {
        PAUSED.with(|p| p.set(p.get().saturating_sub(1)));
    }
}

/// The tapes that should record an op with these input ids.
fn recording_tapes(input_ids: &[u64]) -> Vec<Tape> {
    if PAUSED.with(|p| p.get()) > 0 {
        return Vec::new();
    }
    ACTIVE.with(|a| {
        a.borrow()
            .iter()
            .filter(|t| {
                let state = t.lock();
                state.paused == 0
                    && (state.watch_all || input_ids.iter().any(|id| state.watched.contains(id)))
            })
            .cloned()
            .collect()
    })
}

/// Some active, unpaused tape watches the tensor with this id (or a value computed from one);
/// tapes that record everything do not count.
pub(crate) fn watched(id: u64) -> bool {
    any_active()
        && recording_tapes(&[id]).iter().any(|t| {
            let state = t.lock();
            !state.watch_all && state.watched.contains(&id)
        })
}

/// The tapes entered on this thread, outermost first.
pub fn active_tapes() -> Vec<Tape> {
    ACTIVE.with(|a| a.borrow().clone())
}

pub(crate) fn any_active() -> bool {
    ACTIVE.with(|a| !a.borrow().is_empty())
}

fn push_entry(tapes: &[Tape], backward: Backward, inputs: &[&Tensor], outputs: &mut [Tensor]) {
    // An output that is an input's handle (an identity cast) must get its own identity, or the
    // backward pass would see a cycle.
    for o in outputs.iter_mut() {
        if inputs.iter().any(|i| i.id() == o.id()) {
            *o = o.with_new_id();
        }
    }
    let entry = Arc::new(Entry {
        backward,
        inputs: inputs.iter().map(|t| (*t).clone()).collect(),
        outputs: outputs.to_vec(),
    });
    for tape in tapes {
        let mut state = tape.lock();
        state.watched.extend(outputs.iter().filter(|o| differentiable(o)).map(Tensor::id));
        state.entries.push(entry.clone());
    }
}

impl Tape {
    /// Records an entry on this tape alone when it watches one of the inputs: a loop
    /// gradient's replay of its body from the values the forward loop kept (the outputs were
    /// read back, not computed from these inputs here, so no other tape may take them for
    /// this entry's results).
    pub(crate) fn record_replayed(
        &self,
        backward: Backward,
        inputs: &[&Tensor],
        outputs: &mut [Tensor],
    ) {
        let watching = PAUSED.with(Cell::get) == 0 && {
            let state = self.lock();
            state.paused == 0
                && (state.watch_all || inputs.iter().any(|t| state.watched.contains(&t.id())))
        };
        if watching {
            push_entry(std::slice::from_ref(self), backward, inputs, outputs);
        }
    }
}

/// Records a primitive on every tape watching one of its inputs.
pub(crate) fn record(op: &Op, inputs: &[&Tensor], outputs: &mut [Tensor]) {
    if !any_active() || !super::rules::has_gradient(op) {
        return;
    }
    let ids: Vec<u64> = inputs.iter().map(|t| t.id()).collect();
    let tapes = recording_tapes(&ids);
    if !tapes.is_empty() {
        push_entry(&tapes, Backward::Op(op.clone()), inputs, outputs);
    }
}

/// Records outputs computed (with recording paused) by a composition whose gradient is given
/// by hand: `tf.custom_gradient`, and compositions whose derivative TensorFlow defines
/// differently from the chain rule through their parts (relu at 0).
pub fn record_custom(inputs: &[&Tensor], outputs: &mut [Tensor], grad: GradFn) {
    record_by_hand(Backward::Custom(grad), inputs, outputs);
}

/// Records the outputs of a staged `While` (see `Backward::ControlFlow`).
pub fn record_control_flow(inputs: &[&Tensor], outputs: &mut [Tensor], grad: GradFn) {
    record_by_hand(Backward::ControlFlow(grad), inputs, outputs);
}

fn record_by_hand(backward: Backward, inputs: &[&Tensor], outputs: &mut [Tensor]) {
    if !any_active() {
        return;
    }
    let ids: Vec<u64> = inputs.iter().map(|t| t.id()).collect();
    let tapes = recording_tapes(&ids);
    if !tapes.is_empty() {
        push_entry(&tapes, backward, inputs, outputs);
    }
}

/// Tapes that watch every accessed trainable variable start watching `variable`.
pub fn note_access(variable: &Variable) {
    if !variable.trainable() {
        return;
    }
    for tape in active_tapes() {
        let wants = {
            let state = tape.lock();
            state.paused == 0 && state.watch_accessed_variables
        };
        if wants {
            tape.watch_variable(variable);
        }
    }
}

/// A variable was read: tapes that watch it (or watch every accessed trainable variable) see
/// the read value as computed from the variable.
pub(crate) fn record_read(variable: &Variable, value: &mut Tensor) {
    if !any_active() || PAUSED.with(|p| p.get()) > 0 || !differentiable(value) {
        return;
    }
    note_access(variable);
    let source = variable.peek().with_id(variable.id());
    let tapes = recording_tapes(&[variable.id()]);
    if !tapes.is_empty() {
        push_entry(&tapes, Backward::Identity, &[&source], std::slice::from_mut(value));
    }
}
