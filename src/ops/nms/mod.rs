//! The non-max-suppression family (`tf.image.non_max_suppression*`,
//! `combined_non_max_suppression`): one declaration, `Nms`, whose variants are TensorFlow's
//! ops NonMaxSuppressionV3/V4/V5, NonMaxSuppressionWithOverlaps and CombinedNonMaxSuppression,
//! plus `NonMaxSuppressionPaddedV2`, the tiled algorithm TensorFlow composes in Python for
//! `non_max_suppression_padded` (a function there, one kernel here). Greedy selection is
//! sequential, so every variant is CPU-only (soft placement runs it on the host) and, as in
//! TensorFlow, none has a gradient. Checks and messages are the kernels'.

mod combined;
mod greedy;
mod padded;
mod stl;

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    describe_dims, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use greedy::{Score, Thresholds};
use half::f16;
use serde_json::Value;

/// One of the family's ops with its attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Nms {
    /// boxes, scores, max_output_size, iou_threshold, score_threshold -> indices.
    V3,
    /// V3's inputs -> indices, valid count.
    V4 { pad_to_max_output_size: bool },
    /// V3's inputs and soft_nms_sigma -> indices, scores, valid count.
    V5 { pad_to_max_output_size: bool },
    /// overlaps, scores, max_output_size, overlap_threshold, score_threshold -> indices.
    WithOverlaps,
    /// boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
    /// score_threshold -> boxes, scores, classes, valid detections.
    Combined { pad_per_class: bool, clip_boxes: bool },
    /// boxes `[batch, n, 4]`, scores `[batch, n]`, max_output_size, iou_threshold,
    /// score_threshold -> indices `[batch, max_output_size]`, valid counts `[batch]`.
    PaddedV2 { sorted_input: bool, canonicalized_coordinates: bool, tile_size: usize },
}

const NAMES: [&str; 6] = [
    "NonMaxSuppressionV3",
    "NonMaxSuppressionV4",
    "NonMaxSuppressionV5",
    "NonMaxSuppressionWithOverlaps",
    "CombinedNonMaxSuppression",
    "NonMaxSuppressionPaddedV2",
];

fn invalid(op: &str, message: impl std::fmt::Display) -> Error {
    Error::InvalidArgument(format!("{message} [Op:{op}]"))
}

/// TensorFlow's `TensorShape::DebugString`: `[2,3]`.
fn shape_string(t: &TensorType) -> String {
    describe_dims(&t.dims)
}

fn expect_dtype(op: &str, inputs: &[TensorType], k: usize, want: DType) -> Result<()> {
    let got = input(inputs, k)?.dtype;
    if got != want {
        return Err(invalid(
            op,
            format!(
                "cannot compute {op} as input #{k}(zero-based) was expected to be a {} tensor but \
                 is a {} tensor",
                want.name(),
                got.name()
            ),
        ));
    }
    Ok(())
}

/// A scalar input's rank check, worded as the kernel's (`suffix` adds V3's rank note).
fn expect_scalar(op: &str, t: &TensorType, what: &str, rank_note: bool) -> Result<()> {
    if t.rank() != 0 {
        let note = if rank_note {
            format!(" (Shape must be rank 0 but is rank {})", t.rank())
        } else {
            String::new()
        };
        return Err(invalid(
            op,
            format!("{what} must be 0-D, got shape {}{note}", shape_string(t)),
        ));
    }
    Ok(())
}

fn known_value(values: &[Option<Vec<Option<i64>>>], k: usize) -> Option<usize> {
    match values.get(k) {
        Some(Some(v)) if v.len() == 1 => v[0].and_then(|x| usize::try_from(x).ok()),
        _ => None,
    }
}

