"""`tf.keras.optimizers` (ferroflow.keras.optimizers) against Keras 3.15 as TensorFlow 2.21
ships it.

Every number below was produced by TensorFlow 2.21 / Keras 3.15 (`tf.keras.optimizers`) from
the same initial weights and gradient sequences, and is hard-coded: TensorFlow is not needed to
run these tests. `test_parity_with_installed_tensorflow` recomputes the trajectories live (in a
child process) when TensorFlow happens to be importable, and skips otherwise.
"""

import importlib.util
import json
import re
import subprocess
import sys

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.keras import optimizers
from ferroflow.keras.optimizers import schedules

TOL = dict(rtol=1e-5, atol=1e-5)

# The weights every trajectory starts from, and the gradients of its four steps.
W0 = [[1.0, -2.0, 3.0], [0.5, -0.5, 2.5]]
B0 = [0.1, -0.2, 0.3]
GW = [
    [[0.1, -0.2, 0.3], [0.4, 0.0, -0.6]],
    [[-0.5, 0.25, 1.5], [0.05, -0.3, 0.2]],
    [[0.3, 0.3, -0.1], [-1.0, 0.7, 0.0]],
    [[2.0, -0.4, 0.6], [0.1, 0.2, -0.3]],
]
GB = [
    [0.5, -1.0, 0.0],
    [0.2, 0.1, -0.3],
    [-0.7, 0.4, 0.9],
    [0.05, -0.05, 1.2],
]

# Each case is an expression over the names of `tf.keras.optimizers`, so that the optional
# parity test can evaluate the very same text with TensorFlow's Keras.
CASES = {
    "sgd": "SGD(learning_rate=0.1)",
    "sgd_momentum": "SGD(learning_rate=0.1, momentum=0.9)",
    "sgd_nesterov": "SGD(learning_rate=0.1, momentum=0.9, nesterov=True)",
    "sgd_weight_decay": "SGD(learning_rate=0.1, momentum=0.5, weight_decay=0.05)",
    "sgd_clipnorm": "SGD(learning_rate=0.1, clipnorm=0.5)",
    "sgd_global_clipnorm": "SGD(learning_rate=0.1, momentum=0.9, global_clipnorm=1.0)",
    "sgd_loss_scale": "SGD(learning_rate=0.1, loss_scale_factor=4.0)",
    "sgd_piecewise": (
        "SGD(learning_rate=schedules.PiecewiseConstantDecay([1, 2], [0.1, 0.05, 0.01]), "
        "momentum=0.9)"
    ),
    "sgd_inverse_time": "SGD(learning_rate=schedules.InverseTimeDecay(0.1, 1, 0.5))",
    "sgd_ema": (
        "SGD(learning_rate=0.1, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3)"
    ),
    "adam": "Adam(learning_rate=0.1)",
    "adam_amsgrad": "Adam(learning_rate=0.1, beta_1=0.8, beta_2=0.9, amsgrad=True)",
    "adam_clipvalue": "Adam(learning_rate=0.05, clipvalue=0.25)",
    "adam_exponential_decay": (
        "Adam(learning_rate=schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True))"
    ),
    "adam_weight_decay": "Adam(learning_rate=0.05, weight_decay=0.1)",
    "adam_gradient_accumulation": (
        "Adam(learning_rate=0.1, weight_decay=0.05, gradient_accumulation_steps=2)"
    ),
    "adamw": "AdamW(learning_rate=0.05, weight_decay=0.1)",
    "adamw_amsgrad": "AdamW(learning_rate=0.05, weight_decay=0.2, amsgrad=True, epsilon=1e-3)",
    "adamw_cosine_warmup": (
        "AdamW(learning_rate=schedules.CosineDecay(0.0, 2, warmup_target=0.1, warmup_steps=2), "
        "weight_decay=0.1)"
    ),
    "rmsprop": "RMSprop(learning_rate=0.01)",
    "rmsprop_momentum": "RMSprop(learning_rate=0.01, rho=0.8, momentum=0.5)",
    "rmsprop_centered": "RMSprop(learning_rate=0.01, momentum=0.9, centered=True)",
    "rmsprop_polynomial": (
        "RMSprop(learning_rate=schedules.PolynomialDecay(0.05, 3, end_learning_rate=0.01, "
        "power=2.0), weight_decay=0.1)"
    ),
    "adagrad": "Adagrad(learning_rate=0.1)",
    "adagrad_options": (
        "Adagrad(learning_rate=0.5, initial_accumulator_value=0.01, epsilon=1e-3, clipnorm=1.0)"
    ),
}


def _make(name):
    return eval(CASES[name], dict(vars(optimizers)))


