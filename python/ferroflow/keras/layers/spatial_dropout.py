"""`tf.keras.layers.SpatialDropout1D/2D/3D`: dropout of whole feature maps (one decision per
example and channel, shared along the steps or spatial axes), in training only.

As in Keras, a seed generator seeds a stateless uniform draw of the noise shape
(``tf.nn.experimental.stateless_dropout``'s rule, written out), so each call and each run of
a traced function draws anew, and a given ``seed`` gives Keras's masks (see
`keras/_seed_generator.py` for shapes known only at run time)."""

import ferroflow as _tf
from ferroflow.keras import _seed_generator as _random
from ferroflow.keras._seed_generator import SeedGenerator
from ferroflow.keras.layers._shapes import dims_of, standardize_data_format
from ferroflow.keras.layers.dropout import Dropout
from ferroflow.keras.layers.input_spec import InputSpec

__all__ = ["SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D"]


class _SpatialDropout(Dropout):
    """Keras's base: the constructor takes only ``rate``, ``seed``, ``name`` and ``dtype``."""

    _ndim = None

    def __init__(self, rate, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.supports_masking = True
        self.input_spec = InputSpec(ndim=self._ndim)
        if rate > 0:
            self.seed_generator = SeedGenerator(seed)

    def _channel_axis(self):
        return -1

    def call(self, inputs, training=False):
        if not training or self.rate <= 0:
            return inputs
        if self.rate == 1:
            return _tf.zeros_like(inputs)
        dims = dims_of(inputs)
        channel = self._channel_axis() % len(dims)
        noise_dims = [d if i in (0, channel) else 1 for i, d in enumerate(dims)]
        uniform = _random.uniform(noise_dims, self.seed_generator, inputs.dtype)
        keep = _tf.greater_equal(uniform, _tf.cast(self.rate, inputs.dtype))
        # stateless_dropout's rule: scaled where kept, +0 elsewhere.
        scaled = inputs * _tf.cast(1.0 / (1.0 - self.rate), inputs.dtype)
        return _tf.where(keep, scaled, _tf.zeros_like(scaled))

    def compute_mask(self, inputs, mask=None):
        return mask

    def get_config(self):
        return {
            "rate": self.rate,
            "seed": self.seed,
            "name": self.name,
            # Keras's spatial dropouts write the dtype's bare name.
            "dtype": self.dtype,
        }


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of ``(batch, steps, channels)`` inputs."""

    _ndim = 3


class _SpatialDropoutND(_SpatialDropout):
    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        super().__init__(rate, seed=seed, name=name, dtype=dtype)
        self.data_format = standardize_data_format(data_format)

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class SpatialDropout2D(_SpatialDropoutND):
    """Drops whole channels of 4-D inputs (``data_format`` says where the channels are)."""

    _ndim = 4


class SpatialDropout3D(_SpatialDropoutND):
    """Drops whole channels of 5-D inputs (``data_format`` says where the channels are)."""

    _ndim = 5