impl Nms {
    fn name(&self) -> &'static str {
        NAMES[match self {
            Nms::V3 => 0,
            Nms::V4 { .. } => 1,
            Nms::V5 { .. } => 2,
            Nms::WithOverlaps => 3,
            Nms::Combined { .. } => 4,
            Nms::PaddedV2 { .. } => 5,
        }]
    }

    /// The dtype checks of the op definition: the boxes' type `T` and, for V3/V4, the
    /// thresholds' `T_threshold`.
    fn check_dtypes(&self, inputs: &[TensorType]) -> Result<DType> {
        let op = self.name();
        let t = input(inputs, 0)?.dtype;
        match self {
            Nms::V3 | Nms::V4 { .. } | Nms::V5 { .. } => {
                if !matches!(t, DType::F16 | DType::F32) {
                    return Err(Error::unsupported_dtype(op, t));
                }
                expect_dtype(op, inputs, 1, t)?;
                expect_dtype(op, inputs, 2, DType::I32)?;
                let threshold = if matches!(self, Nms::V5 { .. }) { t } else { inputs[3].dtype };
                if !matches!(threshold, DType::F16 | DType::F32) {
                    return Err(Error::unsupported_dtype(op, threshold));
                }
                for k in 3..inputs.len() {
                    expect_dtype(op, inputs, k, threshold)?;
                }
            }
            Nms::WithOverlaps | Nms::PaddedV2 { .. } => {
                for k in 0..inputs.len() {
                    expect_dtype(op, inputs, k, if k == 2 { DType::I32 } else { DType::F32 })?;
                }
            }
            Nms::Combined { .. } => {
                for k in 0..inputs.len() {
                    let want = if k == 2 || k == 3 { DType::I32 } else { DType::F32 };
                    expect_dtype(op, inputs, k, want)?;
                }
            }
        }
        Ok(t)
    }

    /// The kernels' shape checks, on what is known statically.
    fn check_shapes(&self, inputs: &[TensorType]) -> Result<()> {
        let op = self.name();
        let v3 = matches!(self, Nms::V3);
        match self {
            Nms::V3 | Nms::V4 { .. } | Nms::V5 { .. } | Nms::WithOverlaps => {
                expect_scalar(op, &inputs[2], "max_output_size", v3)?;
                let what = if matches!(self, Nms::WithOverlaps) {
                    "overlap_threshold"
                } else {
                    "iou_threshold"
                };
                expect_scalar(op, &inputs[3], what, v3)?;
                expect_scalar(op, &inputs[4], "score_threshold", false)?;
                if matches!(self, Nms::V5 { .. }) {
                    expect_scalar(op, &inputs[5], "soft_nms_sigma", false)?;
                }
                let (boxes, scores) = (&inputs[0], &inputs[1]);
                let n = if matches!(self, Nms::WithOverlaps) {
                    if boxes.rank() != 2 {
                        return Err(invalid(
                            op,
                            format!("overlaps must be 2-D{}", shape_string(boxes)),
                        ));
                    }
                    if let (Some(a), Some(b)) = (boxes.dims[0], boxes.dims[1]) {
                        if a != b {
                            return Err(invalid(
                                op,
                                format!("overlaps must be square{}", shape_string(boxes)),
                            ));
                        }
                    }
                    boxes.dims[0]
                } else {
                    if boxes.rank() != 2 {
                        return Err(invalid(
                            op,
                            format!(
                                "boxes must be 2-D{} (Shape must be rank 2 but is rank {})",
                                shape_string(boxes),
                                boxes.rank()
                            ),
                        ));
                    }
                    if let Some(c) = boxes.dims[1].filter(|&c| c != 4) {
                        return Err(invalid(
                            op,
                            format!("boxes must have 4 columns (Dimension must be 4 but is {c})"),
                        ));
                    }
                    boxes.dims[0]
                };
                if scores.rank() != 1 {
                    return Err(invalid(
                        op,
                        format!(
                            "scores must be 1-D{} (Shape must be rank 1 but is rank {})",
                            shape_string(scores),
                            scores.rank()
                        ),
                    ));
                }
                if let (Some(n), Some(m)) = (n, scores.dims[0]) {
                    if n != m {
                        return Err(invalid(
                            op,
                            format!("scores has incompatible shape (Dimensions must be equal, but are {n} and {m})"),
                        ));
                    }
                }
            }
            Nms::Combined { .. } => {
                let (boxes, scores) = (&inputs[0], &inputs[1]);
                if boxes.rank() != 4 {
                    return Err(invalid(
                        op,
                        format!(
                            "boxes must be 4-D [batch, num_boxes, q, 4], got shape {}",
                            shape_string(boxes)
                        ),
                    ));
                }
                if scores.rank() != 3 {
                    return Err(invalid(
                        op,
                        format!(
                            "scores must be 3-D [batch, num_boxes, num_classes], got shape {}",
                            shape_string(scores)
                        ),
                    ));
                }
                let differ =
                    |a: Option<usize>, b: Option<usize>| a.zip(b).is_some_and(|(a, b)| a != b);
                if boxes.dims[2].is_some_and(|q| q != 1) && differ(boxes.dims[2], scores.dims[2]) {
                    return Err(invalid(
                        op,
                        "third dimension of boxes must be either 1 or num classes",
                    ));
                }
                if boxes.dims[3].is_some_and(|c| c != 4) {
                    return Err(invalid(op, "boxes must have 4 columns"));
                }
                if differ(scores.dims[1], boxes.dims[1]) {
                    return Err(invalid(op, "scores has incompatible shape"));
                }
                if differ(boxes.dims[0], scores.dims[0]) {
                    return Err(invalid(op, "boxes and scores must have same batch size"));
                }
                expect_scalar(op, &inputs[2], "max_size_per_class", false)?;
                expect_scalar(op, &inputs[3], "max_total_size", false)?;
                expect_scalar(op, &inputs[4], "iou_threshold", false)?;
                expect_scalar(op, &inputs[5], "score_threshold", false)?;
            }
            Nms::PaddedV2 { .. } => {
                let (boxes, scores) = (&inputs[0], &inputs[1]);
                if boxes.rank() != 3 || boxes.dims[2].is_some_and(|c| c != 4) {
                    return Err(invalid(
                        op,
                        format!("boxes must be [batch, num_boxes, 4], got {}", shape_string(boxes)),
                    ));
                }
                if scores.rank() != 2
                    || boxes.dims[..2]
                        .iter()
                        .zip(&scores.dims)
                        .any(|(a, b)| a.zip(*b).is_some_and(|(a, b)| a != b))
                {
                    return Err(invalid(
                        op,
                        format!(
                            "scores must be [batch, num_boxes] for boxes {}, got {}",
                            shape_string(boxes),
                            shape_string(scores)
                        ),
                    ));
                }
                for (k, what) in
                    [(2, "max_output_size"), (3, "iou_threshold"), (4, "score_threshold")]
                {
                    expect_scalar(op, &inputs[k], what, false)?;
                }
            }
        }
        Ok(())
    }
}

