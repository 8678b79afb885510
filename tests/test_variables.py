"""tf.Variable: the seeds' variables guide, creation, assignment into existing storage, updates,
placement, lifetime, and the seeds' training loop written with raw variables."""

import gc
import pathlib
import subprocess
import sys
import weakref

import ferroflow as tf
import numpy as np
import pytest
from conftest import gpu_available, require_gpu

CELLS = pathlib.Path(__file__).parent / "seed_cells"


def test_the_seeds_variable_cells_print_what_tensorflow_prints():
    done = subprocess.run(
        [sys.executable, str(CELLS / "variables_guide.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (CELLS / "variables_guide.expected").read_text()


@pytest.mark.parametrize(
    "initial, dtype",
    [
        (tf.constant([1.0, 2.0]), tf.float32),
        ([1, 2], tf.int32),
        (np.arange(3), tf.int64),
        (np.float64(2.5), tf.float64),
        (lambda: tf.ones([2, 2]), tf.float32),
        ([True, False], tf.bool),
        ([5 + 4j], tf.complex128),
    ],
)
def test_created_from_tensors_lists_numpy_and_callables_with_their_dtype(initial, dtype):
    v = tf.Variable(initial)
    assert v.dtype == dtype
    expected = initial() if callable(initial) else initial
    np.testing.assert_array_equal(v.numpy(), np.asarray(expected))


def test_a_variable_from_a_variable_is_a_copy_with_its_own_storage():
    a = tf.Variable([2.0, 3.0])
    b = tf.Variable(a)
    assert a._storage_address() != b._storage_address()
    a.assign([5.0, 6.0])
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])


def test_dtype_argument_converts_python_values_and_rejects_tensors_of_another_dtype():
    assert tf.Variable([1, 2], dtype=tf.float32).dtype == tf.float32
    with pytest.raises(ValueError, match="requested dtype float32"):
        tf.Variable(tf.constant([1, 2]), dtype=tf.float32)
    with pytest.raises(ValueError, match="initial_value"):
        tf.Variable(None)


def test_names_default_to_variable_and_may_repeat():
    assert tf.Variable(1.0).name == "Variable:0"
    a, b = tf.Variable(1.0, name="Mark"), tf.Variable(2.0, name="Mark")
    assert a.name == b.name == "Mark:0"


def test_repr_as_tensorflow_prints_it():
    assert repr(tf.Variable(3)) == "<tf.Variable 'Variable:0' shape=() dtype=int32, numpy=3>"
    v = tf.Variable([2.0, 3.0])
    assert repr(v.assign([1.0, 2.0])) == (
        "<tf.Variable 'UnreadVariable' shape=(2,) dtype=float32, "
        "numpy=array([1., 2.], dtype=float32)>"
    )


@pytest.mark.parametrize("where", ["CPU:0", "GPU:0"])
def test_assign_writes_into_the_existing_storage(where):
    if where.startswith("GPU"):
        require_gpu()
    with tf.device(where):
        v = tf.Variable(tf.zeros([64, 64]))
    address = v._storage_address()
    assert v.assign(tf.ones([64, 64])) is not None
    assert v.assign_add(tf.ones([64, 64]), read_value=False) is None
    v.assign_sub(tf.ones([64, 64]) * 0.5)
    v.assign(np.full((64, 64), 7.0, dtype=np.float32))
    assert v._storage_address() == address
    assert where in v.device
    np.testing.assert_array_equal(v.numpy(), np.full((64, 64), 7.0))


def test_a_live_read_keeps_its_value_when_the_variable_is_assigned():
    v = tf.Variable([1.0, 2.0])
    before = v.read_value()
    v.assign([3.0, 4.0])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])


