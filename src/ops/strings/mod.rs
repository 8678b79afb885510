//! `tf.strings`: primitives on byte-string tensors, one per TensorFlow op name. They run on
//! the host (strings never go to the GPU) and have no gradients. Each file does one job: case
//! and length, substrings, joins, regular expressions, numbers, splitting, hashes.

mod case;
mod format;
mod hash;
mod join;
mod ngrams;
mod number;
mod printf;
mod regex;
mod split;
mod substr;
mod unicode;

use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::error::{Error, Result};
use crate::ops::primitive::{
    broadcast, from_variant, input, variant_attrs, Arity, Attrs, Decisions, Decode, GpuKernel,
    Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;

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
    /// Outputs: int64 row splits, int32 code points of every string (flattened).
    UnicodeDecode {
        input_encoding: String,
        errors: String,
        replacement_char: i64,
        replace_control_characters: bool,
    },
    /// As UnicodeDecode, and each character's starting byte (int64).
    UnicodeDecodeWithOffsets {
        input_encoding: String,
        errors: String,
        replacement_char: i64,
        replace_control_characters: bool,
    },
    /// Inputs: int32 code points, row splits (int32 or int64). One string per row.
    UnicodeEncode {
        output_encoding: String,
        errors: String,
        replacement_char: i64,
    },
    UnicodeTranscode {
        input_encoding: String,
        output_encoding: String,
        errors: String,
        replacement_char: i64,
        replace_control_characters: bool,
    },
    /// ICU's script code of each int32 code point.
    UnicodeScript {},
    /// Inputs: a vector of strings, its row splits. Outputs: n-grams, their row splits.
    StringNGrams {
        separator: String,
        ngram_widths: Vec<i64>,
        left_pad: String,
        right_pad: String,
        pad_width: i64,
        preserve_short_sequences: bool,
    },
    /// Inputs: the tensors whose summaries replace each placeholder. Output: a scalar.
    StringFormat {
        template: String,
        placeholder: String,
        summarize: i64,
    },
    /// Inputs: strings, segment ids (a prefix of their shape), the number of segments.
    UnsortedSegmentJoin {
        separator: String,
    },
    /// Inputs: strings, a scalar pattern.
    RegexFullMatch {},
    /// Inputs: strings, a scalar pattern, a scalar rewrite.
    RegexReplace {
        replace_global: bool,
    },
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
    "UnicodeDecode",
    "UnicodeDecodeWithOffsets",
    "UnicodeEncode",
    "UnicodeTranscode",
    "UnicodeScript",
    "StringNGrams",
    "StringFormat",
    "UnsortedSegmentJoin",
    "RegexFullMatch",
    "RegexReplace",
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

/// TensorFlow's error for an input that must be int32.
fn int32_input(x: &TensorType, k: usize, op: &str) -> Result<()> {
    if x.dtype == DType::I32 {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "cannot compute {op} as input #{k}(zero-based) was expected to be a int32 tensor but is \
         a {} tensor [Op:{op}]",
        x.dtype.name()
    )))
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
            UnicodeDecode { .. } => "UnicodeDecode",
            UnicodeDecodeWithOffsets { .. } => "UnicodeDecodeWithOffsets",
            UnicodeEncode { .. } => "UnicodeEncode",
            UnicodeTranscode { .. } => "UnicodeTranscode",
            UnicodeScript {} => "UnicodeScript",
            StringNGrams { .. } => "StringNGrams",
            StringFormat { .. } => "StringFormat",
            UnsortedSegmentJoin { .. } => "UnsortedSegmentJoin",
            RegexFullMatch {} => "RegexFullMatch",
            RegexReplace { .. } => "RegexReplace",
        }
    }

    fn arity(&self) -> Arity {
        match self {
            Substr { .. } | UnsortedSegmentJoin { .. } | RegexReplace { .. } => Arity::Exactly(3),
            UnicodeEncode { .. } | StringNGrams { .. } | RegexFullMatch {} => Arity::Exactly(2),
            StringJoin { .. } | StringFormat { .. } => Arity::AtLeast(1),
            _ => Arity::Exactly(1),
        }
    }

    /// The variant's fields (the name says which variant).
    fn attrs(&self) -> Attrs {
        variant_attrs(self)
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
            UnicodeDecode {
                input_encoding,
                errors,
                replacement_char,
                replace_control_characters,
            }
            | UnicodeDecodeWithOffsets {
                input_encoding,
                errors,
                replacement_char,
                replace_control_characters,
            } => {
                expect(x, strings, name)?;
                unicode::policy(errors, *replacement_char, *replace_control_characters, name)?;
                unicode::check_source(input_encoding, name)?;
                let n: Option<usize> = x.dims.iter().try_fold(1usize, |a, d| d.map(|d| a * d));
                let mut out = vec![
                    TensorType { dtype: DType::I64, dims: vec![n.map(|n| n + 1)] },
                    TensorType { dtype: DType::I32, dims: vec![None] },
                ];
                if matches!(self, UnicodeDecodeWithOffsets { .. }) {
                    out.push(TensorType { dtype: DType::I64, dims: vec![None] });
                }
                out
            }
            UnicodeTranscode {
                input_encoding,
                output_encoding,
                errors,
                replacement_char,
                replace_control_characters,
            } => {
                expect(x, strings, name)?;
                unicode::target(output_encoding, name)?;
                unicode::policy(errors, *replacement_char, *replace_control_characters, name)?;
                unicode::check_source(input_encoding, name)?;
                vec![x.clone()]
            }
            UnicodeEncode { output_encoding, errors, replacement_char } => {
                let splits = input(inputs, 1)?;
                int32_input(x, 0, name)?;
                expect(splits, DTypeSet::of(&[DType::I32, DType::I64]), name)?;
                unicode::target(output_encoding, name)?;
                unicode::policy(errors, *replacement_char, false, name)?;
                let rows = match splits.dims.first() {
                    Some(Some(0)) => {
                        return Err(Error::InvalidArgument(format!(
                            "Input splits must have at least one element [Op:{name}]"
                        )))
                    }
                    Some(d) => d.map(|d| d - 1),
                    None => None,
                };
                vec![TensorType { dtype: DType::String, dims: vec![rows] }]
            }
            UnicodeScript {} => {
                int32_input(x, 0, name)?;
                vec![x.clone()]
            }
            StringNGrams { .. } => {
                let splits = input(inputs, 1)?;
                expect(x, strings, name)?;
                expect(splits, DTypeSet::of(&[DType::I32, DType::I64]), name)?;
                vec![TensorType { dtype: DType::String, dims: vec![None] }, splits.clone()]
            }
            StringFormat { template, placeholder, .. } => {
                let found = if placeholder.is_empty() {
                    0
                } else {
                    template.matches(placeholder.as_str()).count()
                };
                if found != inputs.len() {
                    return Err(Error::InvalidArgument(format!(
                        "num placeholders in template and num inputs must match: {found} vs {} \
                         [Op:StringFormat]",
                        inputs.len()
                    )));
                }
                vec![TensorType { dtype: DType::String, dims: vec![] }]
            }
            UnsortedSegmentJoin { .. } => {
                let (ids, count) = (input(inputs, 1)?, input(inputs, 2)?);
                expect(x, strings, name)?;
                let ints = DTypeSet::of(&[DType::I32, DType::I64]);
                expect(ids, ints, name)?;
                expect(count, ints, name)?;
                let mut dims = vec![None];
                dims.extend(join::segment_dims(x, ids)?);
                vec![TensorType { dtype: DType::String, dims }]
            }
            RegexFullMatch {} | RegexReplace { .. } => {
                expect(x, strings, name)?;
                for (k, what) in [(1, "Pattern"), (2, "Rewrite")] {
                    if let Some(t) = inputs.get(k) {
                        expect(t, strings, name)?;
                        if t.rank() != 0 {
                            return Err(Error::InvalidArgument(format!(
                                "{what} must be scalar, but received {} [Op:{name}]",
                                crate::ops::primitive::describe_dims(&t.dims)
                            )));
                        }
                    }
                }
                let dtype = if matches!(self, RegexFullMatch {}) { DType::Bool } else { x.dtype };
                vec![x.with_dtype(dtype)]
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
            StaticRegexFullMatch { pattern } => {
                one(regex::full_match(x, pattern, "StaticRegexFullMatch")?)
            }
            StaticRegexReplace { pattern, rewrite, replace_global } => {
                one(regex::replace(x, pattern, rewrite, *replace_global, "StaticRegexReplace")?)
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
            UnicodeDecode {
                input_encoding,
                errors,
                replacement_char,
                replace_control_characters,
            }
            | UnicodeDecodeWithOffsets {
                input_encoding,
                errors,
                replacement_char,
                replace_control_characters,
            } => {
                let name = self.tf_name();
                let p =
                    unicode::policy(errors, *replacement_char, *replace_control_characters, name)?;
                let [splits, values, starts] = unicode::decode(x, input_encoding, p, name)?;
                if matches!(self, UnicodeDecode { .. }) {
                    Ok(vec![splits, values])
                } else {
                    Ok(vec![splits, values, starts])
                }
            }
            UnicodeTranscode {
                input_encoding,
                output_encoding,
                errors,
                replacement_char,
                replace_control_characters,
            } => {
                let name = self.tf_name();
                let target = unicode::target(output_encoding, name)?;
                let p =
                    unicode::policy(errors, *replacement_char, *replace_control_characters, name)?;
                one(unicode::transcode(x, input_encoding, target, p)?)
            }
            UnicodeEncode { output_encoding, errors, replacement_char } => {
                let name = self.tf_name();
                let target = unicode::target(output_encoding, name)?;
                let p = unicode::policy(errors, *replacement_char, false, name)?;
                one(unicode::encode(x, inputs[1], target, p)?)
            }
            UnicodeScript {} => one(unicode::script(x)?),
            StringNGrams {
                separator,
                ngram_widths,
                left_pad,
                right_pad,
                pad_width,
                preserve_short_sequences,
            } => {
                let g = ngrams::NGrams {
                    separator: separator.as_bytes(),
                    widths: ngram_widths,
                    left_pad: left_pad.as_bytes(),
                    right_pad: right_pad.as_bytes(),
                    pad_width: *pad_width,
                    preserve_short: *preserve_short_sequences,
                };
                ngrams::ngrams(x, inputs[1], &g)
            }
            StringFormat { template, placeholder, summarize } => {
                let text = format::format(inputs, template, placeholder, *summarize)?;
                one(string_tensor(vec![TfString::from_vec(text)], &[]))
            }
            UnsortedSegmentJoin { separator } => {
                one(join::unsorted_segment_join(x, inputs[1], inputs[2], separator)?)
            }
            RegexFullMatch {} => {
                let pattern = regex::scalar_text(inputs[1], "Pattern", "RegexFullMatch")?;
                one(regex::full_match(x, &pattern, "RegexFullMatch")?)
            }
            RegexReplace { replace_global } => {
                let pattern = regex::scalar_text(inputs[1], "Pattern", "RegexReplace")?;
                let rewrite = regex::scalar_text(inputs[2], "Rewrite", "RegexReplace")?;
                one(regex::replace(x, &pattern, &rewrite, *replace_global, "RegexReplace")?)
            }
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
        from_variant(name, attrs)
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
        ex(ReduceJoin { axes: None, keep_dims: true, separator: ",".into() }, vec![grid.clone()]),
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
        ex(Fingerprint {}, vec![x.clone()]),
        ex(
            UnicodeDecode {
                input_encoding: "UTF-8".into(),
                errors: "replace".into(),
                replacement_char: 0xFFFD,
                replace_control_characters: false,
            },
            vec![grid.clone()],
        ),
        ex(
            UnicodeDecodeWithOffsets {
                input_encoding: "UTF-16-BE".into(),
                errors: "ignore".into(),
                replacement_char: 0xFFFD,
                replace_control_characters: true,
            },
            vec![x.clone()],
        ),
        ex(
            UnicodeEncode {
                output_encoding: "UTF-8".into(),
                errors: "replace".into(),
                replacement_char: 0xFFFD,
            },
            vec![
                Tensor::from_slice(&[72i32, 0xe9, 0x1F600, -1], &[4]).unwrap(),
                Tensor::from_slice(&[0i64, 1, 4], &[3]).unwrap(),
            ],
        ),
        ex(
            UnicodeTranscode {
                input_encoding: "UTF-8".into(),
                output_encoding: "UTF-16-BE".into(),
                errors: "replace".into(),
                replacement_char: 32,
                replace_control_characters: false,
            },
            vec![x.clone()],
        ),
        ex(UnicodeScript {}, vec![Tensor::from_slice(&[65i32, 0x3b1, -3], &[3]).unwrap()]),
        ex(
            StringNGrams {
                separator: " ".into(),
                ngram_widths: vec![1, 2],
                left_pad: "<".into(),
                right_pad: ">".into(),
                pad_width: -1,
                preserve_short_sequences: false,
            },
            vec![x.clone(), Tensor::from_slice(&[0i32, 2, 5], &[3]).unwrap()],
        ),
        ex(
            StringFormat { template: "a {} b {}".into(), placeholder: "{}".into(), summarize: 3 },
            vec![x.clone(), Tensor::from_slice(&[1.5f32, 2.0], &[2]).unwrap()],
        ),
        ex(
            UnsortedSegmentJoin { separator: ",".into() },
            vec![grid.clone(), Tensor::from_slice(&[1i32, 0], &[2]).unwrap(), Tensor::scalar(3i64)],
        ),
        ex(RegexFullMatch {}, vec![x.clone(), string_tensor(vec!["[a-z]+".into()], &[])]),
        ex(
            RegexReplace { replace_global: false },
            vec![x, string_tensor(vec!["o".into()], &[]), string_tensor(vec!["0".into()], &[])],
        ),
    ]
}
