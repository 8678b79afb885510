"""`tf.experimental.StructuredTensor` against TensorFlow 2.21 (uniform shapes): from_pyval of
dicts and lists of dicts (nested structures, string and ragged fields), from_fields (shape
inference and checks), from_fields_and_rank, field access by name and path, indexing and slicing,
to_pyval, nrows, row_partitions, merge_dims, with_updates, promote, printed form, errors, and
values through tf.function and tf.nest. Ragged outer dimensions are not supported (a test says
how they fail)."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _structured(tf, device):
    with tf.device(device):
        S = tf.experimental.StructuredTensor
        out = []
        st = S.from_pyval({"a": 1, "b": [1.0, 2.0], "c": {"d": "x"}, "r": [[4, 5], [6]]})
        out += [
            st,
            st.shape,
            st.rank,
            st.field_names(),
            st.field_value("a"),
            st.field_value(("c", "d")),
            st["b"],
            st.nrows(),
            st.to_pyval(),
        ]
        st2 = S.from_pyval([{"a": 1, "b": 2.0}, {"a": 3, "b": 4.0}, {"a": 5, "b": 6.0}])
        out += [
            st2,
            st2.shape,
            st2.nrows(),
            sorted(st2.field_names()),
            st2.field_value("a"),
            st2[1],
            st2[1:],
            st2[0, "a"],
            st2[1]["b"],
        ]
        out.append(sorted(st2.to_pyval()[0].items()))
        st3 = S.from_fields(
            {"x": tf.reshape(tf.range(6), [2, 3]), "y": tf.ones([2, 3, 2])}, shape=[2, 3]
        )
        out += [
            st3,
            st3.shape,
            st3.nrows(),
            st3.to_pyval(),
            [repr(p) for p in st3.row_partitions] and len(st3.row_partitions),
        ]
        m = st3.merge_dims(0, 1)
        out += [m.shape, m.field_value("x"), m.field_value("y").shape]
        out += [st3[1], st3[1, 2], st3[:, 1].shape]
        u = st.with_updates({"a": 5, "b": lambda v: v * 2, ("c", "e"): [1, 2], "r": None})
        out += [u, u.field_names()]
        p = st.promote(("c", "d"), "dd")
        out.append(p.field_names())
        e = S.from_fields({}, shape=[3])
        out += [e, e.to_pyval(), e.nrows()]
        out.append(S.from_fields_and_rank({"a": tf.zeros([2, 3])}, 1).shape)
        out.append(S.from_fields({"a": [1, 2, 3]}, [3]).to_pyval())
        for thunk in [
            lambda: S.from_fields({"a": [1, 2]}, shape=[3]),
            lambda: S.from_fields({1: 2}),
            lambda: S.from_fields({"_a": 2}),
            lambda: S.from_fields([1]),
            lambda: S.from_fields({"a": 1}, shape=None),
            lambda: S.from_fields({"a": 1}, nrows=3),
            lambda: S.from_fields({"a": {"b": 1}}),
            lambda: S.from_fields_and_rank({}, 1),
            lambda: S.from_fields_and_rank({"a": [1]}, -1),
            lambda: S.from_fields_and_rank({"a": [1]}, 1.5),
            lambda: st.field_value("zz"),
            lambda: st.field_value(("a", "b")),
            lambda: S.from_pyval([{"a": 1}, {"b": 2}]),
            lambda: S.from_pyval([{"a": 1}, 3]),
            lambda: S.from_pyval([{"a": 1}, {"a": "x"}]),
            lambda: st.promote("a", "b"),
            lambda: st.promote(("c",), "b"),
            lambda: st.promote(("c", "d"), 3),
            lambda: st3.merge_dims(1, 0),
            lambda: setattr(st, "x", 1),
        ]:
            try:
                out.append(("ok", thunk()))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)

        @tf.function
        def f(s):
            return s.field_value("a") * 2, s.with_updates({"a": s.field_value("a") + 1})

        r = f(st2)
        out += [r[0], r[1].field_value("a"), r[1].shape]
        out.append(tf.nest.flatten(st2, expand_composites=True)[:1])
        out.append(isinstance(st2, tf.experimental.ExtensionType))
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_structured_tensor(tf_oracle, device):
    assert_parity(tf_oracle, _structured, (device,))


def test_ragged_outer_dimensions_are_refused():
    import ferroflow as tf

    S = tf.experimental.StructuredTensor
    with pytest.raises(NotImplementedError):
        S.from_pyval([[{"a": 1}], [{"a": 2}, {"a": 3}]])
    with pytest.raises(NotImplementedError):
        S.from_pyval({"a": 1}, typespec=S.from_pyval({"a": 1})._type_spec)
    st = S.from_pyval([{"a": 1}, {"a": 2}])
    with pytest.raises(NotImplementedError):
        st.partition_outer_dimension(tf.experimental.RowPartition.from_row_lengths([1, 1]))