# (w, b) after the four steps, from TensorFlow 2.21 / Keras 3.15.
EXPECTED = {
    "sgd": ([[0.81, -1.9950001, 2.77], [0.545, -0.56, 2.57]], [0.095, -0.14500001, 0.120000005]),
    "sgd_momentum": (
        [[0.84410995, -2.01597, 2.4493299], [0.52889, -0.5717, 2.6821399]],
        [0.0018500113, 0.045799986, 0.09030002],
    ),
    "sgd_nesterov": (
        [[0.66969895, -2.009373, 2.2743971], [0.571001, -0.62453, 2.733926]],
        [0.006665014, 0.076219976, -0.06872997],
    ),
    "sgd_weight_decay": (
        [[0.80363727, -1.9715104, 2.5791545], [0.5467336, -0.562599, 2.5568533]],
        [0.07022258, -0.082821414, 0.09162061],
    ),
    "sgd_clipnorm": (
        [[0.9511771, -1.9976131, 2.925811], [0.5101185, -0.5224983, 2.5377848]],
        [0.084525794, -0.17975104, 0.24284433],
    ),
    "sgd_global_clipnorm": (
        [[0.94248015, -2.0064483, 2.6703618], [0.49559355, -0.5348655, 2.629254]],
        [0.016423855, -0.008123444, 0.20321763],
    ),
    "sgd_loss_scale": (
        [[0.9524999, -1.99875, 2.9425], [0.51125, -0.515, 2.5175]],
        [0.098749995, -0.18625, 0.255],
    ),
    "sgd_piecewise": (
        [[1.05261, -2.0234702, 2.49383], [0.44289, -0.4872, 2.65514]],
        [-0.060149986, 0.07929999, 0.2838],
    ),
    "sgd_inverse_time": (
        [[0.92833334, -1.9956667, 2.8510003], [0.50266665, -0.523, 2.5586667]],
        [0.06966667, -0.12466667, 0.22700003],
    ),
    "sgd_ema": (
        [[0.7965, -1.94775, 2.8825], [0.45905, -0.52129996, 2.5862]],
        [0.0482, -0.1009, 0.17670003],
    ),
    "adam": (
        [[0.9132927, -1.9619688, 2.6829762], [0.38679814, -0.5050043, 2.7187812]],
        [-0.07801626, -0.0036579482, 0.26484716],
    ),
    "adam_amsgrad": (
        [[0.90769047, -1.9699816, 2.688417], [0.40116143, -0.5117134, 2.709115]],
        [-0.062591046, -0.024418576, 0.25690472],
    ),
    "adam_clipvalue": (
        [[0.9402997, -1.9846922, 2.835867], [0.40240696, -0.4809777, 2.5744987]],
        [-0.021855976, -0.15046452, 0.31665254],
    ),
    "adam_exponential_decay": (
        [[0.9365654, -1.939122, 2.748437], [0.35553932, -0.46529606, 2.6794007]],
        [-0.083935514, -0.022197437, 0.3196297],
    ),
    "adam_weight_decay": (
        [[0.937225, -1.9418162, 2.7832677], [0.43450424, -0.49285784, 2.5587416]],
        [0.010180422, -0.098947994, 0.27620336],
    ),
    "adam_gradient_accumulation": (
        [[1.0276845, -2.042929, 2.7860925], [0.4321243, -0.4449334, 2.6728156]],
        [0.0010624416, -0.063044, 0.33231044],
    ),
    "adamw": (
        [[0.937225, -1.9418162, 2.7832677], [0.43450424, -0.49285784, 2.5587416]],
        [0.010180422, -0.098947994, 0.27620336],
    ),
    "adamw_amsgrad": (
        [[0.92825294, -1.9075627, 2.73268], [0.43111867, -0.4852882, 2.5037086]],
        [0.014514409, -0.0990149, 0.26795456],
    ),
    "adamw_cosine_warmup": (
        [[0.99001133, -2.0172825, 2.8016925], [0.50253516, -0.51097596, 2.5247178]],
        [0.063794225, -0.13893361, 0.2549049],
    ),
    "rmsprop": (
        [[0.95222497, -1.9936787, 2.9268577], [0.49085233, -0.50616944, 2.5364325]],
        [0.08007723, -0.18279421, 0.2761276],
    ),
    "rmsprop_momentum": (
        [[0.9563861, -1.9980854, 2.9121554], [0.48220843, -0.49857914, 2.5405102]],
        [0.06901871, -0.17595929, 0.28866968],
    ),
    "rmsprop_centered": (
        [[0.90874416, -1.9757612, 2.7854068], [0.42781284, -0.47502488, 2.6017585]],
        [-0.003576845, -0.11740857, 0.30440804],
    ),
    "rmsprop_polynomial": (
        [[0.864005, -1.9021914, 2.7165706], [0.36594388, -0.45804936, 2.6180642]],
        [-0.05687708, -0.06662407, 0.31571767],
    ),
    "adagrad": (
        [[0.91365176, -1.9981098, 2.8057432], [0.4919285, -0.539633, 2.5992377]],
        [0.052756738, -0.14520717, 0.20200258],
    ),
    "adagrad_options": (
        [[0.36616126, -1.930391, 1.9578465], [0.39363837, -0.611058, 3.0036323]],
        [-0.23531345, 0.091371164, -0.07620138],
    ),
    "adam_missing_gradient": (
        [[0.9132927, -1.9619688, 2.6829762], [0.38679814, -0.5050043, 2.7187812]],
        [0.030379344, -0.04335832, 0.15823482],
    ),
    "adamw_exclude_bias": (
        [[0.8624208, -1.7909545, 2.559112], [0.40030196, -0.45573226, 2.363579]],
        [0.010991873, -0.10182898, 0.28242362],
    ),
    "rmsprop_float64": (
        [[0.9087441, -1.975761, 2.7854068], [0.42781284, -0.47502488, 2.6017587]],
        [-0.0035768494, -0.11740859, 0.30440804],
    ),
}


def _variables(dtype=np.float32):
    return tf.Variable(np.array(W0, dtype), name="w"), tf.Variable(np.array(B0, dtype), name="b")


def _grads(step, dtype=np.float32):
    return tf.constant(np.array(GW[step], dtype)), tf.constant(np.array(GB[step], dtype))


def _train(optimizer, mode, dtype=np.float32, missing_b_step=None):
    """Four steps of ``optimizer`` on (w, b): eagerly, through `apply_gradients` inside a
    `tf.function`, or inside a `tf.function` that computes the gradients with a tape."""
    w, b = _variables(dtype)

    def apply(gw, gb):
        optimizer.apply_gradients(zip([gw, gb], [w, b]))

    def taped(gw, gb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * gw) + tf.reduce_sum(b * gb)  # d/dw = gw, d/db = gb
        optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))

    step = {"eager": apply, "function": tf.function(apply), "tape": tf.function(taped)}[mode]
    for t in range(4):
        gw, gb = _grads(t, dtype)
        step(gw, None if t == missing_b_step else gb)
    if mode != "eager":  # slots are made by the first trace; a None gradient is a new trace
        assert step.experimental_get_tracing_count() == (1 if missing_b_step is None else 2)
    return w.numpy(), b.numpy()


def _assert_trajectory(name, w, b):
    expected_w, expected_b = EXPECTED[name]
    np.testing.assert_allclose(w, expected_w, **TOL)
    np.testing.assert_allclose(b, expected_b, **TOL)