fn scalar_f32(t: &Tensor) -> f32 {
    match t.buffer() {
        Buffer::F32(v) => v[0],
        Buffer::F16(v) => v[0].to_f32(),
        _ => f32::NAN,
    }
}

fn scalar_i32(t: &Tensor) -> i32 {
    match t.buffer() {
        Buffer::I32(v) => v[0],
        _ => 0,
    }
}

fn floats(t: &Tensor) -> Result<&[f32]> {
    match t.buffer() {
        Buffer::F32(v) => Ok(v),
        _ => Err(Error::Internal("non-max suppression expects float32 data".into())),
    }
}

fn vector<T: crate::element::Element>(data: Vec<T>) -> Tensor {
    let n = data.len();
    Tensor::from_vec(data, Shape::new(vec![n]))
}

impl Nms {
    /// V3/V4/V5/WithOverlaps: one greedy run.
    fn greedy_outputs<T: Score + crate::element::Element>(
        &self,
        inputs: &[&Tensor],
        scores: &[T],
    ) -> Result<Vec<Tensor>> {
        let op = self.name();
        let threshold = |k: usize| T::of(scalar_f32(inputs[k]));
        let similarity = threshold(3);
        if !matches!(self, Nms::WithOverlaps) && !(T::of(0.0)..=T::of(1.0)).contains(&similarity) {
            return Err(invalid(op, "iou_threshold must be in [0, 1]"));
        }
        let sigma = if matches!(self, Nms::V5 { .. }) { threshold(5) } else { T::of(0.0) };
        let sigma_valid = sigma >= T::of(0.0);
        if !sigma_valid {
            return Err(invalid(op, "soft_nms_sigma_val must be >= 0"));
        }
        let max_output = scalar_i32(inputs[2]);
        let max_output = usize::try_from(max_output)
            .map_err(|_| invalid(op, "output size must be non-negative"))?;
        let t = Thresholds { similarity, score: threshold(4), soft_nms_sigma: sigma };
        let selection = if matches!(self, Nms::WithOverlaps) {
            let overlaps = floats(inputs[0])?;
            let n = scores.len();
            greedy::greedy(scores, max_output, &t, |i, j| overlaps[i * n + j])
        } else {
            let boxes: Vec<[f32; 4]> = match inputs[0].buffer() {
                Buffer::F32(v) => v.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
                Buffer::F16(v) => {
                    v.chunks_exact(4).map(|c| [c[0].f(), c[1].f(), c[2].f(), c[3].f()]).collect()
                }
                _ => return Err(Error::Internal(format!("{op} expects float boxes"))),
            };
            greedy::greedy(scores, max_output, &t, |i, j| greedy::iou(boxes[i], boxes[j]))
        };
        let valid = selection.indices.len() as i32;
        let (mut indices, mut picked) = (selection.indices, selection.scores);
        let pad = matches!(
            self,
            Nms::V4 { pad_to_max_output_size: true } | Nms::V5 { pad_to_max_output_size: true }
        );
        if pad {
            indices.resize(max_output, 0);
            picked.resize(max_output, T::default());
        }
        Ok(match self {
            Nms::V3 | Nms::WithOverlaps => vec![vector(indices)],
            Nms::V4 { .. } => vec![vector(indices), Tensor::scalar(valid)],
            _ => vec![vector(indices), vector(picked), Tensor::scalar(valid)],
        })
    }

