"""Regression test against TensorFlow: a dataset's elements are computed on the host and
returned as CPU tensors whatever device scope the consumer has open, as TensorFlow's dataset
kernels are CPU kernels. ferroflow used to compute an iterator's stacking, slicing and eager
steps on the default device (the GPU when one is visible): batching then ran on the GPU, a
thousand times slower on lavapipe, and elements came back on GPU:0."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _devices(tf, device):
    def where(element):
        return [t.device.split("/")[-1] for t in tf.nest.flatten(element)]

    out = []
    with tf.device(device):
        x = tf.reshape(tf.range(24, dtype=tf.float32), [6, 4])
        slices = tf.data.Dataset.from_tensor_slices({"x": x, "y": tf.range(6)})
        pipelines = {
            "slices": slices,
            "batch": slices.batch(4),
            "map-batch": slices.map(lambda e: (e["x"] * 2.0, e["y"])).batch(3),
            "map-parallel": slices.map(lambda e: e["x"] + 1.0, num_parallel_calls=2).batch(2),
            "padded": tf.data.Dataset.range(5).map(lambda n: tf.range(n)).padded_batch(2),
            "prefetch": slices.batch(2).prefetch(2),
            "unbatch": slices.batch(4).unbatch(),
            "generator": tf.data.Dataset.from_generator(
                lambda: iter([[1.0, 2.0], [3.0, 4.0]]),
                output_signature=tf.TensorSpec([2], tf.float32),
            ).batch(2),
        }
        for name, ds in pipelines.items():
            out.append((name, [where(e) for e in ds]))
        out.append(("single", where(slices.take(1).get_single_element())))
        total = slices.map(lambda e: e["x"]).reduce(tf.zeros([4]), lambda s, v: s + v)
        out.append(("reduce", where(total), total.numpy()))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_elements_are_host_tensors(tf_oracle, device):
    assert_parity(tf_oracle, _devices, args=(device,))
