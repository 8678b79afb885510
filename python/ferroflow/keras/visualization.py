"""`keras.visualization`: Keras 3's drawing and plotting helpers. The plots use matplotlib
(Keras's ``ImportError`` without it); drawing bounding boxes needs OpenCV (``cv2``), which
ferroflow does not carry: without it Keras's ``ImportError``, with it ``NotImplementedError``."""

import functools
import math

import numpy as np

from ferroflow.keras import backend, ops

__all__ = [
    "draw_bounding_boxes",
    "draw_segmentation_masks",
    "plot_bounding_box_gallery",
    "plot_image_gallery",
    "plot_segmentation_mask_gallery",
]


def _importable(name):
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def _check_batched(images):
    shape = ops.shape(images)
    if len(shape) != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape={shape}")


def draw_bounding_boxes(images, bounding_boxes, bounding_box_format, *args, **kwargs):
    """Draws boxes on images with OpenCV (Keras's ``ImportError`` without ``cv2``)."""
    if not _importable("cv2"):
        raise ImportError(
            "The `draw_bounding_boxes` function requires the `cv2` package  (OpenCV). Please "
            "install it with `pip install opencv-python`."
        )
    raise NotImplementedError("keras.visualization.draw_bounding_boxes is not in ferroflow.")


def _color_palette(num_classes):
    palette = np.array([2**25 - 1, 2**15 - 1, 2**21 - 1])
    return [((i * palette) % 255).tolist() for i in range(num_classes)]


def draw_segmentation_masks(
    images,
    segmentation_masks,
    num_classes=None,
    color_mapping=None,
    alpha=0.8,
    blend=True,
    ignore_index=-1,
    data_format=None,
):
    """``images`` with each class of ``segmentation_masks`` painted in its colour (blended
    with ``alpha``, as uint8 when ``blend``), as a NumPy array."""
    data_format = data_format or backend.image_data_format()
    _check_batched(images)
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
        segmentation_masks = ops.transpose(segmentation_masks, (0, 2, 3, 1))
    images = ops.convert_to_tensor(images, dtype="float32")
    segmentation_masks = ops.convert_to_tensor(segmentation_masks)
    dtype = backend.standardize_dtype(segmentation_masks.dtype)
    if not backend.is_int_dtype(dtype):
        raise TypeError(
            f"`segmentation_masks` must be in integer dtype. Received: "
            f"segmentation_masks.dtype={dtype}"
        )
    if num_classes is None:
        num_classes = int(ops.convert_to_numpy(ops.max(segmentation_masks)))
    if color_mapping is None:
        colors = _color_palette(num_classes)
    else:
        colors = [color_mapping[i] for i in range(num_classes)]
    valid = ops.squeeze(ops.not_equal(segmentation_masks, ignore_index), axis=-1)
    one_hot = ops.convert_to_numpy(ops.one_hot(segmentation_masks, num_classes)[..., 0, :])
    painted = ops.convert_to_numpy(images).copy()
    for mask, color in zip(np.transpose(one_hot, (3, 0, 1, 2)).astype("bool"), colors):
        painted[mask, ...] = np.array(color, dtype=painted.dtype)[None, :]
    outputs = ops.cast(ops.convert_to_tensor(painted), "float32")
    if blend:
        outputs = images * (1 - alpha) + outputs * alpha
        outputs = ops.where(valid[..., None], outputs, images)
        outputs = ops.convert_to_numpy(ops.cast(outputs, "uint8"))
    return outputs


