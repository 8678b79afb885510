"""tf.saved_model: the seeds' cell, functions and variables that work without the original
class, signatures, every dtype, nested modules, control flow and printing, both devices,
replacing a saved model, crash safety under SIGKILL, a fuzzed loader, and the Rust loader.

Expected messages and layouts were taken from TensorFlow 2.21.
"""

import collections
import json
import os
import random
import shlex
import signal
import subprocess
import sys
import textwrap
import time

import ferroflow as tf
import numpy as np
import pytest
from conftest import require_gpu

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DTYPES = [
    tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64,
    tf.uint8, tf.uint16, tf.uint32, tf.uint64, tf.bool, tf.complex64, tf.complex128,
]  # fmt: skip


class MyModule(tf.Module):
    def __init__(self, value):
        self.weight = tf.Variable(value)

    @tf.function
    def multiply(self, x):
        return x * self.weight


def flat(text):
    return " ".join(str(text).split())


def test_the_seeds_cell(tmp_path):
    mod = MyModule(3)
    assert flat(repr(mod.multiply(tf.constant([1, 2, 3])))) == (
        "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([3, 6, 9], dtype=int32)>"
    )
    save_path = str(tmp_path / "saved")
    tf.saved_model.save(mod, save_path)
    reloaded = tf.saved_model.load(save_path)
    assert flat(repr(reloaded.multiply(tf.constant([1, 2, 3])))) == (
        "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([3, 6, 9], dtype=int32)>"
    )
    assert reloaded.multiply([1, 2, 3]).numpy().tolist() == [3, 6, 9]
    assert sorted(os.listdir(save_path)) == [
        "assets", "constants.data-00000-of-00001", "constants.index", "saved_model.json",
        "saved_model.pb", "variables",
    ]  # fmt: skip
    assert sorted(os.listdir(tmp_path / "saved" / "variables")) == [
        "variables.data-00000-of-00001",
        "variables.index",
    ]
    assert tf.train.list_variables(os.path.join(save_path, "variables", "variables")) == [
        ("_CHECKPOINTABLE_OBJECT_GRAPH", []),
        ("weight/.ATTRIBUTES/VARIABLE_VALUE", []),
    ]
    assert tf.saved_model.contains_saved_model(save_path)
    assert not tf.saved_model.contains_saved_model(tmp_path)


def test_loaded_objects_need_no_python_class(tmp_path):
    """The class exists only in the process that saved."""
    script = textwrap.dedent(
        """
        import sys
        import ferroflow as tf

        class Scaler(tf.Module):
            def __init__(self):
                self.scale = tf.Variable(2.0, name="scale")
                self.offset = tf.Variable([1.0, -1.0], trainable=False)

            @tf.function
            def __call__(self, x):
                return x * self.scale + self.offset

            @tf.function
            def bump(self):
                self.scale.assign_add(1.0)
                return self.scale.read_value()

        m = Scaler()
        m(tf.constant([1.0, 2.0]))
        m.bump()
        tf.saved_model.save(m, sys.argv[1])
        """
    )
    path = str(tmp_path / "scaler")
    subprocess.run([sys.executable, "-c", script, path], check=True)
    loaded = tf.saved_model.load(path)
    assert type(loaded).__name__ == "_UserObject"
    assert loaded(tf.constant([1.0, 2.0])).numpy().tolist() == [4.0, 5.0]
    assert isinstance(loaded.scale, tf.Variable) and loaded.scale.name == "scale:0"
    assert loaded.scale.trainable and not loaded.offset.trainable
    # Functions use the loaded variables by reference, both ways.
    assert loaded.bump().numpy() == 4.0 and loaded.scale.numpy() == 4.0
    loaded.scale.assign(10.0)
    assert loaded(tf.constant([1.0, 1.0])).numpy().tolist() == [11.0, 9.0]
    assert loaded.signatures == {} and repr(loaded.signatures) == "_SignatureMap({})"


