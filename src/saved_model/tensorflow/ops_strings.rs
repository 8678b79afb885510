//! TensorFlow's string ops whose attributes say the same as ferroflow's string primitives:
//! the hash buckets of Keras's lookup layers (their out-of-vocabulary indices), joins, regex
//! matches and rewrites, case, stripping, lengths and splits. Each node becomes a `StringOp` and runs
//! through `dispatch`, as eager calls do. An attribute value ferroflow's op does not take is
//! `UnimplementedError`, never a guess.

use super::op_call::{many, OpCall};
use super::run_function::Value;
use crate::dispatch::{apply, Op};
use crate::error::Result;
use crate::ops::strings::{strs, StringOp};

pub fn run(c: &OpCall) -> Result<Option<Vec<Value>>> {
    if c.op() == "StringSplitV2" {
        // TensorFlow gives the separator as a tensor; ferroflow's op holds it.
        c.arity(2)?;
        let sep = match (c.tensor(1)?.rank(), strs(c.tensor(1)?)) {
            (0, Ok([s])) => String::from_utf8_lossy(s.as_bytes()).into_owned(),
            _ => return Err(c.invalid("sep must be a string scalar")),
        };
        let op = StringOp::StringSplitV2 { sep, maxsplit: c.attrs.int("maxsplit")? };
        return many(apply(&Op::Strings(op), &[c.tensor(0)?])?);
    }
    let Some(op) = string_op(c)? else { return Ok(None) };
    let inputs = c.tensors(0)?;
    many(apply(&Op::Strings(op), &inputs)?)
}

fn string_op(c: &OpCall) -> Result<Option<StringOp>> {
    let a = c.attrs;
    let utf8 = |attr: &str, bytes: &str, chars: &str| -> Result<bool> {
        match a.string(attr)?.as_str() {
            s if s == bytes => Ok(false),
            s if s == chars => Ok(true),
            other => Err(c.unsupported(attr, other)),
        }
    };
    Ok(Some(match c.op() {
        "StringToHashBucketFast" => {
            StringOp::StringToHashBucketFast { num_buckets: a.int("num_buckets")? }
        }
        "StringToHashBucket" => StringOp::StringToHashBucket { num_buckets: a.int("num_buckets")? },
        "StringToHashBucketStrong" => {
            let key = match a.ints("key")?.as_slice() {
                &[k0, k1] => [k0 as u64, k1 as u64],
                other => return Err(c.unsupported("key", other)),
            };
            StringOp::StringToHashBucketStrong { num_buckets: a.int("num_buckets")?, key }
        }
        "StringJoin" => StringOp::StringJoin { separator: a.string("separator")? },
        "StaticRegexFullMatch" => StringOp::StaticRegexFullMatch { pattern: a.string("pattern")? },
        "StaticRegexReplace" => StringOp::StaticRegexReplace {
            pattern: a.string("pattern")?,
            rewrite: a.string("rewrite")?,
            replace_global: a.bool("replace_global")?,
        },
        "StringStrip" => StringOp::StringStrip {},
        "StringLower" => StringOp::StringLower { utf8: utf8("encoding", "", "utf-8")? },
        "StringUpper" => StringOp::StringUpper { utf8: utf8("encoding", "", "utf-8")? },
        "StringLength" => StringOp::StringLength { utf8: utf8("unit", "BYTE", "UTF8_CHAR")? },
        _ => return Ok(None),
    }))
}
