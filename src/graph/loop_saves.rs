//! How a `While` keeps values of every iteration for its gradient, as TensorFlow's while_v2
//! accumulators do. The body returns the values to keep after the next loop variables; the
//! node's outputs are the final loop variables, then the number of iterations run (int32),
//! then each kept value's stack. The backward loop reads iteration t's values back
//! (`Saved::at`) instead of running the body again: random and other stateful ops in the body
//! are seen by the gradient with the numbers the forward pass used, and nothing is computed
//! twice.

use super::ir::Graph;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops;
use crate::ops::primitive::TensorType;
use crate::ops::shape_input::ShapeArg;
use crate::tensor::Tensor;

/// How one kept value's iterations are stacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Saved {
    /// A value of fully known shape: one output, the values on a new leading axis.
    Stacked,
    /// A value whose shape may change between iterations (a TensorArray's growing buffer):
    /// three outputs, the values flattened one after another into a vector, an int32 matrix
    /// of their shapes and an int32 vector of where each starts.
    Flat,
}

impl Saved {
    /// The layout for a value of these static dims.
    pub fn for_dims(dims: &[Option<usize>]) -> Saved {
        match dims.iter().all(Option::is_some) {
            true => Saved::Stacked,
            false => Saved::Flat,
        }
    }

    /// How many node outputs hold the stack.
    pub fn width(self) -> usize {
        match self {
            Saved::Stacked => 1,
            Saved::Flat => 3,
        }
    }

    /// The stack's output types for a kept value of type `value`.
    pub fn types(self, value: &TensorType) -> Vec<TensorType> {
        match self {
            Saved::Stacked => {
                let dims = [vec![None], value.dims.clone()].concat();
                vec![TensorType { dtype: value.dtype, dims }]
            }
            Saved::Flat => vec![
                TensorType { dtype: value.dtype, dims: vec![None] },
                TensorType { dtype: DType::I32, dims: vec![None, Some(value.dims.len())] },
                TensorType { dtype: DType::I32, dims: vec![None] },
            ],
        }
    }

    /// The value kept at iteration `step` (an int32 scalar) from this stack's outputs.
    pub fn at(self, stack: &[Tensor], step: &Tensor) -> Result<Tensor> {
        match self {
            Saved::Stacked => ops::gather(&stack[0], step, 0, 0),
            Saved::Flat => {
                let shape = ops::gather(&stack[1], step, 0, 0)?;
                let start = ops::gather(&stack[2], step, 0, 0)?;
                let size = ops::reduce(ops::ReduceOp::Prod, &shape, None, false)?;
                let end = ops::add(&start, &size)?;
                let range = ops::range(&start, &end, &Tensor::scalar(1i32))?;
                let values = ops::gather(&stack[0], &range, 0, 0)?;
                ShapeArg::Traced(shape).apply(&[&values], |dims| {
                    Ok(crate::dispatch::Op::Reshape(crate::ops::shape_ops::Reshape(dims.to_vec())))
                })
            }
        }
    }
}

/// A `While`'s output types: its loop variables', then (when it keeps values) the iteration
/// count and each kept value's stack. `body` returns the kept values after the next vars.
pub fn output_types(body: &Graph, loop_vars: usize, saved: &[Saved]) -> Vec<TensorType> {
    let mut types: Vec<TensorType> =
        body.outputs[..loop_vars].iter().map(|v| body.info(*v).clone()).collect();
    if !saved.is_empty() {
        types.push(TensorType { dtype: DType::I32, dims: vec![] });
    }
    for (how, v) in saved.iter().zip(&body.outputs[loop_vars..]) {
        types.extend(how.types(body.info(*v)));
    }
    types
}

/// Gathers the kept values while a `While` runs, then stacks them into its extra outputs.
pub struct Keeper<'a> {
    saved: &'a [Saved],
    types: Vec<&'a TensorType>,
    iterations: Vec<Vec<Tensor>>,
}

