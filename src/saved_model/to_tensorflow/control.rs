//! `tf.cond`, `tf.switch_case` and `tf.while_loop` nodes written as TensorFlow's functional
//! control flow: `If`/`Case` (stateless forms when no branch touches state) and `While`, each
//! branch, condition and body a function of the library.
//!
//! TensorFlow's branches all take the same arguments, so each branch function takes every
//! branch's captured values (and reads only its own). A `While`'s state is one list carried
//! through both functions: the loop variables, then the condition's and the body's captured
//! values and the variables used inside, which the body passes on unchanged.

use super::attrs::{self, RESOURCE};
use super::body::{TensorRef, Typed};
use super::function_def::{self, arg_names, ArgSpec, Scope};
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::{Graph, Node};
use crate::tensor::Tensor;
use crate::variable::Variable;
use std::sync::Arc;

/// The variables any of `graphs` reads or writes, once each.
fn variables_of<'g>(graphs: impl IntoIterator<Item = &'g Graph>) -> Vec<Variable> {
    let mut found: Vec<Variable> = Vec::new();
    for g in graphs {
        for v in g.variables() {
            if !found.iter().any(|f| f.same(&v)) {
                found.push(v);
            }
        }
    }
    found
}

fn data_args(parent: &Graph, node: &Node, inputs: std::ops::Range<usize>) -> Vec<ArgSpec> {
    let names = arg_names(inputs.clone().map(|k| format!("input_{k}")));
    inputs
        .zip(names)
        .map(|(k, name)| {
            let info = parent_info(parent, node, k);
            ArgSpec { name, dtype: info.0, dims: info.1 }
        })
        .collect()
}

fn parent_info(parent: &Graph, node: &Node, k: usize) -> (DType, Option<Vec<Option<usize>>>) {
    let v = node.inputs[k];
    let t = parent.info(v);
    (t.dtype, (!parent.unknown_rank(v)).then(|| t.dims.clone()))
}

/// Orders a node that runs functions touching `vars` among the enclosing function's variable
/// accesses, as a read and a write of each.
fn order(scope: &mut Scope, node_name: &str, vars: &[Variable], stateful: bool) {
    for v in vars {
        scope.effects.write(scope.body, node_name, v);
    }
    if stateful && vars.is_empty() {
        // Functional control flow is never among TensorFlow's order-insensitive ops.
        scope.effects.sequence(scope.body, node_name, "If/Case/While");
    }
    if stateful && !scope.effects.nodes.iter().any(|n| n == node_name) {
        scope.effects.nodes.push(node_name.to_string());
    }
}

pub fn cond(
    scope: &mut Scope,
    node: &Node,
    branches: &[Arc<Graph>],
    ins: &[Typed],
    outs: &[i32],
    parent: &Graph,
) -> Result<(Vec<TensorRef>, bool)> {
    let vars = variables_of(branches.iter().map(|b| b.as_ref()));
    let args = data_args(parent, node, 1..ins.len());
    let mut names = Vec::new();
    let mut stateful = false;
    let mut offset = 0;
    for (b, branch) in branches.iter().enumerate() {
        let name = scope.library.fresh_name(&format!("{}_branch_{b}", node.name));
        let start = offset;
        let shape = function_def::Shape {
            args: &args,
            placeholder_arg: &move |i| start + i,
            resources: &vars,
            passthrough: &[],
        };
        stateful |= function_def::export(scope.library, &name, branch, &shape)?;
        offset += branch.num_inputs;
        names.push(name);
    }
    let mut inputs: Vec<Typed> = ins[1..].to_vec();
    for v in &vars {
        inputs.push(scope.resource(v)?);
    }
    let selector = ins[0].clone();
    let out = if selector.1 == attrs::enum_of(DType::Bool) && branches.len() == 2 {
        let op = if stateful { "If" } else { "StatelessIf" };
        scope.body.op(
            op,
            &node.name,
            &[vec![selector], inputs],
            outs,
            vec![
                ("then_branch", attrs::func(&names[0])),
                ("else_branch", attrs::func(&names[1])),
                ("Tout", attrs::dtypes(outs.iter().copied())),
            ],
        )?
    } else {
        let index = if selector.1 == attrs::enum_of(DType::I32) {
            selector
        } else {
            branch_index(scope, selector, branches.len(), &node.name)?
        };
        let op = if stateful { "Case" } else { "StatelessCase" };
        scope.body.op(
            op,
            &node.name,
            &[vec![index], inputs],
            outs,
            vec![("branches", attrs::funcs(&names)), ("Tout", attrs::dtypes(outs.iter().copied()))],
        )?
    };
    let n = scope.body.last().to_string();
    order(scope, &n, &vars, stateful);
    Ok((out, stateful))
}

