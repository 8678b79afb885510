"""Random initializers: `RandomNormal`, `RandomUniform` and `TruncatedNormal`."""

import numbers as _numbers

from ferroflow.keras._seed_generator import SeedGenerator
from ferroflow.keras.initializers import sampling
from ferroflow.keras.initializers.initializer import (
    Initializer,
    standardize_dtype,
    standardize_shape,
)


class RandomInitializer(Initializer):
    """Base of the random initializers: holds the integer ``seed`` (drawn once when None, so
    that, as in Keras 3, one instance returns the same values on every call)."""

    def __init__(self, seed=None):
        self._init_seed = seed
        if seed is None:
            seed = sampling.make_default_seed()
        elif isinstance(seed, _numbers.Integral) and not isinstance(seed, bool):
            seed = int(seed)
        elif not isinstance(seed, SeedGenerator):
            raise ValueError(
                "`seed` argument should be an instance of "
                "`keras.random.SeedGenerator()` or an integer. "
                f"Received: seed={seed}"
            )
        self.seed = seed

    def get_config(self):
        return {"seed": self._init_seed}


class RandomNormal(RandomInitializer):
    """Samples from N(``mean``, ``stddev``)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return sampling.normal(
            standardize_shape(shape), self.mean, self.stddev, standardize_dtype(dtype), self.seed
        )

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomInitializer):
    """Samples from N(``mean``, ``stddev``), redrawing those more than two standard deviations
    from the mean."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return sampling.truncated_normal(
            standardize_shape(shape), self.mean, self.stddev, standardize_dtype(dtype), self.seed
        )

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class RandomUniform(RandomInitializer):
    """Samples from U[``minval``, ``maxval``)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None):
        return sampling.uniform(
            standardize_shape(shape), self.minval, self.maxval, standardize_dtype(dtype), self.seed
        )

    def get_config(self):
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}
