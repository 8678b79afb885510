//! Hash-table ops on hand-built functions: what the lookup fixtures do not reach (integer
//! keys from a text file's columns, re-initialization, conflicting keys, reads before
//! initialization, wrong key dtypes, short vocabularies), each a typed error where TensorFlow
//! raises one.

use super::run_function::{Library, Value};
use crate::dtype::DType;
use crate::error::Error;
use crate::ops::strings::string_tensor;
use crate::proto::tensorflow::attr_value::Value as Attr;
use crate::proto::tensorflow::{op_def::ArgDef, AttrValue, FunctionDef, NodeDef, OpDef};
use crate::tensor::Tensor;
use crate::tstring::TfString;

fn node(name: &str, op: &str, inputs: &[&str], attrs: Vec<(&str, Attr)>) -> NodeDef {
    NodeDef {
        name: name.into(),
        op: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        attr: attrs
            .into_iter()
            .map(|(k, v)| (k.to_string(), AttrValue { value: Some(v) }))
            .collect(),
        ..Default::default()
    }
}

fn dtype(d: DType) -> Attr {
    Attr::Type(d as i32)
}

/// `f(keys, values, queries, default)`: a table of `key`→`value` dtypes, filled by `fill`
/// (nodes reading `table`, `keys`, `values`), then `find` of `queries` and `size`.
fn call(
    key: DType,
    value: DType,
    fill: Vec<NodeDef>,
    args: Vec<Tensor>,
) -> Result<Vec<Value>, Error> {
    let mut nodes = vec![node(
        "table",
        "HashTableV2",
        &[],
        vec![("key_dtype", dtype(key)), ("value_dtype", dtype(value))],
    )];
    let filled: Vec<String> = fill.iter().map(|n| format!("^{}", n.name)).collect();
    let after: Vec<&str> = filled.iter().map(String::as_str).collect();
    nodes.extend(fill);
    let find_inputs = [&["table:table_handle:0", "queries", "default"][..], &after].concat();
    nodes.push(node("find", "LookupTableFindV2", &find_inputs, vec![]));
    let size_inputs = [&["table:table_handle:0"][..], &after].concat();
    nodes.push(node("size", "LookupTableSizeV2", &size_inputs, vec![]));
    let arg = |n: &str| ArgDef { name: n.into(), ..Default::default() };
    let function = FunctionDef {
        signature: Some(OpDef {
            name: "f".into(),
            input_arg: ["keys", "values", "queries", "default"].map(arg).to_vec(),
            output_arg: vec![arg("found"), arg("size")],
            ..Default::default()
        }),
        node_def: nodes,
        ret: [("found", "find:values:0"), ("size", "size:size:0")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .into(),
        ..Default::default()
    };
    let library =
        Library { functions: [("f".to_string(), function)].into(), op_defs: Default::default() };
    library.call("f", args.into_iter().map(Value::Tensor).collect(), 0)
}

fn strings(words: &[&str]) -> Tensor {
    let dims = [words.len()];
    string_tensor(words.iter().map(|w| TfString::new(w.as_bytes())).collect(), &dims)
}

fn import() -> NodeDef {
    node("import", "LookupTableImportV2", &["table:table_handle:0", "keys", "values"], vec![])
}

fn found<T: crate::element::Element>(outputs: &[Value]) -> Vec<T> {
    outputs[0].tensor("test").unwrap().to_vec().unwrap()
}

#[test]
fn imported_keys_are_found_and_others_get_the_default() {
    let args = vec![
        strings(&["a", "b", "c"]),
        Tensor::from_slice(&[1.5f32, 2.5, 3.5], &[3]).unwrap(),
        string_tensor(vec![TfString::new(b"c"), TfString::new(b"z")], &[2, 1]),
        Tensor::scalar(-1f32),
    ];
    let out = call(DType::String, DType::F32, vec![import()], args).unwrap();
    assert_eq!(found::<f32>(&out), [3.5, -1.0]);
    assert_eq!(out[0].tensor("test").unwrap().dims(), [2, 1]);
    assert_eq!(found::<i64>(&out[1..]), [3]);
}

#[test]
fn the_same_data_again_is_a_no_op_and_a_conflict_is_a_failed_precondition() {
    let keys = || Tensor::from_slice(&[4i64, 4], &[2]).unwrap();
    let args = |values: [i64; 2]| {
        vec![keys(), Tensor::from_slice(&values, &[2]).unwrap(), keys(), Tensor::scalar(0i64)]
    };
    let twice = vec![
        import(),
        node(
            "again",
            "LookupTableImportV2",
            &["table:table_handle:0", "keys", "values", "^import"],
            vec![],
        ),
    ];
    let out = call(DType::I64, DType::I64, twice, args([9, 9])).unwrap();
    assert_eq!(found::<i64>(&out), [9, 9]);
    let conflict = call(DType::I64, DType::I64, vec![import()], args([9, 8]));
    assert!(matches!(conflict, Err(Error::FailedPrecondition(m)) if m.contains("Key 4 has 9")));
}

#[test]
fn reading_before_initialization_and_wrong_dtypes_are_typed_errors() {
    let args =
        || vec![strings(&["a"]), Tensor::scalar(1i64), strings(&["a"]), Tensor::scalar(0i64)];
    let unfilled = call(DType::String, DType::I64, vec![], args());
    assert!(matches!(unfilled, Err(Error::FailedPrecondition(_))));
    let int_keys = vec![
        Tensor::from_slice(&[1i64], &[1]).unwrap(),
        Tensor::from_slice(&[1i64], &[1]).unwrap(),
        strings(&["a"]),
        Tensor::scalar(0i64),
    ];
    let wrong_keys = call(DType::String, DType::I64, vec![import()], int_keys);
    assert!(
        matches!(wrong_keys, Err(Error::InvalidArgument(m)) if m.contains("Key must be type string"))
    );
    let unsupported = call(DType::I32, DType::I64, vec![import()], args());
    assert!(matches!(unsupported, Err(Error::Unimplemented(_))));
}

fn from_text(key_index: i64, value_index: i64, vocab_size: i64) -> NodeDef {
    let attrs = vec![
        ("key_index", Attr::I(key_index)),
        ("value_index", Attr::I(value_index)),
        ("vocab_size", Attr::I(vocab_size)),
        ("delimiter", Attr::S(b",".to_vec())),
        ("offset", Attr::I(0)),
    ];
    let inputs = ["table:table_handle:0", "file_name:output:0"];
    node("import", "InitializeTableFromTextFileV2", &inputs, attrs)
}

fn file_name(path: &str) -> NodeDef {
    let proto = crate::io::tensor_proto::to_proto(&string_tensor(
        vec![TfString::new(path.as_bytes())],
        &[],
    ))
    .unwrap();
    node(
        "file_name",
        "Const",
        &[],
        vec![("value", Attr::Tensor(proto)), ("dtype", dtype(DType::String))],
    )
}

#[test]
fn a_text_file_fills_a_table_from_its_columns_or_lines() {
    let dir = std::env::temp_dir().join(format!("ferroflow_lookup_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("vocab.csv");
    std::fs::write(&path, "apple,10\r\nbanana,20\ncherry,30\n").unwrap();
    let path = path.to_str().unwrap();
    let queries = |q: &[&str]| vec![strings(&[]), strings(&[]), strings(q), Tensor::scalar(-1i64)];
    // Column 0 → column 1, parsed as int64 (the `\r` of a Windows line dropped).
    let fill = vec![file_name(path), from_text(0, 1, -1)];
    let out = call(DType::String, DType::I64, fill, queries(&["banana", "kiwi", "apple"])).unwrap();
    assert_eq!(found::<i64>(&out), [20, -1, 10]);
    // Whole line → line number, the first two lines only.
    let fill = vec![file_name(path), from_text(-2, -1, 2)];
    let out = call(DType::String, DType::I64, fill, queries(&["banana,20", "cherry,30"])).unwrap();
    assert_eq!(found::<i64>(&out), [1, -1]);
    // More lines asked for than the file has; a column past the line's end; a missing file.
    let short =
        call(DType::String, DType::I64, vec![file_name(path), from_text(-2, -1, 9)], queries(&[]));
    assert!(matches!(short, Err(Error::InvalidArgument(m)) if m.contains("Invalid vocab_size")));
    let columns =
        call(DType::String, DType::I64, vec![file_name(path), from_text(0, 5, -1)], queries(&[]));
    assert!(matches!(columns, Err(Error::InvalidArgument(m)) if m.contains("columns")));
    let missing = dir.join("absent.txt");
    let missing = missing.to_str().unwrap();
    let absent = call(
        DType::String,
        DType::I64,
        vec![file_name(missing), from_text(-2, -1, -1)],
        queries(&[]),
    );
    assert!(matches!(absent, Err(Error::NotFound(_))));
    // An empty line and an empty file are errors, as in TensorFlow, not keys "".
    std::fs::write(path, "apple\n\nbanana\n").unwrap();
    let gap =
        call(DType::String, DType::I64, vec![file_name(path), from_text(-2, -1, -1)], queries(&[]));
    assert!(matches!(gap, Err(Error::InvalidArgument(m)) if m.contains("empty line")));
    std::fs::write(path, "").unwrap();
    let empty =
        call(DType::String, DType::I64, vec![file_name(path), from_text(-2, -1, -1)], queries(&[]));
    assert!(matches!(empty, Err(Error::OutOfRange(_))));
    // Keys that are not UTF-8 stay their bytes.
    std::fs::write(path, b"\xff\xfe,1\nok,2\n").unwrap();
    let raw = string_tensor(vec![TfString::new(b"\xff\xfe"), TfString::new(b"ok")], &[2]);
    let args = vec![strings(&[]), strings(&[]), raw, Tensor::scalar(-1i64)];
    let out =
        call(DType::String, DType::I64, vec![file_name(path), from_text(0, 1, -1)], args).unwrap();
    assert_eq!(found::<i64>(&out), [1, 2]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_default_value_shaped_like_the_keys_gives_its_first_value() {
    let args = vec![
        strings(&["a"]),
        Tensor::from_slice(&[5i64], &[1]).unwrap(),
        strings(&["a", "b"]),
        Tensor::from_slice(&[-3i64, -4], &[2]).unwrap(),
    ];
    let out = call(DType::String, DType::I64, vec![import()], args).unwrap();
    assert_eq!(found::<i64>(&out), [5, -3]);
}
