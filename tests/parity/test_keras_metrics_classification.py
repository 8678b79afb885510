"""Keras 3's threshold, AUC, F-score, IoU, R2 and correlation metrics against TensorFlow 2.21's
Keras: results after several weighted `update_state` calls (eager and inside a `tf.function`),
configs, `get` by name, a metric in `fit`, and argument errors, on the CPU and GPU."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _metrics(tf):
    M = tf.keras.metrics
    return [
        M.TruePositives(),
        M.FalsePositives(thresholds=[0.2, 0.5]),
        M.TrueNegatives(thresholds=[0.0, 0.5, 1.0]),
        M.FalseNegatives(),
        M.Precision(),
        M.Precision(top_k=2),
        M.Precision(class_id=1, thresholds=[0.3, 0.6]),
        M.Recall(top_k=1, class_id=2),
        M.SensitivityAtSpecificity(0.5),
        M.SpecificityAtSensitivity(0.6, num_thresholds=1),
        M.PrecisionAtRecall(0.7, num_thresholds=11),
        M.RecallAtPrecision(0.5, class_id=0),
        M.AUC(),
        M.AUC(curve="PR"),
        M.AUC(curve="PR", summation_method="minoring"),
        M.AUC(summation_method="majoring", num_thresholds=7),
        M.AUC(curve="PRGAIN"),
        M.AUC(multi_label=True),
        M.AUC(multi_label=True, label_weights=[1.0, 2.0, 0.5], curve="PR"),
        M.AUC(from_logits=True, thresholds=[0.3, 0.5, 0.9]),
        M.AUC(label_weights=[1.0, 2.0, 0.5]),
        M.F1Score(),
        M.F1Score(average="macro", threshold=0.4),
        M.FBetaScore(average="weighted", beta=2.0),
        M.FBetaScore(average="micro", beta=0.5, threshold=0.5),
        M.R2Score(),
        M.R2Score(class_aggregation="variance_weighted_average"),
        M.R2Score(class_aggregation=None, num_regressors=2),
        M.PearsonCorrelation(),
        M.ConcordanceCorrelation(),
    ]


def _results(tf, device, traced):
    import numpy as np

    rng = np.random.RandomState(0)
    y_true = (rng.rand(3, 8, 3) > 0.5).astype("float32")
    y_pred = rng.rand(3, 8, 3).astype("float32")
    y_pred[0, :3, 0] = [0.5, 0.0, 1.0]
    weights = rng.rand(3, 8).astype("float32")
    out = [type(tf.keras.metrics.FalsePositives([0.2, 0.4]).result()).__name__]
    with tf.device(device):
        for metric in _metrics(tf):

            def update(t, p, w, metric=metric):
                metric.update_state(t, p, sample_weight=w)

            if traced:
                update = tf.function(update)
            for i in range(3):
                update(tf.constant(y_true[i]), tf.constant(y_pred[i]), tf.constant(weights[i]))
            # A count metric's result is its variable: converted, it is this step's value.
            out.append((metric.name, tf.convert_to_tensor(metric.result())))
            if not traced:
                config = metric.get_config()
                config.pop("label_weights", None)
                out.append(config)
                metric.reset_state()
                metric.update_state(y_true[0], y_pred[0])
                out.append(tf.convert_to_tensor(metric.result()))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_threshold_auc_fscore_r2_correlation(tf_oracle, device):
    assert_parity(tf_oracle, _results, (device, False), rtol=1e-5, atol=1e-6, helpers=[_metrics])


def test_traced_updates(tf_oracle):
    assert_parity(tf_oracle, _results, ("CPU:0", True), rtol=1e-5, atol=1e-6, helpers=[_metrics])


def _iou(tf, device):
    import numpy as np

    rng = np.random.RandomState(1)
    labels = rng.randint(0, 3, size=(3, 10))
    predicted = rng.randint(0, 3, size=(3, 10))
    predicted[0, 0] = 5
    scores = rng.rand(3, 10, 3).astype("float32")
    M = tf.keras.metrics
    out = []
    with tf.device(device):
        for metric in (M.IoU(3, [0, 2]), M.MeanIoU(3, ignore_class=1)):
            for i in range(3):
                weights = (predicted[i] % 2 + 1) if i else None
                metric.update_state(labels[i], predicted[i], sample_weight=weights)
            out += [metric.result(), metric.get_config(), metric.dtype]
        binary = M.BinaryIoU(threshold=0.3)
        for i in range(3):
            binary.update_state((labels[i] > 0).astype("int32"), scores[i, :, 0], labels[i] + 1)
        out += [binary.result(), binary.get_config()]
        for metric in (M.OneHotIoU(3, [1]), M.OneHotMeanIoU(3)):
            for i in range(3):
                metric.update_state(np.eye(3)[labels[i]], scores[i])
            out += [metric.result(), metric.get_config()]
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_iou_metrics(tf_oracle, device):
    assert_parity(tf_oracle, _iou, (device,), rtol=1e-5, atol=1e-6)


def _functions_get_and_fit(tf):
    import numpy as np

    rng = np.random.RandomState(2)
    a = rng.rand(4, 5).astype("float32")
    b = rng.rand(4, 5).astype("float32")
    M = tf.keras.metrics
    out = [M.pearson_correlation(a, b), M.concordance_correlation(a, b, axis=0)]
    for name in ("AUC", "Precision", "recall", "f1_score", "R2Score", "PearsonCorrelation"):
        out.append(type(M.get(name)).__name__)
    x = rng.rand(16, 3).astype("float32")
    y = (x.sum(axis=1, keepdims=True) > 1.5).astype("float32")
    model = tf.keras.Sequential(
        [tf.keras.Input((3,)), tf.keras.layers.Dense(1, activation="sigmoid")]
    )
    model.set_weights([np.array([[0.5], [-0.25], [1.0]], "float32"), np.zeros(1, "float32")])
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.1),
        loss="binary_crossentropy",
        metrics=[M.AUC(name="auc"), M.Precision(name="p"), M.Recall(name="r")],
    )
    history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    out.append(history.history)
    return out


def test_functions_get_and_fit(tf_oracle):
    assert_parity(tf_oracle, _functions_get_and_fit, (), rtol=1e-5, atol=1e-6)


def _errors(tf):
    M = tf.keras.metrics
    makers = [
        lambda: M.Precision(thresholds=[1.5]),
        lambda: M.AUC(num_thresholds=1),
        lambda: M.AUC(curve="XY"),
        lambda: M.AUC(summation_method="avg"),
        lambda: M.AUC(num_labels=3),
        lambda: M.SensitivityAtSpecificity(1.5),
        lambda: M.PrecisionAtRecall(0.5, num_thresholds=0),
        lambda: M.FBetaScore(beta=1),
        lambda: M.FBetaScore(average="sum"),
        lambda: M.F1Score(threshold=1.5),
        lambda: M.IoU(2, [0, 3]),
        lambda: M.R2Score(class_aggregation="x"),
        lambda: M.R2Score(num_regressors=-1),
        lambda: M.F1Score().update_state([1.0, 0.0], [0.3, 0.2]),
        lambda: M.Precision(class_id=0).update_state([1.0, 0.0], [0.3, 0.2]),
    ]
    return error_classes(makers)


def test_errors(tf_oracle):
    assert_parity(tf_oracle, _errors, (), helpers=[error_classes])
