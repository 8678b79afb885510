"""ferroflow-only checks of `tf.keras` top-level names whose TensorFlow 2.21 counterparts
cannot run in the oracle's environment (matplotlib) or that ferroflow refuses with a
typed error (the calibration-based quantization configs)."""

import ferroflow as tf
import numpy as np
import pytest


def test_plot_image_gallery_writes_a_file(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    path = tmp_path / "gallery.png"
    images = np.random.default_rng(0).uniform(0, 1, (4, 8, 8, 3)).astype("float32")
    tf.keras.visualization.plot_image_gallery(images, value_range=(0, 1), path=str(path))
    assert path.stat().st_size > 0
    masks = np.zeros((2, 8, 8, 1), "int32")
    tf.keras.visualization.plot_segmentation_mask_gallery(
        images[:2] * 255, num_classes=2, y_true=masks, path=str(tmp_path / "masks.png")
    )
    with pytest.raises(ValueError, match="either `path`"):
        tf.keras.visualization.plot_image_gallery(images, path=str(path), show=True)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.keras.quantizers.GPTQConfig(None, None),
    ],
)
def test_unimplemented_names_raise(make):
    with pytest.raises(NotImplementedError):
        make()
