//! One node about to run: its attributes, its input values, and typed access to both. Inputs
//! come from files, so every accessor checks count and kind and returns an error naming the
//! node rather than panicking.

use super::node_attrs::NodeAttrs;
use super::ops_tensor_list::TensorList;
use super::run_function::{Library, Value};
use crate::error::{Error, Result};
use crate::ops::index::index_values;
use crate::tensor::Tensor;

pub struct OpCall<'a> {
    pub attrs: &'a NodeAttrs<'a>,
    pub inputs: Vec<Value>,
    pub library: &'a Library,
    pub depth: usize,
}

impl OpCall<'_> {
    pub fn op(&self) -> &str {
        &self.attrs.node.op
    }

    pub fn name(&self) -> &str {
        &self.attrs.node.name
    }

    /// An `InvalidArgument` error naming this node.
    pub fn invalid(&self, what: impl std::fmt::Display) -> Error {
        Error::InvalidArgument(format!("node '{}' ({}): {what}", self.name(), self.op()))
    }

    /// An attribute value ferroflow does not run: `UnimplementedError` naming op and attribute.
    pub fn unsupported(&self, attr: &str, value: impl std::fmt::Debug) -> Error {
        Error::Unimplemented(format!(
            "node '{}' ({}) has {attr}={value:?}, which ferroflow cannot import yet",
            self.name(),
            self.op()
        ))
    }

    /// For ops that read their inputs' values on the host (table lookups, ragged row ids):
    /// inside a `tf.function` trace those values would be the traced call's, baked into the
    /// graph and reused on every later call, so the op refuses to be traced.
    pub fn eager_only(&self) -> Result<()> {
        if crate::graph::trace::recording() {
            return Err(Error::Unimplemented(format!(
                "node '{}' ({}) reads its inputs' values, which a tf.function trace does not \
                 have yet: call this loaded function eagerly, outside tf.function",
                self.name(),
                self.op()
            )));
        }
        Ok(())
    }

    /// Checks that the node has exactly `n` data inputs.
    pub fn arity(&self, n: usize) -> Result<()> {
        if self.inputs.len() != n {
            return Err(self.invalid(format!("takes {n} inputs, got {}", self.inputs.len())));
        }
        Ok(())
    }

    pub fn value(&self, i: usize) -> Result<&Value> {
        self.inputs.get(i).ok_or_else(|| self.invalid(format!("lacks input {i}")))
    }

    pub fn tensor(&self, i: usize) -> Result<&Tensor> {
        self.value(i)?.tensor(self.name())
    }

    /// The input tensors from `from` on (the values of a list argument).
    pub fn tensors(&self, from: usize) -> Result<Vec<&Tensor>> {
        self.inputs.iter().skip(from).map(|v| v.tensor(self.name())).collect()
    }

    pub fn list(&self, i: usize) -> Result<&TensorList> {
        match self.value(i)? {
            Value::TensorList(list) => Ok(list),
            _ => Err(self.invalid(format!("input {i} is not a TensorList"))),
        }
    }

    /// An int32/int64 input's values (shapes, axes, paddings, indices).
    pub fn ints(&self, i: usize) -> Result<Vec<i64>> {
        index_values(self.tensor(i)?, self.op())
    }

    /// An int32/int64 scalar input (an axis, an index, a count).
    pub fn int(&self, i: usize) -> Result<i64> {
        let t = self.tensor(i)?;
        match (t.rank(), self.ints(i)?.as_slice()) {
            (0, &[v]) => Ok(v),
            _ => Err(self.invalid(format!("input {i} must be a scalar, got shape {}", t.shape()))),
        }
    }
}

/// One output tensor.
pub fn one(t: Tensor) -> Result<Option<Vec<Value>>> {
    Ok(Some(vec![Value::Tensor(t)]))
}

/// Several output tensors.
pub fn many(ts: Vec<Tensor>) -> Result<Option<Vec<Value>>> {
    Ok(Some(ts.into_iter().map(Value::Tensor).collect()))
}