def test_calls_pick_a_saved_trace_or_fail_as_tensorflow(tmp_path):
    class Both(tf.Module):
        @tf.function
        def double(self, x, times=2):
            return x * times

        @tf.function
        def never_called(self, x):
            return x

    m = Both()
    m.double(tf.constant([1, 2]))
    m.double(tf.constant([1.5]), times=3)
    tf.saved_model.save(m, tmp_path / "both")
    loaded = tf.saved_model.load(tmp_path / "both")
    assert loaded.double(tf.constant([5, 6])).numpy().tolist() == [10, 12]
    assert loaded.double(tf.constant([0.5]), times=3).numpy().tolist() == [1.5]
    assert loaded.double(tf.constant([0.5]), 3).numpy().tolist() == [1.5]
    with pytest.raises(ValueError) as e:
        loaded.double(tf.constant([1.0, 2.0]))
    assert str(e.value).startswith(
        "Could not find matching concrete function to call loaded from the SavedModel. Got:\n"
        "  Positional arguments (1 total):\n"
        "    * <tf.Tensor 'x:0' shape=(2,) dtype=float32>\n"
        "  Keyword arguments: {}\n\n"
        " Expected these arguments to match one of the following 2 option(s):"
    )
    with pytest.raises(ValueError, match="Found zero restored functions for caller function."):
        loaded.never_called(tf.constant(1))


def test_signatures_as_tensorflow_makes_them(tmp_path):
    class Sig(tf.Module):
        def __init__(self):
            self.v = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x):
            return {"y": x * self.v, "z": x + 1}

        @tf.function
        def g(self, x):
            return x

    tf.saved_model.save(Sig(), tmp_path / "sig")
    loaded = tf.saved_model.load(tmp_path / "sig")
    assert list(loaded.signatures) == ["serving_default"]
    serving = loaded.signatures["serving_default"]
    out = serving(x=tf.constant([1.0, 2.0]))
    assert sorted(out) == ["y", "z"]
    assert out["y"].numpy().tolist() == [2.0, 4.0] and out["z"].numpy().tolist() == [2.0, 3.0]
    assert serving(tf.constant([3.0]))["y"].numpy().tolist() == [6.0]  # one input: positional
    args, kwargs = serving.structured_input_signature
    assert args == () and kwargs == {"x": tf.TensorSpec([None], tf.float32, "x")}
    assert loaded.f(tf.constant([1.0]))["z"].numpy().tolist() == [2.0]
    with pytest.raises(TypeError):
        serving(y=tf.constant([1.0]))

    class Two(tf.Module):
        @tf.function(
            input_signature=[tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32, "b")]
        )
        def add(self, a, second):
            return a + second, a * second

    m = Two()
    tf.saved_model.save(m, tmp_path / "two", signatures={"sum": m.add, "also": m.add})
    loaded = tf.saved_model.load(tmp_path / "two")
    assert sorted(loaded.signatures) == ["also", "sum"]
    out = loaded.signatures["sum"](a=tf.constant(2.0), b=tf.constant(5.0))
    assert {k: v.numpy() for k, v in out.items()} == {"output_0": 7.0, "output_1": 10.0}
    with pytest.raises(TypeError, match="keyword"):
        loaded.signatures["sum"](tf.constant(2.0), tf.constant(5.0))


