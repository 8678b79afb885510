"""`tf.graph_util`: TensorFlow 2.21 keeps only `import_graph_def`, a TensorFlow 1 relic."""


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None):
    """Imports a `GraphDef` into the default graph. Eagerly TensorFlow imports into a hidden
    graph nobody reads: an empty `GraphDef` returns None (or `[]` when `return_elements` is
    given), as there. ferroflow has no `GraphDef` graphs to import nodes into, so a `GraphDef`
    with nodes raises `NotImplementedError` naming the TensorFlow 2 way.

    >>> import ferroflow as tf
    >>> tf.graph_util.import_graph_def(type("GraphDef", (), {"node": []})()) is None
    True
    """
    nodes = getattr(graph_def, "node", None)
    if nodes is None:
        raise TypeError(f"graph_def must be a GraphDef proto, got {type(graph_def).__name__}")
    if len(nodes):
        raise NotImplementedError(
            "tf.graph_util.import_graph_def is a TensorFlow 1 relic ferroflow does not run: "
            "save the model with tf.saved_model.save and load it with tf.saved_model.load, or "
            "write the computation as a tf.function"
        )
    return None if return_elements is None else []


__all__ = ["import_graph_def"]
