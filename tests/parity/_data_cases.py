"""Shared by the `test_data_*` parity files: a program that builds each dataset of a table of
expressions and describes it (element spec, cardinality, every element in order, nested
datasets listed), or names the class of what building or iterating it raised."""


def describe_value(tf, value):
    """An element as comparable parts: a nested dataset as its spec and elements, a
    RaggedTensor as its list, a TypeSpec as its repr; containers walked."""
    if isinstance(value, tf.data.Dataset):
        return {
            "spec": repr(value.element_spec),
            "elements": [describe_value(tf, e) for e in value],
        }
    if isinstance(value, tf.RaggedTensor):
        return {"ragged": value.to_list(), "shape": value.shape}
    if isinstance(value, tf.TypeSpec):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return type(value)(describe_value(tf, v) for v in value)
    if isinstance(value, dict):
        return {k: describe_value(tf, v) for k, v in value.items()}
    return value


def describe_datasets(tf, cases, device, limit=60):
    """For each (name, expression) of ``cases``: the dataset's spec, cardinality and first
    ``limit`` elements, the value for an expression that is not a dataset, or the class of
    the exception."""
    names = {"tf": tf, "D": tf.data.Dataset, "E": tf.data.experimental}
    out = {}
    for name, expression in cases:
        try:
            with tf.device(device):
                value = eval(expression, names)  # noqa: S307 - the test's own expression
                if isinstance(value, tf.data.Dataset):
                    out[name] = {
                        "spec": describe_value(tf, value.element_spec),
                        "cardinality": int(value.cardinality()),
                        "elements": [describe_value(tf, e) for e in value.take(limit)],
                    }
                else:
                    out[name] = describe_value(tf, value)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out[name] = type(e).__name__
    return out
