"""`tf.experimental.ExtensionType` and friends against TensorFlow 2.21: field conversion and
checking (tensors, Python values, shapes, dtypes, tuples, mappings, unions, nested extension
types), `__validate__`, immutability, the generated constructor, repr, equality and `Spec`;
values through `tf.nest`, `tf.function` (arguments, results, `input_signature`, retracing by
spec), gradients through tensor fields, `BatchableExtensionType` batching and its encoder, and
the API dispatchers (`dispatch_for_api`, the elementwise ones, `unregister_dispatch_for`) with
TensorFlow's MaskedTensor example."""

import pytest

from .harness import assert_parity, parity

DEVICES = ["CPU:0", "GPU:0"]


def _masked_tensor(tf):
    class MaskedTensor(tf.experimental.ExtensionType):
        values: tf.Tensor
        mask: tf.Tensor

        def __validate__(self):
            self.values.shape.assert_is_compatible_with(self.mask.shape)
            assert self.mask.dtype.is_bool

        def with_default(self, default):
            return tf.where(self.mask, self.values, default)

    return MaskedTensor


def _construction(tf, device):
    with tf.device(device):
        MaskedTensor = _masked_tensor(tf)
        m = MaskedTensor([1.0, 2.0, 3.0], [True, False, True])
        out = [
            repr(m),
            m.values,
            m.mask,
            m.with_default(0.0),
            m._type_spec,
            repr(m._type_spec),
            MaskedTensor.Spec.__qualname__,
            isinstance(m, tf.experimental.ExtensionType),
            isinstance(m._type_spec, tf.experimental.ExtensionTypeSpec),
            isinstance(m._type_spec, tf.TypeSpec),
            m == m,
            m == MaskedTensor([1.0, 2.0, 4.0], [True, False, True]),
            m != MaskedTensor([1.0, 2.0], [True, False]),
            m == 3,
            MaskedTensor(values=[1, 2], mask=[False, False])
            == MaskedTensor([1, 2], [False, False]),
            tf.experimental.extension_type.as_dict(m),
            tf.type_spec_from_value(m),
        ]
        for thunk in (
            lambda: setattr(m, "values", tf.constant([0.0])),
            lambda: delattr(m, "mask"),
            lambda: setattr(m, "other", 1),
            lambda: MaskedTensor([1.0], [True, False]),
            lambda: MaskedTensor([1.0], [1]),
            lambda: MaskedTensor("a", object()),
            lambda: MaskedTensor([1.0]),
            lambda: MaskedTensor([1.0], [True], [True]),
            lambda: MaskedTensor([1.0], mask=[True], extra=1),
            lambda: m.missing,
            lambda: hash(m),
            lambda: tf.experimental.ExtensionType(),
        ):
            try:
                out.append(("ok", thunk()))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                out.append((type(e).__name__, str(e) if isinstance(e, AttributeError) else ""))
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_construction_validation_immutability(tf_oracle, device):
    assert_parity(tf_oracle, _construction, (device,), helpers=(_masked_tensor,))


@parity
def test_field_types_and_conversion(tf):
    import typing

    class Inner(tf.experimental.ExtensionType):
        x: tf.Tensor

    class Toy(tf.experimental.ExtensionType):
        name: str
        price: tf.Tensor
        tags: typing.Mapping[str, tf.Tensor]
        dims: typing.Tuple[int, ...] = (1, 2)
        pair: typing.Tuple[int, float] = (1, 2.0)
        shape: tf.TensorShape = [None, 3]
        dtype: tf.DType = tf.int64
        u: typing.Union[int, str] = "x"
        inner: typing.Optional[Inner] = None
        flag: bool = False
        data: bytes = b""
        nothing: None = None

    t = Toy("ball", 3, {"b": [1], "a": 2.0}, inner=Inner([4.0]), dtype="float32")
    out = [
        repr(t),
        t._type_spec,
        repr(t._type_spec),
        tf.nest.flatten(t, expand_composites=True),
        list(t.tags),
        type(t.tags).__name__,
        t.tags["b"],
        t.dims,
        t.shape,
        t.dtype,
        list(tf.experimental.extension_type.as_dict(t)),
    ]
    for kwargs in (
        {"name": 1},
        {"dims": [1, "x"]},
        {"pair": (1,)},
        {"pair": 3},
        {"u": 1.5},
        {"tags": []},
        {"tags": {1: 2}},
        {"inner": 3},
        {"shape": "abc"},
        {"dtype": 3.5},
        {"flag": 1},
        {"nothing": 0},
        {"price": object()},
    ):
        args = {"name": "a", "price": 1.0, "tags": {}}
        args.update(kwargs)
        try:
            out.append(("ok", repr(Toy(**args))))
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            out.append((type(e).__name__, str(e)))
    return out


