"""Random datasets built inside a `tf.function`, against TensorFlow, which makes them anew in
every call: seeded ones (an op seed, or the global seed and an op seed) start each call from
the same numbers, `rerandomize_each_iteration` included (ferroflow kept one dataset across
calls, which went on to its next iteration's numbers); unseeded ones draw new seeds each call
(ferroflow repeated the first call's numbers); the seeds are the trace's, whatever global seed
is set later. Datasets built outside and iterated inside go on across calls as TensorFlow's
captured datasets do."""

import pytest

from .harness import assert_parity

DEVICES = ["CPU:0", "GPU:0"]


def _agrees_without_raising(tf_oracle, program, device):
    expected = assert_parity(tf_oracle, program, args=(device,))
    assert expected[0] != "raised", expected


def _seeded_calls(tf, device, global_seed):
    def first(ds, n):
        return ds.take(n).batch(n).get_single_element()

    def two_ranges():
        return [tf.data.Dataset.range(0, 100), tf.data.Dataset.range(100, 200)]

    tf.random.set_seed(global_seed)
    try:
        with tf.device(device):

            @tf.function
            def words():
                plain = tf.data.Dataset.random(seed=4)
                again = tf.data.Dataset.random(seed=4, rerandomize_each_iteration=True)
                return first(plain, 3), first(again, 3), first(again, 3)

            @tf.function
            def loop(n):
                total = tf.constant(0, tf.int64)
                ds = tf.data.Dataset.random(seed=9, rerandomize_each_iteration=True).take(n)
                for x in ds:
                    total = total * 7 + x % 1000
                return total

            @tf.function
            def picks():
                plain = tf.data.Dataset.sample_from_datasets(two_ranges(), seed=7)
                again = tf.data.Dataset.sample_from_datasets(
                    two_ranges(), [0.3, 0.7], seed=7, rerandomize_each_iteration=True
                )
                choice = tf.data.Dataset.random(seed=2, rerandomize_each_iteration=True)
                chosen = tf.data.Dataset.choose_from_datasets(
                    two_ranges(), choice.map(lambda x: x % 2)
                )
                return first(plain, 6), first(again, 6), first(again, 6), first(chosen, 6)

            @tf.function
            def shuffled():
                ds = tf.data.Dataset.range(8).shuffle(8, seed=3, reshuffle_each_iteration=True)
                it = iter(ds)
                return next(it), next(it), first(ds, 8)

            out = []
            for _ in range(3):
                out += [words(), loop(tf.constant(4, tf.int64)), picks(), shuffled()]
            # The trace's seeds stay the function's seeds.
            tf.random.set_seed(None if global_seed is None else global_seed + 1)
            out += [words(), picks()]
            return out
    finally:
        tf.random.set_seed(None)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("global_seed", [None, 11])
def test_seeded_datasets_built_in_a_function_start_over_each_call(tf_oracle, device, global_seed):
    expected = assert_parity(tf_oracle, _seeded_calls, args=(device, global_seed))
    assert expected[0] != "raised", expected


def _unseeded_calls(tf, device):
    def first(ds, n):
        return ds.take(n).batch(n).get_single_element()

    tf.random.set_seed(None)
    with tf.device(device):

        @tf.function
        def draws():
            ranges = [tf.data.Dataset.range(0, 100), tf.data.Dataset.range(100, 200)]
            picked = tf.data.Dataset.sample_from_datasets(ranges)
            fixed = tf.data.Dataset.range(30).shuffle(30, reshuffle_each_iteration=False)
            words = tf.data.Dataset.random()
            return first(words, 4), first(picked, 30), first(fixed, 30), first(fixed, 30)

        calls = [[t.numpy().tolist() for t in draws()] for _ in range(3)]

    def differ(part):
        return len({tuple(c[part]) for c in calls}) == 3

    # What TensorFlow defines: new numbers each call; within a call, a shuffle without
    # reshuffling repeats its order; the values are the datasets'.
    return [
        [differ(part) for part in range(4)],
        [c[2] == c[3] for c in calls],
        [sorted(c[2]) for c in calls],
        [all(v < 6 or 100 <= v < 106 for v in sorted(c[1])[:6]) for c in calls],
    ]


@pytest.mark.parametrize("device", DEVICES)
def test_unseeded_datasets_built_in_a_function_differ_between_calls(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _unseeded_calls, device)


