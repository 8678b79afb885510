"""`tf.keras.layers.RandAugment`, `AugMix`, `Pipeline` and `MaxNumBoundingBoxes`: layers
built from the other preprocessing layers (random chains and mixtures of augmentations, a
sequence of layers) and the bounding-box padding layer."""

import inspect
import random as py_random

import ferroflow as tf
from ferroflow.keras import random as keras_random
from ferroflow.keras.layers.image_preprocessing import box_transforms
from ferroflow.keras.layers.image_preprocessing.base import (
    BaseImagePreprocessingLayer,
    data_layer_input,
    unchanged_boxes,
)
from ferroflow.keras.layers.image_preprocessing.color import (
    AutoContrast,
    RandomBrightness,
    RandomContrast,
    Solarization,
)
from ferroflow.keras.layers.image_preprocessing.color_adjust import (
    Equalization,
    RandomColorDegeneration,
    RandomPosterization,
    RandomSharpness,
)
from ferroflow.keras.layers.image_preprocessing.geometric import (
    RandomRotation,
    RandomShear,
    RandomTranslation,
)
from ferroflow.keras.layers.layer import Layer

__all__ = ["AugMix", "MaxNumBoundingBoxes", "Pipeline", "RandAugment"]

_GEOMETRIC = ["random_shear", "random_translation", "random_rotation"]
_COLOR = ["random_brightness", "random_color_degeneration", "random_contrast", "random_sharpness"]
_TONAL = ["random_posterization", "solarization", "auto_contrast", "equalization"]


def _augmentations(layer, names, value_range, interpolation, data_format, kwargs):
    """Sets the named augmentation sublayers on ``layer``, configured as Keras's RandAugment
    and AugMix configure them from ``layer.factor``."""
    factor, seed = layer.factor, layer.seed
    common = {"seed": seed, "data_format": data_format, **kwargs}
    ranged = {"value_range": value_range, **common}
    makers = {
        "random_shear": lambda: RandomShear(
            x_factor=factor, y_factor=factor, interpolation=interpolation, **common
        ),
        "random_translation": lambda: RandomTranslation(
            height_factor=factor, width_factor=factor, interpolation=interpolation, **common
        ),
        "random_rotation": lambda: RandomRotation(
            factor=factor, interpolation=interpolation, **common
        ),
        "random_brightness": lambda: RandomBrightness(factor=factor, **ranged),
        "random_color_degeneration": lambda: RandomColorDegeneration(factor=factor, **ranged),
        "random_contrast": lambda: RandomContrast(factor=factor, **ranged),
        "random_sharpness": lambda: RandomSharpness(factor=factor, **ranged),
        "solarization": lambda: Solarization(
            addition_factor=factor, threshold_factor=factor, **ranged
        ),
        "random_posterization": lambda: RandomPosterization(
            factor=max(1, int(8 * factor[1])), **ranged
        ),
        "auto_contrast": lambda: AutoContrast(
            value_range=value_range, data_format=data_format, **kwargs
        ),
        "equalization": lambda: Equalization(
            value_range=value_range, data_format=data_format, **kwargs
        ),
    }
    for name in names:
        setattr(layer, name, makers[name]())


