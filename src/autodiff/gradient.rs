//! The values a backward pass carries: dense tensors, or the rows of a gather's params that
//! received gradient (TensorFlow's `IndexedSlices`). A gather along axis 0 (an embedding
//! lookup, `tf.gather` of a variable) sends back only the rows it read, so a large table's
//! gradient costs the rows looked up; it stays sparse until an op's rule consumes it, and
//! reaches the caller (`GradientTape.gradient`) as `IndexedSlices`, as in TensorFlow.

use crate::autodiff::rules::select::{scatter_back, scatter_rows};
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops;
use crate::ops::index::Gather;
use crate::ops::static_shape::{shape_vector, static_dims};
use crate::tensor::Tensor;

/// A gradient: dense, or rows of `params`.
#[derive(Clone)]
pub enum Gradient {
    Dense(Tensor),
    Rows(Rows),
}

/// `values[k]` is the gradient of row `indices[k]` of `params` (rows may repeat: they sum).
#[derive(Clone)]
pub struct Rows {
    /// The gathered tensor (its shape is the dense gradient's).
    pub params: Tensor,
    /// Row numbers, rank 1 (int32 or int64, as the gather's indices).
    pub indices: Tensor,
    /// Shaped `[len(indices)] + params.shape[1:]`.
    pub values: Tensor,
}

impl Gradient {
    /// The dense tensor (repeated rows summed).
    pub fn dense(self) -> Result<Tensor> {
        match self {
            Gradient::Dense(t) => Ok(t),
            Gradient::Rows(rows) => rows.dense(),
        }
    }

    /// Two gradients of one tensor summed as TensorFlow aggregates them: rows with rows stay
    /// rows (concatenated), anything with a dense gradient becomes dense.
    pub fn sum(self, other: Gradient) -> Result<Gradient> {
        Ok(match (self, other) {
            (Gradient::Rows(a), Gradient::Rows(b)) => Gradient::Rows(a.concat(&b)?),
            (a, b) => Gradient::Dense(ops::add(&a.dense()?, &b.dense()?)?),
        })
    }
}

impl Rows {
    /// The rows a gather along axis 0 sends back for its output's gradient `g`, or None
    /// where the gather has batch axes or another axis, or params' row shape is not known
    /// statically (then the dense rule applies).
    pub fn of_gather(
        gather: &Gather,
        params: &Tensor,
        indices: &Tensor,
        g: &Tensor,
    ) -> Result<Option<Rows>> {
        if gather.axis != 0 || gather.batch_dims != 0 || params.rank() == 0 {
            return Ok(None);
        }
        let Some(row) = static_dims(params)[1..]
            .iter()
            .map(|d| d.map(|d| d as i64))
            .collect::<Option<Vec<i64>>>()
        else {
            return Ok(None);
        };
        let values = ops::reshape(g, &[&[-1i64][..], &row].concat())?;
        let indices = ops::reshape(indices, &[-1])?;
        Ok(Some(Rows { params: params.clone(), indices, values }))
    }

    pub fn dense(&self) -> Result<Tensor> {
        if let Some(dense) = scatter_rows(&self.params, &self.indices, &self.values)? {
            return Ok(dense);
        }
        let gather = Op::Gather(Gather { axis: 0, batch_dims: 0 });
        scatter_back(&gather, &[self.params.clone(), self.indices.clone()], &self.values)
    }

    /// The dense gradient's shape, int32 (TensorFlow's `dense_shape` for a gather's rows).
    pub fn dense_shape(&self) -> Result<Tensor> {
        shape_vector(&self.params)
    }

    fn concat(&self, other: &Rows) -> Result<Rows> {
        // Mixed index dtypes meet at int64, as TensorFlow's aggregation casts them.
        let (a, b) = match self.indices.dtype() == other.indices.dtype() {
            true => (self.indices.clone(), other.indices.clone()),
            false => {
                (ops::cast(&self.indices, DType::I64)?, ops::cast(&other.indices, DType::I64)?)
            }
        };
        Ok(Rows {
            params: self.params.clone(),
            indices: ops::concat(&[&a, &b], 0)?,
            values: ops::concat(&[&self.values, &other.values], 0)?,
        })
    }
}
