"""`tf.Module`, `tf.name_scope` and `tf.Module.with_name_scope`.

The expected orders, names and messages were taken from TensorFlow 2.21 running the same code;
the parity tests at the end rerun some of it against TensorFlow when it is installed.
"""

import collections
import inspect
import threading

import ferroflow as tf
import pytest
from ferroflow.name_scope import current_name_scope


def V(name, trainable=True):  # noqa: N802 - reads like tf.Variable in the tables below
    return tf.Variable(1.0, name=name, trainable=trainable)


class M(tf.Module):
    """A module whose attributes are the keyword arguments."""

    def __init__(self, name=None, **attributes):
        super().__init__(name=name)
        for key, value in attributes.items():
            setattr(self, key, value)


def names(items):
    return [item.name for item in items]


# --- names ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "class_name, expected",
    [
        ("MyDense", "my_dense"),
        ("HTTPServer2Layer", "http_server2_layer"),
        ("ABC", "abc"),
        ("lower", "lower"),
        ("A1B", "a1_b"),
        ("_Private", "__private"),
        ("Get2DThing", "get2_d_thing"),
        ("Module", "module"),
    ],
)
def test_default_name_is_the_class_name_in_snake_case(class_name, expected):
    module = type(class_name, (tf.Module,), {})()
    assert module.name == expected
    assert module.name_scope.name == expected + "/"


@pytest.mark.parametrize("name", ["", "1a", "a b", "a/b", "a-b", "\u00e9"])
def test_invalid_names_are_refused(name):
    message = (
        f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
        "(e.g. a valid class name)."
    )
    with pytest.raises(ValueError) as info:
        tf.Module(name=name)
    assert str(info.value) == message


def test_valid_and_non_string_names():
    assert tf.Module(name="ok_1").name == "ok_1"
    assert tf.Module(name="_x").name == "_x"
    with pytest.raises(TypeError, match="expected string or bytes-like object"):
        tf.Module(name=5)


def test_module_looks_like_a_plain_object():
    module = tf.Module()
    assert repr(module).startswith("<ferroflow.module.Module object at 0x")
    assert sorted(vars(module)) == ["_name", "_name_scope"]
    assert type(module.name_scope).__name__ == "name_scope_v2"


def test_a_subclass_that_skips_init_still_finds_its_variables():
    class NoInit(tf.Module):
        def __init__(self):
            self.v = tf.Variable(1.0)

    module = NoInit()
    assert names(module.variables) == ["Variable:0"]
    assert module.submodules == ()
    with pytest.raises(AttributeError, match="'NoInit' object has no attribute '_name'"):
        _ = module.name


# --- tf.name_scope ----------------------------------------------------------------------------


def test_name_scopes_compose_and_name_variables():
    scope = tf.name_scope("a")
    assert scope.name == "a"
    assert current_name_scope() == ""
    with scope as a:
        assert a == "a/"
        with tf.name_scope("b") as ab:
            assert ab == current_name_scope() == "a/b/"
            assert tf.Variable(1.0).name == "a/b/Variable:0"
            assert V("k").name == "a/b/k:0"
            assert V("x/").name == "x:0"
            assert V("x/y").name == "a/b/x/y:0"
            with tf.name_scope("abs/") as absolute:
                assert absolute == "abs/"
                assert V("k").name == "abs/k:0"
                with tf.name_scope("c") as c:
                    assert c == "abs/c/"
            with tf.name_scope("") as root:
                assert root == ""
                assert V("k").name == "k:0"
        with tf.name_scope("a") as again:
            assert again == "a/a/"  # eager TensorFlow 2 never makes a scope name unique
    assert current_name_scope() == ""


@pytest.mark.parametrize(
    "name, expected",
    [("", ":0"), ("1bad", "s/1bad:0"), ("a b", "s/a b:0"), (".", "s/.:0"), ("/", ":0")],
)
def test_variable_names_are_not_validated(name, expected):
    with tf.name_scope("s"):
        assert V(name).name == expected


@pytest.mark.parametrize("name", [5, None, b"x", 1.5])
def test_scope_names_must_be_strings(name):
    with pytest.raises(ValueError, match="^name for name_scope must be a string.$"):
        tf.name_scope(name)


@pytest.mark.parametrize("name", [5, b"x", 1.5])
def test_variable_names_must_be_strings(name):
    with pytest.raises(ValueError, match="^name for name_scope must be a string.$"):
        tf.Variable(1.0, name=name)
    with pytest.raises(ValueError, match="^The `initial_value` arg"):
        tf.Variable(None, name=name)  # the missing value is reported first, as in TensorFlow


