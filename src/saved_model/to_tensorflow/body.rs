//! A function body being written as TensorFlow `NodeDef`s: unique node names, each op's
//! inputs laid out by its TensorFlow signature (type and number attributes filled in from the
//! tensors it is given) and its outputs named `node:arg:index`, as `FunctionDef`s reference
//! them.

use super::attrs;
use super::op_signatures::{self, ArgKind};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::io::tensor_proto;
use crate::proto::tensorflow::attr_value::Value;
use crate::proto::tensorflow::{AttrValue, NodeDef};
use crate::tensor::Tensor;
use std::collections::{BTreeMap, HashSet};

/// A tensor as a function body names it: an input argument's name, or `node:arg:index`.
pub type TensorRef = String;

/// One input tensor of a node and its DataType enum (`attrs::enum_of`, or `attrs::RESOURCE`).
pub type Typed = (TensorRef, i32);

#[derive(Default)]
pub struct Body {
    pub nodes: Vec<NodeDef>,
    names: HashSet<String>,
}

/// TensorFlow's node-name rule (`[A-Za-z0-9.][A-Za-z0-9_.\-/>]*`); anything else becomes `_`.
fn legal_name(hint: &str) -> String {
    let mut name: String = hint
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "_.-/>".contains(c) { c } else { '_' })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '.') {
        name.insert(0, 'n');
    }
    name
}

pub fn unimplemented(op: &str) -> Error {
    Error::Unimplemented(format!(
        "the op {op} cannot be written in TensorFlow's SavedModel format by this version of \
         ferroflow"
    ))
}

impl Body {
    /// A body whose input arguments have these names (node names must differ from them).
    pub fn new(arg_names: &[String]) -> Body {
        Body { nodes: Vec::new(), names: arg_names.iter().cloned().collect() }
    }

    /// A fresh node name from `hint`: `hint`, then `hint_1`, `hint_2`, ...
    pub fn unique(&mut self, hint: &str) -> String {
        let base = legal_name(hint);
        let mut name = base.clone();
        let mut n = 0;
        while !self.names.insert(name.to_lowercase()) {
            n += 1;
            name = format!("{base}_{n}");
        }
        name
    }

