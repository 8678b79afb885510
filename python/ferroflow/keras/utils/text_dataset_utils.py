"""`tf.keras.utils.text_dataset_from_directory`: a `tf.data.Dataset` of the contents of the
``.txt`` files of a directory tree (as scalar strings), with labels, as Keras 3 builds it."""

from ferroflow.keras.utils import directory_index as index_lib

__all__ = ["text_dataset_from_directory"]


def _load_text(path, max_length):
    import ferroflow as tf

    text = index_lib.read_file_tensor(path)
    if max_length is not None:
        text = tf.strings.substr(text, 0, max_length)
    return text


def text_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    batch_size=32,
    max_length=None,
    shuffle=True,
    seed=None,
    validation_split=None,
    subset=None,
    follow_links=False,
    format="tf",
    verbose=True,
):
    """The ``.txt`` files under ``directory`` as string tensors (the first ``max_length``
    bytes when set), labelled from the subdirectories (``labels="inferred"``), a list, or not
    at all; files in Keras's order (sorted walk, ``np.random.RandomState(seed).shuffle``),
    then a seeded ``Dataset.shuffle``. ``subset="both"`` returns ``[train, validation]``."""
    labels, label_mode = index_lib.check_labels_args(labels, label_mode, class_names, "text files")
    index_lib.require_tf_format(format)
    return index_lib.from_directory(
        directory,
        labels,
        label_mode,
        (".txt",),
        locals(),  # the keyword arguments, as given
        lambda path: _load_text(path, max_length),
        lambda ds: index_lib.batched(ds, batch_size),
        lambda kind: f"No {kind}text files found in directory {directory}. Allowed format: .txt",
    )