impl<'a> Keeper<'a> {
    pub fn new(body: &'a Graph, loop_vars: usize, saved: &'a [Saved]) -> Result<Keeper<'a>> {
        if body.outputs.len() != loop_vars + saved.len() {
            return Err(Error::InvalidArgument(format!(
                "a while loop keeping {} values needs a body with {} outputs, got {} (a damaged \
                 saved graph?)",
                saved.len(),
                loop_vars + saved.len(),
                body.outputs.len()
            )));
        }
        let types = body.outputs[loop_vars..].iter().map(|v| body.info(*v)).collect();
        Ok(Keeper { saved, types, iterations: Vec::new() })
    }

    /// One iteration's kept values (the body's outputs after the loop variables).
    pub fn keep(&mut self, values: Vec<Tensor>) {
        if !self.saved.is_empty() {
            self.iterations.push(values);
        }
    }

    /// The count and the stacks (nothing when the loop keeps no values).
    pub fn finish(self) -> Result<Vec<Tensor>> {
        if self.saved.is_empty() {
            return Ok(Vec::new());
        }
        let count = i32::try_from(self.iterations.len()).map_err(|_| {
            Error::ResourceExhausted("a while loop ran over 2^31 iterations".into())
        })?;
        let mut out = vec![Tensor::scalar(count)];
        for (k, (how, ty)) in self.saved.iter().zip(&self.types).enumerate() {
            let values: Vec<&Tensor> = self.iterations.iter().map(|it| &it[k]).collect();
            out.extend(stack(*how, ty, &values)?);
        }
        Ok(out)
    }
}

fn stack(how: Saved, ty: &TensorType, values: &[&Tensor]) -> Result<Vec<Tensor>> {
    match how {
        Saved::Stacked if values.is_empty() => {
            let mut dims = vec![0i64];
            for d in &ty.dims {
                dims.push(
                    d.ok_or_else(|| Error::Internal("stacked value of unknown size".into()))?
                        as i64,
                );
            }
            Ok(vec![ops::zeros(&dims, ty.dtype)?])
        }
        // Host rows are handed over as they are and the backward loop reads each one back;
        // only where no tape watches: a graph run under an eager tape records its ops one by
        // one, and a tape must see the stack made from the values it keeps.
        Saved::Stacked => {
            let rows: Vec<Tensor> = values.iter().map(|v| (*v).clone()).collect();
            let stack = match crate::autodiff::tape::any_active() {
                true => None,
                false => Tensor::stack_rows(&rows),
            };
            match stack {
                Some(stack) => Ok(vec![stack]),
                None => Ok(vec![ops::stack(values, 0)?]),
            }
        }
        Saved::Flat => {
            let rank = ty.dims.len();
            let mut shapes = Vec::with_capacity(values.len() * rank);
            let mut starts = Vec::with_capacity(values.len());
            let mut start = 0usize;
            for v in values {
                starts.push(index_i32(start)?);
                for &d in v.shape().dims() {
                    shapes.push(index_i32(d)?);
                }
                start += v.num_elements();
            }
            let flat: Vec<Tensor> =
                values.iter().map(|v| ops::reshape(v, &[-1])).collect::<Result<_>>()?;
            let flat = match flat.is_empty() {
                true => ops::zeros(&[0], ty.dtype)?,
                false => ops::concat(&flat.iter().collect::<Vec<_>>(), 0)?,
            };
            Ok(vec![
                flat,
                Tensor::from_slice(&shapes, &[values.len(), rank])?,
                Tensor::from_slice(&starts, &[values.len()])?,
            ])
        }
    }
}

