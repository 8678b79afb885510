//! Segment reductions, one primitive per TensorFlow op: `UnsortedSegment{Sum,Prod,Max,Min}`
//! (inputs: data, segment_ids of a shape that prefixes data's, a scalar num_segments) and the
//! sorted `Segment{Sum,Prod,Max,Min,Mean}` (inputs: data, a sorted vector of segment_ids; the
//! output has `last id + 1` rows). `cpu.rs` holds the kernels, `grad.rs` TensorFlow's
//! gradients written with ops; the GPU kernels are `gpu/kernels/segment.rs`.
//!
//! As TensorFlow's CPU kernels: unsorted ids below zero are dropped and ids at or past
//! num_segments raise; empty unsorted segments hold the reduction's identity (the dtype's
//! lowest/highest finite value for max/min), empty sorted ones 0 (1 for prod).

/// The kernels and the checks the GPU kernels share.
pub(crate) mod cpu;
mod grad;

use crate::dtype::{DType, DTypeSet};
use crate::error::{Error, Result};
use crate::ops::primitive::{
    describe_dims, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::tensor::Tensor;

/// A segment reduction; the variants are TensorFlow's op names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Segment {
    UnsortedSegmentSum,
    UnsortedSegmentProd,
    UnsortedSegmentMax,
    UnsortedSegmentMin,
    SegmentSum,
    SegmentProd,
    SegmentMax,
    SegmentMin,
    SegmentMean,
}

/// What a segment combines its rows with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentKind {
    Sum,
    Prod,
    Max,
    Min,
    /// Sorted only (TensorFlow composes the unsorted mean from sums).
    Mean,
}

use Segment::*;

const ALL: [Segment; 9] = [
    UnsortedSegmentSum,
    UnsortedSegmentProd,
    UnsortedSegmentMax,
    UnsortedSegmentMin,
    SegmentSum,
    SegmentProd,
    SegmentMax,
    SegmentMin,
    SegmentMean,
];

impl Segment {
    pub fn kind(self) -> SegmentKind {
        match self {
            UnsortedSegmentSum | SegmentSum => SegmentKind::Sum,
            UnsortedSegmentProd | SegmentProd => SegmentKind::Prod,
            UnsortedSegmentMax | SegmentMax => SegmentKind::Max,
            UnsortedSegmentMin | SegmentMin => SegmentKind::Min,
            SegmentMean => SegmentKind::Mean,
        }
    }

    pub fn sorted(self) -> bool {
        !matches!(
            self,
            UnsortedSegmentSum | UnsortedSegmentProd | UnsortedSegmentMax | UnsortedSegmentMin
        )
    }

    /// The op of `kind`, sorted or not (`None` for an unsorted mean).
    pub fn of(kind: SegmentKind, sorted: bool) -> Option<Segment> {
        ALL.into_iter().find(|s| s.kind() == kind && s.sorted() == sorted)
    }

    fn name(self) -> &'static str {
        match self {
            UnsortedSegmentSum => "UnsortedSegmentSum",
            UnsortedSegmentProd => "UnsortedSegmentProd",
            UnsortedSegmentMax => "UnsortedSegmentMax",
            UnsortedSegmentMin => "UnsortedSegmentMin",
            SegmentSum => "SegmentSum",
            SegmentProd => "SegmentProd",
            SegmentMax => "SegmentMax",
            SegmentMin => "SegmentMin",
            SegmentMean => "SegmentMean",
        }
    }

    /// The data dtypes TensorFlow registers (max and min need an order).
    fn data_dtypes(self) -> DTypeSet {
        match self.kind() {
            SegmentKind::Max | SegmentKind::Min => DTypeSet::REAL,
            _ => DTypeSet::NUMERIC,
        }
    }

    /// TensorFlow registers int16 ids for UnsortedSegmentSum only.
    fn id_dtypes(self) -> DTypeSet {
        match self {
            UnsortedSegmentSum => DTypeSet::of(&[DType::I16, DType::I32, DType::I64]),
            _ => DTypeSet::of(&[DType::I32, DType::I64]),
        }
    }
}

/// `Value for attr 'Tindices' of float is not in the list of allowed values: int32, int64`:
/// a `TypeError` while a graph is built, as TensorFlow's op definitions raise there; kernels
/// report it as the `InvalidArgumentError` TensorFlow's eager calls raise (`eager_error`).
pub(crate) fn attr_error(op: &str, attr: &str, dtype: DType, allowed: &str) -> Error {
    Error::Type(format!(
        "Value for attr '{attr}' of {} is not in the list of allowed values: {allowed}; \
         NodeDef: {{{{node {op}}}}} [Op:{op}]",
        dtype.name()
    ))
}

