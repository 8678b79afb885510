"""`tf.random`: seeded, counter-based (Philox) random tensors.

Two families, as in TensorFlow:

* stateful draws (`uniform`, `normal`, `categorical`, `gamma`, ...) follow `set_seed` and op
  seeds and give new numbers on every call, also inside a `tf.function`; their numbers are
  ferroflow's own, except `shuffle`, which gives TensorFlow's order (and each
  uses up TensorFlow's op seeds as TensorFlow's op does, so that `tf.data`'s shuffles that
  follow get TensorFlow's seeds);
* stateless draws (`stateless_uniform`, ..., `split`, `fold_in`) and `Generator` give
  TensorFlow's numbers exactly: the same seed or state draws what TensorFlow 2.21 draws on the
  CPU.

>>> import ferroflow as tf
>>> tf.random.stateless_uniform([2], seed=[1, 2]).numpy()
array([0.8440604 , 0.19204533], dtype=float32)
"""

import types

import numpy as np

from ferroflow import _core, _random_seed, _random_shuffle, _tracing, errors
from ferroflow import array_ops as _array_ops
from ferroflow import dtypes as _dtypes
from ferroflow import math as _math
from ferroflow._random_generator import (
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)
from ferroflow._random_generator import convert_alg_to_int as _convert_alg_to_int
from ferroflow._random_generator import is_number as _is
from ferroflow._random_generator import plain_normal as _plain_normal
from ferroflow._random_generator import shape_list as _shape_list
from ferroflow.dtypes import enum_of as _enum

__all__ = [
    "Algorithm",
    "Generator",
    "all_candidate_sampler",
    "categorical",
    "create_rng_state",
    "experimental",
    "fixed_unigram_candidate_sampler",
    "fold_in",
    "gamma",
    "get_global_generator",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "normal",
    "poisson",
    "set_global_generator",
    "set_seed",
    "shuffle",
    "split",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_gamma",
    "stateless_normal",
    "stateless_parameterized_truncated_normal",
    "stateless_poisson",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
    "uniform_candidate_sampler",
]


def set_seed(seed):
    """Sets the global seed: random ops then give the same sequence on every run."""
    _core.set_seed(None if seed is None else int(seed))
    _random_seed.set_global_seed(seed)


# TensorFlow's checks and op-seed bookkeeping for a stateful op with optional op seed.
_require_seed = _random_seed.require_seed


def _shape(shape):
    return shape.as_list() if hasattr(shape, "as_list") else shape


def uniform(shape, minval=0, maxval=None, dtype=_dtypes.float32, seed=None, name=None):
    dtype = _dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    _require_seed(seed)
    return _core.random_uniform(_shape(shape), minval, maxval, _enum(dtype), seed)


def normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    _require_seed(seed)
    return _core.random_normal("normal", _shape(shape), mean, stddev, _enum(dtype), seed)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dtypes.float32, seed=None, name=None):
    _require_seed(seed)
    return _core.random_normal("truncated", _shape(shape), mean, stddev, _enum(dtype), seed)


def shuffle(value, seed=None, name=None):
    """Shuffles along the first axis in TensorFlow's order for the same seeds
    (`_random_shuffle`), eagerly and in a traced function (new orders on every run), except in
    a trace with only the global seed set (whose op seed TensorFlow numbers in its graph):
    ferroflow's own permutation then. Not differentiable, as TensorFlow's."""
    from ferroflow.backprop import stop_gradient

    return stop_gradient(_shuffled(_array_ops.convert_to_tensor(value), seed))


def _shuffled(value, seed):
    if _tracing.tracing():
        if seed is None and _random_seed.global_seed() is not None:
            return _core.shuffle(value, seed)
        if value.shape.rank == 0:
            return value
        return _random_shuffle.traced_shuffle(value, _random_seed.get_seed(seed))
    seeds = _random_seed.get_seed(seed)
    shape = value.shape.as_list()
    if not shape or shape[0] <= 1 or int(np.prod(shape)) <= 1:
        return value  # TensorFlow's kernel copies it, drawing nothing
    order = _random_shuffle.eager_permutation(shape[0], seeds, value.dtype.name)
    return _array_ops.gather(value, _array_ops.constant(order, dtype=_dtypes.int64))


