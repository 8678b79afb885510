"""`tf.keras.metrics` against Keras 3.15 (TensorFlow 2.21).

Every expected number below was produced by running Keras itself (``keras.metrics``, TensorFlow
backend, float32 on the CPU) through the same sequences of ``update_state`` calls; TensorFlow is
not needed to run these tests. ``test_parity_with_installed_keras`` recomputes them when
TensorFlow happens to be importable.
"""

import warnings

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.keras import losses, metrics

# --- inputs ------------------------------------------------------------------------------------

R_T = [[1.0, 2.5, -0.5], [0.0, 3.0, 1.0]]
R_P = [[1.5, 0.5, -0.4], [0.3, 4.5, 1.0]]
R_T2 = [[2.0, 0.5, 1.0], [1.0, 1.0, 0.0], [0.5, 0.2, 0.1]]
R_P2 = [[1.0, 0.7, 1.4], [0.2, 1.5, 0.3], [0.4, 0.2, 0.9]]
C_T = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
C_P = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1], [0.6, 0.3, 0.1]]
C_L = [[1.0, 2.0, 0.5], [-1.0, 0.3, 2.0], [0.2, -0.4, 1.1]]
C_T2 = [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
C_P2 = [[0.1, 0.5, 0.3, 0.1], [0.25, 0.25, 0.2, 0.3]]
S_T = [1, 2, 0]
S_T_COL = [[1], [2], [0]]
S_T_IGN = [1, -1, 0]
P2x3_T = [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]]
P2x3_P = [[0.2, 0.7, 0.4], [0.9, 0.3, 0.1]]
H_T = [[-1.0, 1.0, 1.0], [1.0, -1.0, 1.0]]
H_P = [[0.3, -0.8, 1.2], [0.6, 0.4, -0.1]]
K3_T = [[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]]
K3_P = [[[0.2, 0.5, 0.3], [0.1, 0.6, 0.3]], [[0.3, 0.3, 0.4], [0.5, 0.4, 0.1]]]

