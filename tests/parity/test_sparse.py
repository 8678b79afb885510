"""`tf.SparseTensor` and `tf.sparse` against TensorFlow: every function eagerly and inside
`tf.function` (SparseTensors passed in as arguments), on the CPU and the GPU, with TensorFlow's
exception classes for bad input; printing; the SparseTensorSpec."""

import pytest

from .harness import assert_parity, parity

DEVICES = ["CPU:0", "GPU:0"]
MODES = ["eager", "function"]


def _run(tf, body, args, mode):
    """body(*args) eagerly or as a tf.function; an exception becomes its class name."""
    fn = tf.function(body) if mode == "function" else body
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__


def _cases(tf, device, mode, cases):
    with tf.device(device):
        return [_run(tf, body, args(), mode) for body, args in cases]


def _conversion(tf, device, mode):
    def st():
        return tf.SparseTensor([[1, 2], [0, 1], [1, 0]], [3.0, 2.0, 1.0], [2, 3])

    cases = [
        (
            lambda x: (tf.sparse.from_dense(x), tf.sparse.to_dense(tf.sparse.from_dense(x))),
            lambda: (tf.constant([[0.0, 2.0, 0.0], [1.0, 0.0, -3.0]]),),
        ),
        (lambda x: tf.sparse.from_dense(x), lambda: (tf.constant([[True, False], [False, True]]),)),
        (lambda x: tf.sparse.from_dense(x), lambda: (tf.constant([[[0, 5], [7, 0]]]),)),
        (lambda x: tf.sparse.from_dense(x), lambda: (tf.zeros([2, 3]),)),
        (lambda s: tf.sparse.reorder(s), lambda: (st(),)),
        (lambda s: tf.sparse.to_dense(tf.sparse.reorder(s), default_value=-1.0), lambda: (st(),)),
        (lambda s: tf.sparse.to_dense(s, validate_indices=False), lambda: (st(),)),
        (lambda s: tf.sparse.to_dense(s), lambda: (st(),)),  # unordered: InvalidArgumentError
        (
            lambda s: tf.sparse.to_dense(s),
            lambda: (tf.SparseTensor([[0, 1], [0, 1]], [1.0, 2.0], [2, 3]),),
        ),
        (
            lambda s: tf.sparse.to_dense(s),
            lambda: (tf.SparseTensor([[0, 1], [2, 1]], [1.0, 2.0], [2, 3]),),
        ),
        (
            lambda s: tf.sparse.to_dense(s),
            lambda: (tf.SparseTensor([[0, 0, 1], [1, 2, 0]], [7, 8], [2, 3, 2]),),
        ),
        (
            lambda s: tf.sparse.to_dense(s, default_value=True),
            lambda: (tf.SparseTensor([[1]], [False], [3]),),
        ),
    ]
    return _cases(tf, device, mode, cases)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_from_dense_to_dense_reorder(tf_oracle, device, mode):
    assert_parity(tf_oracle, _conversion, (device, mode), helpers=(_run, _cases))


def _add(tf, device, mode):
    def a():
        return tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [1.0, -2.0, 3.0], [3, 3])

    def b():
        return tf.SparseTensor([[0, 0], [1, 0], [1, 1], [2, 2]], [-1.0, 0.5, -3.0, 4.0], [3, 3])

    dense = tf.reshape(tf.range(9.0), [3, 3])
    cases = [
        (lambda x, y: tf.sparse.add(x, y), lambda: (a(), b())),
        (lambda x, y: tf.sparse.add(x, y, threshold=0.6), lambda: (a(), b())),
        (lambda x, y: tf.sparse.add(x, y, threshold=5.0), lambda: (a(), b())),
        (lambda x, y: tf.sparse.add(x, y), lambda: (a(), dense)),
        (lambda x, y: tf.sparse.add(x, y), lambda: (dense, b())),
        (lambda x, y: tf.sparse.add(x, y), lambda: (dense, dense)),
        (
            lambda x, y: tf.sparse.add(x, y),
            lambda: (a(), tf.SparseTensor([[0, 0]], [1.0], [3, 4])),
        ),
        (
            lambda x, y: tf.sparse.add(x, y),
            lambda: (
                tf.SparseTensor([[0], [3]], [1, 2], [5]),
                tf.SparseTensor([[1], [3], [4]], [5, -2, 9], [5]),
            ),
        ),
        (lambda x, y: tf.sparse.maximum(x, y), lambda: (a(), b())),
        (lambda x, y: tf.sparse.minimum(x, y), lambda: (a(), b())),
        (
            lambda x, y: tf.sparse.maximum(x, y),
            lambda: (tf.SparseTensor([[0]], [-4], [3]), tf.SparseTensor([[2]], [-1], [3])),
        ),
    ]
    return _cases(tf, device, mode, cases)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_add_maximum_minimum(tf_oracle, device, mode):
    assert_parity(tf_oracle, _add, (device, mode), helpers=(_run, _cases))


