"""Keras 3's `BaseImagePreprocessingLayer`: a layer that draws a random *transformation*
(`get_random_transformation`) and then applies it (`transform_images`, `transform_labels`,
`transform_segmentation_masks`) to a batch (rank 4) or a single image (rank 3), or to a dict
of them keyed ``images``/``labels``/``segmentation_masks``.

Random draws come from the layer's `SeedGenerator` (``layer.generator``, seeded by ``seed``)
through TensorFlow's stateless ops, as Keras's do: a traced function or a
`tf.data.Dataset.map` draws new numbers on every call, and a seeded layer that draws as Keras
does gets Keras's numbers."""

import numpy as np

import ferroflow as tf
from ferroflow.keras import random as keras_random
from ferroflow.keras._seed_generator import SeedGenerator
from ferroflow.keras.layers._shapes import standardize_data_format
from ferroflow.keras.layers.image_preprocessing import box_validation
from ferroflow.keras.layers.layer import Layer

__all__ = [
    "BaseImagePreprocessingLayer",
    "back_to_dtype",
    "bounded_factor_pair",
    "data_layer_input",
    "same_spec",
    "unchanged_boxes",
    "saturate_cast",
]


def saturate_cast(x, dtype):
    """``x`` cast to ``dtype``, clipped to an integer dtype's range first."""
    dtype = tf.as_dtype(dtype)
    if dtype.is_integer:
        x = tf.clip_by_value(x, float(dtype.min), float(dtype.max))
    return tf.cast(x, dtype)


def back_to_dtype(results, dtype):
    """Float results returned in the input's dtype: rounded and saturated when integer."""
    if results.dtype == dtype:
        return results
    if dtype.is_integer:
        results = tf.round(results)
    return saturate_cast(results, dtype)


def bounded_factor_pair(bounds, factor, name):
    """Keras's ``(lower, upper)`` of a factor within ``bounds``: a number ``f`` means
    ``(max(-f, low), f)``, a pair is sorted."""
    low, high = bounds
    message = (
        f"The `{name}` argument should be a number (or a list of two numbers) in the range "
        f"[{low}, {high}]. Received: factor={factor}"
    )
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > high or factor[1] < low:
            raise ValueError(message)
        lower, upper = sorted(factor)
        return lower, upper
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        if factor < low or factor > high:
            raise ValueError(message)
        return max(-abs(factor), low), abs(factor)
    raise ValueError(message)


def same_spec(inputs):
    """A symbolic output like ``inputs``: Keras's spec for the layers that keep the dtype."""
    from ferroflow.keras.layers.input_layer import KerasTensor

    return KerasTensor(tuple(inputs.shape), dtype=inputs.dtype)


def _is_tensor(value):
    """TensorFlow's ``is_tensor``, true of ragged and sparse tensors too."""
    return tf.is_tensor(value) or isinstance(value, (tf.RaggedTensor, tf.SparseTensor))


def _as_tensor_of(value, dtype):
    """Keras's ``convert_to_tensor(value, dtype)``: a tensor is cast, anything else
    converted."""
    if _is_tensor(value):
        return tf.cast(value, dtype) if value.dtype != dtype else value
    return tf.convert_to_tensor(value, dtype=dtype)


def data_layer_input(layer, value):
    """An input as Keras's `Layer.__call__` leaves it for a data layer: arrays become
    tensors and, when the layer converts its inputs (``_convert_input_args``), floating ones
    (labels and boxes too) are cast to the compute dtype; Python numbers stay as they are."""
    if isinstance(value, (np.ndarray, np.generic)):
        value = tf.convert_to_tensor(value)
    elif isinstance(value, tf.Variable):
        value = value.value()
    if not (layer._convert_input_args and layer.autocast and tf.is_tensor(value)):
        return value
    dtype = tf.as_dtype(layer.compute_dtype)
    if value.dtype.is_floating and value.dtype != dtype:
        return tf.cast(value, dtype)
    return value


def _squeeze0(value):
    """Keras's ``squeeze(value, axis=0)``: ValueError when that axis is not 1 long."""
    if value.shape[0] is not None and value.shape[0] != 1:
        raise ValueError("Cannot squeeze axis 0, because the dimension is not 1.")
    return tf.squeeze(value, 0)


def unchanged_boxes(layer, bounding_boxes, transformation, training=True):
    """`transform_bounding_boxes` of the layers that leave boxes where they are."""
    return bounding_boxes


