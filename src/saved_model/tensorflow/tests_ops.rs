//! Hand-built FunctionDefs for what the fixtures do not reach: control-flow edges (a `Case`
//! index out of range, a `While` that never runs), attribute values ferroflow does not run,
//! and malformed nodes (wrong input counts and kinds), which must be typed errors.

use super::run_function::{Library, Value};
use crate::error::Error;
use crate::proto::tensorflow::attr_value::{ListValue, Value as Attr};
use crate::proto::tensorflow::{
    op_def::ArgDef, AttrValue, FunctionDef, NameAttrList, NodeDef, OpDef,
};
use crate::tensor::Tensor;

fn attr(value: Attr) -> AttrValue {
    AttrValue { value: Some(value) }
}

fn func(name: &str) -> Attr {
    Attr::Func(NameAttrList { name: name.into(), ..Default::default() })
}

fn node(name: &str, op: &str, inputs: &[&str], attrs: Vec<(&str, Attr)>) -> NodeDef {
    NodeDef {
        name: name.into(),
        op: op.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        attr: attrs.into_iter().map(|(k, v)| (k.to_string(), attr(v))).collect(),
        ..Default::default()
    }
}

/// A function of `args` returning `rets` (output name, reference) computed by `nodes`.
fn function(name: &str, args: &[&str], rets: &[(&str, &str)], nodes: Vec<NodeDef>) -> FunctionDef {
    let arg = |n: &&str| ArgDef { name: n.to_string(), ..Default::default() };
    FunctionDef {
        signature: Some(OpDef {
            name: name.into(),
            input_arg: args.iter().map(arg).collect(),
            output_arg: rets.iter().map(|(n, _)| arg(n)).collect(),
            ..Default::default()
        }),
        node_def: nodes,
        ret: rets.iter().map(|(n, r)| (n.to_string(), r.to_string())).collect(),
        ..Default::default()
    }
}

fn library(functions: Vec<FunctionDef>) -> Library {
    Library {
        functions: functions
            .into_iter()
            .map(|f| (f.signature.as_ref().unwrap().name.clone(), f))
            .collect(),
        op_defs: Default::default(),
    }
}

fn t(v: Tensor) -> Value {
    Value::Tensor(v)
}

fn floats(values: &[Value]) -> Vec<f32> {
    values[values.len() - 1].tensor("test").unwrap().to_vec().unwrap()
}

/// The branches `keep` (identity) and `negate`, and `caller`.
fn branches_and(caller: FunctionDef) -> Library {
    let keep = node("id", "Identity", &["x"], vec![]);
    library(vec![
        function("keep", &["x"], &[("y", "id:output:0")], vec![keep]),
        function("negate", &["x"], &[("y", "neg:y:0")], vec![node("neg", "Neg", &["x"], vec![])]),
        caller,
    ])
}

#[test]
fn case_runs_the_chosen_branch_and_the_last_for_an_index_out_of_range() {
    let lib = branches_and(function(
        "f",
        &["i", "x"],
        &[("y", "case:output:0")],
        vec![node(
            "case",
            "StatelessCase",
            &["i", "x"],
            vec![(
                "branches",
                Attr::List(ListValue {
                    func: vec![
                        NameAttrList { name: "keep".into(), ..Default::default() },
                        NameAttrList { name: "negate".into(), ..Default::default() },
                    ],
                    ..Default::default()
                }),
            )],
        )],
    ));
    let x = Tensor::from_slice(&[1.0f32, -2.0], &[2]).unwrap();
    for (index, want) in [(0, [1.0, -2.0]), (1, [-1.0, 2.0]), (7, [-1.0, 2.0]), (-1, [-1.0, 2.0])] {
        let out = lib.call("f", vec![t(Tensor::scalar(index)), t(x.clone())], 0).unwrap();
        assert_eq!(floats(&out), want, "branch_index {index}");
    }
    // A float index is a typed error.
    let bad = lib.call("f", vec![t(Tensor::scalar(0.5f32)), t(x)], 0);
    assert!(matches!(bad, Err(Error::InvalidArgument(_))), "{:?}", bad.err());
}

