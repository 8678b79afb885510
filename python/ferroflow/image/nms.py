"""Non-max suppression (`tf.image.non_max_suppression*`, `combined_non_max_suppression`): thin
wrappers of the Rust `Nms` primitive (TensorFlow's NonMaxSuppressionV3/V5,
NonMaxSuppressionWithOverlaps and CombinedNonMaxSuppression kernels, and the tiled algorithm
TensorFlow composes for `non_max_suppression_padded`). None has a gradient in TensorFlow:
asking for one through the float outputs raises its LookupError."""

import collections
import json

import ferroflow as tf
from ferroflow import _core
from ferroflow.backprop import custom_gradient

CombinedNonMaxSuppression = collections.namedtuple(
    "CombinedNonMaxSuppression",
    ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"],
)

_NEG_INF = float("-inf")


def _raw(name, inputs, **attrs):
    return _core.raw_op(name, inputs, json.dumps(attrs))


def _int32(value):
    """An int32 input as TensorFlow's generated wrappers convert it (tensors pass unchanged,
    so the kernel refuses another dtype)."""
    return value if tf.is_tensor(value) else tf.convert_to_tensor(value, dtype=tf.int32)


def _matching(*values):
    """Inputs sharing the type attribute `T`: the first tensor's dtype fixes the others'."""
    dtype = next((v.dtype for v in values if tf.is_tensor(v)), None)
    return [v if tf.is_tensor(v) else tf.convert_to_tensor(v, dtype=dtype) for v in values]


def _no_gradient(op, fn, tensors):
    """Runs ``fn`` so that a gradient through its float outputs raises TensorFlow's error."""

    @custom_gradient
    def run(*xs):
        def refuse(*upstream):
            raise LookupError(f"gradient registry has no entry for: {op}")

        return fn(*xs), refuse

    return run(*tensors)


def non_max_suppression(
    boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=_NEG_INF, name=None
):
    """Greedily selects boxes by descending score, dropping those whose IoU with a selected box
    exceeds ``iou_threshold`` (TensorFlow's NonMaxSuppressionV3): int32 indices.

    >>> import ferroflow as tf
    >>> boxes = [[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, 10.0, 1.0, 11.0]]
    >>> tf.image.non_max_suppression(boxes, [0.9, 0.75, 0.6], 3).numpy()
    array([0, 2], dtype=int32)
    """
    boxes, scores = _matching(boxes, scores)
    inputs = [
        boxes,
        scores,
        _int32(max_output_size),
        tf.convert_to_tensor(iou_threshold),
        tf.convert_to_tensor(score_threshold),
    ]
    return _raw("NonMaxSuppressionV3", inputs)[0]


def non_max_suppression_with_scores(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=_NEG_INF,
    soft_nms_sigma=0.0,
    name=None,
):
    """``non_max_suppression`` that also returns the selected scores; with
    ``soft_nms_sigma > 0`` it is Soft-NMS (TensorFlow's NonMaxSuppressionV5): overlapping boxes
    have their scores scaled by ``exp(-iou**2 / (2 * sigma))`` instead of being dropped."""
    boxes, scores = _matching(boxes, scores)
    thresholds = [tf.convert_to_tensor(v) for v in (iou_threshold, score_threshold, soft_nms_sigma)]
    fixed = [_int32(max_output_size), *thresholds]

    def select(boxes, scores):
        out = _raw("NonMaxSuppressionV5", [boxes, scores, *fixed], pad_to_max_output_size=False)
        return out[0], out[1]

    return _no_gradient("NonMaxSuppressionV5", select, [boxes, scores])


def non_max_suppression_with_overlaps(
    overlaps, scores, max_output_size, overlap_threshold=0.5, score_threshold=_NEG_INF, name=None
):
    """Greedy selection with a given ``[n, n]`` overlap matrix in place of IoU (TensorFlow's
    NonMaxSuppressionWithOverlaps, `tf.image.non_max_suppression_overlaps`)."""
    f32 = tf.float32
    inputs = [
        tf.convert_to_tensor(overlaps, dtype=None if tf.is_tensor(overlaps) else f32),
        scores if tf.is_tensor(scores) else tf.convert_to_tensor(scores, dtype=f32),
        _int32(max_output_size),
        tf.convert_to_tensor(overlap_threshold),
        score_threshold if tf.is_tensor(score_threshold) else tf.constant(score_threshold, f32),
    ]
    return _raw("NonMaxSuppressionWithOverlaps", inputs)[0]


