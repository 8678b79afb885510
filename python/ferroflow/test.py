"""`tf.test`: TensorFlow's `TestCase` assertions over tensors, nested structures and numpy
values, numeric and analytic Jacobians (`compute_gradient`), and what the build and the
machine offer (`is_gpu_available`, `gpu_device_name`, ...). Every test runs eagerly; the
`session` contexts of TensorFlow 1 yield None."""

import contextlib
import functools
import os
import platform
import re
import tempfile
import types
import unittest

import numpy as np

from ferroflow import _core, _tracing, config, errors, nest
from ferroflow import dtypes as _dtypes
from ferroflow.array_ops import convert_to_tensor


def _numpy(value):
    """`value` as a numpy array (tensors, variables, Python numbers and lists)."""
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    if isinstance(value, (bytes, str)):
        return np.asarray(value, dtype=object)
    return np.asarray(value)


def _default_tolerance(dtype):
    """TensorFlow's assertAllCloseAccordingToType tolerances per dtype."""
    if dtype in (np.float16,) or str(dtype) == "bfloat16":
        return 1e-3
    if dtype == np.float32 or dtype == np.complex64:
        return 1e-6
    return 1e-6


class TestCase(unittest.TestCase):
    """`unittest.TestCase` with TensorFlow's tensor assertions."""

    def setUp(self):
        super().setUp()
        # TensorFlow's TestCase starts each test from the same random seed.
        from ferroflow import random

        random.set_seed(87654321)

    def evaluate(self, tensors):
        """Numpy values of (a nested structure of) tensors."""
        return nest.map_structure(
            lambda t: _numpy(t) if isinstance(t, (_core.Tensor,)) or hasattr(t, "numpy") else t,
            tensors,
        )

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        yield None

    cached_session = session

    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A session context, as `session`; when unittest collects it as a test, it skips
        itself, as TensorFlow's does."""
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")
        return self.session(graph, config, use_gpu, force_gpu)

    def get_temp_dir(self):
        if not hasattr(self, "_temp_dir"):
            self._temp_dir = tempfile.mkdtemp(prefix=self.id().replace("/", "_") + "_")
        return self._temp_dir

    # --- closeness ----------------------------------------------------------------------

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """Element-wise |a - b| <= atol + rtol * |b|; dicts by key, and lists or tuples that
        are not arrays element by element, as TensorFlow's."""
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)) or set(a) != set(b):
                raise self.failureException(f"{msg or ''} mismatched keys: {a!r} vs {b!r}")
            for key in a:
                self.assertAllClose(a[key], b[key], rtol, atol, msg)
            return
        if _is_sequence(a) or _is_sequence(b):
            try:
                x, y = _numpy(a), _numpy(b)
                if x.dtype == object or y.dtype == object:
                    raise ValueError("ragged")
            except (ValueError, TypeError):
                if not (_is_sequence(a) and _is_sequence(b)) or len(a) != len(b):
                    raise self.failureException(
                        f"{msg or ''} structures differ: {a!r} vs {b!r}"
                    ) from None
                for p, q in zip(a, b):
                    self.assertAllClose(p, q, rtol, atol, msg)
                return
        x, y = _numpy(a), _numpy(b)
        if x.shape != y.shape:
            raise self.failureException(
                f"{msg or ''} Shape mismatch: expected {x.shape}, got {y.shape}"
            )
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=msg or "", equal_nan=True)

    def assertAllCloseAccordingToType(  # noqa: N802
        self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,
        half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2, msg=None,
    ):  # fmt: skip
        x, y = _numpy(a), _numpy(b)
        kind = str(x.dtype)
        if kind in ("float32", "complex64"):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        elif kind == "float16":
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        elif kind == "bfloat16":
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(x.astype(np.float64) if kind == "bfloat16" else x, y, rtol, atol, msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise self.failureException(msg or "The two values are close at all elements")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        x, y = _numpy(a), _numpy(b)
        if x.shape != y.shape and not (x.size == 1 or y.size == 1):
            raise self.failureException(
                f"{msg or ''} Shape mismatch: expected {x.shape}, got {y.shape}"
            )
        np.testing.assert_array_equal(x, y, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        if np.array_equal(_numpy(a), _numpy(b)):
            raise self.failureException(msg or "Expected values to differ somewhere")

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        if not abs(float(f1) - float(f2)) <= err:
            raise self.failureException(f"{f1} != {f2} +/- {err}{' : ' + msg if msg else ''}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(f1, f2, err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        self.assertTrue(np.linalg.norm(_numpy(ndarray1) - _numpy(ndarray2)) <= err, msg=msg)

    # --- ranges and sets ----------------------------------------------------------------

    def _compare_all(self, a, comparison, value, word):
        x = _numpy(a)
        if not np.all(comparison(x, value)):
            raise self.failureException(f"Not every element of {x} is {word} {value}")

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        self._compare_all(a, np.greater, comparison_target, "greater than")

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        self._compare_all(a, np.greater_equal, comparison_target, "at least")

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        self._compare_all(a, np.less, comparison_target, "less than")

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        self._compare_all(a, np.less_equal, comparison_target, "at most")

    def assertAllInRange(  # noqa: N802
        self, target, lower_bound, upper_bound, open_lower_bound=False, open_upper_bound=False
    ):
        x = _numpy(target)
        if x.dtype.kind not in "fiu":
            raise AssertionError(f"The value of {x} does not have an ordered numeric type")
        low = np.greater if open_lower_bound else np.greater_equal
        high = np.less if open_upper_bound else np.less_equal
        inside = low(x, lower_bound) & high(x, upper_bound)
        if not np.all(inside) or np.isnan(x.astype(np.float64)).any():
            raise self.failureException(
                f"{x} is not in the range {'(' if open_lower_bound else '['}{lower_bound}, "
                f"{upper_bound}{')' if open_upper_bound else ']'}"
            )

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        x = _numpy(target).reshape(-1)
        outside = set(x.tolist()) - set(np.asarray(list(expected_set)).reshape(-1).tolist())
        if outside:
            raise self.failureException(f"{sorted(outside)} not in {expected_set}")

    # --- shapes and dtypes --------------------------------------------------------------

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        a = _numpy(input_a).shape
        b = tuple(convert_to_tensor(input_b).shape.as_list())
        self.assertEqual(a, b, msg=msg)

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        expected = _dtypes.as_dtype(expected_dtype).as_numpy_dtype
        for value in nest.flatten(target):
            self.assertEqual(_numpy(value).dtype, expected)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        def canonical(d):
            return (d or "").upper().replace("/JOB:LOCALHOST/REPLICA:0/TASK:0", "").strip("/")

        self.assertEqual(canonical(device1), canonical(device2), msg=msg)

    # --- errors -------------------------------------------------------------------------

    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            pattern = expected_err_re_or_predicate

            def predicate(e):
                return re.search(pattern, str(e)) is not None

        return _RaisesMatching(self, exception_type, predicate)

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)


class _RaisesMatching:
    """A context that requires an exception of a type whose text (or itself) matches."""

    def __init__(self, case, exception_type, predicate):
        self.case, self.exception_type, self.predicate = case, exception_type, predicate

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            raise self.case.failureException(f"Exception of type {self.exception_type} not raised")
        if not issubclass(kind, Exception):
            return False
        if not issubclass(kind, self.exception_type) or not self.predicate(value):
            raise self.case.failureException(f"Exception of type {kind}: {value}") from value
        return True


def _is_sequence(value):
    return isinstance(value, (list, tuple))


def main(argv=None):
    """Runs the tests of the calling module (`unittest.main`)."""
    return unittest.main(argv=argv)


def compute_gradient(f, x, delta=None):
    """(theoretical, numerical) Jacobians of `f` at the tensors `x`: one matrix per input, of
    shape [y size, x size], from a gradient tape and from central differences."""
    from ferroflow.backprop import GradientTape

    xs = [convert_to_tensor(v) for v in x]
    if delta is None:
        delta = 1e-3 if all(v.dtype in (_dtypes.float32, _dtypes.float16) for v in xs) else 1e-6

    def value(*args):
        return _numpy(f(*args)).astype(np.float64)

    y = value(*xs)
    theoretical, numerical = [], []
    for i, xi in enumerate(xs):
        base = _numpy(xi)
        jac_t = np.zeros((y.size, base.size))
        jac_n = np.zeros((y.size, base.size))
        for j in range(y.size):
            with GradientTape() as tape:
                tape.watch(xs)
                out = convert_to_tensor(f(*xs))
                pick = np.zeros(y.size, dtype=out.dtype.as_numpy_dtype)
                pick[j] = 1
                target = out * convert_to_tensor(pick.reshape(y.shape))
            grad = tape.gradient(target, xs[i])
            if grad is not None:
                jac_t[j] = _numpy(grad).astype(np.float64).reshape(-1)
        for k in range(base.size):
            shifted = []
            for sign in (1, -1):
                moved = base.astype(np.float64).reshape(-1).copy()
                moved[k] += sign * delta
                args = list(xs)
                args[i] = convert_to_tensor(moved.reshape(base.shape).astype(base.dtype))
                shifted.append(value(*args).reshape(-1))
            jac_n[:, k] = (shifted[0] - shifted[1]) / (2 * delta)
        theoretical.append(jac_t.astype(base.dtype))
        numerical.append(jac_n.astype(base.dtype))
    return theoretical, numerical


def is_built_with_gpu_support():
    """True: the Python package is built with the default `gpu` feature (WGSL kernels run
    through wgpu on any vendor's GPU)."""
    return True


def is_built_with_cuda():
    return False


def is_built_with_rocm():
    return False


def is_built_with_xla():
    return False


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Whether a GPU is visible (never a CUDA one: ferroflow does not use CUDA)."""
    if cuda_only or min_cuda_compute_capability is not None:
        return False
    return bool(config.list_physical_devices("GPU"))


def gpu_device_name():
    """'/device:GPU:0' when a GPU is visible, else ''."""
    return "/device:GPU:0" if config.list_physical_devices("GPU") else ""


class Benchmark:
    """TensorFlow's benchmark base: `report_benchmark` records (and prints) one result."""

    def report_benchmark(
        self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None,
        name=None, metrics=None,
    ):  # fmt: skip
        entry = {
            "name": name or type(self).__name__,
            "iters": iters,
            "wall_time": wall_time,
            "cpu_time": cpu_time,
            "throughput": throughput,
            "extras": extras or {},
            "metrics": metrics or [],
        }
        self.reported = [*getattr(self, "reported", []), entry]
        if os.environ.get("TEST_REPORT_FILE_PREFIX"):
            print(entry)
        return entry

    def evaluate(self, tensors):
        return nest.map_structure(_numpy, tensors)


# --- the remaining names ---------------------------------------------------------------------

# TensorFlow's LLVM CPU targets, by the name its check accepts; ferroflow is compiled for the
# host alone, so only the host's family is available.
_CPU_TARGETS = {
    "x86": "x86",
    "x86_64": "x86",
    "arm": "arm",
    "aarch64": "arm",
    "powerpc": "powerpc",
    "ppc": "powerpc",
    "s390x": "s390x",
}
_HOST_FAMILY = {"x86_64": "x86", "amd64": "x86", "i386": "x86", "i686": "x86", "arm64": "arm"}


def is_cpu_target_available(target):
    """Whether ferroflow's native code was built for the CPU family ``target`` names (TensorFlow's
    target names; an unknown one fails its assertion)."""
    if target not in _CPU_TARGETS:
        raise AssertionError(f"Unknown CPU target: {target}")
    machine = platform.machine().lower()
    host = _HOST_FAMILY.get(machine, "arm" if machine.startswith(("arm", "aarch64")) else machine)
    host = "powerpc" if host.startswith("ppc") else host
    return _CPU_TARGETS[target] == host


class _Section(types.SimpleNamespace):
    pass


class _BenchmarkConfig:
    """`benchmark_config()`'s value: TensorFlow's session ConfigProto with the dependency
    optimizer off, as a plain record (ferroflow has no protocol buffers or sessions; `session`
    contexts accept it)."""

    def __init__(self):
        self.graph_options = _Section(rewrite_options=_Section(dependency_optimization=2))

    def __str__(self):
        return "graph_options {\n  rewrite_options {\n    dependency_optimization: OFF\n  }\n}\n"

    __repr__ = __str__


def benchmark_config():
    """The config TensorFlow's benchmarks run sessions with (dependency optimizer off)."""
    return _BenchmarkConfig()


def disable_with_predicate(pred, skip_message):
    """Skips the decorated test method when ``pred()`` is true."""

    def decorate(func):
        @functools.wraps(func)
        def run_unless(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            else:
                return func(self, *args, **kwargs)

        return run_unless

    return decorate


def with_eager_op_as_function(cls=None, only_as_function=False):
    """Returns the class unchanged (TensorFlow keeps it only for old tests)."""
    if cls is not None:
        return cls
    return lambda decorated: decorated


def assert_equal_graph_def(expected, actual, checkpoint_v2=False, hash_table_shared_name=False):
    """Compares two GraphDef protocol buffers. ferroflow has none (its graphs are Rust values),
    so anything given raises TensorFlow's TypeError for a non-GraphDef."""
    raise TypeError(f"Expected tf.GraphDef for actual, got {type(actual).__name__}")


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None, ps_config=None):
    """TensorFlow starts in-process gRPC servers; ferroflow has no distributed runtime."""
    raise errors.UnimplementedError(
        None,
        None,
        "ferroflow has no distributed runtime: create_local_cluster cannot start servers",
    )


def _sync_devices():
    """Waits until every GPU has finished the work queued so far (for timing); only eagerly."""
    if _tracing.tracing():
        raise RuntimeError("sync_devices() must only be called in Eager mode, outside tf.functions")
    _core.gpu_synchronize()


experimental = types.SimpleNamespace(sync_devices=_sync_devices)
