//! Tracing, passes and the executor from Rust: each pass is checked on the graph it leaves and
//! on unchanged results.

use super::ir::{Graph, NodeKind};
use super::passes::{optimize, Pass};
use super::trace;
use super::{run, Mode};
use crate::ops::{self, BinaryOp, UnaryOp};
use crate::tensor::Tensor;
use crate::test_support::CpuScope;
use crate::variable::Variable;

fn traced(f: impl Fn(&Tensor) -> Tensor, example: &Tensor) -> Graph {
    let _cpu = CpuScope::new();
    trace::begin();
    let x = trace::placeholder(example, "x", example.dims().iter().map(|&d| Some(d)).collect())
        .unwrap();
    let y = f(&x);
    trace::finish(&[y]).unwrap().graph
}

fn types(g: &Graph) -> Vec<&'static str> {
    g.nodes.iter().map(|n| n.type_name()).collect()
}

fn values(g: &Graph, x: &Tensor) -> Vec<f32> {
    let _cpu = CpuScope::new();
    run(g, std::slice::from_ref(x), Mode::Run).unwrap()[0].to_vec::<f32>().unwrap()
}

fn bin(op: BinaryOp, a: &Tensor, b: &Tensor) -> Tensor {
    ops::binary(op, a, b).unwrap()
}

#[test]
fn tracing_records_ops_and_replays_them() {
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let g = traced(|x| bin(BinaryOp::Mul, x, x), &x);
    assert_eq!(types(&g), vec!["Placeholder", "Mul"]);
    let other = Tensor::from_slice(&[4.0f32, 5.0, 6.0], &[3]).unwrap();
    assert_eq!(values(&g, &other), vec![16.0, 25.0, 36.0]);
}

#[test]
fn folding_turns_constant_subgraphs_into_constants() {
    let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let g = traced(
        |x| {
            let two = Tensor::scalar(2.0f32);
            let four = bin(BinaryOp::Mul, &two, &two);
            bin(BinaryOp::Add, x, &four)
        },
        &x,
    );
    assert_eq!(types(&g), vec!["Placeholder", "Const", "Mul", "AddV2"]);
    let folded = optimize(&g, &[Pass::Fold, Pass::Dce]);
    assert_eq!(types(&folded), vec!["Placeholder", "Const", "AddV2"]);
    assert_eq!(values(&folded, &x), values(&g, &x));
    assert_eq!(values(&folded, &x), vec![5.0, 6.0]);
}

#[test]
fn cse_merges_repeated_work() {
    let x = Tensor::from_slice(&[0.5f32, 1.5], &[2]).unwrap();
    let g = traced(
        |x| {
            let a = ops::unary(UnaryOp::Exp, x).unwrap();
            let b = ops::unary(UnaryOp::Exp, x).unwrap();
            bin(BinaryOp::Add, &a, &b)
        },
        &x,
    );
    assert_eq!(types(&g), vec!["Placeholder", "Exp", "Exp", "AddV2"]);
    let merged = optimize(&g, &[Pass::Cse]);
    assert_eq!(types(&merged), vec!["Placeholder", "Exp", "AddV2"]);
    let add = &merged.nodes[2];
    assert_eq!(add.inputs[0], add.inputs[1]);
    assert_eq!(values(&merged, &x), values(&g, &x));
}

