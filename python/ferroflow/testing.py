"""Testing your own code on every device ferroflow sees: a pytest plugin and a helper.

ferroflow runs one program on the CPU and on every GPU adapter of the machine (Vulkan, Metal or
DX12; Mesa's software Vulkan adapter, lavapipe, too when ``FERROFLOW_ALLOW_SOFTWARE_GPU=1``).
This module lets a project check its own code on all of them:

* the ``tf_device`` fixture runs a test once per visible device, inside ``tf.device`` of it,
  and gives the test the device's name (``"CPU:0"``, ``"GPU:0"``, ...); test ids name it
  (``test_model[GPU:0]``);
* the ``every_device`` marker does the same for a test that does not need the name
  (``@pytest.mark.every_device``; ``@pytest.mark.every_device("GPU")`` keeps one kind);
* ``assert_same_on_every_device(fn, *args)`` runs ``fn(*args)`` under each device and compares
  the results with tolerances per dtype.

The plugin is registered by the package (a ``pytest11`` entry point), so installing ferroflow
is enough; a project can also name it: ``pytest_plugins = ["ferroflow.testing"]`` in its
``conftest.py``. ``--ferroflow-devices=CPU:0,GPU:0`` restricts the devices a run uses.

>>> import ferroflow as tf
>>> from ferroflow.testing import assert_same_on_every_device
>>> result = assert_same_on_every_device(lambda x: tf.reduce_sum(x * x), tf.constant([1.0, 2.0]))
>>> float(result)
5.0
"""

import os

import numpy as np

__all__ = ["assert_same_on_every_device", "default_tolerance", "visible_devices"]

_DEVICES_ENV = "FERROFLOW_TEST_DEVICES"
_option_devices = None  # --ferroflow-devices of the pytest run in progress


def visible_devices(kinds=None):
    """The names of the devices ferroflow can run on (``"CPU:0"`` first, then each GPU),
    restricted to ``kinds`` (``"CPU"``, ``"GPU"``) when given, and to the pytest option
    ``--ferroflow-devices`` or else the environment variable ``FERROFLOW_TEST_DEVICES``
    (comma-separated names) when set."""
    from ferroflow import config

    names = []
    for device in config.list_logical_devices():
        name = device.name.rsplit("device:", 1)[-1]
        if kinds is None or device.device_type in kinds:
            names.append(name)
    chosen = _option_devices or os.environ.get(_DEVICES_ENV, "").strip()
    if chosen:
        wanted = [_canonical(n) for n in chosen.split(",") if n.strip()]
        names = [n for n in names if n in wanted]
    return names


def _canonical(name):
    """`gpu:0`, `/GPU:0` and `/device:GPU:0` all name `GPU:0`."""
    name = name.strip().rsplit("device:", 1)[-1].lstrip("/")
    kind, _, index = name.partition(":")
    return f"{kind.upper()}:{index or 0}"


# --- tolerances -----------------------------------------------------------------------------

_TOLERANCES = {
    "float64": (1e-10, 1e-12),
    "complex128": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "complex64": (1e-5, 1e-6),
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
}


def default_tolerance(dtype):
    """(rtol, atol) for results of `dtype` (a name or DType): 0 (exact) for integers, bools and
    strings, tight for float64, looser for float32 and the half types, whose GPU kernels may
    sum in another order or round differently."""
    name = getattr(dtype, "name", str(dtype))
    return _TOLERANCES.get(name, (0.0, 0.0))


# --- the helper ----------------------------------------------------------------------------


def assert_same_on_every_device(fn, *args, rtol=None, atol=None, devices=None, **kwargs):
    """Runs ``fn(*args, **kwargs)`` under ``tf.device`` of every visible device (or of
    ``devices``) and checks that each device's results equal the first device's: the same
    structure, dtypes and shapes, and values within ``rtol``/``atol`` (by default per dtype,
    see `default_tolerance`; NaN equals NaN). Raises AssertionError naming the device, the
    result and the largest difference. Returns the first device's results.

    Arguments are the caller's: tensors made before the call stay where they are and each
    device's ops copy them (pass numpy arrays or Python values to have every device start
    from the host)."""
    from ferroflow import nest
    from ferroflow.device_scope import device as device_scope

    names = list(devices) if devices is not None else visible_devices()
    if not names:
        raise ValueError("no device to run on")
    runs = []
    for name in names:
        with device_scope(name):
            result = fn(*args, **kwargs)
            runs.append((name, result, _host(nest.flatten(result))))
    first_name, first_result, expected = runs[0]
    for name, result, got in runs[1:]:
        _compare_structures(first_result, result, first_name, name)
        for index, (a, b) in enumerate(zip(expected, got)):
            problem = _difference(a, b, rtol, atol)
            if problem is not None:
                where = "" if len(expected) == 1 else f" (result {index} of {len(expected)})"
                raise AssertionError(
                    f"{_describe(fn)} differs on {name} from {first_name}{where}: {problem}"
                )
    return first_result


def _describe(fn):
    return f"{getattr(fn, '__qualname__', None) or getattr(fn, '__name__', repr(fn))}(...)"


