"""`ferroflow.testing`: the pytest plugin (the `tf_device` fixture, the `every_device` marker,
`--ferroflow-devices`) run by pytest's own `pytester`, and `assert_same_on_every_device`."""

import importlib.metadata
import re
from pathlib import Path

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.testing import assert_same_on_every_device, default_tolerance, visible_devices

pytest_plugins = ["pytester"]

HEADER = "import ferroflow as tf\nimport pytest\n\n"


@pytest.fixture
def project(pytester):
    """A pytester project whose conftest names the plugin, as a user's would."""
    pytester.makeconftest('pytest_plugins = ["ferroflow.testing"]\n')
    return pytester


def _outcome_lines(result):
    """{test id: outcome} from a `-v` run's lines."""
    found = {}
    for line in result.outlines:
        match = re.match(r"\S+::(\S+) (PASSED|FAILED|SKIPPED|ERROR)", line)
        if match:
            found[match.group(1)] = match.group(2)
    return found


def test_visible_devices_are_ferroflows_logical_devices():
    names = visible_devices()
    assert names[0] == "CPU:0"
    assert len(names) == len(tf.config.list_logical_devices())
    assert visible_devices(["GPU"]) == [n for n in names if n.startswith("GPU")]


def test_fixture_runs_the_test_once_per_device_inside_its_scope(project):
    project.makepyfile(
        HEADER
        + """
def test_placed(tf_device):
    y = tf.constant([1.0, 2.0]) * 3.0
    assert y.device.endswith("device:" + tf_device)
    assert y.numpy().tolist() == [3.0, 6.0]
"""
    )
    result = project.runpytest("-v")
    names = visible_devices()
    result.assert_outcomes(passed=len(names))
    assert _outcome_lines(result) == {f"test_placed[{n}]": "PASSED" for n in names}


def test_marker_runs_a_test_that_takes_no_fixture_on_every_device(project):
    project.makepyfile(
        HEADER
        + """
SEEN = []


@pytest.mark.every_device
def test_marked():
    SEEN.append(tf.constant(1.0).__add__(1.0).device.rsplit("device:", 1)[-1])


def test_all_seen():
    from ferroflow.testing import visible_devices

    assert SEEN == visible_devices()
"""
    )
    result = project.runpytest("-v", "-p", "no:randomly")
    names = visible_devices()
    result.assert_outcomes(passed=len(names) + 1)
    assert {f"test_marked[{n}]" for n in names} <= set(_outcome_lines(result))


def test_marker_kinds_keep_those_devices(project):
    project.makepyfile(
        HEADER
        + """
@pytest.mark.every_device("CPU")
def test_cpu_only(tf_device):
    assert tf_device.startswith("CPU")
"""
    )
    result = project.runpytest("-v")
    result.assert_outcomes(passed=len(visible_devices(["CPU"])))
    assert set(_outcome_lines(result)) == {f"test_cpu_only[{n}]" for n in visible_devices(["CPU"])}


def test_option_restricts_the_devices(project):
    project.makepyfile(
        HEADER
        + """
def test_one(tf_device):
    assert tf_device == "CPU:0"
"""
    )
    result = project.runpytest("-v", "--ferroflow-devices=cpu:0")
    result.assert_outcomes(passed=1)
    assert _outcome_lines(result) == {"test_one[CPU:0]": "PASSED"}
    # The option is the run's own: later code sees every device again.
    assert visible_devices() == [
        d.name.rsplit("device:", 1)[-1] for d in tf.config.list_logical_devices()
    ]


def test_plugin_named_on_the_command_line(pytester):
    # As the installed entry point loads it: no conftest.
    pytester.makepyfile(
        HEADER
        + """
@pytest.mark.every_device
def test_marked():
    pass
"""
    )
    result = pytester.runpytest("-v", "-p", "ferroflow.testing")
    result.assert_outcomes(passed=len(visible_devices()))


def test_a_failing_device_fails_only_its_run(project):
    project.makepyfile(
        HEADER
        + """
def test_cpu_only_works(tf_device):
    assert tf_device == "CPU:0", "not on " + tf_device
"""
    )
    result = project.runpytest("-v")
    names = visible_devices()
    result.assert_outcomes(passed=1, failed=len(names) - 1)
    for name in names[1:]:
        assert _outcome_lines(result)[f"test_cpu_only_works[{name}]"] == "FAILED"


