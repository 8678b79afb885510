"""Composite values against TensorFlow: `tf.TypeSpec` behaviour (equality, compatibility,
subtypes, common supertypes, batching), `tf.type_spec_from_value`, `tf.nest` with
`expand_composites`, composite arguments and results of `tf.function` (trace counts keyed by the
spec, `input_signature` with composite specs, `get_concrete_function` from a spec) and gradients
through a SparseTensor's values. SparseTensor is the composite used."""

import pytest

from .harness import assert_parity, parity

DEVICES = ["CPU:0", "GPU:0"]


@parity
def test_type_spec_relations(tf):
    a = tf.SparseTensorSpec([3, 4], tf.float32)
    b = tf.SparseTensorSpec([None, 4], tf.float32)
    c = tf.SparseTensorSpec([3, 4, 5], tf.float32)
    d = tf.SparseTensorSpec([3, 4], tf.int32)
    return (
        a == tf.SparseTensorSpec([3, 4]),
        a == b,
        hash(a) == hash(tf.SparseTensorSpec([3, 4])),
        a.is_compatible_with(b),
        a.is_compatible_with(c),
        a.is_compatible_with(d),
        a.is_subtype_of(b),
        b.is_subtype_of(a),
        a.is_subtype_of(tf.SparseTensorSpec(None)),
        a.most_specific_common_supertype([b]),
        a.most_specific_common_supertype([c]),
        a.most_specific_common_supertype([d]),
        a.most_specific_common_supertype([tf.TensorSpec([3, 4])]),
        a._batch(2),
        a._batch(None),
        a._unbatch(),
        a.shape,
        a.dtype,
        a.value_type.__name__,
        isinstance(a, tf.TypeSpec),
        isinstance(tf.TensorSpec([1]), tf.TypeSpec),
        tf.TensorSpec([2]).most_specific_common_supertype([tf.TensorSpec([3])]),
        tf.TensorSpec([2, 3])._batch(4),
        tf.TensorSpec([2, 3])._unbatch(),
        tf.TensorSpec([2], name="x").is_subtype_of(tf.TensorSpec([None])),
        tf.TensorSpec([2]).is_subtype_of(tf.TensorSpec([None], name="x")),
        tf.NoneTensorSpec(),
        tf.NoneTensorSpec() == tf.NoneTensorSpec(),
        a._component_specs,
        tf.nest.flatten(a, expand_composites=True),
    )


@parity
def test_type_spec_errors(tf):
    out = []
    for fn in (
        lambda: tf.TensorSpec([])._unbatch(),
        lambda: tf.SparseTensorSpec([])._unbatch(),
        lambda: tf.SparseTensorSpec([2]).most_specific_compatible_type(tf.SparseTensorSpec([3, 1])),
        lambda: tf.SparseTensorSpec.from_value(tf.constant(1.0)),
    ):
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


@parity
def test_type_spec_from_value(tf):
    import numpy as np

    st = tf.SparseTensor([[0, 1]], [2.0], [2, 3])
    return (
        tf.type_spec_from_value(tf.constant([1, 2, 3])),
        tf.type_spec_from_value(np.array([4.0, 5.0])),
        tf.type_spec_from_value(st),
        tf.type_spec_from_value([tf.constant([1, 2]), tf.constant([3, 4])]),
        tf.type_spec_from_value([st, tf.SparseTensor([[1, 1]], [1.0], [2, 5])]),
        tf.type_spec_from_value(3.5),
    )


def _nest(tf, device):
    with tf.device(device):
        st = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        other = tf.SparseTensor([[2, 3]], [7.0], [3, 4])
        structure = {"b": [st, 1], "a": tf.constant(5)}
        flat = tf.nest.flatten(structure, expand_composites=True)
        leaves = tf.nest.flatten(structure)
        repacked = tf.nest.pack_sequence_as({"b": [other, 0], "a": 0}, flat, expand_composites=True)
        doubled = tf.nest.map_structure(
            lambda t: t * 2 if t.dtype == tf.float32 else t, st, expand_composites=True
        )
        from_spec = tf.nest.pack_sequence_as(
            st._type_spec, tf.nest.flatten(other, expand_composites=True), expand_composites=True
        )
        return flat, len(leaves), type(leaves[1]).__name__, repacked, doubled, from_spec


@pytest.mark.parametrize("device", DEVICES)
def test_nest_expand_composites(tf_oracle, device):
    assert_parity(tf_oracle, _nest, (device,))


@parity
def test_nest_assert_same_structure_composites(tf):
    a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    b = tf.SparseTensor([[0, 0]], [5], [5, 6])
    c = tf.SparseTensor([[0, 0, 0]], [5.0], [5, 6, 7])
    out = []
    for x, y in [(a, b), (a, c), (a, a._type_spec), (a, [1, 2, 3]), (a, 1), ([a], [c])]:
        for expand in (True, False):
            try:
                tf.nest.assert_same_structure(x, y, expand_composites=expand)
                out.append("ok")
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
    return out


