"""Prints, per namespace, the share of TensorFlow's public names that ferroflow has.

TensorFlow's names come from its own interpreter (`FERROFLOW_TF_PYTHON`, else the repository's
`.venv-tf`), run in a subprocess; ferroflow's from this one. A name counts when
`getattr(ferroflow.<namespace>, name)` exists.

    python tools/api_coverage.py                 # the table
    python tools/api_coverage.py --missing tf.strings tf.sparse   # and what each lacks
"""

import argparse
import importlib
import json
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent

# The namespaces issue 18 measures, by their TensorFlow path.
NAMESPACES = (
    "tf",
    "tf.strings",
    "tf.ragged",
    "tf.sparse",
    "tf.debugging",
    "tf.config",
    "tf.bitwise",
    "tf.sets",
    "tf.autodiff",
    "tf.dtypes",
    "tf.experimental",
    "tf.experimental.numpy",
    "tf.test",
    "tf.math",
    "tf.nn",
    "tf.linalg",
    "tf.random",
    "tf.signal",
    "tf.image",
    "tf.io",
    "tf.data",
    "tf.keras",
    # Issue 20's Keras namespaces.
    "tf.keras.layers",
    "tf.keras.ops",
    "tf.keras.losses",
    "tf.keras.metrics",
    "tf.keras.optimizers",
    "tf.keras.callbacks",
    "tf.keras.utils",
    "tf.keras.applications",
    "tf.keras.backend",
    "tf.keras.mixed_precision",
    "tf.keras.constraints",
    # Issue 21's input pipelines and files.
    "tf.data.Dataset",
    "tf.data.experimental",
    "tf.io.gfile",
    "tf.summary",
    "tf.train",
)

_DUMP = """
import json, sys, warnings
warnings.filterwarnings("ignore")
import tensorflow as tf
out = {}
for path in json.loads(sys.argv[1]):
    obj = tf
    for part in path.split(".")[1:]:
        obj = getattr(obj, part, None)
    out[path] = None if obj is None else sorted(n for n in dir(obj) if not n.startswith("_"))
out["__version__"] = tf.__version__
print(json.dumps(out))
"""


def tensorflow_python():
    named = os.environ.get("FERROFLOW_TF_PYTHON")
    if named:
        return named
    local = REPO / ".venv-tf" / "bin" / "python"
    if local.exists():
        return str(local)
    sys.exit("TensorFlow is not installed: set FERROFLOW_TF_PYTHON or run `make tf-oracle`")


def tensorflow_names(namespaces):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(
        [tensorflow_python(), "-c", _DUMP, json.dumps(list(namespaces))],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def ferroflow_namespace(path):
    obj = importlib.import_module("ferroflow")
    for part in path.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def coverage(namespaces):
    """(namespace, TensorFlow's names, ferroflow's missing names) per namespace."""
    theirs = tensorflow_names(namespaces)
    rows = []
    for path in namespaces:
        names = theirs.get(path) or []
        ours = ferroflow_namespace(path)
        missing = [n for n in names if ours is None or not hasattr(ours, n)]
        rows.append((path, names, missing))
    return theirs.get("__version__", "?"), rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", nargs="*", default=(), help="namespaces to list gaps of")
    args = parser.parse_args(argv)
    version, rows = coverage(NAMESPACES)
    print(f"TensorFlow {version} public names that ferroflow has")
    print(f"  {'namespace':<18}{'TensorFlow':>11}{'ferroflow':>11}{'share':>8}")
    for path, names, missing in rows:
        have = len(names) - len(missing)
        share = f"{100 * have / len(names):.0f}%" if names else "-"
        print(f"  {path:<18}{len(names):>11}{have:>11}{share:>8}")
    for path, _, missing in rows:
        if path in args.missing:
            print(f"\n{path} lacks {len(missing)}: {', '.join(missing)}")


if __name__ == "__main__":
    main()