class RandAugment(BaseImagePreprocessingLayer):
    """Applies ``num_ops`` augmentations, each picked at random from Keras's eleven, with
    strength ``factor``, while training."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)
    _AUGMENT_LAYERS = [*_GEOMETRIC, "random_brightness", "random_color_degeneration",
                       "random_contrast", "random_sharpness", "random_posterization",
                       "solarization", "auto_contrast", "equalization"]  # fmt: skip

    def __init__(
        self,
        value_range=(0, 255),
        num_ops=2,
        factor=0.5,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.num_ops = num_ops
        self._set_factor(factor)
        self.interpolation = interpolation
        self._seeded(seed)
        _augmentations(self, self._AUGMENT_LAYERS, value_range, interpolation, data_format, kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        picks = self._uniform([self.num_ops], 0, len(self._AUGMENT_LAYERS), "int32", seed)
        # As Keras, every augmentation draws from RandAugment's own generator.
        transforms = {
            name: getattr(self, name).get_random_transformation(
                data, training=training, seed=self._draw_seed(seed)
            )
            for name in self._AUGMENT_LAYERS
        }
        return {"transforms": transforms, "layer_idxes": picks}

    def transform_images(self, images, transformation, training=True):
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        picks = transformation["layer_idxes"]
        for i in range(self.num_ops):
            for index, (name, value) in enumerate(transformation["transforms"].items()):
                changed = getattr(self, name).transform_images(images, value)
                images = tf.where(picks[i] == index, tf.cast(changed, images.dtype), images)
        return images

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        if not training:
            return segmentation_masks
        picks = transformation["layer_idxes"]
        for i in range(self.num_ops):
            for index, (name, value) in enumerate(transformation["transforms"].items()):
                layer = getattr(self, name)
                changed = layer.transform_segmentation_masks(segmentation_masks, value)
                segmentation_masks = tf.where(picks[i] == index, changed, segmentation_masks)
        return segmentation_masks

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        if not training:
            return bounding_boxes
        return box_transforms.rand_augment_boxes(self, bounding_boxes, transformation)

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "num_ops": self.num_ops,
            "factor": self.factor,
            "interpolation": self.interpolation,
            "seed": self.seed,
        }


class AugMix(BaseImagePreprocessingLayer):
    """Mixes ``num_chains`` chains of up to ``chain_depth`` random augmentations (Dirichlet
    weights) with the original image (a Beta weight), while training. As in Keras, the
    augmentations of each chain are picked in Python, once per trace of a traced call."""

    _USE_BASE_FACTOR = False
    _FACTOR_BOUNDS = (0, 1)

    def __init__(
        self,
        value_range=(0, 255),
        num_chains=3,
        chain_depth=3,
        factor=0.3,
        alpha=1.0,
        all_ops=True,
        interpolation="bilinear",
        seed=None,
        data_format=None,
        **kwargs,
    ):
        super().__init__(data_format=data_format, **kwargs)
        self.value_range = value_range
        self.num_chains = num_chains
        self.chain_depth = chain_depth
        self._set_factor(factor)
        self.alpha = alpha
        self.all_ops = all_ops
        self.interpolation = interpolation
        self._seeded(seed)
        self._augment_layers = [*_GEOMETRIC, *_TONAL] + (_COLOR if all_ops else [])
        _augmentations(self, self._augment_layers, value_range, interpolation, data_format, kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        if not training:
            return None
        # Keras's Dirichlet draw (normalised gammas), then its Beta weight.
        gamma = keras_random.gamma([self.num_chains], alpha=self.alpha, seed=self._draw_seed(seed))
        weight = keras_random.beta((), self.alpha, self.alpha, seed=self._draw_seed(seed))
        chains = []
        for _ in range(self.num_chains):
            chain = []
            for _ in range(self.chain_depth):
                name = py_random.choice([*self._augment_layers, None])
                if name is not None:
                    transform = getattr(self, name).get_random_transformation(data)
                    chain.append({"layer_name": name, "transformation": transform})
            chains.append(chain)
        return {
            "chain_mixing_weights": gamma / tf.reduce_sum(gamma, axis=-1, keepdims=True),
            "weight_sample": weight,
            "chain_transforms": chains,
        }

    def _mix(self, values, transformation, method):
        dtype = self.compute_dtype
        weights = tf.cast(transformation["chain_mixing_weights"], dtype)
        sample = tf.cast(transformation["weight_sample"], dtype)
        mixed = tf.zeros_like(values)
        for index, chain in enumerate(transformation["chain_transforms"]):
            copy = values
            for step in chain:
                layer = getattr(self, step["layer_name"])
                copy = getattr(layer, method)(copy, step["transformation"])
            mixed += tf.cast(copy, values.dtype) * weights[index]
        return sample * values + (1 - sample) * mixed

    def transform_images(self, images, transformation, training=True):
        images = tf.cast(images, self.compute_dtype)
        if not training:
            return images
        images = self._mix(images, transformation, "transform_images")
        return tf.clip_by_value(images, self.value_range[0], self.value_range[1])

    def transform_segmentation_masks(self, segmentation_masks, transformation, training=True):
        if not training:
            return segmentation_masks
        return self._mix(segmentation_masks, transformation, "transform_segmentation_masks")

    transform_bounding_boxes = unchanged_boxes

    def get_config(self):
        return {
            **super().get_config(),
            "value_range": self.value_range,
            "num_chains": self.num_chains,
            "chain_depth": self.chain_depth,
            "factor": self.factor,
            "alpha": self.alpha,
            "all_ops": self.all_ops,
            "interpolation": self.interpolation,
            "seed": self.seed,
        }


class Pipeline(Layer):
    """Applies ``layers`` in sequence (passing ``training`` and masks on), without being a
    `Model`: the way to chain preprocessing layers inside `tf.data`."""

    # Keras's Pipeline passes its inputs on as given (each layer converts its own).
    _convert_input_args = False
    _as_input = data_layer_input

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        self._pipeline_layers = layers

    @property
    def layers(self):
        return self._pipeline_layers

    def call(self, inputs, training=True, mask=None):
        if not self._pipeline_layers:
            # Keras's loop leaves its result unset when there is no layer.
            raise UnboundLocalError(
                "cannot access local variable 'outputs' where it is not associated with a value"
            )
        outputs = inputs
        for layer in self._pipeline_layers:
            parameters = inspect.signature(layer.call).parameters
            kwargs = {}
            if "mask" in parameters:
                kwargs["mask"] = mask
            if "training" in parameters and training is not None:
                kwargs["training"] = training
            outputs = layer(inputs, **kwargs)
            inputs = outputs
            mask = tf.nest.map_structure(lambda t: getattr(t, "_keras_mask", None), outputs)
        return outputs

    def compute_output_spec(self, inputs, training=None, mask=None):
        from ferroflow.keras.layers.input_layer import KerasTensor

        outputs = inputs
        for layer in self._pipeline_layers:
            spec = getattr(layer, "compute_output_spec", None)
            if spec is None:
                shape = layer.compute_output_shape(tuple(outputs.shape))
                outputs = KerasTensor(shape, dtype=layer.compute_dtype)
            else:
                outputs = spec(outputs)
        return outputs

    @classmethod
    def from_config(cls, config):
        from ferroflow.keras.layers.serialization import deserialize

        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError(
                "`Pipeline` config must contain a `layers` key mapping to a list of serialized "
                f"layers. Received config with layers={layers}."
            )
        return cls(**{**config, "layers": [deserialize(x) for x in layers]})

    def get_config(self):
        from ferroflow.keras.layers.serialization import serialize

        return {"layers": [serialize(x) for x in self._pipeline_layers], "name": self.name}


class MaxNumBoundingBoxes(BaseImagePreprocessingLayer):
    """Pads (with ``fill_value``) or truncates each batch's ``bounding_boxes`` to
    ``max_number`` boxes; images pass through."""

    _USE_BASE_FACTOR = False

    def __init__(self, max_number, fill_value=-1, **kwargs):
        super().__init__(**kwargs)
        self.max_number = int(max_number)
        self.fill_value = int(fill_value)

    def transform_images(self, images, transformation=None, training=True):
        return images

    def transform_segmentation_masks(self, segmentation_masks, transformation=None, training=True):
        return segmentation_masks

    def transform_bounding_boxes(self, bounding_boxes, transformation, training=True):
        boxes = tf.convert_to_tensor(bounding_boxes["boxes"])
        labels = tf.convert_to_tensor(bounding_boxes["labels"])
        batch = tf.shape(boxes)[0]
        pad = tf.maximum(self.max_number - tf.shape(boxes)[1], 0)
        boxes = tf.pad(
            boxes[:, : self.max_number],
            tf.stack([[0, 0], tf.stack([0, pad]), [0, 0]]),
            constant_values=tf.cast(self.fill_value, boxes.dtype),
        )
        labels = tf.pad(
            labels[:, : self.max_number],
            tf.stack([[0, 0], tf.stack([0, pad])]),
            constant_values=tf.cast(self.fill_value, labels.dtype),
        )
        boxes = tf.reshape(boxes, tf.stack([batch, self.max_number, 4]))
        labels = tf.reshape(labels, tf.stack([batch, self.max_number]))
        return {**bounding_boxes, "boxes": boxes, "labels": labels}

    def get_config(self):
        return {**super().get_config(), "max_number": self.max_number}
