"""`tf.keras.preprocessing.image.ImageDataGenerator`: Keras's legacy NumPy image augmenter
and standardizer, whose ``flow*`` methods build the iterators of `_image_iterators`.

Random transforms draw from NumPy's global random state in Keras's order (rotation, height
shift, width shift, shear, zoom, flips, channel shift, brightness), so that the same NumPy seed
gives Keras's images; the affine part needs SciPy and the brightness part PIL, as in Keras."""

import math
import warnings

import numpy as np

from ferroflow.keras import _backend_config
from ferroflow.keras.preprocessing._image_augment import (
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    flip_axis,
)
from ferroflow.keras.preprocessing._image_iterators import DirectoryIterator, NumpyArrayIterator

__all__ = ["ImageDataGenerator"]

_NOT_FIT = (
    "This ImageDataGenerator specifies `{}`, but it hasn't been fit on any training data. "
    "Fit it first by calling `.fit(numpy_data)`."
)


def _overrides(setting, overridden):
    warnings.warn(
        f"This ImageDataGenerator specifies `{setting}`, which overrides setting of "
        f"`{overridden}`.",
        stacklevel=2,
    )


def _random_shift(shift_range, size):
    """A shift drawn from ``shift_range``: a float range ±r (a fraction of ``size`` below 1,
    pixels otherwise), or a list/int of pixel values picked with a random sign."""
    try:
        shift = np.random.choice(shift_range)
        shift *= np.random.choice([-1, 1])
    except ValueError:  # a float: NumPy's choice refuses it before drawing anything
        shift = np.random.uniform(-shift_range, shift_range)
    if np.max(shift_range) < 1:
        shift *= size
    return shift