def _built_outside(tf, device):
    def first(ds, n):
        return ds.take(n).batch(n).get_single_element()

    tf.random.set_seed(None)
    with tf.device(device):
        plain = tf.data.Dataset.random(seed=4)
        again = tf.data.Dataset.random(seed=4, rerandomize_each_iteration=True)
        shuffled = tf.data.Dataset.range(6).shuffle(6, seed=3)
        fixed = tf.data.Dataset.range(6).shuffle(6, seed=3, reshuffle_each_iteration=False)
        ranges = [tf.data.Dataset.range(0, 100), tf.data.Dataset.range(100, 200)]
        picked = tf.data.Dataset.sample_from_datasets(
            ranges, seed=7, rerandomize_each_iteration=True
        )

        @tf.function
        def read():
            total = tf.constant(0, tf.int64)
            for x in shuffled:
                total = total * 10 + x
            return first(plain, 3), first(again, 3), total, first(fixed, 6), first(picked, 6)

        return [read() for _ in range(3)]


@pytest.mark.parametrize("device", DEVICES)
def test_datasets_built_outside_go_on_across_calls(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _built_outside, device)


def _function_bodies_run_once(tf, device):
    # TensorFlow traces a dataset function once, when the tf.function is traced: its Python
    # body does not run again in later calls (ferroflow traced it again in every call, and
    # twice more while tracing, for its stand-in constructions).
    log = []
    with tf.device(device):

        @tf.function
        def pipeline(x, n, k):
            def scaled(e):
                log.append(("map", e.shape.as_list()))
                return tf.reduce_sum(e) * k

            def kept(e):
                log.append(("filter", e.shape.as_list()))
                return e > k

            def step(s, e):
                log.append(("scan", e.shape.as_list()))
                return s + e, s * k

            ds = tf.data.Dataset.from_tensor_slices(x).batch(n, drop_remainder=True)
            ds = ds.map(scaled).filter(kept)
            ds = ds.scan(tf.constant(0.0), step)
            return ds.reduce(tf.constant(0.0), lambda a, b: a * 10 + b)

        @tf.function
        def counted(n):
            def shifted(e):
                log.append("range map")
                return e + 1

            return (
                tf.data.Dataset.range(n)
                .map(shifted)
                .reduce(tf.constant(0, tf.int64), lambda a, b: a * 10 + b)
            )

        out = []
        for values, k in [([1.0, 2.0, 3.0], 1.0), ([3.0, 4.0, 5.0], 2.0), ([5.0, 6.0, 0.5], 0.0)]:
            out.append(pipeline(tf.constant(values), tf.constant(2, tf.int64), tf.constant(k)))
            out.append(list(log))
        for n in (3, 5, 1):
            out.append(counted(tf.constant(n, tf.int64)))
            out.append(list(log))
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_dataset_functions_built_in_a_function_are_traced_once(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _function_bodies_run_once, device)


def _python_calling_bodies_run_once(tf, device):
    # Dataset functions whose graphs call Python (a dataset read inside them, a `py_function`,
    # a `tf.print`) are traced once too: ferroflow traced them again per stand-in and per run,
    # since their graphs, called inside another trace, lost their loops and prints.
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "printed.txt")
    log = []
    with tf.device(device):

        @tf.function
        def pipeline(x, k):
            def summed(e):
                log.append("loop")
                s = tf.constant(0, tf.int64)
                for v in tf.data.Dataset.range(e):
                    s += v * k
                return s

            def doubled(e):
                log.append("py_function")
                out = tf.py_function(lambda a: a * 2, [e], tf.int64)
                out.set_shape([])
                return out

            def printed(e):
                log.append("print")
                tf.print("element", e, output_stream="file://" + path)
                return e + 1

            ds = tf.data.Dataset.from_tensor_slices(x).map(summed).map(doubled).map(printed)
            return ds.reduce(tf.constant(0, tf.int64), lambda a, b: a * 100 + b)

        out = []
        for values, k in [([1, 3, 4], 1), ([2, 5, 1], 2), ([6, 0, 2], 3)]:
            out.append(pipeline(tf.constant(values, tf.int64), tf.constant(k, tf.int64)))
            out.append(list(log))
    with open(path) as f:
        return out, f.read()


@pytest.mark.parametrize("device", DEVICES)
def test_dataset_functions_calling_python_are_traced_once(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _python_calling_bodies_run_once, device)


