"""The image input pipeline against TensorFlow: the ResizeBilinear primitive (bilinear
`tf.image.resize` to a static size on a CPU) bit for bit with TensorFlow's kernel, and its
gradient ResizeBilinearGrad, eagerly and traced; on a GPU the composition of gathers (within
rounding); `tf.io.read_file` inside graphs (the ReadFile primitive: contents and error
classes); and the benchmark's pipeline (JPEG files → list_files → map(read_file, decode_jpeg,
resize, cast) with AUTOTUNE → batch) giving TensorFlow's exact batches."""

import pytest

from .harness import assert_parity
from .test_image_codecs import JPEG_GRAY, JPEG_IMAGE, _jpeg_bytes, _plain, _tensorflow

DEVICES = ["CPU:0", "GPU:0"]


def _decode_every_way(tf, blobs):
    out = []
    for blob in blobs:
        for channels in (0, 1, 3):
            for fancy in (True, False):
                for dct in ("", "INTEGER_ACCURATE"):
                    for ratio in (1, 2, 4, 8):
                        out.append(
                            tf.io.decode_jpeg(blob, channels, ratio, fancy, dct_method=dct).numpy()
                        )
    return out


def test_jpeg_decodes_bit_for_bit(tf_oracle):
    """libjpeg-turbo's SIMD kernels (mozjpeg-sys's nasm_simd) give TensorFlow's exact pixels:
    every IDCT, scaled IDCT, upsampling and channel choice, baseline and progressive files."""
    blobs = [_plain(b) for b in _tensorflow(tf_oracle, _jpeg_bytes, JPEG_IMAGE, JPEG_GRAY)]
    assert_parity(tf_oracle, _decode_every_way, (blobs,), rtol=0, atol=0)


def _bits(t):
    """float32 values as their bit patterns: equal only when bit for bit equal."""
    import numpy as np

    return np.ascontiguousarray(np.asarray(t, np.float32)).view(np.int32)


def _resizes(tf, device, exact):
    import numpy as np

    rng = np.random.default_rng(5)
    image = rng.random((2, 7, 9, 3)).astype(np.float32) * 255
    pixels = rng.integers(0, 256, (11, 13, 4)).astype(np.uint8)
    grey = rng.standard_normal((1, 5, 6, 1)).astype(np.float64)
    shown = _bits if exact else (lambda t: t.numpy())
    out = []
    with tf.device(device):
        x = tf.constant(image)
        for size in ((14, 18), (3, 4), (7, 9), (1, 1), (5, 20), (160, 160)):
            out.append(shown(tf.image.resize(x, size)))
        out.append(shown(tf.image.resize(tf.constant(pixels), (5, 7))))
        out.append(shown(tf.image.resize(tf.constant(grey), (9, 4))))
        big = rng.integers(-(2**31), 2**31 - 1, (1, 3, 4, 2)).astype(np.int32)
        for dtype in (np.int8, np.int16, np.uint16, np.int64):
            out.append(shown(tf.image.resize(tf.constant(big.astype(dtype)), (4, 7))))
        out.append(shown(tf.image.resize(tf.constant(big), (2, 3))))
        out.append(shown(tf.image.resize(tf.constant(pixels), (11, 13))))
        out.append(tf.image.resize(tf.zeros([0, 4, 4, 2]), (2, 2)).shape.as_list())

        @tf.function
        def traced(img):
            return tf.image.resize(img, (6, 5))

        out.append(shown(traced(x)))
        out.append(shown(traced(tf.constant(image[:1, :4]))))
        for size in ((14, 18), (3, 4), (7, 9)):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = tf.image.resize(x, size)
                w = tf.reshape(tf.range(1.0, tf.cast(tf.size(y), tf.float32) + 1.0), tf.shape(y))
                loss = tf.reduce_sum(y * w)
            out.append(shown(tape.gradient(loss, x)))

        @tf.function
        def traced_gradient(img):
            with tf.GradientTape() as tape:
                tape.watch(img)
                y = tf.image.resize(img, (4, 11))
            return tape.gradient(y, img, output_gradients=y * 3.0 - 1.0)

        out.append(shown(traced_gradient(x)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_resize_bilinear(tf_oracle, device):
    exact = device.startswith("CPU")
    # On the GPU the composition of gathers lerps rows first (about an ulp apart), and drivers
    # may fuse a multiply and an add.
    assert_parity(tf_oracle, _resizes, (device, exact), rtol=1e-5, atol=1e-3, helpers=[_bits])


def _try(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _read_in_graph(tf, root, device):
    import os

    a = os.path.join(root, "a.bin")
    with open(a, "wb") as f:
        f.write(b"\x00\xffimage bytes\n")
    read = tf.function(lambda p: tf.io.read_file(p))
    with tf.device(device):
        return [
            read(tf.constant(a)),
            read(tf.constant("file://localhost" + a)),
            _try(lambda: read(tf.constant(os.path.join(root, "missing")))),
            _try(lambda: read(tf.constant(root))),
            _try(lambda: read(tf.constant("nofs://bucket/object"))),
            _try(lambda: read(tf.constant(""))),
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_read_file_in_graphs(tf_oracle, tmp_path, device):
    assert_parity(tf_oracle, _read_in_graph, (str(tmp_path), device), helpers=[_try])


def _pipeline(tf, root, device):
    import os

    import numpy as np

    rng = np.random.default_rng(2)
    for n in range(10):
        pixels = rng.integers(0, 256, (24 + n, 40 - n, 3), dtype=np.uint8)
        tf.io.write_file(os.path.join(root, f"{n:02d}.jpg"), tf.io.encode_jpeg(pixels))

    def load(path):
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        return (tf.cast(tf.image.resize(image, [16, 16]), tf.float32) / 255.0,)

    out = []
    with tf.device(device):
        ds = tf.data.Dataset.list_files(os.path.join(root, "*.jpg"), shuffle=False)
        ds = ds.map(load, num_parallel_calls=tf.data.AUTOTUNE).batch(4)
        for (batch,) in ds.prefetch(tf.data.AUTOTUNE):
            out.append(_bits(batch))
        # A missing file is that element's error; iteration goes on.
        names = [os.path.join(root, "00.jpg"), os.path.join(root, "gone.jpg")]
        it = iter(tf.data.Dataset.from_tensor_slices(names).map(load, num_parallel_calls=2))
        out.append(_bits(next(it)[0]))
        out.append(_try(lambda: next(it)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_image_pipeline(tf_oracle, tmp_path, device):
    assert_parity(tf_oracle, _pipeline, (str(tmp_path), device), helpers=[_bits, _try])


def test_pipeline_graph_runs_without_python():
    """The benchmark's map function traces to primitives only (no host call, so elements run
    in parallel without the GIL), with one ResizeBilinear node."""
    import ferroflow as tf
    from ferroflow.data._functional import _cpu

    def load(path):
        image = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        return (tf.cast(tf.image.resize(image, [160, 160]), tf.float32) / 255.0,)

    with _cpu():
        graph = tf.function(load).get_concrete_function(tf.TensorSpec([], tf.string))._core
    kinds = [op[1] for op in graph.optimized_operations()]
    assert not graph.calls_python, kinds
    assert kinds.count("ReadFile") == 1 and kinds.count("ResizeBilinear") == 1, kinds