def test_signature_arguments_are_checked(tmp_path):
    class Plain(tf.Module):
        @tf.function
        def f(self, x):
            return x

        @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
        def pair(self, x):
            return [x, 3]

    m = Plain()
    with pytest.raises(ValueError, match="Only `tf.functions` with an input signature"):
        tf.saved_model.save(m, tmp_path / "a", signatures=m.f)
    # A Python number returned by a traced function is a constant tensor (TensorFlow 2.21).
    tf.saved_model.save(m, tmp_path / "b", signatures=m.pair)
    served = tf.saved_model.load(str(tmp_path / "b")).signatures["serving_default"]
    assert served(x=tf.constant(7))["output_1"].numpy() == 3
    # A concrete function of a plain tf.function is a valid signature.
    tf.saved_model.save(
        m, tmp_path / "c", signatures=m.f.get_concrete_function(tf.TensorSpec([2], tf.int64))
    )
    out = tf.saved_model.load(tmp_path / "c").signatures["serving_default"](
        x=tf.constant([4, 5], tf.int64)
    )
    assert out["output_0"].numpy().tolist() == [4, 5]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_every_dtype_round_trips_through_variables_and_constants(tmp_path, dtype):
    rng = np.random.default_rng(7)
    if dtype == tf.bool:
        values = rng.integers(0, 2, [2, 3]).astype(bool)
    elif dtype.is_complex:
        values = rng.standard_normal([2, 3]) + 1j * rng.standard_normal([2, 3])
    elif dtype.is_floating:
        values = rng.standard_normal([2, 3]) * 50
    else:
        info = np.iinfo(dtype.as_numpy_dtype)
        values = rng.integers(info.min, info.max, [2, 3], dtype=dtype.as_numpy_dtype, endpoint=True)
    values = np.asarray(values).astype(dtype.as_numpy_dtype)
    constant = tf.constant(values[::-1].copy())

    m = tf.Module()
    m.v = tf.Variable(values)

    @tf.function
    def read_both():
        return m.v.read_value(), constant

    m.read_both = read_both
    m.read_both()
    tf.saved_model.save(m, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    variable, const = loaded.read_both()
    assert variable.dtype == dtype and const.dtype == dtype
    assert variable.numpy().tobytes() == values.tobytes()
    assert const.numpy().tobytes() == values[::-1].tobytes()
    assert loaded.v.numpy().tobytes() == values.tobytes()


def test_nested_modules_lists_and_dicts(tmp_path):
    class Dense(tf.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.ones([n_in, n_out]) * n_out, name="w")
            self.b = tf.Variable(tf.zeros([n_out]), name="b")

        @tf.function
        def __call__(self, x):
            return tf.nn.relu(x @ self.w + self.b)

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(3, 2), Dense(2, 1)]
            self.extra = {"scale": tf.Variable(0.5), "more": (tf.Variable(1),)}

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x * self.extra["scale"]

    net = Net()
    x = tf.constant([[1.0, 2.0, 3.0]])
    expected = net(x).numpy()
    net.layers[0](x)  # traces the sublayer's own function too
    tf.saved_model.save(net, tmp_path / "net")
    loaded = tf.saved_model.load(tmp_path / "net")
    np.testing.assert_allclose(loaded(x).numpy(), expected)
    np.testing.assert_allclose(loaded(tf.ones([4, 3])).numpy().shape, (4, 1))
    assert isinstance(loaded.layers, list) and len(loaded.layers) == 2
    assert loaded.layers[1].w.shape == (2, 1)
    assert loaded.extra["more"][0].numpy() == 1
    np.testing.assert_allclose(loaded.layers[0](x).numpy(), net.layers[0](x).numpy())
    out = loaded.signatures["serving_default"](x=x)
    np.testing.assert_allclose(out["output_0"].numpy(), expected)
    # The loaded tree checkpoints like the original.
    names = sorted(
        name for name, _ in tf.train.list_variables(tmp_path / "net/variables/variables")
    )
    path = tf.train.Checkpoint(net=loaded).write(tmp_path / "ckpt")
    fresh = Net()
    tf.train.Checkpoint(net=fresh).read(path).assert_consumed()
    np.testing.assert_allclose(fresh(x).numpy(), expected)
    assert "layers/0/w/.ATTRIBUTES/VARIABLE_VALUE" in names