def _structure(tf, device, mode):
    def st():
        return tf.SparseTensor([[0, 0], [1, 4], [2, 1]], [1, 2, 3], [3, 5])

    def st3():
        return tf.SparseTensor([[0, 1, 2], [1, 0, 1], [1, 2, 0]], [1.0, 2.0, 3.0], [2, 3, 4])

    cases = [
        (lambda s: tf.sparse.reshape(s, [5, -1]), lambda: (st(),)),
        (lambda s: tf.sparse.reshape(s, [15]), lambda: (st(),)),
        (lambda s: tf.sparse.reshape(s, [-1, 2, 3]), lambda: (st3(),)),
        (lambda s: tf.sparse.reshape(s, [4, 4]), lambda: (st(),)),
        (lambda s: tf.sparse.reshape(s, [-1, -1]), lambda: (st(),)),
        (lambda s: tf.sparse.reshape(s, [4, -1]), lambda: (st(),)),
        (lambda s: tf.sparse.slice(s, [1, 1], [5, 3]), lambda: (st(),)),
        (lambda s: tf.sparse.slice(s, [0, 0], [2, 2]), lambda: (st(),)),
        (lambda s: tf.sparse.slice(s, [1, 0, 0], [1, 3, 4]), lambda: (st3(),)),
        (lambda s: tf.sparse.retain(s, [True, False, True]), lambda: (st(),)),
        (lambda s: tf.sparse.retain(s, [True, False]), lambda: (st(),)),
        (lambda s: tf.sparse.split(sp_input=s, num_split=2, axis=1), lambda: (st(),)),
        (lambda s: tf.sparse.split(sp_input=s, num_split=3, axis=0), lambda: (st(),)),
        (lambda s: tf.sparse.split(sp_input=s, num_split=2, axis=-1), lambda: (st3(),)),
        (lambda s: tf.sparse.transpose(s), lambda: (st(),)),
        (lambda s: tf.sparse.transpose(s, [1, 0, 2]), lambda: (st3(),)),
        (lambda s: tf.sparse.transpose(s, [2, 0, 1]), lambda: (st3(),)),
        (lambda s: tf.sparse.expand_dims(s), lambda: (st(),)),
        (lambda s: tf.sparse.expand_dims(s, 0), lambda: (st(),)),
        (lambda s: tf.sparse.expand_dims(s, 1), lambda: (st3(),)),
        (lambda s: tf.sparse.expand_dims(s, -2), lambda: (st3(),)),
        (lambda s: tf.sparse.reset_shape(s), lambda: (st(),)),
        (lambda s: tf.sparse.reset_shape(s, [4, 6]), lambda: (st(),)),
        (lambda s: tf.sparse.reset_shape(s, [2, 6]), lambda: (st(),)),
        (
            lambda a, b: tf.sparse.concat(1, [a, b]),
            lambda: (st(), tf.SparseTensor([[0, 0], [2, 1]], [7, 8], [3, 2])),
        ),
        (
            lambda a, b: tf.sparse.concat(0, [a, b]),
            lambda: (st(), tf.SparseTensor([[0, 4], [1, 1]], [7, 8], [2, 5])),
        ),
        (
            lambda a, b: tf.sparse.concat(-1, [a, b], expand_nonconcat_dims=True),
            lambda: (
                tf.SparseTensor([[0, 0]], [1], [2, 2]),
                tf.SparseTensor([[1, 0], [0, 1]], [2, 3], [3, 1]),
            ),
        ),
        (
            lambda a, b: tf.sparse.concat(1, [a, b]),
            lambda: (st(), tf.SparseTensor([[0, 0]], [7], [4, 2])),
        ),
        (lambda a: tf.sparse.concat(1, [a]), lambda: (st(),)),
    ]
    return _cases(tf, device, mode, cases)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_reshape_slice_retain_split_transpose_concat(tf_oracle, device, mode):
    assert_parity(tf_oracle, _structure, (device, mode), helpers=(_run, _cases))


