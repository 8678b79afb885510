"""The non-max-suppression family of `tf.image` against TensorFlow on the CPU and the GPU
(soft placement runs the kernels on the host): tie-breaking among equal scores, flipped
corners, score thresholds equal to a score (strict), IoU exactly at the threshold,
max_output_size 0 and above the box count, empty inputs, float16, Soft-NMS rescoring, the
padded (tiled) algorithm on batches, CombinedNonMaxSuppression's per-class selection and
cross-class ordering, traced calls, errors, and the absent gradients."""

import numpy as np
import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _data(n, seed):
    """Boxes on a coarse grid (many overlaps, some exact), a third with flipped corners, and
    scores in steps of 0.05 (many ties)."""
    rng = np.random.default_rng(seed)
    y0, x0 = rng.integers(0, 8, (2, n)) * 0.5
    h, w = rng.integers(1, 6, (2, n)) * 0.5
    boxes = np.stack([y0, x0, y0 + h, x0 + w], 1).astype(np.float32)
    flip = rng.random(n) < 0.3
    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
    scores = (rng.integers(0, 20, n) * 0.05).astype(np.float32)
    return boxes, scores


def _greedy(tf, dtype, device, boxes, scores):
    dt = getattr(tf, dtype)
    out = []
    with tf.device(device):
        b, s = tf.constant(boxes, dt), tf.constant(scores, dt)
        nms = tf.image.non_max_suppression
        for max_out, iou, thr in [(0, 0.5, -1.0), (7, 0.5, 0.5), (100, 0.0, 0.2), (100, 1.0, 0.0)]:
            out.append(nms(b, s, max_out, iou, score_threshold=thr))
        out.append(nms(b, s, 100, iou_threshold=0.25))
        # Two boxes at IoU 0.5 exactly: not suppressed at 0.5 (the test is >).
        twin = tf.constant([[0, 0, 2, 1], [0, 0, 1, 1], [0, 0, 1, 1]], dt)
        out.append(nms(twin, tf.constant([0.9, 0.8, 0.8], dt), 3, 0.5))
        out.append(nms(tf.zeros([0, 4], dt), tf.zeros([0], dt), 5))
        with_scores = tf.image.non_max_suppression_with_scores
        # Its thresholds must have the boxes' dtype (a Python float is float32).
        t = [tf.constant(v, dt) for v in (0.4, 0.1, 0.0, 0.5, 1.0, 0.3)]
        out.append(with_scores(b, s, 100, t[0], t[1], soft_nms_sigma=t[2]))
        out.append(with_scores(b, s, 30, t[4], t[1], soft_nms_sigma=t[3]))
        out.append(with_scores(b, s, 100, t[5], t[2], soft_nms_sigma=t[1]))
        traced = tf.function(lambda b, s, k: nms(b, s, k, 0.5))
        out.append(traced(b, s, tf.constant(9)))
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_non_max_suppression(tf_oracle, dtype, device):
    boxes, scores = _data(60, 0)
    assert_parity(tf_oracle, _greedy, (dtype, device, boxes, scores), rtol=1e-6)


def _overlaps_and_padded(tf, device, boxes, scores):
    out = []
    with tf.device(device):
        b, s = tf.constant(boxes), tf.constant(scores)
        ov = tf.matmul(b, b, transpose_b=True) / 40.0
        out.append(tf.image.non_max_suppression_overlaps(ov, s, 20, 0.5))
        out.append(tf.image.non_max_suppression_overlaps(ov, s, 20, 0.9, score_threshold=0.3))
        padded = tf.image.non_max_suppression_padded
        sorted_options = {"sorted_input": True, "canonicalized_coordinates": True}
        out.append(padded(b, s, 10, 0.5))
        out.append(padded(b, s, 70, 0.4, score_threshold=0.3, pad_to_max_output_size=True))
        out.append(padded(b, s, 12, 0.5, pad_to_max_output_size=True, tile_size=8))
        batch = tf.stack([b, b[::-1], tf.abs(b)])
        scored = tf.stack([s, s, s[::-1]])
        out.append(padded(batch, scored, 15, 0.5, pad_to_max_output_size=True, tile_size=16))
        order = tf.argsort(s, direction="DESCENDING", stable=True)
        sb, ss = tf.gather(tf.abs(b), order), tf.gather(s, order)
        out.append(
            padded(
                sb[None, None],
                ss[None, None],
                8,
                0.3,
                pad_to_max_output_size=True,
                tile_size=4,
                **sorted_options,
            )
        )
        traced = tf.function(lambda b, s: padded(b, s, 6, 0.5, pad_to_max_output_size=True))
        out.append(traced(b, s))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_overlaps_and_padded(tf_oracle, device):
    boxes, scores = _data(50, 1)
    assert_parity(tf_oracle, _overlaps_and_padded, (device, boxes, scores), rtol=1e-6)


