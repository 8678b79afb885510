//! The registry test: every primitive has a test-table entry (its family's
//! `registry_examples`), and on every entry each declared decision agrees with the kernels —
//! the shape rule with the CPU kernel's outputs (with known and with unknown dims), the
//! attributes with decoding, the arity with the inputs, the gradient decision with the rule.

use super::primitive::TensorType;
use super::registry::Op;
use super::{
    assert, betainc, binary, bitcast, broadcast_args, cast, codecs, composite, creation,
    edit_distance, ensure_shape, fft, host_call, index, linalg, matmul, nms, nn, parse_example,
    patches, random, read_file, reduce, resize, scatter_add, segment, select, shape_input,
    shape_ops, sobol, sort, split, strings, unary,
};
use crate::tensor::Tensor;
use std::collections::BTreeSet;

fn table() -> Vec<(Op, Vec<Tensor>)> {
    [
        unary::registry_examples(),
        binary::registry_examples(),
        select::registry_examples(),
        betainc::registry_examples(),
        cast::registry_examples(),
        codecs::registry_examples(),
        nn::registry_examples(),
        composite::registry_examples(),
        reduce::registry_examples(),
        matmul::registry_examples(),
        sort::registry_examples(),
        creation::registry_examples(),
        shape_ops::registry_examples(),
        index::registry_examples(),
        scatter_add::registry_examples(),
        segment::registry_examples(),
        bitcast::registry_examples(),
        edit_distance::registry_examples(),
        parse_example::registry_examples(),
        random::index_shuffle::registry_examples(),
        random::registry_examples(),
        patches::registry_examples(),
        shape_input::registry_examples(),
        broadcast_args::registry_examples(),
        ensure_shape::registry_examples(),
        host_call::registry_examples(),
        assert::registry_examples(),
        split::registry_examples(),
        strings::registry_examples(),
        fft::registry_examples(),
        linalg::registry_examples(),
        nms::registry_examples(),
        sobol::registry_examples(),
        resize::registry_examples(),
        read_file::registry_examples(),
    ]
    .concat()
}

#[test]
fn every_name_belongs_to_one_row() {
    let mut seen = BTreeSet::new();
    for (row, names) in Op::registry() {
        // Saved under the names of the op it wraps, told apart by an attribute.
        let wraps_another = row == "ShapeFromInput";
        assert!(wraps_another || !names.is_empty(), "{row} declares no TensorFlow name");
        for name in names {
            assert!(seen.insert(name), "{name} is declared by two rows (the second is {row})");
        }
    }
}

#[test]
fn every_name_has_a_test_table_entry() {
    let covered: BTreeSet<&str> = table().iter().map(|(op, _)| op.tf_name()).collect();
    let missing: Vec<&str> = Op::registry()
        .into_iter()
        .flat_map(|(_, names)| names)
        .filter(|n| !covered.contains(n))
        .collect();
    assert!(missing.is_empty(), "no test-table entry for {missing:?}");
}

/// Ops whose output sizes depend on input values.
const VALUE_SIZED: &[&str] = &[
    // Non-max suppression selects as many boxes as the data allow.
    "NonMaxSuppressionV3",
    "NonMaxSuppressionV5",
    "NonMaxSuppressionWithOverlaps",
    "Range",
    "Where",
    "Unique",
    "BroadcastGradientArgs",
    "StringSplitV2",
    // How many values each record holds.
    "ParseExampleV2",
    "UnicodeDecode",
    "UnicodeDecodeWithOffsets",
    "StringNGrams",
    "UnsortedSegmentJoin",
    "SegmentSum",
    "SegmentProd",
    "SegmentMax",
    "SegmentMin",
    "SegmentMean",
];

/// Ops whose output sizes come from a small integer input's values (known to
/// `infer_with_values`, not to `infer`).
const SIZED_BY_INPUT: &[&str] = &[
    "UnsortedSegmentSum",
    "UnsortedSegmentProd",
    "UnsortedSegmentMax",
    "UnsortedSegmentMin",
    "EditDistance",
    "NonMaxSuppressionV4",
    "CombinedNonMaxSuppression",
    "NonMaxSuppressionPaddedV2",
    "SobolSample",
    // tf.signal: the transformed sizes are fft_length's values.
    "RFFT",
    "IRFFT",
    "RFFT2D",
    "IRFFT2D",
    "RFFT3D",
    "IRFFT3D",
    "FFTND",
    "IFFTND",
    "RFFTND",
    "IRFFTND",
];

