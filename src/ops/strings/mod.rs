//! `tf.strings`: primitives on byte-string tensors, one per TensorFlow op name. They run on
//! the host (strings never go to the GPU) and have no gradients. Each file does one job: case
//! and length, substrings, joins, regular expressions, numbers, splitting, hashes.

mod case;
mod hash;
mod join;
mod number;
mod printf;
mod regex;
mod split;
mod substr;

use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::error::{Error, Result};
use crate::ops::primitive::{
    broadcast, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use serde_json::Value;

/// A string primitive with its attributes. The variant names are TensorFlow's op names.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum StringOp {
    /// Per-byte ASCII case mapping, or Unicode's with `utf8` (TensorFlow's encoding='utf-8').
    StringLower {
        utf8: bool,
    },
    StringUpper {
        utf8: bool,
    },
    /// Strips ASCII whitespace at both ends.
    StringStrip {},
    /// Lengths in bytes, or in UTF-8 characters with `utf8`. Output int32.
    StringLength {
        utf8: bool,
    },
    /// Inputs: strings, pos, len (int32 or int64, one shape), broadcast together.
    Substr {
        utf8: bool,
    },
    /// Inputs: any number of strings of one shape or scalars.
    StringJoin {
        separator: String,
    },
    /// Joins along `axes` (all when None).
    ReduceJoin {
        axes: Option<Vec<i64>>,
        keep_dims: bool,
        separator: String,
    },
    StaticRegexFullMatch {
        pattern: String,
    },
    StaticRegexReplace {
        pattern: String,
        rewrite: String,
        replace_global: bool,
    },
    StringToNumber {
        out_type: DType,
    },
    AsString {
        precision: i64,
        scientific: bool,
        shortest: bool,
        width: i64,
        fill: String,
    },
    /// Input: a vector of strings. Outputs: int64 indices [n, 2], values, int64 dense shape.
    StringSplitV2 {
        sep: String,
        maxsplit: i64,
    },
    StringToHashBucketFast {
        num_buckets: i64,
    },
    StringToHashBucketStrong {
        num_buckets: i64,
        key: [u64; 2],
    },
    StringToHashBucket {
        num_buckets: i64,
    },
    /// FarmHash Fingerprint64 of each row of the input, as 8 little-endian bytes.
    Fingerprint {},
}

use StringOp::*;

const NAMES: &[&str] = &[
    "StringLower",
    "StringUpper",
    "StringStrip",
    "StringLength",
    "Substr",
    "StringJoin",
    "ReduceJoin",
    "StaticRegexFullMatch",
    "StaticRegexReplace",
    "StringToNumber",
    "AsString",
    "StringSplitV2",
    "StringToHashBucketFast",
    "StringToHashBucketStrong",
    "StringToHashBucket",
    "Fingerprint",
];

/// The string elements of an input the declaration has checked.
pub(crate) fn strs(t: &Tensor) -> Result<&[TfString]> {
    match t.buffer() {
        Buffer::Str(v) => Ok(v),
        _ => Err(Error::unsupported_dtype("string op", t.dtype())),
    }
}

pub(crate) fn string_tensor(v: Vec<TfString>, dims: &[usize]) -> Tensor {
    Tensor::from_buffer_unchecked(Buffer::Str(v), Shape::new(dims.to_vec()))
}

fn expect(x: &TensorType, allowed: DTypeSet, op: &str) -> Result<()> {
    if allowed.contains(x.dtype) {
        Ok(())
    } else {
        Err(Error::unsupported_dtype(op, x.dtype))
    }
}

/// Checks that `num_buckets` is positive, as TensorFlow's attribute minimum does.
fn buckets(n: i64, op: &str) -> Result<()> {
    if n < 1 {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'num_buckets' of {n} must be at least minimum 1 [Op:{op}]"
        )));
    }
    Ok(())
}