def _reductions(tf, device, mode):
    def st():
        return tf.SparseTensor(
            [[0, 0, 1], [0, 2, 0], [1, 1, 1], [1, 1, 2], [2, 0, 0]],
            [1.0, -2.0, 3.0, -4.0, 5.0],
            [4, 3, 3],
        )

    cases = []
    for op in (tf.sparse.reduce_sum, tf.sparse.reduce_max):
        for axis in (None, 0, 1, -1, [0, 2], [1, 2]):
            for keepdims in (False, True):
                for sparse_out in (False, True):
                    cases.append(
                        (
                            lambda s, op=op, a=axis, k=keepdims, o=sparse_out: op(
                                s, axis=a, keepdims=k, output_is_sparse=o
                            ),
                            lambda: (st(),),
                        )
                    )
    cases.append(
        (
            lambda s: tf.sparse.reduce_max(s, 1),
            lambda: (tf.SparseTensor([[0, 0], [0, 2]], [-1, -2], [3, 3]),),
        )
    )
    cases.append((lambda s: tf.sparse.reduce_sum(s, 3), lambda: (st(),)))
    return _cases(tf, device, mode, cases)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_reduce_sum_reduce_max(tf_oracle, device, mode):
    assert_parity(tf_oracle, _reductions, (device, mode), helpers=(_run, _cases))


def _matmul(tf, device, mode):
    def st():
        return tf.SparseTensor([[0, 1], [1, 0], [1, 2], [2, 3]], [2.0, -1.0, 3.0, 0.5], [3, 4])

    b = tf.reshape(tf.range(12.0), [4, 3]) / 3.0
    bt = tf.transpose(b)
    cases = [
        (lambda s, m: tf.sparse.sparse_dense_matmul(s, m), lambda: (st(), b)),
        (lambda s, m: tf.sparse.sparse_dense_matmul(s, m, adjoint_b=True), lambda: (st(), bt)),
        (
            lambda s, m: tf.sparse.sparse_dense_matmul(s, m, adjoint_a=True),
            lambda: (st(), tf.ones([3, 2])),
        ),
        (
            lambda s, m: tf.sparse.sparse_dense_matmul(s, m, adjoint_a=True, adjoint_b=True),
            lambda: (st(), tf.ones([2, 3])),
        ),
        (lambda m, s: tf.sparse.sparse_dense_matmul(m, s), lambda: (tf.ones([2, 3]), st())),
        (
            lambda m, s: tf.sparse.sparse_dense_matmul(m, s, adjoint_b=True),
            lambda: (tf.ones([2, 4]), st()),
        ),
        (lambda s, m: tf.sparse.sparse_dense_matmul(s, m), lambda: (st(), tf.ones([3, 2]))),
        (
            lambda s, m: tf.sparse.sparse_dense_matmul(s, m),
            lambda: (tf.SparseTensor([[0, 5]], [1.0], [3, 4]), b),
        ),
        (lambda s, m: tf.sparse.sparse_dense_matmul(s, m), lambda: (st(), tf.cast(b, tf.float64))),
        (
            lambda s, m: tf.sparse.sparse_dense_matmul(s, m),
            lambda: (
                tf.SparseTensor([[0, 0], [1, 1]], tf.constant([1.0, 2.0], tf.float64), [2, 2]),
                tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64),
            ),
        ),
    ]
    return _cases(tf, device, mode, cases)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_sparse_dense_matmul(tf_oracle, device, mode):
    assert_parity(tf_oracle, _matmul, (device, mode), helpers=(_run, _cases))


