"""`tf.keras.utils.timeseries_dataset_from_array`: sliding windows over an array as a
`tf.data.Dataset` of (batched) sequences, with the targets at each window's start."""

import numpy as np

__all__ = ["timeseries_dataset_from_array"]


def _check(data, sequence_stride, sampling_rate, start_index, end_index, format):
    if start_index:
        if start_index < 0:
            raise ValueError(
                f"`start_index` must be 0 or greater. Received: start_index={start_index}"
            )
        if start_index >= len(data):
            raise ValueError(
                "`start_index` must be lower than the length of the data. Received: "
                f"start_index={start_index}, for data of length {len(data)}"
            )
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(
                "`end_index` must be higher than `start_index`. Received: "
                f"start_index={start_index}, and end_index={end_index} "
            )
        if end_index >= len(data):
            raise ValueError(
                "`end_index` must be lower than the length of the data. Received: "
                f"end_index={end_index}, for data of length {len(data)}"
            )
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    for name, value in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
        if value >= len(data):
            raise ValueError(
                f"`{name}` must be lower than the length of the data. Received: "
                f"{name}={value}, for data of length {len(data)}"
            )
    if format not in ("tf", "grain"):
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')
    if format == "grain":
        raise NotImplementedError(
            'timeseries_dataset_from_array(format="grain") needs the grain package, which '
            'ferroflow does not support; use format="tf".'
        )


def timeseries_dataset_from_array(
    data,
    targets,
    sequence_length,
    sequence_stride=1,
    sampling_rate=1,
    batch_size=128,
    shuffle=False,
    seed=None,
    start_index=None,
    end_index=None,
    format="tf",
):
    """Windows ``data[s : s + sequence_length * sampling_rate : sampling_rate]`` for starts
    ``s`` every ``sequence_stride`` steps within ``[start_index, end_index)``, paired with
    ``targets[s]`` when targets are given; batched by ``batch_size``, and shuffled (window
    order with NumPy's ``RandomState(seed)``, then a `Dataset.shuffle`) when asked."""
    import ferroflow as tf

    _check(data, sequence_stride, sampling_rate, start_index, end_index, format)
    start_index = start_index or 0
    end_index = end_index or len(data)
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    index_dtype = "int32" if num_seqs < 2147483647 else "int64"
    starts = np.arange(0, num_seqs, sequence_stride, dtype=index_dtype)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(starts)
    steps = tf.convert_to_tensor(data[start_index:end_index])
    length = tf.cast(sequence_length, index_dtype)
    rate = tf.cast(sampling_rate, index_dtype)
    positions = tf.data.Dataset.from_tensor_slices(starts)
    dataset = positions.map(lambda s: tf.gather(steps, tf.range(s, s + length * rate, rate)))
    if targets is not None:
        target_steps = tf.convert_to_tensor(targets[start_index:end_index])
        target_ds = positions.map(lambda s: tf.gather(target_steps, s))
        dataset = tf.data.Dataset.zip((dataset, target_ds))
    dataset = dataset.prefetch(tf.data.AUTOTUNE)
    if batch_size is not None:
        if shuffle:
            dataset = dataset.shuffle(buffer_size=batch_size * 8, seed=seed)
        return dataset.batch(batch_size)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=1024, seed=seed)
    return dataset
