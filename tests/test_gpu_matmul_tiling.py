"""Every GPU matmul tiling the autotune may choose computes the same products as the CPU, on
shapes that leave ragged edges in every tile, with and without transposes, vec4 and scalar
loads, batch broadcasting, float16 (fetched into float32) and integer types; and the
autotune's cache file is written, reused and survives damage."""

import json
import os
import subprocess
import sys

import ferroflow as tf
import numpy as np
import pytest
from conftest import require_gpu
from ferroflow import _core
from hypothesis import given, settings
from hypothesis import strategies as st

# (batch_a, batch_b, m, k, n): odd sizes make partial tiles and scalar loads; multiples of 4
# take the vec4 loads; (2,) vs () broadcasts B over the batch.
SHAPES = [
    ((), (), 1, 1, 1),
    ((), (), 5, 3, 7),
    ((), (), 67, 129, 33),
    ((), (), 64, 64, 64),
    ((), (), 132, 20, 136),
    ((3,), (3,), 17, 36, 40),
    ((2,), (), 40, 12, 9),
    ((), (2,), 12, 8, 20),
]


@pytest.fixture
def gpu():
    require_gpu()
    yield
    _core.set_gpu_matmul_tiling(None)


def _operands(rng, shape, transpose_a, transpose_b, dtype):
    batch_a, batch_b, m, k, n = shape
    a_shape = (*batch_a, k, m) if transpose_a else (*batch_a, m, k)
    b_shape = (*batch_b, n, k) if transpose_b else (*batch_b, k, n)
    if dtype in (np.float32, np.float16):
        return rng.standard_normal(a_shape).astype(dtype), rng.standard_normal(b_shape).astype(
            dtype
        )
    return rng.integers(-9, 9, a_shape).astype(dtype), rng.integers(-9, 9, b_shape).astype(dtype)


def _gpu_has_float16():
    gpu = tf.config.list_physical_devices("GPU")[0]
    return tf.config.experimental.get_device_details(gpu)["shader_f16"]


@pytest.mark.parametrize("tiling", _core.gpu_matmul_tilings())
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_every_tiling_matches_the_cpu(gpu, tiling, dtype):
    if dtype == np.float16 and not _gpu_has_float16():
        pytest.skip("the GPU has no shader-f16: float16 stays on the CPU")
    _core.set_gpu_matmul_tiling(tiling)
    rng = np.random.default_rng(7)
    for shape in SHAPES:
        for transpose_a in (False, True):
            for transpose_b in (False, True):
                a, b = _operands(rng, shape, transpose_a, transpose_b, dtype)
                with tf.device("GPU:0"):
                    got = tf.linalg.matmul(
                        a, b, transpose_a=transpose_a, transpose_b=transpose_b
                    ).numpy()
                with tf.device("CPU:0"):
                    want = tf.linalg.matmul(
                        a, b, transpose_a=transpose_a, transpose_b=transpose_b
                    ).numpy()
                case = (tiling, shape, transpose_a, transpose_b)
                assert got.dtype == want.dtype and got.shape == want.shape, case
                if dtype == np.float32:
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=str(case))
                elif dtype == np.float16:
                    # Both accumulate in float32 and round once: at most an ulp of float16
                    # apart where their float32 sums straddle a rounding boundary.
                    np.testing.assert_allclose(
                        got.astype(np.float32),
                        want.astype(np.float32),
                        rtol=2e-3,
                        atol=2e-3,
                        err_msg=str(case),
                    )
                else:
                    np.testing.assert_array_equal(got, want, err_msg=str(case))


def test_an_unknown_tiling_is_an_invalid_argument(gpu):
    with pytest.raises(tf.errors.InvalidArgumentError, match="unknown matmul tiling"):
        _core.set_gpu_matmul_tiling("3x3x3/1x1")


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_name_is_a_tiling_or_an_invalid_argument(name):
    try:
        _core.set_gpu_matmul_tiling(name)
        assert name in _core.gpu_matmul_tilings()
    except tf.errors.InvalidArgumentError:
        assert name not in _core.gpu_matmul_tilings()
    finally:
        _core.set_gpu_matmul_tiling(None)


# Runs in a fresh process so that the cache file is read at its first product.
TUNE = """
import json, sys
import numpy as np
import ferroflow as tf
from ferroflow import _core
a_shape, b_shape = json.loads(sys.argv[1])
rng = np.random.default_rng(0)
a = rng.standard_normal(a_shape, dtype=np.float32)
b = rng.standard_normal(b_shape, dtype=np.float32)
with tf.device("GPU:0"):
    x, y = tf.constant(a), tf.constant(b)
    _core.gpu_synchronize()
    before = _core.gpu_dispatch_count()
    got = (x @ y).numpy()
    dispatches = _core.gpu_dispatch_count() - before
err = float(np.abs(got - a.astype(np.float64) @ b).max() / np.abs(got).max())
print(json.dumps({"dispatches": dispatches, "err": err}))
"""


# Just past the autotune's 2^27 multiply-adds, and deep rather than wide: the timed runs cut the
# depth to 2048, which keeps tuning on a software GPU to a few seconds.
SKINNY = ((64, 32800), (32800, 64))


def _tune(cache_dir, shapes=SKINNY):
    env = dict(os.environ, FERROFLOW_GPU_AUTOTUNE="1", FERROFLOW_CACHE_DIR=str(cache_dir))
    out = subprocess.run(
        [sys.executable, "-c", TUNE, json.dumps(shapes)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_autotune_writes_and_reuses_its_cache(gpu, tmp_path):
    first = _tune(tmp_path)
    assert first["err"] < 1e-5
    # Tuning times every candidate that fits (several dispatches each); the product is one more.
    assert first["dispatches"] > len(_core.gpu_matmul_tilings())
    (cache,) = tmp_path.iterdir()
    lines = cache.read_text().splitlines()
    assert len(lines) == 1 and "matmul:f32" in lines[0]
    assert lines[0].split("\t")[1] in _core.gpu_matmul_tilings()
    second = _tune(tmp_path)
    assert second["dispatches"] == 1 and second["err"] < 1e-5
    # A damaged file is ignored, then replaced by a clean one.
    cache.write_bytes(b"\xff\xfe garbage\tnot-a-tiling\n" + os.urandom(64))
    third = _tune(tmp_path)
    assert third["dispatches"] > 1 and third["err"] < 1e-5
    assert all("\t" in line for line in cache.read_text().splitlines())


def test_autotune_of_a_deep_broadcast_batch(gpu, tmp_path):
    # Deeper than the 2048 the timing runs cut the depth to, with B broadcast over a batch of
    # two: the timed runs read a prefix of the operands, then the real product overwrites them.
    shapes = ((2, 64, 16400), (16400, 64))
    first = _tune(tmp_path, shapes)
    assert first["dispatches"] > len(_core.gpu_matmul_tilings()) and first["err"] < 1e-5
    (cache,) = tmp_path.iterdir()
    assert ":b1:m6:n6:k12" in cache.read_text()
    assert _tune(tmp_path, shapes)["dispatches"] == 1
