//! The registry: every primitive, listed once. `primitives!` generates the `Op` enum (a
//! primitive with its attributes: what graphs hold), the one `match` from an op to its
//! declaration, and reading an op back by TensorFlow name. Adding a primitive means adding
//! its row here and implementing `Primitive` and `Decode` in its family file.

use super::assert::Assert;
use super::betainc::Betainc;
use super::bitcast::Bitcast;
use super::broadcast_args::BroadcastGradientArgs;
use super::codecs::CodecOp;
use super::composite::Composite;
use super::edit_distance::EditDistance;
use super::ensure_shape::EnsureShape;
use super::fft::Fft;
use super::host_call::HostCall;
use super::linalg::LinalgOp;
use super::matmul::MatMulAttrs;
use super::nms::Nms;
use super::parse_example::ParseExampleV2;
use super::patches::{MaxPoolGrad, PatchSpec, PatchesGrad};
use super::primitive::{Attrs, Decode, Primitive};
use super::random::index_shuffle::RandomIndexShuffle;
use super::random::{RandomSpec, RngSkip, RngState, StatelessSpec};
use super::read_file::ReadFile;
use super::reduce::{ArgReduce, Cumulative, Reduce};
use super::resize::Resize;
use super::scatter_add::TensorScatterAdd;
use super::segment::Segment;
use super::shape_input::{ShapeFromInput, SHAPE_INPUT_ATTR};
use super::shape_ops::{BroadcastTo, Concat, Pad, Reshape, ShapeOf, SliceSpec, Tile, Transpose};
use super::sobol::SobolSample;
use super::split::Split;
use super::strings::StringOp;
use super::{
    binary::BinaryOp, cast::Cast, creation::Fill, creation::Range, index::Gather, index::GatherNd,
    index::ScatterNd, index::WhereIndices, nn::Softmax, select::Select, sort::Sort, sort::Unique,
    unary::UnaryOp,
};
use crate::error::{Error, Result};

