"""One model of every `keras.applications` family through SavedModels both ways, as a table.

Run with ferroflow's interpreter; it runs TensorFlow's (`FERROFLOW_TF_PYTHON`, else the
repository's `.venv-tf`) for TensorFlow's half:

    .venv/bin/python tools/applications_both_ways.py [--out DIR] [ResNet50 ...]

- TensorFlow to ferroflow: TensorFlow builds and exports each model
  (`tools/tf_saved_model_fixtures.py`'s `application_<name>` fixtures: seeded weights,
  calibrated batch statistics, 10 logits); ferroflow loads the directory and calls
  `serving_default` on the fixture's input.
- ferroflow to TensorFlow: ferroflow builds the same family, calibrates its batch statistics the
  same way and exports it; TensorFlow loads the directory and calls `serving_default`.

Each direction's largest difference from the writer's own outputs is printed, divided by the
largest output (logits of a deep untrained network reach a few hundred, so a plain absolute
tolerance says little). CI runs a few of these models (tests/parity); this covers them all.
"""

import argparse
import ast
import json
import os
import pathlib
import subprocess
import time

import numpy as np

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent

# The sizes TensorFlow's fixtures use; read without importing TensorFlow here.
SIZES_SOURCE = (REPOSITORY / "tools" / "tf_saved_model_fixtures.py").read_text()

TF_LOAD_AND_CALL = """
import json, os, sys, time
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
import numpy as np, tensorflow as tf
results = {}
for path in sys.argv[1:]:
    data = np.load(path + ".npz")
    start = time.perf_counter()
    serving = tf.saved_model.load(path).signatures["serving_default"]
    ((name, _),) = serving.structured_input_signature[1].items()
    (output,) = serving(**{name: tf.constant(data["x"])}).values()
    results[path] = {"y": output.numpy().tolist(), "load_and_call_s": time.perf_counter() - start}
print(json.dumps(results))
"""


def application_sizes():
    start = SIZES_SOURCE.index("APPLICATION_SIZES = {")
    end = SIZES_SOURCE.index("}", start)
    return ast.literal_eval(SIZES_SOURCE[start + len("APPLICATION_SIZES = ") : end + 1])


def tensorflow_python():
    default = REPOSITORY / ".venv-tf" / "bin" / "python"
    return os.environ.get("FERROFLOW_TF_PYTHON", str(default))


def relative_difference(got, want):
    scale = max(float(np.max(np.abs(want))), 1e-12)
    return float(np.max(np.abs(np.asarray(got) - want))) / scale


def tensorflow_to_ferroflow(tf, out, names):
    fixtures = [f"application_{n}" for n in names if not (out / f"application_{n}.npz").exists()]
    if fixtures:
        tool = REPOSITORY / "tools" / "tf_saved_model_fixtures.py"
        subprocess.run([tensorflow_python(), str(tool), str(out), *fixtures], check=True)
    results = {}
    for name in names:
        path = out / f"application_{name}"
        data = np.load(f"{path}.npz")
        feeds = {k.split(":", 1)[1]: data[k] for k in data.files if k.startswith("input:")}
        (want,) = [data[k] for k in data.files if k.startswith("output:")]
        start = time.perf_counter()
        serving = tf.saved_model.load(str(path)).signatures["serving_default"]
        (got,) = serving(**feeds).values()
        seconds = time.perf_counter() - start
        results[name] = (relative_difference(got.numpy(), want), seconds)
    return results


def calibrate_batch_norm(tf, model, x):
    """Batch statistics from one batch (as the TensorFlow fixtures do): untrained statistics
    shrink the activations until every model's logits agree with any other's."""
    for layer in model.layers:
        if isinstance(layer, tf.keras.layers.BatchNormalization):
            layer.momentum = 0.0
    model(x, training=True)


def ferroflow_to_tensorflow(tf, out, names, sizes):
    written = {}
    for name in names:
        tf.keras.utils.set_random_seed(1234)
        size = sizes[name]
        model = getattr(tf.keras.applications, name)(
            weights=None, input_shape=(size, size, 3), classes=10, classifier_activation=None
        )
        rng = np.random.default_rng(1235)
        calibrate_batch_norm(tf, model, rng.standard_normal((4, size, size, 3)).astype("float32"))
        x = rng.standard_normal((2, size, size, 3)).astype("float32")
        y = model(x, training=False).numpy()
        path = out / f"ferroflow_{name}"
        start = time.perf_counter()
        model.export(str(path), verbose=False)
        written[name] = (y, time.perf_counter() - start)
        np.savez(f"{path}.npz", x=x)
    paths = [str(out / f"ferroflow_{n}") for n in names]
    ran = subprocess.run(
        [tensorflow_python(), "-c", TF_LOAD_AND_CALL, *paths],
        check=True,
        capture_output=True,
        text=True,
    )
    loaded = json.loads(ran.stdout.splitlines()[-1])
    results = {}
    for name, path in zip(names, paths):
        y, export_s = written[name]
        got = np.asarray(loaded[path]["y"], "float32")
        results[name] = (relative_difference(got, y), export_s, loaded[path]["load_and_call_s"])
    return results


def main():
    sizes = application_sizes()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("/tmp/applications"))
    parser.add_argument("names", nargs="*", help=f"some of: {', '.join(sizes)}")
    args = parser.parse_args()
    names = args.names or list(sizes)
    unknown = set(names) - set(sizes)
    if unknown:
        parser.error(f"unknown families: {sorted(unknown)}")
    args.out.mkdir(parents=True, exist_ok=True)

    import ferroflow as tf

    imported = tensorflow_to_ferroflow(tf, args.out, names)
    exported = ferroflow_to_tensorflow(tf, args.out, names, sizes)
    print(
        f"{'model':<18} {'TF->ff rel. diff':>16} {'ff load+call s':>14} "
        f"{'ff->TF rel. diff':>16} {'ff export s':>11} {'TF load+call s':>14}"
    )
    for name in names:
        diff_in, load_s = imported[name]
        diff_out, export_s, tf_load_s = exported[name]
        print(
            f"{name:<18} {diff_in:>16.2e} {load_s:>14.2f} "
            f"{diff_out:>16.2e} {export_s:>11.2f} {tf_load_s:>14.2f}"
        )


if __name__ == "__main__":
    main()