# --- stateless ops: TensorFlow's numbers ---------------------------------------------------------

_UNIFORM_DTYPES = (
    _dtypes.float16,
    _dtypes.bfloat16,
    _dtypes.float32,
    _dtypes.float64,
    _dtypes.int32,
    _dtypes.int64,
    _dtypes.uint32,
    _dtypes.uint64,
)


def _seed_state(seed, alg="auto_select"):
    """The Philox state of a stateless op's seed (TensorFlow's key and counter)."""
    alg = _convert_alg_to_int("auto_select" if alg is None else alg)
    if alg == 2:
        raise errors.InvalidArgumentError(
            None,
            None,
            "counter must be a vector with length at least 2; got shape: [1]. (ThreeFry is "
            "XLA only: TensorFlow's CPU kernels run Philox.)",
        )
    if alg not in (1, 3):
        raise ValueError(
            f"Argument `alg` got unsupported value {alg}. Supported values are 1 for the Philox "
            "algorithm, 2 for the ThreeFry algorithm, and 3 for auto-selection."
        )
    # "philox" scrambles the seed as auto-select does: one Philox call under a fixed key.
    return _core.rng_state(seed)


def _stateless(sampler, state, shape, dtype, params=()):
    return _core.stateless_random(sampler, state, shape, _enum(dtype), list(params))


def _symbolic(value):
    return _core.is_tensor(value) and _core.is_symbolic(value)


def _draw_shape(shape):
    """A stateless op's shape: ints, or inside a trace a shape known only when the graph runs
    (a symbolic int vector, or a list holding symbolic scalars), which the op then reads as an
    input, as TensorFlow's stateless ops take their shape as a tensor."""
    if _symbolic(shape):
        return shape
    if isinstance(shape, (list, tuple)) and any(_symbolic(d) for d in shape):
        return list(shape)
    return _shape_list(shape)


def stateless_uniform(
    shape, seed, minval=0, maxval=None, dtype=_dtypes.float32, name=None, alg="auto_select"
):
    """Uniform values in ``[minval, maxval)`` determined by `seed` (shape ``[2]``, int32/int64):
    the numbers TensorFlow draws. Integer dtypes need both bounds, or neither for the type's
    whole range.

    >>> import ferroflow as tf
    >>> tf.random.stateless_uniform([3], seed=[1, 2], minval=-3, maxval=1000, dtype=tf.int32)
    <tf.Tensor: shape=(3,), dtype=int32, numpy=array([ 97, 284, 647], dtype=int32)>
    """
    dtype = _dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError(
            f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {_UNIFORM_DTYPES}."
        )
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(
                f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be "
                f"both None or not None. Got `minval`={minval} and `maxval`={maxval}."
            )
        if minval is not None and dtype in (_dtypes.uint32, _dtypes.uint64):
            raise ValueError(
                f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. "
                "Please don't use unsigned integers in this case."
            )
    elif maxval is None:
        maxval = 1
    shape = _draw_shape(shape)
    if dtype.is_integer and minval is None:
        return _stateless("uniform_full_int", _seed_state(seed, alg), shape, dtype)
    defaults = _is(minval, 0) and _is(maxval, 1)
    minval = _array_ops.convert_to_tensor(minval, dtype=dtype)
    maxval = _array_ops.convert_to_tensor(maxval, dtype=dtype)
    state = _seed_state(seed, alg)
    if dtype.is_integer:
        return _stateless("uniform_int", state, shape, dtype, (minval, maxval))
    rnd = _stateless("uniform", state, shape, dtype)
    return rnd if defaults else rnd * (maxval - minval) + minval


def stateless_normal(
    shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None, alg="auto_select"
):
    """Normal values determined by `seed`: TensorFlow's numbers.

    >>> import ferroflow as tf
    >>> tf.random.stateless_normal([2], seed=[1, 2]).numpy()
    array([0.5441101 , 0.20738031], dtype=float32)
    """
    dtype = _dtypes.as_dtype(dtype)
    shape = _draw_shape(shape)
    plain = _plain_normal(dtype, mean, stddev)
    mean = _array_ops.convert_to_tensor(mean, dtype=dtype)
    stddev = _array_ops.convert_to_tensor(stddev, dtype=dtype)
    rnd = _stateless("normal", _seed_state(seed, alg), shape, dtype)
    return rnd if plain else rnd * stddev + mean