class BaseImagePreprocessingLayer(Layer):
    """Base of the image preprocessing layers: ``factor`` handling (a number ``f`` means
    ``(-f, f)`` clipped to ``_FACTOR_BOUNDS``; a pair is sorted), ``data_format``, the
    ``training`` gate and the dispatch over images, labels and segmentation masks."""

    _USE_BASE_FACTOR = True
    _FACTOR_BOUNDS = (-1, 1)

    def __init__(self, factor=None, bounding_box_format=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.bounding_box_format = bounding_box_format
        self.data_format = standardize_data_format(data_format)
        if self._USE_BASE_FACTOR:
            self._set_factor(factor or 0.0)
        elif factor is not None:
            raise ValueError(
                f"Layer {type(self).__name__} does not take a `factor` argument. "
                f"Received: factor={factor}"
            )

    def __call__(self, inputs, **kwargs):
        """Keras's ``DataLayer`` call: options by keyword only, and in a traced function
        every input (labels and boxes too) first becomes a tensor of the compute dtype."""
        from ferroflow.keras import _symbolic

        if not tf.executing_eagerly() and not _symbolic.any_symbolic(inputs):
            dtype = tf.as_dtype(self.compute_dtype)
            inputs = tf.nest.map_structure(lambda x: _as_tensor_of(x, dtype), inputs)
        elif isinstance(inputs, dict):
            self._check_not_mixed(inputs)
        return super().__call__(inputs, **kwargs)

    def _check_not_mixed(self, inputs):
        """Keras's refusal of a dict that mixes tensors with other values (arrays count as
        tensors where the layer converts its inputs)."""
        leaves = tf.nest.flatten(inputs)
        if self._convert_input_args:
            leaves = [tf.constant(0) if isinstance(v, np.ndarray) else v for v in leaves]
        if all(_is_tensor(v) or v is None for v in leaves):
            return
        if any(_is_tensor(v) for v in leaves):
            raise ValueError(
                "In a nested call() argument, you cannot mix tensors and non-tensors. "
                f"Received invalid mixed argument: data={inputs}"
            )

    # Keras's RandomFlip and RandomCrop take their inputs as given.
    _convert_input_args = True

    def _as_input(self, value):
        return data_layer_input(self, value)

    # --- random numbers -------------------------------------------------------------------

    def _seeded(self, seed):
        """Keeps ``seed`` (for the config) and makes the layer's `SeedGenerator` (Keras's
        ``generator``); random layers call this in `__init__`."""
        self.seed = seed
        self.generator = SeedGenerator(seed)

    def _draw_seed(self, seed):
        """What a draw is seeded with: the caller's ``seed`` of `get_random_transformation`
        (an int: the same numbers each time), else the layer's generator."""
        return self.generator if seed is None else seed

    def _uniform(self, shape, minval=0.0, maxval=1.0, dtype="float32", seed=None):
        """Keras's ``random.uniform`` (``random.randint`` for an integer dtype) in
        ``[minval, maxval)``, seeded as `_draw_seed` says."""
        dtype = tf.as_dtype(dtype)
        seed = self._draw_seed(seed)
        if dtype.is_integer:
            return keras_random.randint(shape, minval, maxval, dtype=dtype, seed=seed)
        return keras_random.uniform(shape, minval, maxval, dtype=dtype, seed=seed)

    # --- factors --------------------------------------------------------------------------

    def _set_factor(self, factor):
        self.factor = bounded_factor_pair(self._FACTOR_BOUNDS, factor, "factor")

    # --- shapes ---------------------------------------------------------------------------

    @property
    def _height_axis(self):
        return -2 if self.data_format == "channels_first" else -3

    @property
    def _width_axis(self):
        return -1 if self.data_format == "channels_first" else -2

    def _height_width(self, images):
        """The (static when known, else dynamic) height and width of ``images``."""
        static = images.shape.as_list()
        dynamic = tf.shape(images)
        h, w = static[self._height_axis], static[self._width_axis]
        return (
            h if h is not None else dynamic[self._height_axis],
            w if w is not None else dynamic[self._width_axis],
        )

    @staticmethod
    def _shape_of(images):
        """``images``' shape: a tuple of ints when static, else the dynamic shape."""
        static = images.shape.as_list()
        return tuple(static) if None not in static else tf.shape(images)

    @staticmethod
    def _batch_size(images):
        if images.shape.rank == 3:
            return 1
        size = images.shape[0]
        return size if size is not None else tf.shape(images)[0]

    @staticmethod
    def _images_of(data):
        return data["images"] if isinstance(data, dict) else data

    def _is_batched(self, images):
        rank = images.shape.rank
        if rank == 3:
            return False
        if rank == 4:
            return True
        raise ValueError(
            "Expected image tensor to have rank 3 (single image) or 4 (batch of images). "
            f"Received: data.shape={tuple(images.shape.as_list())}"
        )

    # --- transformations ------------------------------------------------------------------

    def get_random_transformation(self, data, training=True, seed=None):
        """The random parameters of one call (None for deterministic layers)."""
        return None

    def _transform_images(self, images, transformation, interpolation):
        raise NotImplementedError()

    def transform_images(self, images, transformation, training=True):
        """``images`` (a batch) transformed by ``transformation`` when ``training``."""
        images = tf.cast(images, self.compute_dtype)
        if training:
            images = self._transform_images(images, transformation, self.interpolation)
        return images

    def transform_labels(self, labels, transformation, training=True):
        return labels

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        if training:
            segmentation_masks = self._transform_images(
                segmentation_masks, transformation, "nearest"
            )
        return segmentation_masks

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        """The batch's boxes moved as the images are (layers that support boxes say how;
        Keras's CutMix, RandomElasticTransform and CLAHE do not)."""
        raise NotImplementedError(
            f"{type(self).__name__} does not transform bounding boxes (neither does Keras's)."
        )

    def _apply(self, method, value, transformation, training, batched):
        if batched:
            return method(value, transformation, training=training)
        out = method(tf.expand_dims(value, 0), transformation, training=training)
        return tf.squeeze(out, 0)

    def call(self, data, training=True):
        transformation = self.get_random_transformation(data, training=training)
        if not isinstance(data, dict):
            batched = self._is_batched(data)
            return self._apply(self.transform_images, data, transformation, training, batched)
        data = dict(data)
        batched = self._is_batched(data["images"])
        data["images"] = self._apply(
            self.transform_images, data["images"], transformation, training, batched
        )
        if "bounding_boxes" in data:
            if not self.bounding_box_format:
                raise ValueError(
                    "You passed an input with a 'bounding_boxes' key, but you didn't specify a "
                    "bounding box format. Pass a `bounding_box_format` argument to your "
                    f"{type(self).__name__} layer, e.g. `bounding_box_format='xyxy'`."
                )
            boxes = box_validation.densify(data["bounding_boxes"])
            if not batched:  # one image's boxes: a batch of one, as Keras does
                boxes = {**boxes, "boxes": boxes["boxes"][None], "labels": boxes["labels"][None]}
            boxes = self.transform_bounding_boxes(boxes, transformation, training=training)
            if not batched:
                boxes = {
                    **boxes,
                    "boxes": _squeeze0(boxes["boxes"]),
                    "labels": _squeeze0(boxes["labels"]),
                }
            data["bounding_boxes"] = boxes
        if "labels" in data:
            data["labels"] = self._apply(
                self.transform_labels, data["labels"], transformation, training, batched
            )
        if "segmentation_masks" in data:
            data["segmentation_masks"] = self._apply(
                self.transform_segmentation_masks,
                data["segmentation_masks"],
                transformation,
                training,
                batched,
            )
        return data

    def compute_output_shape(self, input_shape):
        return input_shape

    def compute_output_spec(self, inputs, training=None):
        """The functional API's output, as Keras states it: `compute_output_shape`'s shape
        in the layer's compute dtype (images), each entry's own for a dict."""
        from ferroflow.keras.layers.input_layer import KerasTensor

        if isinstance(inputs, dict):
            return {key: KerasTensor(tuple(v.shape), dtype=v.dtype) for key, v in inputs.items()}
        shape = self.compute_output_shape(tuple(inputs.shape))
        return KerasTensor(shape, dtype=self.compute_dtype)

    # --- value ranges ---------------------------------------------------------------------

    @staticmethod
    def _transform_value_range(images, original_range, target_range, dtype="float32"):
        """``images`` mapped linearly from ``original_range`` to ``target_range``."""
        if tuple(original_range) == tuple(target_range):
            return images
        images = tf.cast(images, dtype)
        lo, hi = (tf.cast(v, dtype) for v in original_range)
        new_lo, new_hi = (tf.cast(v, dtype) for v in target_range)
        return (images - lo) / (hi - lo) * (new_hi - new_lo) + new_lo

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config