def _gradients(tf, device, mode):
    with tf.device(device):
        indices = tf.constant([[0, 1], [1, 0], [1, 2], [2, 3]], tf.int64)
        values = tf.constant([2.0, -1.0, 3.0, 0.5])
        b = tf.reshape(tf.range(12.0), [4, 3]) / 3.0
        w = tf.reshape(tf.range(12.0), [3, 4]) - 4.0

        def body(values, b):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([values, b])
                st = tf.SparseTensor(indices, values, [3, 4])
                mm = tf.reduce_sum(tf.sparse.sparse_dense_matmul(st, b) ** 2)
                mm_t = tf.reduce_sum(
                    tf.sparse.sparse_dense_matmul(st, tf.transpose(b), adjoint_a=True) ** 2
                )
                dense = tf.reduce_sum(tf.sparse.to_dense(st) * w)
                summed = tf.reduce_sum(tf.sparse.reduce_sum(st, axis=1) * tf.constant([1.0, 2, 3]))
                soft = tf.reduce_sum(tf.sparse.softmax(st).values * tf.constant([1.0, 2, 3, 4]))
                added = tf.reduce_sum(tf.sparse.add(st, tf.sparse.reorder(st)).values ** 2)
                seg = tf.reduce_sum(
                    tf.sparse.segment_mean(b, tf.constant([0, 2, 3]), tf.constant([0, 0, 1])) ** 2
                )
            return (
                tape.gradient(mm, [values, b]),
                tape.gradient(mm_t, [values, b]),
                tape.gradient(dense, values),
                tape.gradient(summed, values),
                tape.gradient(soft, values),
                tape.gradient(added, values),
                tape.gradient(seg, b),
            )

        fn = tf.function(body) if mode == "function" else body
        return fn(values, b)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_gradients(tf_oracle, device, mode):
    assert_parity(tf_oracle, _gradients, (device, mode), rtol=1e-5, atol=1e-5)


def _segments(tf, device, mode):
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    cases = []
    for op in (tf.sparse.segment_sum, tf.sparse.segment_mean, tf.sparse.segment_sqrt_n):
        cases += [
            (
                lambda d, op=op: op(d, tf.constant([0, 2, 1]), tf.constant([0, 0, 3])),
                lambda: (data,),
            ),
            (
                lambda d, op=op: op(
                    d, tf.constant([0, 2, 1]), tf.constant([0, 0, 3]), num_segments=6
                ),
                lambda: (data,),
            ),
            (
                lambda d, op=op: op(d, tf.constant([3, 3]), tf.constant([1, 1], tf.int64)),
                lambda: (data,),
            ),
            (lambda d, op=op: op(d, tf.constant([0, 1]), tf.constant([1, 0])), lambda: (data,)),
            (lambda d, op=op: op(d, tf.constant([0, 9]), tf.constant([0, 1])), lambda: (data,)),
            (
                lambda d, op=op: op(d[:, 0], tf.constant([1, 3]), tf.constant([0, 2])),
                lambda: (data,),
            ),
        ]
    return _cases(tf, device, mode, cases)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_segment_sum_mean_sqrt_n(tf_oracle, device, mode):
    assert_parity(tf_oracle, _segments, (device, mode), helpers=(_run, _cases))