#[test]
fn dce_drops_unused_nodes_but_keeps_assignments() {
    let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let v = Variable::new(&x, "v", true, None, Some(crate::device::Device::Cpu)).unwrap();
    let g = traced(
        |x| {
            let _unused = ops::unary(UnaryOp::Sin, x).unwrap();
            v.assign(&bin(BinaryOp::Add, x, x)).unwrap();
            ops::unary(UnaryOp::Neg, x).unwrap()
        },
        &x,
    );
    assert_eq!(types(&g), vec!["Placeholder", "Sin", "AddV2", "AssignVariableOp", "Neg"]);
    let pruned = optimize(&g, &[Pass::Dce]);
    assert_eq!(types(&pruned), vec!["Placeholder", "AddV2", "AssignVariableOp", "Neg"]);
    // Tracing did not assign; running does.
    assert_eq!(v.peek().to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
    assert_eq!(values(&pruned, &x), vec![-1.0, -2.0]);
    assert_eq!(v.peek().to_vec::<f32>().unwrap(), vec![2.0, 4.0]);
}

#[test]
fn fusion_makes_one_node_of_an_elementwise_chain() {
    let x =
        Tensor::from_slice(&(0..50_000).map(|i| i as f32 / 1000.0).collect::<Vec<_>>(), &[50_000])
            .unwrap();
    let g = traced(
        |x| {
            let mut y = x.clone();
            for _ in 0..5 {
                y = bin(BinaryOp::Mul, &y, &Tensor::scalar(0.5f32));
                y = ops::unary(UnaryOp::Sin, &y).unwrap();
            }
            bin(BinaryOp::Add, &y, x)
        },
        &x,
    );
    let fused = optimize(&g, &[Pass::Fuse, Pass::Dce]);
    let kinds = types(&fused);
    assert_eq!(kinds.iter().filter(|k| **k == "FusedElementwise").count(), 1, "{kinds:?}");
    assert!(!kinds.contains(&"Sin"));
    let NodeKind::Fused(chain) = &fused.nodes.last().unwrap().kind else { panic!("not fused") };
    assert_eq!(chain.steps.len(), 11);
    // The fused loop uses the eager kernels' element functions: results agree bit for bit.
    assert_eq!(values(&fused, &x), values(&g, &x));
}

#[test]
fn fused_chains_outside_the_typed_loops_match_eager() {
    // A comparison and a select are not in the typed float loops: the chunked path runs them.
    let x = Tensor::from_slice(
        &(0..40_000).map(|i| (i as f32 - 20_000.0) / 999.0).collect::<Vec<_>>(),
        &[40_000],
    )
    .unwrap();
    let g = traced(
        |x| {
            let e = ops::unary(UnaryOp::Tanh, x).unwrap();
            let big = bin(BinaryOp::Greater, x, &Tensor::scalar(1.0f32));
            let n = ops::unary(UnaryOp::Neg, x).unwrap();
            let s = crate::dispatch::apply1(
                &crate::dispatch::Op::Select(crate::ops::select::Select),
                &[&big, &e, &n],
            )
            .unwrap();
            bin(BinaryOp::Maximum, &s, &Tensor::scalar(-3.0f32))
        },
        &x,
    );
    let fused = optimize(&g, &[Pass::Fuse, Pass::Dce]);
    assert!(types(&fused).contains(&"FusedElementwise"), "{:?}", types(&fused));
    assert_eq!(values(&fused, &x), values(&g, &x));
}

#[test]
fn fused_float64_chains_keep_nan_and_broadcast_scalars() {
    let data = [f64::NAN, -2.0, 0.0, 0.5, 9.0, -0.0, f64::INFINITY];
    let x = Tensor::from_slice(&data, &[data.len()]).unwrap();
    let _cpu = CpuScope::new();
    trace::begin();
    let p = trace::placeholder(&x, "x", vec![Some(data.len())]).unwrap();
    let t = ops::unary(UnaryOp::Tanh, &p).unwrap();
    let m = bin(BinaryOp::Minimum, &t, &Tensor::scalar(0.75f64));
    let y = bin(BinaryOp::Pow, &m, &Tensor::scalar(2.0f64));
    let g = trace::finish(&[y]).unwrap().graph;
    let fused = optimize(&g, &[Pass::Fuse, Pass::Dce]);
    assert_eq!(types(&fused), vec!["Placeholder", "Const", "Const", "FusedElementwise"]);
    let got = run(&fused, std::slice::from_ref(&x), Mode::Run).unwrap()[0].to_vec::<f64>().unwrap();
    let want: Vec<f64> = data.iter().map(|v| v.tanh().min(0.75).powf(2.0)).collect();
    assert!(got[0].is_nan(), "NaN wins in minimum");
    assert_eq!(&got[1..], &want[1..]);
}

#[test]
fn bias_rows_and_relu_fuse_and_match_the_unfused_graph_bit_for_bit() {
    // Rows shorter than a block (laid out once per task) and longer than one (read in place,
    // copied where a block wraps around the row's end), as `[C]` and `[1, C]`, with NaN,
    // infinities and signed zeros in the data and the row.
    for (rows, cols, row_dims) in [(300, 5, vec![5]), (7, 3000, vec![1, 3000]), (3, 2, vec![2])] {
        let specials = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0];
        let data: Vec<f32> = (0..rows * cols)
            .map(|i| if i % 37 == 0 { specials[i / 37 % 5] } else { (i % 23) as f32 - 11.5 })
            .collect();
        let row: Vec<f32> = (0..cols)
            .map(|i| if i % 11 == 3 { specials[i % 5] } else { (i % 7) as f32 * 0.25 - 0.5 })
            .collect();
        let x = Tensor::from_slice(&data, &[rows, cols]).unwrap();
        let b = Tensor::from_slice(&row, &row_dims).unwrap();
        let g = traced(
            |x| {
                let biased = bin(BinaryOp::Add, x, &b);
                let act = ops::composite::composite(ops::composite::Composite::Relu, &[&biased]);
                bin(BinaryOp::Mul, &act.unwrap(), &b)
            },
            &x,
        );
        let fused = optimize(&g, &[Pass::Fuse, Pass::Dce]);
        assert_eq!(types(&fused), vec!["Placeholder", "Const", "FusedElementwise"]);
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(values(&fused, &x)), bits(values(&g, &x)), "{rows}x{cols}");
    }
}

