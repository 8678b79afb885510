//! TensorFlow's registered defaults for the attributes of the ops the table runs. A saved node
//! omits attributes equal to their default, and the MetaGraph's `stripped_op_list` that should
//! supply them leaves out ops used only inside `If`/`While` branch functions (TensorFlow 2.21
//! writes no OpDef for a `Mean` or `TensorListSetItem` found only in a loop body), so the
//! importer keeps the defaults of TensorFlow's op registry (`ops.pbtxt`) for its own ops.

use crate::proto::tensorflow::attr_value::{ListValue, Value};
use crate::proto::tensorflow::AttrValue;
use std::sync::LazyLock;

fn ints(i: &[i64]) -> Value {
    Value::List(ListValue { i: i.to_vec(), ..Default::default() })
}

static DEFAULTS: LazyLock<Vec<(&'static str, &'static str, AttrValue)>> = LazyLock::new(|| {
    let nhwc = || Value::S(b"NHWC".to_vec());
    let mut table: Vec<(&str, &str, Value)> = vec![
        ("MatMul", "transpose_a", Value::B(false)),
        ("MatMul", "transpose_b", Value::B(false)),
        ("BatchMatMul", "adj_x", Value::B(false)),
        ("BatchMatMul", "adj_y", Value::B(false)),
        ("BatchMatMulV2", "adj_x", Value::B(false)),
        ("BatchMatMulV2", "adj_y", Value::B(false)),
        ("BatchMatMulV3", "adj_x", Value::B(false)),
        ("BatchMatMulV3", "adj_y", Value::B(false)),
        ("BiasAdd", "data_format", nhwc()),
        ("MaxPool", "data_format", nhwc()),
        ("MaxPool", "explicit_paddings", ints(&[])),
        ("AvgPool", "data_format", nhwc()),
        ("Squeeze", "squeeze_dims", ints(&[])),
        ("Pack", "axis", Value::I(0)),
        ("GatherV2", "batch_dims", Value::I(0)),
        // DT_INT32.
        ("Shape", "out_type", Value::Type(3)),
        ("Cast", "Truncate", Value::B(false)),
        ("LeakyRelu", "alpha", Value::F(0.2)),
        ("TensorListSetItem", "resize_if_index_out_of_bounds", Value::B(false)),
        ("TensorListStack", "num_elements", Value::I(-1)),
        ("InitializeTableFromTextFileV2", "vocab_size", Value::I(-1)),
        ("InitializeTableFromTextFileV2", "delimiter", Value::S(b"\t".to_vec())),
        ("InitializeTableFromTextFileV2", "offset", Value::I(0)),
        ("StringJoin", "separator", Value::S(Vec::new())),
        ("StaticRegexReplace", "replace_global", Value::B(true)),
        ("StringLower", "encoding", Value::S(Vec::new())),
        ("StringUpper", "encoding", Value::S(Vec::new())),
        ("StringLength", "unit", Value::S(b"BYTE".to_vec())),
        ("StringSplitV2", "maxsplit", Value::I(-1)),
        ("Size", "out_type", Value::Type(3)),
        ("Cumsum", "exclusive", Value::B(false)),
        ("Cumsum", "reverse", Value::B(false)),
        ("Cumprod", "exclusive", Value::B(false)),
        ("Cumprod", "reverse", Value::B(false)),
        ("DenseBincount", "binary_output", Value::B(false)),
    ];
    for op in ["Conv2D", "DepthwiseConv2dNative"] {
        table.push((op, "data_format", nhwc()));
        table.push((op, "dilations", ints(&[1, 1, 1, 1])));
        table.push((op, "explicit_paddings", ints(&[])));
    }
    for op in ["Mean", "Sum", "Prod", "Max", "Min", "All", "Any"] {
        table.push((op, "keep_dims", Value::B(false)));
    }
    for mask in ["begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"] {
        table.push(("StridedSlice", mask, Value::I(0)));
    }
    table.into_iter().map(|(op, attr, v)| (op, attr, AttrValue { value: Some(v) })).collect()
});

/// TensorFlow's default for `op`'s attribute `attr`, where the table knows it.
pub fn default(op: &str, attr: &str) -> Option<&'static AttrValue> {
    DEFAULTS.iter().find(|(o, a, _)| *o == op && *a == attr).map(|(_, _, v)| v)
}