METRIC_CASES = [
    # (id, class, kwargs, [update args...]); update args = (positional..., sample_weight)
    (
        "mean",
        "Mean",
        {},
        [
            ([1.0, 2.0, 3.0], None),
            ([[4.0, 5.0], [6.0, 7.0]], [0.5, 2.0]),
            (10.0, 3.0),
            ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.0, 1.0], [0.5, 0.5, 0.5]]),
        ],
    ),
    ("mean_scalar", "Mean", {}, [(2.0, None), (4.0, None), ([[1.0, 3.0]], None)]),
    (
        "mean_col_weights",
        "Mean",
        {},
        [([1.0, 2.0, 3.0], [[0.5], [1.0], [2.0]]), ([[1.0, 2.0], [3.0, 4.0]], 2.0)],
    ),
    (
        "sum",
        "Sum",
        {},
        [
            ([1.0, 2.0, 3.0], None),
            ([[4.0, 5.0], [6.0, 7.0]], [0.5, 2.0]),
            (10.0, 3.0),
            ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.0, 1.0], [0.5, 0.5, 0.5]]),
        ],
    ),
    (
        "mse",
        "MeanSquaredError",
        {},
        [(R_T, R_P, None), (R_T2, R_P2, [1.0, 0.5, 0.0]), (R_T, R_P, [[2.0], [0.5]])],
    ),
    ("mae", "MeanAbsoluteError", {}, [(R_T, R_P, None), (R_T2, R_P2, [1.0, 0.5, 2.0])]),
    (
        "mape",
        "MeanAbsolutePercentageError",
        {},
        [(R_T2, R_P2, None), (R_T2, R_P2, [0.2, 0.3, 0.5])],
    ),
    (
        "msle",
        "MeanSquaredLogarithmicError",
        {},
        [(R_T2, R_P2, None), (R_T2, R_P2, [0.2, 0.3, 0.5])],
    ),
    (
        "rmse",
        "RootMeanSquaredError",
        {},
        [(R_T, R_P, None), (R_T2, R_P2, [1.0, 0.5, 2.0]), ([1.0, 2.0], [[1.5], [2.5]], None)],
    ),
    ("cosine", "CosineSimilarity", {}, [(R_T, R_P, None), (R_T2, R_P2, [1.0, 0.5, 2.0])]),
    ("cosine_axis0", "CosineSimilarity", {"axis": 0}, [(R_T2, R_P2, None)]),
    ("logcosh", "LogCoshError", {}, [(R_T, R_P, None), (R_T2, R_P2, [1.0, 0.5, 2.0])]),
    (
        "accuracy",
        "Accuracy",
        {},
        [
            ([[1], [2], [3], [4]], [[0], [2], [3], [4]], None),
            ([1, 2, 3], [1, 0, 3], [0.5, 1.0, 2.0]),
            ([[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [0.0, 4.0]], None),
        ],
    ),
    (
        "binary_accuracy",
        "BinaryAccuracy",
        {},
        [
            ([[1], [1], [0], [0]], [[0.98], [1.0], [0.0], [0.6]], None),
            ([1.0, 0.0, 1.0], [0.4, 0.2, 0.7], [1.0, 2.0, 0.5]),
            (P2x3_T, P2x3_P, None),
        ],
    ),
    (
        "binary_accuracy_thr",
        "BinaryAccuracy",
        {"threshold": 0.7},
        [(P2x3_T, P2x3_P, None), (P2x3_T, P2x3_P, [[0.0], [2.0]])],
    ),
    (
        "categorical_accuracy",
        "CategoricalAccuracy",
        {},
        [(C_T, C_P, None), (C_T2, C_P2, [0.5, 0.2]), (K3_T, K3_P, None)],
    ),
    (
        "sparse_categorical_accuracy",
        "SparseCategoricalAccuracy",
        {},
        [(S_T, C_P, None), (S_T_COL, C_L, [0.5, 0.2, 2.0]), ([[1, 0], [2, 2]], K3_P, None)],
    ),
    ("top_k", "TopKCategoricalAccuracy", {"k": 1}, [(C_T, C_L, None), (C_T2, C_P2, [0.5, 2.0])]),
    (
        "top_k2",
        "TopKCategoricalAccuracy",
        {"k": 2},
        [(C_T, C_L, None), (C_T2, C_P2, [0.5, 2.0]), (K3_T, K3_P, None)],
    ),
    (
        "sparse_top_k2",
        "SparseTopKCategoricalAccuracy",
        {"k": 2},
        [(S_T, C_L, None), ([0, 3], C_P2, [0.5, 2.0]), (S_T_COL, C_L, None)],
    ),
    (
        "sparse_top_k_sorted",
        "SparseTopKCategoricalAccuracy",
        {"k": 2, "from_sorted_ids": True},
        [([1, 4, 0], [[1, 2, 3], [0, 1, 4], [3, 1, 2]], None)],
    ),
    ("bce", "BinaryCrossentropy", {}, [(P2x3_T, P2x3_P, None), (P2x3_T, P2x3_P, [0.5, 2.0])]),
    (
        "bce_logits_ls",
        "BinaryCrossentropy",
        {"from_logits": True, "label_smoothing": 0.2},
        [(P2x3_T, R_P, None), ([[1.0], [0.0]], [[2.0], [-1.0]], [[3.0], [1.0]])],
    ),
    ("cce", "CategoricalCrossentropy", {}, [(C_T, C_P, None), (C_T2, C_P2, [0.5, 2.0])]),
    (
        "cce_logits_ls",
        "CategoricalCrossentropy",
        {"from_logits": True, "label_smoothing": 0.1},
        [(C_T, C_L, None), (K3_T, K3_P, None)],
    ),
    ("scce", "SparseCategoricalCrossentropy", {}, [(S_T, C_P, None), ([0, 3], C_P2, [0.5, 2.0])]),
    (
        "scce_logits",
        "SparseCategoricalCrossentropy",
        {"from_logits": True},
        [(S_T_COL, C_L, None), ([[1, 0], [2, 2]], K3_P, [1.0, 0.5])],
    ),
    (
        "scce_ignore",
        "SparseCategoricalCrossentropy",
        {"ignore_class": -1},
        [(S_T_IGN, C_P, None), (S_T_IGN, C_P, [1.0, 1.0, 2.0])],
    ),
    (
        "kld",
        "KLDivergence",
        {},
        [
            (C_P, [[0.1, 0.8, 0.1], [0.2, 0.5, 0.3], [0.5, 0.25, 0.25]], None),
            (C_T2, C_P2, [0.5, 1.0]),
        ],
    ),
    ("poisson", "Poisson", {}, [(R_T2, R_P2, None), (R_T2, R_P2, [0.5, 1.0, 0.0])]),
    (
        "hinge",
        "Hinge",
        {},
        [(H_T, H_P, None), ([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]], H_P, [0.5, 2.0])],
    ),
    (
        "squared_hinge",
        "SquaredHinge",
        {},
        [(H_T, H_P, None), ([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]], H_P, [0.5, 2.0])],
    ),
    ("categorical_hinge", "CategoricalHinge", {}, [(C_T, C_L, None), (C_T2, C_P2, [0.5, 2.0])]),
]