#[test]
fn fusion_leaves_values_read_twice_unfused() {
    let x = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let g = traced(
        |x| {
            let e = ops::unary(UnaryOp::Exp, x).unwrap();
            let a = bin(BinaryOp::Mul, &e, &e);
            ops::unary(UnaryOp::Neg, &a).unwrap()
        },
        &x,
    );
    // exp is read twice, so only mul→neg fuse.
    let fused = optimize(&g, &[Pass::Fuse, Pass::Dce]);
    assert_eq!(types(&fused), vec!["Placeholder", "Exp", "FusedElementwise"]);
    assert_eq!(values(&fused, &x), values(&g, &x));
}

#[test]
fn shapes_changed_by_a_relaxed_signature_are_unknown() {
    let x = Tensor::from_slice(&[1.0f32, 2.0, 3.0], &[3]).unwrap();
    let _cpu = CpuScope::new();
    trace::begin();
    let p = trace::placeholder(&x, "x", vec![None]).unwrap();
    let s = ops::reduce_sum(&p, None, false).unwrap();
    let y = bin(BinaryOp::Mul, &p, &s);
    assert_eq!(trace::describe(&y).unwrap().1, vec![None]);
    assert_eq!(trace::describe(&s).unwrap().1, Vec::<Option<usize>>::new());
    let g = trace::finish(&[y]).unwrap().graph;
    let longer = Tensor::from_slice(&[1.0f32, 1.0, 1.0, 1.0], &[4]).unwrap();
    assert_eq!(values(&g, &longer), vec![4.0; 4]);
}

#[test]
fn a_traced_random_node_draws_new_numbers_on_every_run() {
    let x = Tensor::from_slice(&[1.0f32; 8], &[8]).unwrap();
    let g = traced(|x| ops::nn::dropout(x, 0.5, None, None).unwrap(), &x);
    let optimised = optimize(&g, &super::passes::ALL);
    let runs: Vec<Vec<f32>> = (0..4).map(|_| values(&optimised, &x)).collect();
    assert!(runs.windows(2).any(|w| w[0] != w[1]), "every call used one mask: {runs:?}");
}

#[test]
fn a_fresh_instance_of_a_seeded_graph_draws_its_sequence_again() {
    let x = Tensor::from_slice(&[1.0f32; 16], &[16]).unwrap();
    let g = traced(|x| ops::nn::dropout(x, 0.5, None, Some(3)).unwrap(), &x);
    assert!(g.draws_random());
    let runs = |g: &Graph| -> Vec<Vec<f32>> { (0..3).map(|_| values(g, &x)).collect() };
    let first = runs(&g);
    assert!(first.windows(2).any(|w| w[0] != w[1]), "every run drew alike: {first:?}");
    // The original goes on drawing; each new instance starts again from the first run.
    assert_ne!(runs(&g), first);
    assert_eq!(runs(&g.fresh_instance()), first);
    let plain = traced(|x| bin(BinaryOp::Mul, x, x), &x);
    assert!(!plain.draws_random());
}

