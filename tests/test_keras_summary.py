"""Model.summary(): the text Keras 3 prints (through `rich`) for Sequential, functional and
subclassed models. Every expected table below was printed by TensorFlow 2.21's Keras for the same
model, in an 80-column console."""

import ferroflow as tf
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch):
    # The default table width follows the console, as in Keras: fix it.
    monkeypatch.setenv("COLUMNS", "80")


class Sum(tf.keras.layers.Layer):
    def call(self, inputs):
        return inputs[0] + inputs[1]


class Sub(tf.keras.Model):
    def __init__(self):
        super().__init__(name="sub")
        self.proj = tf.keras.layers.Dense(3, name="proj")

    def call(self, inputs):
        return self.proj(inputs)


def summary_of(model, **kwargs):
    printed = []
    model.summary(print_fn=printed.append, **kwargs)
    assert len(printed) == 1  # one string, as Keras passes it
    return printed[0]


def dense_stack():
    return tf.keras.Sequential(
        [
            tf.keras.Input((3,)),
            tf.keras.layers.Dense(4, activation="relu", name="hidden"),
            tf.keras.layers.Dense(2, name="logits"),
        ],
        name="dense_stack",
    )


def siamese():
    a = tf.keras.Input((3,), name="a")
    b = tf.keras.Input((3,), name="b")
    shared = tf.keras.layers.Dense(3, name="shared")
    total = Sum(name="sum")([shared(a), shared(b)])
    head = tf.keras.layers.Dense(1, name="head")(total)
    return tf.keras.Model([a, b], [head, total], name="siamese"), shared


DENSE_STACK = """\
Model: "dense_stack"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ hidden (Dense)                  │ (None, 4)              │            16 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ logits (Dense)                  │ (None, 2)              │            10 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 26 (104.00 B)
 Trainable params: 26 (104.00 B)
 Non-trainable params: 0 (0.00 B)
"""

DENSE_STACK_TRAINABLE = """\
Model: "dense_stack"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━┓
┃ Layer (type)                ┃ Output Shape          ┃    Param # ┃ Trai… ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━┩
│ hidden (Dense)              │ (None, 4)             │         16 │   N   │
├─────────────────────────────┼───────────────────────┼────────────┼───────┤
│ logits (Dense)              │ (None, 2)             │         10 │   Y   │
└─────────────────────────────┴───────────────────────┴────────────┴───────┘
 Total params: 26 (104.00 B)
 Trainable params: 10 (40.00 B)
 Non-trainable params: 16 (64.00 B)
"""

DENSE_STACK_NARROW = """\
Model: "dense_stack"
┏━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━┓
┃               ┃ Output     ┃         ┃
┃ Layer (type)  ┃ Shape      ┃ Param # ┃
┡━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━┩
│ hidden        │ (None, 4)  │      16 │
│ (Dense)       │            │         │
├───────────────┼────────────┼─────────┤
│ logits        │ (None, 2)  │      10 │
│ (Dense)       │            │         │
└───────────────┴────────────┴─────────┘
 Total params: 26 (104.00 B)
 Trainable params: 10 (40.00 B)
 Non-trainable params: 16 (64.00 B)
"""

DEFERRED_UNBUILT = """\
Model: "deferred"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ later (Dense)                   │ ?                      │   0 (unbuilt) │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""

DEFERRED_BUILT = """\
Model: "deferred"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ later (Dense)                   │ (8, 2)                 │             8 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 8 (32.00 B)
 Trainable params: 8 (32.00 B)
 Non-trainable params: 0 (0.00 B)
"""

SIAMESE = """\
Model: "siamese"
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ a (InputLayer)      │ (None, 3)         │          0 │ -                 │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ b (InputLayer)      │ (None, 3)         │          0 │ -                 │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ shared (Dense)      │ (None, 3)         │         12 │ a[0][0], b[0][0]  │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ sum (Sum)           │ (None, 3)         │          0 │ shared[0][0],     │
│                     │                   │            │ shared[1][0]      │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ head (Dense)        │ (None, 1)         │          4 │ sum[0][0]         │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 16 (64.00 B)
 Trainable params: 16 (64.00 B)
 Non-trainable params: 0 (0.00 B)
"""

TWICE = """\
Model: "twice"
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ x (InputLayer)      │ (None, 3)         │          0 │ -                 │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ shared (Dense)      │ (None, 3)         │         12 │ x[0][0],          │
│                     │                   │            │ shared[2][0]      │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 12 (48.00 B)
 Trainable params: 12 (48.00 B)
 Non-trainable params: 0 (0.00 B)
"""

NESTED = """\
Model: "nested"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ z (InputLayer)                  │ (None, 3)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ inner (Sequential)              │ (None, 2)              │             8 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ outer_dense (Dense)             │ (None, 1)              │             3 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 11 (44.00 B)
 Trainable params: 11 (44.00 B)
 Non-trainable params: 0 (0.00 B)
