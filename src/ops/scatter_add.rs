//! `TensorScatterAdd`: a tensor with updates added at indices (`tf.tensor_scatter_nd_add`).
//! Besides being TensorFlow's op, it is what the graph passes make of `x + scatter_nd(...)`
//! (`passes::scatter_add`): a loop summing one gathered row's gradient per iteration into a
//! full-sized total then adds that row in place (see `graph::executor`) instead of making a
//! dense zero tensor and adding it whole, which cost O(steps²) over a sequence.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::ops::index::{add_at, check_scatter_updates, nd_offsets};
use crate::ops::primitive::{
    expect_name, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::with_numeric;

/// Inputs: tensor, int32/int64 indices (last axis: coordinates), updates.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TensorScatterAdd {
    /// Made by `passes::scatter_add` from `x + scatter_nd(...)`: the sum must be that add's,
    /// bit for bit, where TensorFlow's own op leaves `x`'s untouched elements as they are.
    /// Adding the dense scatter's +0.0 turns every -0.0 of `x` into +0.0, so this sum does too.
    pub as_dense_add: bool,
}

const NAME: &str = "TensorScatterAdd";

/// Adds `updates` into `out` (the buffer of a `shape`, `dtype` tensor) at `indices`,
/// duplicates summed. Everything is checked before the first write: a refused call (dtypes
/// that are not numbers, mismatched shapes, an index out of range, with TensorFlow's
/// messages) changes nothing.
fn add_into(
    op: &TensorScatterAdd,
    out: &mut Buffer,
    (shape, dtype): (&Shape, DType),
    indices: &Tensor,
    updates: &Tensor,
) -> Result<()> {
    check_scatter_updates(indices.shape(), updates.shape(), shape).map_err(|e| match e {
        Error::InvalidArgument(m) => Error::InvalidArgument(m.replace("ScatterNd", NAME)),
        other => other,
    })?;
    let (offsets, slice, _) = nd_offsets(shape.dims(), indices, NAME)?;
    if updates.dtype() != dtype {
        return Err(Error::dtype_mismatch(NAME, dtype, updates.dtype()));
    }
    with_numeric!(&mut *out, o => {
        let u = Element::unwrap(updates.buffer())
            .ok_or_else(|| Error::Internal("scatter add updates dtype".into()))?;
        add_at(o, &offsets, slice, u);
    }, else return Err(Error::unsupported_dtype(NAME, dtype)));
    if op.as_dense_add {
        positive_zeros(out);
    }
    Ok(())
}

/// Every -0.0 made +0.0 (`-0.0 == 0.0`, so the test catches both and writes +0.0).
fn positive_zeros(out: &mut Buffer) {
    match out {
        Buffer::F16(d) => {
            d.iter_mut().filter(|v| **v == half::f16::ZERO).for_each(|v| *v = half::f16::ZERO)
        }
        Buffer::BF16(d) => {
            d.iter_mut().filter(|v| **v == half::bf16::ZERO).for_each(|v| *v = half::bf16::ZERO)
        }
        Buffer::F32(d) => d.iter_mut().filter(|v| **v == 0.0).for_each(|v| *v = 0.0),
        Buffer::F64(d) => d.iter_mut().filter(|v| **v == 0.0).for_each(|v| *v = 0.0),
        _ => {}
    }
}

/// `x` with `updates` added at `indices`, in a new buffer.
pub fn tensor_scatter_add(
    op: &TensorScatterAdd,
    x: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
) -> Result<Tensor> {
    let mut out = x.host()?.clone();
    add_into(op, &mut out, (x.shape(), x.dtype()), indices, updates)?;
    let sum = Tensor::from_buffer_unchecked(out, x.shape().clone());
    Ok(if sum.dtype() == x.dtype() { sum } else { sum.retagged(x.dtype()) })
}

/// The same sum written into `x`'s own memory when nothing else holds it (the graph handed
/// over its last reference); gives `x` back otherwise.
pub(crate) fn tensor_scatter_add_in_place(
    op: &TensorScatterAdd,
    x: Tensor,
    indices: &Tensor,
    updates: &Tensor,
) -> std::result::Result<Result<Tensor>, Tensor> {
    let (shape, dtype) = (x.shape().clone(), x.dtype());
    x.update_in_place(|buffer| add_into(op, buffer, (&shape, dtype), indices, updates))
}

impl Primitive for TensorScatterAdd {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(3)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (x, i, u) = (input(inputs, 0)?, input(inputs, 1)?, input(inputs, 2)?);
        if !crate::ops::index::is_index_dtype(i.dtype) {
            return Err(Error::InvalidArgument(format!(
                "indices must be int32 or int64, got {} [Op:{NAME}]",
                i.dtype
            )));
        }
        if u.dtype != x.dtype {
            return Err(Error::dtype_mismatch(NAME, x.dtype, u.dtype));
        }
        Ok(vec![x.clone()])
    }

    /// Added in one pass where the op would be placed on a CPU; elsewhere the dense scatter
    /// and the add, each placed as an eager op would be.
    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let [x, indices, updates] = inputs else {
            return Err(Error::Internal(format!("{NAME} takes 3 inputs")));
        };
        let placement = crate::device::place(NAME, |i| i < crate::gpu::visible_count())?;
        if placement.device.is_cpu() && x.dtype().is_numeric() && !x.dtype().is_quantized() {
            for t in inputs {
                t.host()?;
            }
            crate::device::log(NAME, placement.device);
            let sum = tensor_scatter_add(self, x, indices, updates)?;
            return Ok(vec![match sum.device() == placement.device {
                true => sum,
                false => sum.to_device(placement.device)?.unwrap_or(sum),
            }]);
        }
        let dims: Vec<i64> = x.shape().dims().iter().map(|&d| d as i64).collect();
        let scattered = crate::ops::scatter_nd(indices, updates, &dims)?;
        Ok(vec![crate::ops::add(x, &scattered)?])
    }

    /// The tensor's gradient passes through; each update reads it where it was added.
    fn gradient(&self, inputs: &[Tensor], _: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
        Ok(vec![Some(g.clone()), None, Some(crate::ops::gather_nd(g, &inputs[1])?)])
    }

    fn decisions(&self) -> Decisions {
        // On a GPU its parts (scatter_nd, add) run there, each placed as an eager op.
        Decisions { gpu: GpuKernel::Decomposed, differentiable: true, fusable: false }
    }
}