def _host(leaves):
    """Each leaf as (dtype name, numpy value) read back to the host, or the leaf itself."""
    from ferroflow import _core

    out = []
    for leaf in leaves:
        if isinstance(leaf, _core.Tensor):
            out.append((leaf.dtype.name, np.asarray(leaf.numpy())))
        elif hasattr(leaf, "read_value"):
            value = leaf.read_value()
            out.append((value.dtype.name, np.asarray(value.numpy())))
        else:
            out.append((None, leaf))
    return out


def _compare_structures(a, b, first, other):
    from ferroflow import nest

    try:
        nest.assert_same_structure(a, b)
    except (TypeError, ValueError) as e:
        raise AssertionError(
            f"the results on {other} have another structure than on {first}: {e}"
        ) from None


def _difference(expected, got, rtol, atol):
    """Why `got` differs from `expected` (each a (dtype, value) pair), or None."""
    (dtype_a, a), (dtype_b, b) = expected, got
    if dtype_a is None or dtype_b is None:
        if dtype_a != dtype_b or not _python_equal(a, b):
            return f"{a!r} vs {b!r}"
        return None
    if dtype_a != dtype_b:
        return f"dtype {dtype_a} vs {dtype_b}"
    if a.shape != b.shape:
        return f"shape {list(a.shape)} vs {list(b.shape)}"
    default_rtol, default_atol = default_tolerance(dtype_a)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    if a.dtype.kind in "biuSUO" or (rtol == 0 and atol == 0 and a.dtype.kind != "c"):
        mismatch = a != b
        if a.dtype.kind == "f":
            mismatch &= ~(np.isnan(a) & np.isnan(b))
    else:
        wide = np.complex128 if a.dtype.kind == "c" else np.float64
        mismatch = ~np.isclose(b.astype(wide), a.astype(wide), rtol=rtol, atol=atol, equal_nan=True)
    if not np.any(mismatch):
        return None
    count = int(np.count_nonzero(mismatch))
    if a.dtype.kind in "biufc":
        wide = np.complex128 if a.dtype.kind == "c" else np.float64
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(a.astype(wide) - b.astype(wide))
        diff = np.where(mismatch, np.nan_to_num(diff, nan=np.inf), -1.0)
        where = np.unravel_index(int(np.argmax(diff)), a.shape) if a.ndim else ()
        largest = diff[where]
    else:
        where = tuple(int(i) for i in np.argwhere(mismatch)[0]) if a.ndim else ()
        largest = None
    where = tuple(int(i) for i in where)
    detail = f"{count} of {a.size} elements differ"
    if largest is not None:
        detail += f"; largest difference {largest:.6g}"
    return (
        f"{detail} at index {list(where)} ({a[where]!r} vs {b[where]!r}; dtype {dtype_a}, "
        f"rtol={rtol}, atol={atol})"
    )


def _python_equal(a, b):
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - anything that cannot compare is a difference
        return False


# --- the pytest plugin -------------------------------------------------------------------------

try:
    import pytest
except ImportError:  # the helper works without pytest; the plugin needs it
    pytest = None


def pytest_addoption(parser):
    parser.addoption(
        "--ferroflow-devices",
        default=None,
        help="comma-separated ferroflow devices for tf_device / every_device tests "
        "(default: every visible device, e.g. CPU:0,GPU:0)",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "every_device(*kinds): run the test once per visible ferroflow device (CPU and each "
        "GPU adapter; the software Vulkan one with FERROFLOW_ALLOW_SOFTWARE_GPU=1), inside "
        'tf.device; kinds ("CPU", "GPU") keep those only',
    )
    global _option_devices
    _option_devices = config.getoption("--ferroflow-devices", default=None)


def pytest_unconfigure(config):
    global _option_devices
    _option_devices = None


def pytest_generate_tests(metafunc):
    marker = metafunc.definition.get_closest_marker("every_device")
    if "tf_device" not in metafunc.fixturenames:
        if marker is None:
            return
        # The marker stands for the fixture: the test runs inside it without naming it.
        metafunc.fixturenames.append("tf_device")
    kinds = None
    if marker is not None and marker.args:
        kinds = {str(kind).upper() for kind in marker.args}
    names = visible_devices(kinds)
    metafunc.parametrize("tf_device", names, ids=names, indirect=True)


if pytest is not None:

    @pytest.fixture
    def tf_device(request):
        """The name of the device this run of the test is for (``"CPU:0"``, ``"GPU:0"``,
        ...); the test (and the fixtures it uses) run inside ``tf.device`` of it."""
        name = getattr(request, "param", None)
        return name if name is not None else visible_devices()[0]

    @pytest.fixture(autouse=True)
    def _ferroflow_device_scope(request):
        """Enters the device of a test parametrized by `tf_device` or `every_device` (an
        autouse fixture, so a marked test that names no fixture runs inside it too)."""
        callspec = getattr(request.node, "callspec", None)
        name = None if callspec is None else callspec.params.get("tf_device")
        if name is None:
            yield
            return
        from ferroflow.device_scope import device as device_scope

        with device_scope(name):
            yield