def _function_retracing(tf, device):
    with tf.device(device):

        @tf.function
        def f(s, scale):
            return tf.reduce_sum(s.values) * scale, s.with_values(s.values + 1.0)

        a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        b = tf.SparseTensor([[0, 0]], [5.0], [3, 4])  # same spec, other values and count
        c = tf.SparseTensor([[0, 0]], [5.0], [5, 6])  # other dense shape: a new spec
        d = tf.SparseTensor([[0, 0, 0]], [5.0], [5, 6, 7])  # other rank
        results = [f(x, tf.constant(2.0)) for x in (a, b, c, d, a)]
        return results, f.experimental_get_tracing_count()


@pytest.mark.parametrize("device", DEVICES)
def test_function_composite_arguments_and_results(tf_oracle, device):
    assert_parity(tf_oracle, _function_retracing, (device,))


@parity
def test_function_reduce_retracing_composite(tf):
    @tf.function(reduce_retracing=True)
    def f(s):
        return tf.reduce_sum(s.values), s.shape

    a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    c = tf.SparseTensor([[0, 0]], [5.0], [5, 6])
    e = tf.SparseTensor([[1, 1]], [3.0], [7, 8])
    return f(a), f(c), f(e), f.experimental_get_tracing_count()


def _input_signature(tf, device):
    with tf.device(device):

        @tf.function(
            input_signature=[tf.SparseTensorSpec([None, 4], tf.float32), tf.TensorSpec([])]
        )
        def f(s, k):
            return s.with_values(s.values * k), s.shape, tf.reduce_max(s.values)

        a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        b = tf.SparseTensor([[0, 3], [4, 1], [5, 2]], [4.0, -1.0, 3.0], [6, 4])
        out = [f(a, 2.0), f(b, 3.0), f.experimental_get_tracing_count()]
        for bad in (
            lambda: f(tf.SparseTensor([[0, 0]], [1.0], [3, 5]), 1.0),
            lambda: f(tf.SparseTensor([[0, 0]], [1], [3, 4]), 1.0),
            lambda: f(tf.constant([[1.0]]), 1.0),
        ):
            try:
                out.append(bad())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_input_signature_composite_spec(tf_oracle, device):
    assert_parity(tf_oracle, _input_signature, (device,))


@parity
def test_concrete_function_from_composite_spec(tf):
    @tf.function
    def f(s):
        return tf.reduce_sum(s.values) + tf.cast(tf.reduce_sum(s.dense_shape), tf.float32)

    spec = tf.SparseTensorSpec([None, 3], tf.float32)
    concrete = f.get_concrete_function(spec)
    a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [5, 3])
    return (
        concrete.structured_input_signature,
        concrete(a),
        f(a),
        f.experimental_get_tracing_count(),
    )


def _gradients(tf, device):
    with tf.device(device):
        v = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(v)
            st = tf.SparseTensor([[0, 0], [1, 2], [2, 1]], v * 3.0, [3, 4])
            y = tf.reduce_sum(st.values * st.values)
        through_values = tape.gradient(y, v)
        # TensorFlow's SparseTensor has no composite gradient: as a gradient source or target
        # it is a ValueError (its values, watched through the SparseTensor, are fine).
        src = tf.SparseTensor([[0, 0], [1, 2]], tf.constant([1.0, -2.0]), [2, 3])
        out = [through_values]
        with tf.GradientTape(persistent=True) as tape2:
            tape2.watch(src)
            z = tf.reduce_sum(tf.exp(src.values))
            target = tf.SparseTensor([[0], [1], [3]], v * v, [4])
        out.append(tape2.gradient(z, src.values))
        for fn in (lambda: tape2.gradient(z, src), lambda: tape2.gradient(target, v)):
            try:
                out.append(fn())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_through_sparse_values(tf_oracle, device):
    assert_parity(tf_oracle, _gradients, (device,))


@parity
def test_gradient_inside_function_with_sparse_argument(tf):
    @tf.function
    def f(s, w):
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.reduce_sum(s.values * w)
        return tape.gradient(y, w)

    s = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    return f(s, tf.constant([3.0, 4.0]))


@parity
def test_module_flatten_expands_composites(tf):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)
            self.st = tf.SparseTensor([[0, 0]], [1.0], [2, 2])

    m = M()
    paths = [p for p, _ in m._flatten(with_path=True, expand_composites=True) if p[0] == "st"]
    plain = [p for p, _ in m._flatten(with_path=True) if p[0] == "st"]
    return paths, plain, len(m.variables)
