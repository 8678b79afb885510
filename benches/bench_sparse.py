"""tf.sparse.sparse_dense_matmul: a sparse [m, k] matrix (given density) times a dense [k, 64],
eagerly and inside tf.function, against TensorFlow's SparseTensorDenseMatMul kernel and a numpy
scatter-add (np.add.at; scipy is not a dependency), plus sparse.reduce_sum over rows."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow

# (rows, inner, density, dense columns)
CASES = ((10_000, 10_000, 0.001, 64), (1_000, 1_000, 0.01, 64), (10_000, 10_000, 0.0001, 64))


def _problem(m, k, density, n, seed=0):
    rng = np.random.default_rng(seed)
    nnz = int(m * k * density)
    flat = np.sort(rng.choice(m * k, nnz, replace=False))
    indices = np.stack(np.unravel_index(flat, (m, k)), axis=1).astype(np.int64)
    values = rng.standard_normal(nnz).astype(np.float32)
    dense = rng.standard_normal((k, n)).astype(np.float32)
    return indices, values, dense


def _label(m, k, density, n):
    return f"{m}x{k} @{density:.2%} x {n}"


def tensorflow_half():
    import tensorflow as tf

    out = {}
    for m, k, density, n in CASES:
        indices, values, dense = _problem(m, k, density, n)
        sp = tf.SparseTensor(indices, values, [m, k])
        b = tf.constant(dense)
        f = tf.function(tf.sparse.sparse_dense_matmul)
        out[_label(m, k, density, n)] = {
            "eager": best_time(lambda sp=sp, b=b: tf.sparse.sparse_dense_matmul(sp, b).numpy()),
            "function": best_time(lambda sp=sp, b=b, f=f: f(sp, b).numpy()),
            "reduce_sum": best_time(lambda sp=sp: tf.sparse.reduce_sum(sp, 1).numpy()),
        }
    print(json.dumps(out))


def _numpy_matmul(indices, values, dense, m):
    out = np.zeros((m, dense.shape[1]), np.float32)
    np.add.at(out, indices[:, 0], values[:, None] * dense[indices[:, 1]])
    return out


def main():
    import ferroflow as tf

    # CPU kernels are measured here (TensorFlow's side is its CPU build too).
    tf.config.set_visible_devices([], "GPU")
    tf_res = run_tensorflow(__file__)
    mm_rows, fn_rows, sum_rows = [], [], []
    for m, k, density, n in CASES:
        label = _label(m, k, density, n)
        indices, values, dense = _problem(m, k, density, n)
        sp = tf.SparseTensor(indices, values, [m, k])
        b = tf.constant(dense)
        f = tf.function(tf.sparse.sparse_dense_matmul)
        expected = _numpy_matmul(indices, values, dense, m)
        np.testing.assert_allclose(
            tf.sparse.sparse_dense_matmul(sp, b).numpy(), expected, rtol=1e-4, atol=1e-4
        )
        np.testing.assert_allclose(f(sp, b).numpy(), expected, rtol=1e-4, atol=1e-4)
        np_mm = best_time(
            lambda i=indices, v=values, d=dense, m=m: _numpy_matmul(i, v, d, m), repeat=3
        )
        ff_mm = best_time(lambda sp=sp, b=b: tf.sparse.sparse_dense_matmul(sp, b).numpy())
        ff_fn = best_time(lambda sp=sp, b=b, f=f: f(sp, b).numpy())
        ff_sum = best_time(lambda sp=sp: tf.sparse.reduce_sum(sp, 1).numpy())
        np_sum = best_time(
            lambda i=indices, v=values, m=m: np.bincount(i[:, 0], weights=v, minlength=m)
        )
        theirs = tf_res.get(label) if tf_res else None
        mm_rows.append((label, ff_mm * 1e3, np_mm * 1e3, theirs and theirs["eager"] * 1e3))
        fn_rows.append((label, ff_fn * 1e3, np_mm * 1e3, theirs and theirs["function"] * 1e3))
        sum_rows.append((label, ff_sum * 1e3, np_sum * 1e3, theirs and theirs["reduce_sum"] * 1e3))
    report("sparse_dense_matmul, eager (float32)", mm_rows, "ms per call")
    report("sparse_dense_matmul in tf.function", fn_rows, "ms per call")
    report("sparse.reduce_sum(sp, axis=1)", sum_rows, "ms per call")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
