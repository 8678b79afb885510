"""Variables read and assigned inside traced loops and branches."""

from .harness import parity


@parity
def test_assign_add_in_tensor_range_loop(tf):
    v = tf.Variable(0.0)

    @tf.function
    def f(n):
        for i in tf.range(n):
            v.assign_add(tf.cast(i, tf.float32))
        return v.read_value()

    first = f(tf.constant(5))
    second = f(tf.constant(3))
    return first, second, v, f.experimental_get_tracing_count()


@parity
def test_variable_read_in_while_condition(tf):
    v = tf.Variable(1.0)

    @tf.function
    def f(limit):
        steps = tf.constant(0)
        while v < limit:
            v.assign(v * 2.0 + 1.0)
            steps += 1
        return steps, v.read_value()

    return f(tf.constant(20.0)), f(tf.constant(100.0)), v


@parity
def test_python_loop_unrolled_assignments(tf):
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f():
        seen = []
        for i in range(3):
            v.assign_sub([1.0, float(i)])
            seen.append(v.read_value())
        return seen

    return f(), f(), v


@parity
def test_read_after_assign_in_one_step(tf):
    v = tf.Variable(1.0)
    counter = tf.Variable(0, dtype=tf.int32)

    @tf.function
    def f(x):
        before = v + 0.0
        v.assign(x)
        after = v + 1.0
        counter.assign_add(1)
        return before, after

    return f(tf.constant(3.0)), f(tf.constant(5.0)), v, counter


@parity
def test_variable_updates_in_cond(tf):
    v = tf.Variable([0.0, 0.0])

    @tf.function
    def f(x):
        if tf.reduce_sum(x) > 0:
            v.assign_add(x)
        else:
            v.assign(x * 10.0)
        return v.read_value()

    return [f(tf.constant(p)) for p in ([1.0, 2.0], [-3.0, 1.0], [0.5, 0.5])]


@parity
def test_gradient_descent_in_traced_loop(tf):
    w = tf.Variable([1.0, -2.0])
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]])
    y = tf.constant([1.0, 0.0, 2.0])

    @tf.function
    def train(steps):
        for _ in tf.range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.linalg.matvec(x, w) - y) ** 2)
            w.assign_sub(0.05 * tape.gradient(loss, w))
        return loss

    return train(tf.constant(10)), w


@parity
def test_variable_created_on_first_trace(tf):
    class Counter(tf.Module):
        def __init__(self):
            super().__init__()
            self.total = None

        @tf.function
        def __call__(self, x):
            if self.total is None:
                self.total = tf.Variable(tf.zeros_like(x))
            self.total.assign_add(x)
            return self.total.read_value()

    c = Counter()
    return c(tf.constant([1.0, 2.0])), c(tf.constant([3.0, 4.0]))
