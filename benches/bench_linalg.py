"""float32 decompositions: svd and eigh of 512x512, cholesky + solve of 1024x1024; ferroflow
(faer) against numpy (LAPACK) and TensorFlow (Eigen), times in milliseconds."""

import json
import sys

import numpy as np
from _harness import best_time, report, run_tensorflow


def inputs():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 512), dtype=np.float32)
    sym = (a + a.T) / 2
    b = rng.standard_normal((1024, 1024), dtype=np.float32)
    spd = (b @ b.T + 1024 * np.eye(1024)).astype(np.float32)
    rhs = rng.standard_normal((1024, 16), dtype=np.float32)
    return a, sym, spd, rhs


def cases(linalg, matmul_inputs):
    a, sym, spd, rhs = matmul_inputs
    return {
        "svd 512x512": lambda: linalg.svd(a),
        "eigh 512x512": lambda: linalg.eigh(sym),
        "cholesky 1024x1024": lambda: linalg.cholesky(spd),
        "solve 1024x1024 (16 rhs)": lambda: linalg.solve(spd, rhs),
    }


def tensorflow_half():
    import tensorflow as tf

    a, sym, spd, rhs = (tf.constant(x) for x in inputs())
    out = {
        label: best_time(fn, repeat=5) * 1e3
        for label, fn in cases(tf.linalg, (a, sym, spd, rhs)).items()
    }
    print(json.dumps(out))


def main():
    import ferroflow as tf

    tf.config.set_visible_devices([], "GPU")
    data = inputs()
    tensors = tuple(tf.constant(x) for x in data)
    tf_res = run_tensorflow(__file__)
    ff_cases = cases(tf.linalg, tensors)
    np_cases = cases(np.linalg, data)
    rows = []
    for label, fn in ff_cases.items():
        ff = best_time(fn, repeat=5) * 1e3
        np_ = best_time(np_cases[label], repeat=5) * 1e3
        rows.append((label, ff, np_, tf_res[label] if tf_res else None))
    # The results agree with numpy's (singular values, eigenvalues, solutions).
    a, sym, spd, rhs = data
    s = tf.linalg.svd(tensors[0], compute_uv=False).numpy()
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-3, atol=1e-3)
    e = tf.linalg.eigvalsh(tensors[1]).numpy()
    np.testing.assert_allclose(e, np.linalg.eigvalsh(sym), rtol=1e-3, atol=1e-3)
    x = tf.linalg.solve(tensors[2], tensors[3]).numpy()
    np.testing.assert_allclose(x, np.linalg.solve(spd, rhs), rtol=1e-3, atol=1e-5)
    report("float32 decompositions", rows, "ms")


if __name__ == "__main__":
    tensorflow_half() if "--tensorflow" in sys.argv else main()