#[test]
fn composites_are_one_named_node_and_keep_their_gradient_rule() {
    let x = Tensor::from_slice(&[0.0f32, -1.0, 2.0, 0.0], &[4]).unwrap();
    let g = traced(|x| ops::nn::relu(x).unwrap(), &x);
    assert_eq!(types(&g), vec!["Placeholder", "Relu"]);
    // Differentiating a run of the graph under a tape uses ReluGrad: 0 at x == 0.
    let tape = crate::autodiff::Tape::new(false, false);
    tape.push();
    tape.watch(&x);
    let y = {
        let _cpu = CpuScope::new();
        run(&g, std::slice::from_ref(&x), Mode::Run).unwrap().remove(0)
    };
    tape.pop();
    let grad = tape.gradient(&[y], &[x.id()], &[None]).unwrap().remove(0).unwrap();
    assert_eq!(grad.to_vec::<f32>().unwrap(), vec![0.0, 0.0, 1.0, 0.0]);
}

/// `y = x; for _ in 0..3 { y = y * c }` staged as a `While` under a tape inside a trace, with
/// the gradients of `y` with respect to `x` and the captured `c` among the graph's outputs.
pub(crate) fn while_gradient_graph() -> Graph {
    use super::control;
    use crate::autodiff::tape::Tape;
    let _cpu = CpuScope::new();
    let example = Tensor::scalar(1.0f32);
    trace::begin();
    let x = trace::placeholder(&example, "x", vec![]).unwrap();
    let c = trace::placeholder(&example, "c", vec![]).unwrap();
    let tape = Tape::new(false, false);
    tape.push();
    tape.watch(&x);
    tape.watch(&c);
    let vars = [Tensor::scalar(0i32), x.clone()];
    let sub = |f: &dyn Fn(&[Tensor]) -> Vec<Tensor>| {
        trace::begin();
        let args: Vec<Tensor> =
            vars.iter().map(|v| trace::placeholder(v, "loop_var", vec![]).unwrap()).collect();
        let outs = f(&args);
        trace::finish(&outs).unwrap()
    };
    let cond = sub(&|a| vec![bin(BinaryOp::Less, &a[0], &Tensor::scalar(3i32))]);
    let body = sub(&|a| {
        vec![bin(BinaryOp::Add, &a[0], &Tensor::scalar(1i32)), bin(BinaryOp::Mul, &a[1], &c)]
    });
    let outs = control::record_while(&vars, cond, body).unwrap();
    tape.pop();
    let grads = tape.gradient(&outs[1..], &[x.id(), c.id()], &[None]).unwrap();
    let (gx, gc) = (grads[0].clone().unwrap(), grads[1].clone().unwrap());
    trace::finish(&[outs[1].clone(), gx, gc]).unwrap().graph
}

#[test]
fn a_while_gradient_is_a_backward_loop_over_saved_iterations() {
    let g = while_gradient_graph();
    // The forward loop (keeping its iterations' values) and the backward loop.
    assert_eq!(types(&g).iter().filter(|t| **t == "While").count(), 2);
    let _cpu = CpuScope::new();
    let (x, c) = (Tensor::scalar(2.0f32), Tensor::scalar(3.0f32));
    let out = run(&g, &[x, c], Mode::Run).unwrap();
    let got: Vec<f32> = out.iter().map(|t| t.to_vec::<f32>().unwrap()[0]).collect();
    // y = x c³, dy/dx = c³, dy/dc = 3 x c².
    assert_eq!(got, vec![54.0, 27.0, 54.0]);
}

