"""What `image_dataset_from_directory`, `text_dataset_from_directory` and
`audio_dataset_from_directory` share, as Keras 3's `dataset_utils` has it: the file index of a
directory (labels from subdirectories, sorted walk, NumPy-seeded shuffle of the paths), the
training/validation split, the argument checks and the label dataset."""

import os

import numpy as np

from ferroflow.keras.utils.progbar import print_msg

__all__ = [
    "batched",
    "check_binary_classes",
    "check_labels_args",
    "check_validation_split_arg",
    "get_training_or_validation_split",
    "from_directory",
    "index_directory",
    "labels_to_dataset",
    "paths_and_labels_to_dataset",
    "read_file_tensor",
    "require_tf_format",
]


def _class_subdirs(directory, labels, class_names):
    if labels == "inferred":
        subdirs = [
            name.rstrip("/")
            for name in sorted(os.listdir(directory))
            if os.path.isdir(os.path.join(directory, name)) and not name.startswith(".")
        ]
        if class_names is not None:
            if not set(class_names).issubset(set(subdirs)):
                raise ValueError(
                    "The `class_names` passed did not match the names of the subdirectories "
                    f"of the target directory. Expected: {subdirs} (or a subset of it), but "
                    f"received: class_names={class_names}"
                )
            return list(class_names)  # the order given
        return subdirs
    if class_names is not None:
        if labels is None:
            raise ValueError(
                "When `labels=None` (no labels), argument `class_names` cannot be specified."
            )
        raise ValueError(
            "When argument `labels` is specified, argument `class_names` cannot be specified "
            "(the `class_names` will be the sorted list of labels)."
        )
    return [""]  # explicit or no labels: index from the directory itself


def _index_subdirectory(directory, label, follow_links, formats):
    """Relative paths (``<subdir>/<path>``) of the allowed files under ``directory``, walked in
    sorted order of their folders, files sorted within each folder."""
    dirname = os.path.basename(directory)
    names = []
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda w: w[0]):
        for fname in sorted(files):
            if fname.lower().endswith(formats):
                names.append(
                    os.path.join(dirname, os.path.relpath(os.path.join(root, fname), directory))
                )
    return names, [label] * len(names)


def index_directory(
    directory,
    labels,
    formats,
    class_names=None,
    shuffle=True,
    seed=None,
    follow_links=False,
    verbose=True,
):
    """``(file_paths, labels, class_names)`` of the files under ``directory`` whose names end
    with one of ``formats``; shuffled (paths and labels alike) by
    ``np.random.RandomState(seed).shuffle`` as Keras does, so the order is Keras's."""
    subdirs = _class_subdirs(directory, labels, class_names)
    filenames, label_parts = [], []
    for index, subdir in enumerate(subdirs):
        names, part = _index_subdirectory(
            os.path.join(directory, subdir), index, follow_links, formats
        )
        filenames += names
        label_parts += part
    if labels == "inferred":
        labels = np.asarray(label_parts, dtype="int32").reshape((len(filenames),))
        class_names = subdirs
    elif labels is None:
        class_names = None
    else:
        if len(labels) != len(filenames):
            raise ValueError(
                "Expected the lengths of `labels` to match the number of files in the target "
                f"directory. len(labels) is {len(labels)} while we found {len(filenames)} files "
                f"in directory {directory}."
            )
        class_names = [str(label) for label in sorted(set(labels))]
    if verbose:
        if labels is None:
            print_msg(f"Found {len(filenames)} files.")
        else:
            print_msg(f"Found {len(filenames)} files belonging to {len(class_names)} classes.")
    file_paths = [os.path.join(directory, name) for name in filenames]
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(file_paths)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, class_names


def check_binary_classes(label_mode, class_names):
    """``label_mode="binary"`` needs exactly two classes."""
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(
            'When passing `label_mode="binary"`, there must be exactly 2 class_names. '
            f"Received: class_names={class_names}"
        )


