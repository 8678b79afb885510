"""TensorFlow's op seeds (`random_seed.get_seed`): the (seed, seed2) pair an op with optional
op seed runs with, given the global seed.

With a global seed and no op seed, an eager op takes the next draw of a Python
`random.Random(global_seed)` (TensorFlow's eager context keeps one, restarted by
`tf.random.set_seed`), so the pair depends on how many seeded ops ran since: every stateful
random op calls `get_seed` once, as TensorFlow's do, even where ferroflow draws its own numbers.
"""

import random

__all__ = [
    "DEFAULT_GRAPH_SEED",
    "MAXINT32",
    "function_seeds",
    "get_seed",
    "require_seed",
    "seeds_for",
    "set_global_seed",
]

DEFAULT_GRAPH_SEED = 87654321
MAXINT32 = 2**31 - 1

_state = {"seed": None, "rng": None}


def set_global_seed(seed):
    """`tf.random.set_seed`'s part: the global seed and a fresh op-seed sequence."""
    from ferroflow import _random_shuffle

    _state["seed"] = seed
    _state["rng"] = None if seed is None else random.Random(int(seed))
    # TensorFlow clears its eager kernel cache, restarting the kernels' streams.
    _random_shuffle.clear_kernels()


def global_seed():
    """The global seed, or None."""
    return _state["seed"]


def get_seed(op_seed):
    """TensorFlow's ``random_seed.get_seed``: ``(seed, seed2)``, ``(None, None)`` without any
    seed (the op then seeds itself nondeterministically). Both are truncated to 31 bits; a
    pair that would be ``(0, 0)`` (which ops read as "unseeded") is ``(0, 2**31 - 1)``."""
    from ferroflow import _tracing

    global_seed = _state["seed"]
    if global_seed is not None:
        if op_seed is None and _tracing.tracing():
            # TensorFlow numbers a function graph's unseeded ops itself; ferroflow's traces
            # count theirs in Rust, out of reach here: refuse rather than differ.
            raise NotImplementedError(
                "An op seed is needed for this op inside a tf.function when only the global "
                "seed is set (pass seed=...), or create it outside the function."
            )
        if op_seed is None:
            op_seed = _state["rng"].randint(0, MAXINT32)
    return seeds_for(global_seed, op_seed)


def seeds_for(global_seed, op_seed):
    """`get_seed`'s pair for ``op_seed`` under the global seed ``global_seed`` (which may
    not be the current one: a dataset remade when a function's graph runs takes the seeds
    its trace took). Needs an op seed where ``global_seed`` is set."""
    if global_seed is not None:
        seeds = int(global_seed % MAXINT32), int(op_seed % MAXINT32)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, int(op_seed % MAXINT32)
    else:
        seeds = None, None
    if seeds == (None, None):
        _check_determinism()
    if seeds == (0, 0):
        return 0, MAXINT32
    return seeds


def function_seeds(index=0):
    """The seeds of the ``index``-th random op without op seed in a function graph traced
    now (a `tf.data` function's, for instance): TensorFlow numbers a graph's unseeded ops from
    0. ``(None, None)`` without a global seed."""
    global_seed = _state["seed"]
    if global_seed is None:
        return None, None
    seeds = int(global_seed % MAXINT32), index % MAXINT32
    return (0, MAXINT32) if seeds == (0, 0) else seeds


def require_seed(op_seed):
    """A stateful random op runs with ``op_seed``: under `enable_op_determinism` it needs a
    global or op seed; eagerly, with the global seed and no op seed, it uses up the next op
    seed, as TensorFlow's op does (a traced op uses its graph's)."""
    from ferroflow import _tracing

    if op_seed is None and _state["seed"] is None:
        _check_determinism()
    if op_seed is None and _state["rng"] is not None and not _tracing.tracing():
        _state["rng"].randint(0, MAXINT32)


def _check_determinism():
    from ferroflow import config

    if config._op_determinism_enabled():
        raise RuntimeError(
            "Random ops require a seed to be set when determinism is enabled. Please set a seed "
            "before running the op, e.g. by calling tf.random.set_seed(1)."
        )