    fn combined_outputs(
        &self,
        inputs: &[&Tensor],
        pad_per_class: bool,
        clip_boxes: bool,
    ) -> Result<Vec<Tensor>> {
        let op = self.name();
        let (b, s) = (inputs[0].dims(), inputs[1].dims());
        let per_class = scalar_i32(inputs[2]);
        if per_class <= 0 {
            return Err(invalid(op, "max_size_per_class must be positive"));
        }
        let total = scalar_i32(inputs[3]);
        if total <= 0 {
            return Err(invalid(op, "max_total_size must be > 0"));
        }
        let iou_threshold = scalar_f32(inputs[4]);
        if !(0.0..=1.0).contains(&iou_threshold) {
            return Err(invalid(op, "iou_threshold must be in [0, 1]"));
        }
        let layout = combined::Layout {
            batch: b[0],
            boxes: b[1],
            q: b[2],
            classes: s[2],
            per_class: per_class as usize,
            total: total as usize,
            score_threshold: scalar_f32(inputs[5]),
            iou_threshold,
            pad_per_class,
            clip_boxes,
        };
        let k = if pad_per_class {
            layout.total.min(layout.per_class.saturating_mul(layout.classes).min(i32::MAX as usize))
        } else {
            layout.total
        };
        crate::shape::check_alloc(layout.batch.saturating_mul(k).saturating_mul(4), DType::F32)?;
        let r = combined::combined_nms(&layout, floats(inputs[0])?, floats(inputs[1])?);
        let (batch, k) = (layout.batch, r.per_image);
        Ok(vec![
            Tensor::from_vec(r.boxes, Shape::new(vec![batch, k, 4])),
            Tensor::from_vec(r.scores, Shape::new(vec![batch, k])),
            Tensor::from_vec(r.classes, Shape::new(vec![batch, k])),
            vector(r.valid),
        ])
    }

    fn padded_outputs(&self, inputs: &[&Tensor], o: padded::Options) -> Result<Vec<Tensor>> {
        let op = self.name();
        let dims = inputs[0].dims();
        let (batch, n) = (dims[0], dims[1]);
        let boxes: Vec<Vec<[f32; 4]>> = floats(inputs[0])?
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect::<Vec<_>>()
            .chunks(n.max(1))
            .map(<[_]>::to_vec)
            .collect();
        let scores: Vec<Vec<f32>> =
            floats(inputs[1])?.chunks(n.max(1)).map(<[_]>::to_vec).collect();
        if n == 0 || (!o.canonicalized && batch == 0) {
            // TensorFlow reads the first box's corners to canonicalize (its graph slices them
            // in both branches of a cond, so even canonicalized empty boxes fail).
            let axis = if n == 0 { 1 } else { 0 };
            return Err(Error::Value(format!(
                "slice index 0 of dimension {axis} out of bounds. [Op:{op}]"
            )));
        }
        crate::shape::check_alloc(
            batch.saturating_mul(o.max_output.max(n)).saturating_mul(4),
            DType::F32,
        )?;
        let (indices, valid) = if batch == 0 {
            (vec![0; batch * o.max_output], vec![0; batch])
        } else {
            padded::padded_nms(boxes, scores, n, &o)
        };
        Ok(vec![Tensor::from_vec(indices, Shape::new(vec![batch, o.max_output])), vector(valid)])
    }
}