/// How many values each `While` of `g` keeps, in node order.
fn kept_values(g: &Graph) -> Vec<usize> {
    let kept = g.nodes.iter().filter_map(|n| match &n.kind {
        NodeKind::While { saved, .. } => Some(saved.len()),
        _ => None,
    });
    kept.collect()
}

#[test]
fn a_forward_loop_keeps_only_what_its_backward_loop_reads() {
    let g = while_gradient_graph();
    // Traced, the forward loop keeps every value the gradient might read (i, y, i + 1, y c).
    assert_eq!(kept_values(&g), vec![4, 0]);
    let optimized = optimize(&g, &super::passes::ALL);
    // The backward loop reads only each iteration's y (dy/dc sums them; dy/dx needs c alone).
    assert_eq!(kept_values(&optimized), vec![1, 0]);
    let _cpu = CpuScope::new();
    let (x, c) = (Tensor::scalar(2.0f32), Tensor::scalar(3.0f32));
    let values = |g: &Graph| -> Vec<f32> {
        let out = run(g, &[x.clone(), c.clone()], Mode::Run).unwrap();
        out.iter().map(|t| t.to_vec::<f32>().unwrap()[0]).collect()
    };
    assert_eq!(values(&optimized), values(&g));
    assert_eq!(values(&optimized), vec![54.0, 27.0, 54.0]);
}

#[test]
fn a_while_gradient_sums_a_capture_over_iterations() {
    let g = while_gradient_graph();
    let _cpu = CpuScope::new();
    // With c = 1 every iteration contributes x c² = 1 to dy/dc: 3, not the last one's 1.
    let (x, c) = (Tensor::scalar(1.0f32), Tensor::scalar(1.0f32));
    let out = run(&g, &[x, c], Mode::Run).unwrap();
    let got: Vec<f32> = out.iter().map(|t| t.to_vec::<f32>().unwrap()[0]).collect();
    assert_eq!(got, vec![1.0, 1.0, 3.0]);
}

#[test]
fn rows_append_in_place_only_to_memory_nothing_else_holds() {
    let rows = Tensor::from_vec(vec![5.0f32, 6.0], crate::shape::Shape::new(vec![1, 2]));
    let owned = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], crate::shape::Shape::new(vec![2, 2]));
    let appended = owned.append_rows_in_place(&rows).unwrap();
    assert_eq!(appended.dims(), &[3, 2]);
    assert_eq!(appended.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // Another handle sees the memory: it must not change under it.
    let shared = appended.clone();
    let back = appended.append_rows_in_place(&rows).unwrap_err();
    assert!(back.shares_storage(&shared));
    assert_eq!(shared.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    drop(shared);
    // Rows of another width or dtype are not appended.
    let wide = Tensor::from_vec(vec![0.0f32; 3], crate::shape::Shape::new(vec![1, 3]));
    let back = back.append_rows_in_place(&wide).unwrap_err();
    let ints = Tensor::from_vec(vec![1i32, 2], crate::shape::Shape::new(vec![1, 2]));
    assert!(back.append_rows_in_place(&ints).is_err());
}

#[test]
fn a_graph_appends_in_place_only_to_values_it_owns() {
    let row = Tensor::from_vec(vec![9.0f32, 9.0], crate::shape::Shape::new(vec![1, 2]));
    let g = traced(
        |x| ops::concat(&[x, &row], 0).unwrap(),
        &Tensor::from_vec(vec![0.0f32; 4], crate::shape::Shape::new(vec![2, 2])),
    );
    let _cpu = CpuScope::new();
    // The caller keeps its input: the graph's concat must copy.
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], crate::shape::Shape::new(vec![2, 2]));
    let out = run(&g, std::slice::from_ref(&x), Mode::Run).unwrap();
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(x.dims(), &[2, 2]);
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 9.0, 9.0]);
    // Given away, it is appended to in place: same results.
    let owned = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], crate::shape::Shape::new(vec![2, 2]));
    let out = super::executor::run_owned(&g, vec![owned], Mode::Run).unwrap();
    assert_eq!(out[0].to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0, 4.0, 9.0, 9.0]);
}

