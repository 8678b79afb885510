"""The batch iterators of Keras's legacy `ImageDataGenerator`: `Iterator` (a `PyDataset` that
also iterates endlessly with ``next``), `NumpyArrayIterator` (``flow``), `DirectoryIterator`
(``flow_from_directory``) and `DataFrameIterator` (``flow_from_dataframe``, in
`_dataframe_iterator`).

Shuffling and augmentation draw from NumPy's global random state, reseeded with
``seed + total_batches_seen`` before each batch when a seed is given, exactly as Keras does, so
that a NumPy-seeded program gets Keras's batches."""

import os
import threading
import warnings

import numpy as np

from ferroflow.keras import _backend_config
from ferroflow.keras.utils.image_utils import array_to_img, img_to_array, load_img
from ferroflow.keras.utils.progbar import print_msg
from ferroflow.keras.utils.py_dataset import PyDataset

__all__ = ["BatchFromFilesMixin", "DirectoryIterator", "Iterator", "NumpyArrayIterator"]


class Iterator(PyDataset):
    """Batches of ``batch_size`` indices out of ``n`` (shuffled each epoch with ``shuffle``);
    subclasses turn them into data in ``_get_batches_of_transformed_samples``."""

    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n, batch_size, shuffle, seed, **kwargs):
        super().__init__(**kwargs)
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def _reseed(self):
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(
                f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}"
            )
        self._reseed()
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        start = self.batch_size * idx
        return self._get_batches_of_transformed_samples(
            self.index_array[start : start + self.batch_size]
        )

    def __len__(self):
        return -(-self.n // self.batch_size)

    def on_epoch_end(self):
        """Draws the next epoch's order."""
        self._set_index_array()

    def reset(self):
        """Restarts the endless iteration at the first batch of a new epoch."""
        self.batch_index = 0

    def _flow_index(self):
        """The endless stream of index batches that ``next`` consumes: a new order at the
        start of each pass, and a last batch of the ``n % batch_size`` remaining indices."""
        self.reset()
        while True:
            self._reseed()
            if self.batch_index == 0:
                self._set_index_array()
            start = (self.batch_index * self.batch_size) % self.n if self.n else 0
            self.batch_index = self.batch_index + 1 if self.n > start + self.batch_size else 0
            self.total_batches_seen += 1
            yield self.index_array[start : start + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        """The batch of the samples at ``index_array``."""
        raise NotImplementedError


def _split(items, split):
    """The ``split`` fractions ``(start, stop)`` of ``items`` (all of them without one)."""
    if not split:
        return items
    return items[int(split[0] * len(items)) : int(split[1] * len(items))]


def _images_in(directory, formats, follow_links):
    """``(folder, file name)`` of each file under ``directory`` whose name ends with one of
    ``formats`` (case-insensitive), folders and files in sorted order."""
    found = []
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda w: w[0]):
        for name in sorted(files):
            if name.lower().endswith(".tiff"):
                warnings.warn(
                    'Using ".tiff" files with multiple bands will cause distortion. '
                    "Please verify your output.",
                    stacklevel=2,
                )
            if name.lower().endswith(formats):
                found.append((root, name))
    return found


def _image_shape(color_mode, target_size, data_format):
    channels = {"rgba": 4, "rgb": 3, "grayscale": 1}[color_mode]
    if data_format == "channels_last":
        return target_size + (channels,)
    return (channels,) + target_size


def _save_batch(iterator, batch_x, index_array, hash_high):
    """Writes each image of ``batch_x`` to ``iterator.save_to_dir`` (Keras's debugging aid),
    named with a random number below ``hash_high`` drawn from NumPy's global state."""
    for image, index in zip(batch_x, index_array):
        img = array_to_img(image, iterator.data_format, scale=True)
        name = (
            f"{iterator.save_prefix}_{index}_{np.random.randint(hash_high)}.{iterator.save_format}"
        )
        img.save(os.path.join(iterator.save_to_dir, name))


class BatchFromFilesMixin:
    """Reading, augmenting and labelling the image files of a directory or data-frame
    iterator."""

    def set_processing_attrs(
        self,
        image_data_generator,
        target_size,
        color_mode,
        data_format,
        save_to_dir,
        save_prefix,
        save_format,
        subset,
        interpolation,
        keep_aspect_ratio,
    ):
        """Stores how files become batch images, and the ``subset``'s split of the files."""
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.keep_aspect_ratio = keep_aspect_ratio
        if color_mode not in {"rgb", "rgba", "grayscale"}:
            raise ValueError(
                f'Invalid color mode: {color_mode}; expected "rgb", "rgba", or "grayscale".'
            )
        self.color_mode = color_mode
        self.data_format = data_format
        self.image_shape = _image_shape(color_mode, self.target_size, data_format)
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        self.interpolation = interpolation
        if subset is None:
            split = None
        elif subset == "validation":
            split = (0, image_data_generator._validation_split)
        elif subset == "training":
            split = (image_data_generator._validation_split, 1)
        else:
            raise ValueError(f'Invalid subset name: {subset};expected "training" or "validation"')
        self.split = split
        self.subset = subset

    def _load(self, path):
        img = load_img(
            path,
            color_mode=self.color_mode,
            target_size=self.target_size,
            interpolation=self.interpolation,
            keep_aspect_ratio=self.keep_aspect_ratio,
        )
        x = img_to_array(img, data_format=self.data_format)
        if hasattr(img, "close"):
            img.close()
        return x

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.image_shape, dtype=self.dtype)
        filepaths = self.filepaths
        generator = self.image_data_generator
        for i, j in enumerate(index_array):
            x = self._load(filepaths[j])
            if generator:
                x = generator.apply_transform(x, generator.get_random_transform(x.shape))
                x = generator.standardize(x)
            batch_x[i] = x
        if self.save_to_dir:
            _save_batch(self, batch_x, index_array, 1e7)
        batch_y = self._labels_of(batch_x, index_array)
        if batch_y is None:
            return batch_x
        if self.sample_weight is None:
            return batch_x, batch_y
        return batch_x, batch_y, self.sample_weight[index_array]

    def _labels_of(self, batch_x, index_array):
        """The targets ``class_mode`` asks for (None: no targets)."""
        mode = self.class_mode
        if mode == "input":
            return batch_x.copy()
        if mode in {"binary", "sparse"}:
            return np.array([self.classes[j] for j in index_array], dtype=self.dtype)
        if mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            for i, j in enumerate(index_array):
                batch_y[i, self.classes[j]] = 1.0
            return batch_y
        if mode == "multi_output":
            return [output[index_array] for output in self.labels]
        if mode == "raw":
            return self.labels[index_array]
        return None

    @property
    def filepaths(self):
        """Absolute paths of the image files."""
        raise NotImplementedError(
            f"`filepaths` property method has not been implemented in {type(self).__name__}."
        )

    @property
    def labels(self):
        """Class labels of every observation."""
        raise NotImplementedError(
            f"`labels` property method has not been implemented in {type(self).__name__}."
        )

    @property
    def sample_weight(self):
        """Per-sample weights (None: none)."""
        raise NotImplementedError(
            f"`sample_weight` property method has not been implemented in {type(self).__name__}."
        )