/// `while i < limit: i += step; x += x` with (i, step, limit, x) as loop variables.
fn doubling_loop() -> Library {
    let vars = ["i", "step", "limit", "x"];
    library(vec![
        function(
            "cond",
            &vars,
            &[("go", "less:z:0")],
            vec![node("less", "Less", &["i", "limit"], vec![])],
        ),
        function(
            "body",
            &vars,
            &[("i", "next:z:0"), ("step", "step"), ("limit", "limit"), ("x", "twice:z:0")],
            vec![
                node("next", "AddV2", &["i", "step"], vec![]),
                node("twice", "AddV2", &["x", "x"], vec![]),
            ],
        ),
        function(
            "f",
            &vars,
            &[("i", "loop:output:0"), ("x", "loop:output:3")],
            vec![node(
                "loop",
                "While",
                &vars,
                vec![("cond", func("cond")), ("body", func("body"))],
            )],
        ),
    ])
}

#[test]
fn while_runs_until_cond_is_false_and_passes_vars_through_when_it_never_runs() {
    let lib = doubling_loop();
    let run = |limit: i32| {
        let x = Tensor::from_slice(&[1.5f32, -1.0], &[2]).unwrap();
        let args = [Tensor::scalar(0i32), Tensor::scalar(1i32), Tensor::scalar(limit), x];
        lib.call("f", args.into_iter().map(t).collect(), 0).unwrap()
    };
    let three = run(3);
    assert_eq!(three[0].tensor("i").unwrap().to_vec::<i32>().unwrap(), [3]);
    assert_eq!(floats(&three), [12.0, -8.0]);
    let never = run(0);
    assert_eq!(never[0].tensor("i").unwrap().to_vec::<i32>().unwrap(), [0]);
    assert_eq!(floats(&never), [1.5, -1.0]);
}

#[test]
fn if_picks_its_branch_by_tensorflows_truth() {
    let lib = branches_and(function(
        "f",
        &["c", "x"],
        &[("y", "if:output:0")],
        vec![node(
            "if",
            "If",
            &["c", "x"],
            vec![("then_branch", func("keep")), ("else_branch", func("negate"))],
        )],
    ));
    let x = t(Tensor::scalar(2.0f32));
    // A scalar is true when non-zero, any other tensor when it has elements.
    for (cond, want) in [
        (Tensor::scalar(true), 2.0),
        (Tensor::scalar(0i32), -2.0),
        (Tensor::scalar(3.0f32), 2.0),
        (Tensor::from_slice::<f32>(&[], &[0]).unwrap(), -2.0),
        (Tensor::from_slice(&[0.0f32], &[1]).unwrap(), 2.0),
    ] {
        assert_eq!(floats(&lib.call("f", vec![t(cond), x.clone()], 0).unwrap()), [want]);
    }
}

fn one_node(op: &str, inputs: &[&str], attrs: Vec<(&str, Attr)>) -> Library {
    let args: Vec<&str> = inputs.iter().copied().filter(|i| !i.contains(':')).collect();
    library(vec![function("f", &args, &[("y", "n:output:0")], vec![node("n", op, inputs, attrs)])])
}

fn conv_attrs(data_format: &str, padding: &str, explicit: Vec<i64>) -> Vec<(&'static str, Attr)> {
    let ints = |i: Vec<i64>| Attr::List(ListValue { i, ..Default::default() });
    vec![
        ("strides", ints(vec![1, 1, 1, 1])),
        ("dilations", ints(vec![1, 1, 1, 1])),
        ("data_format", Attr::S(data_format.into())),
        ("padding", Attr::S(padding.into())),
        ("explicit_paddings", ints(explicit)),
    ]
}

#[test]
fn attribute_values_ferroflow_does_not_run_are_unimplemented_errors() {
    let image = t(Tensor::from_slice(&[1.0f32; 16], &[1, 2, 2, 4]).unwrap());
    let filter = t(Tensor::from_slice(&[1.0f32; 4], &[1, 1, 4, 1]).unwrap());
    let run = |attrs| {
        one_node("Conv2D", &["x", "w"], attrs).call("f", vec![image.clone(), filter.clone()], 0)
    };
    assert!(run(conv_attrs("NHWC", "VALID", vec![])).is_ok());
    assert!(run(conv_attrs("NHWC", "EXPLICIT", vec![0, 0, 1, 1, 0, 1, 0, 0])).is_ok());
    for (attrs, named) in [
        (conv_attrs("NCHW", "VALID", vec![]), "data_format"),
        (conv_attrs("NHWC", "EXPLICIT", vec![1, 0, 0, 0, 0, 0, 0, 0]), "explicit_paddings"),
        (conv_attrs("NHWC", "FULL", vec![]), "padding"),
    ] {
        match run(attrs) {
            Err(Error::Unimplemented(message)) => assert!(message.contains(named), "{message}"),
            other => panic!("{named}: expected UnimplementedError, got {:?}", other.err()),
        }
    }
}