/// The gradient through a Relu and a max pool, as autodiff writes it: `select(y > 0, d, d * 0)`
/// of `d = MaxPoolGrad(y, g)`. Fusion takes the MaxPoolGrad into the chain as its producer
/// (one node, no MaxPoolGrad of its own) and the result keeps every bit.
#[test]
fn a_relu_gradient_takes_in_the_max_pool_gradient_before_it() {
    use crate::ops::conv::{max_pool2d, max_pool_grad, Padding, Window};
    // 21 channels: a group of 16 in the vector scan and 5 one by one.
    let n = 2 * 9 * 7 * 21;
    let specials = [f32::NAN, -0.0, 0.0, f32::INFINITY];
    let x: Vec<f32> = (0..n)
        .map(|i| if i % 17 == 3 { specials[i % 4] } else { ((i * 37) % 23) as f32 - 11.0 })
        .collect();
    let x = Tensor::from_slice(&x, &[2, 9, 7, 21]).unwrap();
    for (kernel, strides, padding) in
        [([2, 2], [2, 2], Padding::Valid), ([3, 3], [2, 1], Padding::Same)]
    {
        let w = Window { kernel, strides, dilations: [1, 1] };
        let g = traced(
            |x| {
                let y = ops::nn::relu(&bin(BinaryOp::Sub, x, &Tensor::scalar(0.5f32))).unwrap();
                let pooled = max_pool2d(&y, &w, &padding).unwrap();
                // Pooled gradients of both signs, some infinite.
                let up = bin(BinaryOp::Sub, &pooled, &Tensor::scalar(3.0f32));
                let up = bin(BinaryOp::Div, &up, &Tensor::scalar(0.0f32));
                let up = bin(BinaryOp::Add, &bin(BinaryOp::Mul, &pooled, &pooled), &up);
                let d = max_pool_grad(&y, &up, &w, &padding).unwrap();
                let zero = Tensor::scalar(0.0f32);
                let mask = bin(BinaryOp::Greater, &y, &zero);
                ops::select(&mask, &d, &bin(BinaryOp::Mul, &d, &zero)).unwrap()
            },
            &x,
        );
        let fused = optimize(&g, &[Pass::Fuse, Pass::Dce]);
        let kinds = types(&fused);
        assert!(!kinds.contains(&"MaxPoolGrad"), "{kinds:?}");
        let producers = fused.nodes.iter().filter(|n| match &n.kind {
            NodeKind::Fused(chain) => chain.producer.is_some(),
            _ => false,
        });
        assert_eq!(producers.count(), 1, "{kinds:?}");
        let (want, got) = (values(&g, &x), values(&fused, &x));
        assert_eq!(want.len(), got.len());
        for (w, v) in want.iter().zip(&got) {
            assert!(w.to_bits() == v.to_bits() || w.is_nan() && v.is_nan(), "{w} vs {v}");
        }
        assert!(want.iter().any(|v| v.is_infinite()) && want.iter().any(|v| *v < 0.0));
    }
}

