"""`tf.random.Generator`: TensorFlow's Philox generator with its state in a `tf.Variable`.

The state is int64 ``[C0, C1, K]`` (a 128-bit counter and a key). Every draw reads it, runs
TensorFlow's stateless kernel on it and assigns it advanced by ``256 * n`` calls, so the numbers
are TensorFlow's, a traced function draws new ones on every call (its graph holds
ReadVariableOp / AssignVariableOp nodes) and the state checkpoints with the object.

>>> import ferroflow as tf
>>> g = tf.random.Generator.from_seed(7)
>>> g.normal([2]).numpy()
array([-1.3240396 ,  0.28785667], dtype=float32)
>>> g.state.numpy()
array([519,   0,   0])
"""

import enum
import os

import numpy as np

from ferroflow import _core, config, errors
from ferroflow import array_ops as _array_ops
from ferroflow import dtypes as _dtypes
from ferroflow.device_scope import device as _device
from ferroflow.train.trackable import AutoTrackable
from ferroflow.variables import Variable

__all__ = [
    "Algorithm",
    "Generator",
    "create_rng_state",
    "get_global_generator",
    "set_global_generator",
]

_M64 = 2**64 - 1
_MAX_INT64 = 2**63 - 1


class Algorithm(enum.Enum):
    """The counter-based generators: Philox (the CPU's), ThreeFry (XLA only in TensorFlow)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def unsupported_alg_error_msg(alg):
    if isinstance(alg, int):
        names = (1, 2, 3)
    elif isinstance(alg, str):
        names = ("philox", "threefry", "auto_select")
    else:
        names = (Algorithm.PHILOX, Algorithm.THREEFRY, Algorithm.AUTO_SELECT)
    return (
        f"Argument `alg` got unsupported value {alg}. Supported values are {names[0]} for the "
        f"Philox algorithm, {names[1]} for the ThreeFry algorithm, and {names[2]} for "
        "auto-selection."
    )


def convert_alg_to_int(alg):
    """An algorithm given as a name, an `Algorithm` or its number, as its number."""
    if isinstance(alg, bool):
        raise TypeError(
            f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int."
        )
    if isinstance(alg, int):
        return alg
    if isinstance(alg, Algorithm):
        return alg.value
    if _core.is_tensor(alg):
        return int(alg)
    if isinstance(alg, str):
        canon = alg.strip().lower().replace("-", "").replace("_", "")
        known = {"philox": 1, "threefry": 2, "autoselect": 3}
        if canon in known:
            return known[canon]
        raise ValueError(unsupported_alg_error_msg(alg))
    raise TypeError(f"Can't convert argument `alg` (of value {alg} and type {type(alg)}) to int.")


def state_size(alg):
    if alg in (1, 3):
        return 3
    if alg == 2:
        return 2
    raise ValueError(unsupported_alg_error_msg(alg))


def check_drawable(alg):
    """TensorFlow's CPU kernels run Philox only (auto-select picks it)."""
    if alg == 2:
        raise errors.UnimplementedError(
            None, None, "Non-XLA devices don't support the ThreeFry algorithm. [Op:RngReadAndSkip]"
        )
    if alg not in (1, 3):
        raise errors.InvalidArgumentError(
            None, None, f"Unsupported algorithm id: {alg} [Op:RngReadAndSkip]"
        )


