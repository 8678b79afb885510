//! `Split` and `SplitV`: pieces of a tensor along one axis. The pieces' sizes are resolved from
//! the input's size when the node runs (an even split, or sizes with one -1), so a traced split
//! along a dimension the trace leaves unknown holds for every size, as TensorFlow's does.

use crate::error::{Error, Result};
use crate::ops::index::pick_slices;
use crate::ops::primitive::{
    attrs_of, from_attrs, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::ops::slicing::{self, SliceItem};
use crate::shape::Shape;
use crate::tensor::Tensor;
use serde::{Deserialize, Serialize};

/// The most pieces an axis of size 0 or of unknown size is cut into (otherwise the size bounds
/// the count).
const MAX_UNKNOWN_PIECES: usize = 1 << 16;

/// How the axis is cut.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pieces {
    /// `Split`: this many pieces of equal size.
    Even(usize),
    /// `SplitV`: these sizes, at most one of them -1 (whatever is left).
    Sizes(Vec<i64>),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Split {
    pub axis: usize,
    pub pieces: Pieces,
}

impl Split {
    /// Errors that do not depend on the size being cut.
    fn check_request(&self) -> Result<()> {
        match &self.pieces {
            Pieces::Even(0) => Err(Error::InvalidArgument(
                "Number of ways to split should be > 0, but got 0 [Op:Split]".into(),
            )),
            Pieces::Even(_) => Ok(()),
            Pieces::Sizes(sizes) => {
                let unknown = sizes.iter().filter(|&&s| s == -1).count();
                if unknown > 1 || sizes.iter().any(|&s| s < -1) {
                    return Err(Error::InvalidArgument(
                        "split sizes must be >= 0, with at most one -1 [Op:SplitV]".into(),
                    ));
                }
                Ok(())
            }
        }
    }

    /// The pieces' sizes along an axis of size `d`, with TensorFlow's errors.
    pub fn sizes(&self, d: usize) -> Result<Vec<usize>> {
        self.check_request()?;
        match &self.pieces {
            Pieces::Even(num) => {
                // An empty axis splits any number of ways; a bound keeps the outputs countable.
                if !d.is_multiple_of(*num) || (d == 0 && *num > MAX_UNKNOWN_PIECES) {
                    return Err(Error::InvalidArgument(format!(
                        "Number of ways to split should evenly divide the split dimension, but \
                         got split_dim {} (size = {d}) and num_split {num} [Op:Split]",
                        self.axis
                    )));
                }
                Ok(vec![d / num; *num])
            }
            Pieces::Sizes(requested) => {
                let given: i128 = requested.iter().filter(|&&s| s != -1).map(|&s| s as i128).sum();
                let rest = d as i128 - given;
                let has_rest = requested.contains(&-1);
                if (has_rest && rest < 0) || (!has_rest && rest != 0) {
                    return Err(Error::InvalidArgument(format!(
                        "Determined shape must either match input shape along split_dim exactly \
                         if fully specified, or be less than the size of the input along \
                         split_dim if not fully specified.  Got: {given} vs {d} [Op:SplitV]"
                    )));
                }
                // Every size is now between 0 and d.
                Ok(requested
                    .iter()
                    .map(|&s| if s == -1 { rest as usize } else { s as usize })
                    .collect())
            }
        }
    }
}

impl Split {
    /// The pieces copied out in one pass, where the whole split would be placed on a CPU (a
    /// GPU that can run strided slices keeps the decomposition, each slice placed there).
    fn on_host(&self, x: &Tensor, sizes: &[usize]) -> Result<Option<Vec<Tensor>>> {
        let placement = crate::device::place(self.tf_name(), |i| i < crate::gpu::visible_count())?;
        if !placement.device.is_cpu() {
            return Ok(None);
        }
        let values = x.host()?;
        crate::device::log(self.tf_name(), placement.device);
        let dims = x.shape().dims();
        let outer: usize = dims[..self.axis].iter().product();
        let inner: usize = dims[self.axis + 1..].iter().product();
        let d = dims[self.axis];
        let mut start = 0;
        let mut pieces = Vec::with_capacity(sizes.len());
        for &size in sizes {
            // Row r of the piece is the r-th outer slice's run of `size * inner` elements.
            let piece = crate::with_movable!(values, v => {
                pick_slices(v, outer, size * inner, |r| (r * d + start) * inner)
            });
            let mut piece_dims = dims.to_vec();
            piece_dims[self.axis] = size;
            let piece = Tensor::from_buffer_unchecked(piece, Shape::new(piece_dims));
            // Quantized values are stored as their integers: keep the dtype.
            let piece = if piece.dtype() == x.dtype() { piece } else { piece.retagged(x.dtype()) };
            pieces.push(match piece.device() == placement.device {
                true => piece,
                false => piece.to_device(placement.device)?.unwrap_or(piece),
            });
            start += size;
        }
        Ok(Some(pieces))
    }
}

impl Primitive for Split {
    fn tf_name(&self) -> &'static str {
        match self.pieces {
            Pieces::Even(_) => "Split",
            Pieces::Sizes(_) => "SplitV",
        }
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    /// Sizes known where the axis's size is; otherwise only the requested sizes.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        if self.axis >= x.rank() {
            return Err(Error::InvalidArgument(format!(
                "split axis {} is out of range for a tensor of rank {}",
                self.axis,
                x.rank()
            )));
        }
        self.check_request()?;
        let sizes: Vec<Option<usize>> = match (x.dims[self.axis], &self.pieces) {
            (Some(d), _) => self.sizes(d)?.into_iter().map(Some).collect(),
            // The number of outputs is fixed while tracing: an absurd one is refused here.
            (None, Pieces::Even(n)) if *n > MAX_UNKNOWN_PIECES => {
                return Err(Error::InvalidArgument(format!(
                    "cannot split a dimension of unknown size into {n} pieces (at most \
                     {MAX_UNKNOWN_PIECES}) [Op:Split]"
                )))
            }
            (None, Pieces::Even(n)) => vec![None; *n],
            (None, Pieces::Sizes(s)) => s.iter().map(|&s| usize::try_from(s).ok()).collect(),
        };
        Ok(sizes
            .into_iter()
            .map(|size| {
                let mut dims = x.dims.clone();
                dims[self.axis] = size;
                TensorType { dtype: x.dtype, dims }
            })
            .collect())
    }

    /// Slices of the input, each placed as an eager slice would be.
    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let x = inputs.first().ok_or_else(|| Error::Internal("input 0 is missing".into()))?;
        let d = *x.shape().dims().get(self.axis).ok_or_else(|| {
            Error::InvalidArgument(format!("split axis {} is out of range", self.axis))
        })?;
        let sizes = self.sizes(d)?;
        if let Some(pieces) = self.on_host(x, &sizes)? {
            return Ok(pieces);
        }
        let mut start = 0i64;
        let mut out = Vec::with_capacity(sizes.len());
        for size in sizes {
            let mut items = vec![slicing::FULL; x.rank()];
            let stop = start + size as i64;
            items[self.axis] = SliceItem::Range { start: Some(start), stop: Some(stop), step: 1 };
            out.push(crate::ops::strided_slice(x, &items)?);
            start = stop;
        }
        Ok(out)
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let mut upstream = vec![None; outputs.len()];
        if let Some(first) = upstream.first_mut() {
            *first = Some(g.clone());
        }
        self.gradient_of_outputs(inputs, outputs, &upstream)
    }

    /// The pieces' gradients side by side; a piece nothing flowed into contributes zeros.
    fn gradient_of_outputs(
        &self,
        _: &[Tensor],
        outputs: &[Tensor],
        upstream: &[Option<Tensor>],
    ) -> Result<Vec<Option<Tensor>>> {
        if upstream.iter().all(Option::is_none) {
            return Ok(vec![None]);
        }
        let pieces: Vec<Tensor> = outputs
            .iter()
            .zip(upstream)
            .map(|(o, g)| match g {
                Some(g) => Ok(g.clone()),
                None => crate::ops::zeros_like(o),
            })
            .collect::<Result<_>>()?;
        let refs: Vec<&Tensor> = pieces.iter().collect();
        Ok(vec![Some(crate::ops::concat(&refs, self.axis as i64)?)])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            // On a GPU its pieces are strided slices, each placed (and logged) as an eager
            // one; where the split is placed on a CPU it copies its pieces itself.
            gpu: GpuKernel::Decomposed,
            differentiable: true,
            fusable: false,
        }
    }
}