    /// Emits one `op` node. `args` holds the tensors of each of the op's input arguments in
    /// TensorFlow's order; `outputs` the dtypes of all its outputs. Returns the outputs' refs.
    pub fn op(
        &mut self,
        op: &str,
        hint: &str,
        args: &[Vec<Typed>],
        outputs: &[i32],
        given: Vec<(&str, AttrValue)>,
    ) -> Result<Vec<TensorRef>> {
        let sig = op_signatures::lookup(op).ok_or_else(|| unimplemented(op))?;
        if args.len() != sig.inputs.len() {
            return Err(Error::Internal(format!(
                "{op} takes {} input arguments, the exporter gave {}",
                sig.inputs.len(),
                args.len()
            )));
        }
        let mut attr: BTreeMap<String, AttrValue> =
            given.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let set = |attr: &mut BTreeMap<String, AttrValue>, key: &str, value: AttrValue| {
            attr.entry(key.to_string()).or_insert(value);
        };
        let mut input = Vec::new();
        for (arg, tensors) in sig.inputs.iter().zip(args) {
            let single = || match tensors.len() {
                1 => Ok(tensors[0].1),
                n => Err(Error::Internal(format!("{op}'s input {} given {n} tensors", arg.name))),
            };
            match &arg.kind {
                ArgKind::Typed(t) => set(&mut attr, t, attrs::dtype(single()?)),
                ArgKind::Fixed(_) => {
                    single()?;
                }
                ArgKind::Repeated { type_attr, number_attr } => {
                    set(&mut attr, number_attr, attrs::int(tensors.len() as i64));
                    if let (Some(t), Some((_, d))) = (type_attr, tensors.first()) {
                        set(&mut attr, t, attrs::dtype(*d));
                    }
                }
                ArgKind::TypeList(t) => {
                    set(&mut attr, t, attrs::dtypes(tensors.iter().map(|(_, d)| *d)))
                }
            }
            input.extend(tensors.iter().map(|(r, _)| r.clone()));
        }
        let name = self.unique(hint);
        let mut refs = Vec::new();
        let mut remaining = outputs;
        for (k, arg) in sig.outputs.iter().enumerate() {
            let count = match &arg.kind {
                ArgKind::Typed(_) | ArgKind::Fixed(_) => 1,
                ArgKind::Repeated { number_attr, .. } => match attr.get(number_attr) {
                    Some(AttrValue { value: Some(Value::I(n)) }) => *n as usize,
                    _ => return Err(Error::Internal(format!("{op} needs {number_attr} given"))),
                },
                ArgKind::TypeList(t) => match attr.get(t) {
                    Some(AttrValue { value: Some(Value::List(l)) }) => l.r#type.len(),
                    _ if k + 1 == sig.outputs.len() => remaining.len(),
                    _ => return Err(Error::Internal(format!("{op} needs {t} given"))),
                },
            };
            if remaining.len() < count {
                return Err(Error::Internal(format!("{op} needs more output dtypes")));
            }
            let (mine, rest) = remaining.split_at(count);
            remaining = rest;
            match &arg.kind {
                ArgKind::Typed(t) => set(&mut attr, t, attrs::dtype(mine[0])),
                ArgKind::Repeated { type_attr: Some(t), .. } if !mine.is_empty() => {
                    set(&mut attr, t, attrs::dtype(mine[0]))
                }
                ArgKind::TypeList(t) => set(&mut attr, t, attrs::dtypes(mine.iter().copied())),
                _ => {}
            }
            refs.extend((0..count).map(|i| format!("{name}:{}:{i}", arg.name)));
        }
        if !remaining.is_empty() {
            return Err(Error::Internal(format!("{op} given too many output dtypes")));
        }
        if let Some(missing) = sig.required.iter().find(|a| !attr.contains_key(*a)) {
            return Err(Error::Internal(format!("{op} is missing its attribute {missing}")));
        }
        self.nodes.push(NodeDef { name, op: op.to_string(), input, attr, ..Default::default() });
        Ok(refs)
    }

    /// The node that produced `tensor` runs only after `node` (a control input).
    pub fn control(&mut self, tensor_node: &str, after: &str) {
        if let Some(n) = self.nodes.iter_mut().find(|n| n.name == tensor_node) {
            let dep = format!("^{after}");
            if !n.input.contains(&dep) {
                n.input.push(dep);
            }
        }
    }

    /// The name of the node last emitted.
    pub fn last(&self) -> &str {
        self.nodes.last().map_or("", |n| n.name.as_str())
    }

    pub fn constant(&mut self, t: &Tensor, hint: &str) -> Result<TensorRef> {
        let proto = tensor_proto::to_proto(t)?;
        let out = self.op(
            "Const",
            hint,
            &[],
            &[attrs::enum_of(t.dtype())],
            vec![
                ("value", attrs::tensor(proto)),
                ("dtype", attrs::dtype(attrs::enum_of(t.dtype()))),
            ],
        )?;
        Ok(out[0].clone())
    }

    /// An int64 vector constant (slice bounds, which may exceed int32).
    pub fn int64s(&mut self, values: &[i64], hint: &str) -> Result<Typed> {
        let t = Tensor::from_slice(values, &[values.len()])?;
        Ok((self.constant(&t, hint)?, attrs::enum_of(DType::I64)))
    }

    /// An int32 vector constant (shapes, axes, permutations), or a scalar when `scalar`.
    pub fn ints(&mut self, values: &[i64], scalar: bool, hint: &str) -> Result<Typed> {
        let narrow: Vec<i32> = values
            .iter()
            .map(|&v| {
                i32::try_from(v)
                    .map_err(|_| unimplemented(&format!("{hint} with a size over 2^31")))
            })
            .collect::<Result<_>>()?;
        let dims: Vec<usize> = if scalar { vec![] } else { vec![narrow.len()] };
        let t = Tensor::from_slice(&narrow, &dims)?;
        Ok((self.constant(&t, hint)?, attrs::enum_of(DType::I32)))
    }
}
