"""The TensorFlow oracle's workers: one fresh process per module, replaced after a crash."""

import pytest

from .harness import OracleError, TensorFlowWorker, make_request, start_oracle


def _marks_tensorflow(tf):
    import os

    already = getattr(tf, "_ferroflow_marker", None)
    tf._ferroflow_marker = os.getpid()
    return already is None


def _exits(tf):
    import os

    os._exit(3)


def _adds(tf):
    return int(tf.constant(2) + 3)


@pytest.fixture
def worker():
    oracle = start_oracle()
    if not isinstance(oracle, TensorFlowWorker):
        pytest.skip("results are replayed: there is no worker process")
    yield oracle
    oracle.close()


def test_each_worker_starts_from_an_untouched_tensorflow(worker):
    request = make_request(_marks_tensorflow)
    assert worker.run(request) == ("py", "bool", True)
    # The same worker keeps its state between programs...
    assert worker.run(request) == ("py", "bool", False)
    # ...and a second worker (the next module's) does not see it.
    other = start_oracle()
    try:
        assert other.pid != worker.pid
        assert other.run(request) == ("py", "bool", True)
    finally:
        other.close()


def test_a_crashed_worker_is_reported_and_replaced(worker):
    crashed = worker.pid
    with pytest.raises(OracleError, match="exited"):
        worker.run(make_request(_exits))
    assert worker.run(make_request(_adds)) == ("py", "int", 5)
    assert worker.pid != crashed
