//! The backward pass over a tape's entries. Entries are stored in execution order, so walking
//! them in reverse meets every consumer of a tensor before its producer: a tensor's gradient is
//! complete when its producer is reached. Only entries on a path from a source are visited.

use super::gradient::{Gradient, Rows};
use super::rules;
use super::tape::{differentiable, Backward, Entry};
use crate::device;
use crate::dispatch::Op;
use crate::error::{Error, Result};
use crate::ops;
use crate::tensor::Tensor;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

fn accumulate(grads: &mut HashMap<u64, Gradient>, id: u64, g: Gradient) -> Result<()> {
    let sum = match grads.remove(&id) {
        Some(existing) => existing.sum(g)?,
        None => g,
    };
    grads.insert(id, sum);
    Ok(())
}

fn backward(entry: &Entry, upstream: Vec<Option<Gradient>>) -> Result<Vec<Option<Gradient>>> {
    // A variable's read passes rows through, so the variable's gradient stays rows.
    if let Backward::Identity = entry.backward {
        return Ok(upstream.into_iter().take(1).collect());
    }
    let dense: Vec<Option<Tensor>> =
        upstream.into_iter().map(|g| g.map(Gradient::dense).transpose()).collect::<Result<_>>()?;
    if let (Backward::Op(Op::Gather(gather)), Some(Some(g))) = (&entry.backward, dense.first()) {
        if let Some(rows) = Rows::of_gather(gather, &entry.inputs[0], &entry.inputs[1], g)? {
            return Ok(vec![Some(Gradient::Rows(rows)), None]);
        }
    }
    let grads = match &entry.backward {
        Backward::Identity => unreachable!("handled above"),
        Backward::Op(op) => rules::gradient(op, &entry.inputs, &entry.outputs, &dense)?,
        Backward::Custom(f) | Backward::ControlFlow(f) => f(&entry.inputs, &entry.outputs, &dense)?,
    };
    Ok(grads.into_iter().map(|g| g.map(Gradient::Dense)).collect())
}

pub(crate) fn run(
    entries: &[Arc<Entry>],
    targets: &[Tensor],
    sources: &[u64],
    seeds: &[Option<Tensor>],
    stops: &[u64],
) -> Result<Vec<Option<Gradient>>> {
    // Forward sweep: what depends on a source.
    let mut reached: HashSet<u64> = sources.iter().copied().collect();
    let relevant: Vec<&Arc<Entry>> = entries
        .iter()
        .filter(|e| {
            let hit = e.inputs.iter().any(|t| reached.contains(&t.id()));
            if hit {
                reached.extend(e.outputs.iter().map(Tensor::id));
            }
            hit
        })
        .collect();

    let mut grads: HashMap<u64, Gradient> = HashMap::new();
    // Integer targets a source reaches: no gradient flows from them, except that a staged
    // While producing one owes its floating inputs zeros (TensorFlow seeds every target, and
    // its While gradient answers for all its inputs; its If gradient gives None).
    let integer_targets: HashSet<u64> = targets
        .iter()
        .filter(|t| reached.contains(&t.id()) && !differentiable(t))
        .map(Tensor::id)
        .collect();
    for (i, target) in targets.iter().enumerate() {
        if !reached.contains(&target.id()) || !differentiable(target) {
            continue;
        }
        on_device(target.device(), || {
            let seed = match seeds.get(i).cloned().flatten() {
                Some(s) if s.shape() != target.shape() => {
                    return Err(Error::InvalidArgument(format!(
                        "output_gradients[{i}] has shape {} but its target has shape {}",
                        s.shape().tf_string(),
                        target.shape().tf_string()
                    )))
                }
                Some(s) => ops::cast(&s, target.dtype())?,
                None => ops::ones_like(target)?,
            };
            accumulate(&mut grads, target.id(), Gradient::Dense(seed))
        })?;
    }

    for entry in relevant.iter().rev() {
        // `tf.gradients`' stop_gradients: a gradient reaching one goes no further back.
        let upstream: Vec<Option<Gradient>> = entry
            .outputs
            .iter()
            .map(|o| if stops.contains(&o.id()) { None } else { grads.get(&o.id()).cloned() })
            .collect();
        if upstream.iter().all(Option::is_none) {
            let owes_zeros = matches!(entry.backward, Backward::ControlFlow(_))
                && entry.outputs.iter().any(|o| integer_targets.contains(&o.id()));
            if owes_zeros {
                for input in entry.inputs.iter().filter(|i| reached.contains(&i.id())) {
                    if differentiable(input) && !grads.contains_key(&input.id()) {
                        let zeros = on_device(input.device(), || ops::zeros_like(input))?;
                        grads.insert(input.id(), Gradient::Dense(zeros));
                    }
                }
            }
            continue;
        }
        // An op's gradient (and the sums into its inputs' gradients) runs where the op ran.
        let place = entry.outputs.first().map_or(crate::device::Device::Cpu, Tensor::device);
        on_device(place, || {
            for (input, g) in entry.inputs.iter().zip(backward(entry, upstream)?) {
                if let Some(g) = g {
                    if reached.contains(&input.id()) && differentiable(input) {
                        accumulate(&mut grads, input.id(), g)?;
                    }
                }
            }
            Ok(())
        })?;
    }
    Ok(sources.iter().map(|id| grads.get(id).cloned()).collect())
}

fn on_device<T>(place: crate::device::Device, f: impl FnOnce() -> Result<T>) -> Result<T> {
    device::push_device(place);
    let result = f();
    device::pop_scope();
    result
}
