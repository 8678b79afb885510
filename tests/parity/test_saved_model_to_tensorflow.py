"""TensorFlow loads the SavedModels ferroflow writes (issue 22): `tf.saved_model.save` writes
`saved_model.pb` in TensorFlow's format beside ferroflow's own files.

ferroflow writes each model in a worker; then the same loading program runs under TensorFlow
(which reads `saved_model.pb`) and under ferroflow (which reads `saved_model.json`): their
results must agree, and must equal what the model computed before it was saved. Models: a
module with a variable, a `tf.cond`, a `while` loop, a method that assigns, and a signature;
Keras models (an MLP with dropout, a CNN with batch normalisation, an LSTM, an embedding model
and MobileNetV2) saved with a `serve` function whose batch size is unknown.
"""

import logging
import os

import numpy as np
import pytest

from .harness import assert_parity, make_request, run_ferroflow

DEVICES = ["CPU:0", "GPU:0"]


def write_module(tf, root):
    import os

    import numpy as np

    class Model(tf.Module):
        def __init__(self):
            self.v = tf.Variable([1.0, 2.0])
            self.w = tf.Variable([[1.0, -1.0], [0.5, 2.0]])
            self.steps = tf.Variable(3)

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            y = tf.matmul(x * self.v, self.w)
            if tf.reduce_sum(y) > 0:
                y = tf.nn.relu(y)
            else:
                y = -y
            i = tf.constant(0)
            while i < self.steps:
                y = y * 1.5 + tf.reduce_max(x[:, 1:])
                i += 1
            return {"y": y, "mean": tf.reduce_mean(y, axis=1), "first": y[0, ::-1]}

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def bump(self, d):
            before = self.v.read_value()
            self.v.assign_add(tf.fill([2], d))
            return before + self.v

    model = Model()
    path = os.path.join(root, "module")
    tf.saved_model.save(
        model, path, signatures={"serving_default": model.__call__.get_concrete_function()}
    )
    x = np.array([[1.0, 2.0], [-3.0, 0.5], [0.25, -1.0]], np.float32)
    np.savez(os.path.join(root, "expected.npz"), **{k: v.numpy() for k, v in model(x).items()})


