"""Property tests of RaggedTensor against TensorFlow: hypothesis draws nested row lengths (empty
rows and empty tensors included), ragged ranks 1-2, an optional uniform inner dimension and a
dtype; `tf.ragged.constant`, `to_tensor`, `from_tensor`, row partitions and every reduction over
every axis must agree, eagerly and inside a `tf.function` (which takes the ragged tensor as its
argument, so both frameworks trace with the same static knowledge)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import assert_parity
from .test_ragged import _describe


def _check(*args, **kwargs):
    """assert_parity, failing with an AssertionError: hypothesis shrinks and reports those
    (pytest.fail's exception would end the search without a falsifying example)."""
    try:
        assert_parity(*args, **kwargs)
    except BaseException as e:  # noqa: BLE001 - pytest's Failed derives from BaseException
        if type(e).__name__ != "Failed":
            raise
        raise AssertionError(str(e)) from None


SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

DTYPES = ("float32", "float64", "int32", "int64", "bool")


@st.composite
def ragged_values(draw, dtypes=DTYPES):
    """(nested list, dtype, ragged_rank, inner_shape)."""
    dtype = draw(st.sampled_from(dtypes))
    ragged_rank = draw(st.integers(1, 2))
    inner = tuple(draw(st.lists(st.integers(1, 3), max_size=1)))
    nrows = draw(st.integers(0, 5))
    lengths = []
    count = nrows
    for _ in range(ragged_rank):
        level = draw(st.lists(st.integers(0, 4), min_size=count, max_size=count))
        lengths.append(level)
        count = sum(level)
    size = count * int(np.prod(inner, dtype=np.int64))
    if dtype == "bool":
        flat = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    elif dtype.startswith("int"):
        flat = draw(st.lists(st.integers(-50, 50), min_size=size, max_size=size))
    else:
        flat = draw(
            st.lists(
                st.floats(-8, 8, width=32, allow_subnormal=False), min_size=size, max_size=size
            )
        )
    values = np.array(flat, dtype=dtype).reshape((count, *inner)).tolist()
    for level in reversed(lengths):
        rows, start = [], 0
        for n in level:
            rows.append(values[start : start + n])
            start += n
        values = rows
    return values, dtype, ragged_rank, inner


def _build(tf, pylist, dtype, ragged_rank, inner, splits_dtype):
    return tf.ragged.constant(
        pylist,
        dtype=getattr(tf, dtype),
        ragged_rank=ragged_rank,
        inner_shape=inner,
        row_splits_dtype=getattr(tf, splits_dtype),
    )


def _round_trips(tf, pylist, dtype, ragged_rank, inner, splits_dtype, traced, device):
    def body(rt):
        dense = rt.to_tensor()
        padded = rt.to_tensor(default_value=tf.ones([], rt.dtype))
        back = tf.RaggedTensor.from_tensor(
            dense, lengths=rt.row_lengths() if ragged_rank == 1 else None, ragged_rank=1
        )
        return {
            "dense": dense,
            "padded": padded,
            "bounding": rt.bounding_shape(),
            "back": back,
            "lengths": rt.nested_row_lengths(),
            "rowids": rt.nested_value_rowids(),
            "rows": [rt.nrows(), rt.row_starts(), rt.row_limits()],
        }

    with tf.device(device):
        rt = _build(tf, pylist, dtype, ragged_rank, inner, splits_dtype)
        out = tf.function(body)(rt) if traced else body(rt)
    out["rt"] = rt
    return _describe(tf, out)


@SETTINGS
@given(
    value=ragged_values(),
    splits_dtype=st.sampled_from(["int64", "int32"]),
    traced=st.booleans(),
    device=st.sampled_from(["CPU:0", "GPU:0"]),
)
def test_constant_to_tensor_from_tensor(tf_oracle, value, splits_dtype, traced, device):
    pylist, dtype, ragged_rank, inner = value
    args = (pylist, dtype, ragged_rank, inner, splits_dtype, traced, device)
    _check(tf_oracle, _round_trips, args, helpers=[_describe, _build])


def _reduce(tf, pylist, dtype, ragged_rank, inner, kind, axis, keepdims, traced, device):
    def body(rt):
        fn = getattr(tf, f"reduce_{kind}") if kind != "variance" else tf.math.reduce_variance
        return fn(rt, axis=axis, keepdims=keepdims)

    try:
        with tf.device(device):
            rt = _build(tf, pylist, dtype, ragged_rank, inner, "int64")
            out = tf.function(body)(rt) if traced else body(rt)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return _describe(tf, out)


@st.composite
def reductions(draw):
    pylist, dtype, ragged_rank, inner = draw(ragged_values())
    kinds = ("any", "all") if dtype == "bool" else ("sum", "mean", "max", "min", "prod")
    if dtype.startswith("float"):
        kinds += ("variance",)
    kind = draw(st.sampled_from(kinds))
    rank = ragged_rank + 1 + len(inner)
    axis = draw(
        st.one_of(
            st.none(),
            st.integers(-rank, rank - 1),
            st.lists(st.integers(0, rank - 1), min_size=1, max_size=2, unique=True),
        )
    )
    return pylist, dtype, ragged_rank, inner, kind, axis, draw(st.booleans())


@SETTINGS
@given(case=reductions(), traced=st.booleans(), device=st.sampled_from(["CPU:0", "GPU:0"]))
def test_reductions(tf_oracle, case, traced, device):
    args = (*case, traced, device)
    _check(tf_oracle, _reduce, args, helpers=[_describe, _build], rtol=1e-4, atol=1e-4)