def combined_non_max_suppression(
    boxes,
    scores,
    max_output_size_per_class,
    max_total_size,
    iou_threshold=0.5,
    score_threshold=_NEG_INF,
    pad_per_class=False,
    clip_boxes=True,
    name=None,
):
    """Per-class greedy NMS over a batch, then the best ``max_total_size`` detections of each
    image across classes (TensorFlow's CombinedNonMaxSuppression): boxes ``[batch, boxes, q,
    4]`` (q is 1 or the number of classes), scores ``[batch, boxes, classes]``."""
    f32 = tf.float32
    boxes = boxes if tf.is_tensor(boxes) else tf.convert_to_tensor(boxes, dtype=f32)
    scores = scores if tf.is_tensor(scores) else tf.convert_to_tensor(scores, dtype=f32)
    fixed = [
        _int32(max_output_size_per_class),
        tf.convert_to_tensor(max_total_size),
        tf.convert_to_tensor(iou_threshold, dtype=f32),
        tf.convert_to_tensor(score_threshold, dtype=f32),
    ]
    attrs = {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)}

    def select(boxes, scores):
        return tuple(_raw("CombinedNonMaxSuppression", [boxes, scores, *fixed], **attrs))

    return CombinedNonMaxSuppression(
        *_no_gradient("CombinedNonMaxSuppression", select, [boxes, scores])
    )


def non_max_suppression_padded(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=_NEG_INF,
    pad_to_max_output_size=False,
    name=None,
    sorted_input=False,
    canonicalized_coordinates=False,
    tile_size=512,
):
    """Selected indices padded to ``max_output_size`` and their number, for boxes ``[..., n,
    4]`` (leading batch dimensions allowed with ``pad_to_max_output_size``). This is
    TensorFlow's tiled algorithm (`non_max_suppression_padded_v2`), not the greedy kernel: the
    first box's corner order decides every box's, and boxes with no coordinate above 0 are
    never selected, as in TensorFlow."""
    boxes = tf.convert_to_tensor(boxes)
    scores = tf.convert_to_tensor(scores)
    rank = boxes.shape.rank
    if not pad_to_max_output_size and rank is not None and rank > 2:
        raise ValueError(
            f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be True for "
            "batched input"
        )
    for t in (scores, boxes):
        if t.dtype != tf.float32:
            raise TypeError(
                "Input 'y' of 'Greater' Op has type float32 that does not match type "
                f"{t.dtype.name} of argument 'x'."
            )
    tile = int(tile_size)
    if tile < 1:
        raise ValueError(f"tile_size must be positive, got {tile}")
    if rank is not None and rank >= 2 and boxes.shape[-2] == 0:
        # TensorFlow's graph slices the first box to canonicalize (in both branches of its
        # cond), which fails while it is built.
        raise ValueError("slice index 0 of dimension 1 out of bounds.")
    max_output = tf.convert_to_tensor(max_output_size, dtype=tf.int32)
    batch_dims = tf.shape(boxes)[:-2]
    num_boxes = tf.shape(boxes)[-2]
    flat_boxes = tf.reshape(boxes, tf.stack([-1, num_boxes, 4]))
    flat_scores = tf.reshape(scores, tf.stack([-1, num_boxes]))
    threshold = tf.cast(tf.convert_to_tensor(score_threshold, dtype_hint=tf.float32), tf.float32)
    idx, num_valid = _raw(
        "NonMaxSuppressionPaddedV2",
        [flat_boxes, flat_scores, max_output, tf.cast(iou_threshold, tf.float32), threshold],
        sorted_input=bool(sorted_input),
        canonicalized_coordinates=bool(canonicalized_coordinates),
        tile_size=tile,
    )
    num_valid = tf.reshape(num_valid, batch_dims)
    if not pad_to_max_output_size:
        return idx[0, :num_valid], num_valid
    return tf.reshape(idx, tf.concat([batch_dims, tf.reshape(max_output, [1])], 0)), num_valid


def generate_bounding_box_proposals(
    scores,
    bbox_deltas,
    image_info,
    anchors,
    nms_threshold=0.7,
    pre_nms_topn=6000,
    min_size=16,
    post_nms_topn=300,
    name=None,
):
    """Region proposals from anchors and deltas (TensorFlow's GenerateBoundingBoxProposals).
    TensorFlow registers a GPU kernel only, so its CPU builds raise NotFoundError; so does
    ferroflow, rather than compute numbers no TensorFlow CPU build can check."""
    raise tf.errors.NotFoundError(
        None,
        None,
        "Could not find device for node: {{node GenerateBoundingBoxProposals}} = "
        f"GenerateBoundingBoxProposals[post_nms_topn={int(post_nms_topn)}]\n"
        "All kernels registered for op GenerateBoundingBoxProposals:\n"
        "  <no registered kernels>\n [Op:GenerateBoundingBoxProposals]",
    )