impl Primitive for Nms {
    fn tf_name(&self) -> &'static str {
        self.name()
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(match self {
            Nms::V5 { .. } | Nms::Combined { .. } => 6,
            _ => 5,
        })
    }

    fn attrs(&self) -> Attrs {
        let mut a = Attrs::new();
        match *self {
            Nms::V4 { pad_to_max_output_size } | Nms::V5 { pad_to_max_output_size } => {
                a.insert("pad_to_max_output_size".into(), Value::Bool(pad_to_max_output_size));
            }
            Nms::Combined { pad_per_class, clip_boxes } => {
                a.insert("pad_per_class".into(), Value::Bool(pad_per_class));
                a.insert("clip_boxes".into(), Value::Bool(clip_boxes));
            }
            Nms::PaddedV2 { sorted_input, canonicalized_coordinates, tile_size } => {
                a.insert("sorted_input".into(), Value::Bool(sorted_input));
                a.insert(
                    "canonicalized_coordinates".into(),
                    Value::Bool(canonicalized_coordinates),
                );
                a.insert("tile_size".into(), Value::from(tile_size));
            }
            Nms::V3 | Nms::WithOverlaps => {}
        }
        a
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        self.infer_with_values(inputs, &[])
    }

    fn infer_with_values(
        &self,
        inputs: &[TensorType],
        values: &[Option<Vec<Option<i64>>>],
    ) -> Result<Vec<TensorType>> {
        let t = self.check_dtypes(inputs)?;
        self.check_shapes(inputs)?;
        let i32s = |dims: Vec<Option<usize>>| TensorType { dtype: DType::I32, dims };
        let max = known_value(values, 2);
        Ok(match *self {
            Nms::V3 | Nms::WithOverlaps => vec![i32s(vec![None])],
            Nms::V4 { pad_to_max_output_size: pad } => {
                vec![i32s(vec![if pad { max } else { None }]), i32s(vec![])]
            }
            Nms::V5 { pad_to_max_output_size: pad } => {
                let k = if pad { max } else { None };
                vec![i32s(vec![k]), TensorType { dtype: t, dims: vec![k] }, i32s(vec![])]
            }
            Nms::Combined { pad_per_class, .. } => {
                let b = inputs[0].dims[0];
                let total = known_value(values, 3);
                let k = if pad_per_class {
                    match (total, known_value(values, 2), inputs[1].dims[2]) {
                        (Some(t), Some(p), Some(c)) => Some(t.min(p.saturating_mul(c))),
                        _ => None,
                    }
                } else {
                    total
                };
                let f32s = |dims| TensorType { dtype: DType::F32, dims };
                vec![f32s(vec![b, k, Some(4)]), f32s(vec![b, k]), f32s(vec![b, k]), i32s(vec![b])]
            }
            Nms::PaddedV2 { .. } => {
                let b = inputs[0].dims[0];
                vec![i32s(vec![b, max]), i32s(vec![b])]
            }
        })
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.infer(&types).map_err(crate::ops::segment::eager_error)?;
        match *self {
            Nms::Combined { pad_per_class, clip_boxes } => {
                self.combined_outputs(inputs, pad_per_class, clip_boxes)
            }
            Nms::PaddedV2 { sorted_input, canonicalized_coordinates, tile_size } => {
                let max_output = usize::try_from(scalar_i32(inputs[2]))
                    .map_err(|_| invalid(self.name(), "max_output_size must be non-negative"))?;
                let o = padded::Options {
                    max_output,
                    iou_threshold: scalar_f32(inputs[3]),
                    score_threshold: scalar_f32(inputs[4]),
                    sorted_input,
                    canonicalized: canonicalized_coordinates,
                    tile_size,
                };
                self.padded_outputs(inputs, o)
            }
            _ => match inputs[1].buffer() {
                Buffer::F32(s) => self.greedy_outputs::<f32>(inputs, s),
                Buffer::F16(s) => self.greedy_outputs::<f16>(inputs, s),
                _ => Err(Error::unsupported_dtype(self.name(), inputs[1].dtype())),
            },
        }
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly(
                "greedy selection is sequential; TensorFlow's kernels are CPU ones too",
            ),
            // TensorFlow registers no gradient for any of them.
            differentiable: false,
            fusable: false,
        }
    }
}

fn flag(attrs: &Attrs, key: &str) -> Result<bool> {
    attrs.get(key).and_then(Value::as_bool).ok_or_else(|| {
        Error::DataLoss(format!(
            "a saved non-max-suppression node lacks its boolean attribute {key}"
        ))
    })
}