impl Decode for Split {
    fn names() -> Vec<&'static str> {
        vec!["Split", "SplitV"]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Split> {
        let split: Split = from_attrs(name, attrs)?;
        if split.tf_name() != name {
            return Err(Error::DataLoss(format!(
                "a saved {name} node holds the attributes of a {}",
                split.tf_name()
            )));
        }
        Ok(split)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    vec![
        (Op::Split(Split { axis: 0, pieces: Pieces::Even(2) }), vec![x.clone()]),
        (Op::Split(Split { axis: 1, pieces: Pieces::Sizes(vec![1, -1]) }), vec![x.clone()]),
        (Op::Split(Split { axis: 1, pieces: Pieces::Sizes(vec![0, 3]) }), vec![x]),
    ]
}

#[cfg(test)]
mod tests {
    use super::{Pieces, Split};

    #[test]
    fn sizes_follow_tensorflow() {
        let even = |n| Split { axis: 0, pieces: Pieces::Even(n) };
        let sized = |s: &[i64]| Split { axis: 0, pieces: Pieces::Sizes(s.to_vec()) };
        assert_eq!(even(3).sizes(6).unwrap(), vec![2, 2, 2]);
        assert_eq!(sized(&[1, -1, 2]).sizes(6).unwrap(), vec![1, 3, 2]);
        assert_eq!(sized(&[-1]).sizes(0).unwrap(), vec![0]);
        assert!(even(4).sizes(6).unwrap_err().to_string().contains("evenly divide"));
        assert!(even(0).sizes(6).is_err());
        assert!(sized(&[3, 3]).sizes(4).unwrap_err().to_string().contains("Got: 6 vs 4"));
        assert!(sized(&[5, -1]).sizes(4).is_err());
        assert!(sized(&[-1, -1]).sizes(4).is_err());
        assert!(sized(&[-2, 6]).sizes(4).is_err());
        assert!(sized(&[i64::MAX, i64::MAX, -1]).sizes(4).is_err());
    }
}