def _rows_and_counts(tf, device, mode):
    def st():
        return tf.SparseTensor([[1, 2], [1, 0], [3, 1]], [1.0, 2.0, 3.0], [5, 3])

    cases = [
        (lambda s: tf.sparse.fill_empty_rows(s, -1.0), lambda: (st(),)),
        (
            lambda s: tf.sparse.fill_empty_rows(s, 7),
            lambda: (tf.SparseTensor([[0, 0, 1]], [3], [3, 2, 2]),),
        ),
        (lambda s: tf.sparse.softmax(s), lambda: (tf.sparse.reorder(st()),)),
        (
            lambda s: tf.sparse.softmax(s),
            lambda: (
                tf.SparseTensor(
                    [[0, 0, 0], [0, 0, 2], [0, 1, 1], [1, 0, 0], [1, 0, 1]],
                    [1.0, 2.0, 3.0, 100.0, 101.0],
                    [2, 2, 3],
                ),
            ),
        ),
        (lambda s: tf.sparse.softmax(s), lambda: (tf.SparseTensor([[0], [2]], [1.0, 2.0], [3]),)),
        (
            lambda s: tf.sparse.to_indicator(s, 4),
            lambda: (tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [2, 0, 3], [2, 2]),),
        ),
        (
            lambda s: tf.sparse.to_indicator(s, 3),
            lambda: (tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [2, 0, 3], [2, 2]),),
        ),
        (lambda x: tf.sparse.bincount(x, axis=-1), lambda: (tf.constant([[1, 3, 3], [0, 5, 1]]),)),
        (lambda x: tf.sparse.bincount(x), lambda: (tf.constant([[1, 3, 3], [0, 5, 1]], tf.int64),)),
        (
            lambda x: tf.sparse.bincount(x, minlength=8, maxlength=4),
            lambda: (tf.constant([[1, 3, 3], [0, 5, 1]]),),
        ),
        (lambda x: tf.sparse.bincount(x, minlength=9), lambda: (tf.constant([1, 3]),)),
        (
            lambda x, w: tf.sparse.bincount(x, weights=w, axis=-1),
            lambda: (tf.constant([[1, 3, 3], [0, 5, 1]]), tf.constant([[0.5, 1, 2], [3, 4, 5]])),
        ),
        (
            lambda x: tf.sparse.bincount(x, axis=-1, binary_output=True),
            lambda: (tf.constant([[1, 3, 3], [0, 5, 1]]),),
        ),
        (
            lambda s: tf.sparse.bincount(s, axis=-1),
            lambda: (tf.SparseTensor([[0, 0], [0, 3], [1, 1]], [2, 2, 7], [2, 5]),),
        ),
        (
            lambda s: tf.sparse.bincount(s, binary_output=True),
            lambda: (tf.SparseTensor([[0, 0], [1, 1]], [2, 2], [2, 3]),),
        ),
        (lambda x: tf.sparse.bincount(x), lambda: (tf.constant([-1, 2]),)),
        (lambda x: tf.sparse.bincount(x, axis=1), lambda: (tf.constant([1, 2]),)),
        (lambda: tf.sparse.eye(3), lambda: ()),
        (lambda: tf.sparse.eye(2, 4, dtype=tf.int32), lambda: ()),
        (lambda n: tf.sparse.eye(n, 2), lambda: (tf.constant(3),)),
        (
            lambda s, t: tf.sparse.map_values(tf.add, s, t),
            lambda: (
                tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 3]),
                tf.SparseTensor([[0, 1], [2, 0]], [10.0, 20.0], [3, 3]),
            ),
        ),
        (
            lambda s: tf.sparse.map_values(tf.multiply, s, 3),
            lambda: (tf.SparseTensor([[0, 1], [2, 0]], [1, 2], [3, 3]),),
        ),
        (
            lambda s, t: tf.sparse.map_values(tf.add, s, t),
            lambda: (
                tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 3]),
                tf.SparseTensor([[0, 1], [2, 1]], [10.0, 20.0], [3, 3]),
            ),
        ),
        (lambda x: tf.sparse.map_values(tf.abs, x), lambda: (tf.constant([1.0]),)),
        (
            lambda i, v, m1, m2: tf.sparse.sampled_addmm(i, v, [2, 2], m1, m2, beta=0.5, alpha=2.0),
            lambda: (
                tf.constant([[0, 0], [1, 1]]),
                tf.constant([1.0, 2.0]),
                tf.reshape(tf.range(6.0), [2, 3]),
                tf.reshape(tf.range(6.0), [3, 2]),
            ),
        ),
        (
            lambda i, v, m1, m2: tf.sparse.sampled_addmm(i, v, [2, 2], m1, m2),
            lambda: (
                tf.constant([[[0, 1], [1, 0]], [[0, 0], [1, 1]]]),
                tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                tf.reshape(tf.range(12.0), [2, 2, 3]),
                tf.reshape(tf.range(12.0), [2, 3, 2]),
            ),
        ),
        (
            lambda i, v, m1, m2: tf.sparse.sampled_addmm(i, v, [3, 2], m1, m2),
            lambda: (tf.constant([[0, 0]]), tf.constant([1.0]), tf.ones([2, 3]), tf.ones([3, 2])),
        ),
    ]
    return _cases(tf, device, mode, cases)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_fill_empty_rows_softmax_indicator_bincount_eye_map_values(tf_oracle, device, mode):
    assert_parity(tf_oracle, _rows_and_counts, (device, mode), helpers=(_run, _cases))


