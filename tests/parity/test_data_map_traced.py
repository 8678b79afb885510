"""`Dataset.map`/`filter` functions are traced once into graphs, as TensorFlow traces them:
`tf.executing_eagerly()` inside, how often Python side effects run, the shapes the function
sees (None for unknown dims), tuple/dict/namedtuple elements, a returned list, random ops (new
numbers per element), `py_function` per element, errors at trace time (raised by `map`) and
while running (raised at the element, iteration going on), filter predicates that are not
scalar bools, `num_parallel_calls`/`deterministic` (same elements in order) and `prefetch`
(errors in order). Each program runs under `tf.device` on the CPU and the GPU (TensorFlow
runs dataset functions on the host either way)."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]
PARALLEL = [None, 2, "AUTOTUNE"]


def _calls(tf, n):
    return tf.data.AUTOTUNE if n == "AUTOTUNE" else n


def _listed(tf, ds):
    """Every element (as Python values) or the class of what `next` raised, up to 12."""
    out, it = [], iter(ds)
    for _ in range(12):
        try:
            e = next(it)
        except StopIteration:
            break
        except Exception as exc:  # noqa: BLE001 - compared by class
            out.append(("raised", type(exc).__name__))
            continue
        out.append(tf.nest.map_structure(lambda t: t.numpy().tolist(), e))
    return out


def _trace_facts(tf, device, parallel):
    with tf.device(device):
        seen = []

        def f(x):
            seen.append((tf.executing_eagerly(), x.shape.as_list(), x.dtype.name))
            return x * 2

        ds = tf.data.Dataset.range(5).batch(2).map(f, num_parallel_calls=_calls(tf, parallel))
        first = _listed(tf, ds)
        second = _listed(tf, ds)
        return seen, first, second, ds.element_spec, repr(ds).split(" ")[0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("parallel", PARALLEL)
def test_traced_once(tf_oracle, device, parallel):
    assert_parity(tf_oracle, _trace_facts, (device, parallel), helpers=[_calls, _listed])


def _structures(tf, device, parallel):
    import collections

    P = collections.namedtuple("P", "a b")
    n = _calls(tf, parallel)
    with tf.device(device):
        pairs = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0]))
        dicts = tf.data.Dataset.from_tensor_slices({"b": [1, 2], "a": [3, 4]})
        named = tf.data.Dataset.from_tensor_slices(P([1, 2], [10, 20]))
        cases = [
            pairs.map(lambda a, b: (b, a), num_parallel_calls=n),
            pairs.map(lambda a, b: {"sum": tf.cast(a, tf.float32) + b}, num_parallel_calls=n),
            dicts.map(lambda d: d["a"] * d["b"], num_parallel_calls=n),
            dicts.map(lambda d: d, num_parallel_calls=n, deterministic=False),
            named.map(lambda p: p.a + p.b, num_parallel_calls=n),
            named.map(lambda p: P(p.b, p.a), num_parallel_calls=n),
            tf.data.Dataset.range(3).map(lambda x: [x, x + 1], num_parallel_calls=n),
            tf.data.Dataset.range(3).map(lambda x: (x, tf.constant("s")), num_parallel_calls=n),
            tf.data.Dataset.range(3).map(lambda x: 1, num_parallel_calls=n),
            tf.data.Dataset.range(6).batch(4).map(tf.reduce_sum, num_parallel_calls=n),
        ]
        return [(ds.element_spec, _listed(tf, ds)) for ds in cases]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("parallel", PARALLEL)
def test_element_structures(tf_oracle, device, parallel):
    assert_parity(tf_oracle, _structures, (device, parallel), helpers=[_calls, _listed])


def _random_and_python(tf, parallel):
    n = _calls(tf, parallel)
    tf.random.set_seed(1)
    ds = tf.data.Dataset.range(4).map(lambda x: tf.random.uniform([]), num_parallel_calls=n)
    a = [float(e) for e in ds]
    b = [float(e) for e in ds]
    calls = []

    def g(v):
        calls.append(int(v))
        return v * 2

    py = tf.data.Dataset.range(4).map(
        lambda x: tf.py_function(g, [x], tf.int64), num_parallel_calls=n
    )
    return len(set(a)), len(set(b)), py.element_spec, _listed(tf, py), sorted(calls)


@pytest.mark.parametrize("parallel", PARALLEL)
def test_random_and_py_function(tf_oracle, parallel):
    assert_parity(tf_oracle, _random_and_python, (parallel,), helpers=[_calls, _listed])


def _errors(tf, device, parallel):
    n = _calls(tf, parallel)
    out = []
    with tf.device(device):

        def bad_python(x):
            raise KeyError("k")

        for fn in (
            bad_python,
            lambda x: tf.reshape(x, [3]),
            lambda x: tf.constant([1, 2]) + tf.constant([1, 2, 3]),
        ):
            try:
                tf.data.Dataset.from_tensor_slices([[1.0, 2.0]]).map(fn, num_parallel_calls=n)
                out.append("made")
            except Exception as e:  # noqa: BLE001 - compared by class
                out.append(type(e).__name__)
        # Errors while running: raised at their element, the next elements still come.
        gather = tf.data.Dataset.range(5).map(
            lambda x: tf.gather([1, 2, 3], x), num_parallel_calls=n
        )
        out.append(_listed(tf, gather))
        out.append(_listed(tf, gather.prefetch(2)))
        short = (
            tf.data.Dataset.range(5)
            .batch(2)
            .map(lambda x: tf.reshape(x, [2]), num_parallel_calls=n)
        )
        out.append(_listed(tf, short))
        for bad in (0, -2, 2.5):
            try:
                tf.data.Dataset.range(2).map(lambda x: x, num_parallel_calls=bad)
                out.append("made")
            except Exception as e:  # noqa: BLE001 - compared by class
                out.append(type(e).__name__)
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("parallel", PARALLEL)
def test_errors(tf_oracle, device, parallel):
    assert_parity(tf_oracle, _errors, (device, parallel), helpers=[_calls, _listed])


def _filters(tf, device):
    out = []
    with tf.device(device):
        base = tf.data.Dataset.range(8)
        for predicate in (
            lambda x: x,
            lambda x: tf.constant([True, False]),
            lambda x: tf.cast(x, tf.float32),
            lambda x: tf.reshape(x > 2, [1]),
        ):
            try:
                base.filter(predicate)
                out.append("made")
            except Exception as e:  # noqa: BLE001 - compared by class
                out.append((type(e).__name__, str(e)))
        calls = []

        def keep(x):
            calls.append(tf.executing_eagerly())
            return x % 3 == 0

        kept = base.filter(keep)
        out.append((_listed(tf, kept), calls, kept.cardinality()))
        batched = tf.data.Dataset.range(6).batch(4).filter(lambda x: tf.size(x) > 2)
        out.append(_listed(tf, batched))
        out.append(_listed(tf, base.filter(lambda x: True).take(2)))
    return out


@pytest.mark.parametrize("device", DEVICES)
def test_filter_predicates(tf_oracle, device):
    assert_parity(tf_oracle, _filters, (device,), helpers=[_listed])


def _prefetched(tf, buffer_size):
    ds = tf.data.Dataset.range(10).map(lambda x: x * x).batch(3).prefetch(buffer_size)
    first = _listed(tf, ds)
    it = iter(ds)
    head = next(it).numpy().tolist()
    del it  # a dropped iterator stops its thread
    gen = tf.data.Dataset.from_generator(
        lambda: iter(range(5)), output_signature=tf.TensorSpec([], tf.int64)
    )
    return first, head, _listed(tf, gen.prefetch(buffer_size)), ds.element_spec, repr(ds)


@pytest.mark.parametrize("buffer_size", [0, 1, "AUTOTUNE"])
def test_prefetch(tf_oracle, buffer_size):
    args = (-1 if buffer_size == "AUTOTUNE" else buffer_size,)
    assert_parity(tf_oracle, _prefetched, args, helpers=[_listed])


def _padded(tf):
    import numpy as np

    def images():
        for h in (6, 8):
            yield np.arange(h * 7 * 3, dtype=np.float32).reshape(h, 7, 3)

    ds = tf.data.Dataset.from_generator(
        images, output_signature=tf.TensorSpec([None, None, 3], tf.float32)
    )
    # ferroflow's tf.pad needs known paddings: this function runs eagerly (same values).
    padded = ds.map(lambda im: tf.image.resize_with_pad(im, 4, 5))
    return padded.element_spec, _listed(tf, padded)


def test_untraceable_function_runs_eagerly(tf_oracle):
    assert_parity(tf_oracle, _padded, helpers=[_listed])