def test_helper_inside_a_plugin_test(project):
    project.makepyfile(
        HEADER
        + """
from ferroflow.testing import assert_same_on_every_device


def test_model():
    w = tf.reshape(tf.range(12.0), [3, 4]) / 7.0

    def forward(x):
        return tf.nn.softmax(tf.matmul(x, w)), tf.argmax(x, axis=1)

    assert_same_on_every_device(forward, tf.ones([2, 3]))
"""
    )
    project.runpytest().assert_outcomes(passed=1)


def test_helper_returns_the_first_devices_results():
    out = assert_same_on_every_device(
        lambda x: {"sum": tf.reduce_sum(x), "twice": [x * 2, x > 1]}, tf.constant([1.0, 2.0])
    )
    assert float(out["sum"]) == 3.0
    assert out["twice"][1].numpy().tolist() == [False, True]


def _changing(values):
    """A function whose result differs from call to call (so from device to device)."""
    calls = iter(values)

    def fn():
        return tf.constant(next(calls))

    return fn


def test_helper_names_the_device_and_the_largest_difference():
    devices = ["CPU:0", "CPU:0"]
    fn = _changing([np.float32([1.0, 2.0, 3.0]), np.float32([1.0, 2.5, 3.25])])
    with pytest.raises(AssertionError) as raised:
        assert_same_on_every_device(fn, devices=devices)
    message = str(raised.value)
    assert "differs on CPU:0 from CPU:0" in message
    assert "2 of 3 elements differ" in message
    assert "largest difference 0.5 at index [1]" in message
    assert "rtol=1e-05, atol=1e-06" in message


def test_helper_tolerances_per_dtype():
    devices = ["CPU:0", "CPU:0"]
    # float32: 1e-7 relative is within the default; float16 a 1e-4 relative change too.
    assert_same_on_every_device(
        _changing([np.float32([1.0]), np.float32([1.0000001])]), devices=devices
    )
    assert_same_on_every_device(
        _changing([np.float16([1.0]), np.float16([1.0009766])]), devices=devices
    )
    # float64 is tight, integers and bools exact.
    for before, after in [
        (np.float64([1.0]), np.float64([1.0 + 1e-8])),
        (np.int32([5]), np.int32([6])),
        (np.array([True]), np.array([False])),
    ]:
        with pytest.raises(AssertionError, match="1 of 1 elements differ"):
            assert_same_on_every_device(_changing([before, after]), devices=devices)
    # Explicit tolerances win; NaN equals NaN.
    assert_same_on_every_device(
        _changing([np.float32([1.0]), np.float32([1.1])]), devices=devices, atol=0.2
    )
    assert_same_on_every_device(
        _changing([np.float32([np.nan]), np.float32([np.nan])]), devices=devices
    )
    assert default_tolerance(tf.float32) == (1e-5, 1e-6)
    assert default_tolerance("int64") == (0.0, 0.0)


def test_helper_checks_dtypes_shapes_and_structure():
    devices = ["CPU:0", "CPU:0"]
    cases = [
        ([np.float32([1.0]), np.float64([1.0])], "dtype float32 vs float64"),
        ([np.float32([1.0]), np.float32([1.0, 2.0])], r"shape \[1\] vs \[2\]"),
    ]
    for values, message in cases:
        with pytest.raises(AssertionError, match=message):
            assert_same_on_every_device(_changing(values), devices=devices)
    shapes = iter([(1.0,), (1.0, 2.0)])
    with pytest.raises(AssertionError, match="another structure"):
        assert_same_on_every_device(
            lambda: tuple(tf.constant(v) for v in next(shapes)), devices=devices
        )


@pytest.mark.skipif(len(visible_devices()) < 2, reason="needs a GPU adapter")
def test_helper_on_the_gpu():
    x = np.linspace(-3, 3, 64, dtype=np.float32).reshape(8, 8)
    assert_same_on_every_device(lambda x: tf.tanh(x) @ tf.exp(x / 4), x)


def test_entry_point_is_declared():
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert '[project.entry-points.pytest11]\n"ferroflow.testing" = "ferroflow.testing"' in text
    installed = [
        e
        for e in importlib.metadata.entry_points(group="pytest11")
        if e.value == "ferroflow.testing"
    ]
    if not installed:
        pytest.skip("the installed ferroflow predates the entry point (rebuild to register it)")
    assert installed[0].name == "ferroflow.testing"