@parity
def test_class_definition_errors(tf):
    import typing

    out = []

    def define(body):
        try:
            body()
            return "ok"
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__

    def bad_annotation():
        class A(tf.experimental.ExtensionType):
            x: list

    def bad_mapping_key():
        class A(tf.experimental.ExtensionType):
            x: typing.Mapping[tf.Tensor, int]

    def reserved():
        class A(tf.experimental.ExtensionType):
            value_type: int

    def missing_annotation():
        class A(tf.experimental.ExtensionType):
            x: int
            y = 3

    def bad_default():
        class A(tf.experimental.ExtensionType):
            x: int = "a"

    def encoder_on_plain():
        class A(tf.experimental.ExtensionType):
            x: int
            __batch_encoder__ = tf.experimental.ExtensionTypeBatchEncoder()

    def spec_shadowing():
        class A(tf.experimental.ExtensionType):
            x: int

            class Spec:
                x = 1

    def spec_not_class():
        class A(tf.experimental.ExtensionType):
            x: int
            Spec = 3

    for body in (
        bad_annotation,
        bad_mapping_key,
        reserved,
        missing_annotation,
        bad_default,
        encoder_on_plain,
        spec_shadowing,
        spec_not_class,
    ):
        out.append(define(body))
    return out


@parity
def test_constructor_defaults_user_init_and_spec_class(tf):
    class Pair(tf.experimental.ExtensionType):
        a: tf.Tensor
        b: int = 2
        c: str = "c"

    class Scaled(tf.experimental.ExtensionType):
        x: tf.Tensor
        scale: float

        def __init__(self, x, scale=2.0):
            self.x = x
            self.scale = scale * 2

        class Spec:
            @property
            def dtype(self):
                return self.x.dtype

            def twice(self):
                return 2

    s = Scaled([1, 2])
    out = [
        repr(Pair(1)),
        repr(Pair(1, 5, c="z")),
        repr(s),
        s._type_spec.dtype,
        s._type_spec.twice(),
        repr(Scaled.Spec(tf.TensorSpec([2], tf.int32), 4.0)),
        Scaled.Spec(tf.TensorSpec([2], tf.int32), 4.0) == s._type_spec,
    ]
    for thunk in (
        lambda: Pair(1, 2, 3),
        lambda: Scaled.Spec(tf.constant(1), 1.0),
        lambda: setattr(s._type_spec, "scale", 1.0),
    ):
        try:
            out.append(("ok", thunk()))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out


def _functions(tf, device):
    with tf.device(device):
        MaskedTensor = _masked_tensor(tf)

        @tf.function
        def f(x, d):
            return x.with_default(d), MaskedTensor(x.values * 2, x.mask)

        a = MaskedTensor([1.0, 2.0, 3.0], [True, False, True])
        b = MaskedTensor([4.0, 5.0, 6.0], [False, False, True])
        c = MaskedTensor([4.0, 5.0], [False, True])
        results = []
        for x in (a, b, c, a):
            value, doubled = f(x, 0.0)
            results.append((value, doubled.values, doubled.mask, doubled._type_spec))
        spec = MaskedTensor.Spec(tf.TensorSpec([None], tf.float32), tf.TensorSpec([None], tf.bool))
        g = tf.function(lambda x: tf.reduce_sum(x.with_default(10.0)), input_signature=[spec])
        concrete = f.get_concrete_function(spec, tf.TensorSpec([], tf.float32))
        from_concrete = concrete(a, tf.constant(-1.0))
        return (
            results,
            f.experimental_get_tracing_count(),
            g(a),
            g(c),
            g.experimental_get_tracing_count(),
            from_concrete[0],
            from_concrete[1].values,
            spec.is_compatible_with(a),
            a._type_spec.most_specific_common_supertype([c._type_spec]),
            a._type_spec.is_subtype_of(spec),
            tf.nest.flatten({"m": a, "n": [b]}, expand_composites=True),
            tf.nest.map_structure(lambda t: t, a, expand_composites=True).values,
            tf.nest.flatten(spec, expand_composites=True),
            len(tf.nest.flatten({"m": a})),
        )


