"""`tf.debugging`'s traceback filtering and numeric-check switches, `tf.debugging.experimental`,
and the remaining `tf.test` names (`is_cpu_target_available`, `benchmark_config`,
`disable_with_predicate`, `with_eager_op_as_function`, `assert_equal_graph_def`,
`experimental.sync_devices`) against TensorFlow."""

import pytest

from .harness import assert_parity


def _filtering_flags(tf):
    out = [tf.debugging.is_traceback_filtering_enabled()]
    tf.debugging.disable_traceback_filtering()
    out.append(tf.debugging.is_traceback_filtering_enabled())
    tf.debugging.enable_traceback_filtering()
    out.append(tf.debugging.is_traceback_filtering_enabled())
    return out


def test_traceback_filtering_flags(tf_oracle):
    assert_parity(tf_oracle, _filtering_flags)


def test_filtered_tracebacks():
    # TensorFlow's own frames here depend on AutoGraph's converted code, so this checks
    # ferroflow's filtering directly: no internal frame while on, the user's frames always.
    import os
    import traceback

    import ferroflow as tf

    package = os.path.dirname(os.path.abspath(tf.__file__))

    def user_helper(x):
        raise ValueError("from user code")

    @tf.function
    def f(x):
        return user_helper(x * 2.0)

    seen = {}
    for enabled in (True, False):
        if not enabled:
            tf.debugging.disable_traceback_filtering()
        try:
            with pytest.raises(ValueError) as info:
                f(tf.constant(1.0))
        finally:
            tf.debugging.enable_traceback_filtering()
        frames = traceback.extract_tb(info.value.__traceback__)
        internal = [fr for fr in frames if os.path.abspath(fr.filename).startswith(package)]
        # The re-raise itself is a frame, as TensorFlow's error_handler is.
        seen[enabled] = (
            [fr.name for fr in internal],
            "user_helper" in [fr.name for fr in frames],
        )
    assert seen[True] == (["with_filtered_traceback"], True)
    assert len(seen[False][0]) > 3 and seen[False][1]


def _switches(tf):
    return [
        tf.debugging.disable_check_numerics(),
        tf.debugging.experimental.disable_dump_debug_info(),
        sorted(n for n in dir(tf.debugging.experimental) if not n.startswith("_")),
    ]


def test_debugging_switches(tf_oracle):
    assert_parity(tf_oracle, _switches)


def test_dump_debug_info_is_not_available():
    import ferroflow as tf

    with pytest.raises(NotImplementedError):
        tf.debugging.experimental.enable_dump_debug_info("/tmp/dump")


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _test_names(tf):
    import platform

    host = platform.machine()
    # TensorFlow answers True for every LLVM backend it was built with, ferroflow for the host's
    # family only (its native code targets the host): compared on the host's names and on names
    # neither knows.
    targets = ["x86", "x86_64", "X86", "riscv", ""] if host in ("x86_64", "AMD64") else ["X86", ""]
    out = {
        "targets": {t: _outcome(lambda t=t: tf.test.is_cpu_target_available(t)) for t in targets}
    }
    out["benchmark_config"] = str(tf.test.benchmark_config())

    class Marked:
        pass

    out["eager_op"] = [
        tf.test.with_eager_op_as_function(Marked) is Marked,
        tf.test.with_eager_op_as_function()(Marked) is Marked,
        tf.test.with_eager_op_as_function(only_as_function=True)(Marked) is Marked,
    ]
    out["graph_def"] = [
        _outcome(lambda: tf.test.assert_equal_graph_def(1, 2)),
        _outcome(lambda: tf.test.assert_equal_graph_def(None, "x")),
    ]
    out["sync"] = tf.test.experimental.sync_devices()

    @tf.function
    def sync_inside():
        tf.test.experimental.sync_devices()
        return tf.constant(1)

    out["sync_inside"] = _outcome(sync_inside)
    out["experimental"] = sorted(n for n in dir(tf.test.experimental) if not n.startswith("_"))
    return out


def test_tf_test_names(tf_oracle):
    expected = assert_parity(tf_oracle, _test_names, helpers=(_outcome,))
    assert expected[0] == "dict"


def _predicate_skips(tf):
    import unittest

    class Case(tf.test.TestCase):
        @tf.test.disable_with_predicate(lambda: True, "skipped by predicate")
        def test_skipped(self):
            raise AssertionError("must not run")

        @tf.test.disable_with_predicate(lambda: False, "not skipped")
        def test_runs(self):
            self.assertAllEqual(tf.constant([1, 2]), [1, 2])

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Case).run(result)
    return [
        result.testsRun,
        [str(reason) for _, reason in result.skipped],
        len(result.failures),
        len(result.errors),
    ]


def test_disable_with_predicate(tf_oracle):
    assert_parity(tf_oracle, _predicate_skips)


def test_create_local_cluster_is_unavailable():
    import ferroflow as tf

    with pytest.raises(tf.errors.UnimplementedError):
        tf.test.create_local_cluster(1, 0)


def test_cpu_targets_are_the_hosts_family():
    import platform

    import ferroflow as tf

    known = ["x86", "x86_64", "arm", "aarch64", "powerpc", "ppc", "s390x"]
    available = [t for t in known if tf.test.is_cpu_target_available(t)]
    if platform.machine() == "x86_64":
        assert available == ["x86", "x86_64"]
    with pytest.raises(AssertionError):
        tf.test.is_cpu_target_available("riscv")