/// An int32 branch index from a selector of another integer dtype. Cast alone would wrap a
/// large value into range (2^32 to branch 0); clamped first to [-1, branches], every value
/// out of range still picks the last branch, as the traced node does.
fn branch_index(scope: &mut Scope, selector: Typed, branches: usize, name: &str) -> Result<Typed> {
    let dtype = DType::from_enum(selector.1 as u32)?;
    let bound = |scope: &mut Scope, value: i64, hint: &str| -> Result<Typed> {
        let t = crate::ops::cast(&Tensor::scalar(value), dtype)?;
        Ok((scope.body.constant(&t, &format!("{name}/{hint}"))?, selector.1))
    };
    let high = bound(scope, branches as i64, "high")?;
    let args = [vec![selector.clone()], vec![high]];
    let mut clamped =
        scope.body.op("Minimum", &format!("{name}/clamp_high"), &args, &[selector.1], vec![])?;
    if dtype.is_signed_integer() {
        let low = bound(scope, -1, "low")?;
        let args = [vec![(clamped[0].clone(), selector.1)], vec![low]];
        clamped =
            scope.body.op("Maximum", &format!("{name}/clamp_low"), &args, &[selector.1], vec![])?;
    }
    let i32_ = attrs::enum_of(DType::I32);
    let args = [vec![(clamped[0].clone(), selector.1)]];
    let cast = scope.body.op("Cast", &format!("{name}/branch_index"), &args, &[i32_], vec![])?;
    Ok((cast[0].clone(), i32_))
}

pub fn while_loop(
    scope: &mut Scope,
    node: &Node,
    cond: &Graph,
    body: &Graph,
    loop_vars: usize,
    ins: &[Typed],
    parent: &Graph,
) -> Result<(Vec<TensorRef>, bool)> {
    let vars = variables_of([cond, body]);
    let args = data_args(parent, node, 0..ins.len());
    let n = loop_vars;
    let cond_captures = cond.num_inputs - n;
    let cond_name = scope.library.fresh_name(&format!("{}_cond", node.name));
    let body_name = scope.library.fresh_name(&format!("{}_body", node.name));
    let cond_shape = function_def::Shape {
        args: &args,
        placeholder_arg: &|i| i,
        resources: &vars,
        passthrough: &[],
    };
    let mut stateful = function_def::export(scope.library, &cond_name, cond, &cond_shape)?;
    let passthrough: Vec<usize> = (n..args.len() + vars.len()).collect();
    let body_shape = function_def::Shape {
        args: &args,
        placeholder_arg: &move |i| if i < n { i } else { i + cond_captures },
        resources: &vars,
        passthrough: &passthrough,
    };
    stateful |= function_def::export(scope.library, &body_name, body, &body_shape)?;
    let mut state: Vec<Typed> = ins.to_vec();
    for v in &vars {
        state.push(scope.resource(v)?);
    }
    let types: Vec<i32> = state.iter().map(|(_, d)| *d).collect();
    let op = if stateful { "While" } else { "StatelessWhile" };
    let out = scope.body.op(
        op,
        &node.name,
        &[state],
        &types,
        vec![
            ("cond", attrs::func(&cond_name)),
            ("body", attrs::func(&body_name)),
            ("parallel_iterations", attrs::int(10)),
        ],
    )?;
    let name = scope.body.last().to_string();
    order(scope, &name, &vars, stateful);
    debug_assert!(types.iter().skip(args.len()).all(|&t| t == RESOURCE));
    Ok((out[..n].to_vec(), stateful))
}