@pytest.mark.parametrize("device", DEVICES)
def test_through_functions_and_nest(tf_oracle, device):
    assert_parity(tf_oracle, _functions, (device,), helpers=(_masked_tensor,))


def _gradients(tf, device):
    with tf.device(device):
        MaskedTensor = _masked_tensor(tf)
        x = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            m = MaskedTensor(x * x, [True, False, True])
            y = tf.reduce_sum(m.with_default(0.0))
        eager = tape.gradient(y, x)

        @tf.function
        def traced(v):
            with tf.GradientTape() as t:
                t.watch(v)
                mm = MaskedTensor(tf.sin(v), [True, True, False])
                out = tf.reduce_sum(mm.with_default(1.0) * 3.0)
            return t.gradient(out, v)

        errors = []
        for source in (lambda mm: mm,):
            try:
                with tf.GradientTape() as t:
                    t.watch(x)
                    mm = MaskedTensor(x * 2.0, [True, True, True])
                    z = tf.reduce_sum(mm.values)
                t.gradient(z, source(mm))
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                errors.append(type(e).__name__)
        return eager, traced(x), errors


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_through_tensor_fields(tf_oracle, device):
    assert_parity(tf_oracle, _gradients, (device,), helpers=(_masked_tensor,))


@parity
def test_batchable_extension_type(tf):
    import typing

    class Vehicle(tf.experimental.BatchableExtensionType):
        top_speed: tf.Tensor
        mpg: tf.Tensor
        shape: tf.TensorShape
        tags: typing.Tuple[str, ...] = ()

    v = Vehicle([120, 150, 80], [30, 40, 12], [3], ("a",))
    spec = v._type_spec
    encoder = tf.experimental.ExtensionTypeBatchEncoder()
    encoded = encoder.encode(spec, v)
    return (
        isinstance(spec, tf.experimental.ExtensionTypeSpec),
        spec._batch(4),
        spec._batch(None),
        spec._batch(4)._unbatch(),
        spec._unbatch(),
        encoder.batch(spec, 2),
        encoder.unbatch(spec),
        encoded,
        encoder.encoding_specs(spec),
        repr(encoder.decode(spec, encoded)),
        Vehicle.Spec.__batch_encoder__.batch(spec, 3),
    )


