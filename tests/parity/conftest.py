import pytest

from .harness import start_oracle


@pytest.fixture(scope="module")
def tf_oracle():
    """A TensorFlow worker per test module: TensorFlow keeps global state that a program can
    leave changed (a variable scope's caching device after a failed graph-mode map_fn, ...),
    and a fresh worker keeps one module's programs from changing another's results."""
    worker = start_oracle()
    yield worker
    worker.close()
