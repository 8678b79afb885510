"""`tf.summary.graph` and `trace_on`/`trace_export` against TensorFlow: the events TensorBoard
reads (a `GraphDef` event at step 0; a "graph_run_metadata_graph" summary whose `RunMetadata`
holds the called functions' graphs) and the errors. The graphs themselves are each
framework's own (TensorFlow's ops are not ferroflow's), so only their presence is compared."""

from ._outcomes import error_classes
from ._tensorboard import read_event_files
from .harness import assert_parity


def graphs(tf, root):
    import os

    def error(thunk):
        return error_classes([thunk])[0]

    @tf.function
    def f(x):
        return tf.nn.relu(x * 2.0 + 1.0)

    @tf.function
    def inside():
        return tf.summary.graph(f.get_concrete_function(tf.constant(1.0)).graph)

    out = [bool(tf.summary.graph(f.get_concrete_function(tf.constant(1.0)).graph))]
    writer = tf.summary.create_file_writer(os.path.join(root, tf.__name__))
    with writer.as_default():
        out.append(bool(tf.summary.graph(f.get_concrete_function(tf.constant(1.0)).graph)))
        out.append(error(lambda: tf.summary.graph("not a graph")))
        out.append(error(inside))
        with tf.summary.record_if(False):
            out.append(bool(tf.summary.graph(f.get_concrete_function(tf.constant(1.0)).graph)))
        out.append(error(lambda: tf.summary.trace_export("none")))
        tf.summary.trace_on(graph=True, profiler=False)
        out.append(float(f(tf.constant(3.0))))
        tf.summary.trace_export(name="my_trace", step=2)
        out.append(error(lambda: tf.summary.trace_export("again", step=3)))
        tf.summary.trace_on()
        f(tf.constant(1.0))
        tf.summary.trace_off()
        tf.summary.trace_off()
        out.append(error(lambda: tf.summary.trace_export("off", step=4)))
    writer.close()
    return out


def test_graph_and_trace_events(tf_oracle, tmp_path):
    assert_parity(tf_oracle, graphs, args=(str(tmp_path),), helpers=[error_classes])
    logs = read_event_files(tmp_path / "tensorflow", tmp_path / "ferroflow")
    [(_, theirs)] = logs[str(tmp_path / "tensorflow")]["."]
    [(_, ours)] = logs[str(tmp_path / "ferroflow")]["."]
    assert ours == theirs
    assert [r[:3] for r in ours[1:]] == [
        ("graph_def", 0, True),
        (0, "__run_graph__", "graphs"),  # the loader also gives the graph as a summary
        (2, "my_trace", "graph_run_metadata_graph"),
    ]
