"""`DataFrameIterator`: the iterator of Keras's legacy ``ImageDataGenerator.flow_from_dataframe``,
batches of the image files a pandas data frame names (``x_col``) with their labels (``y_col``)
and optional weights (``weight_col``). It only calls the data frame's own methods, so pandas is
needed exactly when the caller has a data frame."""

import os
import warnings

import numpy as np

from ferroflow.keras.preprocessing._image_iterators import BatchFromFilesMixin, Iterator
from ferroflow.keras.utils.progbar import print_msg

__all__ = ["DataFrameIterator", "validate_filename"]

_UNLABELLED = ("input", "multi_output", "raw", None)


def validate_filename(filename, white_list_formats):
    """Whether ``filename`` ends with an allowed extension and is an existing file."""
    return filename.lower().endswith(white_list_formats) and os.path.isfile(filename)


def _all(column, test):
    return all(column.apply(test))


class DataFrameIterator(BatchFromFilesMixin, Iterator):
    """Batches of the images named in a data frame, labelled by ``class_mode``."""

    allowed_class_modes = {"binary", "categorical", "input", "multi_output", "raw", "sparse", None}

    def __init__(
        self,
        dataframe,
        directory=None,
        image_data_generator=None,
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
        data_format="channels_last",
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        subset=None,
        interpolation="nearest",
        keep_aspect_ratio=False,
        dtype="float32",
        validate_filenames=True,
    ):
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
        df = dataframe.copy()
        self.directory = directory or ""
        self.class_mode = class_mode
        self.dtype = dtype
        self._check_params(df, x_col, y_col, weight_col, classes)
        if validate_filenames:
            df = self._filter_valid_filepaths(df, x_col)
        labelled = class_mode not in _UNLABELLED
        if labelled:
            df, classes = self._filter_classes(df, y_col, classes)
            self.class_indices = {name: i for i, name in enumerate(classes)}
        if self.split:
            count = len(df)
            df = df.iloc[int(self.split[0] * count) : int(self.split[1] * count), :]
        if labelled:
            self.classes = self.get_classes(df, y_col)
        self.filenames = df[x_col].tolist()
        self._sample_weight = df[weight_col].values if weight_col else None
        if class_mode == "multi_output":
            self._targets = [np.array(df[col].tolist()) for col in y_col]
        if class_mode == "raw":
            self._targets = df[y_col].values
        self.samples = len(self.filenames)
        checked = "validated" if validate_filenames else "non-validated"
        found = f"Found {self.samples} {checked} image filenames"
        print_msg(f"{found} belonging to {len(classes)} classes." if labelled else f"{found}.")
        self._filepaths = [os.path.join(self.directory, name) for name in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _check_params(self, df, x_col, y_col, weight_col, classes):
        mode = self.class_mode
        if mode not in self.allowed_class_modes:
            raise ValueError(
                f"Invalid class_mode: {mode}; expected one of: {self.allowed_class_modes}"
            )
        if mode == "multi_output" and not isinstance(y_col, list):
            raise TypeError(
                f'If class_mode="{mode}", y_col must be a list. Received {type(y_col).__name__}.'
            )
        if not _all(df[x_col], lambda v: isinstance(v, str)):
            raise TypeError(f"All values in column x_col={x_col} must be strings.")
        if mode in {"binary", "sparse"} and not _all(df[y_col], lambda v: isinstance(v, str)):
            raise TypeError(
                f'If class_mode="{mode}", y_col="{y_col}" column values must be strings.'
            )
        if mode == "binary":
            if classes:
                if len(set(classes)) != 2:
                    raise ValueError(
                        'If class_mode="binary" there must be 2 classes. '
                        f"{len(set(classes))} class/es were given."
                    )
            elif df[y_col].nunique() != 2:
                raise ValueError(
                    'If class_mode="binary" there must be 2 classes. '
                    f"Found {df[y_col].nunique()} classes."
                )
        if mode == "categorical" and not _all(
            df[y_col], lambda v: isinstance(v, (str, list, tuple))
        ):
            raise TypeError(
                f'If class_mode="{mode}", y_col="{y_col}" column values must be type string, '
                "list or tuple."
            )
        if classes and mode in _UNLABELLED:
            warnings.warn(f'`classes` will be ignored given the class_mode="{mode}"', stacklevel=2)
        if weight_col and not issubclass(df[weight_col].dtype.type, np.number):
            raise TypeError(f"Column weight_col={weight_col} must be numeric.")

    def get_classes(self, df, y_col):
        """The class index (or list of indices) of each row's label."""
        return [
            [self.class_indices[name] for name in label]
            if isinstance(label, (list, tuple))
            else self.class_indices[label]
            for label in df[y_col]
        ]

    @staticmethod
    def _filter_classes(df, y_col, classes):
        """``df`` without the rows whose labels are all outside ``classes`` (labels cut down
        to ``classes``), and the classes (sorted labels found when none are given)."""
        df = df.copy()

        def kept(labels):
            if isinstance(labels, (list, tuple)):
                return [name for name in labels if name in classes] or None
            if isinstance(labels, str):
                return labels if labels in classes else None
            raise TypeError(
                f"Expect string, list or tuple but found {type(labels)} in {y_col} column "
            )

        if classes:
            classes = list(dict.fromkeys(classes))
            df[y_col] = df[y_col].apply(kept)
        else:
            found = set()
            for labels in df[y_col]:
                found.update(labels if isinstance(labels, (list, tuple)) else [labels])
            classes = sorted(found)
        return df.dropna(subset=[y_col]), classes

    def _filter_valid_filepaths(self, df, x_col):
        """The rows of ``df`` that name an existing file with an image extension."""
        paths = df[x_col].map(lambda name: os.path.join(self.directory, name))
        mask = paths.apply(validate_filename, args=(self.white_list_formats,))
        invalid = (~mask).sum()
        if invalid:
            warnings.warn(
                f'Found {invalid} invalid image filename(s) in x_col="{x_col}". '
                "These filename(s) will be ignored.",
                stacklevel=2,
            )
        return df[mask]

    @property
    def filepaths(self):
        return self._filepaths

    @property
    def labels(self):
        if self.class_mode in {"multi_output", "raw"}:
            return self._targets
        return self.classes

    @property
    def sample_weight(self):
        return self._sample_weight
