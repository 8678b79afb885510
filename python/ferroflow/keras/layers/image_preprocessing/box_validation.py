"""Keras 3's checks of a layer's ``bounding_boxes`` input and its dense form: ``boxes``
(float32) and ``labels`` tensors, ragged ones padded (boxes with zeros, labels with -1)."""

import ferroflow as tf

__all__ = ["densify", "validate"]


def _rank(value):
    return len(value.shape) if hasattr(value, "shape") else tf.convert_to_tensor(value).shape.rank


def validate(bounding_boxes):
    """Raises Keras's ValueError for a ``bounding_boxes`` that is not a dict of ``boxes``
    and ``labels`` of matching kinds and ranks."""
    if (
        not isinstance(bounding_boxes, dict)
        or "labels" not in bounding_boxes
        or "boxes" not in bounding_boxes
    ):
        raise ValueError(
            "Expected `bounding_boxes` agurment to be a dict with keys 'boxes' and 'labels'. "
            f"Received: bounding_boxes={bounding_boxes}"
        )
    boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
    if isinstance(boxes, list):
        if not isinstance(labels, list):
            raise ValueError(
                "If `bounding_boxes['boxes']` is a list, then `bounding_boxes['labels']` must "
                f"also be a list.Received: bounding_boxes['labels']={labels}"
            )
        if len(boxes) != len(labels):
            raise ValueError(
                "If `bounding_boxes['boxes']` and `bounding_boxes['labels']` are both lists, "
                f"they must have the same length. Received: len(bounding_boxes['boxes'])="
                f"{len(boxes)} and len(bounding_boxes['labels'])={len(labels)} and "
            )
        return
    if isinstance(boxes, tf.RaggedTensor):
        if not isinstance(labels, tf.RaggedTensor):
            raise ValueError(
                "If `bounding_boxes['boxes']` is a Ragged tensor,  `bounding_boxes['labels']` "
                f"must also be a Ragged tensor. Received: bounding_boxes['labels']={labels}"
            )
        return
    boxes_rank, labels_rank = _rank(boxes), _rank(labels)
    allowed = {2: {1, 2}, 3: {2, 3}}.get(boxes_rank)
    if allowed is None:
        raise ValueError(
            "Expected `bounding_boxes['boxes']` to have rank 2 or 3, with shape (num_boxes, 4) "
            f"or (batch_size, num_boxes, 4). Received: bounding_boxes['boxes'].shape="
            f"{tuple(boxes.shape)}"
        )
    if labels_rank not in allowed:
        low, high = sorted(allowed)
        raise ValueError(
            f"Found bounding_boxes['boxes'].shape={tuple(boxes.shape)} and expected "
            f"bounding_boxes['labels'] to have rank {low} or {high}, but received: "
            f"bounding_boxes['labels'].shape={tuple(labels.shape)} "
        )


def _nested_lists(boxes, labels):
    """Keras's list branch: it pads nothing (it has no box count to pad to), failing as
    Keras 3 does."""
    if boxes[0] and isinstance(boxes[0][0], list):
        if not isinstance(labels[0][0], int):
            raise ValueError(
                "If providing `bounding_boxes['labels']` as a list, it should contain integers "
                f"labels. Received: bounding_boxes['labels']={labels}"
            )
        raise TypeError(
            "Keras 3 cannot pad a batch of `bounding_boxes` given as Python lists without a "
            "maximum box count; pass tensors or RaggedTensors."
        )
    raise UnboundLocalError(
        "Keras 3 cannot pad one image's `bounding_boxes` given as Python lists; pass tensors."
    )


def densify(bounding_boxes):
    """The checked dict with ``boxes`` and ``labels`` as dense tensors, as Keras makes it:
    ragged ones padded (their dtypes kept), others converted (boxes to float32)."""
    validate(bounding_boxes)
    boxes, labels = bounding_boxes["boxes"], bounding_boxes["labels"]
    if isinstance(boxes, list) and boxes and isinstance(boxes[0], list):
        _nested_lists(boxes, labels)
    if isinstance(boxes, tf.RaggedTensor):
        shape = list(boxes.shape)
        shape[-1] = 4
        return {
            **bounding_boxes,
            "boxes": boxes.to_tensor(default_value=0, shape=shape),
            "labels": labels.to_tensor(default_value=-1),
        }
    boxes = tf.convert_to_tensor(boxes)
    return {
        **bounding_boxes,
        "boxes": tf.cast(boxes, "float32") if boxes.dtype != tf.float32 else boxes,
        "labels": tf.convert_to_tensor(labels),
    }
