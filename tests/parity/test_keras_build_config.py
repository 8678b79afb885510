"""Differential tests of Keras 3's public build record: `Layer.get_build_config` (the shapes of
the completed `build`, as one `input_shape` or a `shapes_dict` by parameter name; None before
it; `{"input_shape": None}` for a functional model) and `build_from_config`, which builds a new
layer from it (ferroflow had neither method)."""

from .harness import assert_parity


def _build_configs(tf):
    keras = tf.keras
    out = []
    d = keras.layers.Dense(3)
    out.append(("unbuilt", d.get_build_config()))
    d(tf.ones((2, 4)))
    out.append(("called", d.get_build_config()))
    d2 = keras.layers.Dense(3)
    d2.build((None, 4))
    out.append(("built", d2.get_build_config()))
    d3 = keras.layers.Dense(3)
    d3.build_from_config(d2.get_build_config())
    out.append(("from", d3.built, tuple(d3.kernel.shape)))
    c = keras.layers.Concatenate()
    c([tf.ones((2, 3)), tf.ones((2, 5))])
    out.append(("concatenate", c.get_build_config()))

    class Two(keras.layers.Layer):
        def build(self, a_shape, b_shape=None):
            self.w = self.add_weight(shape=(a_shape[-1],))

        def call(self, a):
            return a * self.w

    t = Two()
    t.build((None, 2), (None, 3))
    config = t.get_build_config()
    # Keras's shapes_dict is its attribute tracker's TrackedDict (a dict subclass); ferroflow
    # has no such tracker type and returns a dict: compared as dicts.
    out.append(("two shapes", list(config), dict(config["shapes_dict"])))
    t2 = Two()
    t2.build_from_config(t.get_build_config())
    out.append(("two shapes rebuilt", t2.built, tuple(t2.w.shape)))
    s = keras.Sequential([keras.layers.Dense(2)])
    s.build((None, 7))
    out.append(("sequential", s.get_build_config()))
    i = keras.Input((4,))
    m = keras.Model(i, keras.layers.Dense(2)(i))
    out.append(("functional", m.get_build_config()))
    n = keras.layers.BatchNormalization()
    n(tf.ones((2, 3)))
    out.append(("batch norm", n.get_build_config()))
    out.append(("empty", keras.layers.Dense(1).build_from_config(None)))
    return out


def test_build_config_matches_keras(tf_oracle):
    expected = assert_parity(tf_oracle, _build_configs)
    assert expected[0] != "raised", expected