/// Ops whose output rank depends on an input dimension.
const UNKNOWN_RANK: &[&str] = &["GatherNd", "EditDistance"];

fn known_dims(t: &TensorType) -> Vec<usize> {
    t.dims.iter().map(|d| d.expect("a kernel's output is fully known")).collect()
}

fn unknown_dims(t: &TensorType) -> TensorType {
    TensorType { dtype: t.dtype, dims: vec![None; t.rank()] }
}

#[test]
fn declarations_agree_with_kernels() {
    for (op, inputs) in table() {
        let name = op.tf_name();
        let p = op.primitive();
        assert!(p.arity().admits(inputs.len()), "{name}: arity {:?}", p.arity());
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let outputs = p.cpu(&refs).unwrap_or_else(|e| panic!("{name}'s CPU kernel: {e}"));
        let actual: Vec<TensorType> = outputs.iter().map(TensorType::of).collect();

        let known: Vec<TensorType> = inputs.iter().map(TensorType::of).collect();
        // A decoded image's size is in its file's header.
        let decodes = matches!(&op, Op::Codecs(c) if c.is_decode());
        let inferred = p.infer(&known).unwrap_or_else(|e| panic!("{name}'s infer: {e}"));
        assert_eq!(inferred.len(), actual.len(), "{name}: outputs");
        for (t, a) in inferred.iter().zip(&actual) {
            // Only sizes that depend on values stay unknown when every input dim is known.
            let by_values =
                decodes || VALUE_SIZED.contains(&name) || SIZED_BY_INPUT.contains(&name);
            if by_values || matches!(op, Op::ShapeFromInput(_)) {
                assert!(t.admits(a.dtype, &known_dims(a)), "{name}: {t:?} vs {a:?}");
            } else {
                assert_eq!(t, a, "{name}: infer over known dims");
            }
        }

        // Known elements of the inputs (a shape input's) make the sizes known.
        let values: Vec<_> = inputs.iter().map(crate::graph::known_ints::of_constant).collect();
        let exact = p.infer_with_values(&known, &values).unwrap_or_else(|e| panic!("{name}: {e}"));
        if !VALUE_SIZED.contains(&name) && !decodes {
            assert_eq!(exact, actual, "{name}: infer over known dims and values");
        }

        let unknown: Vec<TensorType> = known.iter().map(unknown_dims).collect();
        match p.infer(&unknown) {
            Ok(loose) => {
                assert_eq!(loose.len(), outputs.len(), "{name}: outputs with unknown dims");
                for (t, o) in loose.iter().zip(&outputs) {
                    assert!(t.admits(o.dtype(), o.dims()), "{name}: {t:?} vs {:?}", o.dims());
                }
            }
            // The output's rank would be unknown, which `TensorType` cannot say yet.
            // (A shape input of unknown length leaves the output's rank unknown too.)
            Err(crate::error::Error::Unimplemented(_))
                if UNKNOWN_RANK.contains(&name) || matches!(op, Op::ShapeFromInput(_)) => {}
            Err(e) => panic!("{name}'s infer (unknown dims): {e}"),
        }

        let decoded = Op::decode(name, &p.attrs()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(decoded, op, "{name}: attributes do not round-trip");

        if p.differentiable() {
            let g = crate::ops::ones_like(&outputs[0]).unwrap();
            let grads = p
                .gradient(&inputs, &outputs, &g)
                .unwrap_or_else(|e| panic!("{name}'s gradient: {e}"));
            assert_eq!(grads.len(), inputs.len(), "{name}: one gradient per input");
            for (grad, x) in grads.iter().zip(&inputs) {
                if let Some(grad) = grad {
                    assert_eq!(grad.dims(), x.dims(), "{name}: gradient shape");
                }
            }
        }
        if let super::primitive::GpuKernel::CpuOnly(why) = p.gpu() {
            assert!(!why.trim().is_empty(), "{name}: a CPU-only op says why");
        }
        if p.fusable() {
            assert_eq!(outputs.len(), 1, "{name}: a fusable op has one output");
        }
    }
}

#[test]
fn unknown_op_names_are_a_data_loss_error() {
    let err = Op::decode("NoSuchOp", &Default::default()).unwrap_err();
    assert!(matches!(err, crate::error::Error::DataLoss(_)), "{err:?}");
}
