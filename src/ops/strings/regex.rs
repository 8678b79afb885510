//! Regular expressions over bytes: RE2's syntax, which Rust's `regex` shares for the features
//! TensorFlow users write; RE2's `\1` rewrites become `${1}`.

use super::case::each;
use super::{string_tensor, strs};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::tstring::TfString;
use regex::bytes::Regex;

pub fn compile(pattern: &str, op: &str) -> Result<Regex> {
    Regex::new(pattern).map_err(|e| {
        let why = e.to_string();
        let why = why.lines().last().unwrap_or("").trim_start_matches("error: ");
        Error::InvalidArgument(format!("Invalid pattern: {pattern}, error: {why} [Op:{op}]"))
    })
}

/// Whether the whole of each string matches (RE2's FullMatch).
pub fn full_match(x: &Tensor, pattern: &str, op: &str) -> Result<Tensor> {
    compile(pattern, op)?;
    let re = compile(&format!("^(?:{pattern})$"), op)?;
    let out: Vec<bool> = each(strs(x)?, |b| re.is_match(b));
    Tensor::from_slice(&out, x.dims())
}

/// RE2's rewrite string in `regex`'s syntax: `\0`..`\9` name groups, `\\` is a backslash,
/// and `$` is literal. Also returns the highest group named. RE2 stops at an invalid escape,
/// keeping what it rewrote before it.
fn rewrite_syntax(rewrite: &str) -> (String, Option<usize>) {
    let mut out = String::with_capacity(rewrite.len());
    let mut highest: Option<usize> = None;
    let mut chars = rewrite.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(d @ '0'..='9') => {
                    let g = d as usize - '0' as usize;
                    highest = highest.max(Some(g));
                    out.push_str("${");
                    out.push(d);
                    out.push('}');
                }
                Some('\\') => out.push('\\'),
                _ => break,
            },
            '$' => out.push_str("$$"),
            c => out.push(c),
        }
    }
    (out, highest)
}

pub fn replace(x: &Tensor, pattern: &str, rewrite: &str, global: bool, op: &str) -> Result<Tensor> {
    let re = compile(pattern, op)?;
    let (rewrite, highest) = rewrite_syntax(rewrite);
    // A rewrite naming a group the pattern lacks replaces nothing (RE2's Replace fails).
    if highest.is_some_and(|g| g >= re.captures_len()) {
        return Ok(string_tensor(strs(x)?.to_vec(), x.dims()));
    }
    let out = each(strs(x)?, |b| {
        let r = if global {
            re.replace_all(b, rewrite.as_bytes())
        } else {
            re.replace(b, rewrite.as_bytes())
        };
        TfString::new(&r)
    });
    Ok(string_tensor(out, x.dims()))
}

/// The text of a scalar pattern or rewrite input (`RegexFullMatch`, `RegexReplace`).
pub fn scalar_text(t: &Tensor, what: &str, op: &str) -> Result<String> {
    let v = strs(t)?;
    match (t.rank(), v.first()) {
        (0, Some(s)) => String::from_utf8(s.as_bytes().to_vec())
            .map_err(|_| Error::InvalidArgument(format!("{what} is not valid UTF-8 [Op:{op}]"))),
        _ => Err(Error::InvalidArgument(format!(
            "{what} must be scalar, but received [{}] [Op:{op}]",
            t.dims().iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
        ))),
    }
}