impl Decode for TensorScatterAdd {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, _: &Attrs) -> Result<Self> {
        expect_name(name, NAME)?;
        Ok(TensorScatterAdd { as_dense_add: false })
    }
}

/// The registry test's table.
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]).unwrap();
    let rows = Tensor::from_slice(&[2i32, 0, 2], &[3, 1]).unwrap();
    let updates = Tensor::from_slice(&[1.0f32, 1.0, 10.0, 10.0, 100.0, 100.0], &[3, 2]).unwrap();
    vec![(Op::TensorScatterAdd(TensorScatterAdd { as_dense_add: false }), vec![x, rows, updates])]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::CpuScope;

    const TF_OP: TensorScatterAdd = TensorScatterAdd { as_dense_add: false };

    #[test]
    fn rows_and_elements_are_added_duplicates_summed() {
        let _cpu = CpuScope::new();
        let (x, rows, updates) = match &registry_examples()[0].1[..] {
            [x, i, u] => (x.clone(), i.clone(), u.clone()),
            _ => unreachable!(),
        };
        let sum = tensor_scatter_add(&TF_OP, &x, &rows, &updates).unwrap();
        assert_eq!(sum.to_vec::<f32>().unwrap(), vec![11.0, 12.0, 3.0, 4.0, 106.0, 107.0]);
        let one = Tensor::from_slice(&[1i64, 1], &[1, 2]).unwrap();
        let v = Tensor::from_slice(&[0.5f32], &[1]).unwrap();
        let sum = tensor_scatter_add(&TF_OP, &x, &one, &v).unwrap();
        assert_eq!(sum.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.5, 5.0, 6.0]);
    }

    #[test]
    fn the_sole_handle_is_added_into_and_a_shared_one_is_given_back() {
        let _cpu = CpuScope::new();
        let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let row = Tensor::from_slice(&[1i32], &[1, 1]).unwrap();
        let u = Tensor::from_slice(&[1.0f32, 1.0], &[1, 2]).unwrap();
        let address = x.host().unwrap().address();
        let sum = tensor_scatter_add_in_place(&TF_OP, x, &row, &u).unwrap().unwrap();
        assert_eq!(sum.host().unwrap().address(), address);
        assert_eq!(sum.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 4.0, 5.0]);
        let held = sum.clone();
        let back = tensor_scatter_add_in_place(&TF_OP, sum, &row, &u).unwrap_err();
        assert!(back.shares_storage(&held));
        assert_eq!(held.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 4.0, 5.0]);
    }

    #[test]
    fn negative_zeros_stay_in_the_tensorflow_op_and_turn_positive_as_a_dense_add() {
        let _cpu = CpuScope::new();
        let x = Tensor::from_slice(&[-0.0f32, -0.0, -0.0, 1.0], &[2, 2]).unwrap();
        let row = Tensor::from_slice(&[0i32], &[1, 1]).unwrap();
        let u = Tensor::from_slice(&[-0.0f32, 2.0], &[1, 2]).unwrap();
        let bits =
            |t: Tensor| t.to_vec::<f32>().unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let tf = tensor_scatter_add(&TF_OP, &x, &row, &u).unwrap();
        assert_eq!(
            bits(tf),
            [(-0.0f32).to_bits(), 2.0f32.to_bits(), (-0.0f32).to_bits(), 1.0f32.to_bits()]
        );
        let dense =
            crate::ops::add(&x, &crate::ops::scatter_nd(&row, &u, &[2, 2]).unwrap()).unwrap();
        let pass_op = TensorScatterAdd { as_dense_add: true };
        assert_eq!(bits(tensor_scatter_add(&pass_op, &x, &row, &u).unwrap()), bits(dense));
    }

    #[test]
    fn bad_indices_and_updates_are_refused_without_changing_anything() {
        let _cpu = CpuScope::new();
        let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let far = Tensor::from_slice(&[2i32], &[1, 1]).unwrap();
        let u = Tensor::from_slice(&[1.0f32, 1.0], &[1, 2]).unwrap();
        let err = tensor_scatter_add_in_place(&TF_OP, x, &far, &u).unwrap().unwrap_err();
        assert!(err.to_string().contains("does not index into param shape"), "{err}");
        let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let wide = Tensor::from_slice(&[1.0f32, 1.0, 1.0], &[1, 3]).unwrap();
        let row = Tensor::from_slice(&[0i32], &[1, 1]).unwrap();
        let err = tensor_scatter_add(&TF_OP, &x, &row, &wide).unwrap_err();
        assert!(err.to_string().contains("[Op:TensorScatterAdd]"), "{err}");
        let ints = Tensor::from_slice(&[1i32, 1], &[1, 2]).unwrap();
        assert!(matches!(
            tensor_scatter_add(&TF_OP, &x, &row, &ints),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    }
}
