"""The composite protocol with a composite defined here (the way RaggedTensor, IndexedSlices and
TensorArray plug in): `tf.nest` expands it, `tf.function` keys traces by its spec and gives each
component a placeholder shaped by the component specs, results come back rebuilt."""

import ferroflow as tf
import numpy as np
import pytest
from ferroflow.type_spec import BatchableTypeSpec, CompositeTensor


class Pair(CompositeTensor):
    """Two tensors of one dtype, `first` of fixed shape and `rest` of any length."""

    def __init__(self, first, rest):
        self.first = tf.convert_to_tensor(first)
        self.rest = tf.convert_to_tensor(rest)

    @property
    def _type_spec(self):
        return PairSpec(self.first.shape, self.first.dtype)


class PairSpec(BatchableTypeSpec):
    def __init__(self, shape, dtype=tf.float32):
        self._shape = tf.TensorShape(shape)
        self._dtype = tf.as_dtype(dtype)

    value_type = property(lambda self: Pair)

    def _serialize(self):
        return (self._shape, self._dtype)

    @property
    def _component_specs(self):
        return {"first": tf.TensorSpec(self._shape, self._dtype), "rest": tf.TensorSpec([None])}

    def _to_components(self, value):
        return {"first": value.first, "rest": value.rest}

    def _from_components(self, components):
        return Pair(components["first"], components["rest"])

    def _batch(self, batch_size):
        return PairSpec(tf.TensorShape([batch_size]).concatenate(self._shape), self._dtype)

    def _unbatch(self):
        return PairSpec(self._shape.dims[1:], self._dtype)


def test_nest_expands_and_rebuilds():
    p = Pair([1.0, 2.0], [5.0, 6.0, 7.0])
    flat = tf.nest.flatten([p, 3], expand_composites=True)
    assert [f.shape.as_list() for f in flat[:2]] == [[2], [3]]  # sorted keys: first, rest
    assert flat[2] == 3
    assert tf.nest.flatten([p, 3]) == [p, 3]
    rebuilt = tf.nest.pack_sequence_as([p, 0], [flat[0] * 2, flat[1], 4], expand_composites=True)
    assert isinstance(rebuilt[0], Pair) and rebuilt[1] == 4
    np.testing.assert_array_equal(rebuilt[0].first.numpy(), [2.0, 4.0])
    specs = tf.nest.flatten(p._type_spec, expand_composites=True)
    assert specs == [tf.TensorSpec([2]), tf.TensorSpec([None])]
    with pytest.raises(ValueError):
        tf.nest.pack_sequence_as(p, [flat[0]], expand_composites=True)


def test_spec_equality_and_supertype():
    a, b = PairSpec([2]), PairSpec([3])
    assert a == PairSpec([2]) and hash(a) == hash(PairSpec([2])) and a != b
    assert a.most_specific_common_supertype([b]) == PairSpec([None])
    assert a.is_subtype_of(PairSpec([None])) and not PairSpec([None]).is_subtype_of(a)
    assert a._batch(4) == PairSpec([4, 2]) and PairSpec([4, 2])._unbatch() == a
    assert tf.type_spec_from_value(Pair([1.0], [2.0])) == PairSpec([1])
    assert repr(a) == "PairSpec(TensorShape([2]), tf.float32)"


def test_function_keys_by_spec_and_rebuilds_results():
    traced = []

    @tf.function
    def f(p):
        traced.append((p.first.shape.as_list(), p.rest.shape.as_list()))
        return Pair(p.first * 2.0, p.rest + 1.0), tf.reduce_sum(p.rest)

    out, total = f(Pair([1.0, 2.0], [5.0, 6.0]))
    assert isinstance(out, Pair) and float(total) == 11.0
    np.testing.assert_array_equal(out.rest.numpy(), [6.0, 7.0])
    f(Pair([3.0, 4.0], [1.0, 1.0, 1.0]))  # same spec, another length of `rest`: no retrace
    assert f.experimental_get_tracing_count() == 1
    assert traced == [([2], [None])]
    f(Pair([3.0], [1.0]))  # another spec
    assert f.experimental_get_tracing_count() == 2


def test_input_signature_with_composite_spec():
    @tf.function(input_signature=[PairSpec([None])])
    def f(p):
        return tf.reduce_sum(p.first) + tf.reduce_sum(p.rest)

    assert float(f(Pair([1.0, 2.0], [3.0]))) == 6.0
    assert float(f(Pair([1.0], [3.0, 4.0, 5.0]))) == 13.0
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(TypeError):
        f(Pair([1], [2.0]))
    concrete = f.get_concrete_function()
    assert concrete.structured_input_signature == ((PairSpec([None]),), {})


def test_composite_without_gradient_protocol_is_not_a_gradient_source():
    p = Pair([1.0], [2.0])
    with tf.GradientTape() as tape:
        tape.watch(p)  # watches its components
        y = tf.reduce_sum(p.first * 3.0)
    assert float(tape.gradient(y, p.first)) == 3.0
    with tf.GradientTape() as tape:
        tape.watch(p)
        y = tf.reduce_sum(p.first * 3.0)
    with pytest.raises(ValueError, match="not supported as a gradient source"):
        tape.gradient(y, p)
