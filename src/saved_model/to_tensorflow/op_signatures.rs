//! The argument and attribute names of the TensorFlow ops the exporter emits, read from
//! `op_signatures.tsv` (written from TensorFlow's op registry by `tools/tf_op_signatures.py`),
//! so that every exported node names its outputs and type attributes as TensorFlow's loader
//! expects.

use std::collections::HashMap;
use std::sync::OnceLock;

/// How an argument's tensors are typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// One tensor whose dtype is this type attribute.
    Typed(String),
    /// One tensor of this fixed DataType enum.
    Fixed(i32),
    /// `number_attr` tensors, each of the type attribute (or the fixed type).
    Repeated { type_attr: Option<String>, number_attr: String },
    /// One tensor per entry of this type-list attribute.
    TypeList(String),
}

#[derive(Clone, Debug)]
pub struct Arg {
    pub name: String,
    pub kind: ArgKind,
}

#[derive(Clone, Debug)]
pub struct OpSignature {
    pub inputs: Vec<Arg>,
    pub outputs: Vec<Arg>,
    /// Attributes without a default value: every node of the op must set them.
    pub required: Vec<String>,
    pub stateful: bool,
}

const TABLE: &str = include_str!("op_signatures.tsv");

fn parse_arg(text: &str) -> Arg {
    let (name, kind) = text.split_once(':').unwrap_or((text, ""));
    let kind = if let Some(list) = kind.strip_prefix('[') {
        ArgKind::TypeList(list.trim_end_matches(']').to_string())
    } else if let Some((ty, n)) = kind.split_once('*') {
        let type_attr = (!ty.starts_with('=')).then(|| ty.to_string());
        ArgKind::Repeated { type_attr, number_attr: n.to_string() }
    } else if let Some(fixed) = kind.strip_prefix('=') {
        ArgKind::Fixed(fixed.parse().unwrap_or(0))
    } else {
        ArgKind::Typed(kind.to_string())
    };
    Arg { name: name.to_string(), kind }
}

fn parse_args(field: &str) -> Vec<Arg> {
    field.split(',').filter(|s| !s.is_empty()).map(parse_arg).collect()
}

fn table() -> &'static HashMap<&'static str, OpSignature> {
    static PARSED: OnceLock<HashMap<&'static str, OpSignature>> = OnceLock::new();
    PARSED.get_or_init(|| {
        TABLE
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split('\t').collect();
                let [name, inputs, outputs, required, stateful] = fields[..] else {
                    return None;
                };
                let required = required
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|a| a.split(':').next().unwrap_or(a).to_string())
                    .collect();
                Some((
                    name,
                    OpSignature {
                        inputs: parse_args(inputs),
                        outputs: parse_args(outputs),
                        required,
                        stateful: stateful == "1",
                    },
                ))
            })
            .collect()
    })
}

/// TensorFlow's signature of `op`, if the exporter knows the op.
pub fn lookup(op: &str) -> Option<&'static OpSignature> {
    table().get(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_every_kind_of_argument() {
        let concat = lookup("ConcatV2").expect("ConcatV2");
        assert_eq!(
            concat.inputs[0].kind,
            ArgKind::Repeated { type_attr: Some("T".into()), number_attr: "N".into() }
        );
        assert_eq!(concat.inputs[1].kind, ArgKind::Typed("Tidx".into()));
        let case = lookup("Case").expect("Case");
        assert_eq!(case.inputs[0].kind, ArgKind::Fixed(3));
        assert_eq!(case.outputs[0].kind, ArgKind::TypeList("Tout".into()));
        assert!(case.stateful && !concat.stateful);
        assert_eq!(lookup("MatMul").expect("MatMul").outputs[0].name, "product");
        assert!(lookup("NoSuchOp").is_none());
    }
}