def _dispatch(tf, device):
    from typing import List, Union

    with tf.device(device):
        MaskedTensor = _masked_tensor(tf)

        def to_masked(x):
            return x if isinstance(x, MaskedTensor) else MaskedTensor(x, tf.ones_like(x, tf.bool))

        @tf.experimental.dispatch_for_api(tf.math.add)
        def masked_add(x: MaskedTensor, y: MaskedTensor, name=None):
            return MaskedTensor(x.values + y.values, x.mask & y.mask)

        @tf.experimental.dispatch_for_api(tf.stack)
        def masked_stack(values: List[MaskedTensor], axis=0, name="stack"):
            return MaskedTensor(
                tf.stack([v.values for v in values], axis), tf.stack([v.mask for v in values], axis)
            )

        @tf.experimental.dispatch_for_unary_elementwise_apis(MaskedTensor)
        def unary(api_func, x):
            return MaskedTensor(api_func(x.values), x.mask)

        @tf.experimental.dispatch_for_binary_elementwise_apis(
            Union[MaskedTensor, tf.Tensor], Union[MaskedTensor, tf.Tensor]
        )
        def binary(api_func, x, y):
            x, y = to_masked(x), to_masked(y)
            return MaskedTensor(api_func(x.values, y.values), x.mask & y.mask)

        @tf.experimental.dispatch_for_binary_elementwise_assert_apis(MaskedTensor, MaskedTensor)
        def asserts(assert_func, x, y):
            return assert_func(x.values, y.values)

        @tf.experimental.dispatch_for_api(tf.math.reduce_sum, {"input_tensor": MaskedTensor})
        def masked_sum(input_tensor, axis=None, keepdims=False, name=None):
            return tf.reduce_sum(input_tensor.with_default(0.0), axis, keepdims)

        def fields(m):
            return (m.values, m.mask)

        def outcome(thunk):
            try:
                return ("ok", thunk())
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                return type(e).__name__

        m = MaskedTensor([-1.0, 2.0, -3.0], [True, False, True])
        dense = tf.constant([0.5, 0.5, 0.5])
        out = [outcome(lambda: tf.math.add(m, m))]  # two targets match: ValueError
        tf.experimental.unregister_dispatch_for(masked_add)

        @tf.function
        def traced(x):
            return fields(tf.abs(x)), fields(tf.math.add(x, dense)), tf.reduce_sum(x)

        out += [
            fields(tf.math.add(m, m)),
            fields(tf.add(m, dense)),
            fields(tf.abs(m)),
            fields(tf.math.exp(m)),
            fields(tf.math.negative(m)),
            fields(tf.math.maximum(m, dense)),
            fields(tf.math.multiply(dense, m)),
            fields(tf.stack([m, m], axis=1)),
            tf.reduce_sum(m),
            tf.reduce_sum(m, axis=0, keepdims=True),
            tf.debugging.assert_equal(m, m),
            outcome(
                lambda: tf.debugging.assert_equal(m, MaskedTensor([1.0, 2.0, 3.0], [True] * 3))
            ),
            outcome(lambda: tf.debugging.assert_less(m, m)),
            traced(m),
            tf.math.add(dense, dense),
            outcome(lambda: tf.math.add(tf.constant([1.0]), tf.constant([1]))),
        ]
        tf.experimental.unregister_dispatch_for(unary)
        out.append(outcome(lambda: tf.abs(m)))
        out.append(outcome(lambda: tf.experimental.unregister_dispatch_for(unary)))
        for target in (binary, masked_stack, masked_sum):
            tf.experimental.unregister_dispatch_for(target)
        out += [
            outcome(lambda: tf.math.add(m, m)),
            outcome(lambda: tf.stack([m, m])),
            outcome(lambda: tf.reduce_sum(m)),
            fields(tf.add(m.values, 1.0) and m),
        ]
        return out


@pytest.mark.parametrize("device", DEVICES)
def test_dispatch_masked_tensor(tf_oracle, device):
    assert_parity(tf_oracle, _dispatch, (device,), helpers=(_masked_tensor,))


@parity
def test_dispatch_target_without_name_parameter(tf):
    """TensorFlow wraps a target that lacks the API's `name` so it takes one (ferroflow refused
    such a target with ValueError)."""

    class MyTensor(tf.experimental.ExtensionType):
        value: tf.Tensor

    @tf.experimental.dispatch_for_api(tf.abs)
    def my_abs(x: MyTensor):
        return MyTensor(tf.abs(x.value))

    out = [
        tf.abs(MyTensor(-5)).value,
        tf.abs(MyTensor([-1.5, 2.0]), name="named").value,
        tf.abs(MyTensor(-2), "positional_name").value,
        [str(p) for p in __import__("inspect").signature(my_abs).parameters.values()],
    ]
    tf.experimental.unregister_dispatch_for(my_abs)
    return out


@parity
def test_dispatch_registration_errors(tf):
    from typing import Union

    class MyTensor(tf.experimental.ExtensionType):
        value: tf.Tensor

    def outcome(thunk):
        try:
            thunk()
            return "ok"
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__

    def wrong_signature(a, b):
        return a

    def handler(api_func, x, y):
        return x

    tf.experimental.dispatch_for_binary_elementwise_apis(MyTensor, MyTensor)(handler)
    out = [
        outcome(
            lambda: tf.experimental.dispatch_for_api(tf.math.add, {"x": MyTensor})(wrong_signature)
        ),
        outcome(lambda: tf.experimental.dispatch_for_api(tf.math.add, {"zz": MyTensor})),
        outcome(lambda: tf.experimental.dispatch_for_api(tf.math.add, {"x": 3})),
        outcome(
            lambda: tf.experimental.dispatch_for_api(tf.math.add, {"x": Union[MyTensor, int]})(3)
        ),
        outcome(lambda: tf.experimental.dispatch_for_api(tf.math.add)(lambda x, y, name=None: x)),
        outcome(lambda: tf.experimental.dispatch_for_api(tf.math.add, [MyTensor])),
        outcome(lambda: tf.experimental.dispatch_for_api(print)),
        outcome(
            lambda: tf.experimental.dispatch_for_binary_elementwise_apis(MyTensor, MyTensor)(
                handler
            )
        ),
        outcome(lambda: tf.experimental.unregister_dispatch_for(wrong_signature)),
    ]

    @tf.experimental.dispatch_for_api(tf.abs)
    def my_abs(x: MyTensor, name=None):
        return MyTensor(tf.abs(x.value))

    out.append(tf.abs(MyTensor(-5)).value)
    out.append(tf.math.add(MyTensor(1), MyTensor(2)).value)
    tf.experimental.unregister_dispatch_for(my_abs)
    tf.experimental.unregister_dispatch_for(handler)
    out.append(outcome(lambda: tf.abs(MyTensor(-5))))
    out.append(outcome(lambda: tf.math.add(MyTensor(1), MyTensor(2))))
    return out


