"""Regression tests against TensorFlow: a cache file read by a dataset whose elements have
another dtype or shape (another pipeline cached under the same name) raises TensorFlow's
InvalidArgumentError naming the component, instead of converting the cached values silently
(a float32 cache read as int64 truncated them); `Dataset.load` with an `element_spec` that
does not match the saved elements does the same."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _mismatched_caches(tf, device, folder):
    import os

    out = []
    with tf.device(device):
        for n, (first, second) in enumerate(
            [
                ([1.5, 2.5], [1, 2]),
                ([1.5, 2.5], [[1.0, 2.0]]),
                ([[1, 2], [3, 4]], [[5, 6], [7, 8]]),
                (({"a": [1.0]}, [b"x"]), ({"a": [2.0]}, [b"y"])),
                (({"a": [1.0]}, [b"x"]), ({"a": [2]}, [b"y"])),
            ]
        ):
            path = os.path.join(folder, f"cache{n}")
            out.append(list(tf.data.Dataset.from_tensor_slices(first).cache(path)))
            try:
                out.append(list(tf.data.Dataset.from_tensor_slices(second).cache(path)))
            except Exception as e:  # noqa: BLE001 - compared by class and message
                out.append((type(e).__name__, str(e).split("}} ")[-1].split(" [Op")[0]))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_cache_checks_dtypes_and_shapes(tf_oracle, device, tmp_path):
    expected = assert_parity(tf_oracle, _mismatched_caches, args=(device, str(tmp_path)))
    assert expected[0] != "raised", expected


def _mismatched_loads(tf, device, folder):
    out = []
    with tf.device(device):
        tf.data.Dataset.from_tensor_slices([[1.5, 2.5], [3.0, 4.0]]).save(folder)
        specs = [
            tf.TensorSpec([3], tf.float32),
            tf.TensorSpec([None], tf.float32),
            tf.TensorSpec([], tf.float32),
            tf.TensorSpec([2], tf.int64),
            tf.TensorSpec([2, 1], tf.float32),
            tf.TensorSpec(None, tf.float32),
        ]
        for spec in specs:
            try:
                out.append(list(tf.data.Dataset.load(folder, element_spec=spec)))
            except Exception as e:  # noqa: BLE001 - compared by class and message
                out.append((type(e).__name__, str(e).split("}} ")[-1].split(" [Op")[0]))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_load_checks_the_given_element_spec(tf_oracle, device, tmp_path):
    expected = assert_parity(tf_oracle, _mismatched_loads, args=(device, str(tmp_path / "saved")))
    assert expected[0] != "raised", expected