class ImageDataGenerator:
    """Augments (affine transforms, flips, channel and brightness shifts) and standardizes
    (rescale, sample- or feature-wise centring and scaling, ZCA whitening) image batches from
    arrays (`flow`), class folders (`flow_from_directory`) or data frames
    (`flow_from_dataframe`)."""

    def __init__(
        self,
        featurewise_center=False,
        samplewise_center=False,
        featurewise_std_normalization=False,
        samplewise_std_normalization=False,
        zca_whitening=False,
        zca_epsilon=1e-6,
        rotation_range=0,
        width_shift_range=0.0,
        height_shift_range=0.0,
        brightness_range=None,
        shear_range=0.0,
        zoom_range=0.0,
        channel_shift_range=0.0,
        fill_mode="nearest",
        cval=0.0,
        horizontal_flip=False,
        vertical_flip=False,
        rescale=None,
        preprocessing_function=None,
        data_format=None,
        validation_split=0.0,
        interpolation_order=1,
        dtype=None,
    ):
        data_format = _backend_config.image_data_format() if data_format is None else data_format
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.zoom_range = zoom_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.dtype = _backend_config.floatx() if dtype is None else dtype
        self.interpolation_order = interpolation_order
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError(
                '`data_format` should be `"channels_last"` (channel after row and column) or '
                '`"channels_first"` (channel before row and column). '
                f"Received: {data_format}"
            )
        self.data_format = data_format
        if data_format == "channels_first":
            self.channel_axis, self.row_axis, self.col_axis = 1, 2, 3
        else:
            self.channel_axis, self.row_axis, self.col_axis = 3, 1, 2
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(
                "`validation_split` must be strictly between 0 and 1. "
                f" Received: {validation_split}"
            )
        self._validation_split = validation_split
        self.mean = None
        self.std = None
        self.zca_whitening_matrix = None
        self.zoom_range = self._zoom_bounds(zoom_range)
        self._resolve_normalization(
            zca_whitening,
            featurewise_center,
            featurewise_std_normalization,
            samplewise_center,
            samplewise_std_normalization,
        )
        if brightness_range is not None and (
            not isinstance(brightness_range, (tuple, list)) or len(brightness_range) != 2
        ):
            raise ValueError(
                "`brightness_range should be tuple or list of two floats. "
                f"Received: {brightness_range}"
            )
        self.brightness_range = brightness_range

    @staticmethod
    def _zoom_bounds(zoom_range):
        if isinstance(zoom_range, (float, int)):
            return [1 - zoom_range, 1 + zoom_range]
        if len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            return [zoom_range[0], zoom_range[1]]
        raise ValueError(
            "`zoom_range` should be a float or a tuple or list of two floats. "
            f"Received: {zoom_range}"
        )

    def _resolve_normalization(self, zca, feature_center, feature_std, sample_center, sample_std):
        """ZCA implies feature-wise centring and replaces feature-wise scaling; scaling implies
        centring (each override warns, as in Keras)."""
        if zca:
            if not feature_center:
                self.featurewise_center = True
                warnings.warn(
                    "This ImageDataGenerator specifies `zca_whitening`, which overrides "
                    "setting of `featurewise_center`.",
                    stacklevel=2,
                )
            if feature_std:
                self.featurewise_std_normalization = False
                warnings.warn(
                    "This ImageDataGenerator specifies `zca_whitening` which overrides "
                    "setting of`featurewise_std_normalization`.",
                    stacklevel=2,
                )
        if feature_std and not feature_center:
            self.featurewise_center = True
            _overrides("featurewise_std_normalization", "featurewise_center")
        if sample_std and not sample_center:
            self.samplewise_center = True
            _overrides("samplewise_std_normalization", "samplewise_center")

    def flow(
        self,
        x,
        y=None,
        batch_size=32,
        shuffle=True,
        sample_weight=None,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        ignore_class_split=False,
        subset=None,
    ):
        """A `NumpyArrayIterator` over the images ``x`` (and targets ``y``)."""
        return NumpyArrayIterator(
            x,
            y,
            self,
            batch_size=batch_size,
            shuffle=shuffle,
            sample_weight=sample_weight,
            seed=seed,
            data_format=self.data_format,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            ignore_class_split=ignore_class_split,
            subset=subset,
            dtype=self.dtype,
        )

    def flow_from_directory(
        self,
        directory,
        target_size=(256, 256),
        color_mode="rgb",
        classes=None,
        class_mode="categorical",
        batch_size=32,
        shuffle=True,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        follow_links=False,
        subset=None,
        interpolation="nearest",
        keep_aspect_ratio=False,
    ):
        """A `DirectoryIterator` over the images in the class subfolders of ``directory``."""
        return DirectoryIterator(
            directory,
            self,
            target_size=target_size,
            color_mode=color_mode,
            keep_aspect_ratio=keep_aspect_ratio,
            classes=classes,
            class_mode=class_mode,
            data_format=self.data_format,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            follow_links=follow_links,
            subset=subset,
            interpolation=interpolation,
            dtype=self.dtype,
        )

    def flow_from_dataframe(
        self,
        dataframe,
        directory=None,
        x_col="filename",
        y_col="class",
        weight_col=None,
        target_size=(256, 256),
        color_mode="rgb",
        classes=None,
        class_mode="categorical",
        batch_size=32,
        shuffle=True,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        subset=None,
        interpolation="nearest",
        validate_filenames=True,
        **kwargs,
    ):
        """A `DataFrameIterator` over the image files named in ``dataframe[x_col]`` (a pandas
        data frame) with labels from ``y_col``."""
        from ferroflow.keras.preprocessing._dataframe_iterator import DataFrameIterator

        deprecated = {
            "has_ext": "has_ext is deprecated, filenames in the dataframe have to match the "
            "exact filenames in disk.",
            "sort": "sort is deprecated, batches will be created in thesame order than the "
            "filenames provided if `shuffle`is set to `False`.",
        }
        for name, message in deprecated.items():
            if name in kwargs:
                warnings.warn(message, DeprecationWarning, stacklevel=2)
        if class_mode == "other":
            warnings.warn(
                '`class_mode="other"` is deprecated, please use `class_mode="raw"`.',
                DeprecationWarning,
                stacklevel=2,
            )
            class_mode = "raw"
        if "drop_duplicates" in kwargs:
            warnings.warn(
                "drop_duplicates is deprecated, you can drop duplicates by using the "
                "pandas.DataFrame.drop_duplicates method.",
                DeprecationWarning,
                stacklevel=2,
            )
        return DataFrameIterator(
            dataframe,
            directory,
            self,
            x_col=x_col,
            y_col=y_col,
            weight_col=weight_col,
            target_size=target_size,
            color_mode=color_mode,
            classes=classes,
            class_mode=class_mode,
            data_format=self.data_format,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            subset=subset,
            interpolation=interpolation,
            validate_filenames=validate_filenames,
            dtype=self.dtype,
        )

    def standardize(self, x):
        """Applies ``preprocessing_function``, ``rescale`` and the sample-/feature-wise
        normalizations to ``x`` (one image or a batch), in place where the arithmetic allows,
        as Keras does; returns the result."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        if self.featurewise_center:
            if self.mean is None:
                warnings.warn(_NOT_FIT.format("featurewise_center"), stacklevel=2)
            else:
                x -= self.mean
        if self.featurewise_std_normalization:
            if self.std is None:
                warnings.warn(_NOT_FIT.format("featurewise_std_normalization"), stacklevel=2)
            else:
                x /= self.std + 1e-6
        if self.zca_whitening:
            if self.zca_whitening_matrix is None:
                warnings.warn(_NOT_FIT.format("zca_whitening"), stacklevel=2)
            else:
                flat = x.reshape(-1, math.prod(x.shape[-3:]))
                x = np.reshape(flat @ self.zca_whitening_matrix, x.shape)
        return x

    def get_random_transform(self, img_shape, seed=None):
        """The random parameters of one image's transform (a dict of ``theta``, ``tx``,
        ``ty``, ``shear``, ``zx``, ``zy``, the flips, ``channel_shift_intensity`` and
        ``brightness``), drawn from NumPy's global state (seeded with ``seed``)."""
        if seed is not None:
            np.random.seed(seed)
        theta = (
            np.random.uniform(-self.rotation_range, self.rotation_range)
            if self.rotation_range
            else 0
        )
        tx = (
            _random_shift(self.height_shift_range, img_shape[self.row_axis - 1])
            if self.height_shift_range
            else 0
        )
        ty = (
            _random_shift(self.width_shift_range, img_shape[self.col_axis - 1])
            if self.width_shift_range
            else 0
        )
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        low, high = self.zoom_range
        zx, zy = (1, 1) if low == 1 and high == 1 else np.random.uniform(low, high, 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(
                -self.channel_shift_range, self.channel_shift_range
            )
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {
            "theta": theta,
            "tx": tx,
            "ty": ty,
            "shear": shear,
            "zx": zx,
            "zy": zy,
            "flip_horizontal": flip_horizontal,
            "flip_vertical": flip_vertical,
            "channel_shift_intensity": channel_shift_intensity,
            "brightness": brightness,
        }

    def apply_transform(self, x, transform_parameters):
        """One image ``x`` (rank 3) transformed by ``transform_parameters`` (the keys of
        `get_random_transform`; missing ones leave the image alone)."""
        params = transform_parameters
        # The image has no batch axis.
        row_axis, col_axis = self.row_axis - 1, self.col_axis - 1
        channel_axis = self.channel_axis - 1
        x = apply_affine_transform(
            x,
            params.get("theta", 0),
            params.get("tx", 0),
            params.get("ty", 0),
            params.get("shear", 0),
            params.get("zx", 1),
            params.get("zy", 1),
            row_axis=row_axis,
            col_axis=col_axis,
            channel_axis=channel_axis,
            fill_mode=self.fill_mode,
            cval=self.cval,
            order=self.interpolation_order,
        )
        if params.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, params["channel_shift_intensity"], channel_axis)
        if params.get("flip_horizontal", False):
            x = flip_axis(x, col_axis)
        if params.get("flip_vertical", False):
            x = flip_axis(x, row_axis)
        if params.get("brightness") is not None:
            x = apply_brightness_shift(x, params["brightness"], False)
        return x

    def random_transform(self, x, seed=None):
        """`apply_transform` of a `get_random_transform` draw."""
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Computes the feature-wise mean, std and ZCA matrix that `standardize` uses, from
        the rank-4 sample ``x`` (rescaled first; with ``augment``, ``rounds`` random
        transforms of it)."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(
                f"Input to `.fit()` should have rank 4. Got array with shape: {x.shape}"
            )
        channels = x.shape[self.channel_axis]
        if channels not in {1, 3, 4}:
            warnings.warn(
                "Expected input to be images (as Numpy array) following the data format "
                f'convention "{self.data_format}" (channels on axis {self.channel_axis}), i.e. '
                f"expected either 1, 3 or 4 channels on axis {self.channel_axis}. However, it "
                f"was passed an array with shape {x.shape} ({channels} channels).",
                stacklevel=2,
            )
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            augmented = np.zeros((rounds * x.shape[0],) + x.shape[1:], dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    augmented[i + r * x.shape[0]] = self.random_transform(x[i])
            x = augmented
        stats_shape = [1, 1, 1]
        stats_shape[self.channel_axis - 1] = channels
        axes = (0, self.row_axis, self.col_axis)
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=axes), stats_shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=axes), stats_shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            n = len(x)
            u, s, _ = np.linalg.svd(np.reshape(x, (n, -1)).T, full_matrices=False)
            self.zca_whitening_matrix = (u * (np.sqrt(n) / (s + self.zca_epsilon))).dot(u.T)
