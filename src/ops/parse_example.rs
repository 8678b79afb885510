//! `ParseExampleV2` (`tf.io.parse_example`, `parse_single_example`): serialized
//! `tf.train.Example` records to TensorFlow's outputs, assembled here in one kernel so that a
//! traced parse (every `Dataset.map(parse_fn)`) is one host-only graph node that never takes
//! the GIL. Records are decoded in parallel by `io::example::parse_examples`.
//!
//! Inputs: `serialized` (a string vector, or a scalar for one record: TensorFlow's
//! single-example path, whose outputs have no batch axis and whose messages name only the key),
//! `names` (a string vector naming the records in error messages, or empty), then one default
//! per dense key (an empty tensor: the feature is required; for a variable-length key the
//! scalar padding value). The keys, types and dense shapes are attributes (TensorFlow passes
//! the keys as constant inputs; here they are attributes so a saved graph holds them).
//! Outputs in TensorFlow's order: the sparse keys' indices (int64 `[n, rank]`), values and
//! dense shapes (int64 `[rank]`), the dense values (`[batch, *shape]`, missing features
//! filled with the default; a leading -1 in a dense shape makes a FixedLenSequenceFeature,
//! `[batch, longest, *rest]` padded with the default), the ragged keys' values and row splits
//! (`[batch + 1]`, `[0, n]` for a scalar input). SparseFeature and RaggedFeature partitions
//! are composed around these outputs in Python, as TensorFlow's `parsing_config` does.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::io::example::{self, Kind, Parsed, Request, Values};
use crate::ops::primitive::{
    attrs_of, describe_dims, expect_name, from_attrs, input, Arity, Attrs, Decisions, Decode,
    GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;

const NAME: &str = "ParseExampleV2";

/// The op's attributes (TensorFlow's names; the keys travel as attributes, see above).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ParseExampleV2 {
    pub sparse_keys: Vec<String>,
    pub sparse_types: Vec<DType>,
    pub dense_keys: Vec<String>,
    #[serde(rename = "Tdense")]
    pub dense_types: Vec<DType>,
    /// A leading -1 marks a variable-length (FixedLenSequenceFeature) key.
    pub dense_shapes: Vec<Vec<i64>>,
    pub ragged_keys: Vec<String>,
    pub ragged_value_types: Vec<DType>,
    pub ragged_split_types: Vec<DType>,
}

/// One dense key's shape: `row` are the dims of one value (after the variable dim, if any).
struct Dense {
    variable: bool,
    row: Vec<usize>,
    size: usize,
}

fn invalid(message: String) -> Error {
    Error::InvalidArgument(message)
}

/// TensorFlow's attr check: parsed features are float32, int64 or string.
fn kind(dtype: DType, attr: &str) -> Result<Kind> {
    Kind::of(dtype).ok_or_else(|| {
        invalid(format!(
            "Value for attr '{attr}' of {} is not in the list of allowed values: float, int64, \
             string",
            dtype.name()
        ))
    })
}

fn shape_text(dims: &[usize]) -> String {
    let dims: Vec<String> = dims.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(","))
}

fn strings<'a>(t: &'a Tensor, what: &str) -> Result<Vec<&'a [u8]>> {
    match t.buffer() {
        Buffer::Str(v) => Ok(v.iter().map(|s| s.as_bytes()).collect()),
        _ => Err(invalid(format!("{what} must be a string tensor, got {}", t.dtype().name()))),
    }
}

fn i64_tensor(v: Vec<i64>, dims: &[usize]) -> Tensor {
    Tensor::from_buffer_unchecked(Buffer::I64(v), Shape(dims.to_vec()))
}

fn present(count: i64) -> usize {
    count.max(0) as usize
}

