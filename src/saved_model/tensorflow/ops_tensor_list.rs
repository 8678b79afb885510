//! TensorList ops (the variant behind TensorArrays and Keras RNN loops). A list is a value:
//! setting an item makes a new list, as TensorFlow's kernels do when the input is shared.
//! Element shapes are partial (`None` dims, or no rank at all); an item never set reads as
//! zeros when the shape is known, as in TensorFlow.

use super::op_call::{one, OpCall};
use super::run_function::Value;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops;
use crate::tensor::Tensor;

/// A partial shape: `None` is an unknown rank, a `None` dim an unknown size.
pub type PartialShape = Option<Vec<Option<usize>>>;

#[derive(Clone)]
pub struct TensorList {
    pub element_dtype: DType,
    pub element_shape: PartialShape,
    pub items: Vec<Option<Tensor>>,
}

/// Reserving more than this many elements is refused (a file could ask for 2^62).
const MAX_ELEMENTS: usize = 1 << 24;

pub fn run(c: &OpCall) -> Result<Option<Vec<Value>>> {
    let list_out = |list: TensorList| Ok(Some(vec![Value::TensorList(list)]));
    match c.op() {
        "TensorListReserve" => {
            c.arity(2)?;
            let requested = c.int(1)?;
            let count = usize::try_from(requested)
                .ok()
                .filter(|&n| n <= MAX_ELEMENTS)
                .ok_or_else(|| c.invalid(format!("cannot reserve {requested} elements")))?;
            list_out(TensorList {
                element_dtype: c.attrs.dtype_of("element_dtype")?,
                element_shape: partial_shape(c, 0)?,
                items: vec![None; count],
            })
        }
        "TensorListFromTensor" => {
            c.arity(2)?;
            let t = c.tensor(0)?;
            let element_shape = partial_shape(c, 1)?;
            let Some((_, element_dims)) = t.dims().split_first() else {
                return Err(c.invalid("needs a tensor of rank 1 or more"));
            };
            merge(c, &element_shape, element_dims)?;
            let items = ops::unstack(t, 0, None)?.into_iter().map(Some).collect();
            list_out(TensorList { element_dtype: t.dtype(), element_shape, items })
        }
        "TensorListGetItem" => {
            c.arity(3)?;
            let list = typed_list(c)?;
            let index = position(c, list, c.int(1)?)?;
            match &list.items[index] {
                Some(t) => one(t.clone()),
                None => {
                    let dims = known_dims(c, list, &partial_shape(c, 2)?)?;
                    one(ops::zeros(&dims, list.element_dtype)?)
                }
            }
        }
        "TensorListSetItem" => {
            c.arity(3)?;
            let mut list = typed_list(c)?.clone();
            let (index, item) = (c.int(1)?, c.tensor(2)?);
            if item.dtype() != list.element_dtype {
                return Err(c.invalid(format!(
                    "item of dtype {} set in a list of {}",
                    item.dtype(),
                    list.element_dtype
                )));
            }
            merge(c, &list.element_shape, item.dims())?;
            let grow = c.attrs.bool("resize_if_index_out_of_bounds")?;
            if grow && index >= 0 && (index as u64) < MAX_ELEMENTS as u64 {
                let needed = index as usize + 1;
                if list.items.len() < needed {
                    list.items.resize(needed, None);
                }
            }
            let index = position(c, &list, index)?;
            list.items[index] = Some(item.clone());
            list_out(list)
        }
        "TensorListStack" => {
            c.arity(2)?;
            let list = typed_list(c)?;
            let expected = c.attrs.int("num_elements")?;
            if expected != -1 && expected as u64 != list.items.len() as u64 {
                return Err(c.invalid(format!(
                    "Operation expected a list with {expected} elements but got a list with {} \
                     elements",
                    list.items.len()
                )));
            }
            one(stack(c, list)?)
        }
        "TensorListLength" => {
            c.arity(1)?;
            let length =
                i32::try_from(c.list(0)?.items.len()).map_err(|_| c.invalid("too long"))?;
            one(Tensor::scalar(length))
        }
        "TensorListElementShape" => {
            c.arity(1)?;
            let dims: Vec<i64> = match &c.list(0)?.element_shape {
                None => vec![-1],
                Some(dims) => dims.iter().map(|d| d.map_or(-1, |d| d as i64)).collect(),
            };
            let unknown_rank = c.list(0)?.element_shape.is_none();
            let rank = [dims.len()];
            let t = Tensor::from_slice(&dims, if unknown_rank { &[] } else { &rank })?;
            match c.attrs.dtype_of("shape_type")? {
                dtype @ (DType::I32 | DType::I64) => one(ops::cast(&t, dtype)?),
                other => Err(c.unsupported("shape_type", other)),
            }
        }
        _ => Ok(None),
    }
}