def stateless_truncated_normal(
    shape, seed, mean=0.0, stddev=1.0, dtype=_dtypes.float32, name=None, alg="auto_select"
):
    """Normal values within two standard deviations of the mean, determined by `seed`."""
    dtype = _dtypes.as_dtype(dtype)
    shape = _draw_shape(shape)
    plain = _plain_normal(dtype, mean, stddev)
    mean = _array_ops.convert_to_tensor(mean, dtype=dtype)
    stddev = _array_ops.convert_to_tensor(stddev, dtype=dtype)
    rnd = _stateless("truncated_normal", _seed_state(seed, alg), shape, dtype)
    return rnd if plain else rnd * stddev + mean


def _sample_dtype(dtype):
    dtype = _dtypes.as_dtype(dtype) if dtype else _dtypes.int64
    accepted = (_dtypes.int32, _dtypes.int64)
    if dtype not in accepted:
        raise ValueError(
            f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {accepted}."
        )
    return dtype


def _num_samples(num_samples):
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_samples should be non-negative, got {n} [Op:StatelessMultinomial]"
        )
    return n


def stateless_categorical(logits, num_samples, seed, dtype=_dtypes.int64, name=None):
    """`num_samples` class indices per row of `logits` (``[batch, classes]``), determined by
    `seed`. TensorFlow splits the rows between its threads and each part starts its own stream,
    so its numbers (and these) depend on TensorFlow's thread count: this follows
    ``TF_NUM_INTRAOP_THREADS``, else the number of CPUs the process may use, as TensorFlow does.
    """
    logits = _array_ops.convert_to_tensor(logits)
    dtype = _sample_dtype(dtype)
    n = _num_samples(num_samples)
    return _core.stateless_categorical(_seed_state(seed), logits, n, _enum(dtype))


def stateless_binomial(shape, seed, counts, probs, output_dtype=_dtypes.int32, name=None):
    """Binomial counts for trials `counts` with success probabilities `probs`; `shape` must
    end with their broadcast shape."""
    probs = _array_ops.convert_to_tensor(probs, dtype_hint=_dtypes.float32)
    counts = _array_ops.convert_to_tensor(counts, dtype_hint=probs.dtype)
    shape = _draw_shape(shape)
    return _stateless("binomial", _seed_state(seed), shape, output_dtype, (counts, probs))


def stateless_poisson(shape, seed, lam, dtype=_dtypes.int32, name=None):
    """Poisson counts with rates `lam`; `shape` must end with `lam`'s shape."""
    lam = _array_ops.convert_to_tensor(lam)
    return _stateless("poisson", _seed_state(seed), _draw_shape(shape), dtype, (lam,))


def _gamma_params(alpha, beta, dtype):
    alpha = _array_ops.convert_to_tensor(alpha, dtype=dtype)
    beta = _array_ops.convert_to_tensor(1 if beta is None else beta, dtype=dtype)
    try:
        batch = np.broadcast_shapes(tuple(alpha.shape), tuple(beta.shape))
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"Incompatible shapes: {list(alpha.shape)} vs. {list(beta.shape)} [Op:BroadcastArgs]",
        ) from None
    return _array_ops.broadcast_to(alpha, list(batch)), beta, list(batch)


def _at_least_tiny(dtype, rnd, beta):
    tiny = _array_ops.constant(np.finfo(dtype.as_numpy_dtype).tiny, dtype=dtype)
    return _math.maximum(tiny, rnd / beta)


def stateless_gamma(shape, seed, alpha, beta=None, dtype=_dtypes.float32, name=None):
    """Gamma(alpha, beta) values; `shape` must end with the broadcast shape of the parameters.
    float16, float32 and float64 (TensorFlow has no bfloat16 kernel)."""
    dtype = _dtypes.as_dtype(dtype)
    shape = _draw_shape(shape)
    alpha, beta, _ = _gamma_params(alpha, beta, dtype)
    rnd = _stateless("gamma", _seed_state(seed), shape, dtype, (alpha,))
    return _at_least_tiny(dtype, rnd, beta)