def get_training_or_validation_split(samples, labels, validation_split, subset):
    """The last ``int(validation_split * n)`` samples for "validation", the rest for
    "training"; everything without a ``validation_split``."""
    if not validation_split:
        return samples, labels
    num_val = int(validation_split * len(samples))
    if subset == "training":
        print_msg(f"Using {len(samples) - num_val} files for training.")
        return samples[:-num_val], None if labels is None else labels[:-num_val]
    if subset == "validation":
        print_msg(f"Using {num_val} files for validation.")
        return samples[-num_val:], None if labels is None else labels[-num_val:]
    raise ValueError(f'`subset` must be either "training" or "validation", received: {subset}')


def check_validation_split_arg(validation_split, subset, shuffle, seed):
    """Keras's checks of ``validation_split``/``subset``/``seed``."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(
            f"`validation_split` must be between 0 and 1, received: {validation_split}"
        )
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(
            f'`subset` must be either "training", "validation" or "both", received: {subset}'
        )
    if validation_split and shuffle and seed is None:
        raise ValueError(
            "If using `validation_split` and shuffling the data, you must provide a `seed` "
            "argument, to make sure that there is no overlap between the training and "
            "validation subset."
        )


def check_labels_args(labels, label_mode, class_names, what, prefix=""):
    """Keras's checks of ``labels`` and ``label_mode`` (``what``: "image files",
    "text files", ...); returns ``(labels, label_mode)``, both None for unlabelled data."""
    if labels not in ("inferred", None):
        if not isinstance(labels, list | tuple):
            raise ValueError(
                f"{prefix}`labels` argument should be a list/tuple of integer labels, of the "
                f"same size as the number of {what} in the target directory. If you wish to "
                "infer the labels from the subdirectory names in the target directory, pass "
                '`labels="inferred"`. If you wish to get a dataset that only contains '
                f"{_only_contains(what)} (no labels), pass `labels=None`. Received: labels={labels}"
            )
        if class_names:
            raise ValueError(
                'You can only pass `class_names` if `labels="inferred"`. Received: '
                f"labels={labels}, and class_names={class_names}"
            )
    if label_mode not in {"int", "categorical", "binary", None}:
        raise ValueError(
            '`label_mode` argument must be one of "int", "categorical", "binary", or None. '
            f"Received: label_mode={label_mode}"
        )
    if labels is None or label_mode is None:
        return None, None
    return labels, label_mode


def _only_contains(what):
    return {"image files": "images", "text files": "text samples"}.get(what, "audio samples")


def require_tf_format(format):
    """Only ``format="tf"`` exists here; "grain" needs the grain package, which Keras imports
    lazily and reports with an ImportError when it is missing."""
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')
    if format == "grain":
        raise ImportError(
            "This requires the grain module. You can install it via `pip install grain`"
        )


def labels_to_dataset(labels, label_mode, num_classes):
    """The dataset of labels: int32 for "int", ``[1]`` float32 for "binary", one-hot float32
    rows for "categorical"."""
    import ferroflow as tf

    if isinstance(labels, list | tuple):
        labels = tf.constant(list(labels))  # TensorFlow's conversion: int32 for Python ints
    label_ds = tf.data.Dataset.from_tensor_slices(labels)
    if label_mode == "binary":
        return label_ds.map(lambda x: tf.expand_dims(tf.cast(x, "float32"), axis=-1))
    if label_mode == "categorical":
        return label_ds.map(lambda x: tf.one_hot(x, num_classes))
    return label_ds


def _read_bytes(path):
    with open(path.numpy().decode("utf-8"), "rb") as handle:
        return handle.read()


def read_file_tensor(path):
    """A scalar string tensor holding the bytes of the file at ``path`` (a string tensor),
    standing in for `tf.io.read_file` (not in ferroflow yet): a `tf.py_function`, so working
    out a map's element spec stages it instead of opening a stand-in path."""
    import ferroflow as tf

    contents = tf.py_function(_read_bytes, [path], tf.string)
    contents.set_shape([])
    return contents


