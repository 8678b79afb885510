"""Datasets and iterators used inside a `tf.function`, against TensorFlow: the elements are pulled
when the graph runs (each call of a loop over a shuffled dataset sees a new order; `next` on an
iterator made outside advances it on every call), never baked in while tracing."""

from .harness import assert_parity


def _shuffled_loop(tf):
    ds = tf.data.Dataset.range(6).shuffle(6, seed=3)

    @tf.function
    def total():
        s = tf.constant(0, tf.int64)
        order = tf.constant(0, tf.int64)
        for x in ds:
            s += x
            order = order * 10 + x
        return s, order

    return [total() for _ in range(3)]


def test_loop_over_a_shuffled_dataset_reshuffles_each_call(tf_oracle):
    assert_parity(tf_oracle, _shuffled_loop, ())


def _next_of_outside_iterator(tf):
    it = iter(tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": [[1.0], [2.0], [3.0]]}))

    @tf.function
    def pull():
        element = next(it)
        return element["a"] * 10, element["b"], element["b"].shape.as_list()

    out = [pull() for _ in range(3)]
    try:
        pull()
    except tf.errors.OutOfRangeError as e:
        out.append(type(e).__name__)
    return out


def test_next_of_an_outside_iterator_advances_each_call(tf_oracle):
    assert_parity(tf_oracle, _next_of_outside_iterator, ())


def _loops(tf):
    ds = tf.data.Dataset.range(10).batch(4)  # the last batch is shorter: shape [None]
    ragged = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]))

    @tf.function
    def sums():
        total = tf.constant(0, tf.int64)
        count = 0
        shapes = []
        for batch in ds:
            shapes.append(batch.shape.as_list())
            total += tf.reduce_sum(batch)
            count += 1
        return total, count, shapes

    @tf.function
    def until_big():
        total = tf.constant(0, tf.int64)
        for x in tf.data.Dataset.range(100):
            if x > 4:
                break
            total += x
        return total

    @tf.function
    def nested():
        total = tf.constant(0, tf.int64)
        for a in tf.data.Dataset.range(3):
            for b in tf.data.Dataset.range(4):
                total += a * 10 + b
        return total

    @tf.function
    def ragged_rows():
        total = tf.constant(0, tf.int32)
        for row in ragged:
            total += tf.reduce_sum(row) * tf.size(row)
        return total

    it = iter(tf.data.Dataset.range(5))
    next(it)

    @tf.function
    def rest():
        total = tf.constant(0, tf.int64)
        for x in it:
            total += x
        return total

    return sums(), until_big(), nested(), ragged_rows(), ragged_rows(), rest()


def test_staged_loops_over_datasets(tf_oracle):
    assert_parity(tf_oracle, _loops, ())


def _iterator_made_inside(tf):
    ds = tf.data.Dataset.range(8).shuffle(8, seed=5)

    @tf.function
    def first_two():
        it = iter(ds)
        return next(it), next(it)

    @tf.function
    def loop_over_iterator():
        total = tf.constant(0, tf.int64)
        for x in iter(tf.data.Dataset.range(4)):
            total = total * 10 + x
        return total

    @tf.function
    def past_the_end():
        it = iter(tf.data.Dataset.range(1))
        next(it)
        return next(it)

    out = [first_two() for _ in range(3)] + [loop_over_iterator(), loop_over_iterator()]
    try:
        past_the_end()
    except tf.errors.OutOfRangeError as e:
        out.append(type(e).__name__)
    return out


def test_iterators_made_inside_a_function_start_afresh_each_call(tf_oracle):
    assert_parity(tf_oracle, _iterator_made_inside, ())


def _reduce_in_function(tf):
    ds = tf.data.Dataset.range(5).shuffle(5, seed=7)

    @tf.function
    def digits():
        return ds.reduce(tf.constant(0, tf.int64), lambda state, x: state * 10 + x)

    @tf.function
    def growing():
        rows = tf.data.Dataset.range(3)
        return rows.reduce(tf.zeros([0], tf.int64), lambda acc, x: tf.concat([acc, [x, x]], 0))

    @tf.function
    def pair_state():
        ds2 = tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [1, 0, 1]))
        return ds2.reduce(
            (0.0, 0), lambda s, e: (s[0] + e[0] * tf.cast(e[1], tf.float32), s[1] + e[1])
        )

    return [digits() for _ in range(3)], growing(), pair_state()


def test_reduce_inside_a_function_pulls_elements_each_call(tf_oracle):
    assert_parity(tf_oracle, _reduce_in_function, ())


def _optional_in_function(tf):
    it = iter(tf.data.Dataset.from_tensor_slices(([1.0, 2.0], [[1, 2], [3, 4]])))

    @tf.function
    def pull():
        opt = it.get_next_as_optional()
        if opt.has_value():
            x, y = opt.get_value()
            return x + tf.cast(tf.reduce_sum(y), tf.float32)
        return tf.constant(-1.0)

    @tf.function
    def value_of_empty():
        return tf.data.Dataset.range(0).__iter__().get_next_as_optional().get_value()

    out = [pull() for _ in range(3)]
    try:
        value_of_empty()
    except tf.errors.InvalidArgumentError as e:
        out.append(type(e).__name__)
    return out


def test_get_next_as_optional_inside_a_function(tf_oracle):
    assert_parity(tf_oracle, _optional_in_function, ())