impl ParseExampleV2 {
    /// The attributes agree with one another (a hand-written or damaged graph may not).
    fn check(&self) -> Result<Vec<Dense>> {
        let lengths = [
            (self.sparse_types.len(), self.sparse_keys.len(), "sparse_types"),
            (self.dense_types.len(), self.dense_keys.len(), "Tdense"),
            (self.dense_shapes.len(), self.dense_keys.len(), "dense_shapes"),
            (self.ragged_value_types.len(), self.ragged_keys.len(), "ragged_value_types"),
            (self.ragged_split_types.len(), self.ragged_keys.len(), "ragged_split_types"),
        ];
        for (n, keys, attr) in lengths {
            if n != keys {
                return Err(invalid(format!("len({attr}) != number of keys: {n} vs {keys}")));
            }
        }
        // Each record's features are taken out of its map once per key.
        let mut keys = std::collections::HashSet::new();
        let all = self.sparse_keys.iter().chain(&self.dense_keys).chain(&self.ragged_keys);
        if let Some(key) = all.into_iter().find(|k| !keys.insert(k.as_str())) {
            return Err(invalid(format!("Key {key} is requested more than once")));
        }
        for &t in &self.sparse_types {
            kind(t, "sparse_types")?;
        }
        for &t in &self.dense_types {
            kind(t, "Tdense")?;
        }
        for &t in &self.ragged_value_types {
            kind(t, "ragged_value_types")?;
        }
        for &t in &self.ragged_split_types {
            if !matches!(t, DType::I32 | DType::I64) {
                return Err(invalid(format!(
                    "Value for attr 'ragged_split_types' of {} is not in the list of allowed \
                     values: int32, int64",
                    t.name()
                )));
            }
        }
        self.dense_shapes
            .iter()
            .enumerate()
            .map(|(i, shape)| {
                let variable = shape.first() == Some(&-1);
                let rest = &shape[usize::from(variable)..];
                let row: Option<Vec<usize>> =
                    rest.iter().map(|&d| usize::try_from(d).ok()).collect();
                let row = row.ok_or_else(|| {
                    invalid(format!(
                        "dense_shapes[{i}] has unknown rank or unknown inner dimensions: {shape:?}"
                    ))
                })?;
                let size = row.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
                let size =
                    size.ok_or_else(|| invalid(format!("dense_shapes[{i}] is too large")))?;
                Ok(Dense { variable, row, size })
            })
            .collect()
    }

    fn num_inputs(&self) -> usize {
        2 + self.dense_keys.len()
    }

    /// What `parse_examples` checks per key: sparse, then dense, then ragged.
    fn requests(&self, dense: &[Dense], defaults: &[&Tensor]) -> Vec<Request> {
        let loose = |key: &String, dtype: DType| Request {
            key: key.clone(),
            kind: Kind::of(dtype).unwrap_or(Kind::Bytes),
            size: None,
            shape: String::new(),
            stride: None,
            required: false,
            dense: false,
        };
        let sparse = self.sparse_keys.iter().zip(&self.sparse_types).map(|(k, &t)| loose(k, t));
        let fixed = self.dense_keys.iter().zip(&self.dense_types).zip(dense).zip(defaults).map(
            |(((key, &t), d), default)| Request {
                key: key.clone(),
                kind: Kind::of(t).unwrap_or(Kind::Bytes),
                size: (!d.variable).then_some(d.size),
                shape: shape_text(&d.row),
                stride: d.variable.then_some(d.size),
                required: !d.variable && default.num_elements() == 0,
                dense: true,
            },
        );
        let ragged =
            self.ragged_keys.iter().zip(&self.ragged_value_types).map(|(k, &t)| loose(k, t));
        sparse.chain(fixed).chain(ragged).collect()
    }
}

/// A sparse key's indices, values and dense shape.
fn sparse(p: Parsed, batch: usize, single: bool) -> [Tensor; 3] {
    let n = p.values.len();
    let rank = if single { 1 } else { 2 };
    let mut indices = Vec::with_capacity(n * rank);
    let mut widest = 0;
    for (row, &count) in p.counts.iter().enumerate() {
        widest = widest.max(present(count));
        for k in 0..present(count) {
            if !single {
                indices.push(row as i64);
            }
            indices.push(k as i64);
        }
    }
    let shape = if single { vec![widest as i64] } else { vec![batch as i64, widest as i64] };
    [i64_tensor(indices, &[n, rank]), p.values.into_tensor(&[n]), i64_tensor(shape, &[rank])]
}