def test_control_flow_and_printing_survive(tmp_path, capfd):
    class Flow(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
        def collatz(self, n):
            steps = tf.constant(0)
            while n > 1:
                if n % 2 == 0:
                    n = n // 2
                else:
                    n = 3 * n + 1
                steps += 1
            tf.print("steps:", steps)
            return steps

    m = Flow()
    assert m.collatz(tf.constant(27)).numpy() == 111
    capfd.readouterr()
    tf.saved_model.save(m, tmp_path / "flow")
    loaded = tf.saved_model.load(tmp_path / "flow")
    assert loaded.collatz(tf.constant(6)).numpy() == 8
    assert capfd.readouterr().err == "steps: 8\n"


def test_saving_a_loaded_model_again(tmp_path):
    m = MyModule(4.0)
    m.multiply(tf.constant([1.0]))
    tf.saved_model.save(m, tmp_path / "first")
    loaded = tf.saved_model.load(tmp_path / "first")
    loaded.weight.assign(5.0)
    tf.saved_model.save(loaded, tmp_path / "second")
    again = tf.saved_model.load(tmp_path / "second")
    assert again.multiply(tf.constant([2.0])).numpy().tolist() == [10.0]


def test_saving_over_a_model_replaces_it_and_keeps_other_files(tmp_path):
    path = tmp_path / "model"
    tf.saved_model.save(MyModule(1), path)
    first = MyModule(2)
    first.multiply(tf.constant(1))
    tf.saved_model.save(first, path)
    assert tf.saved_model.load(path).multiply(tf.constant(3)).numpy() == 6
    (path / "README").write_text("mine")
    second = MyModule(7)
    second.multiply(tf.constant(1))
    tf.saved_model.save(second, path)
    assert (path / "README").read_text() == "mine"
    assert tf.saved_model.load(path).multiply(tf.constant(3)).numpy() == 21
    assert sorted(os.listdir(tmp_path)) == ["model"]  # no staging directories left


def test_untracked_variables_and_bad_arguments(tmp_path):
    hidden = tf.Variable(1.0)

    class Leaky(tf.Module):
        @tf.function
        def f(self):
            return hidden + 1

    m = Leaky()
    m.f()
    with pytest.raises(ValueError, match="untracked"):
        tf.saved_model.save(m, tmp_path / "leaky")
    assert not (tmp_path / "leaky").exists()
    with pytest.raises(ValueError, match="Expected an object of type `Trackable`"):
        tf.saved_model.save(object(), tmp_path / "x")
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tf.saved_model.load(tmp_path / "nothing")
    with pytest.raises(tf.errors.NotFoundError):
        tf.saved_model.load(tmp_path / "nothing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.saved_model.save(MyModule(1), tmp_path / "file")

    class Odd(tf.Module):
        @tf.function
        def f(self, x, option):
            return x

    odd = Odd()
    odd.f(tf.constant(1), object())
    with pytest.raises(ValueError, match="Unable to save function 'f'"):
        tf.saved_model.save(odd, tmp_path / "odd")


def test_round_trip_on_each_device(tmp_path, device):
    m = MyModule(tf.constant([1.5, 2.5]))
    m.multiply(tf.constant([2.0, 2.0]))
    tf.saved_model.save(m, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    assert loaded.weight.device.endswith(device)
    assert loaded.multiply(tf.constant([2.0, 4.0])).numpy().tolist() == [3.0, 10.0]


def test_a_model_saved_on_the_gpu_runs_on_the_gpu(tmp_path):
    require_gpu()
    with tf.device("/GPU:0"):
        m = MyModule(tf.ones([256]) * 3)
        m.multiply(tf.ones([256]))
    assert m.weight.device.endswith("GPU:0")
    tf.saved_model.save(m, tmp_path / "gpu")
    loaded = tf.saved_model.load(tmp_path / "gpu")
    assert loaded.weight.device.endswith("GPU:0")
    result = loaded.multiply(tf.range(256, dtype=tf.float32))
    assert result.device.endswith("GPU:0")
    assert result.numpy().tolist() == [3.0 * i for i in range(256)]


# --- crash safety -----------------------------------------------------------------------------

_SAVER = """
import sys
import ferroflow as tf

path, first = sys.argv[1], int(sys.argv[2])
m = tf.Module()
m.weights = [tf.Variable(tf.zeros([256, 1024])) for _ in range(4)]
m.step = tf.Variable(0, dtype=tf.int64)
m.read = tf.function(lambda: m.step + 0)
m.read()
for value in range(first, first + 10000):
    for w in m.weights:
        w.assign(tf.fill([256, 1024], float(value)))
    m.step.assign(value)
    tf.saved_model.save(m, path)
    print(value, flush=True)
"""


def test_a_killed_saver_leaves_a_complete_model(tmp_path):
    rng = random.Random(0)
    path = str(tmp_path / "model")
    env = {**os.environ, "FERROFLOW_VISIBLE_DEVICES": "-1"}
    last = 0
    for round_number in range(4):
        first_value = 1000 * (round_number + 1)
        saver = subprocess.Popen(
            [sys.executable, "-c", _SAVER, path, str(first_value)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        try:
            line = saver.stdout.readline()
            assert line, "the saver died before its first save"
            time.sleep(rng.uniform(0.0, 0.3))
        finally:
            saver.send_signal(signal.SIGKILL)
            saver.wait()
        if not os.path.exists(path):  # killed between the two renames: the old one is beside
            siblings = [n for n in os.listdir(tmp_path) if n.startswith(".model.old")]
            assert siblings, os.listdir(tmp_path)
            os.rename(tmp_path / siblings[0], path)
        loaded = tf.saved_model.load(path)
        value = int(loaded.step.numpy())
        assert value >= last
        assert all(np.all(w.numpy() == value) for w in loaded.weights), "a model mixes saves"
        assert int(loaded.read().numpy()) == value
        last = value


# --- a fuzzed loader ------------------------------------------------------------------------------


def _mutations(text, rng):
    """Damaged versions of saved_model.json: cut, bytes flipped, numbers and names changed."""
    data = text.encode()
    yield data[: rng.randrange(len(data))]
    flipped = bytearray(data)
    for _ in range(3):
        flipped[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    yield bytes(flipped)
    numbers = [i for i, c in enumerate(text) if c.isdigit()]
    i = rng.choice(numbers)
    yield (text[:i] + rng.choice(["9", "99999", "-1", "0", "1e9", "null"]) + text[i + 1 :]).encode()
    words = ["float32", "int32", "bool", "Mul", "Placeholder", "user_object", "list", "[]", "{}"]
    for word in words:
        if word in text:
            spot = [k for k in range(len(text)) if text.startswith(word, k)]
            k = rng.choice(spot)
            replacement = rng.choice(words)
            yield (text[:k] + replacement + text[k + len(word) :]).encode()


def test_mutated_saved_models_fail_only_with_typed_errors(tmp_path):
    class Fuzz(tf.Module):
        def __init__(self):
            self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
            self.steps = [tf.Variable(3)]

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            y = tf.matmul(x, self.w)
            if tf.reduce_sum(y) > 0:
                y = tf.nn.relu(y) + tf.cast(self.steps[0], tf.float32)
            return tf.reduce_mean(y, axis=1)

    path = tmp_path / "fuzz"
    m = Fuzz()
    tf.saved_model.save(m, path)
    model_file = path / "saved_model.json"
    original = model_file.read_text()
    rng = random.Random(1234)
    typed = (tf.errors.OpError, ValueError, TypeError, OSError)
    outcomes = collections.Counter()
    for _ in range(40):
        for damaged in _mutations(original, rng):
            model_file.write_bytes(damaged)
            try:
                loaded = tf.saved_model.load(path)
            except typed as e:
                outcomes[type(e).__name__] += 1
                continue
            try:
                loaded(tf.constant([[1.0, -1.0], [2.0, 0.5]]))
                outcomes["ok"] += 1
            except typed as e:
                outcomes["call:" + type(e).__name__] += 1
    assert outcomes["DataLossError"] > 50, outcomes
    model_file.write_text(original)
    assert tf.saved_model.load(path)(tf.constant([[1.0, 0.0]])).numpy().tolist() == [4.5]


# --- Rust ---------------------------------------------------------------------------------------


def _built_example(name):
    """The path of the crate's example `name`, built as `make rust-test` builds the crate (its
    profile and features, tools/cargo_test_args), so that it is found built there."""
    cargo = os.environ.get("CARGO", "cargo")
    with open(os.path.join(REPO, "tools", "cargo_test_args")) as f:
        args = shlex.split(f.read())
    built = subprocess.run(
        [cargo, "build", "--quiet", "--message-format=json", *args, "--example", name],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    )
    for line in built.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == name:
            if message.get("executable"):
                return message["executable"]
    raise AssertionError(f"cargo built no executable for example {name}: {built.stdout[-2000:]}")


def test_a_model_saved_from_python_loads_in_rust(tmp_path):
    mod = MyModule(3)
    mod.multiply(tf.constant([1, 2, 3]))
    tf.saved_model.save(mod, tmp_path / "saved")
    binary = _built_example("load_saved_model")
    result = subprocess.run(
        [binary, str(tmp_path / "saved"), "multiply", "1,2,3"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout == "[3 6 9] int32 shape=[3]\n"
    failed = subprocess.run(
        [binary, str(tmp_path / "saved"), "divide", "1"], capture_output=True, text=True
    )
    assert failed.returncode == 1 and "no function 'divide'" in failed.stderr
    meta = json.loads((tmp_path / "saved" / "saved_model.json").read_text())
    assert meta["format"] == "ferroflow.saved_model" and meta["version"] == 2


def test_loaded_functions_are_differentiable(tmp_path):
    m = MyModule(3.0)
    m.multiply(tf.constant([1.0, 2.0]))
    tf.saved_model.save(m, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(loaded.multiply(x) ** 2)
    gx, gw = tape.gradient(y, [x, loaded.weight])
    # y = sum((w x)^2): dy/dx = 2 w^2 x, dy/dw = 2 w sum(x^2)
    np.testing.assert_allclose(gx.numpy(), [18.0, 36.0], rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), 30.0, rtol=1e-6)


def test_print_to_stdout_stays_on_stdout(tmp_path, capfd):
    class Talk(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.int32)])
        def say(self, x):
            tf.print("x =", x, output_stream=sys.stdout)
            return x

    tf.saved_model.save(Talk(), tmp_path / "talk")
    capfd.readouterr()
    tf.saved_model.load(tmp_path / "talk").say(tf.constant([4, 2]))
    assert capfd.readouterr() == ("x = [4 2]\n", "")
