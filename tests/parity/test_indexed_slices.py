"""`tf.IndexedSlices` and `tf.IndexedSlicesSpec` against TensorFlow: attributes, dense
conversion (repeated rows summed), negation, the spec and its components, `tf.nest` with
`expand_composites`, `tf.function` arguments and results, variables' sparse updates and a
Keras optimizer applying an IndexedSlices gradient, on the CPU and the GPU."""

import pytest

from .harness import assert_parity, parity

DEVICES = ["CPU:0", "GPU:0"]


def _basics(tf, device):
    with tf.device(device):
        s = tf.IndexedSlices(
            tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
            tf.constant([2, 0, 2]),
            tf.constant([4, 2]),
        )
        no_shape = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0], tf.int64))
        out = [
            s.values,
            s.indices,
            s.dense_shape,
            s.shape,
            s.dtype,
            str(s),
            tf.convert_to_tensor(s),
            tf.convert_to_tensor(-s),
            s._type_spec,
            no_shape._type_spec,
            no_shape.shape,
            tf.nest.flatten(s, expand_composites=True),
            tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int32, tf.int32, [3]),
            tf.IndexedSlicesSpec([None, 2])._component_specs,
            tf.type_spec_from_value(s),
        ]
        for bad in (
            lambda: tf.convert_to_tensor(no_shape),
            lambda: tf.convert_to_tensor(s, dtype=tf.int32),
            lambda: tf.IndexedSlicesSpec([2], indices_shape=[1, 2]),
        ):
            try:
                out.append(bad())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append(type(e).__name__)
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_indexed_slices_basics(tf_oracle, device):
    assert_parity(tf_oracle, _basics, (device,))


@parity
def test_indexed_slices_through_function(tf):
    @tf.function
    def f(s):
        return tf.IndexedSlices(s.values * 2.0, s.indices, s.dense_shape), tf.convert_to_tensor(s)

    s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    t = tf.IndexedSlices(
        tf.constant([[1.0, 2.0], [5.0, 5.0]]), tf.constant([0, 0]), tf.constant([3, 2])
    )
    first, dense = f(s)
    second, dense2 = f(t)
    return first, dense, second, dense2, f.experimental_get_tracing_count()


@parity
def test_indexed_slices_input_signature(tf):
    spec = tf.IndexedSlicesSpec([None, 2], tf.float32, tf.int32, tf.int32)

    @tf.function(input_signature=[spec])
    def f(s):
        return tf.reduce_sum(s.values) + tf.cast(tf.reduce_sum(s.indices), tf.float32)

    s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    return f(s), f.get_concrete_function().structured_input_signature


def _variable_updates(tf, device):
    with tf.device(device):
        v = tf.Variable(tf.reshape(tf.range(8.0), [4, 2]))
        delta = tf.IndexedSlices(tf.constant([[10.0, 10.0], [1.0, 1.0]]), tf.constant([3, 0]))
        v.scatter_add(delta)
        after_add = tf.identity(v)
        v.scatter_update(delta)
        opt = tf.keras.optimizers.SGD(learning_rate=0.5)
        grad = tf.IndexedSlices(tf.constant([[2.0, 4.0]]), tf.constant([1]), tf.constant([4, 2]))
        opt.apply_gradients([(grad, v)])
        return after_add, v


@pytest.mark.parametrize("device", DEVICES)
def test_indexed_slices_variable_updates_and_optimizer(tf_oracle, device):
    assert_parity(tf_oracle, _variable_updates, (device,))


def _described(tf, g):
    """A gradient as its kind and parts (IndexedSlices keeps rows apart; dense is a tensor)."""
    if isinstance(g, tf.IndexedSlices):
        return ("IndexedSlices", g.values, g.indices, g.dense_shape, tf.convert_to_tensor(g))
    return ("dense", g)


def _gather_gradients(tf, device):
    """A gather along axis 0 sends its params back the rows it read, as IndexedSlices; other
    uses make the gradient dense (ferroflow returned dense tensors for all)."""
    with tf.device(device):
        table = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]))
        plain = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        weights = tf.constant([[1.0, -2.0, 0.5]])
        out = {}
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(plain)
            rows = tf.gather(table, [0, 2, 0])
            by_id = tf.nn.embedding_lookup(table, tf.constant([[3, 1], [1, 1]], tf.int64))
            twice = tf.gather(table, [1]) * 2.0 + tf.gather(table, [3, 3])
            mixed = tf.reduce_sum(tf.gather(table, [2])) + tf.reduce_sum(table * table)
            nested = tf.gather(tf.gather(table, [3, 2, 1]), [0, 0])
            columns = tf.gather(table, [2, 0], axis=1)
            from_plain = tf.gather(plain, [2, 2, 1])
        for name, y in [
            ("rows", rows * weights),
            ("by_id", by_id),
            ("twice", twice),
            ("mixed", mixed),
            ("nested", nested),
            ("columns", columns),
        ]:
            out[name] = _described(tf, tape.gradient(y, table))
        out["from_plain"] = _described(tf, tape.gradient(from_plain, plain))
        out["two_sources"] = [
            _described(tf, g) for g in tape.gradient(rows + by_id[0, :1], [table, plain])
        ]

        @tf.function
        def inside(ids):
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(tf.gather(table, ids) ** 2)
            return _described(tf, inner.gradient(y, table))

        out["inside_function"] = inside(tf.constant([3, 0, 3]))
        grads = tape.gradient([rows, mixed], [table, table])
        out["clipped"] = [
            _described(tf, g) for g in tf.clip_by_global_norm([grads[0], grads[1]], 5.0)[0]
        ]
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_gather_gradients_are_indexed_slices(tf_oracle, device):
    assert_parity(tf_oracle, _gather_gradients, (device,), helpers=(_described,))


def _sparse_training_steps(tf, device, names):
    """Optimizers apply gather gradients (IndexedSlices) as TensorFlow's do."""
    makers = {
        "SGD": lambda: tf.keras.optimizers.SGD(0.1),
        "momentum": lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
        "Adam": lambda: tf.keras.optimizers.Adam(0.1),
        "RMSprop": lambda: tf.keras.optimizers.RMSprop(0.1),
        "Adagrad": lambda: tf.keras.optimizers.Adagrad(0.1),
    }
    with tf.device(device):
        out = {}
        for make in (makers[n] for n in names):
            table = tf.Variable(tf.reshape(tf.range(8, dtype=tf.float32), [4, 2]))
            optimizer = make()
            for ids in ([0, 2, 0], [3], [2, 2]):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(tf.gather(table, ids) ** 2)
                optimizer.apply_gradients([(tape.gradient(loss, table), table)])
            out[type(optimizer).__name__ + str(len(out))] = table.read_value()
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_optimizers_apply_gather_gradients(tf_oracle, device):
    assert_parity(tf_oracle, _sparse_training_steps, (device, ["SGD", "momentum"]))


@pytest.mark.parametrize("device", DEVICES)
def test_optimizers_square_gather_gradients_per_row(tf_oracle, device):
    assert_parity(tf_oracle, _sparse_training_steps, (device, ["Adam", "RMSprop", "Adagrad"]))