def paths_and_labels_to_dataset(
    paths, labels, label_mode, num_classes, load, shuffle, buffer, seed
):
    """Keras's pipeline: zip(paths, labels) -> shuffle(buffer, seed) -> map(load)."""
    import ferroflow as tf

    ds = tf.data.Dataset.from_tensor_slices(paths)
    if label_mode:
        ds = tf.data.Dataset.zip((ds, labels_to_dataset(labels, label_mode, num_classes)))
    if shuffle:
        ds = ds.shuffle(buffer_size=buffer or 1024, seed=seed)
    if label_mode:
        return ds.map(lambda x, y: (load(x), y))
    return ds.map(load)


def _indexed_files(directory, labels, label_mode, formats, options):
    """``(paths, labels, class_names, seed)``: the validation-split checks, a drawn seed when
    none is given (before the index, as Keras draws it), the index and the binary check."""
    check_validation_split_arg(
        options["validation_split"], options["subset"], options["shuffle"], options["seed"]
    )
    seed = options["seed"]
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        directory,
        labels,
        formats=formats,
        class_names=options["class_names"],
        shuffle=options["shuffle"],
        seed=seed,
        follow_links=options["follow_links"],
        verbose=options["verbose"],
    )
    check_binary_classes(label_mode, class_names)
    return paths, labels, class_names, seed


def from_directory(
    directory, labels, label_mode, formats, options, load, batch, empty_message, file_paths=False
):
    """Keras's ``*_dataset_from_directory`` pipeline: the files of ``directory`` indexed and
    split, each split ``zip(paths, labels) -> shuffle(8 batches, seed) -> map(load)`` (the
    validation split of ``subset="both"`` unshuffled), then ``batch(dataset)``; each dataset
    gets ``class_names``. ``options``: the caller's keyword arguments (``class_names``,
    ``shuffle``, ``seed``, ``validation_split``, ``subset``, ``follow_links``, ``verbose``,
    ``batch_size``); ``empty_message(kind)`` words the error for a split without files
    (``kind``: "", "training " or "validation "); ``file_paths`` sets that attribute too."""
    paths, labels, class_names, seed = _indexed_files(
        directory, labels, label_mode, formats, options
    )
    batch_size = options["batch_size"]

    def make(split_paths, split_labels, training):
        ds = paths_and_labels_to_dataset(
            split_paths,
            split_labels,
            label_mode,
            len(class_names) if class_names else 0,
            load,
            options["shuffle"] and training,
            batch_size * 8 if batch_size is not None else 1024,
            seed,
        )
        ds = batch(ds)
        ds.class_names = class_names
        if file_paths:
            ds.file_paths = split_paths
        return ds

    return _split_datasets(
        paths, labels, options["validation_split"], options["subset"], make, empty_message
    )


def batched(ds, batch_size):
    """``batch(batch_size)`` unless it is None, then ``prefetch``, as Keras ends its image
    and text pipelines."""
    if batch_size is not None:
        ds = ds.batch(batch_size)
    return ds.prefetch(-1)


def _split_datasets(paths, labels, validation_split, subset, make_dataset, empty_message):
    """One dataset (or ``[train, validation]`` for ``subset="both"``) built by
    ``make_dataset(paths, labels, is_training)``; ``empty_message(kind)`` words the error
    raised for a split without files."""
    if subset == "both":
        train = get_training_or_validation_split(paths, labels, validation_split, "training")
        val = get_training_or_validation_split(paths, labels, validation_split, "validation")
        if not train[0]:
            raise ValueError(empty_message("training "))
        if not val[0]:
            raise ValueError(empty_message("validation "))
        return [make_dataset(*train, True), make_dataset(*val, False)]
    paths, labels = get_training_or_validation_split(paths, labels, validation_split, subset)
    if not paths:
        raise ValueError(empty_message(""))
    return make_dataset(paths, labels, True)