# --- numerics against Keras ----------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_updates_match_keras(name):
    _assert_trajectory(name, *_train(_make(name), "eager"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_apply_gradients_inside_tf_function_matches_keras(name):
    _assert_trajectory(name, *_train(_make(name), "function"))


@pytest.mark.parametrize("name", ["sgd_nesterov", "adam_gradient_accumulation", "rmsprop_centered"])
def test_updates_match_keras_on_each_device(device, name):
    _assert_trajectory(name, *_train(_make(name), "function"))


@pytest.mark.parametrize("name", ["sgd_momentum", "adam_amsgrad", "rmsprop_centered", "adagrad"])
def test_tape_train_step_inside_tf_function_matches_keras(name):
    _assert_trajectory(name, *_train(_make(name), "tape"))


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_missing_gradient_skips_that_variable_only(mode):
    optimizer = optimizers.Adam(learning_rate=0.1)
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):
        w, b = _train(optimizer, mode, missing_b_step=1)
    _assert_trajectory("adam_missing_gradient", w, b)
    assert int(optimizer.iterations.numpy()) == 4


def test_exclude_from_weight_decay_by_name_matches_keras():
    optimizer = optimizers.AdamW(learning_rate=0.05, weight_decay=0.5)
    optimizer.exclude_from_weight_decay(var_names=["b"])
    _assert_trajectory("adamw_exclude_bias", *_train(optimizer, "eager"))


def test_exclude_from_weight_decay_by_variable():
    w, b = _variables()
    optimizer = optimizers.SGD(learning_rate=0.1, weight_decay=0.5)
    optimizer.exclude_from_weight_decay(var_list=[b])
    optimizer.apply_gradients(zip([tf.zeros([2, 3]), tf.zeros([3])], [w, b]))
    np.testing.assert_allclose(w.numpy(), np.array(W0) * (1 - 0.5 * 0.1), **TOL)
    np.testing.assert_allclose(b.numpy(), B0, **TOL)


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_float64_variables_match_keras(mode):
    optimizer = optimizers.RMSprop(learning_rate=0.01, momentum=0.9, centered=True)
    w, b = _train(optimizer, mode, dtype=np.float64)
    assert w.dtype == np.float64 and b.dtype == np.float64
    _assert_trajectory("rmsprop_float64", w, b)
    assert all(v.dtype == tf.float64 for v in optimizer.variables[2:])


def test_minimize_callable_loss_matches_keras_docstring():
    # Keras's RMSprop docstring example.
    optimizer = optimizers.RMSprop(learning_rate=0.1)
    var1 = tf.Variable(10.0)
    optimizer.minimize(lambda: (var1**2) / 2.0, [var1])
    np.testing.assert_allclose(var1.numpy(), 9.683772, **TOL)
    assert int(optimizer.iterations.numpy()) == 1


def test_minimize_three_adam_steps_matches_keras():
    v = tf.Variable([1.0, -2.0])
    optimizer = optimizers.Adam(learning_rate=0.1)
    for _ in range(3):
        result = optimizer.minimize(
            lambda: tf.reduce_sum(tf.square(v - tf.constant([3.0, 1.0]))), [v]
        )
    np.testing.assert_allclose(v.numpy(), [1.2993743, -1.7003835], **TOL)
    assert result is optimizer.iterations
    assert int(optimizer.iterations.numpy()) == 3


def test_minimize_tensor_loss_uses_the_given_tape():
    v = tf.Variable([1.0, 2.0])
    optimizer = optimizers.SGD(learning_rate=0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v)
    optimizer.minimize(loss, [v], tape=tape)
    np.testing.assert_allclose(v.numpy(), [0.8, 1.6], **TOL)


def test_minimize_tensor_loss_without_tape_raises_value_error():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="`tape` is required when a `Tensor` loss is passed"):
        optimizers.SGD().minimize(tf.reduce_sum(v), [v])


def test_minimize_inside_tf_function():
    v = tf.Variable([1.0, -2.0])
    optimizer = optimizers.Adam(learning_rate=0.1)

    @tf.function
    def step():
        optimizer.minimize(lambda: tf.reduce_sum(tf.square(v - tf.constant([3.0, 1.0]))), [v])

    for _ in range(3):
        step()
    np.testing.assert_allclose(v.numpy(), [1.2993743, -1.7003835], **TOL)


def test_indexed_slices_gradients_match_keras_for_unique_indices():
    e = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    optimizer = optimizers.Adam(learning_rate=0.1)
    for values, indices in [
        ([[1.0, 1.0], [0.5, -0.5]], [0, 2]),
        ([[2.0, -1.0]], [0]),
        ([[1.0, 1.0]], [1]),
    ]:
        grad = tf.IndexedSlices(tf.constant(values), tf.constant(indices), [3, 2])
        optimizer.apply_gradients([(grad, e)])
    expected = [[0.7288755, 1.9093325], [2.936119, 3.936119], [4.781202, 6.218798]]
    np.testing.assert_allclose(e.numpy(), expected, **TOL)


# --- iterations, learning rate, variables ----------------------------------------------------


def test_iterations_is_an_int64_variable_counting_applies():
    w, b = _variables()
    optimizer = optimizers.Adam(learning_rate=1.0)
    assert isinstance(optimizer.iterations, tf.Variable)
    assert optimizer.iterations.dtype == tf.int64
    assert int(optimizer.iterations.numpy()) == 0
    returned = optimizer.apply_gradients(zip(_grads(0), [w, b]))
    assert returned is optimizer.iterations
    optimizer.apply(list(_grads(1)))  # built: the variables default to those it was built with
    assert int(optimizer.iterations.numpy()) == 2


def test_empty_apply_is_a_no_op():
    optimizer = optimizers.SGD()
    assert optimizer.apply([]) is None
    assert int(optimizer.iterations.numpy()) == 0
    with pytest.raises(ValueError):
        optimizer.apply_gradients([])


def test_float_learning_rate_is_a_settable_variable():
    optimizer = optimizers.SGD(learning_rate=0.1)
    assert isinstance(optimizer.learning_rate, tf.Variable)
    # Keras 3's names: the bare name, and the optimizer's scope in the path.
    assert optimizer.learning_rate.name == "learning_rate"
    assert optimizer.learning_rate.path == f"{optimizer.name}/learning_rate"
    np.testing.assert_allclose(optimizer.learning_rate.numpy(), 0.1, **TOL)
    optimizer.learning_rate = 0.5
    np.testing.assert_allclose(optimizer.learning_rate.numpy(), 0.5, **TOL)
    assert optimizer.get_config()["learning_rate"] == 0.5
    w = tf.Variable([1.0])
    optimizer.apply_gradients([(tf.constant([1.0]), w)])
    np.testing.assert_allclose(w.numpy(), [0.5], **TOL)