def test_assign_returns_a_view_of_the_same_variable():
    v = tf.Variable([1.0, 2.0])
    view = v.assign_add([1.0, 1.0])
    v.assign([0.0, 0.0])
    np.testing.assert_array_equal(view.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(v.assign_add([2, 3]).numpy(), [2.0, 3.0])


def test_shape_mismatch_and_dtype_conversion_on_assign():
    a = tf.Variable([2.0, 3.0])
    with pytest.raises(ValueError) as info:
        a.assign([1.0, 2.0, 3.0])
    assert str(info.value) == (
        "Cannot assign value to variable ' Variable:0': Shape mismatch.The variable shape (2,), "
        "and the assigned value shape (3,) are incompatible."
    )
    a.assign([1, 2])  # ints convert to the variable's float32
    assert a.dtype == tf.float32
    i = tf.Variable([1, 2])
    with pytest.raises(TypeError):
        i.assign([1.5, 2.0])
    with pytest.raises(ValueError, match="requested dtype float32"):
        a.assign(tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="shapes must be equal"):
        a.assign_add([1.0])


def test_unknown_shape_variables_take_values_of_any_shape():
    d = tf.Variable([1.0, 2.0], shape=tf.TensorShape(None))
    d.assign([1.0, 2.0, 3.0])
    assert str(d.shape) == "<unknown>"
    np.testing.assert_array_equal(d.numpy(), [1.0, 2.0, 3.0])
    partial = tf.Variable([[1.0, 2.0]], shape=[None, 2])
    partial.assign([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="Shape mismatch"):
        partial.assign([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="not compatible with the explicitly supplied"):
        tf.Variable([1.0, 2.0], shape=[3])


def test_variables_cannot_be_reshaped_in_place():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    r = tf.reshape(v, [1, 4])
    assert r.shape == (1, 4) and v.shape == (2, 2)
    assert not hasattr(v, "reshape")
    with pytest.raises(ValueError, match="Shape mismatch"):
        v.assign(r)


def test_scatter_updates():
    v = tf.Variable(tf.zeros([4]))
    np.testing.assert_array_equal(v.scatter_nd_update([[1], [3]], [5.0, 6.0]).numpy(), [0, 5, 0, 6])
    v.scatter_update(tf.IndexedSlices([7.0, 8.0], [0, 2]))
    np.testing.assert_array_equal(v.numpy(), [7, 5, 8, 6])
    v.scatter_add(tf.IndexedSlices([1.0], [0]))
    v.scatter_nd_sub([[3]], [6.0])
    np.testing.assert_array_equal(v.numpy(), [8, 5, 8, 0])
    m = tf.Variable(tf.zeros([2, 3]))
    m.scatter_nd_update([[1, 2], [0, 0]], [1.0, 2.0])
    np.testing.assert_array_equal(m.numpy(), [[2, 0, 0], [0, 0, 1]])


def test_aggregation_and_synchronization_arguments():
    v = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ)
    assert v.trainable is False
    assert v.synchronization == tf.VariableSynchronization.ON_READ
    assert v.aggregation == tf.VariableAggregation.NONE
    w = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN)
    assert w.aggregation == tf.VariableAggregation.MEAN and w.trainable
    with pytest.raises(ValueError):
        tf.Variable(1.0, aggregation="sideways")


def test_variables_work_wherever_tensors_do():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal((v + 1).numpy(), [[2, 3], [4, 5]])
    np.testing.assert_array_equal((1 - v).numpy(), [[0, -1], [-2, -3]])
    np.testing.assert_array_equal((v @ v).numpy(), [[7, 10], [15, 22]])
    np.testing.assert_array_equal((-v).numpy(), [[-1, -2], [-3, -4]])
    np.testing.assert_array_equal(v[1].numpy(), [3, 4])
    np.testing.assert_array_equal(np.asarray(v), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(tf.convert_to_tensor(v).numpy(), [[1, 2], [3, 4]])
    assert float(tf.reduce_sum(v)) == 10.0
    assert tf.is_tensor(v) and not isinstance(v, tf.Tensor)
    assert [r.shape for r in v] == [(2,), (2,)]
    assert float(tf.Variable(2.5)) == 2.5 and int(tf.Variable(3)) == 3
    np.testing.assert_array_equal(tf.stack([v, v]).shape, (2, 2, 2))
    np.testing.assert_array_equal((v == v).numpy(), [[True, True], [True, True]])
    np.testing.assert_array_equal(tf.concat([v, tf.ones([1, 2])], 0).shape, (3, 2))


def test_variables_are_unhashable_but_have_refs():
    v = tf.Variable(1.0)
    with pytest.raises(TypeError, match="Variable is unhashable"):
        hash(v)
    table = {v.ref(): "v"}
    assert table[v.ref()] == "v" and v.ref().deref() is v


def test_placement_follows_the_scope_at_creation_and_survives_assignment():
    with tf.device("CPU:0"):
        v = tf.Variable([1.0, 2.0])
    assert v.device.endswith("CPU:0")
    v.assign(tf.constant([3.0, 4.0]))
    assert v.device.endswith("CPU:0")
    if gpu_available():
        assert tf.Variable([1.0]).device.endswith("GPU:0")  # the fastest device by default
        with tf.device("GPU:0"):
            g = tf.Variable([1.0, 2.0])
        with tf.device("CPU:0"):
            g.assign(tf.constant([5.0, 6.0]))
        assert g.device.endswith("GPU:0")
        np.testing.assert_array_equal(g.numpy(), [5.0, 6.0])
        # float64 cannot live on the GPU: the variable stays on the CPU.
        with tf.device("GPU:0"):
            assert tf.Variable(np.float64(1.0)).device.endswith("CPU:0")


def test_variables_are_freed_when_unreferenced():
    v = tf.Variable(tf.zeros([1000]))
    ref = weakref.ref(v)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v * 2.0)
    tape.gradient(y, v)
    del v, tape, y
    gc.collect()
    assert ref() is None


def _seed_model_variables(seed):
    rng = np.random.default_rng(seed)
    return [
        tf.Variable(rng.normal(size=(1, 64)).astype(np.float32)),
        tf.Variable(rng.normal(size=(64,)).astype(np.float32)),
        tf.Variable(rng.normal(size=(64, 1)).astype(np.float32) * 0.1),
        tf.Variable(rng.normal(size=(1,)).astype(np.float32)),
    ]


def _model(x, w1, b1, w2, b2):
    hidden = tf.nn.relu(x[:, tf.newaxis] @ w1 + b1)
    return tf.squeeze(hidden @ w2 + b2, axis=1)


def test_one_training_step_matches_hand_derived_gradients():
    x = tf.cast(tf.linspace(-2, 2, 201), tf.float32)
    y = x**2 + 2 * x - 5 + tf.random.normal([201], seed=1)
    variables = _seed_model_variables(0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((y - _model(x, *variables)) ** 2)
    grads = tape.gradient(loss, variables)
    # The same derivatives in numpy.
    xs, ys = x.numpy()[:, None], y.numpy()
    w1, b1, w2, b2 = (v.numpy() for v in variables)
    pre = xs @ w1 + b1
    hidden = np.maximum(pre, 0)
    err = (hidden @ w2 + b2)[:, 0] - ys
    d_out = (2 / len(ys)) * err[:, None]
    d_pre = (d_out @ w2.T) * (pre > 0)
    expected = [xs.T @ d_pre, d_pre.sum(0), hidden.T @ d_out, d_out.sum(0)]
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g.numpy(), e, rtol=2e-4, atol=1e-5)


@pytest.fixture
def on_cpu():
    # 1000 small steps: the CPU is the fast device for them (the GPU path is covered by
    # test_autodiff's GPU/CPU comparisons).
    with tf.device("CPU:0"):
        yield


def test_the_seeds_training_loop_with_raw_variables_fits_the_quadratic(on_cpu):
    x = tf.cast(tf.linspace(-2, 2, 201), tf.float32)
    y = x**2 + 2 * x - 5 + tf.random.normal([201], seed=2)
    variables = _seed_model_variables(1)
    losses = []
    for _ in range(1000):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((y - _model(x, *variables)) ** 2)
        for v, g in zip(variables, tape.gradient(loss, variables)):
            v.assign_sub(0.01 * g)
        losses.append(float(loss))
    assert losses[-1] < 0.25 * losses[0]
    assert losses[-1] < 1.5  # the noise has variance 1
