"""ferroflow-only checks of Keras's legacy `ImageDataGenerator` where TensorFlow's
environment lacks PIL: ``flow_from_directory`` over lossless PNGs yields exactly what ``flow``
yields from the same pixels with the same NumPy seed (the parity tests compare both with Keras
where the oracle has PIL)."""

import ferroflow as tf
import numpy as np
import pytest


def _write_classes(root, images, labels, names):
    from PIL import Image

    for i, (image, label) in enumerate(zip(images, labels)):
        folder = root / names[label]
        folder.mkdir(exist_ok=True)
        Image.fromarray(image).save(folder / f"img{i:02d}.png")


def test_directory_batches_are_the_array_batches(tmp_path):
    pytest.importorskip("PIL")
    rng = np.random.RandomState(0)
    # Sorted file names within sorted class folders: the directory order is class-major.
    labels = np.array([0, 0, 0, 1, 1, 2, 2])
    images = (rng.rand(len(labels), 4, 6, 3) * 255).astype("uint8")
    _write_classes(tmp_path, images, labels, ["ant", "bee", "cow"])
    gen = tf.keras.preprocessing.image.ImageDataGenerator(
        rescale=1 / 255.0, horizontal_flip=True, channel_shift_range=0.1
    )
    from_dir = gen.flow_from_directory(
        str(tmp_path), target_size=(4, 6), class_mode="sparse", batch_size=3, seed=5
    )
    from_arrays = gen.flow(images.astype("float32"), labels, batch_size=3, seed=5)
    assert len(from_dir) == len(from_arrays) == 3
    assert from_dir.class_indices == {"ant": 0, "bee": 1, "cow": 2}
    for _ in range(5):  # past the end of an epoch: a new shuffled order
        (x_dir, y_dir), (x_arr, y_arr) = next(from_dir), next(from_arrays)
        np.testing.assert_array_equal(x_dir, x_arr)
        np.testing.assert_array_equal(y_dir, y_arr.astype("float32"))
    one_hot = gen.flow_from_directory(str(tmp_path), target_size=(4, 6), shuffle=False)[0][1]
    np.testing.assert_array_equal(one_hot, np.eye(3, dtype="float32")[labels])