def test_a_scope_object_can_be_reentered_and_exits_on_errors():
    scope = tf.name_scope("r")
    with scope as outer, scope as inner:
        assert (outer, inner) == ("r/", "r/r/")
    with tf.name_scope("t"):
        with pytest.raises(KeyError), tf.name_scope("u"):
            raise KeyError("boom")
        assert tf.Variable(1.0).name == "t/Variable:0"


def test_name_scopes_are_per_thread():
    seen = {}

    def other_thread():
        seen["name"] = V("v").name

    with tf.name_scope("main"):
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        assert V("v").name == "main/v:0"
    assert seen["name"] == "v:0"


def test_traced_scopes_start_at_the_root_and_are_made_unique():
    seen = []

    @tf.function
    def f(x):
        for name in ["A", "a", "a_1", "a", "b/", "a"]:
            with tf.name_scope(name) as scope:
                seen.append(scope)
        seen.append((tf.Module(name="mm").name_scope.name, tf.Module(name="mm").name_scope.name))
        return x

    with tf.name_scope("outer"):  # TensorFlow traces into a graph of its own
        f(tf.constant(1.0))
    assert seen == ["A/", "a_1/", "a_1_1/", "a_2/", "b/", "a_3/", ("mm/", "mm_1/")]


def test_traced_variable_names_take_the_trace_scope_but_are_not_made_unique():
    made = []

    @tf.function
    def f(x):
        if not made:
            made.append(V("k"))
            made.append(V("k"))
            with tf.name_scope("s"):
                made.append(V("k"))
                made.append(tf.Variable(1.0))
            with tf.name_scope("s"):
                made.append(V("k"))
        return x

    with tf.name_scope("outer"):
        f(tf.constant(1.0))
    assert names(made) == ["k:0", "k:0", "s/k:0", "s/Variable:0", "s_1/k:0"]


@pytest.mark.parametrize(
    "name, root, nested",
    [
        ("a b", "invalid", "invalid"),
        ("_x", "invalid", "p/_x/"),
        ("-a", "invalid", "p/-a/"),
        (".a", ".a/", "p/.a/"),
        ("a>b", "a>b/", "p/a>b/"),
    ],
)
def test_traced_scope_names_are_checked_as_in_a_graph(name, root, nested):
    seen = {}

    def enter(where):
        try:
            with tf.name_scope(name) as scope:
                seen[where] = scope
        except ValueError as error:
            seen[where] = "invalid"
            assert "is not a valid" in str(error)

    @tf.function
    def f(x):
        enter("root")
        with tf.name_scope("p"):
            enter("nested")
        return x

    f(tf.constant(1.0))
    assert seen == {"root": root, "nested": nested}
    with tf.name_scope(name) as scope:  # eagerly any string is accepted
        assert scope == name + "/"


# --- the module's name scope ------------------------------------------------------------------


def test_a_module_keeps_the_full_scope_it_was_made_in():
    with tf.name_scope("outer"):
        module = tf.Module(name="inner")
        with tf.name_scope("abs/"):
            assert tf.Module(name="x").name_scope.name == "abs/x/"
    assert module.name == "inner"
    assert module.name_scope.name == "outer/inner/"
    with module.name_scope as scope:
        assert scope == "outer/inner/"
        assert V("w").name == "outer/inner/w:0"
        with tf.name_scope("z"):
            assert V("w").name == "outer/inner/z/w:0"
        assert tf.Module(name="sub").name_scope.name == "outer/inner/sub/"
    with tf.name_scope("other"), module.name_scope as scope:
        assert scope == "outer/inner/"