def _uint_to_int(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_uint_to_int(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool) and value > _MAX_INT64:
        return value - 2**64
    return value


def _state_tensor(value):
    return _array_ops.cast(_uint_to_int(value), _dtypes.int64)


def _check_state_shape(shape, alg):
    size = state_size(alg)
    dims = list(shape)
    if len(dims) != 1 or dims[0] not in (None, size):
        raise ValueError(f"Shapes {tuple(dims)} and [{size}] are incompatible")


def create_rng_state(seed, alg):
    """The state a seed stands for: an int split into 64-bit words (low first), a list padded
    with zeros in front; no scrambling (unlike the stateless ops' seeds).

    >>> import ferroflow as tf
    >>> tf.random.create_rng_state(5, "philox").numpy()
    array([5, 0, 0])
    """
    size = state_size(convert_alg_to_int(alg))
    if isinstance(seed, int) and not isinstance(seed, bool):
        seed = [(seed >> (64 * i)) & _M64 for i in range(size)]
    seed = _array_ops.reshape(_state_tensor(seed), [-1])[:size]
    missing = size - int(seed.shape[0])
    if missing > 0:
        seed = _array_ops.concat([_array_ops.zeros([missing], _dtypes.int64), seed], 0)
    return seed


def shape_list(shape):
    shape = shape.as_list() if hasattr(shape, "as_list") else shape
    if _core.is_tensor(shape):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    return [int(d) for d in shape]


def is_number(value, number):
    """Whether an argument is the plain Python number `number` (a default left alone)."""
    return type(value) in (int, float) and value == number


# TensorFlow scales every float draw (`rnd * (maxval - minval) + minval`, `rnd * stddev +
# mean`). With the default bounds or moments that gives the draw back bit for bit, so it is
# skipped (two passes over the output): uniforms are never -0.0, nor are float32/float64
# normals (a float16 normal can round to -0.0, which `* 1 + 0` turns into +0.0).


def plain_normal(dtype, mean, stddev):
    """Whether `rnd * stddev + mean` is `rnd` itself (see above)."""
    return (
        dtype in (_dtypes.float32, _dtypes.float64) and is_number(mean, 0) and is_number(stddev, 1)
    )


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Generator(AutoTrackable):
    """A random number generator with TensorFlow's numbers (Philox on the CPU).

    >>> import ferroflow as tf
    >>> g = tf.random.Generator.from_seed(1)
    >>> g.uniform([3], maxval=10, dtype=tf.int32).numpy().shape
    (3,)
    """

    @classmethod
    def from_state(cls, state, alg):
        return cls(alg=alg, state=state)

    @classmethod
    def from_seed(cls, seed, alg=None):
        alg = convert_alg_to_int(Algorithm.PHILOX if alg is None else alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        if config._op_determinism_enabled():
            raise RuntimeError(
                '"from_non_deterministic_state" cannot be called when determinism is enabled.'
            )
        alg = convert_alg_to_int(Algorithm.PHILOX if alg is None else alg)
        words = np.frombuffer(os.urandom(8 * state_size(alg)), dtype=np.int64).copy()
        return cls(state=words, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        alg = convert_alg_to_int(alg)
        return cls(state=_key_counter_state(key, counter, alg), alg=alg)

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("copy_from excludes state and alg")
            self._state_var = self._create_variable(copy_from.state.read_value())
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise ValueError("A Generator needs both a state and an algorithm")
        alg = convert_alg_to_int(alg)
        if isinstance(state, Variable):
            _check_state_shape(state.shape, alg)
            self._state_var = state
        else:
            state = _state_tensor(state)
            _check_state_shape(state.shape, alg)
            self._state_var = self._create_variable(state)
        self._alg = alg

    @staticmethod
    def _create_variable(state):
        # The state lives on the host: every draw runs a CPU kernel on it.
        with _device("/CPU:0"):
            return Variable(state, dtype=_dtypes.int64, trainable=False, name="StateVar")

    # --- state ---------------------------------------------------------------------------------

    @property
    def state(self):
        """The state variable, int64 ``[counter_low, counter_high, key]`` for Philox."""
        return self._state_var

    @property
    def algorithm(self):
        return self._alg

    @property
    def key(self):
        if self._alg not in (1, 2, 3):
            raise ValueError(unsupported_alg_error_msg(self._alg))
        return self._state_var[-1]

    def reset(self, state):
        state = _state_tensor(state)
        _check_state_shape(state.shape, self._alg)
        self._state_var.assign(state)

    def reset_from_seed(self, seed):
        self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        self._state_var.assign(_key_counter_state(key, counter, self._alg))

    def _read_and_skip(self, calls):
        """The current state (what a draw uses); the variable moves `calls` Philox calls on."""
        check_drawable(self._alg)
        state = self._state_var.read_value()
        self._state_var.assign(_core.rng_skip(state, calls))
        return state

    def skip(self, delta):
        """Advances the counter by ``256 * delta`` calls; returns the state before."""
        return self._read_and_skip(256 * int(delta))

    def _prepare(self, shape):
        return self._read_and_skip(256 * _count(shape))

    # --- draws ---------------------------------------------------------------------------------

    def _draw(self, sampler, shape, dtype, params=()):
        state = self._prepare(shape)
        return _core.stateless_random(sampler, state, shape, dtype.as_datatype_enum, list(params))

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        dtype = _dtypes.as_dtype(dtype)
        shape = shape_list(shape)
        plain = plain_normal(dtype, mean, stddev)
        mean = _array_ops.convert_to_tensor(mean, dtype=dtype)
        stddev = _array_ops.convert_to_tensor(stddev, dtype=dtype)
        rnd = self._draw("normal", shape, dtype)
        return rnd if plain else rnd * stddev + mean

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None):
        dtype = _dtypes.as_dtype(dtype)
        shape = shape_list(shape)
        plain = plain_normal(dtype, mean, stddev)
        mean = _array_ops.convert_to_tensor(mean, dtype=dtype)
        stddev = _array_ops.convert_to_tensor(stddev, dtype=dtype)
        rnd = self._draw("truncated_normal", shape, dtype)
        return rnd if plain else rnd * stddev + mean

    def uniform(self, shape, minval=0, maxval=None, dtype=_dtypes.float32, name=None):
        dtype = _dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(
                    f"For integer dtype {dtype}, minval and maxval must be both `None` or both "
                    f"non-`None`; got minval={minval} and maxval={maxval}"
                )
        elif maxval is None:
            maxval = 1
        shape = shape_list(shape)
        if dtype.is_integer and minval is None:
            return self._draw("uniform_full_int", shape, dtype)
        plain = is_number(minval, 0) and is_number(maxval, 1)
        minval = _array_ops.convert_to_tensor(minval, dtype=dtype)
        maxval = _array_ops.convert_to_tensor(maxval, dtype=dtype)
        if dtype.is_integer:
            return self._draw("uniform_int", shape, dtype, (minval, maxval))
        rnd = self._draw("uniform", shape, dtype)
        return rnd if plain else rnd * (maxval - minval) + minval

    def uniform_full_int(self, shape, dtype=_dtypes.uint64, name=None):
        dtype = _dtypes.as_dtype(dtype)
        return self._draw("uniform_full_int", shape_list(shape), dtype)

    def binomial(self, shape, counts, probs, dtype=_dtypes.int32, name=None):
        """Binomial counts (TensorFlow's StatefulRandomBinomial: Philox only, not auto-select)."""
        dtype = _dtypes.as_dtype(dtype)
        counts = _array_ops.convert_to_tensor(counts)
        probs = _array_ops.convert_to_tensor(probs)
        shape = shape_list(shape)
        if self._alg != 1:
            check_drawable(self._alg)
            raise errors.InvalidArgumentError(
                None, None, f"Unsupported algorithm id: {self._alg} [Op:StatefulRandomBinomial]"
            )
        batches = _count(np.broadcast_shapes(tuple(counts.shape), tuple(probs.shape)))
        per_batch = _count(shape) // batches if batches else 0
        state = self._read_and_skip(256 * ((batches * 2 * 100 * (per_batch + 3)) // 4))
        return _core.stateless_random(
            "binomial", state, shape, dtype.as_datatype_enum, [counts, probs]
        )

    def _make_int64_keys(self, count):
        return self.uniform_full_int([count], dtype=_dtypes.int64)

    def make_seeds(self, count=1):
        """`count` seeds for the stateless ops, as the columns of an int64 ``[2, count]``."""
        keys = self._make_int64_keys(count)
        return _array_ops.stack([keys, _array_ops.zeros_like(keys)])

    def split(self, count=1):
        """`count` new generators keyed by draws from this one (counters at zero)."""
        keys = self._make_int64_keys(count)
        zeros = _array_ops.zeros([state_size(self._alg) - 1], _dtypes.int64)
        return [
            Generator(
                state=_array_ops.concat([zeros, _array_ops.reshape(k, [1])], 0), alg=self._alg
            )
            for k in _array_ops.unstack(keys, num=count)
        ]


def _key_counter_state(key, counter, alg):
    counter = _state_tensor(counter)
    key = _state_tensor(key)
    size = state_size(alg)
    if list(counter.shape) != [size - 1]:
        raise ValueError(f"Shapes {tuple(counter.shape)} and [{size - 1}] are incompatible")
    if list(key.shape) != []:
        raise ValueError(f"Shapes {tuple(key.shape)} and [] are incompatible")
    return _array_ops.concat([counter, _array_ops.reshape(key, [1])], 0)


_global_generator = None


def get_global_generator():
    """The process's generator, seeded from OS entropy on first use."""
    global _global_generator
    if _global_generator is None:
        if config._op_determinism_enabled():
            raise RuntimeError(
                '"get_global_generator" cannot be called if determinism is enabled, unless '
                '"set_global_generator" has already been called. Please call '
                '"set_global_generator" first.'
            )
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator):
    """Replaces the global generator (objects holding the old one keep it)."""
    global _global_generator
    _global_generator = generator
