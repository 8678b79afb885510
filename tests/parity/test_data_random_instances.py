"""Random ops in dataset functions against TensorFlow: each iterator runs its own instance of a
`map`/`filter` function (data/_instances.py), so a seeded random op draws the same sequence in
every epoch, every `iter()`, every `reduce` call (a `tf.function` calling `reduce` too), an
unseeded one draws new numbers, and within one iterator (`repeat`, a prefetching or parallel
map) the draws go on. ferroflow's stateful random stream is its own, so the programs compare
which draws repeat, not the numbers."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _epochs(tf, device):
    def values(ds):
        return [float(v) for v in ds]

    def draw(x):
        return tf.random.uniform([])

    with tf.device(device):
        tf.random.set_seed(7)
        ds = tf.data.Dataset.range(3).map(draw)
        first, second = values(ds), values(ds)
        one, two = iter(ds), iter(ds)
        iterators = [float(next(one)), float(next(two)), float(next(one))]
        repeated = values(tf.data.Dataset.range(2).map(draw).repeat(2))
        parallel = tf.data.Dataset.range(2).map(draw, num_parallel_calls=2).prefetch(2).repeat(2)
        parallel_epochs = [values(parallel), values(parallel)]
        op_seed = tf.data.Dataset.range(3).map(lambda x: tf.random.uniform([], seed=3))
        kept = tf.data.Dataset.range(6).filter(lambda x: tf.random.uniform([]) > 0.5)
        kept_epochs = [[int(v) for v in kept], [int(v) for v in kept]]

        @tf.function
        def total():
            return ds.reduce(0.0, lambda a, v: a + v)

        generator = tf.random.Generator.from_seed(1)
        drawn = tf.data.Dataset.range(2).map(lambda x: generator.uniform([]))
        tf.random.set_seed(None)
        unseeded = tf.data.Dataset.range(3).map(draw)
        return {
            "epochs_repeat": first == second,
            "iterators_start_alike": iterators[0] == iterators[1] == first[0],
            "iterator_goes_on": iterators[2] == first[1],
            "repeat_goes_on": repeated[:2] != repeated[2:],
            # Parallel calls take the draws in any order.
            "parallel_epochs_repeat": sorted(parallel_epochs[0]) == sorted(parallel_epochs[1]),
            "parallel_repeat_goes_on": sorted(parallel_epochs[0][:2])
            != sorted(parallel_epochs[0][2:]),
            "op_seed_epochs_repeat": values(op_seed) == values(op_seed),
            "filter_epochs_repeat": kept_epochs[0] == kept_epochs[1],
            "reduce_calls_repeat": float(ds.reduce(0.0, lambda a, v: a + v))
            == float(ds.reduce(0.0, lambda a, v: a + v)),
            "function_calls_repeat": float(total()) == float(total()),
            # get_single_element runs the functions' shared instance, which goes on drawing.
            "single_elements": [
                float(ds.take(1).get_single_element()) == first[0],
                float(ds.take(1).get_single_element()) == first[1],
            ],
            "generator_goes_on": values(drawn) != values(drawn),
            "unseeded_epochs_differ": values(unseeded) != values(unseeded),
        }


@pytest.mark.parametrize("device", DEVICES)
def test_random_ops_restart_with_each_iterator(tf_oracle, device):
    assert_parity(tf_oracle, _epochs, args=(device,))


def _state_functions(tf, device):
    """`scan`, `reduce`, `take_while` and grouping functions are traced once, as TensorFlow
    traces them: Python side effects run at the trace, `tf.executing_eagerly()` is False
    inside, and random ops draw per element, restarting with each iterator."""
    calls = []

    def step(state, x):
        calls.append(tf.executing_eagerly())
        return state + x, state * 2 + tf.cast(tf.random.uniform([]) < 2.0, tf.int64)

    def total(state, x):
        calls.append(("reduce", tf.executing_eagerly()))
        return state + x + tf.cast(tf.random.uniform([], maxval=3, dtype=tf.int32), tf.int64)

    with tf.device(device):
        tf.random.set_seed(11)
        scanned = tf.data.Dataset.range(5).scan(tf.constant(0, tf.int64), step)
        epochs = [[int(v) for v in scanned], [int(v) for v in scanned]]
        data = tf.data.Dataset.range(6)
        sums = [int(data.reduce(tf.constant(0, tf.int64), total)) for _ in range(2)]
        noisy = tf.data.Dataset.range(3).scan(0.0, lambda s, x: (s + 1.0, tf.random.uniform([])))
        noisy_epochs = [[float(v) for v in noisy], [float(v) for v in noisy]]

        def below(x):
            calls.append(("take_while", tf.executing_eagerly()))
            return x < 3

        taken = [int(v) for v in tf.data.Dataset.range(6).take_while(below)]

        def parity(x):
            calls.append(("key", tf.executing_eagerly()))
            return x % 2

        windows = tf.data.Dataset.range(7).group_by_window(
            parity, lambda k, w: w.batch(3), window_size=3
        )
        grouped = [v.numpy().tolist() for v in windows]

        def fold(state, x):
            calls.append(("fold", tf.executing_eagerly()))
            return state + x

        reducer = tf.data.experimental.Reducer(
            lambda key: tf.constant(0, tf.int64), fold, lambda state: state * 10
        )
        folded = tf.data.Dataset.range(7).apply(
            tf.data.experimental.group_by_reducer(parity, reducer)
        )
        reduced = [int(v) for v in folded]
    return {
        "epochs": epochs,
        "taken": taken,
        "grouped": grouped,
        "reduced": reduced,
        "calls": calls,
        "sums_repeat": sums[0] == sums[1],
        "noisy_epochs_repeat": noisy_epochs[0] == noisy_epochs[1],
        "noisy_draws_differ": len(set(noisy_epochs[0])) == 3,
    }


@pytest.mark.parametrize("device", DEVICES)
def test_scan_and_reduce_functions_are_traced(tf_oracle, device):
    assert_parity(tf_oracle, _state_functions, args=(device,))