def _list_files_of_traced_patterns(tf, device):
    # `list_files` of a traced pattern globs when the graph runs (ferroflow raised reading the
    # pattern's value while tracing); a constant pattern's matches are folded into the graph.
    import os
    import tempfile

    folder = tempfile.mkdtemp()
    for name in ["b.txt", "a.txt", "c.txt", "d.csv"]:
        with open(os.path.join(folder, name), "w") as f:
            f.write(name[0] * 3)

    def names(tensor):
        return [os.path.basename(p) for p in tensor.numpy().tolist()]

    specs = []

    with tf.device(device):

        @tf.function
        def listed(pattern):
            ds = tf.data.Dataset.list_files(pattern, shuffle=False)
            specs.append(ds.element_spec)
            return ds.batch(10).get_single_element()

        @tf.function
        def read(pattern):
            ds = tf.data.Dataset.list_files(pattern, shuffle=False).map(tf.io.read_file)
            return ds.reduce(tf.constant(""), lambda a, b: a + b)

        @tf.function
        def both(first, second):
            ds = tf.data.Dataset.list_files([first, second], shuffle=False)
            return ds.batch(10).get_single_element()

        @tf.function
        def shuffled(pattern):
            ds = tf.data.Dataset.list_files(pattern, seed=3)
            return ds.batch(10).get_single_element()

        @tf.function
        def constant_pattern():
            ds = tf.data.Dataset.list_files(os.path.join(folder, "*.txt"), shuffle=False)
            return ds.batch(10).get_single_element()

        # A constant pattern with shuffling: globbed once too (ferroflow globbed in every
        # call), the seeded order the same in every call, unseeded orders drawn anew.
        @tf.function
        def constant_shuffled():
            ds = tf.data.Dataset.list_files(os.path.join(folder, "*.txt"), seed=5)
            return ds.batch(10).get_single_element()

        @tf.function
        def constant_unseeded():
            ds = tf.data.Dataset.list_files(os.path.join(folder, "*.txt"))
            return ds.batch(10).get_single_element()

        txt, csv = tf.constant(os.path.join(folder, "*.txt")), tf.constant(folder + "/*.csv")
        out = []
        out += [names(listed(txt)), names(listed(csv)), read(txt)]
        out += [names(both(tf.constant(folder + "/a*"), csv)), names(constant_pattern())]
        out += [sorted(names(shuffled(txt))), names(shuffled(txt)) == names(shuffled(txt))]
        out += [names(constant_shuffled()), sorted(names(constant_unseeded()))]
        with open(os.path.join(folder, "e.txt"), "w") as f:
            f.write("eee")
        out += [names(listed(txt)), names(constant_pattern())]
        out += [names(constant_shuffled()), sorted(names(constant_unseeded()))]
        unseeded = {tuple(names(constant_unseeded())) for _ in range(12)}
        out.append(len(unseeded) > 1)
        try:
            listed(tf.constant(folder + "/*.none"))
        except Exception as e:  # noqa: BLE001 - the class is compared
            out.append(type(e).__name__)
        return out, specs


@pytest.mark.parametrize("device", DEVICES)
def test_list_files_of_traced_patterns(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _list_files_of_traced_patterns, device)


def _rejection_resample_of_traced_distributions(tf, device):
    # Traced target and initial distributions (ferroflow raised reading their values while
    # tracing). Each function is called once: TensorFlow's stateful filter draws go on in
    # later calls of the same function.
    specs = []

    def resampler():
        @tf.function
        def resample(x, target, initial):
            ds = tf.data.Dataset.from_tensor_slices(x)
            out = ds.rejection_resample(
                lambda v: tf.cast(v, tf.int32), target, initial_dist=initial, seed=3
            )
            specs.append(out.element_spec)
            return out.map(lambda c, v: v).batch(100).get_single_element()

        return resample

    def estimating():
        @tf.function
        def resample(target):
            ds = tf.data.Dataset.range(40).map(lambda v: v % 4)
            out = ds.rejection_resample(lambda v: tf.cast(v, tf.int32), target, seed=5)
            return out.map(lambda c, v: v).batch(100).get_single_element()

        return resample

    values = tf.constant([v % 4 for v in range(40)], tf.int64)
    quarter = tf.constant([0.25] * 4)
    with tf.device(device):
        return [
            resampler()(values, tf.constant([0.1, 0.2, 0.3, 0.4]), quarter),
            resampler()(values, tf.constant([0.7, 0.1, 0.1, 0.1]), quarter),
            estimating()(tf.constant([0.1, 0.2, 0.3, 0.4])),
            specs,
        ]


@pytest.mark.parametrize("device", DEVICES)
def test_rejection_resample_of_traced_distributions(tf_oracle, device):
    _agrees_without_raising(tf_oracle, _rejection_resample_of_traced_distributions, device)