class DirectoryIterator(BatchFromFilesMixin, Iterator):
    """Batches of the images in the class subfolders of ``directory`` (``flow_from_directory``)."""

    allowed_class_modes = {"categorical", "binary", "sparse", "input", None}

    def __init__(
        self,
        directory,
        image_data_generator,
        target_size=(256, 256),
        color_mode="rgb",
        classes=None,
        class_mode="categorical",
        batch_size=32,
        shuffle=True,
        seed=None,
        data_format=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        follow_links=False,
        subset=None,
        interpolation="nearest",
        keep_aspect_ratio=False,
        dtype=None,
    ):
        data_format = _backend_config.image_data_format() if data_format is None else data_format
        self.set_processing_attrs(
            image_data_generator,
            target_size,
            color_mode,
            data_format,
            save_to_dir,
            save_prefix,
            save_format,
            subset,
            interpolation,
            keep_aspect_ratio,
        )
        self.directory = directory
        self.classes = classes
        if class_mode not in self.allowed_class_modes:
            raise ValueError(
                f"Invalid class_mode: {class_mode}; expected one of: {self.allowed_class_modes}"
            )
        self.class_mode = class_mode
        self.dtype = _backend_config.floatx() if dtype is None else dtype
        if not classes:
            listed = sorted(os.listdir(directory))
            classes = [d for d in listed if os.path.isdir(os.path.join(directory, d))]
        self.num_classes = len(classes)
        self.class_indices = {name: i for i, name in enumerate(classes)}
        self.filenames = []
        labels = []
        for name in classes:
            folder = os.path.join(directory, name)
            found = _split(_images_in(folder, self.white_list_formats, follow_links), self.split)
            for root, fname in found:
                relative = os.path.relpath(os.path.join(root, fname), folder)
                self.filenames.append(os.path.join(os.path.basename(folder), relative))
                labels.append(self.class_indices[os.path.basename(folder)])
        self.samples = len(self.filenames)
        self.classes = np.array(labels, dtype="int32").reshape(self.samples)
        print_msg(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self._filepaths = [os.path.join(directory, fname) for fname in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self):
        return self._filepaths

    @property
    def labels(self):
        return self.classes

    @property
    def sample_weight(self):
        return None


def _same_length(x, other, name, described):
    """ValueError unless ``other`` (None: nothing to check) has as many rows as ``x``."""
    if other is not None and len(x) != len(other):
        raise ValueError(
            f"`x` (images tensor) and {described} should have the same length. Found: "
            f"x.shape = {np.asarray(x).shape}, {name}.shape = {np.asarray(other).shape}"
        )


class NumpyArrayIterator(Iterator):
    """Batches of a rank-4 image array ``x`` (with targets ``y``, weights, and extra inputs
    when ``x`` is a ``(images, other)`` pair), augmented and standardized (``flow``)."""

    def __init__(
        self,
        x,
        y,
        image_data_generator,
        batch_size=32,
        shuffle=False,
        sample_weight=None,
        seed=None,
        data_format=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        subset=None,
        ignore_class_split=False,
        dtype=None,
    ):
        data_format = _backend_config.image_data_format() if data_format is None else data_format
        self.dtype = _backend_config.floatx() if dtype is None else dtype
        x_misc = []
        if isinstance(x, (tuple, list)):
            others = x[1] if isinstance(x[1], list) else [x[1]]
            x_misc = [np.asarray(other) for other in others]
            x = x[0]
            for other in x_misc:
                if len(x) != len(other):
                    raise ValueError(
                        "All of the arrays in `x` should have the same length. Found a pair "
                        f"with: len(x[0]) = {len(x)}, len(x[?]) = {len(other)}"
                    )
        _same_length(x, y, "y", "`y` (labels)")
        _same_length(x, sample_weight, "sample_weight", "`sample_weight`")
        if subset is not None:
            x, x_misc, y = self._subset(
                x, x_misc, y, subset, image_data_generator, ignore_class_split
            )
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(
                "Input data in `NumpyArrayIterator` should have rank 4. You passed an array "
                f"with shape {self.x.shape}"
            )
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warnings.warn(
                "NumpyArrayIterator is set to use the data format convention "
                f'"{data_format}" (channels on axis {channels_axis}), i.e. expected either 1, '
                f"3, or 4 channels on axis {channels_axis}. However, it was passed an array "
                f"with shape {self.x.shape} ({self.x.shape[channels_axis]} channels).",
                stacklevel=2,
            )
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(x.shape[0], batch_size, shuffle, seed)

    @staticmethod
    def _subset(x, x_misc, y, subset, generator, ignore_class_split):
        """``x``, ``x_misc`` and ``y`` cut to the ``subset``: validation takes the first
        ``validation_split`` fraction, training the rest."""
        if subset not in {"training", "validation"}:
            raise ValueError(f'Invalid subset name: {subset}; expected "training" or "validation".')
        cut = int(len(x) * generator._validation_split)
        if (
            y is not None
            and not ignore_class_split
            and not np.array_equal(np.unique(y[:cut]), np.unique(y[cut:]))
        ):
            raise ValueError(
                "Training and validation subsets have different number of classes after the "
                "split. If your numpy arrays are sorted by the label, you might want to "
                "shuffle them."
            )
        part = slice(None, cut) if subset == "validation" else slice(cut, None)
        x_misc = [np.asarray(other[part]) for other in x_misc]
        return x[part], x_misc, None if y is None else y[part]

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array),) + self.x.shape[1:], dtype=self.dtype)
        generator = self.image_data_generator
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = generator.get_random_transform(x.shape)
            x = generator.apply_transform(x.astype(self.dtype), params)
            batch_x[i] = generator.standardize(x)
        if self.save_to_dir:
            _save_batch(self, batch_x, index_array, 1e4)
        misc = [other[index_array] for other in self.x_misc]
        inputs = [batch_x] + misc if misc else batch_x
        if self.y is None:
            return inputs
        if self.sample_weight is None:
            return inputs, self.y[index_array]
        return inputs, self.y[index_array], self.sample_weight[index_array]
