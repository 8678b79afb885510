//! `tf.print` as TensorFlow writes it: `StringFormat` (the text with a placeholder per
//! tensor, in the order the text shows them) feeding `PrintV2`. ferroflow's text already ends
//! with `end`, so `PrintV2` adds nothing after it. A print to a Python callable has no place
//! in a file TensorFlow reads: `UnimplementedError`.

use super::attrs::{self, enum_of};
use super::body::{unimplemented, Body, Typed};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::print::{Piece, PrintSpec};

/// ferroflow's "show everything" summarize (Python's `None` or a negative value).
const EVERYTHING: usize = 1 << 62;

pub fn print(b: &mut Body, spec: &PrintSpec, ins: &[Typed], name: &str) -> Result<String> {
    if spec.stream == "other" {
        return Err(unimplemented("PrintV2 to a Python callable (tf.print's output_stream)"));
    }
    // A placeholder no piece of text contains, so text is never read as a slot.
    let mut placeholder = "{}".to_string();
    while spec.pieces.iter().any(|p| matches!(p, Piece::Text(t) if t.contains(&placeholder))) {
        placeholder = format!("{{{placeholder}}}");
    }
    let mut template = String::new();
    let mut inputs = Vec::new();
    for piece in &spec.pieces {
        match piece {
            Piece::Text(text) => template += text,
            Piece::Tensor(i) => {
                let input = ins.get(*i).ok_or_else(|| {
                    Error::Internal(format!("print piece {i} names no input of {name}"))
                })?;
                template += &placeholder;
                inputs.push(input.clone());
            }
        }
    }
    let summarize = if spec.summarize >= EVERYTHING { -1 } else { spec.summarize as i64 };
    let format = vec![
        ("template", attrs::string(&template)),
        ("placeholder", attrs::string(&placeholder)),
        ("summarize", attrs::int(summarize)),
    ];
    let string = enum_of(DType::String);
    let text = b.op("StringFormat", &format!("{name}/format"), &[inputs], &[string], format)?;
    let print = vec![("output_stream", attrs::string(&spec.stream)), ("end", attrs::string(""))];
    b.op("PrintV2", name, &[vec![(text[0].clone(), string)]], &[], print)?;
    Ok(b.last().to_string())
}
