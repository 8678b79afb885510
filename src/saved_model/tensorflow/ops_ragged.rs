//! The ops TensorFlow writes to turn split tokens into a dense batch (Keras's
//! `TextVectorization`, `tf.strings.split(...).to_tensor()`): `Size`, `Cumsum`/`Cumprod`
//! (row splits from row lengths), `DenseBincount` (row lengths from row ids) and
//! `RaggedTensorToTensor` for one ragged dimension over flat values.

use super::op_call::{one, OpCall};
use super::run_function::Value;
use crate::error::Result;
use crate::ops::reduce::CumOp;
use crate::ops::{self};
use crate::tensor::Tensor;

/// The most elements these ops build: sizes come from the file, and TensorFlow refuses
/// shapes past its own limits rather than allocating them.
const MAX_ELEMENTS: usize = 1 << 31;

fn bounded(c: &OpCall, count: Option<usize>) -> Result<usize> {
    count.filter(|&n| n <= MAX_ELEMENTS).ok_or_else(|| {
        crate::error::Error::ResourceExhausted(format!(
            "node '{}' ({}) asks for more than {MAX_ELEMENTS} elements",
            c.name(),
            c.op()
        ))
    })
}

pub fn run(c: &OpCall) -> Result<Option<Vec<Value>>> {
    match c.op() {
        "Size" => {
            c.arity(1)?;
            let n = c.tensor(0)?.num_elements() as i64;
            let size = Tensor::scalar(n);
            one(ops::cast(&size, c.attrs.dtype_of("out_type")?)?)
        }
        "Cumsum" | "Cumprod" => {
            c.arity(2)?;
            let op = if c.op() == "Cumsum" { CumOp::Sum } else { CumOp::Prod };
            let (exclusive, reverse) = (c.attrs.bool("exclusive")?, c.attrs.bool("reverse")?);
            one(ops::cumulative(op, c.tensor(0)?, c.int(1)?, exclusive, reverse)?)
        }
        "DenseBincount" => {
            c.eager_only()?;
            one(dense_bincount(c)?)
        }
        "RaggedTensorToTensor" => {
            c.eager_only()?;
            one(ragged_to_tensor(c)?)
        }
        _ => Ok(None),
    }
}

/// Counts of each value of a vector below `size`, in the weights' dtype. Weights and
/// `binary_output` are left to a later version: they are `UnimplementedError`.
fn dense_bincount(c: &OpCall) -> Result<Tensor> {
    c.arity(3)?;
    let (input, weights) = (c.tensor(0)?, c.tensor(2)?);
    if input.rank() != 1 {
        return Err(c.unsupported("input rank", input.rank()));
    }
    if weights.num_elements() != 0 {
        return Err(c.unsupported("weights", weights.shape().to_string()));
    }
    if c.attrs.bool("binary_output")? {
        return Err(c.unsupported("binary_output", true));
    }
    let size = usize::try_from(c.int(1)?).map_err(|_| c.invalid("size must be non-negative"))?;
    let size = bounded(c, Some(size))?;
    let mut counts = vec![0i64; size];
    for v in c.ints(0)? {
        let v = usize::try_from(v).map_err(|_| c.invalid("Input arr must be non-negative!"))?;
        if let Some(n) = counts.get_mut(v) {
            *n += 1;
        }
    }
    ops::cast(&Tensor::from_slice(&counts, &[size])?, weights.dtype())
}

/// A ragged tensor of one ragged dimension as a dense `[rows, columns]` tensor: rows beyond
/// the requested shape dropped, short rows padded with the default value. Its rows come as
/// `FIRST_DIM_SIZE` + `VALUE_ROWIDS` (what `tf.strings.split` builds) or `ROW_SPLITS`.
fn ragged_to_tensor(c: &OpCall) -> Result<Tensor> {
    let types: Vec<String> = match c.attrs.value("row_partition_types")? {
        crate::proto::tensorflow::attr_value::Value::List(l) => {
            l.s.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect()
        }
        _ => return Err(c.invalid("has no row_partition_types")),
    };
    let values = c.tensor(1)?;
    let default = c.tensor(2)?;
    if values.rank() != 1 || default.rank() != 0 {
        return Err(c.unsupported("values/default rank", (values.rank(), default.rank())));
    }
    let n = values.num_elements();
    let (rows, row_of): (usize, Vec<usize>) =
        match types.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
            ["FIRST_DIM_SIZE", "VALUE_ROWIDS"] => {
                c.arity(5)?;
                let rows =
                    usize::try_from(c.int(3)?).map_err(|_| c.invalid("a negative row count"))?;
                let rows = bounded(c, Some(rows))?;
                let ids = c.ints(4)?;
                if ids.len() != n || ids.windows(2).any(|w| w[0] > w[1]) {
                    return Err(c.invalid("value_rowids must be sorted, one per value"));
                }
                let ids = ids.iter().map(|&r| usize::try_from(r).ok().filter(|&r| r < rows));
                (
                    rows,
                    ids.collect::<Option<Vec<_>>>()
                        .ok_or_else(|| c.invalid("a row id out of range"))?,
                )
            }
            ["ROW_SPLITS"] => {
                c.arity(4)?;
                let splits = c.ints(3)?;
                let valid = splits.first() == Some(&0)
                    && splits.last().is_some_and(|&e| e as u64 == n as u64)
                    && splits.windows(2).all(|w| w[0] <= w[1]);
                if !valid {
                    return Err(c.invalid("row_splits must rise from 0 to the number of values"));
                }
                let rows = splits.len() - 1;
                let row_of = (0..rows)
                    .flat_map(|r| std::iter::repeat_n(r, (splits[r + 1] - splits[r]) as usize));
                (rows, row_of.collect())
            }
            other => return Err(c.unsupported("row_partition_types", other)),
        };
    // The requested shape: a scalar -1 or a vector whose -1 entries are the natural sizes.
    let requested = c.ints(0)?;
    let wanted = |k: usize| requested.get(k).copied().filter(|&d| d >= 0).map(|d| d as usize);
    if c.tensor(0)?.rank() == 1 && requested.len() != 2 {
        return Err(c.invalid(format!("shape {requested:?} must have 2 dims")));
    }
    let mut lengths = vec![0usize; rows];
    for &r in &row_of {
        lengths[r] += 1;
    }
    let out_rows = wanted(0).unwrap_or(rows);
    let columns = wanted(1).unwrap_or_else(|| lengths.iter().copied().max().unwrap_or(0));
    bounded(c, out_rows.checked_mul(columns))?;
    let mut source = vec![-1i64; out_rows * columns];
    let mut position = 0usize;
    let mut previous = usize::MAX;
    for (i, &r) in row_of.iter().enumerate() {
        position = if r == previous { position + 1 } else { 0 };
        previous = r;
        if r < out_rows && position < columns {
            source[r * columns + position] = i as i64;
        }
    }
    let dims = [out_rows as i64, columns as i64];
    let filled = ops::fill(&dims, default)?;
    if n == 0 || source.is_empty() {
        return Ok(filled);
    }
    let source = Tensor::from_slice(&source, &[out_rows, columns])?;
    let zero = Tensor::scalar(0i64);
    let present = ops::binary(crate::ops::binary::BinaryOp::GreaterEqual, &source, &zero)?;
    let index = ops::binary(crate::ops::binary::BinaryOp::Maximum, &source, &zero)?;
    let gathered = ops::gather(values, &index, 0, 0)?;
    ops::select(&present, &gathered, &filled)
}
