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


@pytest.fixture(scope="module", autouse=True)
def fresh_global_seed():
    """Each module's TensorFlow worker starts with no global seed, but ferroflow runs in this
    process for every module: a module that sets one (`keras.utils.set_random_seed`) must not
    leave it to the next, whose seeded shuffles would then differ from TensorFlow's. Reset
    before the module too: tests outside tests/parity (test_keras_fit) run in the same
    process and set seeds without this fixture."""
    import ferroflow as tf

    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)
