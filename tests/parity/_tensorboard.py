"""TensorBoard's own reader, run in TensorFlow's environment, over the event files that a
parity program wrote under TensorFlow and under ferroflow: each events file becomes a list of
comparable records (wall times left out), so a test compares them with ``==``."""

import math
import os
import pickle
import subprocess

import pytest

from .harness import tensorflow_python

_READER = r"""
import glob, os, pickle, sys
import numpy as np
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.util import tensor_util


def value_record(step, value):
    tensor = tensor_util.make_ndarray(value.tensor)
    plugin = value.metadata.plugin_data.plugin_name
    if plugin == "images":
        import tensorflow as tf  # PNG bytes are the encoder's own: compare the pixels
        flat = list(tensor.reshape(-1))
        tensor = [bytes(flat[0]), bytes(flat[1])] + [
            tf.io.decode_png(png).numpy().tolist() for png in flat[2:]
        ]
    elif plugin == "graph_run_metadata_graph":
        # The graphs are each framework's own: compare that they are there and parse.
        from tensorboard.compat.proto import config_pb2
        run = config_pb2.RunMetadata.FromString(tensor.item())
        graphs = run.function_graphs
        tensor = len(graphs) > 0, all(len(g.pre_optimization_graph.node) > 0 for g in graphs)
    elif plugin == "graphs":  # a GraphDef event, as the loader migrates it
        from tensorboard.compat.proto import graph_pb2
        tensor = len(graph_pb2.GraphDef.FromString(tensor.reshape(-1)[0]).node) > 0
    elif tensor.dtype == object:
        tensor = [bytes(v) for v in tensor.reshape(-1)], tensor.shape
    else:
        tensor = tensor.dtype.str, tensor.shape, tensor.tolist()
    return (step, value.tag, plugin, value.metadata.plugin_data.content,
            value.metadata.summary_description, tensor)


def read(path):
    records = []
    for event in event_file_loader.EventFileLoader(path).Load():
        if event.HasField("file_version"):
            records.append(("file_version", event.file_version, event.source_metadata.writer,
                            event.wall_time == int(event.wall_time)))
        elif event.HasField("graph_def"):
            from tensorboard.compat.proto import graph_pb2
            graph = graph_pb2.GraphDef.FromString(event.graph_def)
            records.append(("graph_def", event.step, len(graph.node) > 0))
        else:
            for value in event.summary.value:
                records.append(value_record(event.step, value))
    return records


result = {}
for root in sys.argv[1:]:
    for path in sorted(glob.glob(os.path.join(root, "**", "events.out.tfevents.*"),
                                 recursive=True)):
        key = os.path.relpath(os.path.dirname(path), root)
        result.setdefault(root, {}).setdefault(key, []).append(
            (os.path.basename(path), read(path)))
sys.stdout.buffer.write(pickle.dumps(result))
"""


def read_event_files(*roots):
    """``{root: {subdirectory: [(file name, records)]}}`` for
    every events file under each root, read by TensorBoard's `EventFileLoader`."""
    python = tensorflow_python()
    if python is None:
        pytest.skip("TensorFlow's environment is missing")
    # TensorFlow's environment only: a PYTHONPATH meant for ferroflow's side stays out.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [python, "-c", _READER, *map(str, roots)],
        capture_output=True,
        timeout=120,
        check=False,
        env=env,
    )
    if done.returncode != 0:
        pytest.fail(f"TensorBoard's reader failed:\n{done.stderr.decode()[-3000:]}")
    return pickle.loads(done.stdout)


def same_records(mine, expected, rtol=1e-5):
    """Whether two records are equal, floats within ``rtol`` (training runs differ in the
    last bits between the frameworks)."""
    if isinstance(expected, float) and isinstance(mine, float):
        return math.isclose(mine, expected, rel_tol=rtol, abs_tol=1e-7)
    if isinstance(expected, (list, tuple)) and isinstance(mine, (list, tuple)):
        return len(mine) == len(expected) and all(
            same_records(a, b, rtol) for a, b in zip(mine, expected)
        )
    return mine == expected