def test_learning_rate_set_between_tf_function_calls_takes_effect():
    w = tf.Variable([1.0])
    optimizer = optimizers.SGD(learning_rate=0.1)

    @tf.function
    def step():
        optimizer.apply_gradients([(tf.constant([1.0]), w)])

    step()
    optimizer.learning_rate = 0.5
    step()
    np.testing.assert_allclose(w.numpy(), [0.4], **TOL)
    assert step.experimental_get_tracing_count() == 1


def test_schedule_learning_rate_is_evaluated_at_iterations():
    optimizer = optimizers.SGD(learning_rate=schedules.ExponentialDecay(0.1, 2, 0.5))
    np.testing.assert_allclose(optimizer.learning_rate.numpy(), 0.1, **TOL)
    v = tf.Variable([1.0, -2.0])
    for _ in range(3):
        optimizer.apply_gradients([(tf.constant([1.0, 1.0]), v)])
    np.testing.assert_allclose(optimizer.learning_rate.numpy(), 0.03535534, **TOL)
    assert len(optimizer.variables) == 1  # iterations only: no learning-rate variable
    with pytest.raises(TypeError, match="learning rate is not settable"):
        optimizer.learning_rate = 0.3


def test_setting_a_schedule_untracks_the_learning_rate_variable():
    optimizer = optimizers.Adam(learning_rate=0.001)
    assert len(optimizer.variables) == 2
    optimizer.learning_rate = schedules.PolynomialDecay(0.001, 4)
    assert len(optimizer.variables) == 1
    np.testing.assert_allclose(optimizer.learning_rate.numpy(), 0.001, **TOL)


def test_callable_learning_rate():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    optimizer = optimizers.SGD(learning_rate=lambda: 0.1)
    optimizer.apply_gradients([(tf.ones([2, 2]), v)])
    np.testing.assert_allclose(v.numpy(), [[0.9, 1.9], [2.9, 3.9]], **TOL)


def test_slot_variables_are_named_and_ordered_like_keras():
    w, b = _variables()
    optimizer = optimizers.Adam(amsgrad=True, name="adam")
    assert [v.path for v in optimizer.variables] == ["adam/iteration", "adam/learning_rate"]
    optimizer.apply_gradients(zip(_grads(0), [w, b]))
    assert [v.path for v in optimizer.variables] == [
        "adam/iteration",
        "adam/learning_rate",
        "adam/w_0_momentum",
        "adam/w_0_velocity",
        "adam/b_0_momentum",
        "adam/b_0_velocity",
        "adam/w_0_velocity_hat",
        "adam/b_0_velocity_hat",
    ]
    assert all(isinstance(v, tf.Variable) and not v.trainable for v in optimizer.variables)


@pytest.mark.parametrize(
    "factory, slots",
    [
        (lambda: optimizers.SGD(), []),
        (lambda: optimizers.SGD(momentum=0.9), ["w_0_momentum"]),
        (lambda: optimizers.RMSprop(), ["w_0_velocity"]),
        (
            lambda: optimizers.RMSprop(momentum=0.5, centered=True),
            ["w_0_velocity", "w_0_momentum", "w_0_average_gradient"],
        ),
        (lambda: optimizers.Adagrad(), ["w_0_accumulator"]),
        (lambda: optimizers.AdamW(), ["w_0_momentum", "w_0_velocity"]),
        (
            lambda: optimizers.SGD(use_ema=True, gradient_accumulation_steps=2),
            ["w_0_average", "w_0_gradient_accumulator"],
        ),
    ],
)
def test_slots_are_created_by_the_first_apply(factory, slots):
    w = tf.Variable(np.ones([2, 3], np.float32), name="w")
    optimizer = factory()
    assert not optimizer.built
    optimizer.apply_gradients([(tf.ones([2, 3]), w)])
    assert optimizer.built
    names = [v.name for v in optimizer.variables[2:]]
    assert names == slots


def test_adagrad_accumulators_start_at_initial_value():
    w = tf.Variable(np.ones([2], np.float32), name="w")
    optimizer = optimizers.Adagrad(initial_accumulator_value=0.25)
    optimizer.build([w])
    np.testing.assert_allclose(optimizer.variables[-1].numpy(), [0.25, 0.25])


def test_optimizers_are_auto_named_like_keras():
    first, second = optimizers.Adam(), optimizers.Adam()
    assert first.name != second.name
    assert re.fullmatch(r"adam(_\d+)?", first.name) and re.fullmatch(r"adam_\d+", second.name)
    assert re.fullmatch(r"adam_w(_\d+)?", optimizers.AdamW().name)
    assert re.fullmatch(r"rm_sprop(_\d+)?", optimizers.RMSprop().name)
    assert optimizers.SGD(name="mine").name == "mine"


def test_set_weights_copies_another_optimizers_state():
    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    first = optimizers.Adam()
    first.apply_gradients([(tf.constant([[1.0, 2.0], [3.0, 4.0]]), x)])
    second = optimizers.Adam()
    with pytest.raises(ValueError, match="You are calling `set_weights"):
        second.set_weights(first.variables)
    second.build([x])
    second.set_weights(first.variables)
    for a, b in zip(first.variables, second.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy())


# --- clipping, loss scaling, EMA, accumulation, constraints -------------------------------------


def test_clipnorm_clips_each_gradient_to_the_norm():
    clipped = optimizers.SGD(clipnorm=1)._clip_gradients([tf.constant([100.0, 100.0])])
    np.testing.assert_allclose(clipped[0].numpy(), [2**0.5 / 2, 2**0.5 / 2], **TOL)


def test_clipnorm_leaves_zero_gradients_finite():
    clipped = optimizers.SGD(clipnorm=1.0)._clip_gradients([tf.zeros([3])])
    np.testing.assert_array_equal(clipped[0].numpy(), [0.0, 0.0, 0.0])