/// Input 0 as a list whose dtype is the node's `element_dtype`.
fn typed_list<'a>(c: &'a OpCall) -> Result<&'a TensorList> {
    let list = c.list(0)?;
    let dtype = c.attrs.dtype_of("element_dtype")?;
    if list.element_dtype != dtype {
        return Err(c.invalid(format!(
            "Invalid data types; op elements {dtype} but list elements {}",
            list.element_dtype
        )));
    }
    Ok(list)
}

fn position(c: &OpCall, list: &TensorList, index: i64) -> Result<usize> {
    usize::try_from(index).ok().filter(|&i| i < list.items.len()).ok_or_else(|| {
        c.invalid(format!("index {index} is out of a list of {} elements", list.items.len()))
    })
}

/// An element-shape input: a scalar -1 (unknown rank) or a vector with -1 for unknown dims.
fn partial_shape(c: &OpCall, i: usize) -> Result<PartialShape> {
    let values = c.ints(i)?;
    if c.tensor(i)?.rank() == 0 {
        return match values.as_slice() {
            [-1] => Ok(None),
            _ => Err(c.invalid(format!("element shape {values:?} is a scalar other than -1"))),
        };
    }
    values
        .iter()
        .map(|&d| match d {
            -1 => Ok(None),
            d => usize::try_from(d).map(Some).map_err(|_| c.invalid(format!("bad dim {d}"))),
        })
        .collect::<Result<_>>()
        .map(Some)
}

/// Checks that `dims` fits `shape`.
fn merge(c: &OpCall, shape: &PartialShape, dims: &[usize]) -> Result<()> {
    let Some(shape) = shape else { return Ok(()) };
    let fits =
        shape.len() == dims.len() && shape.iter().zip(dims).all(|(s, d)| s.is_none_or(|s| s == *d));
    if !fits {
        return Err(c.invalid(format!("shape {dims:?} does not fit the list's {shape:?}")));
    }
    Ok(())
}

/// The element dims from the list's shape and the node's, each filling the other's unknowns;
/// an error when some stay unknown (TensorFlow cannot make zeros of an unknown shape either).
fn known_dims(c: &OpCall, list: &TensorList, other: &PartialShape) -> Result<Vec<i64>> {
    let merged: Option<Vec<Option<usize>>> = match (&list.element_shape, other) {
        (None, s) | (s, None) => s.clone(),
        (Some(a), Some(b)) => {
            if a.len() != b.len() {
                return Err(c.invalid(format!("element shapes {a:?} and {b:?} differ in rank")));
            }
            Some(a.iter().zip(b).map(|(x, y)| x.or(*y)).collect())
        }
    };
    merged
        .and_then(|dims| dims.into_iter().map(|d| d.map(|d| d as i64)).collect::<Option<Vec<_>>>())
        .ok_or_else(|| {
            c.invalid("an element was never set and the element shape is not fully defined")
        })
}

fn stack(c: &OpCall, list: &TensorList) -> Result<Tensor> {
    let requested = partial_shape(c, 1)?;
    // Unset items (and an empty list) need the element shape: from the list and the node,
    // else from the first item that was set.
    let zeros_dims = || -> Result<Vec<i64>> {
        known_dims(c, list, &requested).or_else(|e| {
            let first = list.items.iter().flatten().next().ok_or(e)?;
            Ok(first.dims().iter().map(|&d| d as i64).collect())
        })
    };
    if list.items.is_empty() {
        let mut dims = vec![0];
        dims.extend(zeros_dims()?);
        return ops::zeros(&dims, list.element_dtype);
    }
    let filler = match list.items.iter().any(Option::is_none) {
        true => Some(ops::zeros(&zeros_dims()?, list.element_dtype)?),
        false => None,
    };
    let items: Vec<&Tensor> = list
        .items
        .iter()
        .map(|t| t.as_ref().or(filler.as_ref()))
        .collect::<Option<_>>()
        .ok_or_else(|| c.invalid("unset element"))?;
    ops::stack(&items, 0)
}
