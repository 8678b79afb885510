"""SavedModels whose functions take or return composite values, against TensorFlow: each
framework saves a module and loads it back (ferroflow's own format; TensorFlow's SavedModel
files are not read by ferroflow). RaggedTensor and SparseTensor arguments (input signatures of
RaggedTensorSpec/SparseTensorSpec, and a function traced by a call) and results, signatures
with composite inputs (one keyword per component: ``x``, ``x_1``...) and outputs, calls that do
not fit (TypeError for a function with an input signature, ValueError otherwise), registered
ExtensionTypes as arguments and results (an unregistered one cannot be saved:
NotEncodableError), and a loaded model saved again. Dicts a loaded function returns are
compared by sorted key (TensorFlow's order is its protobuf map's)."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _describe(tf, value):
    """Comparable parts: a RaggedTensor by its components, an ExtensionType by its fields, a
    TypeSpec by its repr and itself, dicts by sorted key; containers walked."""
    if isinstance(value, tf.RaggedTensor):
        return {
            "flat_values": value.flat_values,
            "splits": list(value.nested_row_splits),
            "shape": value.shape,
            "list": value.to_list(),
        }
    if isinstance(value, tf.TypeSpec):
        return (repr(value), value)
    if hasattr(type(value), "_tf_extension_type_fields"):
        fields = [f.name for f in type(value)._tf_extension_type_fields()]
        described = {f: _describe(tf, getattr(value, f)) for f in fields}
        return {"type": type(value).__name__, **described}
    if isinstance(value, (list, tuple)):
        return type(value)(_describe(tf, v) for v in value)
    if isinstance(value, dict):
        return {k: _describe(tf, value[k]) for k in sorted(value)}
    return value


def _attempt(tf, thunk):
    try:
        return _describe(tf, thunk())
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _ragged_and_sparse(tf, device):
    import tempfile

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.scale = tf.Variable(2.0)

        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
        def doubled(self, x):
            return x * self.scale

        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
        def lengths(self, x):
            return x.row_lengths()

        @tf.function(
            input_signature=[
                tf.RaggedTensorSpec([None, None, None], tf.int32, ragged_rank=2),
                tf.TensorSpec([], tf.int32),
            ]
        )
        def nested(self, x, k):
            return {"shifted": x + k, "values": x.flat_values, "rows": x.nrows()}

        @tf.function(input_signature=[tf.SparseTensorSpec([None, 4], tf.float32)])
        def dense(self, x):
            return tf.sparse.to_dense(x)

        # (Unknown dims: TensorFlow's product of a traced SparseTensor forgets the known ones,
        # ferroflow's keeps them.)
        @tf.function(input_signature=[tf.SparseTensorSpec([None, None], tf.float32)])
        def tripled(self, x):
            return x * 3.0

        @tf.function
        def traced(self, x):
            return x.flat_values + 1.0, x

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def plain(self, x):
            return x * 2.0

    with tf.device(device):
        model = Model()
        model.traced(tf.ragged.constant([[1.0], [2.0, 3.0]]))
        path = tempfile.mkdtemp()
        tf.saved_model.save(model, path)
        loaded = tf.saved_model.load(path)
        rt = tf.ragged.constant([[1.0, 2.0], [3.0], []])
        nested = tf.ragged.constant([[[1, 2], [3]], [], [[4], [5, 6, 7]]])
        st = tf.sparse.SparseTensor([[0, 1], [2, 3]], [1.0, 2.0], [3, 4])
        return {
            "doubled": _attempt(tf, lambda: loaded.doubled(rt)),
            "lengths": _attempt(tf, lambda: loaded.lengths(rt)),
            "nested": _attempt(tf, lambda: loaded.nested(nested, tf.constant(10))),
            "dense": _attempt(tf, lambda: loaded.dense(st)),
            "tripled": _attempt(tf, lambda: loaded.tripled(st)),
            "traced": _attempt(tf, lambda: loaded.traced(tf.ragged.constant([[5.0], [6.0, 7.0]]))),
            "traced_other_shape": _attempt(
                tf, lambda: loaded.traced(tf.ragged.constant([[[5.0]], [[6.0, 7.0]]]))
            ),
            "dense_for_ragged": _attempt(tf, lambda: loaded.doubled(tf.constant([[1.0, 2.0]]))),
            "ints_for_floats": _attempt(tf, lambda: loaded.doubled(tf.ragged.constant([[1, 2]]))),
            "ragged_rank_2": _attempt(
                tf, lambda: loaded.doubled(tf.ragged.constant([[[1.0, 2.0]]]))
            ),
            "ragged_for_sparse": _attempt(tf, lambda: loaded.dense(rt)),
            "plain_wrong_shape": _attempt(tf, lambda: loaded.plain(tf.ones([2, 4]))),
            "plain": _attempt(tf, lambda: loaded.plain(tf.ones([2, 3]))),
            "input_specs": [
                loaded.doubled.concrete_functions[0].structured_input_signature,
                loaded.nested.concrete_functions[0].structured_input_signature,
                loaded.dense.concrete_functions[0].structured_input_signature,
            ],
            "output_specs": [
                loaded.doubled.concrete_functions[0].structured_outputs,
                loaded.tripled.concrete_functions[0].structured_outputs,
            ],
            "scale": loaded.scale,
        }


@pytest.mark.parametrize("device", DEVICES)
def test_ragged_and_sparse_functions(tf_oracle, device):
    assert_parity(tf_oracle, _ragged_and_sparse, (device,), helpers=[_describe, _attempt])


def _signatures(tf, device):
    import tempfile

    class Model(tf.Module):
        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.float32)])
        def doubled(self, x):
            return x * 2.0

        @tf.function(
            input_signature=[
                tf.RaggedTensorSpec([None, None], tf.float32),
                tf.TensorSpec([], tf.float32, name="scale"),
            ]
        )
        def scaled(self, x, s):
            return {"r": x * s, "n": x.row_lengths()}

        @tf.function(input_signature=[tf.SparseTensorSpec([None, 4], tf.float32)])
        def dense(self, x):
            return tf.sparse.to_dense(x)

        @tf.function(input_signature=[tf.SparseTensorSpec([None, None], tf.float32)])
        def halved(self, x):
            return x / 2.0

    with tf.device(device):
        model = Model()
        path = tempfile.mkdtemp()
        signatures = {
            "doubled": model.doubled,
            "scaled": model.scaled,
            "dense": model.dense,
            "halved": model.halved,
        }
        tf.saved_model.save(model, path, signatures=signatures)
        loaded = tf.saved_model.load(path)
        sig = loaded.signatures
        values = tf.constant([1.0, 2.0, 3.0])
        splits = tf.constant([0, 2, 3], tf.int64)
        indices = tf.constant([[0, 1], [1, 3]], tf.int64)
        shape = tf.constant([2, 4], tf.int64)
        sparse = {"x": indices, "x_1": tf.constant([4.0, 6.0]), "x_2": shape}
        return {
            "keys": sorted(sig),
            "inputs": {k: _describe(tf, sig[k].structured_input_signature) for k in sorted(sig)},
            "outputs": {k: _describe(tf, sig[k].structured_outputs) for k in sorted(sig)},
            "doubled": _attempt(tf, lambda: sig["doubled"](x=values, x_1=splits)),
            "scaled": _attempt(
                tf, lambda: sig["scaled"](x=values, x_1=splits, scale=tf.constant(3.0))
            ),
            "dense": _attempt(tf, lambda: sig["dense"](**sparse)),
            "halved": _attempt(tf, lambda: sig["halved"](**sparse)),
            "composite_positional": _attempt(
                tf, lambda: sig["doubled"](tf.ragged.constant([[1.0], [2.0]]))
            ),
            "missing_component": _attempt(tf, lambda: sig["doubled"](x=values)),
            "function": _attempt(tf, lambda: loaded.scaled(tf.ragged.constant([[1.0]]), 4.0)),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_signatures_with_composites(tf_oracle, device):
    assert_parity(tf_oracle, _signatures, (device,), helpers=[_describe, _attempt])


def _extension_types(tf, device):
    import tempfile

    suffix = device.replace(":", "")

    class Scaled(tf.experimental.ExtensionType):
        __name__ = f"flows.Scaled{suffix}"
        values: tf.Tensor
        factor: int

    class Rows(tf.experimental.BatchableExtensionType):
        __name__ = f"flows.Rows{suffix}"
        rows: tf.RaggedTensor
        label: tf.Tensor

    class Anonymous(tf.experimental.ExtensionType):
        values: tf.Tensor

    class Model(tf.Module):
        @tf.function(
            input_signature=[Scaled.Spec(values=tf.TensorSpec([None], tf.float32), factor=3)]
        )
        def applied(self, s):
            return Scaled(values=s.values * s.factor, factor=s.factor)

        @tf.function(
            input_signature=[Scaled.Spec(values=tf.TensorSpec([None], tf.float32), factor=3)]
        )
        def total(self, s):
            return tf.reduce_sum(s.values) * s.factor

        @tf.function(
            input_signature=[
                Rows.Spec(
                    rows=tf.RaggedTensorSpec([None, None], tf.int32),
                    label=tf.TensorSpec([], tf.string),
                )
            ]
        )
        def longer(self, r):
            return Rows(rows=r.rows * 2, label=r.label + "!")

    class Unsavable(tf.Module):
        @tf.function(input_signature=[Anonymous.Spec(values=tf.TensorSpec([2], tf.float32))])
        def f(self, a):
            return a.values

    with tf.device(device):
        path = tempfile.mkdtemp()
        tf.saved_model.save(Model(), path)
        loaded = tf.saved_model.load(path)
        s = Scaled(values=tf.constant([1.0, 2.0]), factor=3)
        r = Rows(rows=tf.ragged.constant([[1, 2], [3]]), label=tf.constant("a"))
        return {
            "applied": _attempt(tf, lambda: loaded.applied(s)),
            "total": _attempt(tf, lambda: loaded.total(s)),
            "longer": _attempt(tf, lambda: loaded.longer(r)),
            "wrong_type": _attempt(tf, lambda: loaded.applied(tf.constant([1.0]))),
            "input_spec": loaded.applied.concrete_functions[0].structured_input_signature,
            "output_spec": loaded.longer.concrete_functions[0].structured_outputs,
            "unregistered": _attempt(tf, lambda: tf.saved_model.save(Unsavable(), path + "_u")),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_extension_types(tf_oracle, device):
    assert_parity(tf_oracle, _extension_types, (device,), helpers=[_describe, _attempt])


def _saved_again(tf, device):
    import tempfile

    class Model(tf.Module):
        @tf.function(input_signature=[tf.RaggedTensorSpec([None, None], tf.int64)])
        def flipped(self, x):
            return -x

        @tf.function(input_signature=[tf.SparseTensorSpec([None, None], tf.int64)])
        def summed(self, x):
            return tf.sparse.reduce_sum(x, axis=1)

    with tf.device(device):
        first = tempfile.mkdtemp()
        tf.saved_model.save(Model(), first)
        second = tempfile.mkdtemp()
        tf.saved_model.save(tf.saved_model.load(first), second)
        again = tf.saved_model.load(second)
        values = tf.constant([1, 2, 3], tf.int64)
        st = tf.sparse.SparseTensor([[0, 0], [0, 2], [1, 1]], values, [2, 3])
        return (
            _describe(tf, again.flipped(tf.ragged.constant([[1, 2], [], [3]], tf.int64))),
            again.summed(st),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_a_loaded_model_saved_again(tf_oracle, device):
    assert_parity(tf_oracle, _saved_again, (device,), helpers=[_describe])