def _mask(tf, device, mode):
    with tf.device(device):
        s = tf.IndexedSlices(
            tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant([5, 2, 7]), [9, 2]
        )
        m = tf.sparse.mask(s, [2, 9])
        return m.values, m.indices, m.dense_shape


@pytest.mark.parametrize("device", DEVICES)
def test_mask(tf_oracle, device):
    assert_parity(tf_oracle, _mask, (device, "eager"))


@parity
def test_sparse_tensor_object(tf):
    st = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    out = [
        str(st),
        repr(st),
        st.shape,
        st.dtype,
        st.get_shape(),
        st.with_values([5, 6]),
        st * tf.constant([1.0, 10.0, 100.0, 1000.0]),
        st * tf.constant([[2.0], [3.0], [4.0]]),
        st * 2.0,
        st / tf.constant(4.0),
        tf.SparseTensor([[0], [1]], [3, 4], [2]) / tf.constant([2, 8]),
        st._type_spec,
        tf.sparse.SparseTensor is tf.SparseTensor,
        tf.sparse.SparseTensor.from_value(st),
        tf.SparseTensorSpec.from_value(st),
        tf.SparseTensorSpec([None, 3], tf.int32),
        tf.SparseTensorSpec(None)._component_specs,
    ]
    for bad in (
        lambda: tf.SparseTensor([0, 1], [1.0], [3]),
        lambda: tf.SparseTensor([[0, 1]], [[1.0]], [3, 3]),
        lambda: tf.SparseTensor([[0, 1]], [1.0, 2.0], [3, 3]),
        lambda: tf.SparseTensor([[0, 1]], [1.0], [3, 3, 3]),
        lambda: tf.SparseTensor([[0.5, 1]], [1.0], [3, 3]),
        lambda: tf.convert_to_tensor(st),
        lambda: st * tf.constant([1, 2, 3, 4]),
        lambda: st * tf.ones([2, 3, 4]),
        lambda: tf.sparse.to_dense(tf.constant([1.0])),
        lambda: tf.sparse.reorder([1, 2]),
        lambda: tf.sparse.concat(0, []),
        lambda: tf.sparse.concat(0, st),
        lambda: tf.sparse.split(sp_input=st, num_split=2),
        lambda: tf.sparse.bincount([1, 2], weights=[1.0, 2.0], binary_output=True),
        lambda: tf.sparse.eye(2.5),
        lambda: tf.sparse.map_values(tf.abs, 3),
    ):
        try:
            out.append(bad())
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


@parity
def test_sparse_tensor_static_shape_in_function(tf):
    shapes = []

    @tf.function
    def f(s):
        shapes.append(s.shape.as_list())
        return tf.sparse.to_dense(s)

    a = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    b = tf.SparseTensor([[2, 3]], [5.0], [3, 4])
    # Only the first run of the body is compared: ferroflow's scatter into a shape given as
    # numbers counts as reading the example's nnz, so a new nnz runs the body again (not counted
    # as a trace) until the Rust binding marks that shape as the caller's.
    return f(a), f(b), shapes[0], f.experimental_get_tracing_count()


def _crosses(tf, device, mode):
    def st():
        return tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([5, -6, 7], tf.int64), [3, 4])

    dense = tf.constant([[1, 2], [7, 8], [-3, 0]], tf.int64)
    cases = [
        (lambda a, b: tf.sparse.cross_hashed([a, b]), lambda: (dense, st())),
        (lambda a, b: tf.sparse.cross_hashed([a, b], num_buckets=10), lambda: (dense, st())),
        (lambda a, b: tf.sparse.cross_hashed([a, b, a], hash_key=5), lambda: (dense, st())),
        (lambda a: tf.sparse.cross_hashed([a]), lambda: (tf.constant([[1, 2]]),)),
        (lambda: tf.sparse.cross_hashed([]), lambda: ()),
        (lambda a: tf.sparse.cross_hashed([a, a[:2]]), lambda: (dense,)),
        (lambda a: tf.sparse.cross_hashed([a[0]]), lambda: (dense,)),
        (lambda a: tf.sparse.cross_hashed(a), lambda: (dense,)),
    ]
    return _cases(tf, device, mode, cases)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("device", DEVICES)
def test_cross_hashed_of_integer_features(tf_oracle, device, mode):
    assert_parity(tf_oracle, _crosses, (device, mode), helpers=(_run, _cases))
