//! A signature's wrapper function, as TensorFlow writes one: keyword inputs (flattened in the
//! sorted order of their names, as `nest` flattens a dict), a `StatefulPartitionedCall` of the
//! concrete function, and its outputs in the sorted order of their names.

use super::attrs::{self, RESOURCE};
use super::body::{Body, Typed};
use super::function_def::{arg_names, Library};
use crate::error::{Error, Result};
use crate::proto::tensorflow::op_def::ArgDef;
use crate::proto::tensorflow::{FunctionDef, OpDef};
use std::collections::BTreeMap;

/// What the wrapper calls: the concrete function's name and signature.
pub struct Callee<'a> {
    pub name: &'a str,
    pub def: &'a FunctionDef,
    /// The input name of each of the callee's data arguments, in its order.
    pub input_keys: &'a [String],
    /// (output name, index of the callee's flat output), sorted by name.
    pub outputs: &'a [(String, usize)],
}

pub fn wrapper(library: &mut Library, callee: &Callee) -> Result<String> {
    let sig = callee.def.signature.clone().unwrap_or_default();
    let data = callee.input_keys.len();
    if data > sig.input_arg.len() {
        return Err(Error::Internal("a signature names more inputs than its function has".into()));
    }
    let mut order: Vec<usize> = (0..data).collect();
    order.sort_by(|&a, &b| callee.input_keys[a].cmp(&callee.input_keys[b]));
    let data_names = arg_names(order.iter().map(|&k| callee.input_keys[k].clone()));
    let resource_args = &sig.input_arg[data..];
    let resource_names: Vec<String> =
        arg_names(data_names.iter().cloned().chain(resource_args.iter().map(|a| a.name.clone())))
            .split_off(data);
    let all: Vec<String> = data_names.iter().chain(&resource_names).cloned().collect();
    let mut body = Body::new(&all);

    // The callee's arguments in its own order.
    let mut args: Vec<Typed> = Vec::with_capacity(sig.input_arg.len());
    for k in 0..data {
        let position = order.iter().position(|&o| o == k).unwrap_or(k);
        args.push((data_names[position].clone(), sig.input_arg[k].r#type));
    }
    args.extend(resource_names.iter().map(|n| (n.clone(), RESOURCE)));
    let tout: Vec<i32> = sig.output_arg.iter().map(|a| a.r#type).collect();
    let results = body.op(
        "StatefulPartitionedCall",
        "StatefulPartitionedCall",
        &[args],
        &tout,
        vec![("f", attrs::func(callee.name))],
    )?;

    let out_names = arg_names(callee.outputs.iter().map(|(key, _)| key.clone()));
    let mut ret = BTreeMap::new();
    let mut output_arg = Vec::new();
    for ((_, index), out_name) in callee.outputs.iter().zip(&out_names) {
        let dtype = *tout.get(*index).ok_or_else(|| {
            Error::Internal("a signature names an output its function lacks".into())
        })?;
        let id = body.op(
            "Identity",
            "Identity",
            &[vec![(results[*index].clone(), dtype)]],
            &[dtype],
            vec![],
        )?;
        ret.insert(out_name.clone(), id[0].clone());
        output_arg.push(ArgDef { name: out_name.clone(), r#type: dtype, ..Default::default() });
    }

    let mut input_arg: Vec<ArgDef> = order
        .iter()
        .zip(&data_names)
        .map(|(&k, n)| ArgDef { name: n.clone(), ..sig.input_arg[k].clone() })
        .collect();
    input_arg.extend(
        resource_args
            .iter()
            .zip(&resource_names)
            .map(|(a, n)| ArgDef { name: n.clone(), ..a.clone() }),
    );
    let name = library.fresh_name("signature_wrapper");
    library.functions.push(FunctionDef {
        signature: Some(OpDef {
            name: name.clone(),
            input_arg,
            output_arg,
            control_output: vec!["StatefulPartitionedCall".into()],
            is_stateful: true,
            ..Default::default()
        }),
        node_def: body.nodes,
        ret,
        control_ret: BTreeMap::from([(
            "StatefulPartitionedCall".to_string(),
            "StatefulPartitionedCall".to_string(),
        )]),
        ..Default::default()
    });
    Ok(name)
}
