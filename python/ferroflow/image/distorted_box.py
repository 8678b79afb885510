"""`tf.image.sample_distorted_bounding_box` and its stateless twin: TensorFlow's
SampleDistortedBoundingBox sampler, run on the host in float32 arithmetic as the kernel runs
it. Its random stream is the kernel's: Philox words, 32 bits each, in order; for the stateless
op they are `stateless_uniform` full-range uint32 words of the same seed, so the crop is
TensorFlow's."""

import collections

import numpy as np

import ferroflow as tf

from ._checks import dtype_refusal

_F = np.float32
# TensorFlow's raw ops return these namedtuples.
_STATELESS = collections.namedtuple(
    "StatelessSampleDistortedBoundingBox", ["begin", "size", "bboxes"]
)
_STATEFUL = collections.namedtuple("SampleDistortedBoundingBoxV2", ["begin", "size", "bboxes"])
_SIZE_DTYPES = ("uint8", "int8", "int16", "int32", "int64")


def _invalid(message):
    return tf.errors.InvalidArgumentError(None, None, message)


class _Stream:
    """SimplePhilox over pre-drawn words: Rand32, RandFloat and Uniform(n)."""

    def __init__(self, words):
        self.words, self.i = words, 0

    def rand32(self):
        word = int(self.words[self.i])
        self.i += 1
        return word

    def rand_float(self):
        bits = np.uint32((self.rand32() & 0x7FFFFF) | 0x3F800000)
        return bits.view(np.float32) - _F(1.0)

    def uniform(self, n):
        return self.rand32() % n


def _lrint(x):
    return int(np.rint(_F(x)))


def _area(box):
    return _F((box[2] - box[0]) * (box[3] - box[1]))


def _intersect(a, b):
    lo_x, lo_y = max(a[0], b[0]), max(a[1], b[1])
    hi_x, hi_y = min(a[2], b[2]), min(a[3], b[3])
    return (0, 0, 0, 0) if lo_x > hi_x or lo_y > hi_y else (lo_x, lo_y, hi_x, hi_y)


def _covers(crop, covered, boxes):
    if _area(crop) < 1.0:
        return False
    for box in boxes:
        area = _area(box)
        if area >= 1.0 and _F(_area(_intersect(crop, box)) / area) >= covered:
            return True
    return False