macro_rules! primitives {
    ($($(#[$doc:meta])* $variant:ident($ty:ty)),* $(,)?) => {
        /// A primitive with its attributes. Everything else (means, losses, optimisers) is
        /// composed of these, so it inherits their kernels and gradients.
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        pub enum Op {
            $($(#[$doc])* $variant($ty),)*
        }

        impl Op {
            /// The op's declaration.
            pub fn primitive(&self) -> &dyn Primitive {
                match self {
                    $(Op::$variant(p) => p,)*
                }
            }

            /// Reads an op back from its TensorFlow name and attributes (a saved graph).
            pub fn decode(name: &str, attrs: &Attrs) -> Result<Op> {
                if attrs.contains_key(SHAPE_INPUT_ATTR) {
                    return ShapeFromInput::decode(name, attrs).map(Op::ShapeFromInput);
                }
                $(if <$ty as Decode>::names().contains(&name) {
                    return <$ty as Decode>::decode(name, attrs).map(Op::$variant);
                })*
                Err(Error::DataLoss(format!(
                    "a saved graph names the op '{name}', which this version of ferroflow \
                     does not have"
                )))
            }

            /// Every primitive's TensorFlow names, by registry row.
            pub fn registry() -> Vec<(&'static str, Vec<&'static str>)> {
                vec![$((stringify!($variant), <$ty as Decode>::names()),)*]
            }
        }
    };
}

primitives! {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Select(Select),
    /// Inputs: a, b, x.
    Betainc(Betainc),
    Cast(Cast),
    Reduce(Reduce),
    ArgReduce(ArgReduce),
    Cumulative(Cumulative),
    MatMul(MatMulAttrs),
    Reshape(Reshape),
    Transpose(Transpose),
    BroadcastTo(BroadcastTo),
    Concat(Concat),
    StridedSlice(SliceSpec),
    /// Inputs: x and a scalar constant.
    Pad(Pad),
    Tile(Tile),
    Gather(Gather),
    GatherNd(GatherNd),
    ScatterNd(ScatterNd),
    /// Inputs: tensor, indices, updates.
    TensorScatterAdd(TensorScatterAdd),
    /// Inputs: data, segment ids (and num_segments for the unsorted ops).
    Segment(Segment),
    WhereIndices(WhereIndices),
    /// Outputs: values, int32 indices.
    Sort(Sort),
    /// Outputs: values, indices.
    Unique(Unique),
    /// Inputs: start, limit, delta.
    Range(Range),
    /// Input: a scalar value.
    Fill(Fill),
    Softmax(Softmax),
    /// No inputs: a random tensor (a stateful node).
    Random(RandomSpec),
    RngState(RngState),
    RngSkip(RngSkip),
    StatelessRandom(StatelessSpec),
    /// Inputs: index, seed, max_index.
    RandomIndexShuffle(RandomIndexShuffle),
    Bitcast(Bitcast),
    /// Inputs: the hypothesis' indices, values and shape, then the truth's.
    EditDistance(EditDistance),
    /// Inputs: serialized, names, one default per dense key.
    ParseExample(ParseExampleV2),
    Shape(ShapeOf),
    Patches(PatchSpec),
    PatchesGrad(PatchesGrad),
    MaxPoolGrad(MaxPoolGrad),
    /// A named composite (`Relu`, `MaxPool`, ...).
    Composite(Composite),
    /// Outputs: the two operands' reduction axes.
    BroadcastGradientArgs(BroadcastGradientArgs),
    /// Outputs: the pieces.
    Split(Split),
    /// `tf.strings` (one TensorFlow name per variant).
    Strings(StringOp),
    /// No outputs: raises when its condition (input 0) is false (a node with an effect).
    Assert(Assert),
    /// Its input, once its shape is checked (a node with an effect: it can raise).
    EnsureShape(EnsureShape),
    /// Reshape, Fill, BroadcastTo, a random op or a reduction with its shape (axes) as its
    /// last input.
    ShapeFromInput(ShapeFromInput),
    /// A host function called when the node runs (`tf.py_function`, `tf.numpy_function`).
    HostCall(HostCall),
    /// tf.signal's FFT family (FFT ... IRFFTND). Inputs: the signal, then fft_length (real
    /// and N-D ops), then axes (N-D ops).
    Fft(Fft),
    /// `tf.linalg` decompositions and solvers (one TensorFlow name per variant).
    Linalg(LinalgOp),
    /// Image codecs (`tf.io.decode_*`/`encode_*`; one TensorFlow name per variant).
    Codecs(CodecOp),
    /// The non-max-suppression family (one TensorFlow name per variant).
    Nms(Nms),
    /// Inputs: dim, num_results, skip.
    SobolSample(SobolSample),
    /// ResizeBilinear (input: images) and ResizeBilinearGrad (inputs: gradient, images).
    Resize(Resize),
    /// Input: a scalar file name (a node with an effect: the file may change between runs).
    ReadFile(ReadFile),
}

impl Op {
    /// TensorFlow's name for the op, as placement logs and graphs print it.
    pub fn tf_name(&self) -> &'static str {
        self.primitive().tf_name()
    }

    /// A stateful node's op for its next run in a graph (a random op's next draw).
    pub fn next_run(&self) -> Op {
        match self {
            Op::Random(spec) => Op::Random(spec.next_run()),
            Op::ShapeFromInput(op) => Op::ShapeFromInput(op.next_run()),
            other => other.clone(),
        }
    }

    /// The op that recomputes a stateful node for a gradient: it draws what the node drew.
    pub fn replaying(&self) -> Op {
        match self {
            Op::Random(spec) => Op::Random(spec.replaying()),
            Op::HostCall(call) => Op::HostCall(call.replaying()),
            Op::ShapeFromInput(op) => Op::ShapeFromInput(op.replaying()),
            other => other.clone(),
        }
    }
}

/// Ops saved by format version 1 as Rust enum values: unit variants were bare strings, which
/// now carry an (empty) attribute struct.
pub fn legacy_op(value: serde_json::Value) -> Result<Op> {
    let value = match value {
        serde_json::Value::String(unit) => {
            serde_json::Value::Object(serde_json::Map::from_iter([(unit, serde_json::Value::Null)]))
        }
        other => other,
    };
    serde_json::from_value(value)
        .map_err(|e| Error::DataLoss(format!("a version 1 saved graph holds an unknown op: {e}")))
}
