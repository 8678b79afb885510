//! Calls and functional control flow: each runs library functions on its inputs (inlining at
//! run time). `If`/`Case`/`While` and their stateless twins differ only in what TensorFlow may
//! prune or reorder; run eagerly they are the same.

use super::op_call::OpCall;
use super::run_function::Value;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops;
use crate::tensor::Tensor;

pub fn run(c: &OpCall) -> Result<Option<Vec<Value>>> {
    let attrs = c.attrs;
    let call = |function: &str, args: Vec<Value>| c.library.call(function, args, c.depth + 1);
    match c.op() {
        "StatefulPartitionedCall" | "PartitionedCall" => {
            Ok(Some(call(attrs.function("f")?, c.inputs.clone())?))
        }
        "If" | "StatelessIf" => {
            let branch = if truth(c, c.tensor(0)?)? {
                attrs.function("then_branch")?
            } else {
                attrs.function("else_branch")?
            };
            Ok(Some(call(branch, c.inputs[1..].to_vec())?))
        }
        "Case" | "StatelessCase" => {
            let index = c.int(0)?;
            let branches = attrs.functions("branches")?;
            // An index out of range runs the last branch (the default), as TensorFlow does.
            let chosen = usize::try_from(index)
                .ok()
                .and_then(|i| branches.get(i))
                .or(branches.last())
                .ok_or_else(|| c.invalid("has no branches"))?;
            Ok(Some(call(chosen, c.inputs[1..].to_vec())?))
        }
        "While" | "StatelessWhile" => {
            let (cond, body) = (attrs.function("cond")?, attrs.function("body")?);
            let mut vars = c.inputs.clone();
            loop {
                let verdict = call(cond, vars.clone())?;
                let [Value::Tensor(verdict)] = verdict.as_slice() else {
                    return Err(c.invalid(format!("cond '{cond}' must return one tensor")));
                };
                if !truth(c, verdict)? {
                    return Ok(Some(vars));
                }
                let next = call(body, vars)?;
                if next.len() != c.inputs.len() {
                    return Err(c.invalid(format!(
                        "body '{body}' returns {} loop variables, expected {}",
                        next.len(),
                        c.inputs.len()
                    )));
                }
                vars = next;
            }
        }
        _ => Ok(None),
    }
}

/// TensorFlow's truth of a predicate (`ToBool`): a scalar is true when non-zero (a string when
/// non-empty); any other tensor when it has elements.
fn truth(c: &OpCall, t: &Tensor) -> Result<bool> {
    if t.rank() != 0 {
        return Ok(t.num_elements() > 0);
    }
    if t.dtype() == DType::String {
        return Err(c.unsupported("a string predicate", t.dtype()));
    }
    let as_bool = ops::cast(t, DType::Bool)?.to_vec::<bool>()?;
    as_bool.first().copied().ok_or_else(|| c.invalid("empty predicate"))
}
