"""Optimizer state in `tf.train.Checkpoint`: iterations and slot variables round trip, also when
restored before the optimizer (or the model) has created them, eagerly or while the first
`tf.function` trace creates them; training then continues exactly as if never interrupted."""

import warnings

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.keras.saving.saveable_state import VarsStore

RNG = np.random.default_rng(7)
XS = RNG.normal(size=(6, 8, 3)).astype(np.float32)
YS = RNG.normal(size=(6, 8, 1)).astype(np.float32)


class Net(tf.keras.Model):
    def __init__(self, units=4):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(
            units, activation="tanh", kernel_initializer=tf.keras.initializers.Constant(0.1)
        )
        self.out = tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(-0.2))

    def call(self, x):
        return self.out(self.hidden(x))


def make_step(model, optimizer, traced):
    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return tf.function(step) if traced else step


def train(step, batches):
    return [float(step(XS[i], YS[i]).numpy()) for i in batches]


def state(model, optimizer):
    return [v.numpy() for v in model.weights + optimizer.variables]


def assert_same_state(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


OPTIMIZERS = {
    "adam": lambda: tf.keras.optimizers.Adam(0.05),
    "adam_amsgrad": lambda: tf.keras.optimizers.Adam(0.05, amsgrad=True),
    "sgd_momentum": lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
    "sgd_nesterov": lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
}


def interrupted_run(tmp_path, make_optimizer, traced):
    """Trains 3 steps, checkpoints, trains 3 more: (reference model, optimizer, losses after the
    checkpoint, checkpoint path)."""
    model, optimizer = Net(), make_optimizer()
    step = make_step(model, optimizer, traced)
    train(step, range(3))
    path = tf.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    losses = train(step, range(3, 6))
    return model, optimizer, losses, path


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tf_function"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_restore_before_build_continues_exactly(tmp_path, name, traced):
    model, optimizer, losses, path = interrupted_run(tmp_path, OPTIMIZERS[name], traced)
    # Neither the model's variables nor the optimizer's slots exist at restore time: both are
    # created by the first step (inside the first trace when traced) and take the checkpoint's
    # values then.
    fresh_model, fresh_optimizer = Net(), OPTIMIZERS[name]()
    status = tf.train.Checkpoint(model=fresh_model, optimizer=fresh_optimizer).restore(path)
    assert int(fresh_optimizer.iterations.numpy()) == 3
    resumed = train(make_step(fresh_model, fresh_optimizer, traced), range(3, 6))
    status.assert_consumed()
    assert resumed == losses
    assert int(fresh_optimizer.iterations.numpy()) == 6
    assert_same_state(state(fresh_model, fresh_optimizer), state(model, optimizer))


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tf_function"])
def test_restore_into_built_objects_rewinds_them(tmp_path, traced):
    model, optimizer = Net(), tf.keras.optimizers.Adam(0.05)
    step = make_step(model, optimizer, traced)
    train(step, range(3))
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    saved = state(model, optimizer)
    first = train(step, range(3, 6))
    checkpoint.restore(path).assert_consumed()
    assert int(optimizer.iterations.numpy()) == 3
    assert_same_state(state(model, optimizer), saved)
    assert train(step, range(3, 6)) == first


def test_restored_slots_are_assigned_once_not_on_every_traced_call(tmp_path):
    # A restore applied inside the first trace must not become part of the graph: the second
    # call starts from the first call's result, not from the checkpoint again.
    _, _, _, path = interrupted_run(tmp_path, OPTIMIZERS["adam"], traced=True)
    model, optimizer = Net(), tf.keras.optimizers.Adam(0.05)
    tf.train.Checkpoint(model=model, optimizer=optimizer).restore(path)
    step = make_step(model, optimizer, traced=True)
    step(XS[3], YS[3])
    after_one = state(model, optimizer)
    step(XS[4], YS[4])
    assert int(optimizer.iterations.numpy()) == 5
    changed = [not np.array_equal(a, b) for a, b in zip(after_one, state(model, optimizer))]
    assert all(changed[: len(model.weights)])


def test_optimizer_only_checkpoint_restores_model_variables_through_the_optimizer(tmp_path):
    # Keras's optimizer tracks the variables it updates (`_trainable_variables`), so a
    # checkpoint of the optimizer alone carries them too.
    model, optimizer, _, _ = interrupted_run(tmp_path, OPTIMIZERS["adam"], traced=False)
    path = tf.train.Checkpoint(optimizer=optimizer).save(str(tmp_path / "opt"))
    fresh_model, fresh_optimizer = Net(), tf.keras.optimizers.Adam(0.05)
    tf.train.Checkpoint(optimizer=fresh_optimizer).restore(path)

    @tf.function
    def build(x):
        fresh_model(x)
        fresh_optimizer.build(fresh_model.trainable_variables)

    build(XS[0])
    assert_same_state(state(fresh_model, fresh_optimizer), state(model, optimizer))


def test_shape_mismatch_in_a_restore_during_a_trace_raises(tmp_path):
    _, _, _, path = interrupted_run(tmp_path, OPTIMIZERS["adam"], traced=False)
    model, optimizer = Net(units=5), tf.keras.optimizers.Adam(0.05)
    tf.train.Checkpoint(model=model, optimizer=optimizer).restore(path)
    with pytest.raises(ValueError, match="incompatible tensor with shape"):
        make_step(model, optimizer, traced=True)(XS[0], YS[0])


def test_checkpoint_keys_of_model_and_optimizer(tmp_path):
    _, _, _, path = interrupted_run(tmp_path, OPTIMIZERS["sgd_momentum"], traced=False)
    keys = [key for key, _ in tf.train.list_variables(path)]
    assert "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE" in keys
    # Keras 3 layers track their kernel as `_kernel`, so TensorFlow's key has it too.
    assert "model/hidden/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    # iterations, learning rate, then one momentum slot per trainable variable.
    slots = [k for k in keys if k.startswith("optimizer/_variables/")]
    assert len(slots) == 4
    assert tf.train.load_checkpoint(path).get_tensor(
        "optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"
    ) == np.int64(3)


# --- the optimizer's part of a Keras weights file --------------------------------------------


def test_save_and_load_own_variables_round_trip():
    model, optimizer = Net(), tf.keras.optimizers.Adam(0.05)
    train(make_step(model, optimizer, traced=False), range(2))
    arrays = {}
    optimizer.save_own_variables(VarsStore(arrays, "optimizer"))
    assert sorted(arrays) == sorted(f"optimizer/vars/{i}" for i in range(10))
    assert arrays["optimizer/vars/0"] == np.int64(2)

    other_model, other = Net(), tf.keras.optimizers.Adam(0.05)
    other_model(XS[0])
    other.build(other_model.trainable_variables)
    other.load_own_variables(VarsStore(arrays, "optimizer"))
    for a, b in zip(optimizer.variables, other.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_load_own_variables_skips_a_state_of_another_size_with_a_warning():
    model, optimizer = Net(), tf.keras.optimizers.Adam(0.05)
    train(make_step(model, optimizer, traced=False), range(1))
    arrays = {}
    optimizer.save_own_variables(VarsStore(arrays, ""))
    unbuilt = tf.keras.optimizers.Adam(0.05)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        unbuilt.load_own_variables(VarsStore(arrays, ""))
    assert "Skipping variable loading for optimizer 'adam" in str(caught[0].message)
    assert "the saved optimizer has 10 variables" in str(caught[0].message)
    assert int(unbuilt.iterations.numpy()) == 0