#[test]
fn malformed_nodes_are_typed_errors_not_panics() {
    let x = t(Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap());
    let int = |v: i32| t(Tensor::scalar(v));
    let float_list = vec![("element_dtype", Attr::Type(1))];
    let cases: Vec<(Library, Vec<Value>)> = vec![
        // Wrong input counts.
        (one_node("AddV2", &["a"], vec![]), vec![x.clone()]),
        (one_node("Reshape", &["a"], vec![]), vec![x.clone()]),
        (one_node("If", &[], vec![]), vec![]),
        (one_node("StatelessCase", &[], vec![]), vec![]),
        (one_node("TensorListStack", &["a"], vec![]), vec![x.clone()]),
        // Wrong kinds: a tensor where a list or a variable goes, a float where ints go.
        (
            one_node("TensorListGetItem", &["a", "b", "c"], float_list.clone()),
            vec![x.clone(), int(0), int(-1)],
        ),
        (one_node("ReadVariableOp", &["a"], vec![]), vec![x.clone()]),
        (one_node("Transpose", &["a", "b"], vec![]), vec![x.clone(), x.clone()]),
        (one_node("LogicalAnd", &["a", "b"], vec![]), vec![x.clone(), x.clone()]),
        // Absurd sizes.
        (
            one_node("TensorListReserve", &["a", "b"], float_list.clone()),
            vec![int(-1), t(Tensor::scalar(i64::MAX))],
        ),
    ];
    for (i, (lib, args)) in cases.into_iter().enumerate() {
        match lib.call("f", args, 0) {
            Err(Error::InvalidArgument(_)) => {}
            other => {
                panic!("case {i}: expected InvalidArgumentError, got {:?}", other.map(|v| v.len()))
            }
        }
    }
}

/// Reserve(n) → GetItem(i) → Stack: unset items read as zeros of the element shape, an index
/// out of range and a wrong element dtype are errors.
#[test]
fn tensor_lists_follow_tensorflows_rules() {
    let float_list = || vec![("element_dtype", Attr::Type(1))];
    let lib = library(vec![function(
        "f",
        &["shape", "n", "i", "item"],
        &[("got", "get:item:0"), ("all", "stack:tensor:0")],
        vec![
            node("reserve", "TensorListReserve", &["shape", "n"], float_list()),
            node("set", "TensorListSetItem", &["reserve:handle:0", "i", "item"], float_list()),
            node("get", "TensorListGetItem", &["set:output_handle:0", "i", "shape"], float_list()),
            node("stack", "TensorListStack", &["set:output_handle:0", "shape"], {
                let mut a = float_list();
                a.push(("num_elements", Attr::I(-1)));
                a
            }),
        ],
    )]);
    let shape = t(Tensor::from_slice(&[-1i32], &[1]).unwrap());
    let item = t(Tensor::from_slice(&[5.0f32, 6.0], &[2]).unwrap());
    let call = |n: i32, i: i32, item: Value| {
        lib.call("f", vec![shape.clone(), t(Tensor::scalar(n)), t(Tensor::scalar(i)), item], 0)
    };
    let out = call(3, 1, item.clone()).unwrap();
    assert_eq!(out[0].tensor("got").unwrap().to_vec::<f32>().unwrap(), [5.0, 6.0]);
    let stacked = out[1].tensor("all").unwrap();
    assert_eq!(stacked.dims(), [3, 2]);
    assert_eq!(stacked.to_vec::<f32>().unwrap(), [0.0, 0.0, 5.0, 6.0, 0.0, 0.0]);
    for bad in [
        call(3, 3, item.clone()),
        call(3, -1, item.clone()),
        call(3, 0, t(Tensor::from_slice(&[1i32, 2], &[2]).unwrap())),
    ] {
        assert!(matches!(bad, Err(Error::InvalidArgument(_))), "{:?}", bad.err());
    }
}