/// A shape rule's error as a kernel raises it (eagerly TensorFlow's dtype errors are
/// `InvalidArgumentError`s).
pub(crate) fn eager_error(e: Error) -> Error {
    match e {
        Error::Type(m) => Error::InvalidArgument(m),
        other => other,
    }
}

impl Primitive for Segment {
    fn tf_name(&self) -> &'static str {
        self.name()
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(if self.sorted() { 2 } else { 3 })
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.infer_with_values(inputs, &[])
    }

    /// A constant num_segments gives the output's first size (TensorFlow's shape function reads
    /// it); the sorted ops' first size is known only from the ids' values when the op runs.
    fn infer_with_values(
        &self,
        inputs: &[TensorType],
        values: &[Option<Vec<Option<i64>>>],
    ) -> Result<Vec<TensorType>> {
        let (data, ids) = (input(inputs, 0)?, input(inputs, 1)?);
        let name = self.name();
        if !self.data_dtypes().contains(data.dtype) {
            let allowed = match self.kind() {
                SegmentKind::Max | SegmentKind::Min => "real numbers",
                _ => "numbers",
            };
            return Err(attr_error(name, "T", data.dtype, allowed));
        }
        if !self.id_dtypes().contains(ids.dtype) {
            let allowed =
                if *self == UnsortedSegmentSum { "int16, int32, int64" } else { "int32, int64" };
            return Err(attr_error(name, "Tindices", ids.dtype, allowed));
        }
        if self.sorted() {
            if data.rank() == 0 {
                return Err(Error::InvalidArgument(format!(
                    "input must be at least rank 1 [Op:{name}]"
                )));
            }
            if ids.rank() != 1 {
                return Err(Error::InvalidArgument(format!(
                    "segment_ids should be a vector. [Op:{name}]"
                )));
            }
            // TensorFlow's shape function leaves a length mismatch to the kernel.
            let dims = std::iter::once(None).chain(data.dims[1..].iter().copied()).collect();
            return Ok(vec![TensorType { dtype: data.dtype, dims }]);
        }
        let num = input(inputs, 2)?;
        if !matches!(num.dtype, DType::I32 | DType::I64) {
            return Err(attr_error(name, "Tnumsegments", num.dtype, "int32, int64"));
        }
        if num.rank() != 0 {
            return Err(Error::InvalidArgument(format!(
                "num_segments should be a scalar, not shape {} [Op:{name}]",
                describe_dims(&num.dims)
            )));
        }
        let prefix = ids.rank() <= data.rank()
            && ids.dims.iter().zip(&data.dims).all(|(a, b)| a.zip(*b).is_none_or(|(a, b)| a == b));
        if !prefix {
            return Err(Error::InvalidArgument(format!(
                "data.shape = {} does not start with segment_ids.shape = {} [Op:{name}]",
                describe_dims(&data.dims),
                describe_dims(&ids.dims)
            )));
        }
        let rows = match values.get(2) {
            Some(Some(v)) => match v.first() {
                Some(Some(n)) if *n < 0 => {
                    return Err(Error::InvalidArgument(format!(
                        "Input num_segments == {n} must not be negative. [Op:{name}]"
                    )))
                }
                Some(Some(n)) => Some(*n as usize),
                _ => None,
            },
            _ => None,
        };
        let dims = std::iter::once(rows).chain(data.dims[ids.rank()..].iter().copied()).collect();
        Ok(vec![TensorType { dtype: data.dtype, dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.infer(&types).map_err(eager_error)?;
        if self.sorted() && inputs[0].dims()[0] != inputs[1].dims()[0] {
            return Err(Error::InvalidArgument(format!(
                "segment_ids should be the same size as dimension 0 of input. [Op:{}]",
                self.name()
            )));
        }
        let out = match self.sorted() {
            true => cpu::sorted(*self, inputs[0], inputs[1])?,
            false => cpu::unsorted(*self, inputs[0], inputs[1], inputs[2])?,
        };
        Ok(vec![out])
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let grad = grad::gradient(*self, inputs, &outputs[0], g)?;
        let mut grads = vec![Some(grad)];
        grads.resize(inputs.len(), None);
        Ok(grads)
    }

    fn decisions(&self) -> Decisions {
        Decisions { gpu: GpuKernel::Wgsl, differentiable: true, fusable: false }
    }
}

impl Decode for Segment {
    fn names() -> Vec<&'static str> {
        ALL.iter().map(|s| s.name()).collect()
    }

    fn decode(name: &str, _: &Attrs) -> Result<Self> {
        ALL.into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| Error::Internal(format!("Segment cannot decode a {name} node")))
    }
}

