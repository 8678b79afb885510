import pytest

from .harness import start_oracle


@pytest.fixture(scope="session")
def tf_oracle():
    """The TensorFlow worker shared by every parity test of the session."""
    worker = start_oracle()
    yield worker
    worker.close()