/// Refuses an output of `rows × width` elements that cannot be allocated: a hostile record can
/// make a key's longest row huge, and a raw op's shape any size (TensorFlow: ResourceExhausted).
fn checked_len(rows: usize, width: usize, dtype: DType) -> Result<usize> {
    let n = rows.checked_mul(width);
    crate::shape::check_alloc(n.unwrap_or(usize::MAX), dtype)?;
    Ok(n.unwrap_or_default())
}

/// Fixed-size rows: each present example's `size` values, the default for a missing one.
fn fill_fixed<T: Clone>(
    values: Vec<T>,
    counts: &[i64],
    size: usize,
    default: &[T],
    dtype: DType,
) -> Result<Vec<T>> {
    if counts.iter().all(|&c| c >= 0) {
        return Ok(values);
    }
    let mut out = Vec::with_capacity(checked_len(counts.len(), size, dtype)?);
    let mut values = values.into_iter();
    for &count in counts {
        if count >= 0 {
            out.extend(values.by_ref().take(size));
        } else {
            out.extend_from_slice(default);
        }
    }
    Ok(out)
}

/// Variable-length rows of `stride` values, padded to the longest example with `pad`.
fn fill_padded<T: Clone>(
    values: Vec<T>,
    counts: &[i64],
    stride: usize,
    pad: T,
    dtype: DType,
) -> Result<(Vec<T>, usize)> {
    if stride == 0 {
        // A row of no values: there are no rows to put values in.
        return Ok((Vec::new(), 0));
    }
    let rows: Vec<usize> = counts.iter().map(|&c| present(c) / stride).collect();
    let longest = rows.iter().copied().max().unwrap_or(0);
    if rows.iter().all(|&r| r == longest) {
        return Ok((values, longest));
    }
    let row = longest.saturating_mul(stride);
    let mut out = Vec::with_capacity(checked_len(counts.len(), row, dtype)?);
    let mut values = values.into_iter();
    for &r in &rows {
        out.extend(values.by_ref().take(r * stride));
        out.resize(out.len() + (longest - r) * stride, pad.clone());
    }
    Ok((out, longest))
}

/// One dense key's values: fixed rows with the default filling missing ones, or
/// variable-length rows padded with the default's one element (zero where it is empty).
fn fill<T: Clone + Default>(
    values: Vec<T>,
    counts: &[i64],
    spec: &Dense,
    default: &[T],
    dtype: DType,
) -> Result<(Vec<T>, Option<usize>)> {
    if spec.variable {
        let pad = default.first().cloned().unwrap_or_default();
        let (v, rows) = fill_padded(values, counts, spec.size, pad, dtype)?;
        Ok((v, Some(rows)))
    } else {
        Ok((fill_fixed(values, counts, spec.size, default, dtype)?, None))
    }
}

/// One dense key's output: TensorFlow checks each default against the key's type and size.
fn dense(p: Parsed, spec: &Dense, default: &Tensor, key: &str, batch: &[usize]) -> Result<Tensor> {
    let n = default.num_elements();
    if spec.variable && n != 1 {
        return Err(invalid(format!(
            "Default value for variable-length key {key} must contain a single element (the \
             padding element), got shape {}",
            describe_dims(&TensorType::of(default).dims)
        )));
    }
    if !spec.variable && n != 0 && n != spec.size {
        return Err(invalid(format!(
            "Default value for key {key} has {n} elements but its shape {} holds {}",
            shape_text(&spec.row),
            spec.size
        )));
    }
    let counts = &p.counts;
    let mismatch = || invalid(format!("Default value for key {key} has the wrong dtype"));
    let (values, rows) = match (p.values, default.buffer()) {
        (Values::Float(v), Buffer::F32(d)) => {
            let (v, rows) = fill(v, counts, spec, d, DType::F32)?;
            (Values::Float(v), rows)
        }
        (Values::Int64(v), Buffer::I64(d)) => {
            let (v, rows) = fill(v, counts, spec, d, DType::I64)?;
            (Values::Int64(v), rows)
        }
        (Values::Bytes(v), Buffer::Str(d)) => {
            let d: Vec<Vec<u8>> = d.iter().map(|s| s.as_bytes().to_vec()).collect();
            let (v, rows) = fill(v, counts, spec, &d, DType::String)?;
            (Values::Bytes(v), rows)
        }
        _ => return Err(mismatch()),
    };
    let mut dims = batch.to_vec();
    dims.extend(rows);
    dims.extend(&spec.row);
    Ok(values.into_tensor(&dims))
}

