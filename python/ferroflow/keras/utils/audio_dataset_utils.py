"""`tf.keras.utils.audio_dataset_from_directory`: a `tf.data.Dataset` of decoded 16-bit WAV
files (float32 ``[samples, channels]``) from a directory tree, with labels, as Keras 3
builds it (padded batches, fixed-length or ragged sequences)."""

from ferroflow.keras.utils import directory_index as index_lib

__all__ = ["ALLOWED_FORMATS", "audio_dataset_from_directory"]

ALLOWED_FORMATS = (".wav",)


def _load_audio(path, output_sequence_length, ragged):
    import ferroflow as tf
    from ferroflow.keras.utils._wav import decode_wav

    desired = -1 if output_sequence_length is None else output_sequence_length
    contents = index_lib.read_file_tensor(path)
    audio = tf.py_function(lambda raw: decode_wav(raw.numpy(), desired)[0], [contents], tf.float32)
    audio.set_shape([output_sequence_length, None])  # decode_wav's static shape
    return tf.RaggedTensor.from_tensor(audio) if ragged else audio


def _check_audio_args(ragged, output_sequence_length, sampling_rate):
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if sampling_rate is not None:
        if not isinstance(sampling_rate, int):
            raise ValueError(
                "`sampling_rate` should have an integer value. "
                f"Received: sampling_rate={sampling_rate}"
            )
        if sampling_rate <= 0:
            raise ValueError(
                f"`sampling_rate` should be higher than 0. Received: sampling_rate={sampling_rate}"
            )
        # Keras resamples with tensorflow_io, which TensorFlow's environment lacks too.
        raise ImportError(
            "To use the argument `sampling_rate`, you should install tensorflow_io. You can "
            "install it via `pip install tensorflow-io`."
        )


def audio_dataset_from_directory(
    directory,
    labels="inferred",
    label_mode="int",
    class_names=None,
    batch_size=32,
    sampling_rate=None,
    output_sequence_length=None,
    ragged=False,
    shuffle=True,
    seed=None,
    validation_split=None,
    subset=None,
    follow_links=False,
    verbose=True,
):
    """The ``.wav`` files (16-bit PCM) under ``directory`` as float32 ``[samples, channels]``
    tensors, cut or zero-padded to ``output_sequence_length`` when set, else padded per batch
    (or ragged); labels from the subdirectories, a list, or none; files in Keras's order.
    ``subset="both"`` returns ``(train, validation)``."""
    labels, label_mode = index_lib.check_labels_args(
        labels, label_mode, class_names, "audio files", prefix="The "
    )
    _check_audio_args(ragged, output_sequence_length, sampling_rate)

    def batch(ds):
        ds = ds.prefetch(-1)
        if batch_size is None:
            return ds
        if output_sequence_length is None and not ragged:
            return ds.padded_batch(batch_size)
        return ds.batch(batch_size)

    datasets = index_lib.from_directory(
        directory,
        labels,
        label_mode,
        ALLOWED_FORMATS,
        locals(),  # the keyword arguments, as given
        lambda path: _load_audio(path, output_sequence_length, ragged),
        batch,
        lambda kind: (
            f"No {kind}audio files found in directory {directory}. "
            f"Allowed format(s): {ALLOWED_FORMATS}"
        ),
    )
    return tuple(datasets) if isinstance(datasets, list) else datasets
