//! A saved node's attributes, with the defaults TensorFlow stripped on saving filled back in
//! from the op's `OpDef` (the MetaGraph's `stripped_op_list`), and the flat position of a
//! named output (`node:out_arg:index` references name an output argument, and an argument of
//! a list or counted type stands for several tensors).

use crate::error::{Error, Result};
use crate::proto::tensorflow::{attr_value, AttrValue, NodeDef, OpDef};
use std::collections::HashMap;

pub struct NodeAttrs<'a> {
    pub node: &'a NodeDef,
    op_def: Option<&'a OpDef>,
}

impl<'a> NodeAttrs<'a> {
    pub fn new(node: &'a NodeDef, op_defs: &'a HashMap<String, OpDef>) -> NodeAttrs<'a> {
        NodeAttrs { node, op_def: op_defs.get(&node.op) }
    }

    pub fn get(&self, name: &str) -> Option<&'a AttrValue> {
        self.node
            .attr
            .get(name)
            .or_else(|| self.op_def?.attr.iter().find(|a| a.name == name)?.default_value.as_ref())
            .or_else(|| super::registry_defaults::default(&self.node.op, name))
    }

    fn missing(&self, name: &str) -> Error {
        Error::InvalidArgument(format!(
            "NodeDef '{}' ({}) is missing attr '{name}'",
            self.node.name, self.node.op
        ))
    }

    pub fn value(&self, name: &str) -> Result<&'a attr_value::Value> {
        self.get(name).and_then(|a| a.value.as_ref()).ok_or_else(|| self.missing(name))
    }

    pub fn bool(&self, name: &str) -> Result<bool> {
        match self.value(name)? {
            attr_value::Value::B(b) => Ok(*b),
            _ => Err(self.missing(name)),
        }
    }

    pub fn int(&self, name: &str) -> Result<i64> {
        match self.value(name)? {
            attr_value::Value::I(i) => Ok(*i),
            _ => Err(self.missing(name)),
        }
    }

    pub fn string(&self, name: &str) -> Result<String> {
        match self.value(name)? {
            attr_value::Value::S(s) => Ok(String::from_utf8_lossy(s).into_owned()),
            _ => Err(self.missing(name)),
        }
    }

    pub fn dtype(&self, name: &str) -> Result<i32> {
        match self.value(name)? {
            attr_value::Value::Type(t) => Ok(*t),
            _ => Err(self.missing(name)),
        }
    }

    /// A `list(int)` attribute (strides, ksize, squeeze_dims...).
    pub fn ints(&self, name: &str) -> Result<Vec<i64>> {
        match self.value(name)? {
            attr_value::Value::List(list) => Ok(list.i.clone()),
            _ => Err(self.missing(name)),
        }
    }

    /// A `type` attribute as ferroflow's dtype.
    pub fn dtype_of(&self, name: &str) -> Result<crate::dtype::DType> {
        let value = u32::try_from(self.dtype(name)?).map_err(|_| self.missing(name))?;
        crate::dtype::DType::from_enum(value)
    }

    /// A `list(func)` attribute (`Case`'s branches): the functions' names.
    pub fn functions(&self, name: &str) -> Result<Vec<&'a str>> {
        match self.value(name)? {
            attr_value::Value::List(list) => {
                Ok(list.func.iter().map(|f| f.name.as_str()).collect())
            }
            _ => Err(self.missing(name)),
        }
    }

    pub fn function(&self, name: &str) -> Result<&'a str> {
        match self.value(name)? {
            attr_value::Value::Func(f) => Ok(&f.name),
            _ => Err(self.missing(name)),
        }
    }

    /// The flat output position of output argument `arg`'s `index`-th tensor.
    pub fn output_position(&self, arg: &str, index: usize) -> Result<usize> {
        let Some(op_def) = self.op_def else {
            // Without an OpDef (a function call, or an op TensorFlow left out of the op list
            // because only a branch uses it), `arg:i` is taken as output i: right for calls and
            // for every op of the table, each of which has a single output argument. An op with
            // several output arguments must not join the table without its output layout.
            return Ok(index);
        };
        let mut start: usize = 0;
        for output in &op_def.output_arg {
            if output.name == arg {
                return start.checked_add(index).ok_or_else(|| self.missing(arg));
            }
            start = start.checked_add(self.arg_length(output)?).ok_or_else(|| self.missing(arg))?;
        }
        Err(Error::InvalidArgument(format!(
            "NodeDef '{}' ({}) has no output '{arg}'",
            self.node.name, self.node.op
        )))
    }

    /// How many tensors an argument stands for: one, `number_attr` of them, or one per type
    /// of its `type_list_attr`.
    fn arg_length(&self, arg: &crate::proto::tensorflow::op_def::ArgDef) -> Result<usize> {
        if !arg.number_attr.is_empty() {
            return usize::try_from(self.int(&arg.number_attr)?)
                .map_err(|_| self.missing(&arg.number_attr));
        }
        if !arg.type_list_attr.is_empty() {
            return match self.value(&arg.type_list_attr)? {
                attr_value::Value::List(list) => Ok(list.r#type.len()),
                _ => Err(self.missing(&arg.type_list_attr)),
            };
        }
        Ok(1)
    }
}