#[test]
fn batch_matmul_adjoints_and_add_n_follow_tensorflow() {
    let a = t(Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[2, 1, 2]).unwrap());
    let b = t(Tensor::from_slice(&[1.0f32, 5.0, 0.0, 2.0], &[2, 2]).unwrap());
    // adj_y: the second operand is used transposed, [[1, 0], [5, 2]].
    let product = one_node("BatchMatMulV2", &["a", "b"], vec![("adj_y", Attr::B(true))]);
    let out = product.call("f", vec![a.clone(), b.clone()], 0).unwrap();
    assert_eq!(floats(&out), [11.0, 4.0, 23.0, 8.0]);
    let float_to_int = vec![("Tout", Attr::Type(3))];
    let v3 = one_node("BatchMatMulV3", &["a", "b"], float_to_int);
    assert!(matches!(v3.call("f", vec![a, b], 0), Err(Error::Unimplemented(_))));

    let vector = |v: &[f32]| t(Tensor::from_slice(v, &[v.len()]).unwrap());
    let sum = one_node("AddN", &["x", "y", "z"], vec![]);
    let out = sum
        .call("f", vec![vector(&[1.0, 2.0]), vector(&[3.0, 4.0]), vector(&[5.0, 6.0])], 0)
        .unwrap();
    assert_eq!(floats(&out), [9.0, 12.0]);
    let uneven = vec![vector(&[1.0, 2.0]), vector(&[3.0]), vector(&[5.0, 6.0])];
    assert!(matches!(sum.call("f", uneven, 0), Err(Error::InvalidArgument(_))));
}

/// `RaggedTensorToTensor` over row splits [0, 3, 3, 4]: rows cut to the requested two
/// columns and padded with the default; `DenseBincount` of negative values is a typed error.
#[test]
fn ragged_rows_become_a_padded_batch_and_bad_counts_are_typed_errors() {
    let types = Attr::List(ListValue { s: vec![b"ROW_SPLITS".to_vec()], ..Default::default() });
    let to_tensor = node(
        "dense",
        "RaggedTensorToTensor",
        &["shape", "values", "default", "splits"],
        vec![("row_partition_types", types)],
    );
    let lib = library(vec![function(
        "f",
        &["shape", "values", "default", "splits"],
        &[("y", "dense:result:0")],
        vec![to_tensor],
    )]);
    let args = |shape: &[i64]| {
        vec![
            t(Tensor::from_slice(shape, &[shape.len()]).unwrap()),
            t(Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap()),
            t(Tensor::scalar(-1.0f32)),
            t(Tensor::from_slice(&[0i64, 3, 3, 4], &[4]).unwrap()),
        ]
    };
    let out = lib.call("f", args(&[-1, 2]), 0).unwrap();
    assert_eq!(floats(&out), [1.0, 2.0, -1.0, -1.0, 4.0, -1.0]);
    let out = lib.call("f", args(&[-1, -1]), 0).unwrap();
    assert_eq!(floats(&out), [1.0, 2.0, 3.0, -1.0, -1.0, -1.0, 4.0, -1.0, -1.0]);
    let mut bad = args(&[-1, 2]);
    bad[3] = t(Tensor::from_slice(&[0i64, 5], &[2]).unwrap());
    assert!(matches!(lib.call("f", bad, 0), Err(Error::InvalidArgument(_))));

    let count = node("count", "DenseBincount", &["x", "size", "w"], vec![]);
    let lib =
        library(vec![function("g", &["x", "size", "w"], &[("y", "count:output:0")], vec![count])]);
    let call = |x: &[i32], w: Tensor| {
        let x = Tensor::from_slice(x, &[x.len()]).unwrap();
        lib.call("g", vec![t(x), t(Tensor::scalar(3i32)), t(w)], 0)
    };
    let empty = || Tensor::from_slice::<f32>(&[], &[0]).unwrap();
    assert_eq!(floats(&call(&[0, 2, 2, 7], empty()).unwrap()), [1.0, 0.0, 2.0]);
    assert!(matches!(call(&[1, -1], empty()), Err(Error::InvalidArgument(_))));
    let weights = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    assert!(matches!(call(&[0, 1], weights), Err(Error::Unimplemented(_))));
    // Sizes come from the file: an absurd one is an error, not an allocation.
    let huge = lib.call(
        "g",
        vec![
            t(Tensor::from_slice(&[0i32], &[1]).unwrap()),
            t(Tensor::scalar(i64::MAX)),
            t(empty()),
        ],
        0,
    );
    assert!(matches!(huge, Err(Error::ResourceExhausted(_))));
}