def _random_crop(width, height, min_rel, max_rel, aspect, stream):
    """TensorFlow's GenerateRandomCrop: (x, y, x + w, y + h) or None."""
    if max_rel <= 0.0 or aspect <= 0.0 or width <= 0 or height <= 0 or min_rel > max_rel:
        return None
    min_area = _F(_F(min_rel * _F(width)) * _F(height))
    max_area = _F(_F(max_rel * _F(width)) * _F(height))
    crop_h = _lrint(np.sqrt(_F(min_area / aspect)))
    max_h = _lrint(np.sqrt(_F(max_area / aspect)))
    if _lrint(_F(max_h) * aspect) > width:
        max_h = int((width + 0.5 - float(_F(1e-7))) / float(aspect))
        if _lrint(_F(max_h) * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    crop_h = min(crop_h, max_h)
    if crop_h < max_h:
        crop_h += stream.uniform(max_h - crop_h + 1)
    crop_w = _lrint(_F(crop_h) * aspect)
    area = _F(crop_w * crop_h)
    if area < min_area:
        crop_h += 1
        crop_w = _lrint(_F(crop_h) * aspect)
        area = _F(crop_w * crop_h)
    if area > max_area:
        crop_h -= 1
        crop_w = _lrint(_F(crop_h) * aspect)
        area = _F(crop_w * crop_h)
    if (
        area < min_area
        or area > max_area
        or crop_w > width
        or crop_h > height
        or crop_w <= 0
        or crop_h <= 0
    ):
        return None
    y = stream.uniform(height - crop_h) if crop_h < height else 0
    x = stream.uniform(width - crop_w) if crop_w < width else 0
    return (x, y, x + crop_w, y + crop_h)


def _attrs(aspect_ratio_range, area_range, max_attempts, use_image):
    aspect = [0.75, 1.33] if aspect_ratio_range is None else list(aspect_ratio_range)
    area = [0.05, 1.0] if area_range is None else list(area_range)
    attempts = 100 if max_attempts is None else int(max_attempts)
    if len(aspect) != 2:
        raise _invalid("Aspect ratio range field must specify 2 dimensions")
    if not (aspect[0] > 0 and aspect[1] > 0):
        raise _invalid(f"Aspect ratio range must be non-negative: [{aspect[0]}, {aspect[1]}]")
    if len(area) != 2:
        raise _invalid("Area range field must specify 2 dimensions")
    if not (area[0] > 0 and area[1] > 0):
        raise _invalid(f"Area range must be non-negative: [{area[0]}, {area[1]}]")
    if not (area[0] <= 1 and area[1] <= 1):
        raise _invalid(f"Area range must be less then or equal to 1.0: [{area[0]}, {area[1]}]")
    if attempts <= 0:
        raise _invalid(f"Max attempts must be non-negative: {attempts}")
    return [_F(a) for a in aspect], [_F(a) for a in area], attempts, bool(use_image)


def _sample(image_size, bounding_boxes, covered, attrs, words, result):
    size = tf.convert_to_tensor(image_size)
    if size.dtype.name not in _SIZE_DTYPES:
        allowed = "uint8, int8, int16, int32, int64"
        raise dtype_refusal("image_size", size.dtype, allowed, "SampleDistortedBoundingBox")
    boxes = tf.convert_to_tensor(bounding_boxes, dtype=tf.float32)
    covered = tf.convert_to_tensor(covered, dtype=tf.float32)
    if size.shape.rank != 1:
        raise _invalid(f"image_size must be 1-dimensional{size.shape}")
    if size.shape[0] != 3:
        raise _invalid(f"image_size must contain 3 elements{size.shape}")
    if boxes.shape.rank != 3:
        raise _invalid(
            f"input boxes must be 3-dimensional [batch, num_boxes, coords]: {boxes.shape}"
        )
    if boxes.shape[-1] != 4:
        raise _invalid(f"bounding boxes must have shape [4] or [*, 4], got {boxes.shape}")
    if covered.shape.rank != 0:
        raise _invalid(f"min_object_covered must be 0-D, got shape {covered.shape}")
    words = words(4 * attrs[2])
    if tf.executing_eagerly():
        arrays = _crop(size.numpy(), boxes.numpy(), covered.numpy(), words.numpy(), attrs)
    else:
        # Traced: the sampler runs on the host each time the graph runs.
        def host(size, boxes, covered, words):
            return _crop(size, boxes, covered, words, attrs)

        arrays = tf.numpy_function(
            host, [size, boxes, covered, words], Tout=[size.dtype, size.dtype, tf.float32]
        )
        arrays = [tf.ensure_shape(a, s) for a, s in zip(arrays, ([3], [3], [1, 1, 4]))]
    return result(*(tf.convert_to_tensor(a) for a in arrays))


def _crop(size, boxes, covered, words, attrs):
    """The sampler on numpy values: (begin, size, bboxes) arrays."""
    covered = _F(covered)
    if not covered >= 0:
        raise _invalid(f"Min object covered must be non-negative: {covered}")
    aspect, area, attempts, use_image = attrs
    height, width = (int(v) for v in size[:2])
    rects = []
    for b in boxes.reshape(-1, 4):
        if not ((b >= 0.0) & (b <= 1.0)).all():
            bad = next(v for v in b if not 0.0 <= v <= 1.0)
            raise _invalid(f"All bounding box coordinates must be in [0.0, 1.0]: {bad}")
        w, h = _F(width), _F(height)
        rects.append((int(b[1] * w), int(b[0] * h), int(b[3] * w), int(b[2] * h)))
    image_rect = (0, 0, width, height)
    if not rects:
        if not use_image:
            raise _invalid(
                "No bounding boxes provided as input. One must enable "
                "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes."
            )
        rects.append(image_rect)
    stream = _Stream(words)
    crop = image_rect
    for _ in range(attempts):
        ratio = _F(stream.rand_float() * _F(aspect[1] - aspect[0])) + aspect[0]
        candidate = _random_crop(width, height, area[0], area[1], _F(ratio), stream)
        if candidate is not None and _covers(candidate, covered, rects):
            crop = candidate
            break
    begin = np.array([crop[1], crop[0], 0], np.int64).astype(size.dtype)
    # -1 ("all channels") wraps in an unsigned dtype, as TensorFlow's T(-1).
    extent = np.array([crop[3] - crop[1], crop[2] - crop[0], -1], np.int64).astype(size.dtype)
    box = [crop[1] / _F(height), crop[0] / _F(width), crop[3] / _F(height), crop[2] / _F(width)]
    return begin, extent, np.array(box, np.float32).reshape(1, 1, 4)


def stateless_sample_distorted_bounding_box(
    image_size, bounding_boxes, seed, min_object_covered=0.1, aspect_ratio_range=None,
    area_range=None, max_attempts=None, use_image_if_no_bounding_boxes=None, name=None,
):  # fmt: skip
    """(begin, size, bboxes) of a random crop covering enough of a box, TensorFlow's numbers
    for the same `seed` ([2] ints)."""
    attrs = _attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes)

    def words(n):
        return tf.random.stateless_uniform(
            [n], seed=seed, minval=None, maxval=None, dtype=tf.uint32
        )

    return _sample(image_size, bounding_boxes, min_object_covered, attrs, words, _STATELESS)


def sample_distorted_bounding_box(
    image_size, bounding_boxes, seed=0, min_object_covered=0.1, aspect_ratio_range=None,
    area_range=None, max_attempts=None, use_image_if_no_bounding_boxes=None, name=None,
):  # fmt: skip
    """(begin, size, bboxes) of a random crop covering at least `min_object_covered` of one of
    `bounding_boxes`, with its aspect ratio and area in the given ranges (the whole image after
    `max_attempts` failures)."""
    attrs = _attrs(aspect_ratio_range, area_range, max_attempts, use_image_if_no_bounding_boxes)

    def words(n):
        draws = tf.random.uniform([n], minval=0, maxval=2**32, dtype=tf.int64, seed=seed or None)
        return tf.cast(draws, tf.uint32)

    return _sample(image_size, bounding_boxes, min_object_covered, attrs, words, _STATEFUL)