fn index_i32(n: usize) -> Result<i32> {
    i32::try_from(n)
        .map_err(|_| Error::ResourceExhausted("a while loop kept over 2^31 elements".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::CpuScope;

    #[test]
    fn values_whose_shapes_change_are_read_back_from_a_flat_stack() {
        let _cpu = CpuScope::new();
        let ty = TensorType { dtype: DType::F32, dims: vec![None] };
        let a = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let b = Tensor::from_slice(&[3.0f32, 4.0, 5.0], &[3]).unwrap();
        let stack = stack(Saved::Flat, &ty, &[&a, &b]).unwrap();
        assert_eq!(stack[0].to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(stack[1].to_vec::<i32>().unwrap(), vec![2, 3]);
        assert_eq!(stack[2].to_vec::<i32>().unwrap(), vec![0, 2]);
        let second = Saved::Flat.at(&stack, &Tensor::scalar(1i32)).unwrap();
        assert_eq!(second.dims(), &[3]);
        assert_eq!(second.to_vec::<f32>().unwrap(), vec![3.0, 4.0, 5.0]);
        let first = Saved::Flat.at(&stack, &Tensor::scalar(0i32)).unwrap();
        assert_eq!(first.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
    }

    #[test]
    fn host_rows_are_stacked_without_copying_and_read_back_as_themselves() {
        let _cpu = CpuScope::new();
        let ty = TensorType { dtype: DType::F32, dims: vec![Some(2)] };
        let rows = [
            Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap(),
            Tensor::from_slice(&[3.0f32, 4.0], &[2]).unwrap(),
        ];
        let stack = stack(Saved::Stacked, &ty, &[&rows[0], &rows[1]]).unwrap();
        assert_eq!(stack[0].dims(), &[2, 2]);
        let second = Saved::Stacked.at(&stack, &Tensor::scalar(1i32)).unwrap();
        assert!(second.shares_storage(&rows[1]));
        assert_ne!(second.id(), rows[1].id());
        // Any other reader sees the rows one after another.
        assert_eq!(stack[0].to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
        let doubled = ops::add(&stack[0], &stack[0]).unwrap();
        assert_eq!(doubled.to_vec::<f32>().unwrap(), vec![2.0, 4.0, 6.0, 8.0]);
        // Seen under another shape, a row is no longer a kept tensor: the gather copies.
        let flat = ops::reshape(&stack[0], &[4]).unwrap();
        let third = ops::gather(&flat, &Tensor::scalar(2i32), 0, 0).unwrap();
        assert_eq!(third.to_vec::<f32>().unwrap(), vec![3.0]);
        let out_of_range = ops::gather(&stack[0], &Tensor::scalar(2i32), 0, 0);
        assert!(matches!(out_of_range, Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn rows_of_different_shapes_or_dtypes_are_stacked_by_copying() {
        let _cpu = CpuScope::new();
        let a = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
        let b = Tensor::from_slice(&[3.0f32], &[1]).unwrap();
        let c = Tensor::from_slice(&[3i32, 4], &[2]).unwrap();
        assert!(Tensor::stack_rows(&[a.clone(), b]).is_none());
        assert!(Tensor::stack_rows(&[a.clone(), c]).is_none());
        assert!(Tensor::stack_rows(&[]).is_none());
        assert!(Tensor::stack_rows(&[a]).is_some());
    }

    #[test]
    fn a_loop_that_never_ran_keeps_empty_stacks_of_the_values_types() {
        let _cpu = CpuScope::new();
        let known = TensorType { dtype: DType::F32, dims: vec![Some(2), Some(3)] };
        let stacked = stack(Saved::Stacked, &known, &[]).unwrap();
        assert_eq!(stacked[0].dims(), &[0, 2, 3]);
        let unknown = TensorType { dtype: DType::F64, dims: vec![None, Some(3)] };
        let flat = stack(Saved::Flat, &unknown, &[]).unwrap();
        let dims: Vec<&[usize]> = flat.iter().map(|t| t.dims()).collect();
        assert_eq!(dims, vec![&[0][..], &[0, 2][..], &[0][..]]);
        assert_eq!(flat[0].dtype(), DType::F64);
    }
}