FUNCTION_CASES = [
    ("f_accuracy", "binary_accuracy", {"threshold": 0.3}, P2x3_T, P2x3_P),
    ("f_categorical_accuracy", "categorical_accuracy", {}, K3_T, K3_P),
    ("f_sparse_categorical_accuracy", "sparse_categorical_accuracy", {}, S_T_COL, C_L),
    ("f_top_k", "top_k_categorical_accuracy", {"k": 2}, C_T2, C_P2),
    ("f_sparse_top_k", "sparse_top_k_categorical_accuracy", {"k": 1}, S_T, C_L),
]

# --- what Keras 3.15 computes for them -----------------------------------------------------------

METRIC_EXPECTED = {
    "mean": [2.0, 3.8636363, 6.029412, 5.6982756],
    "mean_scalar": [2.0, 3.0, 2.6666667],
    "mean_col_weights": [2.4285715, 2.4545455],
    "sum": [6.0, 36.5, 66.5, 78.0],
    "mse": [1.1, 0.7895238, 0.9988889],
    "mae": [0.7333333, 0.5212121],
    "mape": [33333450.0, 32500128.0],
    "msle": [0.09959441, 0.1003848],
    "rmse": [1.0488088, 0.7623727, 0.70206046],
    "cosine": [0.826529, 0.7495998],
    "cosine_axis0": [0.94363266],
    "logcosh": [0.3916483, 0.22427802],
    "accuracy": [0.75, 0.73333335, 0.7368421],
    "binary_accuracy": [0.75, 0.73333335, 0.754386],
    "binary_accuracy_thr": [0.6666667, 0.8333334],
    "categorical_accuracy": [0.6666667, 0.5945946, 0.5614035],
    "sparse_categorical_accuracy": [0.6666667, 0.47368422, 0.4805195],
    "top_k": [0.6666667, 0.72727275],
    "top_k2": [1.0, 0.90909094, 0.8666667],
    "sparse_top_k2": [1.0, 0.90909094, 0.9411765],
    "sparse_top_k_sorted": [0.33333334],
    "bce": [0.34391755, 0.29232237],
    "bce_logits_ls": [1.4678618, 0.7216282],
    "cce": [0.9549014, 1.1679896],
    "cce_logits_ls": [0.7639285, 0.89623344],
    "scce": [0.9549014, 1.1679896],
    "scce_logits": [0.6872618, 0.8451309],
    "scce_ignore": [0.187373, 0.27251062],
    "kld": [0.13262878, 0.61181],
    "poisson": [0.9373784, 0.97120816],
    "hinge": [1.0, 0.98888886],
    "squared_hinge": [1.3766665, 1.2877777],
    "categorical_hinge": [0.6333334, 0.8181818],
}
METRIC_FUNCTION_EXPECTED = {
    "f_accuracy": [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
    "f_categorical_accuracy": [[1.0, 0.0], [1.0, 0.0]],
    "f_sparse_categorical_accuracy": [1.0, 1.0, 0.0],
    "f_top_k": [0.0, 1.0],
    "f_sparse_top_k": [1.0, 1.0, 0.0],
}


# --- helpers ---------------------------------------------------------------------------------


def _tolerance(device):
    return dict(rtol=1e-5, atol=1e-6) if device.startswith("GPU") else dict(rtol=1e-6, atol=0)


def _close(got, expected, rtol=1e-6, atol=0.0):
    got = np.asarray(got)
    expected = np.asarray(expected, dtype=got.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def _tensor(value):
    return None if value is None else tf.constant(value)


def _ids(cases):
    return [case[0] for case in cases]


def _update(metric, args):
    *inputs, sample_weight = args
    metric.update_state(*[_tensor(a) for a in inputs], sample_weight=_tensor(sample_weight))


@pytest.fixture
def cpu():
    """Runs the test on the CPU, where the 1e-6 comparison holds."""
    with tf.device("CPU:0"):
        yield


# --- values against Keras --------------------------------------------------------------------


@pytest.mark.parametrize("case", METRIC_CASES, ids=_ids(METRIC_CASES))
def test_metric_updates_match_keras(case, device):
    cid, cls, kwargs, updates = case
    metric = getattr(metrics, cls)(**kwargs)
    tolerance = _tolerance(device)
    for args, expected in zip(updates, METRIC_EXPECTED[cid]):
        _update(metric, args)
        result = metric.result()
        assert result.dtype == tf.float32
        _close(result.numpy(), expected, **tolerance)
    metric.reset_state()
    assert all(float(v.numpy()) == 0.0 for v in metric.variables)
    _close(metric.result().numpy(), 0.0)
    _update(metric, updates[0])  # a reset metric starts over
    _close(metric.result().numpy(), METRIC_EXPECTED[cid][0], **tolerance)


@pytest.mark.parametrize("case", FUNCTION_CASES, ids=_ids(FUNCTION_CASES))
def test_metric_functions_match_keras(case, device):
    cid, fn, kwargs, y_true, y_pred = case
    value = getattr(metrics, fn)(_tensor(y_true), _tensor(y_pred), **kwargs)
    _close(value.numpy(), METRIC_FUNCTION_EXPECTED[cid])


def test_call_updates_then_returns_the_result(cpu):
    metric = metrics.Mean()
    _close(metric([1.0, 2.0, 3.0]).numpy(), 2.0)
    _close(metric(10.0, sample_weight=3.0).numpy(), METRIC_EXPECTED["mean"][2] * 0 + 6.0)
    _close(metric.result().numpy(), 6.0)
    accuracy = metrics.BinaryAccuracy()
    _close(accuracy([[1], [1], [0], [0]], [[0.98], [1.0], [0.0], [0.6]]).numpy(), 0.75)


def test_mean_metric_wrapper_with_a_function_and_a_loss(cpu):
    def absolute_error(y_true, y_pred, scale=1.0):
        return scale * tf.abs(y_true - y_pred)

    metric = metrics.MeanMetricWrapper(absolute_error, name="abs_err", scale=2.0)
    assert metric.name == "abs_err"
    metric.update_state(tf.constant([1.0, 2.0]), tf.constant([1.5, 1.0]))
    _close(metric.result().numpy(), 2.0 * (0.5 + 1.0) / 2)
    # A Loss instance reduces each batch to one value: the metric is its mean over batches.
    loss_metric = metrics.MeanMetricWrapper(losses.MeanSquaredError())
    loss_metric.update_state(R_T, R_P)
    loss_metric.update_state(R_T2, R_P2)
    mse_1 = losses.MeanSquaredError()(R_T, R_P).numpy()
    mse_2 = losses.MeanSquaredError()(R_T2, R_P2).numpy()
    _close(loss_metric.result().numpy(), (mse_1 + mse_2) / 2)


def test_custom_metric_subclass(cpu):
    class BinaryTruePositives(metrics.Metric):
        def __init__(self, name="binary_true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.true_positives = self.add_variable(
                shape=(), initializer="zeros", name="true_positives"
            )

        def update_state(self, y_true, y_pred, sample_weight=None):
            values = tf.logical_and(tf.cast(y_true, tf.bool), tf.cast(y_pred, tf.bool))
            values = tf.cast(values, self.dtype)
            if sample_weight is not None:
                values = values * tf.cast(sample_weight, self.dtype)
            self.true_positives.assign(self.true_positives + tf.reduce_sum(values))

        def result(self):
            return self.true_positives

    metric = BinaryTruePositives()
    metric.update_state([1, 0, 1, 1], [1, 1, 0, 1])
    metric.update_state([1, 1], [1, 1], sample_weight=[0.5, 0.25])
    _close(metric.result().numpy(), 2.75)
    assert metric.variables == [metric.true_positives] or (
        len(metric.variables) == 1 and metric.variables[0] is metric.true_positives
    )
    metric.reset_state()
    _close(metric.result().numpy(), 0.0)


# --- inside tf.function ----------------------------------------------------------------------

_TRACED = ["mean", "sum", "mse", "rmse", "accuracy", "binary_accuracy",
           "categorical_accuracy", "sparse_categorical_accuracy", "sparse_top_k2",
           "cce_logits_ls", "scce_logits", "scce_ignore", "hinge"]  # fmt: skip
_CASES_BY_ID = {case[0]: case for case in METRIC_CASES}


@pytest.mark.parametrize("cid", _TRACED)
def test_metrics_update_inside_tf_function(cid, cpu):
    _, cls, kwargs, updates = _CASES_BY_ID[cid]
    metric = getattr(metrics, cls)(**kwargs)

    @tf.function
    def step(args):
        _update(metric, args)
        return metric.result()

    @tf.function
    def reset():
        metric.reset_state()
        return metric.result()

    for args, expected in zip(updates, METRIC_EXPECTED[cid]):
        _close(step(args).numpy(), expected)
    _close(metric.result().numpy(), METRIC_EXPECTED[cid][-1])  # the variables hold the state
    _close(reset().numpy(), 0.0)
    _close(step(updates[0]).numpy(), METRIC_EXPECTED[cid][0])


def test_metric_made_during_the_first_trace(cpu):
    made = []

    @tf.function
    def step(values):
        if not made:
            made.append(metrics.Mean(name="traced_mean"))
        return made[0](values)

    _close(step(tf.constant([1.0, 2.0, 3.0])).numpy(), 2.0)
    _close(step(tf.constant([10.0, 11.0, 12.0])).numpy(), 6.5)
    assert len(made) == 1 and [v.name for v in made[0].variables] == ["total", "count"]


def test_metric_updates_with_an_unknown_batch_size(cpu):
    mean = metrics.Mean()
    accuracy = metrics.SparseCategoricalAccuracy()

    @tf.function(
        input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([None, 3], tf.float32)]
    )
    def step(y_true, y_pred):
        mean.update_state(y_true, sample_weight=y_true)
        accuracy.update_state(y_true, y_pred)
        return mean.result(), accuracy.result()

    step(tf.constant([1.0, 2.0, 0.0]), tf.constant(C_P))
    m, a = step(tf.constant([2.0]), tf.constant([[0.1, 0.2, 0.7]]))
    _close(m.numpy(), (1 + 4 + 0 + 4) / (1 + 2 + 0 + 2))
    _close(a.numpy(), 3 / 4)
    assert step.experimental_get_tracing_count() == 1


# --- state, tracking and checkpoints ---------------------------------------------------------


def test_state_variables(cpu):
    metric = metrics.Mean(name="loss_mean")
    total, count = metric.variables
    assert total is metric.total and count is metric.count
    for v in metric.variables:
        assert isinstance(v, tf.Variable)
        assert not v.trainable
        assert v.dtype == tf.float32 and v.shape == ()
        assert v.synchronization == tf.VariableSynchronization.ON_READ
        assert v.aggregation == tf.VariableAggregation.SUM
    assert [v.path for v in metric.variables] == ["loss_mean/total", "loss_mean/count"]
    assert len(metrics.Sum().variables) == 1
    assert len(metrics.SparseCategoricalAccuracy().variables) == 2


def test_add_weight_and_initializers(cpu):
    class Custom(metrics.Metric):
        def __init__(self):
            super().__init__(name="custom", dtype="float64")
            self.ones = self.add_variable(shape=(2,), initializer="ones", name="ones")
            self.ints = self.add_weight(shape=(3,), initializer="zeros", dtype="int32")
            self.filled = self.add_variable(
                shape=(2, 2), initializer=lambda shape, dtype: tf.fill(shape, 7.0), name="f"
            )

    metric = Custom()
    assert metric.dtype == "float64"
    _close(metric.ones.numpy(), [1.0, 1.0])
    assert metric.ints.dtype == tf.int32
    _close(metric.filled.numpy(), [[7.0, 7.0], [7.0, 7.0]])
    metric.reset_state()
    _close(metric.ones.numpy(), [0.0, 0.0])
    _close(metric.filled.numpy(), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="initializer"):
        metrics.Mean().add_variable(shape=(), initializer="glorot_unknown")


def test_sub_metrics_are_tracked(cpu):
    class Pair(metrics.Metric):
        def __init__(self):
            super().__init__(name="pair")
            self.first = metrics.Mean(name="first")
            self.second = metrics.Sum(name="second")

        def update_state(self, values):
            self.first.update_state(values)
            self.second.update_state(values)

        def result(self):
            return self.first.result() + self.second.result()

    pair = Pair()
    assert len(pair.variables) == 3
    _close(pair([1.0, 3.0]).numpy(), 2.0 + 4.0)
    pair.reset_state()
    _close(pair.result().numpy(), 0.0)


def test_checkpoint_saves_and_restores_metric_state(tmp_path, cpu):
    metric = metrics.Mean()
    metric.update_state([1.0, 2.0, 3.0, 10.0])
    path = tf.train.Checkpoint(metric=metric).save(tmp_path / "ckpt")
    restored = metrics.Mean()
    tf.train.Checkpoint(metric=restored).restore(path).assert_consumed()
    _close(restored.total.numpy(), 16.0)
    _close(restored.count.numpy(), 4.0)
    _close(restored.result().numpy(), 4.0)


def test_forgetting_super_init_raises():
    class Broken(metrics.Metric):
        def __init__(self):
            self.v = self.add_variable(shape=(), initializer="zeros", name="v")

    with pytest.raises(RuntimeError, match="super"):
        Broken()
    with pytest.raises(NotImplementedError):
        metrics.Metric().update_state([1.0])
    with pytest.raises(NotImplementedError):
        metrics.Metric().result()


# --- errors ----------------------------------------------------------------------------------


def test_mismatched_shapes_raise_like_keras(cpu):
    with pytest.raises(tf.errors.InvalidArgumentError):
        metrics.Accuracy().update_state([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError):
        metrics.MeanSquaredError().update_state([[1.0, 2.0, 3.0]], [[1.0, 2.0]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        metrics.Mean().update_state([1.0, 2.0], sample_weight=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="must have the same shape"):
        metrics.BinaryCrossentropy().update_state([[1.0, 0.0]], [[0.5, 0.5, 0.5]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="valid range"):
        metrics.SparseCategoricalCrossentropy().update_state([3], [[0.2, 0.8]])


# --- names, configs and lookup ---------------------------------------------------------------


def test_names_and_configs():
    assert metrics.Mean().name == "mean"
    assert metrics.MeanSquaredError().name == "mean_squared_error"
    assert metrics.LogCoshError().name == "logcosh"
    assert repr(metrics.Accuracy()) == "<Accuracy name=accuracy>"
    assert metrics.BinaryAccuracy(threshold=0.3).get_config() == {
        "name": "binary_accuracy",
        "dtype": "float32",
        "threshold": 0.3,
    }
    assert metrics.SparseCategoricalCrossentropy().get_config() == {
        "name": "sparse_categorical_crossentropy",
        "dtype": "float32",
        "from_logits": False,
        "ignore_class": None,
        "axis": -1,
    }
    assert metrics.TopKCategoricalAccuracy(k=3).get_config() == {
        "name": "top_k_categorical_accuracy",
        "dtype": "float32",
        "k": 3,
    }
    config = metrics.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1).get_config()
    assert metrics.CategoricalCrossentropy.from_config(config).get_config() == config
    wrapper = metrics.MeanMetricWrapper(losses.mean_squared_error)
    assert wrapper.name.startswith("mean_metric_wrapper")
    assert wrapper.get_config()["fn"] == "mean_squared_error"
    assert metrics.MeanMetricWrapper.from_config(wrapper.get_config())._fn is (
        losses.mean_squared_error
    )


def test_get():
    for name, cls in [
        ("accuracy", metrics.Accuracy),
        ("acc", metrics.Accuracy),
        ("mse", metrics.MeanSquaredError),
        ("MSE", metrics.MeanSquaredError),
        ("mae", metrics.MeanAbsoluteError),
        ("binary_accuracy", metrics.BinaryAccuracy),
        ("categorical_accuracy", metrics.CategoricalAccuracy),
        ("sparse_categorical_accuracy", metrics.SparseCategoricalAccuracy),
        ("SparseCategoricalAccuracy", metrics.SparseCategoricalAccuracy),
        ("mean_squared_error", metrics.MeanSquaredError),
        ("bce", metrics.BinaryCrossentropy),
    ]:
        metric = metrics.get(name)
        assert type(metric) is cls, name
    assert metrics.get("mse") is not metrics.get("mse")  # a fresh instance each time
    instance = metrics.Mean()
    assert metrics.get(instance) is instance
    assert metrics.get(metrics.binary_accuracy) is metrics.binary_accuracy
    assert metrics.get(None) is None
    from_dict = metrics.get({"class_name": "BinaryAccuracy", "config": {"threshold": 0.9}})
    assert isinstance(from_dict, metrics.BinaryAccuracy) and from_dict.threshold == 0.9
    for bad in ("nope", 3.5):
        with pytest.raises(ValueError, match="Could not interpret metric identifier"):
            metrics.get(bad)


def test_serialize_and_deserialize():
    config = metrics.serialize(metrics.SparseTopKCategoricalAccuracy(k=3))
    assert config["class_name"] == "SparseTopKCategoricalAccuracy"
    restored = metrics.deserialize(config)
    assert isinstance(restored, metrics.SparseTopKCategoricalAccuracy) and restored.k == 3
    assert metrics.deserialize(metrics.serialize(metrics.mse)) is metrics.mean_squared_error


def test_function_aliases():
    assert metrics.mse is metrics.MSE is losses.mean_squared_error
    assert metrics.mae is metrics.MAE is losses.mean_absolute_error
    assert metrics.kld is metrics.KLD is losses.kl_divergence
    assert metrics.logcosh is losses.log_cosh
    assert metrics.binary_crossentropy is losses.binary_crossentropy


# --- optional: recompute against an installed Keras ------------------------------------------


def test_parity_with_installed_keras(cpu):
    keras_tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _cid, cls, kwargs, updates in METRIC_CASES:
            theirs = getattr(keras.metrics, cls)(**kwargs)
            ours = getattr(metrics, cls)(**kwargs)
            for *inputs, sample_weight in updates:
                weights = None if sample_weight is None else keras_tf.constant(sample_weight)
                theirs.update_state(*[keras_tf.constant(a) for a in inputs], sample_weight=weights)
                _update(ours, (*inputs, sample_weight))
                _close(ours.result().numpy(), np.asarray(theirs.result()), rtol=1e-6)