def plot_image_gallery(
    images,
    y_true=None,
    y_pred=None,
    label_map=None,
    rows=None,
    cols=None,
    value_range=(0, 255),
    scale=2,
    path=None,
    show=None,
    transparent=True,
    dpi=60,
    legend_handles=None,
    data_format=None,
):
    """Plots a grid of images (with their true and predicted labels) with matplotlib, to
    ``path`` or the screen."""
    if not _importable("matplotlib"):
        raise ImportError(
            "The `plot_image_gallery` function requires the `matplotlib` package. Please "
            "install it with `pip install matplotlib`."
        )
    import matplotlib.pyplot as plt

    from ferroflow.keras.layers.image_preprocessing.base import BaseImagePreprocessingLayer

    if path is not None and show:
        raise ValueError("plot_gallery() expects either `path` to be set, or `show` to be true.")
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError(
            "If `y_true` or `y_pred` are provided, a `label_map` must also be provided."
        )
    show = show if show is not None else (path is None)
    data_format = data_format or backend.image_data_format()
    batch_size = ops.shape(images)[0] if len(ops.shape(images)) == 4 else 1
    rows = rows or int(math.ceil(math.sqrt(batch_size)))
    cols = cols or int(math.ceil(batch_size // rows))
    if len(ops.shape(images)) != 4:
        raise ValueError(
            "`plot_images_gallery()` requires you to batch your `np.array` samples together."
        )
    images = images[: min(rows * cols, batch_size), ...]
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
    fig, axes = plt.subplots(
        nrows=rows,
        ncols=cols,
        figsize=(cols * scale, rows * scale),
        frameon=False,
        layout="tight",
        squeeze=True,
        sharex="row",
        sharey="col",
    )
    fig.subplots_adjust(wspace=0, hspace=0)
    if isinstance(axes, np.ndarray) and len(axes.shape) == 1:
        axes = np.expand_dims(axes, 0 if rows == 1 else -1)
    if legend_handles is not None:
        fig.legend(handles=legend_handles, loc="lower center")
    images = ops.convert_to_numpy(
        BaseImagePreprocessingLayer._transform_value_range(images, value_range, (0, 255))
    )
    y_true = None if y_true is None else ops.convert_to_numpy(y_true)
    y_pred = None if y_pred is None else ops.convert_to_numpy(y_pred)
    for row in range(rows):
        for col in range(cols):
            index = row * cols + col
            axis = axes[row, col] if isinstance(axes, np.ndarray) else axes
            axis.imshow(images[index].astype("uint8"))
            axis.margins(x=0, y=0)
            axis.axis("off")
            title = []
            if y_true is not None and index < len(y_true):
                title.append(f"Label: {label_map.get(y_true[index], 'Unknown')}")
            if y_pred is not None and index < len(y_pred):
                title.append(f"Pred: {label_map.get(y_pred[index], 'Unknown')}")
            if title:
                axis.set_title("  ".join(title), fontsize=8)
    if path is not None:
        plt.savefig(fname=path, pad_inches=0, bbox_inches="tight", transparent=transparent, dpi=dpi)
        plt.close()
    elif show:
        plt.show()
        plt.close()


def plot_bounding_box_gallery(images, value_range, bounding_box_format, *args, **kwargs):
    """Plots images with their boxes (needs matplotlib, and OpenCV to draw the boxes)."""
    if not _importable("matplotlib"):
        raise ImportError(
            "The `plot_bounding_box_gallery` function requires the  `matplotlib` package. "
            "Please install it with  `pip install matplotlib`."
        )
    return draw_bounding_boxes(images, None, bounding_box_format)


def plot_segmentation_mask_gallery(
    images,
    num_classes,
    value_range=(0, 255),
    y_true=None,
    y_pred=None,
    color_mapping=None,
    blend=True,
    alpha=0.8,
    ignore_index=-1,
    data_format=None,
    **kwargs,
):
    """Plots each image next to its true and predicted masks drawn on it."""
    data_format = data_format or backend.image_data_format()
    _check_batched(images)
    if data_format == "channels_first":
        images = ops.transpose(images, (0, 2, 3, 1))
    batch_size = ops.shape(images)[0]
    draw = functools.partial(
        draw_segmentation_masks,
        num_classes=num_classes,
        color_mapping=color_mapping,
        alpha=alpha,
        ignore_index=ignore_index,
        blend=blend,
    )
    images_np = ops.convert_to_numpy(images)
    drawn = []
    for masks in (y_true, y_pred):
        if masks is not None:
            if data_format == "channels_first":
                masks = ops.transpose(masks, (0, 2, 3, 1))
            drawn.append(draw(images_np, ops.cast(masks, "int32")))
    gallery = []
    for i in range(batch_size):
        gallery.append(images_np[i])
        gallery.extend(d[i] for d in drawn)
    return plot_image_gallery(
        np.stack(gallery, axis=0),
        value_range=value_range,
        rows=batch_size,
        cols=1 + len(drawn),
        **kwargs,
    )
