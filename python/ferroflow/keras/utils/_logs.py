"""The logs `fit`, `evaluate` and the callbacks pass around: dicts of metric values."""

__all__ = ["flatten_logs", "pythonify_logs"]


def pythonify_logs(logs):
    """``logs`` with nested dicts flattened, keys sorted and values made Python floats where
    they convert (tensors are read), as Keras gives them to callbacks."""
    result = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            result.update(pythonify_logs(value))
            continue
        try:
            value = float(value)
        except (TypeError, ValueError):
            pass
        result[key] = value
    return result


def flatten_logs(logs):
    """``logs`` with nested dicts flattened and keys sorted, values as given."""
    result = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            result.update(flatten_logs(value))
        else:
            result[key] = value
    return result