"""

NESTED_EXPANDED = """\
Model: "nested"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ z (InputLayer)                  │ (None, 3)              │             0 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ inner (Sequential)              │ (None, 2)              │             8 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│    └ inner_dense (Dense)        │ (None, 2)              │             8 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ outer_dense (Dense)             │ (None, 1)              │             3 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 11 (44.00 B)
 Trainable params: 11 (44.00 B)
 Non-trainable params: 0 (0.00 B)
"""

EMPTY = """\
Model: "nothing"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""

SUBCLASSED_UNBUILT = """\
Model: "sub"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ proj (Dense)                    │ ?                      │   0 (unbuilt) │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 0 (0.00 B)
 Trainable params: 0 (0.00 B)
 Non-trainable params: 0 (0.00 B)
"""

SUBCLASSED_BUILT = """\
Model: "sub"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ proj (Dense)                    │ (1, 3)                 │             9 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 9 (36.00 B)
 Trainable params: 9 (36.00 B)
 Non-trainable params: 0 (0.00 B)
"""

WIDE = """\
Model: "wide"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┓
┃ Layer (type)             ┃ Output Shape      ┃   Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━┩
│ w1 (Dense)               │ (None, 1000)      │ 1,001,000 │
├──────────────────────────┼───────────────────┼───────────┤
│ a_layer_name_far_too_lo… │ (None, 1000)      │ 1,001,000 │
│ (Dense)                  │                   │           │
└──────────────────────────┴───────────────────┴───────────┘
 Total params: 2,002,000 (7.64 MB)
 Trainable params: 2,002,000 (7.64 MB)
 Non-trainable params: 0 (0.00 B)
"""

SIAMESE_RANGE = """\
Model: "siamese"
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ shared (Dense)      │ (None, 3)         │         12 │ a[0][0], b[0][0]  │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ sum (Sum)           │ (None, 3)         │          0 │ shared[0][0],     │
│                     │                   │            │ shared[1][0]      │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 16 (64.00 B)
 Trainable params: 16 (64.00 B)
 Non-trainable params: 0 (0.00 B)
"""


def test_dense_sequential_prints_as_keras(capsys):
    model = dense_stack()
    assert summary_of(model) == DENSE_STACK
    model.summary()
    assert capsys.readouterr().out == DENSE_STACK


def test_show_trainable_and_custom_widths():
    model = dense_stack()
    model.layers[0].trainable = False
    assert summary_of(model, show_trainable=True) == DENSE_STACK_TRAINABLE
    assert summary_of(model, line_length=40, positions=[0.4, 0.75, 1.0]) == DENSE_STACK_NARROW


def test_unbuilt_layers_show_question_marks_until_the_first_call():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, name="later")], name="deferred")
    assert summary_of(model) == DEFERRED_UNBUILT
    model(np.ones((8, 3), "float32"))
    assert summary_of(model) == DEFERRED_BUILT


def test_functional_models_show_connections():
    model, shared = siamese()
    assert summary_of(model) == SIAMESE
    assert summary_of(model, layer_range=["shared", "sum"]) == SIAMESE_RANGE
    x = tf.keras.Input((3,), name="x")
    twice = tf.keras.Model(x, shared(shared(x)), name="twice")
    assert summary_of(twice) == TWICE


def test_nested_models_and_expand_nested():
    inner = tf.keras.Sequential(
        [tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="inner_dense")], name="inner"
    )
    z = tf.keras.Input((3,), name="z")
    outer = tf.keras.layers.Dense(1, name="outer_dense")(inner(z))
    model = tf.keras.Model(z, outer, name="nested")
    assert summary_of(model) == NESTED
    assert summary_of(model, expand_nested=True) == NESTED_EXPANDED


def test_subclassed_models_list_their_layers():
    model = Sub()
    assert summary_of(model) == SUBCLASSED_UNBUILT
    model(np.ones((1, 2), "float32"))
    assert summary_of(model) == SUBCLASSED_BUILT


def test_empty_models_and_long_names():
    assert summary_of(tf.keras.Sequential(name="nothing")) == EMPTY
    wide = tf.keras.Sequential(
        [
            tf.keras.Input((1000,)),
            tf.keras.layers.Dense(1000, name="w1"),
            tf.keras.layers.Dense(1000, name="a_layer_name_far_too_long_for_its_column"),
        ],
        name="wide",
    )
    assert summary_of(wide, line_length=60) == WIDE


def test_bad_arguments():
    model = dense_stack()
    with pytest.raises(ValueError, match="Insufficient console width"):
        model.summary(line_length=10)
    with pytest.raises(ValueError, match="do not match the layer names"):
        model.summary(layer_range=["nope", "logits"])