def load_module(tf, root, device):
    import os

    import numpy as np

    def values(result):
        # Key order differs (TensorFlow's comes from its protobuf map): compare sorted.
        return {k: result[k].numpy() for k in sorted(result)}

    with tf.device(device):
        loaded = tf.saved_model.load(os.path.join(root, "module"))
        x = np.array([[1.0, 2.0], [-3.0, 0.5], [0.25, -1.0]], np.float32)
        called = values(loaded(x))
        negative = values(loaded(-x))
        signature = loaded.signatures["serving_default"]
        signed = values(signature(x=tf.constant(x)))
        bumped = loaded.bump(tf.constant(0.5)).numpy()
        after = values(loaded(x))
        loaded.steps.assign(1)
        fewer = loaded(x)["y"].numpy()
        saved = np.load(os.path.join(root, "expected.npz"))
        matches_saved = all(
            np.allclose(called[k], saved[k], rtol=1e-5) and np.allclose(signed[k], saved[k])
            for k in saved.files
        )
        return matches_saved, {
            "called": called,
            "negative": negative,
            "signed": signed,
            "signature_outputs": sorted(signature.structured_outputs),
            "bumped": bumped,
            "after": after,
            "fewer": fewer,
            "v": loaded.v.numpy(),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_tensorflow_loads_a_ferroflow_module(tf_oracle, tmp_path, device):
    written = run_ferroflow(make_request(write_module, args=(str(tmp_path),)))
    assert written[0] != "raised", written
    assert (tmp_path / "module" / "saved_model.pb").is_file()
    expected = assert_parity(tf_oracle, load_module, args=(str(tmp_path), device))
    assert expected[0] != "raised", expected
    # TensorFlow's results are also those the model gave before it was saved.
    assert expected[1][0] == ("py", "bool", True), expected[1][0]


def _keras_model(tf, name):
    keras = tf.keras
    if name == "mlp":
        layers = [
            keras.Input((8,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dropout(0.5),
            keras.layers.Dense(3, activation="softmax"),
        ]
        return keras.Sequential(layers), (8,), "float32"
    if name == "cnn":
        i = keras.Input((12, 12, 3))
        h = keras.layers.Conv2D(4, 3, padding="same", activation="relu")(i)
        h = keras.layers.MaxPooling2D()(h)
        h = keras.layers.BatchNormalization()(h)
        h = keras.layers.Flatten()(h)
        return keras.Model(i, keras.layers.Dense(2)(h)), (12, 12, 3), "float32"
    if name == "lstm":
        layers = [keras.Input((5, 3)), keras.layers.LSTM(4), keras.layers.Dense(1)]
        return keras.Sequential(layers), (5, 3), "float32"
    if name == "embedding":
        layers = [
            keras.Input((6,), dtype="int32"),
            keras.layers.Embedding(20, 4),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
        return keras.Sequential(layers), (6,), "int32"
    if name == "depthwise":
        # MobileNetV2's own blocks, small enough to compare at 1e-5.
        i = keras.Input((9, 9, 4))
        h = keras.layers.ZeroPadding2D(((0, 1), (0, 1)))(i)
        h = keras.layers.DepthwiseConv2D(3, strides=2, use_bias=False)(h)
        h = keras.layers.BatchNormalization(epsilon=1e-3, momentum=0.999)(h)
        h = keras.layers.ReLU(6.0)(h)
        h = keras.layers.Conv2D(6, 1, use_bias=False)(h)
        h = keras.layers.GlobalAveragePooling2D()(h)
        return keras.Model(i, h), (9, 9, 4), "float32"
    model = keras.applications.MobileNetV2(
        weights=None, input_shape=(32, 32, 3), alpha=0.35, classes=5, classifier_activation=None
    )
    return model, (32, 32, 3), "float32"


def _calibrate_batch_norms(tf, model, x):
    """Untrained, MobileNetV2's activations shrink to ~1e-11 (in TensorFlow too), which would
    let any two computations agree: set each BatchNormalization's statistics from a batch."""
    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            layer.momentum = 0.0
    model(x, training=True)


def write_keras(tf, root, name, how="module"):
    import os

    import numpy as np

    model, shape, dtype = _keras_model(tf, name)
    rng = np.random.default_rng(7)
    if dtype == "int32":
        x = rng.integers(0, 20, (5,) + shape).astype(dtype)
    else:
        x = rng.standard_normal((5,) + shape).astype(dtype)
    path = os.path.join(root, name)
    if name in ("mobilenet_v2", "depthwise"):
        _calibrate_batch_norms(tf, model, x)
    if how == "save":
        # Keras 2's `model.save(directory)`: the call traced for the first call's shapes.
        y = model(x, training=False).numpy()
        model.save(path)
    else:
        model(x[:2])  # built with another batch size than the saved function is called with
        if how == "export":
            model.export(path, verbose=False)
            # TensorFlow's Keras names a variable's TensorFlow variable by its path.
            paths = sorted(f"{v.path}:0" for v in model.variables)
            np.save(os.path.join(root, f"{name}_names.npy"), np.array(paths))
            y = model(x, training=False).numpy()
        else:
            wrapper = tf.Module()
            wrapper.model = model
            spec = tf.TensorSpec((None,) + shape, dtype)
            wrapper.serve = tf.function(lambda x: model(x, training=False), input_signature=[spec])
            y = wrapper.serve(x).numpy()
            tf.saved_model.save(wrapper, path)
    np.save(os.path.join(root, f"{name}_x.npy"), x)
    np.save(os.path.join(root, f"{name}_y.npy"), y)


def load_keras(tf, root, name, device, how="module"):
    import os

    import numpy as np

    close = {"rtol": 1e-5, "atol": 1e-6}
    if name == "mobilenet_v2":
        # 50 layers with statistics from one batch magnify float rounding: ferroflow's own CPU
        # and GPU kernels differ by 1.4e-3 on these outputs (|y| <= 1.7). The blocks' ops are
        # compared at 1e-5 in the "depthwise" model.
        close = {"rtol": 1e-2, "atol": 1e-2}

    with tf.device(device):
        loaded = tf.saved_model.load(os.path.join(root, name))
        x = np.load(os.path.join(root, f"{name}_x.npy"))
        saved = np.load(os.path.join(root, f"{name}_y.npy"))
        if how == "save":
            whole = loaded(x).numpy()
            return bool(np.allclose(whole, saved, **close)), whole
        whole, part = loaded.serve(x).numpy(), loaded.serve(x[:3]).numpy()
        matches_saved = np.allclose(whole, saved, **close) and np.allclose(part, saved[:3], **close)
        if how == "export":
            signed = loaded.signatures["serving_default"](tf.constant(x))
            (signed,) = signed.values()
            matches_saved = matches_saved and np.allclose(signed.numpy(), saved, **close)
            names = sorted(v.name for v in loaded.variables)
            paths = np.load(os.path.join(root, f"{name}_names.npy")).tolist()
            return bool(matches_saved and names == paths), whole, part, names
        return bool(matches_saved), whole, part


@pytest.mark.parametrize("name", ["mlp", "cnn", "lstm", "embedding", "depthwise", "mobilenet_v2"])
@pytest.mark.parametrize("device", DEVICES)
def test_tensorflow_loads_ferroflow_keras_models(tf_oracle, tmp_path, name, device):
    helpers = [_keras_model, _calibrate_batch_norms]
    request = make_request(write_keras, args=(str(tmp_path), name), helpers=helpers)
    written = run_ferroflow(request)
    assert written[0] != "raised", written
    assert (tmp_path / name / "saved_model.pb").is_file()
    tolerance = {"rtol": 1e-2, "atol": 1e-2} if name == "mobilenet_v2" else {}
    expected = assert_parity(
        tf_oracle,
        load_keras,
        args=(str(tmp_path), name, device),
        helpers=[_keras_model],
        **tolerance,
    )
    assert expected[0] != "raised", expected
    # TensorFlow's results are also those the model gave before it was saved.
    assert expected[1][0] == ("py", "bool", True), expected[1][0]


@pytest.mark.parametrize("how", ["export", "save"])
@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_tensorflow_loads_keras_export_and_save(tf_oracle, tmp_path, name, how):
    """`model.export(dir)` (Keras 3) and `model.save(dir)` (the seeds' Keras 2 form) write
    directories TensorFlow loads, with the model's results."""
    args = (str(tmp_path), name, how)
    helpers = [_keras_model, _calibrate_batch_norms]
    written = run_ferroflow(make_request(write_keras, args=args, helpers=helpers))
    assert written[0] != "raised", written
    assert (tmp_path / name / "saved_model.pb").is_file()
    result = assert_parity(
        tf_oracle, load_keras, args=(str(tmp_path), name, "CPU:0", how), helpers=[_keras_model]
    )
    assert result[0] != "raised", result
    assert result[1][0] == ("py", "bool", True), result[1][0]


def test_a_model_tensorflow_cannot_hold_is_saved_for_ferroflow_with_a_warning(tmp_path, caplog):
    import ferroflow as tf

    class Shuffling(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def __call__(self, x):
            return tf.reduce_sum(tf.random.shuffle(x)) + x

    path = str(tmp_path / "shuffling")
    # Kept alive: a loaded PyFunc calls the Python function registered by its tracing.
    shufflings = [Shuffling(), Shuffling()]
    tf.saved_model.save(shufflings[0], path)  # a TensorFlow-format model first
    (tmp_path / "shuffling" / "notes.txt").write_text("kept")  # the user's own file
    assert os.path.exists(os.path.join(path, "saved_model.pb")) is False

    class Writable(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
        def __call__(self, x):
            return x + 2.0

    tf.saved_model.save(Writable(), path)
    assert os.path.exists(os.path.join(path, "saved_model.pb"))
    with caplog.at_level(logging.WARNING, logger="ferroflow"):
        tf.saved_model.save(shufflings[1], path)
    assert "TensorFlow cannot load it" in caplog.text and "PyFunc" in caplog.text
    # The earlier model's TensorFlow file is gone: TensorFlow would have loaded a stale model.
    assert not os.path.exists(os.path.join(path, "saved_model.pb"))
    assert (tmp_path / "shuffling" / "notes.txt").read_text() == "kept"
    np.testing.assert_allclose(tf.saved_model.load(path)(tf.constant([1.0, 2.0])), [4.0, 5.0])


@pytest.mark.parametrize("name", ["cnn", "lstm"])
def test_ferroflow_reads_its_own_tensorflow_format(tmp_path, name):
    """The TensorFlow file alone (ferroflow's own removed) loads through ferroflow's reader of
    TensorFlow's format, with the saved model's results."""
    import ferroflow as tf

    helpers = [_keras_model, _calibrate_batch_norms]
    written = run_ferroflow(make_request(write_keras, args=(str(tmp_path), name), helpers=helpers))
    assert written[0] != "raised", written
    (tmp_path / name / "saved_model.json").unlink()
    loaded = tf.saved_model.load(str(tmp_path / name))
    x = np.load(tmp_path / f"{name}_x.npy")
    np.testing.assert_allclose(
        loaded.serve(x).numpy(), np.load(tmp_path / f"{name}_y.npy"), rtol=1e-5, atol=1e-6
    )


def run_in_a_session(tf, root, name):
    """TensorFlow 1's loader (TensorFlow Serving's and `saved_model_cli run`'s way): the
    MetaGraph's graph in a session, its variables restored by running the saver's restore op,
    the signature run by its tensor names; then the saver's save op writes a checkpoint."""
    import os

    import numpy as np

    path = os.path.join(root, name)
    expected = np.load(os.path.join(root, f"{name}_signature.npz"))
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta = tf.compat.v1.saved_model.load(session, ["serve"], path)
        signature = meta.signature_def["serving_default"]
        (key,) = signature.inputs
        feeds = {signature.inputs[key].name: expected["input"]}
        fetches = {k: v.name for k, v in signature.outputs.items()}
        outputs = session.run(fetches, feeds)
        saver = meta.saver_def
        prefix = os.path.join(root, "resaved")
        written = session.run(saver.save_tensor_name, {saver.filename_tensor_name: prefix})
    matches = sorted(outputs) == sorted(k[7:] for k in expected.files if k.startswith("output:"))
    for k, v in outputs.items():
        matches = matches and np.allclose(v, expected[f"output:{k}"], rtol=1e-5, atol=1e-6)
    resaved = tf.train.load_checkpoint(prefix)
    original = tf.train.load_checkpoint(os.path.join(path, "variables", "variables"))
    keys = sorted(original.get_variable_to_shape_map())
    same = all(np.array_equal(resaved.get_tensor(k), original.get_tensor(k)) for k in keys)
    return bool(matches), written.decode() == prefix, bool(same), len(keys)


@pytest.mark.parametrize("name", ["module", "mlp", "cnn"])
def test_tensorflow_1_loaders_restore_through_the_saver(tf_oracle, tmp_path, name):
    """`saver_def`: TensorFlow 1-style loaders get the saved variables and the signature's
    results (as ferroflow computes them), and the save op writes the same values back."""
    import ferroflow as tf

    if name == "module":
        written = run_ferroflow(make_request(write_module, args=(str(tmp_path),)))
        x = np.array([[1.0, 2.0], [-3.0, 0.5]], np.float32)
    else:
        helpers = [_keras_model, _calibrate_batch_norms]
        args = (str(tmp_path), name, "export")
        written = run_ferroflow(make_request(write_keras, args=args, helpers=helpers))
        x = np.load(tmp_path / f"{name}_x.npy")
    assert written[0] != "raised", written
    signature = tf.saved_model.load(str(tmp_path / name)).signatures["serving_default"]
    (key,) = signature.structured_input_signature[1]
    results = signature(**{key: tf.constant(x)})
    outputs = {f"output:{k}": v.numpy() for k, v in results.items()}
    np.savez(tmp_path / f"{name}_signature.npz", input=x, **outputs)
    ran = tf_oracle.run(make_request(run_in_a_session, args=(str(tmp_path), name)))
    true = ("py", "bool", True)
    assert ran[0] == "tuple" and ran[1][:3] == [true, true, true], ran


def write_sorting(tf, root):
    """Sorts (TopKV2, and for ascending order the reversed values' TopKV2) over rows whose
    length is known and unknown, with ties, -0.0 and the int32 minimum."""
    import os

    import numpy as np

    class Sorting(tf.Module):
        @tf.function(
            input_signature=[
                tf.TensorSpec([None, None], tf.float32),
                tf.TensorSpec([None, 5], tf.int32),
            ]
        )
        def __call__(self, x, i):
            return {
                "up": tf.sort(x),
                "down": tf.sort(x, direction="DESCENDING"),
                "order": tf.argsort(x, axis=0),
                "top": tf.math.top_k(x, 2).values,
                "top_index": tf.math.top_k(x, 2).indices,
                "ints_up": tf.sort(i),
                "ints_order": tf.argsort(i, direction="DESCENDING"),
            }

    module = Sorting()
    path = os.path.join(root, "sorting")
    tf.saved_model.save(module, path)
    x, i = sorting_inputs()
    np.savez(os.path.join(root, "expected.npz"), **{k: v.numpy() for k, v in module(x, i).items()})


def sorting_inputs():
    import numpy as np

    x = np.array([[3.0, -0.0, 1.5, 0.0, 1.5, -7.0], [2.0, 2.0, -1.0, 9.0, 0.0, 2.0]], np.float32)
    low = np.iinfo(np.int32).min
    i = np.array([[4, low, -2, 4, 0], [low, 7, 7, -1, 3]], np.int32)
    return x, i


def load_sorting(tf, root):
    import os

    import numpy as np

    loaded = tf.saved_model.load(os.path.join(root, "sorting"))
    x, i = sorting_inputs()
    got = {k: v.numpy() for k, v in sorted(loaded(x, i).items())}
    saved = np.load(os.path.join(root, "expected.npz"))
    same = all(np.array_equal(got[k], saved[k]) for k in saved.files)
    # -0.0 and 0.0 tie: the sign bits say which one came first.
    return same, got, {k: np.signbit(v).tolist() for k, v in got.items() if v.dtype.kind == "f"}


def test_tensorflow_runs_ferroflows_sorts(tf_oracle, tmp_path):
    written = run_ferroflow(
        make_request(write_sorting, args=(str(tmp_path),), helpers=[sorting_inputs])
    )
    assert written[0] != "raised", written
    assert (tmp_path / "sorting" / "saved_model.pb").is_file()
    expected = assert_parity(
        tf_oracle, load_sorting, args=(str(tmp_path),), helpers=[sorting_inputs]
    )
    assert expected[0] != "raised", expected
    assert expected[1][0] == ("py", "bool", True), expected[1][0]


def write_random(tf, root):
    import os

    class Drawing(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
        def __call__(self, x):
            return {
                "uniform": tf.random.uniform([3, 4], 2.0, 5.0, seed=7),
                "ints": tf.random.uniform([50], 0, 10, dtype=tf.int32, seed=8),
                "normal": tf.random.normal([2000], 1.0, 2.0, seed=9),
                "truncated": tf.random.truncated_normal([2000], -1.0, 0.5, seed=10),
                "dropped": tf.nn.dropout(x, 0.5, seed=11),
            }

    tf.random.set_seed(3)
    tf.saved_model.save(Drawing(), os.path.join(root, "random"))


def load_random(tf, root):
    """What TensorFlow's random ops promise: shapes, dtypes, ranges and moments, new numbers
    on every call, and, seeded, the same sequence again from a fresh load."""
    import os

    import numpy as np

    path = os.path.join(root, "random")
    x = np.ones((8, 4), np.float32)
    loaded = tf.saved_model.load(path)
    first = {k: v.numpy() for k, v in loaded(x).items()}
    second = {k: v.numpy() for k, v in loaded(x).items()}
    again = {k: v.numpy() for k, v in tf.saved_model.load(path)(x).items()}
    return {
        "shapes": {k: v.shape for k, v in sorted(first.items())},
        "dtypes": {k: v.dtype.name for k, v in sorted(first.items())},
        "uniform_in_range": bool(((first["uniform"] >= 2) & (first["uniform"] < 5)).all()),
        "ints_in_range": bool(((first["ints"] >= 0) & (first["ints"] < 10)).all()),
        "normal_moments": bool(
            abs(first["normal"].mean() - 1.0) < 0.2 and abs(first["normal"].std() - 2.0) < 0.2
        ),
        "truncated_within_two_stddevs": bool((np.abs(first["truncated"] + 1.0) <= 1.0).all()),
        "dropout_values": sorted(np.unique(first["dropped"]).tolist()),
        "calls_differ": {k: not np.array_equal(first[k], second[k]) for k in sorted(first)},
        "loads_repeat": {k: np.array_equal(first[k], again[k]) for k in sorted(first)},
    }


def test_tensorflow_runs_ferroflows_random_draws(tf_oracle, tmp_path):
    written = run_ferroflow(make_request(write_random, args=(str(tmp_path),)))
    assert written[0] != "raised", written
    assert (tmp_path / "random" / "saved_model.pb").is_file()
    expected = assert_parity(tf_oracle, load_random, args=(str(tmp_path),))
    assert expected[0] != "raised", expected


def write_printing(tf, root):
    import os

    class Printing(tf.Module):
        def __init__(self, log):
            self.log = log

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            total = tf.reduce_sum(x)
            stream = "file://" + self.log
            tf.print("x is", x, {"sum": total}, "{} kept", output_stream=stream, summarize=2)
            tf.print(tf.cast(x, tf.int32), end="|", sep=", ", output_stream=stream)
            return x + 1.0

    tf.saved_model.save(Printing(os.path.join(root, "printed.txt")), os.path.join(root, "printing"))


def load_printing(tf, root):
    """Both runs print to the file the saved function names: the text must agree."""
    import os

    import numpy as np

    log = os.path.join(root, "printed.txt")
    if os.path.exists(log):
        os.remove(log)
    loaded = tf.saved_model.load(os.path.join(root, "printing"))
    y = loaded(np.array([1.5, -2.0, 3.25, 4.0, 8.0], np.float32)).numpy()
    loaded(np.array([0.5], np.float32))
    with open(log) as f:
        return y, f.read()


def test_tensorflow_runs_ferroflows_prints(tf_oracle, tmp_path):
    written = run_ferroflow(make_request(write_printing, args=(str(tmp_path),)))
    assert written[0] != "raised", written
    assert (tmp_path / "printing" / "saved_model.pb").is_file()
    expected = assert_parity(tf_oracle, load_printing, args=(str(tmp_path),))
    assert expected[0] != "raised", expected


def write_ordered_effects(tf, root):
    import os

    class Effects(tf.Module):
        def __init__(self, log):
            self.log = log
            self.v = tf.Variable(0.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def __call__(self, x):
            stream = "file://" + self.log
            tf.print("one", x, output_stream=stream)
            r = tf.random.uniform([1])
            self.v.assign_add(1.0)
            tf.print("two", output_stream=stream)
            tf.print("three", self.v, output_stream=stream)
            return x + r

    tf.saved_model.save(Effects(os.path.join(root, "printed.txt")), os.path.join(root, "effects"))


def _prints_before(name, nodes, parents):
    """How many PrintV2 nodes `name` depends on, through data and control inputs."""
    seen, todo = set(), [name]
    while todo:
        for p in parents[todo.pop()] - seen:
            seen.add(p)
            todo.append(p)
    return sum(nodes[s].op == "PrintV2" for s in seen)


def effect_order(tf, path):
    """For the saved function with prints: each stateful node's type and how many prints run
    before it by data or control edges (TensorFlow chains its prints, so 0, 1, 2)."""
    import os

    from tensorflow.core.protobuf import saved_model_pb2

    model = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        model.ParseFromString(f.read())
    kinds = {"PrintV2": "print", "RandomUniform": "random"}
    kinds.update(AssignVariableOp="assign", AssignAddVariableOp="assign")
    found = []
    for fn in model.meta_graphs[0].graph_def.library.function:
        nodes = {n.name: n for n in fn.node_def}
        parents = {
            n.name: {i.lstrip("^").split(":")[0] for i in n.input} & nodes.keys()
            for n in fn.node_def
        }
        summary = sorted(
            (kinds[n.op], _prints_before(n.name, nodes, parents))
            for n in fn.node_def
            if n.op in kinds
        )
        if any(k == "print" for k, _ in summary):
            found.append(summary)
    return found


def test_saved_prints_keep_their_order_as_tensorflows(tf_oracle, tmp_path):
    """Regression: ferroflow's saved prints had no control edge between them, so TensorFlow ran
    them in either order (CI saw the second print's text first)."""
    ours, theirs = tmp_path / "ferroflow", tmp_path / "tensorflow"
    ours.mkdir()
    theirs.mkdir()
    assert run_ferroflow(make_request(write_ordered_effects, args=(str(ours),)))[0] != "raised"
    written = tf_oracle.run(make_request(write_ordered_effects, args=(str(theirs),)))
    assert written[0] != "raised", written

    def order_in(root):
        request = make_request(
            effect_order, args=(str(root / "effects"),), helpers=[_prints_before]
        )
        return tf_oracle.run(request)

    expected, actual = order_in(theirs), order_in(ours)
    assert expected[0] != "raised", expected
    assert expected[1], expected

    def summaries(result):
        return [[tuple(p) for p in s] for s in result[1]]

    assert summaries(actual) == summaries(expected)