impl Decode for Nms {
    fn names() -> Vec<&'static str> {
        NAMES.to_vec()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        Ok(match name {
            "NonMaxSuppressionV3" => Nms::V3,
            "NonMaxSuppressionV4" => {
                Nms::V4 { pad_to_max_output_size: flag(attrs, "pad_to_max_output_size")? }
            }
            "NonMaxSuppressionV5" => {
                Nms::V5 { pad_to_max_output_size: flag(attrs, "pad_to_max_output_size")? }
            }
            "NonMaxSuppressionWithOverlaps" => Nms::WithOverlaps,
            "CombinedNonMaxSuppression" => Nms::Combined {
                pad_per_class: flag(attrs, "pad_per_class")?,
                clip_boxes: flag(attrs, "clip_boxes")?,
            },
            "NonMaxSuppressionPaddedV2" => Nms::PaddedV2 {
                sorted_input: flag(attrs, "sorted_input")?,
                canonicalized_coordinates: flag(attrs, "canonicalized_coordinates")?,
                tile_size: attrs
                    .get("tile_size")
                    .and_then(Value::as_u64)
                    .filter(|&t| t > 0)
                    .ok_or_else(|| {
                        Error::DataLoss(
                            "a saved NonMaxSuppressionPaddedV2 node lacks its tile_size".into(),
                        )
                    })? as usize,
            },
            other => return Err(Error::Internal(format!("Nms cannot decode a {other} node"))),
        })
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let boxes = Tensor::from_slice(
        &[0.0f32, 0.0, 1.0, 1.0, 0.0, 0.1, 1.0, 1.1, 0.0, 10.0, 1.0, 11.0],
        &[3, 4],
    )
    .unwrap();
    let scores = Tensor::from_slice(&[0.9f32, 0.75, 0.6], &[3]).unwrap();
    let f = |v: f32| Tensor::scalar(v);
    let max = Tensor::scalar(2i32);
    let greedy = vec![boxes.clone(), scores.clone(), max.clone(), f(0.5), f(0.0)];
    let mut soft = greedy.clone();
    soft.push(f(0.5));
    let overlaps =
        Tensor::from_slice(&[1.0f32, 0.7, 0.0, 0.7, 1.0, 0.1, 0.0, 0.1, 1.0], &[3, 3]).unwrap();
    let b4 = Tensor::from_slice(&boxes.to_vec::<f32>().unwrap(), &[1, 3, 1, 4]).unwrap();
    let s3 = Tensor::from_slice(&[0.9f32, 0.1, 0.75, 0.8, 0.6, 0.3], &[1, 3, 2]).unwrap();
    let b3 = Tensor::from_slice(&boxes.to_vec::<f32>().unwrap(), &[1, 3, 4]).unwrap();
    let s2 = Tensor::from_slice(&[0.9f32, 0.75, 0.6], &[1, 3]).unwrap();
    vec![
        (Op::Nms(Nms::V3), greedy.clone()),
        (Op::Nms(Nms::V4 { pad_to_max_output_size: true }), greedy.clone()),
        (Op::Nms(Nms::V5 { pad_to_max_output_size: false }), soft),
        (Op::Nms(Nms::WithOverlaps), vec![overlaps, scores, max.clone(), f(0.5), f(0.0)]),
        (
            Op::Nms(Nms::Combined { pad_per_class: false, clip_boxes: true }),
            vec![b4, s3, max.clone(), Tensor::scalar(3i32), f(0.5), f(0.0)],
        ),
        (
            Op::Nms(Nms::PaddedV2 {
                sorted_input: false,
                canonicalized_coordinates: false,
                tile_size: 2,
            }),
            vec![b3, s2, max, f(0.5), f(f32::NEG_INFINITY)],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_matches_tensorflow() {
        let examples = registry_examples();
        let run = |k: usize| {
            let (op, inputs) = &examples[k];
            let refs: Vec<&Tensor> = inputs.iter().collect();
            op.primitive().cpu(&refs).unwrap()
        };
        assert_eq!(run(0)[0].to_vec::<i32>().unwrap(), [0, 2]);
        assert_eq!(run(3)[0].to_vec::<i32>().unwrap(), [0, 2]);
        assert_eq!(run(5)[0].to_vec::<i32>().unwrap(), [0, 2]);
    }
}
