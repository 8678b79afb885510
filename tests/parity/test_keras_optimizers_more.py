"""Keras 3's Adadelta, Adafactor, Adamax, Ftrl, Lamb, Lion, Muon, Nadam, ScheduleFreeAdamW
and LossScaleOptimizer
against TensorFlow 2.21's Keras: variables and every optimizer variable after a few steps from
fixed weights, with dense and `tf.IndexedSlices` gradients, inside a `tf.function`, in `fit`,
with configs and argument errors, on the CPU and GPU."""

import pytest

from ._outcomes import error_classes
from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]

OPTIMIZERS = [
    ("Adadelta", {"learning_rate": 0.5}),
    ("Adamax", {"learning_rate": 0.1}),
    ("Nadam", {"learning_rate": 0.1}),
    ("Lion", {"learning_rate": 0.1}),
    (
        "Ftrl",
        {
            "learning_rate": 0.1,
            "l1_regularization_strength": 0.01,
            "l2_regularization_strength": 0.02,
            "l2_shrinkage_regularization_strength": 0.03,
            "beta": 0.1,
        },
    ),
    ("Lamb", {"learning_rate": 0.1}),
    ("Adafactor", {"learning_rate": 0.1}),
    ("Adafactor", {"learning_rate": 0.1, "relative_step": False}),
    ("Adamax", {"learning_rate": 0.1, "weight_decay": 0.05, "clipnorm": 1.0}),
    ("ScheduleFreeAdamW", {"learning_rate": 0.1}),
    ("ScheduleFreeAdamW", {"learning_rate": 0.1, "warmup_steps": 3, "weight_decay": 0.01}),
]


def _train(tf, device, configs, traced, sparse):
    """Trains a table read by `tf.gather` (sparse: an IndexedSlices gradient with repeated
    rows) and a dense bias; returns the variables and the optimizer's variables."""
    batches = [[0, 2, 0], [3], [2, 2, 1], [1, 0, 1, 1]]
    out = []
    with tf.device(device):
        for name, kwargs in configs:
            optimizer = getattr(tf.keras.optimizers, name)(**kwargs)
            table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32) / 4.0 - 1.0, [4, 3]))
            bias = tf.Variable([0.5, -0.25, 1.0])
            scale = tf.constant([1.0, -2.0, 0.5])

            def step(ids, table=table, bias=bias, scale=scale, optimizer=optimizer):
                with tf.GradientTape() as tape:
                    source = table if sparse else table * 1.0
                    rows = tf.gather(source, ids)
                    loss = tf.reduce_sum((rows * rows * scale + rows) * bias)
                grads = tape.gradient(loss, [table, bias])
                optimizer.apply_gradients(zip(grads, [table, bias]))

            if traced:
                step = tf.function(step)
            for ids in batches:
                step(tf.constant(ids))
            out.append(
                {
                    "config": f"{name} {kwargs}",
                    "table": table.read_value(),
                    "bias": bias.read_value(),
                    "optimizer": [tf.convert_to_tensor(v) for v in optimizer.variables],
                }
            )
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_steps(tf_oracle, device, sparse):
    # atol 5e-6: Nadam's m_hat sums two nearly opposite terms (a 0.02 entry differs by 1e-6).
    assert_parity(tf_oracle, _train, (device, OPTIMIZERS, False, sparse), rtol=1e-5, atol=5e-6)


def test_traced_steps(tf_oracle):
    # Keras cannot build Adafactor inside a tf.function (its add_variable fails there), and
    # ScheduleFreeAdamW built inside one keeps its z slot at zero (the assign in its `build` is
    # not in the retraced function TensorFlow runs): both are left to the eager tests.
    configs = [c for c in OPTIMIZERS if c[0] not in ("Adafactor", "ScheduleFreeAdamW")]
    assert_parity(tf_oracle, _train, ("CPU:0", configs, True, False), rtol=1e-5, atol=1e-6)


def _loss_scaling(tf, device, traced):
    K_opt = tf.keras.optimizers
    out = []
    with tf.device(device):
        optimizer = K_opt.LossScaleOptimizer(
            K_opt.Adam(0.1), initial_scale=4.0, dynamic_growth_steps=2
        )
        w = tf.Variable([1.0, 2.0])

        def step(g):
            optimizer.apply_gradients([(g, w)])

        if traced:
            step = tf.function(step)
        for g in ([1.0, 2.0], [float("inf"), 1.0], [4.0, 4.0], [2.0, float("nan")], [8.0, 8.0]):
            step(tf.constant(g))
            out.append(
                [
                    w.read_value(),
                    [tf.convert_to_tensor(v) for v in optimizer.variables],
                    optimizer.scale_loss(tf.constant(1.0)),
                    optimizer.iterations,
                ]
            )
        config = optimizer.get_config()
        out.append(config)
        clone = K_opt.LossScaleOptimizer.from_config(config)
        out.append([type(clone.inner_optimizer).__name__, clone.initial_scale])
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_loss_scale_optimizer(tf_oracle, device):
    assert_parity(tf_oracle, _loss_scaling, (device, False), rtol=1e-5, atol=1e-6)