impl Primitive for StringOp {
    fn tf_name(&self) -> &'static str {
        match self {
            StringLower { .. } => "StringLower",
            StringUpper { .. } => "StringUpper",
            StringStrip {} => "StringStrip",
            StringLength { .. } => "StringLength",
            Substr { .. } => "Substr",
            StringJoin { .. } => "StringJoin",
            ReduceJoin { .. } => "ReduceJoin",
            StaticRegexFullMatch { .. } => "StaticRegexFullMatch",
            StaticRegexReplace { .. } => "StaticRegexReplace",
            StringToNumber { .. } => "StringToNumber",
            AsString { .. } => "AsString",
            StringSplitV2 { .. } => "StringSplitV2",
            StringToHashBucketFast { .. } => "StringToHashBucketFast",
            StringToHashBucketStrong { .. } => "StringToHashBucketStrong",
            StringToHashBucket { .. } => "StringToHashBucket",
            Fingerprint {} => "Fingerprint",
        }
    }

    fn arity(&self) -> Arity {
        match self {
            Substr { .. } => Arity::Exactly(3),
            StringJoin { .. } => Arity::AtLeast(1),
            _ => Arity::Exactly(1),
        }
    }

    /// The variant's fields (the name says which variant).
    fn attrs(&self) -> Attrs {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => match map.into_iter().next() {
                Some((_, Value::Object(fields))) => fields,
                _ => Attrs::new(),
            },
            _ => Attrs::new(),
        }
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let name = self.tf_name();
        let x = input(inputs, 0)?;
        let strings = DTypeSet::STRING;
        Ok(match self {
            StringLower { .. } | StringUpper { .. } | StringStrip {} => {
                expect(x, strings, name)?;
                vec![x.clone()]
            }
            StaticRegexReplace { pattern, .. } => {
                expect(x, strings, name)?;
                regex::compile(pattern, name)?;
                vec![x.clone()]
            }
            StaticRegexFullMatch { pattern } => {
                expect(x, strings, name)?;
                regex::compile(pattern, name)?;
                vec![x.with_dtype(DType::Bool)]
            }
            StringLength { .. } => {
                expect(x, strings, name)?;
                vec![x.with_dtype(DType::I32)]
            }
            StringToHashBucketFast { num_buckets }
            | StringToHashBucketStrong { num_buckets, .. }
            | StringToHashBucket { num_buckets } => {
                expect(x, strings, name)?;
                buckets(*num_buckets, name)?;
                vec![x.with_dtype(DType::I64)]
            }
            StringToNumber { out_type } => {
                expect(x, strings, name)?;
                let allowed = DTypeSet::of(&[DType::F32, DType::F64, DType::I32, DType::I64]);
                if !allowed.contains(*out_type) {
                    return Err(Error::InvalidArgument(format!(
                        "Value for attr 'out_type' of {} is not in the list of allowed values: \
                         float, double, int32, int64 [Op:StringToNumber]",
                        out_type.name()
                    )));
                }
                vec![x.with_dtype(*out_type)]
            }
            AsString { .. } => {
                number::check_as_string(self, x.dtype)?;
                vec![x.with_dtype(DType::String)]
            }
            Substr { .. } => {
                let (pos, len) = (input(inputs, 1)?, input(inputs, 2)?);
                expect(x, strings, name)?;
                substr::check_positions(pos, len)?;
                vec![TensorType { dtype: DType::String, dims: broadcast(&[x, pos], name)? }]
            }
            StringJoin { .. } => {
                for i in inputs {
                    expect(i, strings, name)?;
                }
                vec![TensorType { dtype: DType::String, dims: join::joined_dims(inputs)? }]
            }
            ReduceJoin { axes, keep_dims, .. } => {
                expect(x, strings, name)?;
                let axes = join::reduced_axes(axes.as_deref(), x.rank())?;
                let dims = (0..x.rank())
                    .filter_map(|k| match (axes.contains(&k), keep_dims) {
                        (false, _) => Some(x.dims[k]),
                        (true, true) => Some(Some(1)),
                        (true, false) => None,
                    })
                    .collect();
                vec![TensorType { dtype: DType::String, dims }]
            }
            StringSplitV2 { .. } => {
                expect(x, strings, name)?;
                if x.rank() != 1 {
                    return Err(Error::InvalidArgument(format!(
                        "input must be a vector, got shape: {} [Op:StringSplitV2]",
                        crate::ops::primitive::describe_dims(&x.dims)
                    )));
                }
                vec![
                    TensorType { dtype: DType::I64, dims: vec![None, Some(2)] },
                    TensorType { dtype: DType::String, dims: vec![None] },
                    TensorType { dtype: DType::I64, dims: vec![Some(2)] },
                ]
            }
            Fingerprint {} => {
                if x.rank() == 0 {
                    return Err(Error::InvalidArgument(
                        "data must have rank at least one, got: 0 [Op:Fingerprint]".into(),
                    ));
                }
                vec![TensorType { dtype: DType::U8, dims: vec![x.dims[0], Some(8)] }]
            }
        })
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.infer(&types)?;
        let x = inputs[0];
        let one = |t: Tensor| Ok(vec![t]);
        match self {
            StringLower { utf8 } => one(case::map(x, case::Case::Lower, *utf8)?),
            StringUpper { utf8 } => one(case::map(x, case::Case::Upper, *utf8)?),
            StringStrip {} => one(case::strip(x)?),
            StringLength { utf8 } => one(case::length(x, *utf8)?),
            Substr { utf8 } => one(substr::substr(x, inputs[1], inputs[2], *utf8)?),
            StringJoin { separator } => one(join::string_join(inputs, separator)?),
            ReduceJoin { axes, keep_dims, separator } => {
                one(join::reduce_join(x, axes.as_deref(), *keep_dims, separator)?)
            }
            StaticRegexFullMatch { pattern } => one(regex::full_match(x, pattern)?),
            StaticRegexReplace { pattern, rewrite, replace_global } => {
                one(regex::replace(x, pattern, rewrite, *replace_global)?)
            }
            StringToNumber { out_type } => one(number::to_number(x, *out_type)?),
            AsString { .. } => one(number::as_string(self, x)?),
            StringSplitV2 { sep, maxsplit } => split::split(x, sep, *maxsplit),
            StringToHashBucketFast { num_buckets } => {
                one(hash::buckets(x, *num_buckets, hash::fingerprint64)?)
            }
            StringToHashBucket { num_buckets } => {
                one(hash::buckets(x, *num_buckets, hash::legacy_hash64)?)
            }
            StringToHashBucketStrong { num_buckets, key } => {
                let key = *key;
                one(hash::buckets(x, *num_buckets, move |s| hash::siphash(key, s))?)
            }
            Fingerprint {} => one(hash::fingerprint_rows(x)?),
        }
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("strings live on the host"),
            differentiable: false,
            fusable: false,
        }
    }
}