def test_variables_made_in_the_module_scope_take_its_name():
    class Dense(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(tf.ones([3, 2]), name="w")
                self.b = tf.Variable(tf.zeros([2]), name="b")

    class MLP(tf.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.layers = [Dense(), Dense(name="second")]

    assert names(MLP().variables) == [
        "mlp/dense/b:0",
        "mlp/dense/w:0",
        "mlp/second/b:0",
        "mlp/second/w:0",
    ]


def test_with_name_scope_runs_the_method_in_the_module_scope():
    class W(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x):
            """doc here"""
            if not hasattr(self, "w"):
                self.w = tf.Variable(x, name="w")
            return self.w

        @tf.Module.with_name_scope
        def other(self, x=1, *, k=2):
            return tf.Variable(1.0).name, current_name_scope()

    module = W()
    assert module(tf.constant(1.0)).name == "w/w:0"
    assert module.other() == ("w/Variable:0", "w/")
    assert current_name_scope() == ""
    assert W.__call__.__name__ == "__call__"
    assert W.__call__.__doc__ == "doc here"
    assert str(inspect.signature(W.other)) == "(self, x=1, *, k=2)"
    with pytest.raises(TypeError, match="takes from 1 to 2 positional arguments but 3"):
        module.other(1, 2)


# --- tf.function ------------------------------------------------------------------------------


def test_tf_function_methods_see_the_module():
    class MyModule(tf.Module):
        def __init__(self, value):
            self.weight = tf.Variable(value)

        @tf.function
        def multiply(self, x):
            return x * self.weight

    mod = MyModule(3)
    result = mod.multiply(tf.constant([1, 2, 3]))
    assert result.dtype == tf.int32
    assert result.numpy().tolist() == [3, 6, 9]
    assert names(mod.variables) == names(mod.trainable_variables) == ["Variable:0"]
    assert mod.submodules == ()


def test_tf_function_with_name_scope_names_traced_variables_and_scopes():
    scopes = []

    class L(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = None

        @tf.function
        @tf.Module.with_name_scope
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(1.0, name="k")
            with tf.name_scope("inner") as scope:
                scopes.append(scope)
            return x * self.v

    layer = L()
    assert layer(tf.constant(2.0)).numpy() == 2.0
    assert layer.v.name == "l/k:0"
    assert names(layer.variables) == ["l/k:0"]
    assert scopes == ["l/inner/"]


# --- walking the attributes -------------------------------------------------------------------


def test_attributes_are_walked_in_sorted_order():
    module = M(name="root", b=V("b"), a=V("a"), B=V("B"), _z=V("_z"), a2=V("a2"), aa=V("aa"))
    assert names(module.variables) == ["B:0", "_z:0", "a:0", "a2:0", "aa:0", "b:0"]
    assert isinstance(module.variables, tuple)


def test_own_attributes_come_before_submodules_which_are_walked_depth_first():
    c = M(name="c", v=V("c_v"))
    b = M(name="b", v=V("b_v"), c=c)
    d = M(name="d", v=V("d_v"))
    root = M(name="root", x=b, y=d, w=V("root_w"))
    assert names(root.variables) == ["root_w:0", "b_v:0", "c_v:0", "d_v:0"]
    assert names(root.submodules) == ["b", "d", "c"]
    assert isinstance(root.submodules, tuple)


def test_lists_tuples_and_dicts_are_walked_dicts_by_sorted_key():
    s1, s2, s3 = (M(name=n, v=V(n + "v")) for n in ("s1", "s2", "s3"))
    root = M(
        name="root",
        layers=[s2, (V("t0"), s1)],
        d={"z": V("dz"), "a": [s3, V("da")], "m": {"k": V("dmk")}},
    )
    assert names(root.variables) == ["da:0", "dmk:0", "dz:0", "t0:0", "s3v:0", "s2v:0", "s1v:0"]
    assert names(root.submodules) == ["s3", "s2", "s1"]


def test_namedtuples_in_field_order_ordered_dicts_by_key_sets_and_tensors_skipped():
    Pair = collections.namedtuple("Pair", ["zz", "aa"])
    module = M(
        name="m",
        nt=Pair(V("nt_zz"), V("nt_aa")),
        od=collections.OrderedDict([("z", V("od_z")), ("a", V("od_a"))]),
        st={1, 2},
        t=tf.constant(1.0),
    )
    assert names(module.variables) == ["nt_zz:0", "nt_aa:0", "od_a:0", "od_z:0"]


def test_shared_variables_are_listed_once():
    shared = V("shared")
    x = M(name="x", v=shared, u=V("xu"))
    y = M(name="y", v=shared, w=V("yw"))
    root = M(name="root", x=x, y=y, z=shared)
    assert names(root.variables) == ["shared:0", "xu:0", "yw:0"]
    assert names(root.submodules) == ["x", "y"]


def test_cycles_and_self_references_end():
    a = M(name="a", v=V("av"))
    b = M(name="bb", v=V("bv"), a=a)
    a.b = b
    a.me = a
    assert names(a.variables) == ["av:0", "bv:0"]
    assert names(a.submodules) == ["bb"]
    assert names(b.submodules) == ["a"]


def test_trainable_and_non_trainable_variables():
    module = M(name="m", a=V("a", False), b=V("b"), c=[V("c", False), V("d")])
    assert names(module.trainable_variables) == ["b:0", "d:0"]
    assert names(module.non_trainable_variables) == ["a:0", "c:0"]
    assert names(module.variables) == ["a:0", "b:0", "c:0", "d:0"]


def test_containers_are_read_when_asked_and_plain_objects_are_not_entered():
    items = []
    module = M(name="m", l=items)
    items.append(V("late"))
    assert names(module.variables) == ["late:0"]

    class Plain:
        pass

    plain = Plain()
    plain.v = V("hidden")
    assert M(name="m", p=plain).variables == ()


def test_flatten_with_paths_without_recursion_and_with_a_key():
    module = M(name="m", a=[V("l0"), {"k": V("lk")}], sub=M(name="sub", q=V("q")))

    def is_variable(x):
        return isinstance(x, tf.Variable)

    found = module._flatten(with_path=True, predicate=is_variable)
    assert [(path, v.name) for path, v in found] == [
        (("a", 0), "l0:0"),
        (("a", 1, "k"), "lk:0"),
        (("sub", "q"), "q:0"),
    ]
    assert names(module._flatten(recursive=False, predicate=is_variable)) == ["l0:0", "lk:0"]

    def backwards(key):
        return -ord(key[0])

    walked = module._flatten(attribute_traversal_key=backwards, predicate=is_variable)
    assert names(walked) == ["l0:0", "lk:0", "q:0"]
    assert [path for path, _ in module._flatten(with_path=True)] == [
        ("_name",),
        ("_name_scope",),
        ("a", 0),
        ("a", 1, "k"),
        ("sub",),
        ("sub", "_name"),
        ("sub", "_name_scope"),
        ("sub", "q"),
    ]


def test_paths_repeat_values_but_stop_at_a_module_on_its_own_path():
    a = M(name="a")
    b = M(name="b", v=V("bv"))
    a.b = b
    b.a = a
    b.l = [b]

    def wanted(x):
        return isinstance(x, (tf.Variable, tf.Module))

    found = [(path, x.name) for path, x in a._flatten(with_path=True, predicate=wanted)]
    assert found == [
        (("b",), "b"),
        (("b", "a"), "a"),
        (("b", "l", 0), "b"),
        (("b", "v"), "bv:0"),
        (("b", "a", "b"), "b"),
        (("b", "l", 0, "a"), "a"),
        (("b", "l", 0, "l", 0), "b"),
        (("b", "l", 0, "v"), "bv:0"),
    ]


def test_a_dict_with_unsortable_keys_is_reported_with_its_attribute():
    module = M(name="m", d={1: V("x"), "a": V("y")})
    with pytest.raises(ValueError, match="^Error processing property 'd' of ") as info:
        _ = module.variables
    assert isinstance(info.value.__cause__, TypeError)
    assert str(info.value.__cause__) == "'<' not supported between instances of 'str' and 'int'"


def test_mapping_views_and_other_sequences_are_walked_as_tf_nest_does():
    d = {"b": V("vb"), "a": V("va")}
    module = M(name="m", keys_then_values=(d.values(), range(2), "text", b"bytes"))
    assert names(module.variables) == ["vb:0", "va:0"]


# --- parity with TensorFlow, when it is installed ---------------------------------------------


def _nested_structure(lib):
    def var(name, trainable=True):
        return lib.Variable(1.0, name=name, trainable=trainable)

    def module(name, **attributes):
        m = lib.Module(name=name)
        for key, value in attributes.items():
            setattr(m, key, value)
        return m

    shared = var("shared")
    inner = module("inner", z=var("iz"), a=[shared, var("ia", False)])
    side = module("side", t=(var("st"), {"q": inner, "b": var("sb")}))
    root = module("root", side=side, Big=var("Big"), inner=inner, _p=var("_p", False), s=shared)
    inner.back = root
    return root


@pytest.mark.parametrize(
    "prop", ["variables", "trainable_variables", "non_trainable_variables", "submodules"]
)
def test_orders_match_tensorflow(prop):
    real_tf = pytest.importorskip("tensorflow")
    ours = names(getattr(_nested_structure(tf), prop))
    theirs = names(getattr(_nested_structure(real_tf), prop))
    assert ours == theirs


def test_scope_strings_match_tensorflow():
    real_tf = pytest.importorskip("tensorflow")

    def scopes(lib):
        out = []
        with lib.name_scope("a") as a, lib.name_scope("b") as b, lib.name_scope("c/") as c:
            out += [a, b, c, lib.Variable(1.0, name="v").name]
            with lib.name_scope("") as root:
                out += [root, lib.Module(name="m").name_scope.name]
        return out

    assert scopes(tf) == scopes(real_tf)