def test_loss_scale_optimizer_traced(tf_oracle):
    assert_parity(tf_oracle, _loss_scaling, ("CPU:0", True), rtol=1e-5, atol=1e-6)


def _fit_configs_and_errors(tf, device):
    import numpy as np

    K_opt = tf.keras.optimizers
    rng = np.random.RandomState(0)
    x = rng.rand(16, 3).astype("float32")
    y = rng.rand(16, 2).astype("float32")
    out = []
    with tf.device(device):
        for optimizer in (
            K_opt.Nadam(0.05),
            K_opt.Lion(0.01),
            K_opt.LossScaleOptimizer(K_opt.SGD(0.1), initial_scale=8.0),
            K_opt.Muon(0.05),
            K_opt.Muon(0.05, nesterov=False, rms_rate=None, exclude_layers=["bias"]),
            K_opt.Muon(0.05, exclude_layers=["kernel"], adam_lr_ratio=0.5),
        ):
            model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
            model.set_weights(
                [np.arange(6, dtype="float32").reshape(3, 2) / 6.0, np.zeros(2, "float32")]
            )
            model.compile(optimizer=optimizer, loss="mse")
            history = model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
            variables = [tf.convert_to_tensor(v) for v in model.optimizer.variables]
            out.append([history.history["loss"], model.get_weights(), variables])
    names = [
        "Adadelta",
        "Adafactor",
        "Adamax",
        "Ftrl",
        "Lamb",
        "Lion",
        "Nadam",
        "ScheduleFreeAdamW",
    ]
    for name in names:
        optimizer = getattr(K_opt, name)()
        out.append([optimizer.name, optimizer.get_config()])
        if name != "Lamb":  # Keras's deserialize gives a str for Lamb's config
            out.append(type(K_opt.deserialize(K_opt.serialize(optimizer))).__name__)
    out.append(error_classes([lambda name=name: K_opt.get(name.lower()) for name in names]))
    out.append(
        error_classes(
            [
                lambda: K_opt.Lion(beta_1=0.0),
                lambda: K_opt.Ftrl(learning_rate_power=0.5),
                lambda: K_opt.Ftrl(initial_accumulator_value=-1.0),
                lambda: K_opt.Ftrl(l2_shrinkage_regularization_strength=-1.0),
                lambda: K_opt.LossScaleOptimizer(K_opt.SGD(), dynamic=False),
                lambda: K_opt.LossScaleOptimizer(K_opt.SGD(), clipnorm=1.0),
                lambda: K_opt.LossScaleOptimizer(K_opt.SGD(), foo=1),
                lambda: K_opt.Nadam(foo=1),
            ]
        )
    )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_fit_configs_and_errors(tf_oracle, device):
    assert_parity(
        tf_oracle, _fit_configs_and_errors, (device,), rtol=1e-5, atol=1e-6, helpers=[error_classes]
    )


def _multi_optimizer(tf, device):
    import numpy as np

    K_opt = tf.keras.optimizers
    rng = np.random.RandomState(0)
    x = rng.rand(16, 3).astype("float32")
    y = rng.rand(16, 2).astype("float32")
    with tf.device(device):
        model = tf.keras.Sequential(
            [
                tf.keras.Input((3,)),
                tf.keras.layers.Dense(4, name="first"),
                tf.keras.layers.Dense(2, name="second"),
            ]
        )
        weights = [np.arange(12, dtype="float32").reshape(3, 4) / 12, np.zeros(4, "float32")]
        weights += [np.arange(8, dtype="float32").reshape(4, 2) / 8 - 0.5, np.ones(2, "float32")]
        model.set_weights(weights)
        # ".*" prefixes: Keras's paths of a Sequential's variables start with its name.
        mapping = K_opt.OptimizerMap(
            K_opt.SGD(0.1), {".*first/.*": K_opt.Adam(0.05), ".*second/bias": K_opt.RMSprop(0.01)}
        )
        optimizer = K_opt.MultiOptimizer(mapping)
        model.compile(optimizer=optimizer, loss="mse")
        history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    out = [history.history, model.get_weights()]
    out.append([tf.convert_to_tensor(v) for v in optimizer.variables])
    out.append([type(o).__name__ for o in optimizer.optimizers])
    config = optimizer.get_config()
    out.append(sorted(config))
    out.append(type(K_opt.MultiOptimizer.from_config(config)).__name__)
    out.append(
        error_classes(
            [
                lambda: optimizer.learning_rate,
                lambda: K_opt.OptimizerMap("sgd"),
                lambda: K_opt.OptimizerMap(K_opt.SGD(), [1]),
                lambda: mapping.__setitem__(".*first/.*", K_opt.SGD()),
                lambda: mapping.__setitem__("x", K_opt.LossScaleOptimizer(K_opt.SGD())),
                lambda: mapping.__setitem__("y", "sgd"),
            ]
        )
    )
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_multi_optimizer(tf_oracle, device):
    assert_parity(
        tf_oracle, _multi_optimizer, (device,), rtol=1e-5, atol=1e-6, helpers=[error_classes]
    )