def test_clipvalue_clips_elementwise():
    clipped = optimizers.SGD(clipvalue=1)._clip_gradients([tf.constant([100.0, -100.0, 0.5])])
    np.testing.assert_allclose(clipped[0].numpy(), [1.0, -1.0, 0.5], **TOL)


def test_global_clipnorm_scales_by_the_global_norm():
    grad = np.array([50.0, 100.0], dtype="float32")
    clipped = optimizers.SGD(global_clipnorm=1)._clip_gradients([tf.constant(grad)])
    np.testing.assert_allclose(clipped[0].numpy(), grad / np.linalg.norm(grad), **TOL)


def test_loss_scale_factor_scales_loss_and_unscales_gradients():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    optimizer = optimizers.SGD(learning_rate=1.0, loss_scale_factor=1024.0)
    optimizer.apply_gradients([(tf.constant([[1.0, 2.0], [3.0, 4.0]]) * 1024.0, v)])
    assert optimizer.scale_loss(1.0) == 1024.0
    np.testing.assert_allclose(v.numpy(), [[0.0, 0.0], [0.0, 0.0]], **TOL)


@pytest.mark.parametrize("use_function", [False, True])
def test_ema_tracks_and_overwrites_like_keras(use_function):
    v = tf.Variable([[3.0, 4.0], [5.0, 6.0]])
    optimizer = optimizers.SGD(
        learning_rate=1.0, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3
    )

    def step():
        optimizer.apply_gradients([(tf.ones([2, 2]), v)])

    step = tf.function(step) if use_function else step
    step()
    np.testing.assert_allclose(v.numpy(), [[2.0, 3.0], [4.0, 5.0]], **TOL)
    average = optimizer._model_variables_moving_average[0]
    np.testing.assert_allclose(average.numpy(), [[2.0, 3.0], [4.0, 5.0]], **TOL)
    step()
    np.testing.assert_allclose(v.numpy(), [[1.0, 2.0], [3.0, 4.0]], **TOL)
    np.testing.assert_allclose(average.numpy(), [[1.9, 2.9], [3.9, 4.9]], **TOL)
    step()  # the third step overwrites the variables with their average
    np.testing.assert_allclose(v.numpy(), [[1.71, 2.71], [3.71, 4.71]], **TOL)
    np.testing.assert_allclose(average.numpy(), [[1.71, 2.71], [3.71, 4.71]], **TOL)


def test_finalize_variable_values_writes_the_average():
    w = tf.Variable([[3.0, 4.0], [5.0, 6.0]])
    optimizer = optimizers.SGD(learning_rate=1.0, use_ema=True, ema_momentum=0.9)
    for _ in range(2):
        optimizer.apply_gradients([(tf.ones([2, 2]), w)])
    optimizer.finalize_variable_values([w])
    np.testing.assert_allclose(w.numpy(), [[1.9, 2.9], [3.9, 4.9]], **TOL)


@pytest.mark.parametrize("use_function", [False, True])
def test_gradient_accumulation_updates_every_n_steps(use_function):
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    optimizer = optimizers.SGD(learning_rate=1.0, gradient_accumulation_steps=3)

    def step():
        optimizer.apply_gradients([(tf.ones([2, 2]), v)])

    step = tf.function(step) if use_function else step
    expected = [
        ([[1.0, 2.0], [3.0, 4.0]], 1.0, 1, 0),
        ([[1.0, 2.0], [3.0, 4.0]], 2.0, 2, 0),
        ([[0.0, 1.0], [2.0, 3.0]], 0.0, 3, 1),
        ([[0.0, 1.0], [2.0, 3.0]], 1.0, 4, 1),
    ]
    for value, accumulated, raw_steps, updates in expected:
        step()
        np.testing.assert_allclose(v.numpy(), value, **TOL)
        np.testing.assert_allclose(optimizer._accumulated_gradients[0].numpy(), accumulated)
        assert int(optimizer._iterations.numpy()) == raw_steps
        assert int(optimizer.iterations.numpy()) == updates


def test_constraints_are_applied_after_the_update():
    v = tf.Variable([[-1.0, 0.5], [2.0, -3.0]], constraint=lambda x: tf.maximum(x, 0.0))
    optimizer = optimizers.SGD(learning_rate=0.1)
    optimizer.apply_gradients([(tf.zeros([2, 2]), v)])
    np.testing.assert_allclose(v.numpy(), [[0.0, 0.5], [2.0, 0.0]])


# --- errors --------------------------------------------------------------------------------


