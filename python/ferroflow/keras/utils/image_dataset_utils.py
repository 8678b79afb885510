"""`tf.keras.utils.image_dataset_from_directory`: a `tf.data.Dataset` of resized float32
images (and labels) from the image files of a directory tree, as Keras 3 builds it."""

from ferroflow.keras.utils import directory_index as index_lib

__all__ = ["ALLOWLIST_FORMATS", "image_dataset_from_directory"]

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_INTERPOLATIONS = (
    "bilinear",
    "nearest",
    "bicubic",
    "area",
    "lanczos3",
    "lanczos5",
    "gaussian",
    "mitchellcubic",
)
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}


def _load_image(path, image_size, num_channels, interpolation, data_format, crop, pad):
    import ferroflow as tf
    from ferroflow.keras.layers.image_preprocessing.resizing import resize_images

    img = tf.image.decode_image(
        index_lib.read_file_tensor(path), channels=num_channels, expand_animations=False
    )
    if crop:
        # Keras's smart_resize: the centred window with the target aspect ratio, resized by
        # the backend's `image.resize` (which refuses gaussian/mitchellcubic, as Keras's does).
        img = resize_images(img, image_size, interpolation=interpolation, crop_to_aspect_ratio=True)
    elif pad:
        img = tf.image.resize_with_pad(img, image_size[0], image_size[1], method=interpolation)
    else:
        img = tf.image.resize(img, image_size, method=interpolation)
    if data_format == "channels_first":
        img = tf.transpose(img, (2, 0, 1))
    return img


def _check_image_args(color_mode, image_size, interpolation):
    if color_mode not in _CHANNELS:
        raise ValueError(
            '`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
            f"Received: color_mode={color_mode}"
        )
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    elif not isinstance(image_size, list | tuple) or len(image_size) != 2:
        raise ValueError(
            "Invalid `image_size` value. Expected a tuple of 2 integers. "
            f"Received: image_size={image_size}"
        )
    interpolation = interpolation.lower()
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(
            f"Argument `interpolation` should be one of {_INTERPOLATIONS}. "
            f"Received: interpolation={interpolation}"
        )
    return tuple(image_size), interpolation


def image_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    color_mode="rgb",
    batch_size=32,
    image_size=(256, 256),
    shuffle=True,
    seed=None,
    validation_split=None,
    subset=None,
    interpolation="bilinear",
    follow_links=False,
    crop_to_aspect_ratio=False,
    pad_to_aspect_ratio=False,
    data_format=None,
    format="tf",
    verbose=True,
):
    """Images (``.bmp .gif .jpeg .jpg .png``) under ``directory``, decoded with
    ``channels`` from ``color_mode``, resized to ``image_size`` (float32), with labels from
    the subdirectories (``labels="inferred"``), a list, or none; files in Keras's order
    (sorted walk, then ``np.random.RandomState(seed).shuffle``), then a seeded
    ``Dataset.shuffle``. ``subset="both"`` returns ``[train, validation]``; each dataset has
    ``class_names`` and ``file_paths``."""
    from ferroflow.keras.backend import image_data_format

    labels, label_mode = index_lib.check_labels_args(labels, label_mode, class_names, "image files")
    image_size, interpolation = _check_image_args(color_mode, image_size, interpolation)
    index_lib.require_tf_format(format)
    data_format = data_format or image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            'The `data_format` argument must be one of {"channels_first", "channels_last"}. '
            f"Received: data_format={data_format}"
        )
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError(
            "Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set to `True`."
        )
    channels = _CHANNELS[color_mode]

    def load(path):
        return _load_image(
            path,
            image_size,
            channels,
            interpolation,
            data_format,
            crop_to_aspect_ratio,
            pad_to_aspect_ratio,
        )

    return index_lib.from_directory(
        directory,
        labels,
        label_mode,
        ALLOWLIST_FORMATS,
        locals(),  # the keyword arguments, as given
        load,
        lambda ds: index_lib.batched(ds, batch_size),
        lambda kind: (
            f"No {kind}images found in directory {directory}. Allowed formats: {ALLOWLIST_FORMATS}"
        ),
        file_paths=True,
    )