/// The segment reduction `op` of `data` by `ids` (and `num_segments` for the unsorted ops).
pub fn segment(op: Segment, data: &Tensor, ids: &Tensor, num: Option<&Tensor>) -> Result<Tensor> {
    let op = crate::ops::registry::Op::Segment(op);
    match num {
        Some(num) => crate::dispatch::apply1(&op, &[data, ids, num]),
        None => crate::dispatch::apply1(&op, &[data, ids]),
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let data = Tensor::from_slice(&[1.0f32, -2.0, 3.0, 0.0, 5.0, 6.0, -7.0, 8.0], &[4, 2]).unwrap();
    let unsorted = Tensor::from_slice(&[2i32, -1, 0, 2], &[4]).unwrap();
    let sorted = Tensor::from_slice(&[0i64, 0, 2, 3], &[4]).unwrap();
    let num = Tensor::scalar(4i64);
    let grid = Tensor::from_slice(&[1i16, 0, 1, 1], &[2, 2]).unwrap();
    let mut examples: Vec<(Op, Vec<Tensor>)> = ALL
        .into_iter()
        .map(|s| match s.sorted() {
            true => (Op::Segment(s), vec![data.clone(), sorted.clone()]),
            false => (Op::Segment(s), vec![data.clone(), unsorted.clone(), num.clone()]),
        })
        .collect();
    let cube: Vec<f64> = (0..12).map(|i| i as f64 - 4.0).collect();
    let cube = Tensor::from_slice(&cube, &[2, 2, 3]).unwrap();
    examples.push((Op::Segment(UnsortedSegmentSum), vec![cube, grid, Tensor::scalar(2i32)]));
    examples
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: Segment, inputs: &[&Tensor]) -> Vec<f32> {
        op.cpu(inputs).unwrap()[0].to_vec::<f32>().unwrap()
    }

    #[test]
    fn reductions_match_tensorflow() {
        let d = Tensor::from_slice(&[1.0f32, 2.0, 3.0, -4.0, 5.0, 6.0, 7.0, 8.0], &[4, 2]).unwrap();
        let ids = Tensor::from_slice(&[0i32, -1, 2, 0], &[4]).unwrap();
        let n = Tensor::scalar(3i32);
        assert_eq!(run(UnsortedSegmentSum, &[&d, &ids, &n]), [8., 10., 0., 0., 5., 6.]);
        let low = f32::MIN;
        assert_eq!(run(UnsortedSegmentMax, &[&d, &ids, &n]), [7., 8., low, low, 5., 6.]);
        assert_eq!(run(UnsortedSegmentProd, &[&d, &ids, &n]), [7., 16., 1., 1., 5., 6.]);
        let sorted = Tensor::from_slice(&[0i32, 0, 2, 2], &[4]).unwrap();
        assert_eq!(run(SegmentMax, &[&d, &sorted]), [3., 2., 0., 0., 7., 8.]);
        assert_eq!(run(SegmentMean, &[&d, &sorted]), [2., -1., 0., 0., 6., 7.]);
    }

    #[test]
    fn bad_ids_raise_as_tensorflow() {
        let d = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
        let n = Tensor::scalar(2i32);
        let far = Tensor::from_slice(&[0i32, 2, 1], &[3]).unwrap();
        let err = UnsortedSegmentSum.cpu(&[&d, &far, &n]).unwrap_err().to_string();
        assert!(err.contains("segment_ids[1] = 2 is out of range [0, 2)"), "{err}");
        let unsorted = Tensor::from_slice(&[1i32, 0, 1], &[3]).unwrap();
        let err = SegmentSum.cpu(&[&d, &unsorted]).unwrap_err().to_string();
        assert!(err.contains("segment ids are not increasing"), "{err}");
        let negative = Tensor::from_slice(&[-1i32, 0, 0], &[3]).unwrap();
        let err = SegmentSum.cpu(&[&d, &negative]).unwrap_err().to_string();
        assert!(err.contains("Segment id -1 out of range [0, 1)"), "{err}");
    }

    #[test]
    fn known_num_segments_sizes_the_output() {
        let ty = |dtype, dims: &[Option<usize>]| TensorType { dtype, dims: dims.to_vec() };
        let inputs =
            [ty(DType::F32, &[None, Some(3)]), ty(DType::I32, &[None]), ty(DType::I32, &[])];
        let loose = UnsortedSegmentSum.infer(&inputs).unwrap();
        assert_eq!(loose[0].dims, [None, Some(3)]);
        let known = [None, None, Some(vec![Some(5)])];
        let exact = UnsortedSegmentSum.infer_with_values(&inputs, &known).unwrap();
        assert_eq!(exact[0].dims, [Some(5), Some(3)]);
    }
}