def test_no_gradient_for_any_variable_raises_value_error():
    v = tf.Variable([[3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(ValueError, match="No gradients provided for any variable."):
        optimizers.SGD(learning_rate=1.0).apply_gradients([(None, v)])


def test_missing_gradient_warns_and_leaves_the_variable():
    v1 = tf.Variable([[3.0, 4.0], [5.0, 6.0]])
    v2 = tf.Variable([[3.0, 4.0], [5.0, 6.0]])
    optimizer = optimizers.SGD(learning_rate=1.0)
    with pytest.warns(UserWarning, match="Gradients do not exist for variables"):
        optimizer.apply_gradients([(None, v1), (tf.ones([2, 2]), v2)])
    np.testing.assert_allclose(v1.numpy(), [[3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_allclose(v2.numpy(), [[2.0, 3.0], [4.0, 5.0]])


def test_unknown_variable_after_build_raises_value_error():
    optimizer = optimizers.SGD(learning_rate=0.1)
    optimizer.apply_gradients([(tf.ones([2]), tf.Variable([1.0, 2.0]))])
    with pytest.raises(ValueError, match="Unknown variable"):
        optimizer.apply_gradients([(tf.ones([2]), tf.Variable([1.0, 2.0]))])


def test_apply_without_variables_needs_a_built_optimizer():
    with pytest.raises(ValueError, match="must already be built"):
        optimizers.SGD().apply([tf.ones([2])])
    optimizer = optimizers.SGD()
    optimizer.build([tf.Variable([1.0, 2.0])])
    with pytest.raises(ValueError, match="gradients must match"):
        optimizer.apply([tf.ones([2]), tf.ones([2])])


def test_gradient_of_the_wrong_shape_raises():
    optimizer = optimizers.SGD(learning_rate=0.1)
    with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
        optimizer.apply_gradients([(tf.ones([3]), tf.Variable([1.0, 2.0]))])


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: optimizers.SGD(learning_rate=1), "should be float"),
        (lambda: optimizers.SGD(learning_rate=np.float32(0.1)), "should be float"),
        (lambda: optimizers.SGD(momentum=1), "`momentum` must be a float between"),
        (lambda: optimizers.SGD(momentum=1.5), "`momentum` must be a float between"),
        (lambda: optimizers.SGD(clipnorm=1.0, clipvalue=1.0), "Only one of `clipnorm`"),
        (lambda: optimizers.Adam(clipnorm=1.0, global_clipnorm=1.0), "Only one of `clipnorm`"),
        (lambda: optimizers.Adam(foo=1), "Argument\\(s\\) not recognized"),
        (lambda: optimizers.AdamW(weight_decay=None), "`weight_decay` must be a float"),
        (lambda: optimizers.Adam(use_ema=True, ema_momentum=2.0), "`ema_momentum` must be"),
        (
            lambda: optimizers.Adam(gradient_accumulation_steps=1),
            "`gradient_accumulation_steps` must be an integer >= 2",
        ),
        (lambda: schedules.ExponentialDecay(0.1, 0, 0.5), "`decay_steps` must be > 0"),
        (lambda: schedules.PiecewiseConstantDecay([1, 2], [0.1]), "length of boundaries"),
    ],
)
def test_invalid_arguments_raise_value_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_deprecated_decay_argument_warns_and_is_ignored():
    with pytest.warns(UserWarning, match="`decay` is no longer supported"):
        optimizer = optimizers.Adam(learning_rate=0.1, decay=0.1)
    assert "decay" not in optimizer.get_config()


def test_subclass_without_super_init_raises_runtime_error():
    class Broken(optimizers.Optimizer):
        def __init__(self):
            self.momentum = 0.9

    with pytest.raises(RuntimeError, match="forgot to call `super\\(\\).__init__\\(\\)`"):
        Broken()


def test_base_optimizer_update_step_is_abstract():
    optimizer = optimizers.Optimizer(learning_rate=0.1)
    with pytest.raises(NotImplementedError):
        optimizer.apply_gradients([(tf.ones([2]), tf.Variable([1.0, 2.0]))])


def test_custom_optimizer_in_tf_function():
    class SignSGD(optimizers.Optimizer):
        def __init__(self, learning_rate=0.1, **kwargs):
            super().__init__(learning_rate=learning_rate, **kwargs)

        def build(self, variables):
            super().build(variables)
            self.steps_taken = self.add_optimizer_variables(variables, "steps")

        def update_step(self, gradient, variable, learning_rate):
            lr = tf.cast(learning_rate, variable.dtype)
            self.assign_sub(variable, tf.sign(gradient) * lr)
            self.assign_add(
                self.steps_taken[self._get_variable_index(variable)], tf.ones_like(gradient)
            )

    v = tf.Variable([1.0, -1.0, 0.0], name="v")
    optimizer = SignSGD(name="sign_sgd")

    @tf.function
    def step():
        optimizer.apply_gradients([(tf.constant([3.0, -0.5, 0.0]), v)])

    step()
    step()
    np.testing.assert_allclose(v.numpy(), [0.8, -0.8, 0.0], **TOL)
    assert optimizer.variables[-1].path == "sign_sgd/v_0_steps"
    np.testing.assert_allclose(optimizer.variables[-1].numpy(), [2.0, 2.0, 2.0])


# --- configuration and lookup --------------------------------------------------------------

KERAS_BASE_CONFIG = {
    "weight_decay": None,
    "clipnorm": None,
    "global_clipnorm": None,
    "clipvalue": None,
    "use_ema": False,
    "ema_momentum": 0.99,
    "ema_overwrite_frequency": None,
    "loss_scale_factor": None,
    "gradient_accumulation_steps": None,
}


@pytest.mark.parametrize(
    "factory, learning_rate, extra",
    [
        (optimizers.SGD, 0.009999999776482582, {"momentum": 0.0, "nesterov": False}),
        (
            optimizers.Adam,
            0.0010000000474974513,
            {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-07, "amsgrad": False},
        ),
        (
            optimizers.AdamW,
            0.0010000000474974513,
            {
                "weight_decay": 0.004,
                "beta_1": 0.9,
                "beta_2": 0.999,
                "epsilon": 1e-07,
                "amsgrad": False,
            },
        ),
        (
            optimizers.RMSprop,
            0.0010000000474974513,
            {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-07, "centered": False},
        ),
        (
            optimizers.Adagrad,
            0.0010000000474974513,
            {"initial_accumulator_value": 0.1, "epsilon": 1e-07},
        ),
    ],
)
def test_default_config_matches_keras(factory, learning_rate, extra):
    optimizer = factory(name="opt")
    expected = {"name": "opt", "learning_rate": learning_rate, **KERAS_BASE_CONFIG, **extra}
    assert optimizer.get_config() == expected
    assert list(optimizer.get_config()) == list(expected)  # Keras's key order
    clone = factory.from_config(optimizer.get_config())
    assert type(clone) is factory and clone.get_config() == expected


def test_schedule_config_round_trips_through_the_optimizer():
    schedule = schedules.ExponentialDecay(0.1, 2, 0.5, staircase=True)
    config = optimizers.SGD(learning_rate=schedule, name="s").get_config()
    assert config["learning_rate"] == {
        "module": "keras.optimizers.schedules",
        "class_name": "ExponentialDecay",
        "config": {
            "initial_learning_rate": 0.1,
            "decay_steps": 2,
            "decay_rate": 0.5,
            "staircase": True,
            "name": "ExponentialDecay",
        },
        "registered_name": None,
    }
    clone = optimizers.SGD.from_config(config)
    assert isinstance(clone._learning_rate, schedules.ExponentialDecay)
    assert clone._learning_rate.get_config() == schedule.get_config()


def test_serialize_and_deserialize_round_trip():
    optimizer = optimizers.RMSprop(learning_rate=0.5, momentum=0.9, centered=True, name="r")
    config = optimizers.serialize(optimizer)
    assert config["module"] == "keras.optimizers" and config["class_name"] == "RMSprop"
    clone = optimizers.deserialize(config)
    assert isinstance(clone, optimizers.RMSprop)
    assert clone.get_config() == optimizer.get_config()


@pytest.mark.parametrize(
    "identifier, cls",
    [
        ("sgd", optimizers.SGD),
        ("SGD", optimizers.SGD),
        ("adam", optimizers.Adam),
        ("Adam", optimizers.Adam),
        ("adamw", optimizers.AdamW),
        ("rmsprop", optimizers.RMSprop),
        ("RMSprop", optimizers.RMSprop),
        ("adagrad", optimizers.Adagrad),
    ],
)
def test_get_by_name(identifier, cls):
    assert type(optimizers.get(identifier)) is cls


def test_get_passes_instances_and_none_and_reads_dicts():
    optimizer = optimizers.SGD()
    assert optimizers.get(optimizer) is optimizer
    assert optimizers.get(None) is None
    adam = optimizers.get({"class_name": "adam", "config": {"learning_rate": 0.5}})
    assert isinstance(adam, optimizers.Adam)
    assert adam.get_config()["learning_rate"] == 0.5


@pytest.mark.parametrize("identifier", ["typo", 3, schedules.ExponentialDecay(0.1, 2, 0.5)])
def test_get_rejects_what_is_not_an_optimizer(identifier):
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        optimizers.get(identifier)


# --- schedules -----------------------------------------------------------------------------

SCHEDULE_STEPS = [0, 1, 2, 3, 5, 7, 10, 15]
# Values at SCHEDULE_STEPS, from TensorFlow 2.21 / Keras 3.15.
SCHEDULES = {
    "exponential": (
        schedules.ExponentialDecay(0.1, 3, 0.5),
        [0.1, 0.07937005, 0.06299605, 0.05, 0.031498026, 0.019842515, 0.009921257, 0.003125],
    ),
    "exponential_staircase": (
        schedules.ExponentialDecay(0.1, 3, 0.5, staircase=True),
        [0.1, 0.1, 0.1, 0.05, 0.05, 0.025, 0.0125, 0.003125],
    ),
    "piecewise": (
        schedules.PiecewiseConstantDecay([2, 5, 9], [1.0, 0.5, 0.25, 0.125]),
        [1, 1, 1, 0.5, 0.5, 0.25, 0.125, 0.125],
    ),
    "inverse_time": (
        schedules.InverseTimeDecay(0.1, 2, 0.5),
        [0.1, 0.08, 0.06666667, 0.057142857, 0.044444446, 0.036363635, 0.028571429, 0.021052632],
    ),
    "inverse_time_staircase": (
        schedules.InverseTimeDecay(0.1, 2, 0.5, staircase=True),
        [0.1, 0.1, 0.06666667, 0.06666667, 0.05, 0.04, 0.028571429, 0.022222223],
    ),
    "polynomial": (
        schedules.PolynomialDecay(0.1, 8, end_learning_rate=0.01, power=2.0),
        [0.1, 0.07890625, 0.060625, 0.045156248, 0.02265625, 0.01140625, 0.01, 0.01],
    ),
    "polynomial_cycle": (
        schedules.PolynomialDecay(0.1, 4, end_learning_rate=0.01, power=0.5, cycle=True),
        [0.1, 0.08794229, 0.07363961, 0.055, 0.06511352, 0.041819803, 0.04674235, 0.0325],
    ),
    "cosine": (
        schedules.CosineDecay(0.1, 8, alpha=0.1),
        [
            0.1,
            0.09657458,
            0.08681981,
            0.07222076,
            0.03777924,
            0.013425417,
            0.010000001,
            0.010000001,
        ],
    ),
    "cosine_warmup": (
        schedules.CosineDecay(0.0, 8, alpha=0.2, warmup_target=0.2, warmup_steps=4),
        [0, 0.05, 0.1, 0.15, 0.19391036, 0.15061466, 0.063431464, 0.040000003],
    ),
}


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_values_match_keras(name):
    schedule, expected = SCHEDULES[name]
    values = [schedule(tf.constant(step, tf.int64)).numpy() for step in SCHEDULE_STEPS]
    np.testing.assert_allclose(values, expected, **TOL)


@pytest.mark.parametrize("name", ["piecewise", "polynomial_cycle", "cosine_warmup"])
def test_schedule_values_inside_tf_function_from_a_step_variable(name):
    schedule, expected = SCHEDULES[name]
    step = tf.Variable(0, dtype=tf.int64)

    @tf.function
    def rate():
        return schedule(step)

    values = []
    for s in SCHEDULE_STEPS:
        step.assign(s)
        values.append(rate().numpy())
    np.testing.assert_allclose(values, expected, **TOL)
    assert rate.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_schedule_config_round_trips(name):
    schedule, _ = SCHEDULES[name]
    config = schedules.serialize(schedule)
    assert config["module"] == "keras.optimizers.schedules"
    assert config["class_name"] == type(schedule).__name__
    clone = schedules.deserialize(config)
    assert type(clone) is type(schedule) and clone.get_config() == schedule.get_config()


def test_cosine_decay_config_matches_keras():
    schedule = schedules.CosineDecay(0.1, 10, warmup_target=0.2, warmup_steps=3)
    assert schedule.get_config() == {
        "initial_learning_rate": 0.1,
        "decay_steps": 10,
        "alpha": 0.0,
        "name": "CosineDecay",
        "warmup_target": 0.2,
        "warmup_steps": 3,
    }


def test_base_schedule_must_be_overridden():
    with pytest.raises(NotImplementedError, match="must override `__call__"):
        schedules.LearningRateSchedule()(1)
    with pytest.raises(NotImplementedError, match="must override `get_config"):
        schedules.LearningRateSchedule().get_config()


def test_unknown_schedule_cannot_be_deserialized():
    with pytest.raises(ValueError, match="Unknown learning rate schedule"):
        schedules.deserialize({"class_name": "Nope", "config": {}})


# --- checkpoints ---------------------------------------------------------------------------


def _adam_after_steps(steps):
    w, b = _variables()
    optimizer = optimizers.Adam(learning_rate=0.1, amsgrad=True)
    for t in range(steps):
        optimizer.apply_gradients(zip(_grads(t), [w, b]))
    return optimizer, w, b


def test_checkpoint_keys_match_keras(tmp_path):
    optimizer, _, _ = _adam_after_steps(1)
    path = tf.train.Checkpoint(opt=optimizer).save(str(tmp_path / "ckpt"))
    # tf.train.list_variables of the same checkpoint written by TensorFlow 2.21 / Keras 3.15.
    assert tf.train.list_variables(path) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []),
        ("opt/_iterations/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("opt/_learning_rate/.ATTRIBUTES/VARIABLE_VALUE", []),
        ("opt/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE", [2, 3]),
        ("opt/_trainable_variables/1/.ATTRIBUTES/VARIABLE_VALUE", [3]),
        ("opt/_variables/2/.ATTRIBUTES/VARIABLE_VALUE", [2, 3]),
        ("opt/_variables/3/.ATTRIBUTES/VARIABLE_VALUE", [2, 3]),
        ("opt/_variables/4/.ATTRIBUTES/VARIABLE_VALUE", [3]),
        ("opt/_variables/5/.ATTRIBUTES/VARIABLE_VALUE", [3]),
        ("opt/_variables/6/.ATTRIBUTES/VARIABLE_VALUE", [2, 3]),
        ("opt/_variables/7/.ATTRIBUTES/VARIABLE_VALUE", [3]),
        ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []),
    ]


def test_checkpoint_restores_optimizer_state(tmp_path):
    optimizer, w, b = _adam_after_steps(2)
    checkpoint = tf.train.Checkpoint(optimizer=optimizer, w=w, b=b)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    saved = [v.numpy() for v in optimizer.variables]
    for t in (2, 3):
        optimizer.apply_gradients(zip(_grads(t), [w, b]))
    checkpoint.restore(path)
    assert int(optimizer.iterations.numpy()) == 2
    for value, variable in zip(saved, optimizer.variables):
        np.testing.assert_array_equal(variable.numpy(), value)


def test_restored_state_continues_the_trajectory_in_a_fresh_optimizer(tmp_path):
    optimizer, w, b = _adam_after_steps(2)
    path = tf.train.Checkpoint(optimizer=optimizer, w=w, b=b).save(str(tmp_path / "ckpt"))
    for t in (2, 3):
        optimizer.apply_gradients(zip(_grads(t), [w, b]))

    fresh = optimizers.Adam(learning_rate=0.1, amsgrad=True)
    w2, b2 = tf.Variable(np.zeros([2, 3], np.float32)), tf.Variable(np.zeros([3], np.float32))
    # Restored before the optimizer is built: the slots take their values when created.
    tf.train.Checkpoint(optimizer=fresh, w=w2, b=b2).restore(path)
    assert int(fresh.iterations.numpy()) == 2
    for t in (2, 3):
        fresh.apply_gradients(zip(_grads(t), [w2, b2]))
    np.testing.assert_allclose(w2.numpy(), w.numpy(), **TOL)
    np.testing.assert_allclose(b2.numpy(), b.numpy(), **TOL)
    for a, c in zip(optimizer.variables, fresh.variables):
        np.testing.assert_allclose(a.numpy(), c.numpy(), **TOL)


def test_restore_before_a_build_inside_tf_function_continues_the_trajectory(tmp_path):
    optimizer, w, b = _adam_after_steps(2)
    path = tf.train.Checkpoint(optimizer=optimizer, w=w, b=b).save(str(tmp_path / "ckpt"))
    for t in (2, 3):
        optimizer.apply_gradients(zip(_grads(t), [w, b]))

    fresh = optimizers.Adam(learning_rate=0.1, amsgrad=True)
    w2, b2 = tf.Variable(np.zeros([2, 3], np.float32)), tf.Variable(np.zeros([3], np.float32))
    tf.train.Checkpoint(optimizer=fresh, w=w2, b=b2).restore(path)

    @tf.function
    def step(gw, gb):
        fresh.apply_gradients(zip([gw, gb], [w2, b2]))  # builds the slots in the first trace

    for t in (2, 3):
        step(*_grads(t))
    np.testing.assert_allclose(w2.numpy(), w.numpy(), **TOL)
    np.testing.assert_allclose(b2.numpy(), b.numpy(), **TOL)


# --- optional live parity ------------------------------------------------------------------


# Runs in a child process: TensorFlow and ferroflow loaded into one process can crash (their
# native libraries clash), and the child needs nothing from ferroflow.
_TENSORFLOW_TRAJECTORIES = """
import json, sys
try:
    import numpy as np
    import tensorflow as tf
except ImportError:
    print("NO_TENSORFLOW")
    sys.exit(0)
spec = json.loads(sys.stdin.read())
results = {}
for name, source in spec["cases"].items():
    optimizer = eval(source, dict(vars(tf.keras.optimizers)))
    w = tf.Variable(np.array(spec["w0"], np.float32), name="w")
    b = tf.Variable(np.array(spec["b0"], np.float32), name="b")
    for gw, gb in zip(spec["gw"], spec["gb"]):
        grads = [tf.constant(np.array(gw, np.float32)), tf.constant(np.array(gb, np.float32))]
        optimizer.apply_gradients(zip(grads, [w, b]))
    results[name] = [w.numpy().tolist(), b.numpy().tolist()]
print(json.dumps(results))
"""


def test_parity_with_installed_tensorflow():
    if importlib.util.find_spec("tensorflow") is None:
        pytest.skip("TensorFlow is not installed")
    spec = {"cases": CASES, "w0": W0, "b0": B0, "gw": GW, "gb": GB}
    child = subprocess.run(
        [sys.executable, "-c", _TENSORFLOW_TRAJECTORIES],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    last_line = child.stdout.strip().splitlines()[-1]
    if last_line == "NO_TENSORFLOW":
        pytest.skip("TensorFlow cannot be imported")
    theirs = json.loads(last_line)
    assert sorted(theirs) == sorted(CASES)
    for name, (w, b) in theirs.items():
        _assert_trajectory(name, w, b)  # the hard-coded numbers are TensorFlow's
        ours = _train(_make(name), "eager")
        np.testing.assert_allclose(ours[0], w, **TOL, err_msg=name)
        np.testing.assert_allclose(ours[1], b, **TOL, err_msg=name)
