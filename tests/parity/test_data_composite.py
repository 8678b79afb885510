"""`tf.data` with composite elements against TensorFlow: RaggedTensor, SparseTensor and
ExtensionType values (alone and in tuples and dicts) through `from_tensor_slices`,
`from_tensors`, `map`, `batch`, `unbatch`, `padded_batch` (and its refusals), `ragged_batch`,
`sparse_batch`, `tf.data.experimental.dense_to_ragged_batch`/`dense_to_sparse_batch`,
`from_generator` with composite output signatures, `zip`, `concatenate` and `filter`;
iteration inside a `tf.function`; string components. Each case compares the element spec (its
repr and its fields), the cardinality and every element (ragged ones by flat values, row
splits, static shape and `to_list()`), or the class of the exception, on the CPU and the
GPU."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _describe(tf, value):
    """An element as comparable parts: a RaggedTensor by its components, an ExtensionType by
    its fields, a TypeSpec by its repr and itself; containers walked."""
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
        return {
            "type": type(value).__name__,
            **{f: _describe(tf, getattr(value, f)) for f in fields},
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_describe(tf, v) for v in value)
    if isinstance(value, dict):
        return {k: _describe(tf, v) for k, v in value.items()}
    return value


def _dataset(tf, expression, device):
    """The spec, cardinality and elements of the dataset ``expression`` builds (or the class
    of what building or iterating it raised)."""

    class Pt(tf.experimental.BatchableExtensionType):
        x: tf.Tensor
        y: tf.RaggedTensor

    class Plain(tf.experimental.ExtensionType):
        x: tf.Tensor

    def gen_ragged():
        yield tf.ragged.constant([[1], [2, 3]])
        yield tf.ragged.constant([[4, 5, 6]])
        yield tf.ragged.constant([[7], [], [8]])

    def gen_sparse():
        yield tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])
        yield tf.sparse.SparseTensor([[1, 1], [0, 1]], [2.0, 3.0], [2, 3])

    def gen_pairs():
        yield 1, tf.ragged.constant([[1, 2], [3]])
        yield 2, [[4], [5, 6], []]

    def gen_lists():
        yield [[1], [2, 3]]

    def gen_failing():
        yield tf.ragged.constant([[1]])
        raise ValueError("no more")

    def gen_broken():
        yield tf.ragged.constant([[1]])
        raise RuntimeError("broken")

    def gen_counted(n):
        for i in range(int(n)):
            yield tf.ragged.constant([[i] * i], dtype=tf.int32)

    def gen_pairs_ok():
        yield 1, tf.ragged.constant([[1, 2], [3]])
        yield 2, tf.ragged.constant([[4], [5, 6], []])

    def reread(make):
        """The dataset ``make(path)`` builds a second time, after a first dataset built the
        same way was iterated (its cache file is read back)."""
        import os
        import tempfile

        path = os.path.join(tempfile.mkdtemp(), "cache")
        list(make(path))
        return make(path)

    try:
        with tf.device(device):
            names = {
                "tf": tf,
                "D": tf.data.Dataset,
                "Pt": Pt,
                "Plain": Plain,
                "rt": tf.ragged.constant([[1, 2], [3], [4, 5, 6]]),
                "rt2": tf.ragged.constant([[[1, 2], [3]], [[4]], [], [[5, 6, 7]]]),
                "rt_inner": tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]], []], ragged_rank=1),
                "st": tf.sparse.SparseTensor([[0, 1], [2, 0], [2, 3]], [1.0, 2.0, 3.0], [3, 4]),
                "st3": tf.sparse.SparseTensor([[0, 1, 0], [2, 0, 1]], [1.0, 2.0], [3, 4, 2]),
                "dense": tf.constant([[1, 0, 2], [0, 0, 3], [4, 5, 6]]),
                "words": tf.ragged.constant([["a", "bb"], [], ["ccc"]]),
                "gen_ragged": gen_ragged,
                "gen_sparse": gen_sparse,
                "gen_pairs": gen_pairs,
                "gen_pairs_ok": gen_pairs_ok,
                "gen_lists": gen_lists,
                "gen_failing": gen_failing,
                "gen_broken": gen_broken,
                "gen_counted": gen_counted,
                "reread": reread,
            }
            names["pt"] = Pt(x=tf.constant([1.0, 2.0, 3.0]), y=names["rt"])
            ds = eval(expression, names)  # noqa: S307 - the test's own expression
            return {
                "spec": _describe(tf, ds.element_spec),
                "cardinality": int(ds.cardinality()),
                "elements": [_describe(tf, e) for e in ds],
            }
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


SOURCES = {
    "slices_ragged": "D.from_tensor_slices(rt)",
    "slices_ragged_nested": "D.from_tensor_slices(rt2)",
    "slices_ragged_inner": "D.from_tensor_slices(rt_inner)",
    "slices_sparse": "D.from_tensor_slices(st)",
    "slices_sparse_3d": "D.from_tensor_slices(st3)",
    "slices_dict": 'D.from_tensor_slices({"r": rt, "n": tf.constant([1, 2, 3]), "s": st})',
    "slices_tuple": "D.from_tensor_slices((rt, st3))",
    "slices_extension": "D.from_tensor_slices(pt)",
    "slices_strings": "D.from_tensor_slices(words)",
    "slices_mismatch": "D.from_tensor_slices((rt, tf.constant([1, 2])))",
    "slices_sparse_rank1": "D.from_tensor_slices(tf.sparse.SparseTensor([[0]], [1.0], [3]))",
    "slices_list_of_ragged": "D.from_tensor_slices([rt, rt])",
    "slices_not_batchable": "D.from_tensor_slices(Plain(x=tf.constant([1, 2])))",
    "tensors_ragged": "D.from_tensors(rt)",
    "tensors_sparse": "D.from_tensors(st)",
    "tensors_extension": "D.from_tensors(pt)",
    "tensors_not_batchable": "D.from_tensors(Plain(x=tf.constant([1, 2]))).repeat(2)",
    "tensors_tuple": 'D.from_tensors((rt2, st, tf.constant("x")))',
}

BATCHING = {
    "batch_ragged_rows": "D.from_tensor_slices(rt).batch(2)",
    "batch_ragged_nested": "D.from_tensor_slices(rt2).batch(3)",
    "batch_ragged_drop": "D.from_tensor_slices(rt2).batch(2, drop_remainder=True)",
    "batch_ragged_inner": "D.from_tensor_slices(rt_inner).batch(2)",
    "batch_ragged_uniform": "D.from_tensors(rt).repeat(3).batch(2)",
    "batch_ragged_shuffled_rows": "D.from_tensor_slices(rt2).skip(1).repeat(2).batch(3)",
    "batch_ragged_int32_splits": (
        "D.from_tensor_slices(tf.ragged.constant([[1, 2], [3]], "
        "row_splits_dtype=tf.int32)).batch(2)"
    ),
    "batch_sparse": "D.from_tensor_slices(st).batch(2)",
    "batch_sparse_3d": "D.from_tensor_slices(st3).batch(2, drop_remainder=True)",
    "batch_sparse_from_tensors": "D.from_tensors(st).repeat(3).batch(2)",
    "batch_extension": "D.from_tensor_slices(pt).batch(2)",
    "batch_extension_from_tensors": "D.from_tensors(pt).repeat(3).batch(2)",
    "batch_dict": 'D.from_tensor_slices({"r": rt, "n": tf.constant([1, 2, 3]), "s": st}).batch(2)',
    "batch_not_batchable": "D.from_tensors(Plain(x=tf.constant([1, 2]))).batch(2)",
    "batch_strings": "D.from_tensor_slices(words).batch(2)",
    "batch_batch": "D.from_tensor_slices(rt2).batch(2).batch(2)",
    "batch_sparse_strings": (
        'D.from_tensor_slices(tf.sparse.SparseTensor([[0, 0], [1, 1], [2, 0]], ["a", "bb", "c"], '
        "[3, 2])).batch(2)"
    ),
    "unbatch_sparse_strings": (
        'D.from_tensors(tf.sparse.SparseTensor([[0, 0], [1, 1]], ["a", "bb"], [2, 2])).unbatch()'
    ),
    "unbatch_ragged": "D.from_tensors(rt).unbatch()",
    "unbatch_ragged_rows": "D.from_tensor_slices(rt).unbatch()",
    "unbatch_ragged_nested": "D.from_tensors(rt2).unbatch()",
    "unbatch_round_trip": "D.from_tensor_slices(rt2).batch(3).unbatch()",
    "unbatch_sparse": "D.from_tensors(st3).unbatch()",
    "unbatch_sparse_round_trip": "D.from_tensor_slices(st).batch(2).unbatch()",
    "unbatch_extension": "D.from_tensors(pt).unbatch()",
    "unbatch_tuple": "D.from_tensors((rt, tf.constant([7, 8, 9]))).unbatch()",
    "unbatch_mixed_known": (
        "D.zip((D.from_tensor_slices(rt2).batch(2), "
        "D.from_tensors(tf.zeros([2])).repeat())).unbatch()"
    ),
    "unbatch_mismatch": "D.from_tensors((rt, tf.constant([7, 8]))).unbatch()",
    "unbatch_strings": "D.from_tensors(words).unbatch()",
}

PADDED_AND_RAGGED = {
    "padded_refuses_ragged": "D.from_tensor_slices(rt2).padded_batch(2)",
    "padded_refuses_sparse": "D.from_tensor_slices(st).padded_batch(2)",
    "padded_refuses_in_tuple": "D.from_tensor_slices((tf.constant([1, 2]), st3)).padded_batch(2)",
    "padded_rows": "D.range(5).map(lambda n: tf.range(n)).padded_batch(2)",
    "padded_shapes_values": (
        "D.range(5).map(lambda n: tf.range(n)).padded_batch(2, padded_shapes=[4], "
        "padding_values=tf.constant(-1, tf.int64), drop_remainder=True)"
    ),
    "padded_too_small": "D.range(5).map(lambda n: tf.range(n)).padded_batch(2, padded_shapes=[2])",
    "padded_strings": (
        'D.from_tensor_slices(tf.constant(["a b", "c", "d e '
        'f"])).map(tf.strings.split).padded_batch(3)'
    ),
    "padded_tuple": (
        "D.range(3).map(lambda n: (tf.fill([n, 2], n), n)).padded_batch(2, padded_shapes=([3, "
        "None], []), padding_values=(tf.constant(-1, tf.int64), None))"
    ),
    "padded_bad_value": "D.range(5).map(lambda n: tf.range(n)).padded_batch(2, padding_values=1.5)",
    "padded_incompatible": "D.from_tensors(tf.zeros([3])).padded_batch(2, padded_shapes=[2])",
    "ragged_batch_ranges": "D.range(5).map(lambda n: tf.range(n)).ragged_batch(2)",
    "ragged_batch_drop": (
        "D.range(5).map(lambda n: tf.range(n)).ragged_batch(2, drop_remainder=True)"
    ),
    "ragged_batch_int32": (
        "D.range(4).map(lambda n: tf.range(n)).ragged_batch(3, row_splits_dtype=tf.int32)"
    ),
    "ragged_batch_inner_uniform": "D.range(4).map(lambda n: tf.zeros([n, 2])).ragged_batch(2)",
    "ragged_batch_inner_ragged": "D.range(4).map(lambda n: tf.zeros([2, n])).ragged_batch(2)",
    "ragged_batch_fixed": "D.from_tensor_slices(dense).ragged_batch(2)",
    "ragged_batch_mixed": "D.from_tensor_slices((rt, dense)).ragged_batch(2)",
    "ragged_batch_of_ragged": "D.from_tensor_slices(rt2).ragged_batch(2)",
    "ragged_batch_slice": (
        "D.from_tensor_slices(dense).map(lambda x: x[: x[0] + 1]).ragged_batch(2)"
    ),
    "dense_to_ragged_batch": (
        "D.range(5).map(lambda n: tf.fill([n], "
        "n)).apply(tf.data.experimental.dense_to_ragged_batch(3))"
    ),
    "sparse_batch_rows": (
        "D.from_tensor_slices(dense).map(lambda x: x[: x[0] + 1]).sparse_batch(2, [5])"
    ),
    "sparse_batch_unknown_row": "D.range(4).map(lambda n: tf.range(n)).sparse_batch(3, [None])",
    "sparse_batch_2d": "D.range(3).map(lambda n: tf.ones([n, 2])).sparse_batch(2, [3, 2])",
    "sparse_batch_too_large": (
        "D.from_tensor_slices(dense).map(lambda x: x[: x[0] + 1]).sparse_batch(2, [1])"
    ),
    "sparse_batch_two_components": "D.from_tensor_slices((dense, dense)).sparse_batch(2, [3])",
    "dense_to_sparse_batch": (
        "D.range(4).map(lambda n: "
        "tf.range(n)).apply(tf.data.experimental.dense_to_sparse_batch(2, [4]))"
    ),
}

TRANSFORMS = {
    "map_ragged_rows": "D.from_tensor_slices(rt).map(lambda x: x * 2)",
    "map_ragged_nested": "D.from_tensor_slices(rt2).map(lambda x: x + 1)",
    "map_ragged_reduce": "D.from_tensor_slices(rt2).map(lambda x: tf.reduce_sum(x, axis=1))",
    "map_to_ragged": (
        "D.from_tensor_slices(dense).map(lambda x: tf.RaggedTensor.from_tensor(tf.reshape(x, [-1,"
        " 1])))"
    ),
    "map_to_ragged_rows": (
        "D.from_tensor_slices(rt).map(lambda x: tf.RaggedTensor.from_tensor(x[None]))"
    ),
    "map_to_sparse": "D.from_tensor_slices(dense).map(lambda x: tf.sparse.from_dense(x))",
    "map_to_sparse_batched": (
        "D.from_tensor_slices(rt).map(lambda x: tf.sparse.from_dense(x)).batch(2)"
    ),
    "map_sparse_in": "D.from_tensor_slices(st).map(lambda s: tf.sparse.to_dense(s))",
    "map_tuple_out": "D.from_tensor_slices(rt).map(lambda x: (x, tf.size(x)))",
    "map_dict_in": (
        'D.from_tensor_slices({"r": rt, "n": tf.constant([1, 2, 3])}).map(lambda d: d["r"] * '
        'd["n"])'
    ),
    "map_extension_in": (
        "D.from_tensor_slices(pt).map(lambda p: p.x + tf.cast(tf.reduce_sum(p.y), tf.float32))"
    ),
    "map_extension_out": (
        "D.from_tensor_slices(dense).map(lambda x: Pt(x=tf.cast(x[0], tf.float32), "
        "y=tf.RaggedTensor.from_tensor(x[None])))"
    ),
    "map_extension_batched": (
        "D.from_tensor_slices(dense).map(lambda x: Pt(x=tf.cast(x[0], tf.float32), "
        "y=tf.RaggedTensor.from_tensor(x[None]))).batch(2)"
    ),
    "map_strings": 'D.from_tensor_slices(tf.constant(["a b", "c", "d e f"])).map(tf.strings.split)',
    "map_strings_ragged_batch": (
        'D.from_tensor_slices(tf.constant(["a b", "c", "d e '
        'f"])).map(tf.strings.split).ragged_batch(2)'
    ),
    "filter_ragged": "D.from_tensor_slices(rt).filter(lambda x: tf.size(x) > 1)",
    "filter_sparse": "D.from_tensor_slices(st).filter(lambda s: tf.size(s.values) > 0)",
    "take_skip_repeat": "D.from_tensor_slices(rt2).skip(1).take(2).repeat(2)",
    "zip_composites": "D.zip((D.from_tensor_slices(rt), D.from_tensor_slices(st)))",
    "zip_dict": 'D.zip({"a": D.from_tensor_slices(rt2), "b": D.range(3)})',
    "concatenate_sparse": (
        "D.from_tensor_slices(st3).concatenate(D.from_tensor_slices(tf.sparse.SparseTensor([[0, "
        "1]], [5.0], [1, 3])))"
    ),
    "concatenate_ragged": (
        "D.from_tensor_slices(rt2).concatenate(D.from_tensors(tf.ragged.constant([[9], [8, 7]])))"
    ),
    "concatenate_mismatch": (
        "D.from_tensor_slices(st).concatenate(D.from_tensor_slices(tf.constant([[1.0]])))"
    ),
    "concatenate_ragged_ranks": "D.from_tensor_slices(rt).concatenate(D.from_tensor_slices(rt2))",
    "cache_ragged": "D.from_tensor_slices(rt2).cache().repeat(2)",
    "cache_file_composites": (
        "reread(lambda p: D.from_tensor_slices((rt, words, st3, pt)).cache(p))"
    ),
    "cache_file_ragged_rows": (
        "reread(lambda p: D.from_tensor_slices(rt2).map(lambda x: x * 2).cache(p))"
    ),
}

GENERATORS = {
    "generator_ragged": (
        "D.from_generator(gen_ragged, output_signature=tf.RaggedTensorSpec([None, None], tf.int32))"
    ),
    "generator_ragged_batch": (
        "D.from_generator(gen_ragged, output_signature=tf.RaggedTensorSpec([None, None], "
        "tf.int32)).batch(2)"
    ),
    "generator_ragged_unbatch": (
        "D.from_generator(gen_ragged, output_signature=tf.RaggedTensorSpec([None, None], "
        "tf.int32)).unbatch()"
    ),
    "generator_sparse": (
        "D.from_generator(gen_sparse, output_signature=tf.SparseTensorSpec([None, None], "
        "tf.float32))"
    ),
    "generator_sparse_batch": (
        "D.from_generator(gen_sparse, output_signature=tf.SparseTensorSpec([None, None], "
        "tf.float32)).batch(2)"
    ),
    "generator_tuple": (
        "D.from_generator(gen_pairs_ok, output_signature=(tf.TensorSpec([], tf.int32), "
        "tf.RaggedTensorSpec([None, None], tf.int32)))"
    ),
    "generator_tuple_non_rectangular": (
        "D.from_generator(gen_pairs, output_signature=(tf.TensorSpec([], tf.int32), "
        "tf.RaggedTensorSpec([None, None], tf.int32)))"
    ),
    "generator_dict": (
        'D.from_generator(lambda: iter([{"a": tf.ragged.constant([[1]]), "b": 2.0}]), '
        'output_signature={"a": tf.RaggedTensorSpec([None, None], tf.int32), "b": '
        "tf.TensorSpec([], tf.float32)})"
    ),
    "generator_args": (
        "D.from_generator(gen_counted, args=(3,), output_signature=tf.RaggedTensorSpec([1, None],"
        " tf.int32))"
    ),
    "generator_empty_float": (
        "D.from_generator(gen_counted, args=(3,), output_signature=tf.RaggedTensorSpec([1, None],"
        " tf.float32))"
    ),
    "generator_map": (
        "D.from_generator(gen_ragged, output_signature=tf.RaggedTensorSpec([None, None], "
        "tf.int32)).map(lambda x: x.row_lengths())"
    ),
    "generator_wrong_type": (
        "D.from_generator(gen_sparse, output_signature=tf.RaggedTensorSpec([None, None], "
        "tf.float32))"
    ),
    "generator_wrong_shape": (
        "D.from_generator(gen_ragged, output_signature=tf.RaggedTensorSpec([2, None], tf.int32))"
    ),
    "generator_list_for_ragged": (
        "D.from_generator(gen_lists, output_signature=tf.RaggedTensorSpec([None, None], tf.int32))"
    ),
    "generator_raises_value_error": (
        "D.from_generator(gen_failing, output_signature=tf.RaggedTensorSpec([None, None], "
        "tf.int32))"
    ),
    "generator_raises_runtime_error": (
        "D.from_generator(gen_broken, output_signature=tf.RaggedTensorSpec([None, None], tf.int32))"
    ),
    "generator_not_a_spec": "D.from_generator(gen_ragged, output_signature=tf.int32)",
    "generator_types_and_signature": (
        "D.from_generator(gen_ragged, output_types=tf.int32, output_signature=tf.TensorSpec([], "
        "tf.int32))"
    ),
    "generator_neither": "D.from_generator(gen_ragged)",
    "generator_not_callable": "D.from_generator([1, 2], output_types=tf.int32)",
    "generator_output_types": (
        "D.from_generator(lambda: iter([[1, 2], [3]]), output_types=tf.int64)"
    ),
    "generator_strings": (
        'D.from_generator(lambda: iter([["a", "b"], ["c"]]), output_types=tf.string, '
        "output_shapes=[None]).ragged_batch(2)"
    ),
    "generator_ragged_strings": (
        'D.from_generator(lambda: iter([tf.ragged.constant([["a"], ["b", "c"]])]), '
        "output_signature=tf.RaggedTensorSpec([None, None], tf.string)).unbatch()"
    ),
    "generator_output_shapes": (
        "D.from_generator(lambda: iter([[1, 2], [3, 4]]), output_types=tf.float32, "
        "output_shapes=[2])"
    ),
    "generator_output_shape_mismatch": (
        "D.from_generator(lambda: iter([[1, 2], [3]]), output_types=tf.float32, output_shapes=[2])"
    ),
    "generator_ragged_batch_method": (
        "D.from_generator(lambda: iter([[1, 2], [3]]), output_signature=tf.TensorSpec([None], "
        "tf.int32)).ragged_batch(2)"
    ),
}


def _ids(cases):
    return list(cases)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", _ids(SOURCES))
def test_sources(tf_oracle, case, device):
    assert_parity(tf_oracle, _dataset, (SOURCES[case], device), helpers=[_describe])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", _ids(BATCHING))
def test_batch_and_unbatch(tf_oracle, case, device):
    assert_parity(tf_oracle, _dataset, (BATCHING[case], device), helpers=[_describe])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", _ids(PADDED_AND_RAGGED))
def test_padded_ragged_and_sparse_batch(tf_oracle, case, device):
    assert_parity(tf_oracle, _dataset, (PADDED_AND_RAGGED[case], device), helpers=[_describe])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", _ids(TRANSFORMS))
def test_map_filter_zip_concatenate(tf_oracle, case, device):
    assert_parity(tf_oracle, _dataset, (TRANSFORMS[case], device), helpers=[_describe])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", _ids(GENERATORS))
def test_from_generator(tf_oracle, case, device):
    assert_parity(tf_oracle, _dataset, (GENERATORS[case], device), helpers=[_describe])


def _iterated_in_function(tf, device):
    """Datasets of composites iterated by a `for` loop inside a `tf.function` (built inside
    it, and passed to it)."""
    with tf.device(device):
        rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
        st = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 4])

        @tf.function
        def inside():
            total = tf.constant(0)
            count = tf.constant(0)
            for row in tf.data.Dataset.from_tensor_slices(rt).batch(2):
                total += tf.reduce_sum(row.flat_values)
                count += 1
            return total, count

        @tf.function
        def passed(ds):
            total = tf.constant(0.0)
            for s in ds:
                total += tf.reduce_sum(s.values) * tf.cast(s.dense_shape[0], tf.float32)
            return total

        @tf.function
        def mapped():
            total = tf.constant(0)
            ds = tf.data.Dataset.from_tensor_slices(rt).map(lambda x: x * 10)
            for x in ds:
                total += tf.reduce_sum(x)
            return total

        sparse_ds = tf.data.Dataset.from_tensor_slices(st).batch(2)
        return inside(), passed(sparse_ds), mapped()


@pytest.mark.parametrize("device", DEVICES)
def test_iteration_inside_tf_function(tf_oracle, device):
    assert_parity(tf_oracle, _iterated_in_function, (device,))