/// A ragged key's values and row splits (`[0, n]` for a scalar input).
fn ragged(p: Parsed, split_type: DType, single: bool) -> Result<[Tensor; 2]> {
    let n = p.values.len();
    let mut splits = vec![0i64];
    if single {
        splits.push(n as i64);
    } else {
        let mut at = 0i64;
        splits.extend(p.counts.iter().map(|&c| {
            at += c.max(0);
            at
        }));
    }
    let len = splits.len();
    let splits = if split_type == DType::I32 {
        let narrow: Option<Vec<i32>> = splits.iter().map(|&s| i32::try_from(s).ok()).collect();
        let narrow = narrow.ok_or_else(|| {
            invalid(format!("{n} ragged values overflow int32 row splits; use int64"))
        })?;
        Tensor::from_buffer_unchecked(Buffer::I32(narrow), Shape(vec![len]))
    } else {
        i64_tensor(splits, &[len])
    };
    Ok([p.values.into_tensor(&[n]), splits])
}

impl Primitive for ParseExampleV2 {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::AtLeast(2)
    }

    fn attrs(&self) -> Attrs {
        attrs_of(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let dense = self.check()?;
        if inputs.len() != self.num_inputs() {
            return Err(invalid(format!(
                "{NAME} takes serialized, names and {} dense defaults, got {} inputs",
                self.dense_keys.len(),
                inputs.len()
            )));
        }
        let serialized = input(inputs, 0)?;
        if serialized.dtype != DType::String || inputs[1].dtype != DType::String {
            return Err(invalid("serialized and names must be string tensors".into()));
        }
        if serialized.rank() > 1 {
            return Err(invalid(format!(
                "Expected serialized to be a scalar or vector, got shape: {}",
                describe_dims(&serialized.dims)
            )));
        }
        for (k, (default, &t)) in inputs[2..].iter().zip(&self.dense_types).enumerate() {
            if default.dtype != t {
                return Err(invalid(format!(
                    "dense_defaults[{k}] is {} but Tdense[{k}] is {}",
                    default.dtype.name(),
                    t.name()
                )));
            }
        }
        let single = serialized.rank() == 0;
        let batch: Vec<Option<usize>> = serialized.dims.clone();
        let rank = if single { 1 } else { 2 };
        let vector = |dtype: DType, n: Option<usize>| TensorType { dtype, dims: vec![n] };
        let sparse = &self.sparse_types;
        let mut out: Vec<TensorType> = Vec::new();
        out.extend(
            sparse.iter().map(|_| TensorType { dtype: DType::I64, dims: vec![None, Some(rank)] }),
        );
        out.extend(sparse.iter().map(|&t| vector(t, None)));
        out.extend(sparse.iter().map(|_| vector(DType::I64, Some(rank))));
        out.extend(self.dense_types.iter().zip(&dense).map(|(&dtype, d)| {
            let mut dims = batch.clone();
            if d.variable {
                dims.push(None);
            }
            dims.extend(d.row.iter().map(|&r| Some(r)));
            TensorType { dtype, dims }
        }));
        out.extend(self.ragged_value_types.iter().map(|&t| vector(t, None)));
        let splits = if single { Some(2) } else { batch[0].map(|b| b + 1) };
        out.extend(self.ragged_split_types.iter().map(|&t| vector(t, splits)));
        Ok(out)
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let specs = self.check()?;
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.infer(&types)?;
        let single = inputs[0].rank() == 0;
        let records = strings(inputs[0], "serialized")?;
        let names: Vec<String> = strings(inputs[1], "names")?
            .into_iter()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .collect();
        if !names.is_empty() && names.len() != records.len() {
            return Err(invalid(format!(
                "Expected len(names) == len(serialized), but got: {} vs. {}",
                names.len(),
                records.len()
            )));
        }
        let defaults = &inputs[2..];
        let requests = self.requests(&specs, defaults);
        let parsed = example::parse_examples(&records, &names, &requests, single)?;
        let batch = if single { vec![] } else { vec![records.len()] };
        let mut parsed = parsed.into_iter();
        let mut next =
            || parsed.next().ok_or_else(|| Error::Internal("a key was not parsed".into()));
        let mut sparse_parts: [Vec<Tensor>; 3] = Default::default();
        for _ in &self.sparse_keys {
            for (part, t) in sparse_parts.iter_mut().zip(sparse(next()?, records.len(), single)) {
                part.push(t);
            }
        }
        let mut dense_values = Vec::with_capacity(specs.len());
        for ((spec, default), key) in specs.iter().zip(defaults).zip(&self.dense_keys) {
            dense_values.push(dense(next()?, spec, default, key, &batch)?);
        }
        let (mut ragged_values, mut ragged_splits) = (Vec::new(), Vec::new());
        for &split_type in &self.ragged_split_types {
            let [values, splits] = ragged(next()?, split_type, single)?;
            ragged_values.push(values);
            ragged_splits.push(splits);
        }
        let [indices, values, shapes] = sparse_parts;
        Ok([indices, values, shapes, dense_values, ragged_values, ragged_splits].concat())
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("parses protobuf records, which live on the host"),
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for ParseExampleV2 {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        expect_name(name, NAME)?;
        from_attrs(NAME, attrs)
    }
}

#[cfg(test)]
fn records() -> Vec<Vec<u8>> {
    use crate::proto::tensorflow::{
        feature, BytesList, Example, Feature, Features, FloatList, Int64List,
    };
    use prost::Message;
    let floats = |v: &[f32]| Feature {
        kind: Some(feature::Kind::FloatList(FloatList { value: v.to_vec() })),
    };
    let ints = |v: &[i64]| Feature {
        kind: Some(feature::Kind::Int64List(Int64List { value: v.to_vec() })),
    };
    let bytes = |v: &[&str]| Feature {
        kind: Some(feature::Kind::BytesList(BytesList {
            value: v.iter().map(|s| s.as_bytes().to_vec()).collect(),
        })),
    };
    let example = |pairs: Vec<(&str, Feature)>| {
        let feature = pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        Example { features: Some(Features { feature }) }.encode_to_vec()
    };
    vec![
        example(vec![
            ("x", floats(&[1.0, 2.0])),
            ("i", ints(&[3])),
            ("s", bytes(&["a", "b"])),
            ("seq", floats(&[1.0, 2.0, 3.0, 4.0])),
        ]),
        example(vec![("i", ints(&[4, 5])), ("seq", floats(&[5.0, 6.0]))]),
    ]
}

#[cfg(test)]
fn example_op() -> ParseExampleV2 {
    ParseExampleV2 {
        sparse_keys: vec!["i".into()],
        sparse_types: vec![DType::I64],
        dense_keys: vec!["x".into(), "seq".into()],
        dense_types: vec![DType::F32, DType::F32],
        dense_shapes: vec![vec![2], vec![-1, 2]],
        ragged_keys: vec!["s".into()],
        ragged_value_types: vec![DType::String],
        ragged_split_types: vec![DType::I32],
    }
}

#[cfg(test)]
fn example_inputs(single: bool) -> Vec<Tensor> {
    let recs = records();
    let strs = |v: Vec<Vec<u8>>, dims: &[usize]| {
        let v = v.into_iter().map(crate::tstring::TfString::from_vec).collect();
        Tensor::from_buffer_unchecked(Buffer::Str(v), Shape(dims.to_vec()))
    };
    let serialized = if single { strs(recs[..1].to_vec(), &[]) } else { strs(recs, &[2]) };
    vec![
        serialized,
        strs(vec![], &[0]),
        Tensor::from_slice(&[7.0f32, 8.0], &[2]).unwrap(),
        Tensor::from_slice(&[-1.0f32], &[]).unwrap(),
    ]
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    vec![
        (Op::ParseExample(example_op()), example_inputs(false)),
        (Op::ParseExample(example_op()), example_inputs(true)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(single: bool) -> Vec<Tensor> {
        let inputs = example_inputs(single);
        let refs: Vec<&Tensor> = inputs.iter().collect();
        example_op().cpu(&refs).unwrap()
    }

    fn i64s(t: &Tensor) -> Vec<i64> {
        t.to_vec::<i64>().unwrap()
    }

    #[test]
    fn parse_assembles_every_kind() {
        let out = run(false);
        assert_eq!(out.len(), 7);
        assert_eq!(i64s(&out[0]), vec![0, 0, 1, 0, 1, 1]);
        assert_eq!(i64s(&out[1]), vec![3, 4, 5]);
        assert_eq!(i64s(&out[2]), vec![2, 2]);
        assert_eq!(out[3].dims(), &[2, 2]);
        assert_eq!(out[3].to_vec::<f32>().unwrap(), vec![1.0, 2.0, 7.0, 8.0]);
        assert_eq!(out[4].dims(), &[2, 2, 2]);
        assert_eq!(out[4].to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0, -1.0]);
        assert_eq!(out[5].dims(), &[2]);
        assert_eq!(out[6].to_vec::<i32>().unwrap(), vec![0, 2, 2]);
    }

    #[test]
    fn parse_single_has_no_batch_axis() {
        let out = run(true);
        assert_eq!(i64s(&out[0]), vec![0]);
        assert_eq!(out[0].dims(), &[1, 1]);
        assert_eq!(i64s(&out[2]), vec![1]);
        assert_eq!(out[3].dims(), &[2]);
        assert_eq!(out[4].dims(), &[2, 2]);
        assert_eq!(out[6].to_vec::<i32>().unwrap(), vec![0, 2]);
    }

    #[test]
    fn parse_errors_are_invalid_argument() {
        let mut inputs = example_inputs(false);
        inputs[2] = Tensor::from_slice::<f32>(&[], &[0]).unwrap();
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let err = example_op().cpu(&refs).unwrap_err();
        assert!(err.to_string().contains("Feature: x (data type: float) is required"), "{err}");
        let mut op = example_op();
        op.dense_shapes[0] = vec![2, -1];
        assert!(matches!(op.infer(&[]), Err(Error::InvalidArgument(_))));
        op.dense_shapes[0] = vec![2];
        op.sparse_types[0] = DType::I32;
        let inputs = example_inputs(false);
        let refs: Vec<&Tensor> = inputs.iter().collect();
        assert!(matches!(op.cpu(&refs), Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn variable_length_keys_need_one_padding_value() {
        // "seq" is variable-length: its default must be one padding value, not none or two.
        for padding in [&[][..], &[1.0f32, 2.0][..]] {
            let mut inputs = example_inputs(false);
            inputs[3] = Tensor::from_slice(padding, &[padding.len()]).unwrap();
            let refs: Vec<&Tensor> = inputs.iter().collect();
            let err = example_op().cpu(&refs).unwrap_err();
            assert!(err.to_string().contains("the padding element"), "{err}");
        }
    }

    #[test]
    fn padded_outputs_beyond_memory_are_resource_exhausted() {
        // A count no record could hold, as a damaged length would give: refused, not allocated.
        let err = fill_padded(vec![1i64], &[i64::MAX, 0], 1, 0, DType::I64).unwrap_err();
        assert!(matches!(err, Error::ResourceExhausted(_)), "{err}");
        let err = fill_fixed(vec![1i64], &[-1, 1], usize::MAX / 2, &[], DType::I64).unwrap_err();
        assert!(matches!(err, Error::ResourceExhausted(_)), "{err}");
    }
}