def _control_flow(tf, device):
    with tf.device(device):

        class Vehicle(tf.experimental.BatchableExtensionType):
            top_speed: tf.Tensor
            mpg: tf.Tensor

        class M(tf.experimental.ExtensionType):
            v: tf.Tensor
            k: int = 1

        batch = Vehicle([120, 150, 80], [30, 40, 12])
        spec = Vehicle.Spec(tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int32))

        def speed_times_mpg(b):
            return tf.map_fn(lambda v: v.top_speed * v.mpg, b, fn_output_signature=tf.int32)

        staged = tf.function(speed_times_mpg, input_signature=[spec])

        @tf.function
        def choose(x, c):
            return tf.cond(c, lambda: M(x.v * 2), lambda: M(x.v + 1)).v

        @tf.function
        def loop(x, n):
            return tf.while_loop(lambda i, m: i < n, lambda i, m: (i + 1, M(m.v * 2)), (0, x))[1].v

        eager_loop = tf.while_loop(
            lambda i, m: i < 3, lambda i, m: (i + 1, M(m.v * 2, 1)), [tf.constant(0), M([1.0, 2.0])]
        )
        return (
            speed_times_mpg(batch),
            staged(batch),
            staged(Vehicle([1, 2], [3, 4])),
            tf.map_fn(
                lambda p: p[0].top_speed + p[1],
                (batch, tf.constant([1, 2, 3])),
                fn_output_signature=tf.int32,
            ),
            choose(M([1.0, 2.0]), tf.constant(True)),
            choose(M([1.0, 2.0]), tf.constant(False)),
            loop(M([1.0, 2.0]), tf.constant(3)),
            loop(M([1.0, 2.0]), tf.constant(0)),
            eager_loop[0],
            eager_loop[1].v,
            type(eager_loop[1]).__name__,
        )


@pytest.mark.parametrize("device", DEVICES)
def test_map_fn_cond_and_while_loop(tf_oracle, device):
    assert_parity(tf_oracle, _control_flow, (device,))


@parity
def test_dispatch_for_apis_without_elementwise_kind(tf):
    """APIs such as tf.matmul and tf.reshape dispatch once a target is registered for them
    (in every namespace that names them)."""

    class MT(tf.experimental.ExtensionType):
        values: tf.Tensor

    @tf.experimental.dispatch_for_api(tf.matmul, {"a": MT, "b": MT})
    def mm(*args, **kwargs):
        return MT(tf.matmul(args[0].values, args[1].values))

    @tf.experimental.dispatch_for_api(tf.reshape, {"tensor": MT})
    def rs(tensor, shape, name=None):
        return MT(tf.reshape(tensor.values, shape))

    a = MT([[1.0, 2.0], [3.0, 4.0]])

    @tf.function
    def f(x):
        return tf.reshape(x, [-1]).values * 2

    out = [
        tf.matmul(a, a).values,
        tf.linalg.matmul(a, a).values,
        tf.reshape(a, [4]).values,
        tf.matmul(tf.ones([2, 2]), tf.ones([2, 2])),
        tf.matmul is tf.linalg.matmul,
        f(a),
    ]
    tf.experimental.unregister_dispatch_for(mm)
    tf.experimental.unregister_dispatch_for(rs)
    for thunk in (lambda: tf.matmul(a, a), lambda: tf.reshape(a, [4])):
        try:
            out.append(("ok", thunk()))
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            out.append(type(e).__name__)
    return out