def _combined(tf, device, boxes, scores):
    out = []
    with tf.device(device):
        b, s = tf.constant(boxes), tf.constant(scores)
        shared = b[:, :, None, :]
        per_class = tf.stack([b, b[:, ::-1], tf.abs(b) * 0.9, b * 1.1], 2)
        cnms = tf.image.combined_non_max_suppression
        out.append(cnms(shared, s, 5, 12))
        out.append(cnms(shared, s, 3, 40, 0.3, 0.2, pad_per_class=True))
        out.append(cnms(per_class, s, 4, 9, 0.6, clip_boxes=False))
        out.append(cnms(per_class, s, 50, 7, 0.0, pad_per_class=True, clip_boxes=False))
        out.append(tf.function(lambda b, s: cnms(b, s, 2, 5))(shared, s))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_combined_non_max_suppression(tf_oracle, device):
    boxes, scores = _data(3 * 40, 2)
    # Some corners outside [0, 1], so clipping matters (scaled here: WGSL division may round).
    boxes = boxes.reshape(3, 40, 4) / np.float32(5.0) - np.float32(0.1)
    scores = np.stack([_data(3 * 40, k)[1] for k in range(4)], -1).reshape(3, 40, 4)
    assert_parity(tf_oracle, _combined, (device, boxes, scores), rtol=1e-6)


def _errors(tf):
    b = tf.constant([[0.0, 0, 1, 1], [0, 0.5, 1, 1.5]])
    s = tf.constant([0.9, 0.8])
    nms = tf.image.non_max_suppression
    cnms = tf.image.combined_non_max_suppression
    cases = [
        lambda: nms(b, s, -1),
        lambda: nms(b, s, 2, 1.5),
        lambda: nms(b, s, 2, -0.1),
        lambda: nms(b[0], s, 2),
        lambda: nms(b[:, :3], s, 2),
        lambda: nms(b, s[:1], 2),
        lambda: nms(b, s[None], 2),
        lambda: nms(b, s, [2]),
        lambda: nms(b, s, 2.0),
        lambda: nms(b, s, tf.constant(2, tf.int64)),
        lambda: nms(tf.cast(b, tf.float64), tf.cast(s, tf.float64), 2),
        lambda: tf.image.non_max_suppression_with_scores(b, s, 2, soft_nms_sigma=-1.0),
        lambda: tf.image.non_max_suppression_with_scores(tf.cast(b, tf.float16), s, 2),
        lambda: tf.image.non_max_suppression_overlaps(tf.ones([2, 3]), s, 2),
        lambda: cnms(b[None, :, None], s[None, :, None], 0, 4),
        lambda: cnms(b[None, :, None], s[None, :, None], 2, 0),
        lambda: cnms(b[None, :, None], s[None, :, None], 2, 4, 2.0),
        lambda: cnms(b[None], s[None, :, None], 2, 4),
        lambda: cnms(
            tf.tile(b[None, :, None], [1, 1, 2, 1]), tf.tile(s[None, :, None], [1, 1, 3]), 2, 4
        ),
        lambda: tf.image.non_max_suppression_padded(b[None], s[None], 2),
        lambda: tf.image.non_max_suppression_padded(
            tf.cast(b, tf.float16), tf.cast(s, tf.float16), 2, pad_to_max_output_size=True
        ),
        lambda: tf.image.non_max_suppression_padded(tf.zeros([0, 4]), tf.zeros([0]), 2),
        lambda: tf.image.generate_bounding_box_proposals(
            tf.ones([1, 2, 2, 1]),
            tf.zeros([1, 2, 2, 4]),
            tf.constant([[4.0, 4.0, 1.0]]),
            tf.ones([1, 4]),
        ),
    ]
    out = []
    for case in cases:
        try:
            out.append(case())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def test_nms_errors(tf_oracle):
    assert_parity(tf_oracle, _errors)


def _gradients(tf):
    b = tf.constant([[0.0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 10, 1, 11]])
    s = tf.constant([0.9, 0.75, 0.6])
    out = []
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([b, s])
        _, scores = tf.image.non_max_suppression_with_scores(b, s, 3, soft_nms_sigma=0.5)
        combined = tf.image.combined_non_max_suppression(b[None, :, None], s[None, :, None], 2, 3)
    for target, source in [(scores, s), (combined.nmsed_scores, s)]:
        try:
            out.append(tape.gradient(target, source))
        except LookupError as e:
            out.append(str(e))
    return out


def test_nms_has_no_gradient(tf_oracle):
    assert_parity(tf_oracle, _gradients)