impl Decode for StringOp {
    fn names() -> Vec<&'static str> {
        NAMES.to_vec()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        let tagged = Value::Object(serde_json::Map::from_iter([(
            name.to_string(),
            Value::Object(attrs.clone()),
        )]));
        serde_json::from_value(tagged).map_err(|e| {
            Error::DataLoss(format!("the attributes of a saved {name} node are invalid: {e}"))
        })
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let words: Vec<TfString> =
        ["Hello World", " pad\t", "", "caf\u{e9}", "42"].iter().map(|&s| s.into()).collect();
    let x = string_tensor(words, &[5]);
    let grid = string_tensor(["a", "b", "c", "d", "e", "f"].map(TfString::from).to_vec(), &[2, 3]);
    let number = string_tensor(vec!["1.5".into(), " -2 ".into()], &[2]);
    let pos = Tensor::from_slice(&[0i32, 1, 0, 0, -1], &[5]).unwrap();
    let len = Tensor::from_slice(&[2i32, 3, 0, -1, 1], &[5]).unwrap();
    let floats = Tensor::from_slice(&[1.5f32, -0.25], &[2]).unwrap();
    let s = String::new;
    let ex = |op: StringOp, inputs: Vec<Tensor>| (Op::Strings(op), inputs);
    vec![
        ex(StringLower { utf8: false }, vec![x.clone()]),
        ex(StringUpper { utf8: true }, vec![x.clone()]),
        ex(StringStrip {}, vec![x.clone()]),
        ex(StringLength { utf8: true }, vec![x.clone()]),
        ex(Substr { utf8: false }, vec![x.clone(), pos, len]),
        ex(
            StringJoin { separator: "-".into() },
            vec![x.clone(), string_tensor(vec!["!".into()], &[])],
        ),
        ex(
            ReduceJoin { axes: Some(vec![1]), keep_dims: false, separator: s() },
            vec![grid.clone()],
        ),
        ex(ReduceJoin { axes: None, keep_dims: true, separator: ",".into() }, vec![grid]),
        ex(StaticRegexFullMatch { pattern: "[a-z]+".into() }, vec![x.clone()]),
        ex(
            StaticRegexReplace { pattern: "o".into(), rewrite: "0".into(), replace_global: true },
            vec![x.clone()],
        ),
        ex(StringToNumber { out_type: DType::F32 }, vec![number.clone()]),
        ex(StringToNumber { out_type: DType::I64 }, vec![string_tensor(vec!["7".into()], &[1])]),
        ex(
            AsString { precision: 2, scientific: false, shortest: false, width: -1, fill: s() },
            vec![floats],
        ),
        ex(StringSplitV2 { sep: s(), maxsplit: -1 }, vec![x.clone()]),
        ex(StringToHashBucketFast { num_buckets: 10 }, vec![x.clone()]),
        ex(StringToHashBucketStrong { num_buckets: 10, key: [1, 2] }, vec![x.clone()]),
        ex(StringToHashBucket { num_buckets: 10 }, vec![x.clone()]),
        ex(Fingerprint {}, vec![x]),
    ]
}
