//! `Assert`: raises InvalidArgumentError, with its data summarised as TensorFlow's kernel does
//! (`assertion failed: [text] [1 2 3...]`), when its boolean scalar condition is false. It
//! has no outputs: in a graph it is a node with an effect, kept by dead-code elimination and
//! run where it was traced. Text items are attributes until ferroflow has string tensors.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    attrs_of, expect_name, from_attrs, input, Arity, Attrs, Decisions, Decode, GpuKernel,
    Primitive, TensorType,
};
use crate::tensor::Tensor;
use serde::{Deserialize, Serialize};

const NAME: &str = "Assert";

/// One item of the data shown when the assertion fails.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AssertPart {
    Text(String),
    /// The next tensor input (after the condition).
    Tensor,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assert {
    pub parts: Vec<AssertPart>,
    /// Elements shown of each tensor (None: all of them).
    pub summarize: Option<usize>,
}

impl Assert {
    fn tensor_parts(&self) -> usize {
        self.parts.iter().filter(|p| matches!(p, AssertPart::Tensor)).count()
    }

    /// The failure message, as TensorFlow's Assert kernel writes it.
    fn message(&self, tensors: &[&Tensor]) -> Result<String> {
        let mut next = tensors.iter();
        let mut items = Vec::with_capacity(self.parts.len());
        for part in &self.parts {
            items.push(match part {
                AssertPart::Text(s) => format!("[{s}]"),
                AssertPart::Tensor => {
                    let t = next.next().ok_or_else(|| Error::Internal("Assert data".into()))?;
                    format!("[{}]", summarize_value(t, self.summarize)?)
                }
            });
        }
        Ok(format!("assertion failed: {}", items.join(" ")))
    }
}

/// TensorFlow's `SummarizeValue`: the first `limit` elements in the tensor's nesting, `...`
/// where the rest are cut (`[[0 1 2...]...]`).
pub fn summarize_value(t: &Tensor, limit: Option<usize>) -> Result<String> {
    let items = element_texts(t.host()?);
    let limit = limit.unwrap_or(items.len()).min(items.len());
    let dims = t.shape().dims();
    if dims.is_empty() {
        return Ok(items.first().cloned().unwrap_or_default());
    }
    let mut out = String::new();
    let mut index = 0;
    one_dim(&mut out, dims, &items, limit, &mut index);
    Ok(out)
}

fn one_dim(out: &mut String, dims: &[usize], items: &[String], limit: usize, index: &mut usize) {
    let Some((&count, inner)) = dims.split_first() else { return };
    if inner.is_empty() {
        for i in 0..count {
            if *index >= limit {
                out.push_str("...");
                return;
            }
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&items[*index]);
            *index += 1;
        }
        return;
    }
    for _ in 0..count {
        if *index >= limit {
            out.push_str("...");
            return;
        }
        out.push('[');
        one_dim(out, inner, items, limit, index);
        out.push(']');
    }
}

fn element_texts(buffer: &Buffer) -> Vec<String> {
    match buffer {
        Buffer::Bool(v) => v.iter().map(|&b| u8::from(b).to_string()).collect(),
        Buffer::F32(v) => v.iter().map(|x| x.to_string()).collect(),
        Buffer::F64(v) => v.iter().map(|x| x.to_string()).collect(),
        Buffer::Str(v) => v.iter().map(|s| crate::tstring::c_escape(s.as_bytes())).collect(),
        other => crate::with_movable!(other, v => v.iter().map(|x| format!("{x:?}")).collect()),
    }
}

impl Primitive for Assert {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1 + self.tensor_parts())
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    /// No outputs; the condition must be a boolean scalar.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let condition = input(inputs, 0)?;
        if condition.dtype != DType::Bool {
            return Err(Error::InvalidArgument(format!(
                "an assertion's condition must be bool, got {} [Op:{NAME}]",
                condition.dtype
            )));
        }
        if condition.rank() != 0 {
            return Err(Error::InvalidArgument(format!(
                "In[0] is not a scalar: {} [Op:{NAME}]",
                crate::ops::primitive::describe_dims(&condition.dims)
            )));
        }
        Ok(Vec::new())
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let (condition, data) =
            inputs.split_first().ok_or_else(|| Error::Internal("no condition".into()))?;
        self.infer(&[TensorType::of(condition)])?;
        if condition.to_vec::<bool>()?.first() == Some(&true) {
            return Ok(Vec::new());
        }
        Err(Error::InvalidArgument(self.message(data)?))
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            // No device work: it reads the flag, and the data only to report a failure, so a
            // passing check on GPU values copies one scalar back, not the data.
            gpu: GpuKernel::Decomposed,
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for Assert {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Assert> {
        expect_name(name, NAME)?;
        from_attrs(name, attrs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let parts = vec![AssertPart::Text("x is".into()), AssertPart::Tensor];
    let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    vec![(Op::Assert(Assert { parts, summarize: Some(3) }), vec![Tensor::scalar(true), x])]
}

#[cfg(test)]
mod tests {
    use super::{summarize_value, Assert, AssertPart};
    use crate::ops::primitive::Primitive;
    use crate::tensor::Tensor;

    /// TensorFlow 2.21's Assert kernel text for the same data.
    #[test]
    fn failures_summarise_as_tensorflow() {
        let row = Tensor::from_slice(&[1i32, 2, 3, 4, 5, 6, 7], &[7]).unwrap();
        let grid: Vec<f32> = (0..12).map(|i| i as f32).collect();
        let grid = Tensor::from_slice(&grid, &[3, 4]).unwrap();
        let small = Tensor::from_slice(&[1.5f32, 2.25], &[1, 2]).unwrap();
        assert_eq!(summarize_value(&row, Some(3)).unwrap(), "1 2 3...");
        assert_eq!(summarize_value(&grid, Some(3)).unwrap(), "[0 1 2...]...");
        assert_eq!(summarize_value(&small, Some(3)).unwrap(), "[1.5 2.25]");
        assert_eq!(summarize_value(&Tensor::scalar(true), Some(3)).unwrap(), "1");
        let parts = vec![AssertPart::Text("hello".into()), AssertPart::Tensor, AssertPart::Tensor];
        let check = Assert { parts, summarize: Some(3) };
        let err = check.cpu(&[&Tensor::scalar(false), &row, &grid]).unwrap_err().to_string();
        assert!(err.contains("assertion failed: [hello] [1 2 3...] [[0 1 2...]...]"), "{err}");
        assert!(check.cpu(&[&Tensor::scalar(true), &row, &grid]).unwrap().is_empty());
        let not_scalar = Tensor::from_slice(&[true, false], &[2]).unwrap();
        assert!(check.cpu(&[&not_scalar, &row, &grid]).is_err());
    }
}