/// `relu(conv2d(x, f) + b)`, a Keras Conv2D with its activation: fusion takes the Conv2D into
/// the bias-and-Relu chain, which then runs on each tile of the convolution's output rows.
/// Tiles of many rows (one input channel) and of few (many channels), SAME and VALID, and a
/// batch whose rows do not fill the last tile; the result keeps every bit.
#[test]
fn a_bias_and_activation_take_in_the_convolution_before_them() {
    use crate::ops::conv::{conv2d, Padding, Window};
    for (image, kernel, c_out, padding) in
        [([3, 31, 29, 1], [3, 3], 32, Padding::Valid), ([2, 11, 9, 40], [3, 2], 24, Padding::Same)]
    {
        let n: usize = image.iter().product();
        let x: Vec<f32> = (0..n).map(|i| ((i * 29) % 41) as f32 / 7.0 - 3.0).collect();
        let x = Tensor::from_slice(&x, &image).unwrap();
        let fl = kernel[0] * kernel[1] * image[3] * c_out;
        let f: Vec<f32> = (0..fl).map(|i| ((i * 13) % 17) as f32 / 9.0 - 0.9).collect();
        let f = Tensor::from_slice(&f, &[kernel[0], kernel[1], image[3], c_out]).unwrap();
        let b: Vec<f32> = (0..c_out).map(|i| i as f32 * 0.25 - 2.0).collect();
        let b = Tensor::from_slice(&b, &[c_out]).unwrap();
        let w = Window { kernel, strides: [1, 1], dilations: [1, 1] };
        let g = traced(
            |x| {
                let y = conv2d(x, &f, &w, &padding).unwrap();
                ops::nn::relu(&bin(BinaryOp::Add, &y, &b)).unwrap()
            },
            &x,
        );
        let fused = optimize(&g, &[Pass::Fuse, Pass::Dce]);
        let kinds = types(&fused);
        assert!(!kinds.contains(&"Conv2D"), "{kinds:?}");
        let producer = fused.nodes.iter().find_map(|n| match &n.kind {
            NodeKind::Fused(chain) => chain.producer.as_ref().map(|p| p.op.tf_name()),
            _ => None,
        });
        assert_eq!(producer, Some("Conv2D"), "{kinds:?}");
        let (want, got) = (values(&g, &x), values(&fused, &x));
        assert_eq!(want.len(), got.len());
        assert!(want.iter().zip(&got).all(|(w, v)| w.to_bits() == v.to_bits()));
        assert!(want.contains(&0.0) && want.iter().any(|v| *v > 1.0));
    }
}

#[test]
fn an_add_of_a_scatter_into_its_shape_becomes_a_scatter_add_with_the_same_values() {
    // -0.0 in x: the dense add makes every one +0.0, and the scatter-add must too.
    let x = Tensor::from_slice(&[1.0f32, -2.0, -0.0, 4.0, -0.0, 6.0], &[3, 2]).unwrap();
    let row = Tensor::from_slice(&[2i32], &[1, 1]).unwrap();
    let update = Tensor::from_slice(&[0.5f32, -0.0], &[1, 2]).unwrap();
    let scattered =
        |x: &Tensor| bin(BinaryOp::Add, &ops::scatter_nd(&row, &update, &[3, 2]).unwrap(), x);
    let g = traced(scattered, &x);
    let accumulated = optimize(&g, &[Pass::Fuse, Pass::Dce]);
    let kinds = types(&accumulated);
    assert!(kinds.contains(&"TensorScatterAdd") && !kinds.contains(&"ScatterNd"), "{kinds:?}");
    let bits = |v: Vec<f32>| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(values(&accumulated, &x)), bits(values(&g, &x)));
    assert_eq!(bits(values(&accumulated, &x)), bits(vec![1.0, -2.0, 0.0, 4.0, 0.5, 6.0]));
    // Several indices (updates that may meet, summed first in the dense add), a broadcasting
    // add, or a scatter read twice, are left as they are.
    let rows = Tensor::from_slice(&[2i32, 0, 2], &[3, 1]).unwrap();
    let updates = Tensor::from_slice(&[0.5f32, 1.5, -1.0, 2.0, 4.0, 8.0], &[3, 2]).unwrap();
    let several =
        traced(|x| bin(BinaryOp::Add, &ops::scatter_nd(&rows, &updates, &[3, 2]).unwrap(), x), &x);
    assert!(!types(&optimize(&several, &[Pass::Fuse, Pass::Dce])).contains(&"TensorScatterAdd"));
    let r = Tensor::from_slice(&[1.0f32, 2.0], &[2]).unwrap();
    let broadcast =
        traced(|r| bin(BinaryOp::Add, &ops::scatter_nd(&row, &update, &[3, 2]).unwrap(), r), &r);
    assert!(!types(&optimize(&broadcast, &[Pass::Fuse, Pass::Dce])).contains(&"TensorScatterAdd"));
    let twice = traced(
        |x| {
            let s = ops::scatter_nd(&row, &update, &[3, 2]).unwrap();
            bin(BinaryOp::Mul, &bin(BinaryOp::Add, &s, x), &s)
        },
        &x,
    );
    assert!(!types(&optimize(&twice, &[Pass::Fuse, Pass::Dce])).contains(&"TensorScatterAdd"));
}
