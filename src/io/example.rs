//! Decoding serialized `tf.train.Example` (or `SequenceExample`) records with prost, in
//! parallel: for each requested feature its values flattened over the batch with per-example
//! counts. The `ParseExampleV2` primitive (`ops/parse_example.rs`) assembles TensorFlow's dense,
//! sparse and ragged outputs from them; `parse_sequence_example` still assembles in Python
//! (`python/ferroflow/io/_parsing.py`).
//!
//! Errors are TensorFlow's `InvalidArgument` messages: a record that is not an Example, a
//! feature of another type than requested, a fixed-size feature of the wrong size, a missing
//! required feature.

use crate::buffer::Buffer;
use crate::error::{Error, Result};
use crate::proto::tensorflow::{feature::Kind as ProtoKind, Example, Feature, SequenceExample};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use prost::Message;
use rayon::prelude::*;

/// The value type a feature is parsed as (tf.float32, tf.int64 or tf.string).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Float,
    Int64,
    Bytes,
}

impl Kind {
    /// The kind a dtype parses as (float32, int64 and string only).
    pub fn of(dtype: crate::dtype::DType) -> Option<Kind> {
        use crate::dtype::DType;
        match dtype {
            DType::F32 => Some(Kind::Float),
            DType::I64 => Some(Kind::Int64),
            DType::String => Some(Kind::Bytes),
            _ => None,
        }
    }

    fn proto_name(self) -> &'static str {
        match self {
            Kind::Float => "float",
            Kind::Int64 => "int64",
            Kind::Bytes => "string",
        }
    }
}

/// How one requested feature is checked while parsing.
#[derive(Clone, Debug)]
pub struct Request {
    pub key: String,
    pub kind: Kind,
    /// FixedLenFeature: each present example holds exactly this many values.
    pub size: Option<usize>,
    /// The dense shape as TensorFlow prints it ("[2,3]"), for the wrong-size message.
    pub shape: String,
    /// FixedLenSequenceFeature: each present example holds a multiple of this many values.
    pub stride: Option<usize>,
    /// A FixedLenFeature without a default: absence is an error.
    pub required: bool,
    /// Dense outputs word a type mismatch differently from sparse and ragged ones.
    pub dense: bool,
}

/// The values of one feature over the batch, concatenated in example order.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Float(Vec<f32>),
    Int64(Vec<i64>),
    Bytes(Vec<Vec<u8>>),
}