def split(seed, num=2, alg="auto_select"):
    """`num` new seeds from one (shape ``[num, 2]``, the seed's dtype).

    >>> import ferroflow as tf
    >>> tf.random.split([1, 2], num=3).numpy()
    array([[1105988140, 1738052849],
           [-335576002,  370444179],
           [  10670227, -246211131]], dtype=int32)
    """
    seed = _array_ops.convert_to_tensor(seed)
    return stateless_uniform(
        [num, 2], seed=seed, dtype=seed.dtype, minval=None, maxval=None, alg=alg
    )


def fold_in(seed, data, alg="auto_select"):
    """A new seed from a seed and an integer (`data`'s dtype).

    >>> import ferroflow as tf
    >>> tf.random.fold_in([1, 2], 3).numpy()
    array([1105988140,          3], dtype=int32)
    """
    data = _array_ops.convert_to_tensor(data)
    seed1 = stateless_uniform([], seed=seed, dtype=data.dtype, minval=None, maxval=None, alg=alg)
    return _array_ops.stack([seed1, data])


# --- stateful draws of the samplers --------------------------------------------------------------


def _stateful_state(seed):
    """A Philox state drawn by a stateful random op: new on every call (a traced node draws
    again on every run), reproducible under `set_seed` and op seeds."""
    _require_seed(seed)
    words = _core.random_uniform([2], -(2**62), 2**62, _enum(_dtypes.int64), seed)
    return _core.rng_state(words)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`num_samples` class indices per row of `logits` (``[batch, classes]``)."""
    logits = _array_ops.convert_to_tensor(logits)
    dtype = _sample_dtype(dtype)
    n = _num_samples(num_samples)
    return _core.stateless_categorical(_stateful_state(seed), logits, n, _enum(dtype))


def gamma(shape, alpha, beta=None, dtype=_dtypes.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples of shape ``shape + broadcast(alpha, beta).shape``."""
    dtype = _dtypes.as_dtype(dtype)
    shape = _shape_list(shape)
    alpha, beta, batch = _gamma_params(alpha, beta, dtype)
    np.finfo(dtype.as_numpy_dtype)  # TensorFlow's check for non-float dtypes (ValueError)
    rnd = _stateless("gamma", _stateful_state(seed), shape + batch, dtype, (alpha,))
    return _at_least_tiny(dtype, rnd, beta)


def poisson(shape, lam, dtype=_dtypes.float32, seed=None, name=None):
    """Poisson samples of shape ``shape + lam.shape``."""
    lam = _array_ops.convert_to_tensor(lam)
    shape = _shape_list(shape) + list(lam.shape)
    return _stateless("poisson", _stateful_state(seed), shape, dtype, (lam,))


def _index_shuffle(index, seed, max_index):
    """The position of ``index`` in a permutation of ``[0, ..., max_index]`` fixed by ``seed``
    (shape ``[2]`` or ``[n, 2]``), TensorFlow's: the seed is padded in front with TensorFlow's
    constant to the three words of the `RandomIndexShuffle` primitive.

    >>> import ferroflow as tf
    >>> tf.random.experimental.index_shuffle(tf.range(4), seed=[5, 9], max_index=3).numpy()
    array([2, 0, 1, 3], dtype=int32)
    """
    from ferroflow.array_extra_ops import random_index_shuffle

    seed = _array_ops.convert_to_tensor(seed)
    rank = seed.shape.rank
    paddings = [[1, 0]] + ((rank or 1) - 1) * [[0, 0]]
    seed = _array_ops.pad(seed, paddings, constant_values=498247692)
    return random_index_shuffle(index, seed=seed, max_index=max_index, rounds=4)


experimental = types.ModuleType(
    "ferroflow.random.experimental", "`tf.random.experimental`: the same functions by their names."
)
experimental.Algorithm = Algorithm
experimental.Generator = Generator
experimental.create_rng_state = create_rng_state
experimental.get_global_generator = get_global_generator
experimental.set_global_generator = set_global_generator
experimental.stateless_fold_in = fold_in
experimental.stateless_split = split
experimental.index_shuffle = _index_shuffle

# Candidate samplers (also tf.nn's), in their own module.
from ferroflow.candidate_sampling import (  # noqa: E402
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from ferroflow.random_truncated import stateless_parameterized_truncated_normal  # noqa: E402