impl Values {
    fn empty(kind: Kind) -> Values {
        match kind {
            Kind::Float => Values::Float(Vec::new()),
            Kind::Int64 => Values::Int64(Vec::new()),
            Kind::Bytes => Values::Bytes(Vec::new()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Values::Float(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::Bytes(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values as a tensor of `dims` (their count must be the dims' product).
    pub fn into_tensor(self, dims: &[usize]) -> Tensor {
        let buffer = match self {
            Values::Float(v) => Buffer::F32(v),
            Values::Int64(v) => Buffer::I64(v),
            Values::Bytes(v) => Buffer::Str(v.into_iter().map(TfString::from_vec).collect()),
        };
        Tensor::from_buffer_unchecked(buffer, Shape(dims.to_vec()))
    }

    fn append(&mut self, other: Values) {
        match (self, other) {
            (Values::Float(a), Values::Float(b)) => a.extend(b),
            (Values::Int64(a), Values::Int64(b)) => a.extend(b),
            (Values::Bytes(a), Values::Bytes(b)) => a.extend(b),
            _ => unreachable!("one kind per request"),
        }
    }
}

/// One feature parsed over a batch: `counts[i]` values of example `i` (`-1` where the example
/// lacks the feature or sets no list in it).
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub values: Values,
    pub counts: Vec<i64>,
}

/// A feature list of a SequenceExample parsed over a batch: `steps[i]` steps in example `i`
/// (`-1` where absent), `counts` one entry per step over the batch.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedList {
    pub values: Values,
    pub steps: Vec<i64>,
    pub counts: Vec<i64>,
}

/// Where an error happened, for TensorFlow's "Name: ..., Key: ..., Index: ..." prefix.
/// A scalar input (`parse_single_example`) takes TensorFlow's single-example path, whose
/// messages name only the key.
struct Site<'a> {
    name: &'a str,
    key: &'a str,
    index: usize,
    single: bool,
}

impl Site<'_> {
    fn error(&self, what: String) -> Error {
        if self.single {
            return Error::InvalidArgument(format!("Key: {}.  {what}", self.key));
        }
        Error::InvalidArgument(format!(
            "Name: {}, Key: {}, Index: {}.  {what}",
            self.name, self.key, self.index
        ))
    }
}

/// The values of `feature` if it sets a list, checked against `request` (taken, not copied).
fn feature_values(feature: Feature, request: &Request, site: &Site<'_>) -> Result<Option<Values>> {
    let (actual, values) = match feature.kind {
        None => return Ok(None),
        Some(ProtoKind::FloatList(l)) => (Kind::Float, Values::Float(l.value)),
        Some(ProtoKind::Int64List(l)) => (Kind::Int64, Values::Int64(l.value)),
        Some(ProtoKind::BytesList(l)) => (Kind::Bytes, Values::Bytes(l.value)),
    };
    if actual != request.kind {
        let (expected, actual) = (request.kind.proto_name(), actual.proto_name());
        return Err(site.error(if request.dense {
            format!("Data types don't match. Data type: {actual} but expected type: {expected}")
        } else {
            format!("Data types don't match. Expected type: {expected}, Actual type: {actual}")
        }));
    }
    let n = values.len();
    let noun = actual.proto_name();
    if let Some(size) = request.size {
        if n != size && site.single {
            return Err(site.error(format!(
                "Can't parse serialized Example: Some {noun}_list slice was not parsed."
            )));
        }
        if n != size {
            return Err(site.error(format!(
                "Number of {noun} values != expected.  Values size: {n} but output shape: {}",
                request.shape
            )));
        }
    }
    if let Some(stride) = request.stride {
        if stride > 0 && n % stride != 0 {
            return Err(site.error(format!(
                "Number of {noun} values is not a multiple of stride length. Saw {n} values but \
                 output shape is: [?,{stride}]"
            )));
        }
    }
    Ok(Some(values))
}

fn decode_error(record: &[u8], what: &str) -> Error {
    Error::InvalidArgument(format!(
        "Could not parse {what} input, value: '{}'",
        String::from_utf8_lossy(record)
    ))
}

fn example_name(names: &[String], i: usize) -> &str {
    names.get(i).map(String::as_str).filter(|n| !n.is_empty()).unwrap_or("<unknown>")
}

/// One example's values per request.
type Row = Vec<(Option<Values>, i64)>;

/// One example's requested features, taken out of its decoded map (each key is requested once).
fn parse_features(
    features: Option<crate::proto::tensorflow::Features>,
    requests: &[Request],
    name: &str,
    index: usize,
    single: bool,
) -> Result<Row> {
    let mut features = features.map(|f| f.feature);
    requests
        .iter()
        .map(|request| {
            let site = Site { name, key: &request.key, index, single };
            let found = features.as_mut().and_then(|f| f.remove(&request.key));
            let values = match found {
                Some(feature) => feature_values(feature, request, &site)?,
                None => None,
            };
            match values {
                Some(v) => {
                    let n = v.len() as i64;
                    Ok((Some(v), n))
                }
                None if request.required => Err(Error::InvalidArgument(format!(
                    "{}Feature: {} (data type: {}) is required but could not be found.",
                    if single { String::new() } else { format!("Name: {name}, ") },
                    request.key,
                    request.kind.proto_name()
                ))),
                None => Ok((None, -1)),
            }
        })
        .collect()
}

/// Concatenates per-example rows into one `Parsed` per request.
fn gather(rows: Vec<Row>, requests: &[Request]) -> Vec<Parsed> {
    let mut out: Vec<Parsed> = requests
        .iter()
        .map(|r| Parsed { values: Values::empty(r.kind), counts: Vec::with_capacity(rows.len()) })
        .collect();
    for row in rows {
        for (parsed, (values, count)) in out.iter_mut().zip(row) {
            if let Some(v) = values {
                parsed.values.append(v);
            }
            parsed.counts.push(count);
        }
    }
    out
}

/// Below this many records a batch parses on the calling thread: handing one record (a
/// `Dataset.map(parse_single_example)` element) to the thread pool costs more than parsing it.
const PARALLEL_FROM: usize = 16;

/// `parse(i, record)` over the records, in parallel when there are enough of them.
fn each_record<T: Send>(
    serialized: &[&[u8]],
    parse: impl Fn(usize, &[u8]) -> Result<T> + Sync + Send,
) -> Result<Vec<T>> {
    if serialized.len() < PARALLEL_FROM {
        return serialized.iter().enumerate().map(|(i, r)| parse(i, r)).collect();
    }
    serialized.par_iter().enumerate().map(|(i, r)| parse(i, r)).collect()
}

/// Parses serialized Examples; `names` (possibly empty) names them in error messages, `single`
/// words them as TensorFlow's scalar-input path does.
pub fn parse_examples(
    serialized: &[&[u8]],
    names: &[String],
    requests: &[Request],
    single: bool,
) -> Result<Vec<Parsed>> {
    let rows: Vec<Row> = each_record(serialized, |i, record| {
        let example = Example::decode(record).map_err(|_| decode_error(record, "example"))?;
        parse_features(example.features, requests, example_name(names, i), i, single)
    })?;
    Ok(gather(rows, requests))
}

/// Parses serialized SequenceExamples: the context features like Examples', and each requested
/// feature list step by step.
pub fn parse_sequence_examples(
    serialized: &[&[u8]],
    names: &[String],
    context: &[Request],
    lists: &[Request],
) -> Result<(Vec<Parsed>, Vec<ParsedList>)> {
    type ListRow = Vec<Option<Vec<(Option<Values>, i64)>>>;
    let rows: Vec<(Row, ListRow)> = each_record(serialized, |i, record| {
        let example = SequenceExample::decode(record)
            .map_err(|_| decode_error(record, "sequence example"))?;
        let name = example_name(names, i);
        let context_row = parse_features(example.context, context, name, i, false)?;
        let mut feature_lists = example.feature_lists.map(|f| f.feature_list);
        let list_row = lists
            .iter()
            .map(|request| {
                let found = feature_lists.as_mut().and_then(|f| f.remove(&request.key));
                let Some(list) = found else {
                    if request.required {
                        return Err(Error::InvalidArgument(format!(
                            "Name: {name}, Feature list '{}' is required but could not be \
                                 found.  Did you mean to include it in \
                                 feature_list_dense_missing_assumed_empty or \
                                 feature_list_dense_defaults?",
                            request.key
                        )));
                    }
                    return Ok(None);
                };
                let site = Site { name, key: &request.key, index: i, single: false };
                list.feature
                    .into_iter()
                    .map(|f| {
                        let v = feature_values(f, request, &site)?;
                        let n = v.as_ref().map_or(0, |v| v.len() as i64);
                        Ok((v, n))
                    })
                    .collect::<Result<Vec<_>>>()
                    .map(Some)
            })
            .collect::<Result<ListRow>>()?;
        Ok((context_row, list_row))
    })?;
    let (context_rows, list_rows): (Vec<Row>, Vec<ListRow>) = rows.into_iter().unzip();
    let mut out: Vec<ParsedList> = lists
        .iter()
        .map(|r| ParsedList {
            values: Values::empty(r.kind),
            steps: Vec::new(),
            counts: Vec::new(),
        })
        .collect();
    for row in list_rows {
        for (parsed, steps) in out.iter_mut().zip(row) {
            match steps {
                None => parsed.steps.push(-1),
                Some(steps) => {
                    parsed.steps.push(steps.len() as i64);
                    for (values, count) in steps {
                        if let Some(v) = values {
                            parsed.values.append(v);
                        }
                        parsed.counts.push(count);
                    }
                }
            }
        }
    }
    Ok((gather(context_rows, context), out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::tensorflow::{feature, Features, FloatList, Int64List};

    fn example(pairs: Vec<(&str, Feature)>) -> Vec<u8> {
        let features =
            Features { feature: pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect() };
        Example { features: Some(features) }.encode_to_vec()
    }

    fn floats(v: &[f32]) -> Feature {
        Feature { kind: Some(feature::Kind::FloatList(FloatList { value: v.to_vec() })) }
    }

    fn request(key: &str, kind: Kind) -> Request {
        Request {
            key: key.into(),
            kind,
            size: None,
            shape: String::new(),
            stride: None,
            required: false,
            dense: false,
        }
    }

    #[test]
    fn values_and_counts() {
        let a = example(vec![("x", floats(&[1.0, 2.0]))]);
        let b = example(vec![]);
        let c = example(vec![("x", floats(&[3.0]))]);
        let parsed =
            parse_examples(&[&a, &b, &c], &[], &[request("x", Kind::Float)], false).unwrap();
        assert_eq!(parsed[0].values, Values::Float(vec![1.0, 2.0, 3.0]));
        assert_eq!(parsed[0].counts, vec![2, -1, 1]);
    }

    #[test]
    fn errors_are_tensorflows() {
        let a = example(vec![("x", floats(&[1.0]))]);
        let wrong = parse_examples(&[&a], &[], &[request("x", Kind::Int64)], false).unwrap_err();
        assert!(wrong.to_string().contains("Expected type: int64, Actual type: float"));
        let mut fixed = request("x", Kind::Float);
        fixed.size = Some(2);
        fixed.shape = "[2]".into();
        let size = parse_examples(&[&a], &[], &[fixed], false).unwrap_err();
        assert!(size.to_string().contains("Values size: 1 but output shape: [2]"), "{size}");
        let mut required = request("y", Kind::Int64);
        required.required = true;
        let missing = parse_examples(&[&a], &[], &[required], false).unwrap_err();
        assert!(missing.to_string().contains("Feature: y (data type: int64) is required"));
        let garbage = parse_examples(&[&[0xff, 0xff]], &[], &[], false).unwrap_err();
        assert!(matches!(garbage, Error::InvalidArgument(_)));
        let _ = Int64List::default();
    }
}
