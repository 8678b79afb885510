#!/usr/bin/env python
"""Fuzzes every public ferroflow op with random, extreme and invalid arguments.

Each iteration calls one op (round-robin over a shuffled op list, so every op is called equally
often) with arguments from that op's entry in ``SPECS``: tensors of any of the 15 dtypes, ranks
0-4 and dims 0-5, values with NaN, +-Inf and the dtype's extremes, and - at a per-call rate -
invalid arguments: negative, huge and overflowing dimensions, wrong Python types, mismatched
shapes and dtypes, out-of-range axes, indices, counts and masks.

An op may return a result (which is then read back with ``.numpy()``) or raise one of
``ALLOWED``. Anything else is a failure: another exception type (a pyo3 ``PanicException``,
``SystemError``, ``RuntimeError``, ``MemoryError``, ``KeyError``, ``AttributeError``, ...), a crash
(abort, segfault, failed allocation) or a hang. ``check_table`` makes sure that every public op
(tf.*, tf.math.*, tf.nn.*, tf.linalg.*, tf.random.*, Tensor methods) has an entry.

The calls run in a worker process, so a crash cannot end the run. The supervisor (the default
mode) restarts the worker after the call that killed it, records the crash with the call's repr
(rebuilt from the seed: an iteration's arguments depend only on the seed and its number) and the
Rust frames of the backtrace, and stops calling an op after ``--max-crashes-per-op`` crashes. A
call that makes no progress for ``--call-timeout`` seconds is a hang. The worker caps its address
space (``--max-memory-mb``), so an op that really allocates a huge tensor fails fast instead of
exhausting the machine; the driver itself only asks for valid tensors of at most ~10**5 elements.

    python tests/fuzz_ops.py --iterations 60000 --seed 0     # what tests/test_fuzz.py runs
    python tests/fuzz_ops.py                                 # long: 10**6 calls, random seed
    python tests/fuzz_ops.py --seed 0 --replay 1234          # rerun one call in-process
    python tests/fuzz_ops.py --ops tf.pad,tf.tile --iterations 50000 --json summary.json
    python tests/fuzz_ops.py --list                          # the ops and Tensor methods

Exit status: 0 when no failure was recorded, 1 otherwise.
"""

import argparse
import collections
import faulthandler
import io
import json
import math
import operator
import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

import ferroflow as tf
import numpy as np

# The exceptions an op may raise for bad input; anything else is a bug.
ALLOWED = (
    tf.errors.OpError,
    TypeError,
    ValueError,
    IndexError,
    NotImplementedError,
    OverflowError,
)

FLOATS = (tf.float16, tf.bfloat16, tf.float32, tf.float64)
COMPLEX = (tf.complex64, tf.complex128)
SIGNED = (tf.int8, tf.int16, tf.int32, tf.int64)
UNSIGNED = (tf.uint8, tf.uint16, tf.uint32, tf.uint64)
INTS = SIGNED + UNSIGNED
INDEX = (tf.int32, tf.int64)
REAL = FLOATS + INTS
NUMERIC = FLOATS + COMPLEX + INTS
DTYPES = NUMERIC + (tf.bool,)
assert len(DTYPES) == 15

# Sizes no machine can allocate (2**44 float32 elements are 64 TiB), but that fit in an int64.
HUGE = (2**44, 2**50, 2**62, 2**63 - 1)
# Integers that do not fit in an int64 at all.
OVERFLOW = (2**63, 2**64, 10**30, -(2**63) - 1)
NEGATIVE = (-1, -2, -(2**31), -(2**63))
# Fine as an axis or index value (no allocation follows), wrong for any real tensor.
FAR = (2**31 - 1, 2**31, -(2**31) - 1, 2**40)

MODULES = (
    ("tf", tf),
    ("tf.math", tf.math),
    ("tf.math.special", tf.math.special),
    ("tf.nn", tf.nn),
    ("tf.linalg", tf.linalg),
    ("tf.random", tf.random),
    ("tf.image", tf.image),
    ("tf.io", tf.io),
    ("tf.debugging", tf.debugging),
    ("tf.bitwise", tf.bitwise),
    ("tf.sparse", tf.sparse),
    ("tf.sets", tf.sets),
    ("tf.autodiff", tf.autodiff),
    ("tf.ragged", tf.ragged),
    ("tf.strings", tf.strings),
    ("tf.compat.v1.nn", tf.compat.v1.nn),
    ("tf.experimental.dlpack", tf.experimental.dlpack),
    ("tf.experimental.numpy", tf.experimental.numpy),
    ("tf.experimental.numpy.random", tf.experimental.numpy.random),
    ("tf.nn.experimental", tf.nn.experimental),
    ("tf.signal", tf.signal),
    ("tf.lookup", tf.lookup),  # lookup
    ("tf.lookup.experimental", tf.lookup.experimental),  # lookup
)


# Arguments of the wrong kind for nearly every parameter.
# fmt: off
JUNK = (
    "abc", "", None, {}, {"a": 1}, set(), object(), b"\x00\xff", 1.5, math.nan, -math.inf, True,
    1 + 2j, 2**63, -(2**63) - 1, 10**30, [1, [2, 3]], [[1, 2], [3]], ["a", "b"], [None], [[[]]],
    [], (), [1, "a"], [True, 1.5], np.array(["x", "y"]), np.array([None, 1], dtype=object),
    np.array(["2020-01-01"], dtype="datetime64[D]"), np.int64(7), np.float32("nan"), slice(1, 2),
    Ellipsis, range(3), tf.float32, tf.TensorShape(None), tf.TensorShape([None, 2]), print,
)
# fmt: on


def _nested(depth):
    value = [1.0]
    for _ in range(depth):
        value = [value]
    return value


# Values that test the conversion of Python objects (tf.constant and tf.convert_to_tensor only,
# as every op converts its arguments the same way): a rank numpy cannot hold, a nesting too deep
# for any recursive walk, a list that contains itself, and broken conversion protocols.
NESTED_RANK_70 = _nested(69)
NESTED_TOO_DEEP = _nested(200_000)
SELF_NESTED = [1.0]
SELF_NESTED.append(SELF_NESTED)


class ConvertsToItself:
    """A broken ``__tf_tensor__`` (TensorFlow's conversion protocol)."""

    def __tf_tensor__(self, dtype=None, name=None):
        return self

    def __repr__(self):
        return "ConvertsToItself()"


class ConvertsToList:
    def __tf_tensor__(self, dtype=None, name=None):
        return [[1, 2], [3, 4]]

    def __repr__(self):
        return "ConvertsToList()"


class ArrayOfItself:
    """A broken ``__array__``."""

    def __array__(self, dtype=None, copy=None):
        return self

    def __repr__(self):
        return "ArrayOfItself()"


CONVERSION_OBJECTS = (
    NESTED_RANK_70, NESTED_TOO_DEEP, SELF_NESTED, ConvertsToItself(), ConvertsToList(),
    ArrayOfItself(),
)  # fmt: skip

# fmt: off
JUNK_EQUATIONS = (
    "", "->", "a", "a->", "->a", "ab,bc", "ab,bc->ad", "ab->abab", "aa->aa", "a1->a", "A->a",
    "a-b", "a->b->c", "ab->a b", ",->", "ab,,ba->", "\u00e9->\u00e9", "...,...->...", "......->",
    "a...b...->ab", "..a->a", "ij,jk->ik", "i,i,i,i,i->", "abcdefghijklmnopqrstuvwxyz->a",
)
# fmt: on


class Gen:
    """Random arguments. Every ``bad_rate`` fraction of arguments is made invalid on purpose."""

    def __init__(self, rng, bad_rate):
        self.rng = rng
        self.bad_rate = bad_rate

    # --- randomness -------------------------------------------------------------------------

    def p(self, prob):
        return self.rng.random() < prob

    def bad(self):
        return self.bad_rate > 0 and self.p(self.bad_rate)

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def int_in(self, lo, hi):
        """A uniform integer in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def flag(self):
        if self.bad():
            return self.pick(("yes", None, 2, [True], np.array([True, False])))
        return self.p(0.5)

    def junk(self):
        return self.pick(JUNK)

    # --- dtypes, shapes, values -------------------------------------------------------------

    def dtype(self, pool=DTYPES):
        """A dtype from ``pool`` in one of its spellings; when bad, any dtype or no dtype."""
        if self.bad():
            choice = self.int_in(0, 3)
            if choice == 0:
                return self.pick(DTYPES)
            if choice == 1:
                return self.pick(("float33", "", 999, -1, object, "complex256", np.str_))
            if choice == 2:
                return tf.DType(self.pick((0, 7, 99, 2**40)), "bogus", np.float32)
            return self.junk()
        d = self.pick(pool)
        style = self.int_in(0, 9)
        if style == 0:
            return d.name
        if style == 1:
            return d.as_numpy_dtype
        return d

    def dims(self, rank=None, min_rank=0, max_rank=4, max_dim=5):
        if rank is None:
            rank = self.int_in(min_rank, max_rank)
        return [
            self.int_in(0, max_dim) if self.p(0.1) else self.int_in(1, max_dim) for _ in range(rank)
        ]

    def array(self, dtype, dims):
        """A numpy array of ``dtype`` with ordinary and extreme values."""
        n = int(np.prod(dims, dtype=np.int64))
        np_type = dtype.as_numpy_dtype
        special_rate = self.pick((0.0, 0.0, 0.1, 0.5))
        if dtype == tf.bool:
            values = self.rng.random(n) < 0.5
        elif dtype in INTS:
            info = np.iinfo(np_type)
            if self.p(0.7):
                lo, hi = max(int(info.min), -10), min(int(info.max), 10)
                values = self.rng.integers(lo, hi, size=n, endpoint=True)
            else:
                values = self.rng.integers(info.min, info.max, size=n, endpoint=True, dtype=np_type)
            values = values.astype(np_type)
            specials = [info.min, info.max, 0, 1] + ([-1] if info.min < 0 else [])
            mask = self.rng.random(n) < special_rate
            values[mask] = self.rng.choice(np.array(specials, dtype=np_type), size=int(mask.sum()))
        else:
            real_type = np.float64
            values = self._floats(n, special_rate, dtype)
            if dtype in COMPLEX:
                values = values + 1j * self._floats(n, special_rate, dtype)
                real_type = np.complex128
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values = np.asarray(values, dtype=real_type).astype(np_type)
        return np.asarray(values, dtype=np_type).reshape(dims)

    def _floats(self, n, special_rate, dtype):
        scale = self.pick((1.0, 1.0, 10.0, 1e4, 1e38, 1e300))
        values = self.rng.standard_normal(n) * scale
        real = dtype.real_dtype
        limits = (real.min, real.max)
        tiny = 5e-324 if self.p(0.5) else 1e-40
        specials = np.array(
            [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, *map(float, limits), tiny]
        )
        mask = self.rng.random(n) < special_rate
        values[mask] = self.rng.choice(specials, size=int(mask.sum()))
        return values

    def like(self, arr):
        """``arr`` as one of the things ops accept: a Tensor, an ndarray, a list or a scalar."""
        style = self.int_in(0, 9)
        if style <= 6:
            return tf.constant(arr)
        if style == 7:
            return self.view(arr)
        if arr.ndim == 0:
            return arr.item()
        return arr.tolist()

    def view(self, arr):
        """``arr`` or an equal array laid out differently: Fortran order, reversed, strided."""
        choice = self.int_in(0, 4)
        if choice == 1 and arr.ndim >= 2:
            return np.asfortranarray(arr)
        if choice == 2 and arr.ndim >= 1:
            return arr[::-1].copy()[::-1]  # negative strides
        if choice == 3 and arr.ndim >= 1:
            doubled = np.repeat(arr, 2, axis=-1)
            return doubled[..., ::2]  # non-contiguous
        if choice == 4 and arr.ndim >= 1:
            readonly = arr.copy()
            readonly.flags.writeable = False
            return readonly
        return arr

    def tensor(self, pool=DTYPES, dims=None, dtype=None):
        """A tensor-like argument; when bad, junk or a tensor of any dtype and shape."""
        if self.bad():
            if self.p(0.5):
                return self.junk()
            return self.like(self.array(self.pick(DTYPES), self.dims()))
        if dtype is None:
            dtype = self.pick(pool)
        if dims is None:
            dims = self.dims()
        return self.like(self.array(dtype, dims))

    def strings(self, dims=None):
        """A string tensor-like argument: ASCII, UTF-8, invalid UTF-8, empty and long strings,
        whitespace and digits; when bad, junk or a tensor of another dtype."""
        if self.bad():
            return self.tensor()
        dims = self.dims() if dims is None else dims
        n = int(np.prod(dims, dtype=np.int64))
        pieces = ("", " ", "a", "Bc", "\u00e9", "\u00df", "1", "-2.5", "\t", ",", "x" * 70, "0x1f")
        words = []
        for _ in range(n):
            if self.p(0.1):
                words.append(
                    bytes(self.rng.integers(0, 256, size=self.int_in(0, 9), dtype=np.uint8))
                )
            else:
                words.append("".join(self.pick(pieces) for _ in range(self.int_in(0, 4))).encode())
        arr = np.array(words, dtype=object).reshape(dims)
        return tf.constant(arr) if self.p(0.8) or arr.ndim == 0 else arr.tolist()

    def real_tensor(self, pool=DTYPES, dims=None):
        """Always a ``tf.Tensor`` (for Tensor methods)."""
        return tf.constant(self.array(self.pick(pool), self.dims() if dims is None else dims))

    def indices(self, dims, high, pool=INDEX):
        """Integer indices in [0, high), with out-of-range ones when bad."""
        dtype = self.pick(pool)
        n = int(np.prod(dims, dtype=np.int64))
        values = self.rng.integers(0, max(high, 1), size=n)
        if self.bad():
            choice = self.int_in(0, 2)
            if choice == 0 and n:
                values[self.int_in(0, n - 1)] = self.pick((-1, high, high + 3, -high - 1))
            elif choice == 1 and n:
                values[self.int_in(0, n - 1)] = self.pick((2**31 - 1, -(2**31)))
            else:
                return self.tensor()
        info = np.iinfo(dtype.as_numpy_dtype)
        values = np.clip(values, info.min, info.max).astype(dtype.as_numpy_dtype)
        return self.like(values.reshape(dims))

    def number(self, pool=NUMERIC):
        """A scalar: a Python number, a numpy scalar or a scalar tensor, with specials."""
        if self.bad():
            return self.pick((*JUNK, *HUGE, *OVERFLOW, [1.0, 2.0]))
        dtype = self.pick(pool)
        value = self.array(dtype, [])
        return self.like(value) if self.p(0.7) else value[()]

    def integer(self, value):
        """``value`` as a Python int, a numpy int or a scalar int tensor."""
        style = self.int_in(0, 9)
        if style == 8 and -(2**63) <= value < 2**63:
            return np.int64(value)
        if style == 9 and -(2**63) <= value < 2**63:
            return tf.constant(value, tf.int64)
        return value

    def bad_int(self, rank=0):
        """An integer (or not) that should be refused as an axis, index or mask."""
        choice = self.int_in(0, 4)
        if choice == 0:
            return self.pick(HUGE)
        if choice == 1:
            return self.pick(OVERFLOW)
        if choice == 2:
            return self.pick(NEGATIVE + FAR)
        if choice == 3:
            return self.pick((rank, rank + 1, rank + 7, -rank - 1, -rank - 5))
        return self.not_an_int()

    def not_an_int(self):
        if self.p(0.5):
            return self.pick((1.0, 2.5, "1", tf.constant(1.5), tf.constant([0, 1]), np.float64(1)))
        return self.junk()

    def bad_count(self):
        """Refused as a count or size: negative, unallocatable (not merely large) or not an int."""
        choice = self.int_in(0, 3)
        if choice == 0:
            return self.pick(HUGE)
        if choice == 1:
            return self.pick(OVERFLOW)
        if choice == 2:
            return self.pick(NEGATIVE)
        return self.not_an_int()

    def count(self, high=5, low=0):
        """A small non-negative count (depth, num, k, ...); when bad, negative/huge/not an int."""
        if self.bad():
            return self.bad_count()
        return self.integer(self.int_in(low, high))

    def axis(self, rank, extra=0):
        """An axis in [-(rank + extra), rank + extra); when bad, out of range or not an int."""
        if self.bad():
            return self.bad_int(rank)
        span = rank + extra
        if span == 0:
            return self.integer(0)
        return self.integer(self.int_in(-span, span - 1))

    def axes(self, rank):
        """None, one axis or a list of distinct axes; when bad, repeats or out-of-range axes."""
        if self.bad():
            choice = self.int_in(0, 2)
            if choice == 0 and rank:
                a = self.int_in(0, rank - 1)
                return [a, a - rank]
            if choice == 1:
                return [0, self.bad_int(rank)]
            return self.bad_int(rank)
        choice = self.int_in(0, 3)
        if choice == 0 or rank == 0:
            return None if self.p(0.8) else []
        if choice == 1:
            return self.axis(rank)
        chosen = self.rng.permutation(rank)[: self.int_in(1, rank)]
        return [int(a) - rank if self.p(0.3) else int(a) for a in chosen]

    def shape(self, dims=None):
        """A shape argument (list, tuple, TensorShape, tensor); when bad, negative/huge/junk."""
        if self.bad():
            return self.bad_shape()
        if dims is None:
            dims = self.dims()
            if self.p(0.1):
                dims = [self.pick((100, 1000, 10000))]
        return self.shape_like(dims)

    def shape_like(self, dims):
        """``dims`` as a list, tuple, TensorShape, int tensor or ndarray."""
        style = self.int_in(0, 9)
        if style <= 4 or not all(type(d) is int and abs(d) < 2**31 for d in dims):
            return list(dims)
        if style == 5:
            return tuple(dims)
        if style == 6:
            # TensorShape refuses negative dims (-1 means "infer" only in shape arguments).
            return tf.TensorShape(dims) if all(d >= 0 for d in dims) else list(dims)
        if style == 7:
            return tf.constant(np.array(dims, dtype=self.pick((np.int32, np.int64))))
        if style == 8:
            return np.array(dims, dtype=np.int64)
        return [self.integer(d) for d in dims]

    def bad_shape(self):
        dims = self.dims(max_rank=3)
        choice = self.int_in(0, 6)
        if choice == 0:  # one impossible dimension
            dims.insert(self.int_in(0, len(dims)), self.pick(HUGE + NEGATIVE))
            return dims
        if choice == 1:  # a dimension that is not an int64
            dims.insert(self.int_in(0, len(dims)), self.pick(OVERFLOW + (1.5, "2", None)))
            return dims
        if choice == 2:  # an element count that overflows
            return self.pick(
                ([2**32, 2**32], [2**21] * 3, [2**31, 2**31, 4], [2**62, 2**62], [3, 2**61, 5])
            )
        if choice == 3:  # a huge dimension next to a zero: valid, empty
            return self.pick(([2**62, 0], [0, 2**63 - 1], [2**44, 0, 2**44]))
        if choice == 4:  # not a list of ints
            return self.pick((
                tf.constant([2.0, 3.0]), tf.constant([[2, 3]]), tf.constant([2**40], tf.int64),
                tf.constant([-3], tf.int32), np.array([2**44], dtype=np.int64), np.array([2.5]),
                tf.TensorShape([None, 3]), [[2, 3]], -3, 2**44,
            ))  # fmt: skip
        return self.junk()

    def broadcast_dims(self, dims):
        """Dims that broadcast with ``dims``; when bad, dims that do not."""
        out = list(dims[self.int_in(0, len(dims)) :]) if self.p(0.5) else list(dims)
        out = [1 if self.p(0.3) else d for d in out]
        if self.p(0.2):
            out = [self.int_in(1, 3)] + out
        if self.bad() and out:  # make one axis disagree (unless ``dims`` has a 1 there)
            i = self.int_in(0, len(out) - 1)
            out[i] = dims[i - len(out)] + 2 if len(out) <= len(dims) else 7
        return out

    def seed(self):
        if self.bad():
            return self.pick((*OVERFLOW, "seed", 1.5, [1, 2], tf.constant([1])))
        return self.pick((None, None, 0, 1, 42, -1, 2**31, 2**63 - 1, -(2**63)))

    def pair(self, pool=DTYPES):
        """Two operands of one dtype with broadcastable shapes (or not, when bad)."""
        dtype = self.pick(DTYPES) if self.bad() else self.pick(pool)
        da = self.dims()
        db = self.broadcast_dims(da)
        if self.p(0.5):
            da, db = db, da
        x = self.tensor(dtype=dtype, dims=da)
        other = self.pick(pool) if self.p(0.1) else dtype
        y = self.number((other,)) if self.p(0.15) else self.tensor(dtype=other, dims=db)
        return (y, x) if self.p(0.2) else (x, y)


# --- the op table ----------------------------------------------------------------------------
#
# SPECS maps an op's name to a function of a Gen returning (args, kwargs). The name is the op's
# first public spelling ("tf.add" covers tf.math.add); "Tensor.x" entries are Tensor methods.

SPECS = {}
# Ops that refuse every call by design, exempt from "returned a result at least once".
NEVER_SUCCEEDS = {"tf.Tensor", "Tensor.__hash__", "tf.gradients", "tf.hessians"}
# TensorFlow 1 graph relics: refused as TensorFlow refuses them (or naming the TF2 way).
NEVER_SUCCEEDS |= {"tf.Graph", "tf.import_graph_def", "tf.load_library", "tf.load_op_library"}
# RaggedTensor's constructor is private (TensorFlow's ValueError for every call).
NEVER_SUCCEEDS |= {"tf.RaggedTensor"}
# tf.ragged.cross returns strings, which ferroflow does not have yet.
NEVER_SUCCEEDS |= {"tf.ragged.cross"}
# tf.TypeSpec is abstract; tf.sparse.cross returns strings, which ferroflow does not have yet.
NEVER_SUCCEEDS |= {"tf.TypeSpec", "tf.sparse.cross"}
# TensorFlow has approx_min_k only under XLA (NotFoundError on the CPU) and check_pinned only with
# CUDA (FailedPreconditionError elsewhere): both refuse as TensorFlow's CPU build does.
NEVER_SUCCEEDS |= {"tf.math.approx_min_k", "tf.check_pinned"}
# Graph-mode relics whose eager behaviour is TensorFlow's refusal with this exception class.
EAGER_REFUSALS = {"tf.gradients": RuntimeError, "tf.hessians": RuntimeError}
# Eagerly TensorFlow refuses parallel_stack; load_library reports a missing path as the OS does.
EAGER_REFUSALS.update({"tf.parallel_stack": RuntimeError, "tf.load_library": FileNotFoundError})
# The driver calls ops eagerly, where parallel_stack always refuses (it works in tf.function).
NEVER_SUCCEEDS |= {"tf.parallel_stack"}
# DLPack's protocol refuses an unsupported stream, device or dtype with BufferError (as numpy).
EAGER_REFUSALS.update(
    {n: BufferError for n in ("Tensor.__dlpack__", "tf.experimental.dlpack.from_dlpack")}
)


def spec(*names):
    def register(fn):
        for name in names:
            if name in SPECS:
                raise ValueError(f"duplicate fuzz spec for {name}")
            SPECS[name] = fn
        return fn

    return register


# Every declared unary primitive with a tf.math name (the registry, so new ones are fuzzed).
UNARY_MATH = [name for name, *_ in tf._core.unary_declarations() if hasattr(tf.math, name)]


def _math_name(name):
    """tf.math ops that TensorFlow also exports at the top level are named tf.<name>."""
    return f"tf.{name}" if getattr(tf, name, None) is getattr(tf.math, name) else f"tf.math.{name}"


@spec(*(_math_name(n) for n in UNARY_MATH))
@spec(*(f"tf.nn.{n}" for n in "relu relu6 elu selu softplus l2_loss".split()))
@spec("tf.identity", "tf.is_tensor", "tf.stop_gradient")
def _unary(g):
    return [g.tensor(pool=(tf.bool,) if g.p(0.1) else DTYPES)], {}


BINARY_MATH = (
    "add subtract multiply truediv floordiv floormod pow maximum minimum atan2 squared_difference "
    "equal not_equal less less_equal greater greater_equal logical_and logical_or logical_xor "
    "complex divide_no_nan"
).split()
BINARY_POOLS = {
    "logical_and": (tf.bool,),
    "logical_or": (tf.bool,),
    "logical_xor": (tf.bool,),
    "complex": (tf.float32, tf.float64),
    "atan2": FLOATS,
    "divide_no_nan": FLOATS + COMPLEX,
}


def _binary_spec(name):
    pool = BINARY_POOLS.get(name, DTYPES)

    def gen(g):
        return list(g.pair(pool)), {}

    return gen


for _name in BINARY_MATH:
    spec(_math_name(_name))(_binary_spec(_name))


@spec(*(f"tf.reduce_{n}" for n in "sum prod max min mean logsumexp all any".split()))
@spec("tf.math.reduce_variance", "tf.math.reduce_std")
def _reduction(g):
    dims = g.dims()
    pool = (tf.bool,) if g.p(0.2) else DTYPES
    return [g.tensor(pool, dims)], {"axis": g.axes(len(dims)), "keepdims": g.flag()}


@spec("tf.math.count_nonzero")
def _count_nonzero(g):
    dims = g.dims()
    kwargs = {"axis": g.axes(len(dims)), "keepdims": g.flag(), "dtype": g.dtype(INDEX + FLOATS)}
    return [g.tensor(dims=dims)], kwargs


@spec("tf.argmax", "tf.argmin")
def _arg_reduce(g):
    dims = g.dims()
    axis = None if g.p(0.2) else g.axis(len(dims))
    return [g.tensor(dims=dims)], {"axis": axis, "output_type": g.dtype(INDEX)}


@spec("tf.cumsum", "tf.math.cumprod")
def _cumulative(g):
    dims = g.dims()
    kwargs = {"axis": g.axis(len(dims)), "exclusive": g.flag(), "reverse": g.flag()}
    return [g.tensor(dims=dims)], kwargs


@spec("tf.add_n")
def _add_n(g):
    dims, dtype = g.dims(), g.pick(NUMERIC)
    values = [g.tensor(dtype=dtype, dims=dims) for _ in range(g.int_in(1, 4))]
    if g.bad():
        values = g.pick(([], [g.tensor(dims=g.dims())] + values, g.junk(), [None]))
    return [values], {}


@spec("tf.clip_by_value")
def _clip_by_value(g):
    dims, dtype = g.dims(), g.pick(REAL)
    lo = g.number((dtype,)) if g.p(0.7) else g.tensor(dtype=dtype, dims=g.broadcast_dims(dims))
    hi = g.number((dtype,)) if g.p(0.7) else g.tensor(dtype=dtype, dims=g.broadcast_dims(dims))
    return [g.tensor(dtype=dtype, dims=dims), lo, hi], {}


DEVICE_NAMES = (
    "CPU:0",
    "GPU:0",
    "/gpu:0",
    "/device:GPU:0",
    "/job:localhost/replica:0/task:0/device:GPU:0",
    "GPU:7",
    "CPU:1",
    "",
    "/cpu:*",
    "XPU:0",
    "GPU:x",
    "/foo",
    "/device:GPU:0/device:CPU:0",
    "::",
    "/job:",
    "GPU:99999999999999999999",
)


@spec("tf.device")
def _device(g):
    return [g.pick(DEVICE_NAMES + JUNK)], {}


SCOPE_NAMES = ("dense", "a/b", "abs/", "", "1bad", "a b", "_x", "my_module2")


@spec("tf.name_scope")
def _name_scope(g):
    return [g.pick(SCOPE_NAMES) if not g.bad() else g.junk()], {}


@spec("tf.Module")
def _module(g):
    return [], {"name": g.pick((None, *SCOPE_NAMES)) if not g.bad() else g.junk()}


@spec("tf.cast", "tf.saturate_cast")
def _cast(g):
    return [g.tensor(), g.dtype()], {}


def _constant_spec(extra):
    """tf.constant(value, dtype, shape) and tf.convert_to_tensor(value, dtype, dtype_hint)."""

    def gen(g):
        dims = g.dims()
        kwargs = {}
        if g.p(0.4):
            kwargs["dtype"] = g.dtype()
        if extra == "shape" and g.p(0.4):
            n = int(np.prod(dims))
            kwargs["shape"] = g.shape([n] if g.p(0.5) else g.dims(max_dim=2))
        if extra == "dtype_hint" and g.p(0.4):
            kwargs["dtype_hint"] = g.dtype()
        value = g.tensor(dims=dims)
        if g.bad() and g.p(0.1):
            value = g.pick(CONVERSION_OBJECTS)
        return [value], kwargs

    return gen


spec("tf.constant")(_constant_spec("shape"))
spec("tf.convert_to_tensor")(_constant_spec("dtype_hint"))


@spec("tf.zeros", "tf.ones")
def _zeros(g):
    return [g.shape()], ({"dtype": g.dtype()} if g.p(0.7) else {})


@spec("tf.zeros_like", "tf.ones_like")
def _zeros_like(g):
    return [g.tensor()], ({"dtype": g.dtype()} if g.p(0.5) else {})


@spec("tf.fill")
def _fill(g):
    value = g.number(DTYPES) if g.p(0.8) else g.tensor()
    return [g.shape(), value], {}


@spec("tf.eye")
def _eye(g):
    kwargs = {"dtype": g.dtype()}
    if g.p(0.5):
        kwargs["num_columns"] = g.count(6)
    if g.p(0.3):
        kwargs["batch_shape"] = g.shape(g.dims(max_rank=2, max_dim=3))
    return [g.count(6)], kwargs


@spec("tf.range")
def _range(g):
    if g.p(0.5):
        start, limit = g.int_in(-10, 10), g.int_in(-10, 30)
        delta = g.pick((1, 1, 2, 3, -1, -2)) * (1 if limit >= start else -1)
    else:
        start, limit = float(g.rng.normal() * 5), float(g.rng.normal() * 20)
        delta = float(g.pick((0.5, 1.0, 0.3, 2.5))) * (1 if limit >= start else -1)
    plain = not g.bad()
    if not plain:
        choice = g.int_in(0, 3)
        if choice == 0:
            delta = g.pick((0, 0.0, -delta, math.nan, math.inf, 1e-12, 2**62))
        elif choice == 1:
            limit = g.pick((2**62, 2**63 - 1, 1e30, math.inf, math.nan, -(2**63)))
        elif choice == 2:
            start = g.pick((math.nan, -math.inf, -1e30, -(2**63), 2**64))
        else:
            start = g.junk()
    args = [start, limit, delta]
    if g.p(0.2):
        # Scalar tensors with their dtype's extremes, but not int32/uint32 ones: a range to
        # 2**31 is valid, just billions of elements.
        pool = (tf.int8, tf.int16, tf.int64, tf.uint8, tf.uint16, tf.uint64) + FLOATS
        args = [g.like(g.array(g.pick(pool), [])) if g.p(0.5) else a for a in args]
        plain = False
    # A dtype casts the arguments; only for small ones, as a cast saturates (1e30 -> 2**31 - 1).
    kwargs = {"dtype": g.dtype(REAL)} if plain and g.p(0.3) else {}
    return args, kwargs


@spec("tf.linspace")
def _linspace(g):
    start, stop = g.number(FLOATS + INDEX), g.number(FLOATS + INDEX)
    kwargs = {"axis": g.pick((0, 0, 0, 1, -1))} if g.p(0.2) else {}
    return [start, stop, g.count(10)], kwargs


@spec("tf.reshape")
def _reshape(g):
    dims = g.dims()
    target = list(g.rng.permutation(dims)) if dims else []
    target = [int(d) for d in target]
    for _ in range(g.int_in(0, 2)):
        target.insert(g.int_in(0, len(target)), 1)
    if target and g.p(0.3):
        target[g.int_in(0, len(target) - 1)] = -1
    return [g.tensor(dims=dims), g.shape(target)], {}


@spec("tf.transpose")
def _transpose(g):
    dims = g.dims()
    perm = None
    if g.p(0.7):
        perm = [int(a) for a in g.rng.permutation(len(dims))]
        if g.bad():
            perm = g.pick((perm + [0], perm[:-1], [0] * len(dims), [len(dims)] + perm[1:]))
    return [g.tensor(dims=dims)], {"perm": perm, "conjugate": g.flag()}


def _parts(g, dims, axis, count):
    """``count`` tensors of one dtype whose dims differ from ``dims`` only at ``axis``."""
    dtype = g.pick(DTYPES)
    parts = []
    for _ in range(count):
        d = list(dims)
        if d and axis is not None:
            d[axis] = g.int_in(0, 4)
        parts.append(g.tensor(dtype=dtype, dims=d))
    return parts


@spec("tf.concat")
def _concat(g):
    dims = g.dims(min_rank=1)
    axis = g.int_in(0, len(dims) - 1)
    values = _parts(g, dims, axis, g.int_in(1, 4))
    if g.bad():
        values = g.pick(([], values + [g.tensor()], g.junk(), values[0]))
    return [values, g.axis(len(dims)) if g.p(0.3) else axis], {}


@spec("tf.stack")
def _stack(g):
    dims = g.dims(max_rank=3)
    values = _parts(g, dims, None, g.int_in(1, 4))
    if g.bad():
        values = g.pick(([], values + [g.tensor()], g.junk()))
    return [values], {"axis": g.axis(len(dims), extra=1)}


@spec("tf.unstack")
def _unstack(g):
    dims = g.dims(min_rank=1)
    axis = g.axis(len(dims))
    kwargs = {"axis": axis}
    if g.p(0.4):
        a = axis if isinstance(axis, int) and -len(dims) <= axis < len(dims) else 0
        kwargs["num"] = g.bad_int() if g.bad() else dims[a]
    return [g.tensor(dims=dims)], kwargs


@spec("tf.split")
def _split(g):
    dims = g.dims(min_rank=1)
    axis = g.int_in(0, len(dims) - 1)
    d = dims[axis]
    if g.p(0.5):
        splits = g.pick([n for n in range(1, 6) if d % n == 0] or [1])
        splits = g.bad_count() if g.bad() else splits
    else:
        sizes, left = [], d
        while left > 0:
            sizes.append(g.int_in(0 if g.p(0.2) else 1, left))
            left -= sizes[-1]
        if sizes and g.p(0.3):
            sizes[g.int_in(0, len(sizes) - 1)] = -1
        splits = g.bad_shape() if g.bad() else sizes
    return [g.tensor(dims=dims), splits], {"axis": g.axis(len(dims)) if g.p(0.2) else axis}


@spec("tf.tile")
def _tile(g):
    dims = g.dims()
    multiples = [g.int_in(0, 3) for _ in dims]
    return [g.tensor(dims=dims), g.shape(multiples)], {}


@spec("tf.pad")
def _pad(g):
    dims = g.dims()
    mode = g.pick(("CONSTANT", "CONSTANT", "REFLECT", "SYMMETRIC", "constant", "reflect"))
    limit = {"REFLECT": -1, "SYMMETRIC": 0}.get(mode.upper())
    paddings = []
    for d in dims:
        top = 3 if limit is None else max(d + limit, 0)
        paddings.append([g.int_in(0, top), g.int_in(0, top)])
    if g.bad():
        choice = g.int_in(0, 3)
        if choice == 0 and paddings:
            paddings[0][g.int_in(0, 1)] = g.pick(HUGE + NEGATIVE + OVERFLOW)
        elif choice == 1:
            paddings = paddings + [[1, 1]] if g.p(0.5) else paddings[:-1]
        elif choice == 2:
            mode = g.pick(("WRAP", "", None, 3))
        else:
            paddings = g.pick(
                (g.junk(), [[1, 2, 3]], [1, 2], tf.constant([[1.5, 2.0]]), [[None, 1]])
            )
    pairs = isinstance(paddings, list) and all(
        isinstance(r, list) and len(r) == 2 for r in paddings
    )
    if g.p(0.2) and pairs:
        if all(type(v) is int and abs(v) < 2**63 for row in paddings for v in row):
            paddings = tf.constant(np.array(paddings, dtype=np.int64).reshape(-1, 2))
    value = g.number() if g.p(0.3) else 0
    return [g.tensor(dims=dims), paddings], {"mode": mode, "constant_values": value}


@spec("tf.squeeze")
def _squeeze(g):
    dims = g.dims()
    for _ in range(g.int_in(0, 2)):
        dims.insert(g.int_in(0, len(dims)), 1)
    ones = [i for i, d in enumerate(dims) if d == 1]
    axis = None
    if ones and g.p(0.6):
        axis = [i - len(dims) if g.p(0.3) else i for i in ones[: g.int_in(1, len(ones))]]
    if g.bad():
        axis = g.axes(len(dims))
    return [g.tensor(dims=dims)], {"axis": axis}


@spec("tf.expand_dims")
def _expand_dims(g):
    dims = g.dims()
    return [g.tensor(dims=dims), g.axis(len(dims), extra=1)], {}


@spec("tf.broadcast_to")
def _broadcast_to(g):
    dims = g.dims(max_rank=3)
    target = [g.int_in(1, 3) for _ in range(g.int_in(0, 2))] + dims
    target = [g.int_in(0, 4) if d == 1 else d for d in target]
    return [g.tensor(dims=dims), g.shape(target)], {}


@spec(
    "tf.debugging.assert_equal",
    "tf.debugging.assert_none_equal",
    "tf.debugging.assert_less",
    "tf.debugging.assert_less_equal",
    "tf.debugging.assert_greater",
    "tf.debugging.assert_greater_equal",
    "tf.debugging.assert_near",
)
def _binary_assertion(g):
    dims = g.dims()
    dtype = g.pick(REAL)
    x = g.tensor(dims=dims, dtype=dtype)
    y = g.tensor(dims=g.broadcast_dims(dims), dtype=dtype) if not g.bad() else g.junk()
    if g.p(0.3):
        y = x  # random operands are almost never near (assert_near) or equal
    kwargs = {"summarize": g.pick((None, 0, 2, -1))} if g.p(0.3) else {}
    if g.p(0.2):
        kwargs["message"] = "fuzz"
    return [x, y], kwargs


@spec(
    "tf.debugging.assert_negative",
    "tf.debugging.assert_positive",
    "tf.debugging.assert_non_negative",
    "tf.debugging.assert_non_positive",
    "tf.math.is_non_decreasing",
    "tf.math.is_strictly_increasing",
)
def _unary_assertion(g):
    return [g.tensor(pool=REAL) if not g.bad() else g.junk()], {}


@spec("tf.debugging.check_numerics", "tf.debugging.assert_all_finite")
def _check_numerics(g):
    return [g.tensor(pool=FLOATS) if not g.bad() else g.tensor(), "fuzz"], {}


@spec("tf.debugging.Assert")
def _assert(g):
    condition = g.tensor(dims=[], dtype=tf.bool) if not g.bad() else g.tensor()
    data = [g.pick(("text", g.tensor(), 3)) for _ in range(g.int_in(0, 3))]
    kwargs = {"summarize": g.pick((None, 0, 1, 5))} if g.p(0.3) else {}
    return [condition, data if not g.bad() else g.junk()], kwargs


@spec(
    "tf.debugging.assert_rank",
    "tf.debugging.assert_rank_at_least",
)
def _assert_rank(g):
    return [g.tensor(), g.count(4) if not g.bad() else g.junk()], {}


@spec("tf.debugging.assert_rank_in")
def _assert_rank_in(g):
    return [g.tensor(), [g.count(4) for _ in range(g.int_in(0, 3))]], {}


@spec("tf.debugging.assert_scalar", "tf.debugging.assert_integer", "tf.debugging.is_numeric_tensor")
def _static_assertion(g):
    return [g.tensor() if not g.bad() else g.junk()], {}


@spec("tf.debugging.assert_type")
def _assert_type(g):
    return [g.tensor(), g.dtype()], {}


@spec("tf.debugging.assert_proper_iterable")
def _assert_proper_iterable(g):
    return [g.pick(([1, 2], (3,), "ab", g.tensor(), g.junk()))], {}


@spec("tf.debugging.assert_same_float_dtype")
def _assert_same_float_dtype(g):
    tensors = [g.tensor() for _ in range(g.int_in(0, 3))]
    return [tensors if not g.bad() else g.junk()], ({"dtype": g.dtype()} if g.p(0.3) else {})


@spec("tf.debugging.assert_shapes")
def _assert_shapes(g):
    items = []
    for _ in range(g.int_in(0, 3)):
        t = g.tensor()
        spec = [g.pick(("N", "K", ".", 2, None)) for _ in range(g.int_in(0, 3))]
        if g.p(0.2):
            spec = ["..."] + spec
        items.append((t, spec))
    return [items if not g.bad() else g.junk()], {}


@spec("tf.debugging.set_log_device_placement", "tf.debugging.get_log_device_placement")
def _log_device_placement(g):
    return ([False] if g.p(0.5) else []), {}


@spec(
    "tf.bitwise.bitwise_and",
    "tf.bitwise.bitwise_or",
    "tf.bitwise.bitwise_xor",
    "tf.bitwise.left_shift",
    "tf.bitwise.right_shift",
)
def _bitwise_binary(g):
    dims = g.dims()
    dtype = g.pick(INTS) if not g.bad() else g.pick(DTYPES)
    x = g.tensor(dims=dims, dtype=dtype)
    return [x, g.tensor(dims=g.broadcast_dims(dims), dtype=dtype)], {}


@spec("tf.bitwise.invert")
def _bitwise_invert(g):
    return [g.tensor(pool=INTS) if not g.bad() else g.tensor()], {}


@spec("tf.map_fn", "tf.scan", "tf.foldl", "tf.foldr")
def _functional(g):
    fns = (lambda *a: a[-1] * 2, lambda *a: a[0] + a[-1], lambda *a: tf.reduce_sum(a[-1]))
    dims = g.dims(min_rank=1, max_dim=4)
    elems = g.tensor(dims=dims, pool=FLOATS) if not g.bad() else g.junk()
    return [g.pick(fns) if not g.bad() else g.junk(), elems], {}


@spec("tf.TensorArray")
def _tensor_array(g):
    kwargs = {"size": g.count(4)}
    if g.p(0.4):
        kwargs["dynamic_size"] = g.flag()
    if g.p(0.3):
        kwargs["clear_after_read"] = g.flag()
    if g.p(0.3):
        kwargs["infer_shape"] = g.flag()
    if g.p(0.3):
        kwargs["element_shape"] = g.pick(([2], [None], None, [])) if not g.bad() else g.junk()
    return [g.dtype()], kwargs


@spec("tf.TensorArraySpec")
def _tensor_array_spec(g):
    shape = g.pick(([], [None], [2, None], None)) if not g.bad() else g.junk()
    return [shape, g.dtype(), g.flag(), g.flag()], {}


@spec("tf.roll")
def _roll(g):
    dims = g.dims(min_rank=1)
    n = g.int_in(1, 2)
    shift = [g.int_in(-7, 7) for _ in range(n)]
    axis = [g.axis(len(dims)) for _ in range(n)]
    if n == 1 and g.p(0.5):
        shift, axis = shift[0], axis[0]
    if g.bad():
        shift = g.pick((g.junk(), [1, 2, 3], 2.5))
    return [g.tensor(dims=dims), shift, axis], {}


@spec("tf.repeat")
def _repeat(g):
    dims = g.dims()
    axis = None if g.p(0.3) or not dims else g.axis(len(dims))
    in_range = type(axis) is int and -len(dims) <= axis < len(dims)
    size = dims[axis] if in_range else 1
    repeats = g.count(3) if g.p(0.5) else [g.int_in(0, 3) for _ in range(size)]
    if g.bad():
        repeats = g.pick((g.bad_count(), [-1] * size, [1] * (size + 1), g.junk()))
    return [g.tensor(dims=dims), repeats], {"axis": axis}


@spec("tf.meshgrid")
def _meshgrid(g):
    dtype = g.pick(REAL)
    args = [tf.constant(g.array(dtype, [g.int_in(0, 4)])) for _ in range(g.int_in(0, 3))]
    if g.bad():
        args.append(g.junk())
    kwargs = {"indexing": g.pick(("xy", "ij")) if not g.bad() else g.junk()}
    return args, kwargs


@spec("tf.searchsorted")
def _searchsorted(g):
    lead = g.dims(max_rank=2, max_dim=3)
    dtype = g.pick(REAL)
    seq = np.sort(g.array(dtype, lead + [g.int_in(0, 6)]), axis=-1)
    values = g.tensor(dims=lead + [g.int_in(0, 4)], dtype=dtype)
    kwargs = {"side": g.pick(("left", "right")) if not g.bad() else g.junk()}
    if g.p(0.3):
        kwargs["out_type"] = g.dtype(INDEX)
    return [tf.constant(seq), values], kwargs


@spec("tf.sequence_mask")
def _sequence_mask(g):
    # Lengths are sizes: small ones (a huge one is a huge mask, which is valid).
    values = g.rng.integers(-2, 7, size=g.dims(max_rank=2))
    lengths = tf.constant(values, g.pick(INDEX)) if not g.bad() else g.junk()
    kwargs = {"maxlen": g.count(6)} if g.p(0.6) else {}
    if g.p(0.3):
        kwargs["dtype"] = g.dtype()
    return [lengths], kwargs


@spec("tf.reverse_sequence")
def _reverse_sequence(g):
    dims = [g.int_in(1, 4) for _ in range(g.int_in(2, 3))]
    batch_axis, seq_axis = g.rng.permutation(len(dims))[:2].tolist()
    lengths = [g.int_in(0, dims[seq_axis]) for _ in range(dims[batch_axis])]
    if g.bad():
        lengths = g.pick(([dims[seq_axis] + 1] * dims[batch_axis], [1], g.junk()))
        seq_axis = g.pick((seq_axis, batch_axis, g.bad_int(len(dims))))
    return [g.tensor(dims=dims), lengths], {"seq_axis": seq_axis, "batch_axis": batch_axis}


@spec("tf.unravel_index")
def _unravel_index(g):
    dims = [g.int_in(1, 5) for _ in range(g.int_in(1, 3))]
    limit = int(np.prod(dims))
    indices = [g.int_in(0, limit - 1) for _ in range(g.int_in(0, 4))]
    if indices and g.p(0.2):
        indices = indices[0]
    if g.bad():
        indices = g.pick(([limit], [-1], g.junk()))
    return [indices, dims], {}


@spec("tf.broadcast_dynamic_shape")
def _broadcast_dynamic_shape(g):
    a, b = g.dims(), g.dims()
    if g.p(0.6):
        b = g.broadcast_dims(a)
    dtype = g.pick((np.int32, np.int64))
    shapes = [np.array(a, dtype), np.array(b, dtype)]
    return [shapes[0] if not g.bad() else g.junk(), shapes[1]], {}


@spec("tf.broadcast_static_shape")
def _broadcast_static_shape(g):
    a, b = g.dims(), g.dims()
    if g.p(0.6):
        b = g.broadcast_dims(a)
    to_shape = lambda d: tf.TensorShape([None if g.p(0.2) else x for x in d])  # noqa: E731
    return [to_shape(a), to_shape(b) if not g.bad() else g.junk()], {}


@spec("tf.shape_n", "tf.identity_n", "tf.tuple")
def _tensor_lists(g):
    values = [g.tensor() for _ in range(g.int_in(0, 3))]
    return [values if not g.bad() else g.junk()], {}


@spec("tf.tensor_scatter_nd_add", "tf.tensor_scatter_nd_sub", "tf.tensor_scatter_nd_update")
def _tensor_scatter(g):
    dims = g.dims(min_rank=1, max_dim=4)
    depth = g.int_in(1, len(dims))
    count = g.int_in(0, 4)
    indices = [[g.int_in(0, max(d - 1, 0)) for d in dims[:depth]] for _ in range(count)]
    if g.bad():
        indices = g.pick(([[d for d in dims[:depth]]], [[-1] * depth], g.junk()))
    dtype = g.pick(NUMERIC)
    updates = g.tensor(dims=[count] + dims[depth:], dtype=dtype)
    return [g.tensor(dims=dims, dtype=dtype), indices, updates], {}


@spec("tf.truncatediv", "tf.truncatemod", "tf.realdiv")
def _truncated_division(g):
    dims = g.dims()
    dtype = g.pick(REAL)
    y = g.array(dtype, g.broadcast_dims(dims))
    y = np.where(y == 0, np.ones_like(y), y)
    return [g.tensor(dims=dims, dtype=dtype), tf.constant(y) if not g.bad() else g.junk()], {}


@spec("tf.scalar_mul", "tf.math.scalar_mul")
def _scalar_mul(g):
    dtype = g.pick(NUMERIC)
    x = tf.constant(g.array(dtype, g.dims()))
    scalar = g.number((dtype,)) if not g.bad() else g.tensor()
    return [scalar, x], {}


@spec("tf.clip_by_norm")
def _clip_by_norm(g):
    dims = g.dims()
    kwargs = {"axes": g.axes(len(dims))} if g.p(0.5) else {}
    return [g.tensor(dims=dims, pool=FLOATS), g.number(FLOATS)], kwargs


@spec("tf.clip_by_global_norm", "tf.linalg.global_norm")
def _global_norm(g):
    dtype = g.pick(FLOATS)
    values = [g.tensor(dtype=dtype) if g.p(0.9) else None for _ in range(g.int_in(0, 3))]
    if g.bad():
        values = g.junk()
    if g.p(0.5):
        return [values, g.number(FLOATS)], {}
    return [values], {}


@spec("tf.histogram_fixed_width")
def _histogram_fixed_width(g):
    dtype = g.pick(REAL)
    lo = g.int_in(-3, 3)
    value_range = tf.constant([lo, lo + g.int_in(0, 4)], dtype)
    kwargs = {"nbins": g.count(8, low=1)} if g.p(0.7) else {}
    if g.p(0.3):
        kwargs["dtype"] = g.dtype(INDEX)
    return [g.tensor(dtype=dtype), value_range if not g.bad() else g.junk()], kwargs


@spec("tf.unique_with_counts")
def _unique_with_counts(g):
    dims = [g.int_in(0, 12)] if g.p(0.8) else g.dims()
    kwargs = {"out_idx": g.dtype(INDEX)} if g.p(0.5) else {}
    return [g.tensor(dims=dims)], kwargs


@spec("tf.executing_eagerly", "tf.inside_function", "tf.no_op", "tf.group")
def _context(g):
    return ([g.tensor()] if g.p(0.3) else []), {}


@spec("tf.get_static_value")
def _get_static_value(g):
    return [g.tensor() if not g.bad() else g.junk()], {}


@spec("tf.ensure_shape")
def _ensure_shape(g):
    dims = g.dims()
    expected = [None if g.p(0.3) else d for d in dims]
    if g.bad():
        expected = g.pick(([d + 1 for d in dims], expected + [1], expected[1:], None, [-3]))
    return [g.tensor(dims=dims), expected], {}


@spec("tf.nn.l2_normalize", "tf.math.l2_normalize")
def _l2_normalize(g):
    dims = g.dims()
    axis = None if g.p(0.3) else g.axis(len(dims))
    kwargs = {"epsilon": g.pick((1e-12, 0.0, 1.0, -1.0))} if g.p(0.3) else {}
    return [g.tensor(dims=dims), axis], kwargs


@spec("tf.shape", "tf.size")
def _shape(g):
    return [g.tensor()], ({"out_type": g.dtype(INDEX)} if g.p(0.5) else {})


@spec("tf.rank")
def _rank(g):
    return [g.tensor()], {}


@spec("tf.slice")
def _slice(g):
    dims = g.dims()
    begin = [g.int_in(0, d) for d in dims]
    size = [-1 if g.p(0.2) else g.int_in(0, d - b) for d, b in zip(dims, begin)]
    if g.bad():
        target = g.pick((begin, size))
        if target:
            target[g.int_in(0, len(target) - 1)] = g.bad_int()
        else:
            target.append(g.int_in(0, 3))
    return [g.tensor(dims=dims), g.shape_like(begin), g.shape_like(size)], {}


def _stride_list(g, m):
    """Begins, ends and strides for ``m`` slice positions."""
    begin = [g.int_in(-7, 7) for _ in range(m)]
    end = [g.int_in(-7, 7) for _ in range(m)]
    strides = [g.pick((1, 1, 1, -1, 2, -2, 3)) for _ in range(m)]
    if g.bad() and m:
        target = g.pick((begin, end, strides))
        target[g.int_in(0, m - 1)] = g.pick((0, *HUGE, *NEGATIVE, *FAR, -(2**63) + 1))
    return begin, end, strides


@spec("tf.strided_slice")
def _strided_slice(g):
    dims = g.dims()
    m = g.int_in(0, len(dims) + 1)
    begin, end, strides = _stride_list(g, m)
    kwargs = {}
    for mask in ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask"):
        if g.p(0.3):
            kwargs[mask] = g.int_in(0, 2**m - 1) if not g.bad() else g.bad_int()
    if g.p(0.2) and m:
        kwargs["ellipsis_mask"] = 1 << g.int_in(0, m - 1)
    if g.bad():
        kwargs["ellipsis_mask"] = g.int_in(0, 2 ** (m + 1) - 1)
    strides = None if g.p(0.2) else strides
    return [g.tensor(dims=dims), begin, end, strides], kwargs


@spec("tf.reverse")
def _reverse(g):
    dims = g.dims()
    axes = [int(a) for a in g.rng.permutation(len(dims))[: g.int_in(0, len(dims))]]
    if g.bad():
        axes = g.axes(len(dims))
    return [g.tensor(dims=dims), axes], {}


@spec("tf.gather")
def _gather(g):
    dims = g.dims(min_rank=1)
    axis = g.int_in(0, len(dims) - 1)
    kwargs = {"axis": g.axis(len(dims)) if g.p(0.2) else axis}
    if g.p(0.3):
        kwargs["batch_dims"] = g.bad_int() if g.bad() else g.int_in(-1, 1)
    idx = g.indices(g.dims(max_rank=2), dims[axis])
    return [g.tensor(dims=dims), idx], kwargs


@spec("tf.nn.embedding_lookup")
def _embedding_lookup(g):
    dims = g.dims(min_rank=1)
    table = g.tensor(dims=dims)
    params = [table, table] if g.p(0.2) else table
    kwargs = {"max_norm": g.pick([0.5, 2.0, -1.0])} if g.p(0.3) else {}
    return [params, g.indices(g.dims(max_rank=2), dims[0])], kwargs


@spec("tf.gather_nd")
def _gather_nd(g):
    dims = g.dims(min_rank=1)
    k = g.int_in(1, len(dims))
    batch = g.dims(max_rank=2)
    n = int(np.prod(batch))
    cols = [g.rng.integers(0, max(d, 1), size=n) for d in dims[:k]]
    idx = np.stack(cols, axis=-1).reshape([*batch, k]).astype(g.pick((np.int32, np.int64)))
    if g.bad() and idx.size:
        idx.flat[g.int_in(0, idx.size - 1)] = g.pick((-1, 5, 6, 2**31 - 1))
    indices = g.like(idx) if not g.bad() else g.indices(g.dims(), 3)
    kwargs = {"batch_dims": g.bad_int()} if g.p(0.05) else {}
    return [g.tensor(dims=dims), indices], kwargs


@spec("tf.scatter_nd")
def _scatter_nd(g):
    dims = g.dims(min_rank=1)
    k = g.int_in(1, len(dims))
    batch = g.dims(max_rank=2)
    n = int(np.prod(batch))
    cols = [g.rng.integers(0, max(d, 1), size=n) for d in dims[:k]]
    idx = np.stack(cols, axis=-1).reshape([*batch, k]).astype(g.pick((np.int32, np.int64)))
    if g.bad() and idx.size:
        idx.flat[g.int_in(0, idx.size - 1)] = g.pick((-1, 5, 6, 2**31 - 1))
    updates = g.tensor(pool=NUMERIC, dims=batch + dims[k:])
    return [g.like(idx), updates, g.shape(dims)], {}


@spec("tf.where")
def _where(g):
    dims = g.dims()
    cond = g.tensor(pool=(tf.bool,) if g.p(0.8) else DTYPES, dims=dims)
    if g.p(0.4):
        return [cond], {}
    x, y = g.pair()
    if g.p(0.5):
        x, y = g.tensor(dims=g.broadcast_dims(dims)), g.tensor(dims=g.broadcast_dims(dims))
    if g.bad():
        x, y = g.pick(((x, None), (None, y)))
    return [cond], {"x": x, "y": y}


@spec("tf.boolean_mask")
def _boolean_mask(g):
    dims = g.dims(min_rank=1)
    axis = g.int_in(0, len(dims) - 1)
    mask_dims = dims[axis : axis + g.int_in(1, len(dims) - axis)]
    mask = g.tensor(pool=(tf.bool,), dims=g.broadcast_dims(mask_dims) if g.bad() else mask_dims)
    return [g.tensor(dims=dims), mask], ({"axis": g.axis(len(dims)) if g.bad() else axis})


@spec("tf.one_hot")
def _one_hot(g):
    depth = g.count(6)
    high = depth if isinstance(depth, int) and 0 <= depth < 100 else 3
    indices = g.indices(g.dims(max_rank=3), high + 1)
    kwargs = {}
    if g.p(0.3):
        kwargs["on_value"] = g.number()
    if g.p(0.3):
        kwargs["off_value"] = g.number()
    if g.p(0.3):
        kwargs["axis"] = g.axis(4)
    if g.p(0.3):
        kwargs["dtype"] = g.dtype()
    return [indices, depth], kwargs


@spec("tf.sort", "tf.argsort")
def _sort(g):
    dims = g.dims(min_rank=1 if g.p(0.9) else 0)
    direction = g.pick(("ASCENDING", "DESCENDING"))
    if g.bad():
        direction = g.pick(("ascending", "UP", None, 1))
    return [g.tensor(dims=dims)], {"axis": g.axis(len(dims)), "direction": direction}


@spec("tf.math.top_k")
def _top_k(g):
    dims = g.dims(min_rank=1 if g.p(0.9) else 0)
    k = g.count(dims[-1] if dims else 1)
    return [g.tensor(dims=dims)], {"k": k, "sorted": g.flag()}


@spec("tf.unique")
def _unique(g):
    dims = [g.int_in(0, 12)] if g.p(0.8) else g.dims()
    kwargs = {"out_idx": g.dtype(INDEX)} if g.p(0.5) else {}
    return [g.tensor(dims=dims)], kwargs


def _matmul_operands(g):
    batch = g.dims(max_rank=2, max_dim=3)
    m, k, n = g.int_in(0, 4), g.int_in(0, 4), g.int_in(0, 4)
    flags = {f: g.p(0.2) for f in ("transpose_a", "transpose_b", "adjoint_a", "adjoint_b")}
    a_dims = [k, m] if flags["transpose_a"] or flags["adjoint_a"] else [m, k]
    b_dims = [n, k] if flags["transpose_b"] or flags["adjoint_b"] else [k, n]
    if g.bad():
        b_dims[0] += 1
    dtype = g.pick(NUMERIC)
    a = g.tensor(dtype=dtype, dims=g.broadcast_dims(batch) + a_dims)
    b = g.tensor(dtype=dtype, dims=g.broadcast_dims(batch) + b_dims)
    return a, b, flags


@spec("tf.matmul")
def _matmul(g):
    a, b, flags = _matmul_operands(g)
    return [a, b], {f: v for f, v in flags.items() if v or g.p(0.1)}


@spec("tf.linalg.matvec")
def _matvec(g):
    dtype = g.pick(NUMERIC)
    m, k = g.int_in(0, 4), g.int_in(0, 4)
    kwargs = {"transpose_a": g.p(0.2), "adjoint_a": g.p(0.2)}
    a_dims = [k, m] if kwargs["transpose_a"] or kwargs["adjoint_a"] else [m, k]
    b_dims = [k + 1] if g.bad() else [k]
    batch = g.dims(max_rank=1, max_dim=3)
    return [g.tensor(dtype=dtype, dims=batch + a_dims), g.tensor(dtype=dtype, dims=b_dims)], kwargs


# --- tf.linalg decompositions, solvers and matrix compositions (linalg helper) ---
LINALG_FLOATS = (tf.float32, tf.float64, tf.complex64, tf.complex128)


def _square(g, extra=0):
    n = g.int_in(0, 4)
    dims = g.dims(max_rank=2, max_dim=3) + [n, n + (1 if g.bad() else 0) + extra]
    return g.tensor(dtype=g.pick(LINALG_FLOATS), dims=dims)


@spec(
    "tf.linalg.cholesky", "tf.linalg.inv", "tf.linalg.det", "tf.linalg.slogdet",
    "tf.linalg.logdet", "tf.linalg.eigh", "tf.linalg.eigvalsh", "tf.linalg.eig",
    "tf.linalg.eigvals", "tf.linalg.lu", "tf.linalg.expm", "tf.linalg.trace",
    "tf.linalg.adjoint", "tf.linalg.matrix_transpose",
    "tf.linalg.pinv", "tf.linalg.matrix_rank", "tf.linalg.tensor_diag_part", "tf.linalg.logm",
)  # fmt: skip
def _linalg_square(g):
    return [_square(g)], {}


@spec("tf.linalg.qr", "tf.linalg.svd")
def _linalg_rect(g):
    dims = g.dims(max_rank=2, max_dim=3) + [g.int_in(0, 4), g.int_in(0, 4)]
    kwargs = {"full_matrices": g.p(0.5)}
    return [g.tensor(dtype=g.pick(LINALG_FLOATS), dims=dims)], kwargs


@spec(
    "tf.linalg.solve", "tf.linalg.triangular_solve", "tf.linalg.cholesky_solve",
    "tf.linalg.lstsq",
)  # fmt: skip
def _linalg_solve(g):
    dtype = g.pick(LINALG_FLOATS)
    n, k = g.int_in(0, 4), g.int_in(0, 3)
    batch = g.dims(max_rank=1, max_dim=3)
    a = g.tensor(dtype=dtype, dims=batch + [n, n])
    b = g.tensor(dtype=dtype, dims=batch + [n + (1 if g.bad() else 0), k])
    return [a, b], {}


@spec("tf.linalg.lu_solve", "tf.linalg.lu_matrix_inverse", "tf.linalg.lu_reconstruct")
def _linalg_lu_helpers(g):
    n = g.int_in(1, 4)
    dtype = g.pick((tf.float32, tf.float64))
    # A well-conditioned matrix (random arrays hold NaN and huge values): the helpers' inputs
    # are LU factors, which only an invertible matrix has.
    shift = g.int_in(0, 3)
    lu, p = tf.linalg.lu(
        tf.constant(np.roll(4 * np.eye(n) + np.tril(np.ones((n, n))), shift, 0), dtype)
    )
    return [lu, p] + ([g.tensor(dtype=dtype, dims=[n, 2])] if g.p(0.4) else []), {}


@spec("tf.linalg.band_part")
def _linalg_band_part(g):
    return [g.tensor(dims=g.dims(min_rank=2)), g.int_in(-1, 3), g.int_in(-1, 3)], {}


@spec("tf.linalg.tensor_diag")
def _linalg_diag(g):
    return [g.tensor(dims=g.dims(min_rank=1, max_rank=3))], {}


@spec("tf.linalg.cross")
def _linalg_cross(g):
    dtype = g.pick((tf.float32, tf.float64, tf.int32))
    dims = g.dims(max_rank=2, max_dim=3) + [3]
    return [g.tensor(dtype=dtype, dims=dims), g.tensor(dtype=dtype, dims=dims)], {}


@spec("tf.linalg.tridiagonal_matmul", "tf.linalg.tridiagonal_solve")
def _linalg_tridiagonal_matmul(g):
    dtype = g.pick((tf.float32, tf.float64, tf.complex64))
    m, n = g.int_in(1, 4), g.int_in(0, 3)
    diagonals = g.tensor(dtype=dtype, dims=[3, m])
    return [diagonals, g.tensor(dtype=dtype, dims=[m + (1 if g.bad() else 0), n])], {}


@spec("tf.linalg.normalize", "tf.linalg.l2_normalize")
def _linalg_normalize(g):
    return [g.tensor(dtype=g.pick((tf.float32, tf.float64)))], {}


# --- tf.linalg leftovers: banded and tridiagonal eigen solvers (linalg-leftovers helper) ---
def _diag_band(g):
    """``k`` (an int or a (lo, hi) band, sometimes reversed) and an alignment."""
    lo = g.int_in(-3, 3)
    k = lo if g.p(0.4) else (lo, lo + g.int_in(-1 if g.bad() else 0, 2))
    align = g.pick(("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"))
    return {"k": k, "align": align if not g.bad() else "UP"}


@spec("tf.linalg.diag_part")
def _linalg_diag_part(g):
    kwargs = _diag_band(g)
    if g.p(0.3):
        kwargs["padding_value"] = g.int_in(-2, 2)
    return [g.tensor(dims=g.dims(min_rank=2, max_rank=4, max_dim=4))], kwargs


@spec("tf.linalg.diag")
def _linalg_diag_k(g):
    kwargs = _diag_band(g)
    for key in ("num_rows", "num_cols"):
        if g.p(0.3):
            kwargs[key] = g.int_in(-1, 6)
    if g.p(0.3):
        kwargs["padding_value"] = g.int_in(-2, 2)
    return [g.tensor(dims=g.dims(min_rank=1, max_rank=3, max_dim=4))], kwargs


@spec("tf.linalg.set_diag")
def _linalg_set_diag(g):
    m, n = g.int_in(0, 4), g.int_in(0, 4)
    dtype = g.pick(NUMERIC)
    kwargs = _diag_band(g) if g.p(0.5) else {}
    k = kwargs.get("k", 0)
    lo, hi = (k, k) if isinstance(k, int) else k
    if not (-m < lo < n or lo == 0) or not (-m < hi < n or hi == 0) or lo > hi:
        return [g.tensor(dtype=dtype, dims=[m, n]), g.tensor(dtype=dtype, dims=[1])], kwargs
    length = max([0] + [min(m + min(0, d), n - max(0, d)) for d in range(lo, hi + 1)])
    dims = [length] if lo == hi else [hi - lo + 1, length]
    if g.bad():
        dims[-1] += 1
    return [g.tensor(dtype=dtype, dims=[m, n]), g.tensor(dtype=dtype, dims=dims)], kwargs


@spec("tf.linalg.banded_triangular_solve")
def _linalg_banded_triangular_solve(g):
    dtype = g.pick((tf.float32, tf.float64, tf.complex64, tf.float16))
    k, m = g.int_in(0, 4), g.int_in(0, 4)
    batch = g.dims(max_rank=1, max_dim=3)
    bands = g.tensor(dtype=dtype, dims=batch + [k, m])
    rhs = g.tensor(dtype=dtype, dims=batch + [m + (1 if g.bad() else 0), g.int_in(0, 3)])
    return [bands, rhs], {"lower": g.p(0.5), "adjoint": g.p(0.5)}


@spec("tf.linalg.eigh_tridiagonal")
def _linalg_eigh_tridiagonal(g):
    dtype = g.pick((tf.float32, tf.float64, tf.complex128))
    n = g.int_in(0, 5)
    alpha = g.tensor(dtype=dtype, dims=[n])
    beta = g.tensor(dtype=dtype, dims=[max(n - 1, 0)])
    kwargs = {"eigvals_only": g.p(0.5)}
    if n > 1 and g.p(0.5):
        if g.p(0.5):
            kwargs.update(select="i", select_range=[g.int_in(0, n - 1), n - 1])
        else:
            kwargs.update(select="v", select_range=[-1.0, 1.0])
    return [alpha, beta], kwargs


# --- tf.linalg.LinearOperator and its first subclasses (linear operator helper) ---
# tf.linalg.LinearOperator is abstract: calling it is TypeError by design.
NEVER_SUCCEEDS |= {"tf.linalg.LinearOperator"}
# Given a non-operator where an operator belongs (or None as a diagonal or multiplier),
# TensorFlow reads its hints, dtype or shape anyway: AttributeError, which ferroflow keeps.
EAGER_REFUSALS.update(
    {
        f"tf.linalg.LinearOperator{name}": AttributeError
        for name in (
            "Adjoint",
            "Inversion",
            "Composition",
            "BlockDiag",
            "LowRankUpdate",
            "ScaledIdentity",
            "Diag",
            "LowerTriangular",
        )
    }
)


def _linop_hints(g):
    """Random is_* hints (contradictions included: each raises ValueError)."""
    names = ("is_non_singular", "is_self_adjoint", "is_positive_definite", "is_square")
    return {name: g.pick((None, None, True, False)) for name in names if g.p(0.3)}


def _linop_tensor(g, trailing, dtype=None):
    dims = g.dims(max_rank=1, max_dim=3) + trailing
    return g.tensor(dtype=dtype or g.pick(LINALG_FLOATS), dims=dims)


def _linop(g, n=None, dtype=None):
    """A small valid operator (full, diagonal or identity) of size n: an argument of the
    operators built from operators."""
    n = g.int_in(0, 3) if n is None else n
    dtype = dtype or g.pick((tf.float32, tf.float64))
    batch = g.dims(max_rank=1, max_dim=2)
    choice = g.int_in(0, 2)
    if choice == 0:
        matrix = g.rng.standard_normal(batch + [n, n]) + 2 * np.eye(n)
        return tf.linalg.LinearOperatorFullMatrix(tf.constant(matrix, dtype))
    if choice == 1:
        return tf.linalg.LinearOperatorDiag(tf.constant(g.rng.uniform(1, 2, batch + [n]), dtype))
    return tf.linalg.LinearOperatorIdentity(n, dtype=dtype)


@spec("tf.linalg.LinearOperator")
def _linop_base(g):
    return [g.pick(LINALG_FLOATS)], _linop_hints(g)


@spec("tf.linalg.LinearOperatorFullMatrix", "tf.linalg.LinearOperatorLowerTriangular")
def _linop_matrix(g):
    n = g.int_in(0, 3)
    trailing = [n, n + (1 if g.bad() else 0)] if g.p(0.8) else [n]
    return [_linop_tensor(g, trailing)], _linop_hints(g)


@spec("tf.linalg.LinearOperatorDiag")
def _linop_diag(g):
    return [_linop_tensor(g, [g.int_in(0, 3)] if not g.bad() else [])], _linop_hints(g)


@spec("tf.linalg.LinearOperatorIdentity", "tf.linalg.LinearOperatorZeros")
def _linop_sized(g):
    kwargs = _linop_hints(g)
    if g.p(0.4):
        kwargs["batch_shape"] = g.dims(max_rank=2, max_dim=3) if not g.bad() else g.junk()
    if g.p(0.4):
        kwargs["dtype"] = g.dtype(pool=(tf.float32, tf.float64))
    kwargs["assert_proper_shapes"] = g.p(0.3)
    return [g.int_in(0, 3) if not g.bad() else g.junk()], kwargs


@spec("tf.linalg.LinearOperatorScaledIdentity")
def _linop_scaled(g):
    multiplier = _linop_tensor(g, []) if not g.bad() else g.junk()
    return [g.int_in(0, 3) if not g.bad() else g.junk(), multiplier], _linop_hints(g)


@spec("tf.linalg.LinearOperatorAdjoint", "tf.linalg.LinearOperatorInversion")
def _linop_wrapped(g):
    return [_linop(g) if not g.bad() else g.junk()], _linop_hints(g)


@spec("tf.linalg.LinearOperatorComposition", "tf.linalg.LinearOperatorBlockDiag")
def _linop_list(g):
    dtype = g.pick((tf.float32, tf.float64))
    n = g.int_in(0, 3)
    operators = [_linop(g, n=n if g.p(0.8) else None, dtype=dtype) for _ in range(g.int_in(0, 3))]
    return [operators if not g.bad() else g.junk()], _linop_hints(g)


@spec("tf.linalg.LinearOperatorLowRankUpdate")
def _linop_low_rank(g):
    dtype = g.pick((tf.float32, tf.float64))
    n, k = g.int_in(1, 3), g.int_in(1, 2)
    base = _linop(g, n=n, dtype=dtype)
    u = g.tensor(dtype=dtype, dims=[n + (1 if g.bad() else 0), k])
    kwargs = _linop_hints(g)
    if g.p(0.4):
        kwargs["diag_update"] = g.tensor(dtype=dtype, dims=[k])
    if g.p(0.3):
        kwargs["v"] = g.tensor(dtype=dtype, dims=[n, k])
    if g.p(0.3):
        kwargs["is_diag_update_positive"] = g.pick((None, True, False))
    return [base, u], kwargs


# --- tf.linalg structured operators (linalg-leftovers helper) ---
# Given junk where operators belong, or None where a tensor belongs, TensorFlow reads their
# dtype, shape or hints: AttributeError, which ferroflow keeps.
EAGER_REFUSALS.update(
    {
        f"tf.linalg.LinearOperator{name}": AttributeError
        for name in (
            "Kronecker",
            "BlockLowerTriangular",
            "Circulant",
            "Circulant2D",
            "Circulant3D",
            "Toeplitz",
            "Tridiag",
            "Householder",
            "Permutation",
        )
    }
)


@spec("tf.linalg.LinearOperatorKronecker")
def _linop_kronecker(g):
    dtype = g.pick((tf.float32, tf.float64))
    operators = [_linop(g, dtype=dtype) for _ in range(g.int_in(0, 3))]
    return [operators if not g.bad() else g.junk()], _linop_hints(g)


@spec(
    "tf.linalg.LinearOperatorCirculant",
    "tf.linalg.LinearOperatorCirculant2D",
    "tf.linalg.LinearOperatorCirculant3D",
)
def _linop_circulant(g):
    spectrum = _linop_tensor(g, g.dims(min_rank=1, max_rank=3, max_dim=3))
    kwargs = _linop_hints(g)
    if g.p(0.5):
        kwargs["input_output_dtype"] = g.pick(LINALG_FLOATS)
    return [spectrum], kwargs


@spec("tf.linalg.LinearOperatorToeplitz")
def _linop_toeplitz(g):
    n = g.int_in(0, 4)
    dtype = g.pick(LINALG_FLOATS)
    col = _linop_tensor(g, [n], dtype)
    row = _linop_tensor(g, [n + (1 if g.bad() else 0)], dtype)
    return [col, row], _linop_hints(g)


@spec("tf.linalg.LinearOperatorTridiag")
def _linop_tridiag(g):
    n = g.int_in(1, 4)
    fmt = g.pick(("compact", "matrix", "sequence"))
    dtype = g.pick((tf.float32, tf.float64))
    if fmt == "compact":
        diagonals = _linop_tensor(g, [3, n], dtype)
    elif fmt == "matrix":
        diagonals = _linop_tensor(g, [n, n], dtype)
    else:
        diagonals = [g.tensor(dtype=dtype, dims=[n]) for _ in range(3)]
    return [diagonals], dict(_linop_hints(g), diagonals_format=fmt if not g.bad() else "x")


@spec("tf.linalg.LinearOperatorHouseholder")
def _linop_householder(g):
    return [_linop_tensor(g, [g.int_in(0, 4)] if not g.bad() else [])], _linop_hints(g)


@spec("tf.linalg.LinearOperatorPermutation")
def _linop_permutation(g):
    n = g.int_in(0, 4)
    perm = g.rng.permutation(n) if not g.bad() else g.rng.integers(-1, n + 1, n)
    kwargs = _linop_hints(g)
    if g.p(0.5):
        kwargs["dtype"] = g.pick(LINALG_FLOATS)
    return [tf.constant(perm, g.pick((tf.int32, tf.int64)))], kwargs


@spec("tf.linalg.LinearOperatorBlockLowerTriangular")
def _linop_block_lower_triangular(g):
    dtype = g.pick((tf.float32, tf.float64))
    n = g.int_in(1, 3)
    rows = [[_linop(g, n=n, dtype=dtype) for _ in range(i + 1)] for i in range(g.int_in(0, 3))]
    return [rows if not g.bad() else g.junk()], _linop_hints(g)


@spec("tf.tensordot")
def _tensordot(g):
    dtype = g.pick(NUMERIC)
    n = g.int_in(0, 2)
    shared = g.dims(rank=n, max_dim=3)
    a_dims = g.dims(max_rank=2, max_dim=3) + shared
    b_dims = shared + g.dims(max_rank=2, max_dim=3)
    if g.p(0.5):
        axes = n
    else:
        ra = len(a_dims)
        axes = [list(range(ra - n, ra)), list(range(n))]
    if g.bad():
        axes = g.pick((g.bad_int(), [[0], [0, 1]], [[g.bad_int()], [0]], [0, 1, 2], "ab"))
    a, b = g.tensor(dtype=dtype, dims=a_dims), g.tensor(dtype=dtype, dims=b_dims)
    return [a, b, axes], {}


@spec("tf.einsum")
def _einsum(g):
    letters = "abcdefgh"[: g.int_in(1, 5)]
    sizes = {c: g.int_in(0, 3) for c in letters}
    subscripts = ["".join(g.pick(letters) for _ in range(g.int_in(0, 3))) for _ in range(3)]
    subscripts = subscripts[: g.int_in(1, 3)]
    used = sorted(set("".join(subscripts)))
    counts = collections.Counter("".join(subscripts))
    ellipsis = g.p(0.2)
    ell_dims = g.dims(max_rank=2, max_dim=3)
    if g.p(0.5):
        output = "".join(c for c in used if counts[c] == 1 or g.p(0.3))
        output = "".join(g.rng.permutation(list(output))) if output else ""
        equation = ",".join(subscripts) + "->" + ("..." if ellipsis else "") + output
    else:
        equation = ",".join(subscripts)
    if ellipsis:
        equation = ",".join("..." + s for s in equation.split("->")[0].split(",")) + (
            equation[equation.index("->") :] if "->" in equation else ""
        )
    dtype = g.pick(NUMERIC)
    operands = []
    for s in subscripts:
        dims = (g.broadcast_dims(ell_dims) if ellipsis else []) + [sizes[c] for c in s]
        operands.append(g.tensor(dtype=dtype, dims=dims))
    if g.bad():
        choice = g.int_in(0, 2)
        if choice == 0:
            equation = g.pick(JUNK_EQUATIONS)
        elif choice == 1:
            operands = operands[:-1] if g.p(0.5) else operands + [g.tensor()]
        else:
            equation = g.junk()
    return [equation, *operands], {}


@spec("tf.norm")
def _norm(g):
    dims = g.dims()
    ords = ("euclidean", "fro", 1, 2, math.inf, "inf", 0.5, 3)
    order = g.pick((0, -1, "nuc", math.nan, None, -math.inf, "max")) if g.bad() else g.pick(ords)
    axis = None
    if g.p(0.6) and dims:
        if g.p(0.5) or len(dims) < 2:
            axis = g.axis(len(dims))
        else:
            axis = [int(a) for a in g.rng.permutation(len(dims))[:2]]
    if g.bad():
        axis = g.axes(len(dims))
    pool = FLOATS + COMPLEX if g.p(0.8) else DTYPES
    return [g.tensor(pool, dims)], {"ord": order, "axis": axis, "keepdims": g.flag()}


@spec("tf.nn.leaky_relu")
def _leaky_relu(g):
    alpha = g.number(FLOATS) if g.p(0.5) else 0.2
    return [g.tensor()], {"alpha": alpha}


@spec("tf.nn.gelu")
def _gelu(g):
    return [g.tensor()], {"approximate": g.flag()}


# --- tf.math special functions and compositions (issue 19, tf.math family) ----------------
@spec(
    *(
        f"tf.math.special.{n}"
        for n in (
            "bessel_i0 bessel_i0e bessel_i1 bessel_i1e bessel_j0 bessel_j1 bessel_k0 bessel_k0e "
            "bessel_k1 bessel_k1e bessel_y0 bessel_y1 dawsn expint fresnel_cos fresnel_sin spence"
        ).split()
    )
)
@spec("tf.math.erfcinv", "tf.math.rint", "tf.math.softsign", "tf.nn.softsign",
      "tf.math.log_sigmoid", "tf.math.reciprocal_no_nan", "tf.math.zero_fraction",
      "tf.nn.zero_fraction", "tf.math.lbeta",
      "tf.math.softmax", "tf.math.log_softmax", "tf.math.softplus")  # fmt: skip
def _math_special_unary(g):
    return [g.tensor(pool=FLOATS if g.p(0.8) else DTYPES)], {}


@spec(
    *(
        f"tf.math.{n}"
        for n in (
            "igamma igammac zeta polygamma xlogy xlog1py xdivy nextafter multiply_no_nan"
        ).split()
    )
)
def _math_special_binary(g):
    return list(g.pair(FLOATS)), {}


@spec("tf.math.betainc")
def _math_betainc(g):
    dims = g.dims()
    pool = (tf.float32, tf.float64)
    return [g.tensor(pool, dims if g.p(0.7) else []) for _ in range(3)], {}


@spec("tf.math.bincount")
def _math_bincount(g):
    dims = g.dims(max_rank=2)
    kwargs = {"minlength": g.count(6) if g.p(0.3) else None,
              "maxlength": g.count(6) if g.p(0.3) else None,
              "binary_output": g.flag(), "axis": g.pick([None, 0, -1])}  # fmt: skip
    return [g.indices(dims, 6)], kwargs


@spec("tf.math.confusion_matrix")
def _math_confusion(g):
    dims = [g.int_in(0, 5)]
    return [g.indices(dims, 4), g.indices(dims, 4)], {"num_classes": g.pick([None, 4, 2])}


@spec("tf.math.cumulative_logsumexp")
def _math_cumulative_logsumexp(g):
    dims = g.dims(min_rank=1)
    kwargs = {"axis": g.axis(len(dims)), "exclusive": g.flag(), "reverse": g.flag()}
    return [g.tensor(FLOATS, dims)], kwargs


@spec("tf.math.in_top_k", "tf.nn.in_top_k")
def _math_in_top_k(g):
    rows, classes = g.int_in(0, 4), g.int_in(1, 5)
    return [g.indices([rows], classes), g.tensor(FLOATS, [rows, classes]), g.count(5)], {}


@spec("tf.math.polyval")
def _math_polyval(g):
    dims = g.dims()
    coeffs = [g.tensor(FLOATS[2:3], dims) for _ in range(g.int_in(0, 3))]
    return [coeffs, g.tensor(FLOATS[2:3], dims)], {}


@spec("tf.math.reduce_euclidean_norm")
def _math_euclidean_norm(g):
    dims = g.dims()
    return [g.tensor(dims=dims)], {"axis": g.axes(len(dims)), "keepdims": g.flag()}


@spec("tf.math.accumulate_n")
def _math_accumulate_n(g):
    dims = g.dims()
    return [[g.tensor(FLOATS, dims) for _ in range(g.int_in(0, 3))]], {}


@spec("tf.nn.softmax", "tf.nn.log_softmax")
def _softmax(g):
    dims = g.dims()
    axis = None if g.p(0.3) else g.axis(len(dims))
    return [g.tensor(dims=dims)], {"axis": axis}


@spec("tf.nn.softmax_cross_entropy_with_logits")
def _softmax_ce(g):
    dims = g.dims(min_rank=1)
    dtype = g.pick(FLOATS) if g.p(0.8) else g.pick(DTYPES)
    labels = g.tensor(dtype=dtype, dims=g.broadcast_dims(dims) if g.bad() else dims)
    return [], {
        "labels": labels,
        "logits": g.tensor(dtype=dtype, dims=dims),
        "axis": g.axis(len(dims)),
    }


@spec("tf.nn.sparse_softmax_cross_entropy_with_logits")
def _sparse_softmax_ce(g):
    dims = g.dims(min_rank=1)
    label_dims = dims[:-1] if not g.bad() else g.dims()
    labels = g.indices(label_dims, dims[-1])
    return [], {"labels": labels, "logits": g.tensor(FLOATS if g.p(0.8) else DTYPES, dims)}


@spec("tf.nn.sigmoid_cross_entropy_with_logits")
def _sigmoid_ce(g):
    dims = g.dims()
    dtype = g.pick(FLOATS) if g.p(0.8) else g.pick(DTYPES)
    labels = g.tensor(dtype=dtype, dims=g.broadcast_dims(dims) if g.bad() else dims)
    logits = g.tensor(dtype=dtype, dims=dims)
    if g.bad():
        labels, logits = g.pick(((None, logits), (labels, None)))
    return [], {"labels": labels, "logits": logits}


@spec("tf.nn.bias_add")
def _bias_add(g):
    dims = g.dims(min_rank=1)
    data_format = g.pick((None, "NHWC", "N...C", "NCHW", "NC..."))
    if g.bad():
        data_format = g.pick(("nhwc", "HWC", "", 3))
    channels_first = data_format in ("NCHW", "NC...") and len(dims) >= 2
    channels = dims[1] if channels_first else dims[-1]
    dtype = g.pick(NUMERIC)
    bias = g.tensor(dtype=dtype, dims=[channels + 1] if g.bad() else [channels])
    return [g.tensor(dtype=dtype, dims=dims), bias], {"data_format": data_format}


@spec("tf.nn.dropout")
def _dropout(g):
    dims = g.dims()
    rate = g.pick((0.0, 0.1, 0.5, 0.9, 0.999))
    if g.bad():
        rate = g.pick((1.0, -0.1, 1.5, math.nan, math.inf, "0.5", None, tf.constant([0.5])))
    kwargs = {"seed": g.seed()}
    if g.p(0.3):
        kwargs["noise_shape"] = g.shape([1 if g.p(0.5) else d for d in dims])
    return [g.tensor(FLOATS if g.p(0.8) else DTYPES, dims), rate], kwargs


@spec("tf.nn.moments")
def _moments(g):
    dims = g.dims(min_rank=1)
    axes = [int(a) for a in g.rng.permutation(len(dims))[: g.int_in(1, len(dims))]]
    if g.bad():
        axes = g.axes(len(dims))
    kwargs = {"keepdims": g.flag()}
    if g.p(0.1):
        kwargs["shift"] = g.number()
    return [g.tensor(dims=dims), axes], kwargs


def _window_arg(g, rank):
    """A size/stride/dilation argument: an int or a list of 1, 2 (or 4) entries."""
    if g.bad():
        return g.pick((0, -1, [1, 2, 3], [2, 1, 1, 2], "2", None, 2**40))
    pick = g.pick(("int", "one", "spatial", "full")) if rank == 4 else "int"
    values = [g.int_in(1, 3) for _ in range(2)]
    return {
        "int": values[0],
        "one": [values[0]],
        "spatial": values,
        "full": [1, *values, 1],
    }[pick]


def _window_padding(g):
    if g.bad():
        return g.pick(("same", "FULL", "", None, [[0, 0]], [[0, 0], [1, -1], [0, 0], [0, 0]]))
    if g.p(0.2):
        return [[0, 0], [g.int_in(0, 2), g.int_in(0, 2)], [g.int_in(0, 2), g.int_in(0, 2)], [0, 0]]
    return g.pick(("SAME", "VALID"))


@spec("tf.nn.conv2d", "tf.nn.convolution")
def _conv2d(g):
    dims = g.dims(rank=4 if not g.bad() else g.int_in(2, 5))
    c = dims[-1] if dims else 1
    dtype = g.pick(FLOATS + (tf.int32,)) if not g.bad() else g.pick(DTYPES)
    fdims = [g.int_in(1, 3), g.int_in(1, 3), c if not g.bad() else c + 1, g.int_in(1, 3)]
    kwargs = {"dilations": _window_arg(g, 4)} if g.p(0.3) else {}
    args = [g.tensor(dtype=dtype, dims=dims), g.tensor(dtype=dtype, dims=fdims)]
    return args + [_window_arg(g, 4), _window_padding(g)], kwargs


@spec("tf.nn.conv1d")
def _conv1d(g):
    dims = g.dims(rank=3 if not g.bad() else g.int_in(2, 4))
    c = dims[-1] if dims else 1
    dtype = g.pick(FLOATS)
    fdims = [g.int_in(1, 3), c if not g.bad() else c + 1, g.int_in(1, 3)]
    padding = g.pick(("SAME", "VALID")) if not g.bad() else g.pick(("same", [[0, 0]], None))
    args = [g.tensor(dtype=dtype, dims=dims), g.tensor(dtype=dtype, dims=fdims)]
    return args + [_window_arg(g, 3), padding], {}


@spec(*(f"tf.nn.{k}_pool{d}" for k in ("max", "avg") for d in ("", "1d", "2d")))
def _pool(g):
    rank = g.pick((3, 4)) if not g.bad() else g.int_in(1, 5)
    dims = g.dims(rank=rank)
    dtype = g.pick(FLOATS) if not g.bad() else g.pick(DTYPES)
    padding = g.pick(("SAME", "VALID")) if not g.bad() else g.pick(("same", None, [[0, 0]]))
    return [
        g.tensor(dtype=dtype, dims=dims),
        _window_arg(g, rank),
        _window_arg(g, rank),
        padding,
    ], {}


@spec("tf.image.extract_patches")
def _extract_patches(g):
    dims = g.dims(rank=4 if not g.bad() else g.int_in(2, 5))
    sizes, strides, rates = ([1, g.int_in(1, 3), g.int_in(1, 3), 1] for _ in range(3))
    if g.bad():
        sizes = _window_arg(g, 4)
    padding = g.pick(("SAME", "VALID")) if not g.bad() else g.pick(("same", None))
    return [g.tensor(dims=dims), sizes, strides, rates, padding], {}


# --- tf.image (python/ferroflow/image/) -------------------------------------------------------
# TensorFlow refuses a bool or complex image in convert_image_dtype (and what calls it), and a
# non-tensor in total_variation / image_gradients / sobel_edges, with AttributeError.
EAGER_REFUSALS.update(
    {
        f"tf.image.{n}": AttributeError
        for n in (
            "convert_image_dtype rgb_to_grayscale adjust_brightness adjust_contrast adjust_gamma "
            "adjust_hue adjust_saturation psnr ssim ssim_multiscale total_variation "
            "image_gradients sobel_edges random_brightness random_contrast random_hue "
            "random_saturation stateless_random_brightness stateless_random_contrast "
            "stateless_random_hue stateless_random_saturation"
        ).split()
    }
)


def _image(g, pool=REAL, channels=None, rank=None):
    """An image [H, W, C] or batch [N, H, W, C]; when bad, another rank or dtype."""
    rank = rank or g.pick((3, 4))
    if g.bad():
        rank = g.int_in(0, 5)
    dims = g.dims(rank=rank)
    if channels is not None and dims and not g.bad():
        dims[-1] = channels
    return g.tensor(pool, dims=dims)


def _size(g):
    if g.bad():
        return g.pick(([0, 3], [-1, 2], [2], [[2, 2]], "ab", [2**31, 2], [1.5, 2]))
    return [g.int_in(1, 7), g.int_in(1, 7)]


@spec(
    "tf.image.flip_left_right",
    "tf.image.flip_up_down",
    "tf.image.transpose",
    "tf.image.per_image_standardization",
    "tf.image.total_variation",
)
def _image_only(g):
    return [_image(g)], {}


@spec("tf.image.image_gradients", "tf.image.sobel_edges")
def _image_batch(g):
    return [_image(g, pool=FLOATS, rank=4)], {}


@spec("tf.image.rot90")
def _rot90(g):
    return [_image(g)], {"k": g.int_in(-5, 5) if not g.bad() else g.junk()}


@spec("tf.image.crop_to_bounding_box", "tf.image.pad_to_bounding_box")
def _bounding_box(g):
    offsets = [g.int_in(0, 2) if not g.bad() else g.pick((-1, 9, "a")) for _ in range(2)]
    targets = [g.int_in(1, 5) if not g.bad() else g.pick((0, -1, 99, None)) for _ in range(2)]
    return [_image(g), *offsets, *targets], {}


@spec("tf.image.resize_with_crop_or_pad")
def _crop_or_pad(g):
    return [_image(g), g.int_in(0, 6), g.int_in(0, 6)], {}


@spec("tf.image.central_crop")
def _central_crop(g):
    return [_image(g), g.pick((0.1, 0.5, 1.0, 0.0, 1.5, -1.0)) if not g.bad() else g.junk()], {}


@spec("tf.image.convert_image_dtype")
def _convert_image_dtype(g):
    return [_image(g), g.dtype(REAL)], {"saturate": g.flag()}


@spec(
    "tf.image.rgb_to_grayscale",
    "tf.image.rgb_to_hsv",
    "tf.image.hsv_to_rgb",
    "tf.image.rgb_to_yiq",
    "tf.image.yiq_to_rgb",
    "tf.image.rgb_to_yuv",
    "tf.image.yuv_to_rgb",
)
def _rgb(g):
    return [_image(g, pool=FLOATS, channels=3)], {}


@spec("tf.image.grayscale_to_rgb")
def _gray(g):
    return [_image(g, channels=1)], {}


@spec("tf.image.adjust_brightness", "tf.image.adjust_hue", "tf.image.adjust_saturation")
@spec("tf.image.adjust_contrast")
def _adjust(g):
    value = g.pick((0.0, 0.3, -0.5, 1.0, 2.0)) if not g.bad() else g.junk()
    return [_image(g, channels=3), value], {}


@spec("tf.image.adjust_gamma")
def _adjust_gamma(g):
    return [_image(g), g.pick((0.5, 1, 2.2, -1.0))], {"gain": g.pick((1, 0.5))}


@spec("tf.math.invert_permutation")
def _invert_permutation(g):
    if g.p(0.6):
        n = g.int_in(0, 6)
        perm = tf.random.shuffle(tf.range(n, dtype=g.pick((tf.int32, tf.int64))))
        return [perm], {}
    return [g.tensor(pool=DTYPES)], {}


@spec("tf.image.ssim_multiscale")
def _image_pair_multiscale(g):
    # Two scales of a 3x3 filter fit images from 6 pixels; TensorFlow's five default scales of
    # an 11x11 filter need 161.
    args, _ = _image_pair(g)
    if g.p(0.6):
        size = g.int_in(6, 12)
        dims = [g.int_in(1, 2), size, size, g.int_in(1, 3)]
        dtype = g.pick((tf.float32, tf.uint8))
        args = [g.tensor(dtype=dtype, dims=dims), g.tensor(dtype=dtype, dims=dims), 1.0]
        return args, {"power_factors": (0.5, 0.5), "filter_size": 3}
    return args, {}


@spec("tf.image.psnr", "tf.image.ssim")
def _image_pair(g):
    dims = g.dims(rank=4, max_dim=3)
    dims[1:3] = [g.int_in(1, 24), g.int_in(1, 24)]
    dtype = g.pick((tf.float32, tf.uint8))
    return [g.tensor(dtype=dtype, dims=dims), g.tensor(dtype=dtype, dims=dims), 1.0], {}


@spec("tf.image.resize")
def _resize(g):
    kwargs = {"antialias": g.flag(), "preserve_aspect_ratio": g.flag()}
    method = g.pick(tuple(m.value for m in tf.image.ResizeMethod)) if not g.bad() else g.junk()
    return [_image(g), _size(g), method], kwargs


@spec("tf.image.resize_with_pad")
def _resize_with_pad(g):
    method = g.pick(("bilinear", "nearest", "bicubic", "area"))
    return [_image(g), g.int_in(0, 7), g.int_in(0, 7), method], {"antialias": g.flag()}


def _image_seed(g):
    """A stateful op's int seed or a stateless op's pair (each kind meets both)."""
    return g.pick((None, 1, 42, (1, 2), [3, -4], (0, 0))) if not g.bad() else g.seed()


@spec("tf.image.random_flip_left_right", "tf.image.random_flip_up_down")
@spec("tf.image.stateless_random_flip_left_right", "tf.image.stateless_random_flip_up_down")
def _random_flip(g):
    return [_image(g)], {"seed": _image_seed(g)}


@spec("tf.image.random_brightness", "tf.image.random_hue")
@spec("tf.image.stateless_random_brightness", "tf.image.stateless_random_hue")
def _random_delta(g):
    delta = g.pick((0.0, 0.2, 0.5, -0.1, 0.7))
    return [_image(g, channels=3), delta], {"seed": _image_seed(g)}


@spec("tf.image.random_contrast", "tf.image.random_saturation")
@spec("tf.image.stateless_random_contrast", "tf.image.stateless_random_saturation")
def _random_factor(g):
    lower, upper = g.pick(((0.2, 1.8), (0.0, 1.0), (1.0, 0.5), (-1.0, 1.0)))
    return [_image(g, channels=3), lower, upper], {"seed": _image_seed(g)}


@spec("tf.image.random_crop", "tf.image.stateless_random_crop")
def _random_crop(g):
    dims = g.dims(rank=g.pick((3, 4)))
    image = g.tensor(REAL, dims=dims)
    size = [g.int_in(0, 4) for _ in dims] if not g.bad() else g.junk()
    return [image, size], {"seed": _image_seed(g)}


@spec("tf.image.crop_and_resize")
def _crop_and_resize(g):
    dims = g.dims(rank=4)
    image = g.tensor(REAL, dims=dims)
    n = g.int_in(0, 3)
    boxes = g.array(tf.float32, [n, 4]) if not g.bad() else g.tensor(FLOATS)
    indices = [g.int_in(0, max(dims[0] - 1, 0)) for _ in range(n)] if not g.bad() else g.junk()
    method = g.pick(("bilinear", "nearest")) if not g.bad() else g.junk()
    return [image, boxes, indices, _size(g)], {"method": method}


@spec("tf.image.draw_bounding_boxes")
def _draw_bounding_boxes(g):
    dims = g.dims(rank=4)
    dims[-1] = g.pick((1, 3, 4)) if not g.bad() else g.int_in(0, 5)
    images = g.tensor((tf.float32, tf.float16), dims=dims)
    boxes = g.array(tf.float32, [dims[0], g.int_in(0, 3), 4]) if not g.bad() else g.tensor()
    colors = g.pick((None, [[1.0, 0.0, 0.0, 1.0]], np.zeros((0, 4), np.float32)))
    return [images, boxes, colors], {}


@spec("tf.image.extract_glimpse")
def _extract_glimpse(g):
    dims = g.dims(rank=4)
    image = g.tensor(dtype=tf.float32, dims=dims)
    offsets = g.array(tf.float32, [dims[0], 2]) if not g.bad() else g.tensor(FLOATS)
    kwargs = {"centered": g.flag(), "normalized": g.flag()}
    kwargs["noise"] = g.pick(("uniform", "gaussian", "zero")) if not g.bad() else g.junk()
    return [image, _size(g), offsets], kwargs


@spec("tf.image.sample_distorted_bounding_box", "tf.image.stateless_sample_distorted_bounding_box")
def _distorted_box(g):
    size = [g.int_in(1, 40), g.int_in(1, 40), 3] if not g.bad() else g.tensor()
    boxes = np.sort(g.rng.random((1, g.int_in(0, 3), 4)).astype(np.float32), axis=-1)
    kwargs = {
        "seed": g.pick((0, 3, (1, 2), [4, -5])),
        "min_object_covered": g.pick((0.0, 0.1, 0.9, -1.0)),
        "area_range": g.pick(((0.05, 1.0), (0.5, 0.6), (0.0, 1.0))),
        "aspect_ratio_range": g.pick(((0.75, 1.33), (0.1, 10.0), (1.0,))),
        "max_attempts": g.pick((1, 20, 0)),
        "use_image_if_no_bounding_boxes": g.flag(),
    }
    return [size, boxes], kwargs


@spec("tf.image.ResizeMethod")
def _resize_method(g):
    return [g.pick(("bilinear", "nearest", "area")) if not g.bad() else g.junk()], {}


# --- tf.image non-max suppression and tf.math.sobol_sample (nms helper) ----------------------


def _nms_boxes(g, lead=()):
    """Boxes with lead dims, n boxes, and scores of the matching shape (invalid when bad)."""
    n = g.int_in(0, 12)
    boxes = g.array(tf.float32, [*lead, n, 4]) if not g.bad() else g.tensor(FLOATS)
    scores = g.array(tf.float32, [*lead, n]) if not g.bad() else g.tensor(FLOATS)
    return boxes, scores, n


@spec(
    "tf.image.non_max_suppression",
    "tf.image.non_max_suppression_with_scores",
    "tf.image.non_max_suppression_overlaps",
)
def _nms(g):
    boxes, scores, n = _nms_boxes(g)
    if g.p(0.3) and not g.bad():
        boxes = g.array(tf.float32, [n, n])
    kwargs = {"score_threshold": g.pick((float("-inf"), 0.0, 0.5, float("nan")))}
    if g.p(0.2):
        # Only non_max_suppression_with_scores takes it; the others refuse it (TypeError).
        kwargs["soft_nms_sigma"] = g.pick((0.0, 0.5, -1.0))
    return [boxes, scores, g.integer(g.int_in(-1, 15)), g.pick((0.0, 0.5, 1.0, 1.5))], kwargs


@spec("tf.image.non_max_suppression_padded")
def _nms_padded(g):
    boxes, scores, _ = _nms_boxes(g, lead=(g.int_in(1, 2),) if g.p(0.5) else ())
    kwargs = {
        "pad_to_max_output_size": g.flag(),
        "sorted_input": g.flag(),
        "canonicalized_coordinates": g.flag(),
        "tile_size": g.pick((1, 4, 512, 0)),
    }
    return [boxes, scores, g.integer(g.int_in(0, 15)), g.pick((0.0, 0.5, 1.0))], kwargs


@spec("tf.image.combined_non_max_suppression")
def _combined_nms(g):
    batch, n, classes = g.int_in(0, 2), g.int_in(0, 8), g.int_in(1, 4)
    q = g.pick((1, classes))
    boxes = g.array(tf.float32, [batch, n, q, 4]) if not g.bad() else g.tensor(FLOATS)
    scores = g.array(tf.float32, [batch, n, classes]) if not g.bad() else g.tensor(FLOATS)
    kwargs = {"pad_per_class": g.flag(), "clip_boxes": g.flag()}
    args = [boxes, scores, g.integer(g.int_in(0, 6)), g.integer(g.int_in(0, 10))]
    return args + [g.pick((0.0, 0.5, 1.0, 2.0))], kwargs


# TensorFlow's CPU build has no GenerateBoundingBoxProposals kernel: NotFoundError, always.
NEVER_SUCCEEDS |= {"tf.image.generate_bounding_box_proposals"}


@spec("tf.image.generate_bounding_box_proposals")
def _bbox_proposals(g):
    return [g.tensor(FLOATS), g.tensor(FLOATS), g.tensor(FLOATS), g.tensor(FLOATS)], {}


@spec("tf.math.sobol_sample")
def _sobol_sample(g):
    args = [g.integer(g.int_in(-1, 50)), g.integer(g.int_in(-1, 20)), g.integer(g.int_in(-1, 99))]
    return args, {"dtype": g.pick((tf.float32, tf.float64)) if not g.bad() else g.junk()}


@spec("tf.approx_top_k", "tf.math.approx_max_k", "tf.math.approx_min_k")
def _approx_top_k(g):
    dims = g.dims(min_rank=1 if g.p(0.9) else 0)
    dtype = g.pick((tf.float32, tf.float16, tf.bfloat16)) if not g.bad() else g.pick(DTYPES)
    k = g.count(dims[-1] if dims else 1) if not g.bad() else g.bad_count()
    kwargs = {"reduction_dimension": g.pick((-1, 0, 1))} if g.p(0.2) else {}
    return [g.tensor(dtype=dtype, dims=dims), k], kwargs


def _full_window(g, spatial, bad_pool):
    if g.bad():
        return g.pick(bad_pool)
    return [1, *(g.int_in(1, 3) for _ in range(spatial)), 1]


@spec("tf.conv")
def _generic_conv(g):
    spatial = g.pick((2, 3)) if not g.bad() else g.int_in(0, 4)
    dims = [g.int_in(1, 3)] + [g.int_in(1, 5) for _ in range(spatial)] + [g.int_in(1, 3)]
    dtype = g.pick(FLOATS) if not g.bad() else g.pick(DTYPES)
    fdims = [g.int_in(1, 3) for _ in range(spatial)] + [
        dims[-1] if not g.bad() else dims[-1] + 1,
        g.int_in(1, 3),
    ]
    bad = ([1, 1], [1, 0, 1, 1], "1", None, [1, 2**40, 1, 1])
    kwargs = {}
    padding = g.pick(("SAME", "VALID"))
    if g.p(0.2):
        padding = "EXPLICIT"
        kwargs["explicit_paddings"] = [
            v for _ in range(spatial + 2) for v in (g.int_in(0, 2), g.int_in(0, 2))
        ]
    if g.bad():
        padding = g.pick(("same", "FULL", None, "EXPLICIT"))
    if g.p(0.2):
        kwargs["dilations"] = _full_window(g, spatial, bad)
    if g.p(0.1):
        kwargs["groups"] = g.pick((1, 2, 0))
    if g.p(0.1):
        kwargs["data_format"] = g.pick(("CHANNELS_FIRST", "NCHW"))
    args = [g.tensor(dtype=dtype, dims=dims), g.tensor(dtype=dtype, dims=fdims)]
    return args + [_full_window(g, spatial, bad), padding], kwargs


@spec("tf.conv2d_backprop_input_v2", "tf.conv2d_backprop_filter_v2")
def _conv2d_backprops(g):
    n, h, w, c, o = (g.int_in(1, 4) for _ in range(5))
    kh, kw = g.int_in(1, min(h, 3)), g.int_in(1, min(w, 3))
    dtype = g.pick(FLOATS) if not g.bad() else g.pick(DTYPES)
    dy = [n, h - kh + 1, w - kw + 1, o] if not g.bad() else g.dims(rank=4)
    args = [
        g.tensor(dtype=dtype, dims=[n, h, w, c]),
        g.tensor(dtype=dtype, dims=[kh, kw, c, o]),
        g.tensor(dtype=dtype, dims=dy),
        [1, 1, 1, 1] if not g.bad() else g.pick(([1, 1], [1, 0, 1, 1], 2**40)),
        "VALID" if not g.bad() else g.pick(("SAME", "same", None)),
    ]
    return args, {}


@spec("tf.extract_volume_patches")
def _extract_volume_patches(g):
    dims = g.dims(rank=5 if not g.bad() else g.int_in(3, 6))
    ksizes = _full_window(g, 3, ([1, 1, 1], [2, 1, 1, 1, 1], [1, 0, 1, 1, 1], "1", None))
    strides = _full_window(g, 3, ([1, 1, 1, 1, 2], [1, -1, 1, 1, 1], 2**40))
    padding = g.pick(("SAME", "VALID")) if not g.bad() else g.pick(("same", None, "EXPLICIT"))
    return [g.tensor(dims=dims), ksizes, strides, padding], {}


@spec("tf.ragged_fill_empty_rows")
def _ragged_fill_empty_rows(g):
    nrows = g.int_in(0, 6)
    n = g.int_in(0, 8) if nrows else 0
    rowids = sorted(g.int_in(0, nrows - 1) for _ in range(n))
    dtype = g.pick((tf.float32, tf.int32, tf.float64, tf.int64))
    values = tf.cast(tf.range(len(rowids)), dtype)
    default = tf.cast(-1, dtype)
    nrows_arg = tf.constant(nrows, tf.int64)
    if g.bad():
        pick = g.int_in(0, 4)
        if pick == 0:
            rowids = g.pick(([nrows + 3], [-1], [[0]], [2**40]))
        elif pick == 1:
            values = g.tensor()
        elif pick == 2:
            nrows_arg = g.pick((-1, [2], 2**40, "2", g.junk()))
        elif pick == 3:
            default = g.junk()
        else:
            rowids = tf.constant(rowids, tf.int32)
    return [
        rowids if not isinstance(rowids, list) else tf.constant(rowids, tf.int64),
        values,
        nrows_arg,
        default,
    ], {}


@spec("tf.ragged_fill_empty_rows_grad")
def _ragged_fill_empty_rows_grad(g):
    size = g.int_in(0, 8)
    grads = tf.range(float(size))
    index = [g.int_in(0, size - 1) for _ in range(g.int_in(0, size))] if size else []
    if g.bad():
        index, grads = g.pick(([size + 2], [-1], [[0]], [2**40], index)), g.tensor()
    return [tf.constant(index, tf.int64), grads], {}


@spec("tf.matrix_square_root")
def _matrix_square_root(g):
    n = g.int_in(0, 4)
    dims = [*([g.int_in(1, 3)] if g.p(0.3) else []), n, n if not g.bad() else n + 1]
    dtype = g.pick(FLOATS + COMPLEX) if not g.bad() else g.pick(DTYPES)
    return [g.tensor(dtype=dtype, dims=dims if not g.bad() else g.dims())], {}


@spec("tf.nondifferentiable_batch_function")
def _nondifferentiable_batch_function(g):
    if g.bad():
        return [g.junk(), g.junk(), g.junk()], {}
    return [g.int_in(1, 3), g.int_in(1, 8), g.int_in(0, 100)], {}


@spec("tf.check_pinned")
def _check_pinned(g):
    return [g.tensor() if not g.bad() else g.junk()], {}


def _depthwise_strides(g):
    """The native op's list of 4 strides; when bad, an int, the wrong length or a batch stride."""
    if g.bad():
        return g.pick((1, [1, 2], [2, 1, 1, 1], [1, 1, 1, 2], [1, 0, 1, 1], [1, 2**40, 1, 1], "1"))
    return [1, g.int_in(1, 3), g.int_in(1, 3), 1]


def _depthwise_args(g):
    """(args, kwargs, dtype, filter dims) of a depthwise convolution."""
    dims = g.dims(rank=4 if not g.bad() else g.int_in(2, 5))
    c = dims[-1] if dims else 1
    dtype = g.pick(FLOATS) if not g.bad() else g.pick(DTYPES)
    fdims = [g.int_in(1, 3), g.int_in(1, 3), c if not g.bad() else c + 1, g.int_in(1, 3)]
    kwargs = {}
    if g.p(0.3):
        good = [g.int_in(1, 3), g.int_in(1, 3)]
        kwargs["dilations"] = good if not g.bad() else g.pick((2, [0, 1], [1, 1, 1, 1], [2**40, 1]))
    args = [g.tensor(dtype=dtype, dims=dims), g.tensor(dtype=dtype, dims=fdims)]
    return args + [_depthwise_strides(g), _window_padding(g)], kwargs, dtype, fdims


@spec("tf.nn.depthwise_conv2d")
def _depthwise_conv2d(g):
    args, kwargs, _, _ = _depthwise_args(g)
    return args, kwargs


@spec("tf.nn.separable_conv2d")
def _separable_conv2d(g):
    (x, depthwise, strides, padding), kwargs, dtype, fdims = _depthwise_args(g)
    pdims = [1, 1, fdims[2] * fdims[3], g.int_in(1, 3)] if not g.bad() else g.dims()
    pointwise = g.tensor(dtype=dtype, dims=pdims)
    return [x, depthwise, pointwise, strides, padding], kwargs


@spec("tf.nn.batch_normalization")
def _batch_normalization(g):
    dims = g.dims(min_rank=1)
    stats = [dims[-1]] if not g.bad() else g.dims()
    dtype = g.pick(FLOATS) if not g.bad() else g.pick(DTYPES)
    offset = g.tensor(dtype=dtype, dims=stats) if g.p(0.7) else None
    scale = g.tensor(dtype=dtype, dims=stats) if g.p(0.7) else None
    epsilon = g.pick((0.001, 0.0, 1e-5)) if not g.bad() else g.pick(("abc", None, [1.0, 2.0]))
    stat = [g.tensor(dtype=dtype, dims=stats) for _ in range(2)]
    return [g.tensor(dtype=dtype, dims=dims), *stat, offset, scale, epsilon], {}


@spec("tf.compat.v1.nn.fused_batch_norm")
def _fused_batch_norm(g):
    data_format = g.pick(("NHWC", "NCHW", "NDHWC", "NCDHW"))
    if g.bad():
        data_format = g.pick(("nhwc", "", "NCWH", None, 3))
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    dims = g.dims(rank=rank if not g.bad() else g.int_in(1, 5))
    first = data_format in ("NCHW", "NCDHW") and len(dims) > 1
    c = dims[1] if first else (dims[-1] if dims else 1)
    x_dtype = g.pick((tf.float16, tf.bfloat16, tf.float32)) if not g.bad() else g.pick(DTYPES)
    stats_dtype = tf.float32 if not g.bad() else g.pick(FLOATS)
    stats = [c] if not g.bad() else g.pick(([c + 1], [], [1, c]))
    training = g.flag()
    kwargs = {"data_format": data_format, "is_training": training}
    if g.p(0.5):
        kwargs["epsilon"] = g.pick((0.001, 1e-5, 0.0))
    if g.p(0.3):
        kwargs["exponential_avg_factor"] = g.pick((0.0, 0.5, 1.0))
    args = [g.tensor(dtype=x_dtype, dims=dims)]
    args += [g.tensor(dtype=stats_dtype, dims=stats) for _ in range(2)]
    if g.p(0.6) or training is not True:
        args += [g.tensor(dtype=stats_dtype, dims=stats) for _ in range(2)]
    return args, kwargs


@spec("tf.random.uniform")
def _uniform(g):
    dtype = g.dtype(REAL) if g.p(0.7) else tf.float32
    kwargs = {"dtype": dtype, "seed": g.seed()}
    if g.p(0.6):
        kwargs["minval"] = g.number(REAL) if g.p(0.5) else g.int_in(-5, 0)
    if g.p(0.7):
        kwargs["maxval"] = g.number(REAL) if g.p(0.5) else g.int_in(1, 9)
    return [g.shape()], kwargs


@spec("tf.random.normal", "tf.random.truncated_normal")
def _normal(g):
    kwargs = {"dtype": g.dtype(FLOATS) if g.p(0.7) else tf.float32, "seed": g.seed()}
    if g.p(0.5):
        kwargs["mean"] = g.number(REAL)
    if g.p(0.5):
        kwargs["stddev"] = g.number(REAL) if g.p(0.5) else g.pick((0.0, -1.0, 1e-30, 1e30))
    return [g.shape()], kwargs


@spec("tf.random.shuffle")
def _shuffle(g):
    return [g.tensor()], {"seed": g.seed()}


@spec("tf.random.set_seed")
def _set_seed(g):
    return [g.seed()], {}


def _stateless_seed(g):
    """A seed pair (int32/int64 [2]); when bad, any tensor or junk."""
    if g.bad():
        return g.tensor()
    values = np.array([g.int_in(-(2**31), 2**31 - 1), g.int_in(-5, 5)])
    return g.like(values.astype(g.pick((np.int32, np.int64))))


def _alg(g):
    if g.bad():
        return g.pick((2, "threefry", 7, "foo", None, 1.5, tf.random.Algorithm.THREEFRY))
    return g.pick(("auto_select", "philox", 1, 3, tf.random.Algorithm.PHILOX))


@spec("tf.random.stateless_uniform")
def _stateless_uniform(g):
    dtype = g.dtype((tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64))
    kwargs = {"dtype": dtype, "alg": _alg(g)}
    if g.p(0.3):
        kwargs["minval"], kwargs["maxval"] = None, None
        kwargs["dtype"] = g.dtype((tf.int32, tf.int64, tf.uint32, tf.uint64))
    else:
        if g.p(0.7):
            kwargs["minval"] = g.number(REAL) if g.p(0.5) else g.int_in(-5, 0)
        if g.p(0.8):
            kwargs["maxval"] = g.number(REAL) if g.p(0.5) else g.int_in(1, 9)
    return [g.shape(), _stateless_seed(g)], kwargs


@spec("tf.random.stateless_normal", "tf.random.stateless_truncated_normal")
def _stateless_normal(g):
    kwargs = {"dtype": g.dtype(FLOATS), "alg": _alg(g)}
    if g.p(0.5):
        kwargs["mean"] = g.number(REAL)
    if g.p(0.5):
        kwargs["stddev"] = g.number(REAL) if g.p(0.5) else g.pick((0.0, -1.0, 1e-30, 1e30))
    return [g.shape(), _stateless_seed(g)], kwargs


def _logits(g):
    dims = g.dims(rank=2) if not g.bad() else g.dims()
    return g.tensor(pool=FLOATS, dims=dims)


@spec("tf.random.stateless_categorical")
def _stateless_categorical(g):
    kwargs = {"dtype": g.dtype(INDEX)} if g.p(0.5) else {}
    return [_logits(g), g.count(high=20), _stateless_seed(g)], kwargs


@spec("tf.random.categorical")
def _categorical(g):
    kwargs = {"dtype": g.dtype(INDEX)} if g.p(0.5) else {}
    return [_logits(g), g.count(high=20)], {**kwargs, "seed": g.seed()}


def _params_and_shape(g, pool):
    """Parameters of a sampler and an output shape that ends with theirs (not always, when
    bad)."""
    dims = g.dims(max_rank=2)
    lead = g.dims(max_rank=2)
    shape = g.shape(lead + dims) if not g.bad() else g.shape()
    return g.tensor(pool=pool, dims=dims), shape


@spec("tf.random.stateless_binomial")
def _stateless_binomial(g):
    dtype = g.pick((tf.float16, tf.float32, tf.float64))
    counts, shape = _params_and_shape(g, (dtype,))
    probs = g.tensor(dtype=dtype, dims=[]) if g.p(0.5) else g.number((dtype,))
    kwargs = {"output_dtype": g.dtype((tf.int32, tf.int64, *FLOATS))} if g.p(0.5) else {}
    return [shape, _stateless_seed(g), counts, probs], kwargs


@spec("tf.random.stateless_poisson")
def _stateless_poisson(g):
    lam, shape = _params_and_shape(g, (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64))
    kwargs = {"dtype": g.dtype((tf.int32, tf.int64, tf.float16, tf.float32, tf.float64))}
    return [shape, _stateless_seed(g), lam], kwargs


@spec("tf.random.poisson")
def _poisson(g):
    lam = g.tensor(pool=(tf.float32, tf.float64, tf.int32), dims=g.dims(max_rank=2))
    kwargs = {"dtype": g.dtype((tf.int32, tf.int64, tf.float16, tf.float32, tf.float64))}
    return [g.shape(g.dims(max_rank=2)), lam], {**kwargs, "seed": g.seed()}


@spec("tf.random.stateless_gamma")
def _stateless_gamma(g):
    dtype = g.pick((tf.float16, tf.float32, tf.float64))
    alpha, shape = _params_and_shape(g, (dtype,))
    kwargs = {"dtype": g.dtype((dtype,))}
    if g.p(0.5):
        kwargs["beta"] = g.number((dtype,))
    return [shape, _stateless_seed(g), alpha], kwargs


@spec("tf.random.gamma")
def _gamma(g):
    dtype = g.pick((tf.float16, tf.float32, tf.float64))
    alpha = g.tensor(pool=(dtype,), dims=g.dims(max_rank=2))
    kwargs = {"dtype": g.dtype((dtype,)), "seed": g.seed()}
    if g.p(0.5):
        kwargs["beta"] = g.number((dtype,))
    return [g.shape(g.dims(max_rank=2)), alpha], kwargs


@spec("tf.random.split")
def _split(g):
    return [_stateless_seed(g)], {"num": g.count(high=6), "alg": _alg(g)}


@spec("tf.random.fold_in")
def _fold_in(g):
    return [_stateless_seed(g), g.number(INDEX) if not g.bad() else g.junk()], {"alg": _alg(g)}


def _rng_state(g):
    if g.bad():
        return g.tensor()
    return g.like(np.array([g.int_in(-(2**63), 2**63 - 1) for _ in range(3)], dtype=np.int64))


@spec("tf.random.Generator")
def _generator(g):
    return [], {"state": _rng_state(g), "alg": _alg(g)}


@spec("tf.random.create_rng_state")
def _create_rng_state(g):
    seed = g.pick((0, 1, -1, 2**64 + 3, 2**200, [1, 2], [1, 2, 3, 4])) if not g.bad() else g.junk()
    return [seed, _alg(g)], {}


@spec("tf.random.Algorithm")
def _algorithm(g):
    return [g.pick((1, 2, 3)) if not g.bad() else g.junk()], {}


@spec("tf.random.get_global_generator")
def _get_global_generator(g):
    return [], {}


@spec("tf.random.set_global_generator")
def _set_global_generator(g):
    return [tf.random.Generator.from_seed(g.int_in(0, 2**40))], {}


@spec("tf.as_dtype")
def _as_dtype(g):
    value = g.dtype()
    if g.p(0.3):
        value = g.pick((1, 2, 3, 14, 19, 23, np.dtype("float64"), float, int, bool, complex))
    return [value], {}


@spec("tf.TensorShape")
def _tensor_shape(g):
    if g.p(0.3):
        return [g.pick((None, [None], [None, 3], 5, (), tf.TensorShape([2])))], {}
    return [g.shape()], {}


@spec("tf.Variable")
def _variable(g):
    kwargs = {}
    if g.p(0.3):
        kwargs["dtype"] = g.pick(DTYPES) if not g.bad() else g.junk()
    if g.p(0.3):
        kwargs["shape"] = (
            g.pick((None, tf.TensorShape(None), [None], [2, 3])) if not g.bad() else g.junk()
        )
    if g.p(0.2):
        kwargs["trainable"] = g.pick((True, False, None))
    if g.p(0.2):
        kwargs["name"] = g.pick(("w", "", "a/b")) if not g.bad() else g.junk()
    if g.p(0.2):
        kwargs["synchronization"] = g.pick((0, 1, 2, 3)) if not g.bad() else g.junk()
    value = g.junk() if g.bad() else g.tensor()
    return [value], kwargs


@spec("tf.IndexedSlices")
def _indexed_slices(g):
    # Consistent slices (one index per row of values) most of the time: reading inconsistent
    # ones through (nest.flatten with expand_composites) is ValueError, as in TensorFlow.
    values = g.tensor()
    rows = list(np.shape(values))[:1] if isinstance(values, (tf.Tensor, np.ndarray)) else []
    rows = rows or [1]
    if g.bad():
        indices = g.pick((g.junk(), g.tensor(pool=(tf.int32, tf.int64))))
    else:
        indices = g.tensor(pool=(tf.int32, tf.int64), dims=rows)
    return [values, indices], {}


@spec("tf.GradientTape")
def _gradient_tape(g):
    return [], {"persistent": g.pick((True, False)), "watch_accessed_variables": g.pick((True, 0))}


@spec("tf.autodiff.ForwardAccumulator")
def _forward_accumulator(g):
    dtype, dims = g.pick(DTYPES), g.dims()
    primal = tf.constant(g.array(dtype, dims))
    if g.bad():
        # Primals are tensors: for anything else TensorFlow raises AttributeError (no .dtype).
        return [g.pick((primal, [primal, primal], {"a": primal})), g.junk()], {}
    return [primal, g.tensor(dtype=dtype, dims=dims)], {}


@spec(
    "tf.debugging.enable_check_numerics",
    "tf.debugging.disable_check_numerics",
    "tf.debugging.enable_traceback_filtering",
    "tf.debugging.disable_traceback_filtering",
    "tf.debugging.is_traceback_filtering_enabled",
)
def _debugging_switches(g):
    return [g.junk() for _ in range(g.int_in(0, 1))] if g.bad() else [], {}


@spec("tf.dynamic_partition")
def _dynamic_partition(g):
    dims = g.dims(min_rank=1, max_rank=3)
    k = g.int_in(1, len(dims))
    num = g.int_in(1, 3)
    parts = g.rng.integers(0, num + (1 if g.bad() else 0), size=dims[:k])
    return [g.tensor(dims=dims), parts, num if not g.bad() else g.pick((0, -1, 1.5, None))], {}


@spec("tf.dynamic_stitch")
def _dynamic_stitch(g):
    dtype = g.pick(NUMERIC)
    n = g.int_in(1, 3)
    indices = [g.rng.integers(0, 6, size=g.int_in(0, 3)) for _ in range(n)]
    inner = [g.int_in(0, 2)] if g.p(0.3) else []
    data = [tf.constant(g.array(dtype, [len(i), *inner])) for i in indices]
    if g.bad():
        data = data[:-1] if g.p(0.5) else [g.junk(), *data[1:]]
    return [[list(map(int, i)) for i in indices], data], {}


@spec("tf.tensor_scatter_nd_min", "tf.tensor_scatter_nd_max")
def _tensor_scatter_extreme(g):
    dims = g.dims(min_rank=1, max_rank=3)
    dtype = g.pick(REAL)
    depth = g.int_in(1, len(dims))
    n = g.int_in(0, 4)
    indices = g.indices([n, depth], min(dims[:depth]) if all(dims[:depth]) else 1)
    updates = g.tensor(pool=(dtype,), dims=[n, *dims[depth:]])
    return [tf.constant(g.array(dtype, dims)), indices, updates], {}


@spec("tf.space_to_batch_nd", "tf.space_to_batch")
def _space_to_batch(g):
    m = g.int_in(1, 2)
    block = [g.int_in(1, 3) for _ in range(m)]
    pads = [[g.int_in(0, 2), g.int_in(0, 2)] for _ in range(m)]
    dims = [g.int_in(1, 2)] + [b * g.int_in(1, 2) for b in block] + [g.int_in(1, 2)]
    if not g.bad():
        dims = (
            [dims[0]]
            + [d - p[0] - p[1] if d > p[0] + p[1] else d for d, p in zip(dims[1:], pads)]
            + dims[m + 1 :]
        )
    return [g.tensor(dims=dims), block if not g.bad() else g.junk(), pads], {}


@spec("tf.batch_to_space")
def _batch_to_space(g):
    m = g.int_in(1, 2)
    block = [g.int_in(1, 3) for _ in range(m)]
    batch = int(np.prod(block)) * g.int_in(1, 2) + (1 if g.bad() else 0)
    dims = [batch] + [g.int_in(1, 3) for _ in range(m)] + [g.int_in(1, 2)]
    crops = [[g.int_in(0, 1), g.int_in(0, 1)] for _ in range(m)]
    return [g.tensor(dims=dims), block, crops], {}


@spec("tf.required_space_to_batch_paddings")
def _required_paddings(g):
    m = g.int_in(1, 3)
    shape = [g.int_in(0, 9) for _ in range(m)]
    block = [g.int_in(1, 4) for _ in range(m)]
    base = [[g.int_in(0, 2), g.int_in(0, 2)] for _ in range(m)] if g.p(0.5) else None
    return [shape, block if not g.bad() else g.junk(), base], {}


@spec("tf.histogram_fixed_width_bins")
def _histogram_bins(g):
    dtype = g.pick(FLOATS)
    rng = [float(g.int_in(-3, 0)), float(g.int_in(1, 4))]
    return [g.tensor(pool=(dtype,)), rng if not g.bad() else g.junk()], {"nbins": g.count(6, 1)}


@spec("tf.parallel_stack", "tf.vectorized_map")
def _stack_like(g):
    x = g.tensor(dims=g.dims(min_rank=1))
    if g.p(0.5):
        return [[x, x]], {}
    return [lambda t: t, x if not g.bad() else g.junk()], {}


@spec("tf.case")
def _case(g):
    branch = lambda: g.tensor()  # noqa: E731
    pairs = [(g.pick((True, False, tf.constant(True), tf.constant(False))), branch)]
    default = g.pick((None, branch))
    return [pairs if not g.bad() else g.pick(([], 3, "x", [3]))], {"default": default}


@spec("tf.bitcast")
def _bitcast(g):
    return [g.tensor(), g.dtype()], {}


@spec("tf.random_index_shuffle")
def _random_index_shuffle(g):
    dtype = g.pick((tf.int32, tf.int64, tf.uint32, tf.uint64))
    if g.bad():
        dtype = g.pick((tf.float32, tf.int8, tf.int16))
    n = g.int_in(0, 4)
    index = tf.constant(g.rng.integers(0, 50, size=n), dtype)
    seed = g.rng.integers(0, 2**31, size=3) if not g.bad() else g.junk()
    kwargs = {"rounds": g.pick((4, 6, 8, 3, 0))} if g.p(0.3) else {}
    return [index, seed, tf.constant(g.int_in(0, 80), dtype)], kwargs


@spec("tf.edit_distance")
def _edit_distance(g):
    dtype = g.pick((tf.int32, tf.int64))
    a = _sparse_tensor(g, pool=(dtype,), min_rank=2, max_rank=3)
    b = _sparse_tensor(g, pool=(dtype,), min_rank=2, max_rank=3)
    return [a if not g.bad() else g.junk(), b], {"normalize": g.flag()}


@spec("tf.guarantee_const", "tf.is_symbolic_tensor", "tf.make_tensor_proto")
def _one_tensor(g):
    return [g.tensor()], {}


@spec("tf.make_ndarray")
def _make_ndarray(g):
    return [
        tf.make_tensor_proto(g.array(g.pick(NUMERIC), g.dims())) if not g.bad() else g.junk()
    ], {}


@spec(
    "tf.get_current_name_scope", "tf.get_logger", "tf.timestamp", "tf.init_scope",
    "tf.Graph", "tf.import_graph_def",
)  # fmt: skip
def _no_arguments(g):
    return [g.junk()] if g.bad() else [], {}


@spec("tf.control_dependencies", "tf.variable_creator_scope", "tf.CriticalSection")
def _context_arguments(g):
    return [g.pick((None, [tf.constant(1)], lambda *a, **k: None)) if not g.bad() else g.junk()], {}


@spec("tf.DeviceSpec")
def _device_spec(g):
    kwargs = {"job": g.pick((None, "w")), "device_type": g.pick((None, "CPU", "gpu"))}
    kwargs["device_index"] = g.pick((None, 0, 3)) if not g.bad() else g.junk()
    return [], kwargs


@spec("tf.Operation")
def _operation(g):
    return ["op", "Add", [], []] if not g.bad() else [g.junk()], {}


@spec("tf.load_library", "tf.load_op_library")
def _load_library(g):
    return [g.pick(("/nonexistent/lib.so", "")) if not g.bad() else g.junk()], {}


@spec("tf.py_function", "tf.numpy_function")
def _python_function(g):
    x = g.tensor()
    fn = g.pick((lambda a: a, lambda a: a * 2)) if not g.bad() else g.junk()
    return [fn, [x], x.dtype if isinstance(x, tf.Tensor) else tf.float32], {}


class _FuzzConvertible:
    def __init__(self, value):
        self.value = value


@spec("tf.register_tensor_conversion_function")
def _register_conversion(g):
    convert = lambda v, dtype=None, name=None, as_ref=False: tf.constant(1.0)  # noqa: E731
    base = _FuzzConvertible if not g.bad() else g.pick((int, np.ndarray, "x", g.junk()))
    return [base, convert if not g.bad() or g.p(0.5) else g.junk()], {}


@spec(
    "tf.zeros_initializer", "tf.ones_initializer", "tf.constant_initializer",
    "tf.random_normal_initializer", "tf.random_uniform_initializer",
)  # fmt: skip
def _initializer_classes(g):
    return [g.junk()] if g.bad() else [], {}


_FRESH_OP_NAMES = [0]


@spec("tf.RegisterGradient", "tf.no_gradient")
def _gradient_registry(g):
    if g.bad():
        # No strings: a name registered twice raises TensorFlow's KeyError.
        return [g.pick([j for j in JUNK if not isinstance(j, (str, bytes))])], {}
    _FRESH_OP_NAMES[0] += 1
    return [f"FuzzUserOp{os.getpid()}x{_FRESH_OP_NAMES[0]}"], {}


@spec("tf.gradients", "tf.hessians")
def _graph_gradients(g):
    x = g.tensor()
    return [g.junk() if g.bad() else x, x], {}


@spec("tf.grad_pass_through", "tf.recompute_grad")
def _gradient_wrappers(g):
    fns = (tf.round, lambda x: x * 2.0, lambda x, y: (x, y))
    return [g.pick(fns) if not g.bad() else g.junk()], {}


@spec("tf.AggregationMethod")
def _aggregation_method(g):
    return [g.junk() for _ in range(g.int_in(0, 2))], {}


@spec("tf.UnconnectedGradients", "tf.VariableAggregation", "tf.VariableSynchronization")
def _enums(g):
    return [g.pick(("none", "zero", 0, 1, 2, 3)) if not g.bad() else g.junk()], {}


@spec("tf.custom_gradient")
def _custom_gradient(g):
    return [g.pick((None, lambda x: (x, lambda dy: dy))) if not g.bad() else g.junk()], {}


@spec("tf.function", "tf.Function")
def _function(g):
    fns = (lambda x: x * 2, lambda x: tf.reduce_sum(x), lambda x: tf.cond(x is None, int, int))
    fn = g.pick(fns) if not g.bad() else g.junk()
    kwargs = {}
    if g.p(0.3):
        kwargs["input_signature"] = (
            [tf.TensorSpec([None], g.pick(DTYPES))] if not g.bad() else g.junk()
        )
    return [fn], kwargs


@spec("tf.ConcreteFunction")
def _concrete_function(g):
    return [g.junk() for _ in range(g.int_in(0, 6))], {}


@spec("tf.TensorSpec")
def _tensor_spec(g):
    shape = g.pick(([], [None], [2, None], None)) if not g.bad() else g.junk()
    return [shape, g.pick(DTYPES) if not g.bad() else g.junk()], {}


def _sparse_tensor(g, pool=NUMERIC, dims=None, min_rank=1, max_rank=3, max_nnz=6):
    """A SparseTensor in canonical order (when bad: unordered, repeated or out of bounds)."""
    if dims is None:
        dims = g.dims(min_rank=min_rank, max_rank=max_rank)
    size = int(np.prod(dims, dtype=np.int64))
    n = g.int_in(0, min(size, max_nnz))
    flat = np.sort(g.rng.choice(size, n, replace=False)) if n else np.zeros([0], np.int64)
    indices = np.array(np.unravel_index(flat, dims), dtype=np.int64).T.reshape(n, len(dims))
    if g.bad() and n:
        choice = g.int_in(0, 2)
        if choice == 0:
            indices = indices[::-1].copy()
        elif choice == 1:
            indices = np.concatenate([indices, indices[:1]])
            n += 1
        else:
            indices[g.int_in(0, n - 1), g.int_in(0, len(dims) - 1)] = g.pick((-1, 99))
    values = g.array(g.pick(pool), [n])
    return tf.SparseTensor(indices, values, dims)


def _sparse_or_junk(g, **kwargs):
    return g.junk() if g.bad() and g.p(0.3) else _sparse_tensor(g, **kwargs)


@spec("tf.SparseTensor")
def _sparse_tensor_ctor(g):
    sp = _sparse_tensor(g)
    indices = g.junk() if g.bad() else sp.indices
    return [indices, g.tensor() if g.bad() else sp.values, g.shape(sp.shape.as_list())], {}


@spec("tf.SparseTensorSpec")
def _sparse_tensor_spec(g):
    shape = g.pick(([], [None], [2, None], None)) if not g.bad() else g.junk()
    return [shape, g.dtype()], {}


@spec("tf.IndexedSlicesSpec")
def _indexed_slices_spec(g):
    kwargs = {"dtype": g.dtype(), "indices_dtype": g.dtype(INDEX)}
    if g.p(0.5):
        kwargs["dense_shape_dtype"] = g.dtype(INDEX)
    if g.p(0.5):
        kwargs["indices_shape"] = g.pick(([None], [3], None)) if not g.bad() else g.junk()
    return [g.pick(([None, 2], [4, 3], None)) if not g.bad() else g.junk()], kwargs


@spec("tf.TypeSpec", "tf.NoneTensorSpec")
def _type_spec_classes(g):
    return [g.junk() for _ in range(g.int_in(0, 1))] if g.bad() else [], {}


@spec("tf.OptionalSpec")
def _optional_spec(g):
    if g.bad():
        return [g.junk()], {}
    return [g.pick((tf.TensorSpec([None], g.pick(REAL)), tf.TensorSpec([], tf.int32), None))], {}


@spec("tf.experimental.dlpack.to_dlpack")
def _to_dlpack(g):
    return [g.junk() if g.bad() else g.tensor()], {}


@spec("tf.experimental.dlpack.from_dlpack")
def _from_dlpack(g):
    if g.bad():
        return [g.junk()], {}
    dtype = g.pick(DTYPES)
    source = g.array(dtype, g.dims())
    capsule = tf.experimental.dlpack.to_dlpack(tf.constant(source, dtype))
    if dtype == tf.bfloat16:  # numpy cannot export bfloat16 (ml_dtypes) through DLPack
        return [capsule], {}
    # Capsules of tensors and of numpy arrays, and numpy arrays (possibly strided) as producers;
    # arrays at an address not aligned for their elements (imported by copy, others shared).
    array = np.asarray(source)
    strided = array[::2] if array.ndim else array
    choices = [capsule, array.__dlpack__(), array, strided]
    if array.dtype.kind in "biufc" and array.size:
        raw = np.frombuffer(bytearray(b"\x00" + array.tobytes()), np.uint8)[1:]
        choices.append(raw.view(array.dtype).reshape(array.shape))
    return [g.pick(choices)], {}


@spec("tf.type_spec_from_value")
def _type_spec_from_value(g):
    choice = g.int_in(0, 2)
    if choice == 0:
        return [_sparse_tensor(g)], {}
    if choice == 1:
        return [[g.tensor(dims=[2]), g.tensor(dims=[2])]], {}
    return [g.junk() if g.bad() else g.tensor()], {}


@spec("tf.sparse.add", "tf.sparse.maximum", "tf.sparse.minimum")
def _sparse_binary(g):
    dims = g.dims(min_rank=1, max_rank=3)
    dtype = g.pick(REAL)
    a = _sparse_tensor(g, pool=(dtype,), dims=dims)
    b = _sparse_tensor(g, pool=(dtype,), dims=dims if not g.bad() else g.dims(min_rank=1))
    if g.p(0.3):
        b = tf.constant(g.array(dtype, dims)) if not g.bad() else g.tensor()
    return [a, b] if g.p(0.7) else [b, a], {}


@spec("tf.sparse.bincount")
def _sparse_bincount(g):
    if g.p(0.4):
        values = _sparse_tensor(g, pool=(tf.int32, tf.int64), max_rank=2)
    else:
        values = g.tensor(pool=(tf.int32, tf.int64), dims=g.dims(min_rank=1, max_rank=2))
    kwargs = {"axis": g.pick((0, -1, None)) if not g.bad() else g.junk()}
    if g.p(0.3):
        kwargs["minlength"] = g.int_in(0, 8)
    if g.p(0.3):
        kwargs["maxlength"] = g.int_in(0, 8)
    if g.p(0.3):
        kwargs["binary_output"] = g.flag()
    return [values], kwargs


@spec("tf.sparse.concat")
def _sparse_concat(g):
    dims = g.dims(min_rank=1, max_rank=3)
    axis = g.axis(len(dims))
    parts = []
    for _ in range(g.int_in(1, 3)):
        part = list(dims)
        part[int(axis) % len(dims) if isinstance(axis, int) else 0] = g.int_in(0, 4)
        parts.append(_sparse_tensor(g, dims=part if not g.bad() else g.dims(min_rank=1)))
    return [axis, parts], {"expand_nonconcat_dims": g.flag()}


@spec("tf.sparse.cross", "tf.sparse.cross_hashed")
def _sparse_cross(g):
    batch = g.int_in(1, 3)
    inputs = []
    for _ in range(g.int_in(0, 3)):
        if g.p(0.5):
            inputs.append(_sparse_tensor(g, pool=(tf.int32, tf.int64), dims=[batch, 3]))
        else:
            width = g.int_in(0, 3)
            inputs.append(tf.constant(g.array(g.pick((tf.int32, tf.int64)), [batch, width])))
    if g.bad():
        inputs.append(g.tensor())
    return [inputs], {"num_buckets": g.int_in(0, 10)} if g.p(0.5) else {}


@spec("tf.sparse.expand_dims")
def _sparse_expand_dims(g):
    sp = _sparse_tensor(g)
    return [sp, g.axis(sp.shape.rank, extra=1)], {}


@spec("tf.sparse.eye")
def _sparse_eye(g):
    kwargs = {"dtype": g.dtype(REAL)} if g.p(0.5) else {}
    return [g.count(), g.count() if g.p(0.5) else None], kwargs


@spec("tf.sparse.fill_empty_rows")
def _sparse_fill_empty_rows(g):
    dtype = g.pick(REAL)
    return [_sparse_or_junk(g, pool=(dtype,)), g.number((dtype,))], {}


@spec("tf.sparse.from_dense")
def _sparse_from_dense(g):
    return [g.tensor(dims=g.dims(max_rank=3))], {}


@spec("tf.sparse.map_values")
def _sparse_map_values(g):
    sp = _sparse_tensor(g, pool=REAL)
    op = g.pick((tf.abs, tf.negative, tf.math.square)) if not g.bad() else g.junk()
    return [op, sp], {}


@spec("tf.sparse.mask")
def _sparse_mask(g):
    n = g.int_in(0, 4)
    slices = tf.IndexedSlices(
        tf.constant(g.array(g.pick(REAL), [n, 2])), tf.constant(g.array(tf.int64, [n]))
    )
    return [slices, g.tensor(pool=(tf.int64,), dims=[g.int_in(0, 3)])], {}


@spec("tf.sparse.reduce_max", "tf.sparse.reduce_sum")
def _sparse_reduce(g):
    sp = _sparse_or_junk(g, pool=REAL)
    rank = sp.shape.rank if isinstance(sp, tf.SparseTensor) else 2
    kwargs = {"axis": g.axes(rank)}
    if g.p(0.5):
        kwargs["keepdims"] = g.flag()
    if g.p(0.5):
        kwargs["output_is_sparse"] = g.flag()
    return [sp], kwargs


@spec("tf.sparse.reorder", "tf.sparse.softmax", "tf.sparse.transpose")
def _sparse_unary(g):
    return [_sparse_or_junk(g, pool=FLOATS, min_rank=1)], {}


@spec("tf.sparse.reset_shape")
def _sparse_reset_shape(g):
    sp = _sparse_tensor(g)
    if g.p(0.4):
        return [sp], {}
    grown = [d + g.int_in(0, 2) for d in sp.shape.as_list()]
    return [sp, g.shape(grown)], {}


@spec("tf.sparse.reshape")
def _sparse_reshape(g):
    sp = _sparse_tensor(g)
    size = int(np.prod(sp.shape.as_list()))
    target = g.pick(([size], [-1], [1, size], [size, -1])) if not g.bad() else g.bad_shape()
    return [sp, target], {}


@spec("tf.sparse.retain")
def _sparse_retain(g):
    sp = _sparse_tensor(g)
    n = int(sp.values.shape[0]) + (g.int_in(1, 2) if g.bad() else 0)
    return [sp, g.tensor(pool=(tf.bool,), dims=[n])], {}


@spec("tf.sparse.sampled_addmm")
def _sparse_sampled_addmm(g):
    m, k, n = g.int_in(1, 3), g.int_in(1, 3), g.int_in(1, 3)
    indices = tf.constant([[0, 0]] if g.p(0.8) else [[m, n]], tf.int32)
    mats = [tf.constant(g.array(tf.float32, d)) for d in ([m, k], [k, n])]
    shape = [m, n] if not g.bad() else g.bad_shape()
    return [indices, tf.constant([1.0]), shape, *mats], {}


@spec(*(f"tf.math.unsorted_segment_{n}" for n in "sum prod max min mean sqrt_n".split()))
def _unsorted_segment(g):
    dims = g.dims(min_rank=1)
    k = g.int_in(1, len(dims))
    n = g.int_in(0, 5)
    ids = np.clip(g.rng.integers(-1, n + 1, size=dims[:k]), -1, max(n - 1, -1))
    ids = ids.astype(g.pick((np.int32, np.int64)))
    ids = g.indices(dims[:k], n + 1) if g.bad() else g.like(ids)
    num = g.pick((*NEGATIVE, *HUGE, *OVERFLOW, [n], "x", 1.5)) if g.bad() else g.integer(n)
    return [g.tensor(dims=dims), ids, num], {}


@spec(*(f"tf.math.segment_{n}" for n in "sum prod max min mean".split()))
def _sorted_segment(g):
    dims = g.dims(min_rank=1)
    ids = np.sort(g.rng.integers(0, 4, size=dims[0]))
    if g.bad():
        ids = g.pick((ids[::-1], ids - 2, ids + 2**40, ids[:-1], np.zeros([0], np.int64)))
    return [g.tensor(dims=dims), g.like(ids.astype(g.pick((np.int32, np.int64))))], {}


@spec("tf.sparse.segment_mean", "tf.sparse.segment_sqrt_n", "tf.sparse.segment_sum")
def _sparse_segment(g):
    rows = g.int_in(1, 4)
    data = g.tensor(pool=FLOATS, dims=[rows, g.int_in(1, 3)])
    k = g.int_in(0, 4)
    indices = g.indices([k], rows)
    ids = np.sort(g.rng.integers(0, 3, size=k))
    kwargs = {"num_segments": g.int_in(0, 5)} if g.p(0.3) else {}
    return [data, indices, g.like(ids) if not g.bad() else g.tensor()], kwargs


@spec("tf.sparse.slice")
def _sparse_slice(g):
    sp = _sparse_tensor(g)
    rank = sp.shape.rank
    start = [g.int_in(0, 3) for _ in range(rank)] if not g.bad() else g.bad_shape()
    return [sp, start, [g.int_in(0, 4) for _ in range(rank)]], {}


@spec("tf.sparse.sparse_dense_matmul")
def _sparse_matmul(g):
    m, k, n = g.int_in(0, 4), g.int_in(1, 4), g.int_in(1, 4)
    dtype = g.pick(FLOATS)
    sp = _sparse_tensor(g, pool=(dtype,), dims=[m, k])
    b = tf.constant(g.array(dtype, [k, n])) if not g.bad() else g.tensor()
    kwargs = {"adjoint_a": g.flag(), "adjoint_b": g.flag()} if g.p(0.3) else {}
    return [sp, b], kwargs


@spec("tf.sparse.split")
def _sparse_split(g):
    sp = _sparse_tensor(g)
    return [], {"sp_input": sp, "num_split": g.count(3, 1), "axis": g.axis(sp.shape.rank)}


@spec("tf.sparse.to_dense")
def _sparse_to_dense(g):
    dtype = g.pick(DTYPES)
    kwargs = {"validate_indices": g.flag()} if g.p(0.3) else {}
    if g.p(0.3):
        kwargs["default_value"] = g.number((dtype,)) if dtype != tf.bool else True
    return [_sparse_or_junk(g, pool=(dtype,))], kwargs


@spec("tf.sparse.to_indicator")
def _sparse_to_indicator(g):
    sp = _sparse_tensor(g, pool=(tf.int32, tf.int64), min_rank=1)
    return [sp, g.count(6, 1)], {}


@spec("tf.sets.difference", "tf.sets.intersection", "tf.sets.union")
def _sets_binary(g):
    dtype = g.pick((tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16))
    rows = g.int_in(1, 3)
    a = tf.constant(g.array(dtype, [rows, g.int_in(1, 4)]))
    b = tf.constant(g.array(dtype, [rows if not g.bad() else rows + 1, g.int_in(1, 4)]))
    if g.p(0.3):
        b = _sparse_tensor(g, pool=(dtype,), dims=[rows, 4])
    return [a, b] if g.p(0.8) else [b, a], {}


@spec("tf.sets.size")
def _sets_size(g):
    pool = (tf.int32, tf.int64) if not g.bad() else DTYPES
    return [_sparse_or_junk(g, pool=pool, min_rank=2)], {}


@spec("tf.cond")
def _cond(g):
    pred = g.pick((True, False)) if g.p(0.5) else (g.junk() if g.bad() else g.tensor())
    branch = lambda: g.tensor() if not g.bad() else g.junk()  # noqa: E731
    return [pred, g.pick((branch, None)), g.pick((branch, 1))], {}


@spec("tf.switch_case")
def _switch_case(g):
    index = g.junk() if g.bad() else g.tensor(pool=(tf.int32, tf.int64))
    fns = g.pick(([lambda: 1, lambda: 2], {0: lambda: 1}, [], {1: lambda: 1}))
    return [index, fns if not g.bad() else g.junk()], {}


def _ragged(g, pool=NUMERIC, dtype=None, ragged_rank=None, inner=None):
    """A RaggedTensor with random row lengths (empty rows included), ragged rank 1 or 2 and an
    optional uniform inner dimension; int32 row splits at times."""
    dtype = dtype or g.pick(pool)
    ragged_rank = ragged_rank or g.int_in(1, 2)
    inner = ([] if g.p(0.7) else [g.int_in(0, 3)]) if inner is None else inner
    nested = []
    count = g.int_in(0, 4)
    for _ in range(ragged_rank):
        lengths = g.rng.integers(0, 4, size=count)
        nested.append(lengths)
        count = int(lengths.sum())
    values = g.array(dtype, [count, *inner])
    splits_dtype = g.pick((tf.int64, tf.int32))
    return tf.RaggedTensor.from_nested_row_lengths(
        values, [tf.constant(n, splits_dtype) for n in nested]
    )


def _ragged_or_junk(g, **kwargs):
    return g.junk() if g.bad() and g.p(0.3) else _ragged(g, **kwargs)


def _nested_list(g, depth, dtype):
    if depth == 0:
        return g.array(dtype, []).item()
    return [_nested_list(g, depth - 1, dtype) for _ in range(g.int_in(0, 3))]


@spec("tf.ragged.constant")
def _ragged_constant(g):
    dtype = g.pick((tf.int32, tf.int64, tf.float32, tf.float64, tf.bool))
    value = _nested_list(g, g.int_in(1, 3), dtype) if not g.bad() else g.junk()
    kwargs = {}
    if g.p(0.3):
        kwargs["ragged_rank"] = g.int_in(0, 2) if not g.bad() else g.junk()
    if g.p(0.2):
        kwargs["dtype"] = dtype
    if g.p(0.2):
        kwargs["row_splits_dtype"] = g.pick(INDEX)
    return [value], kwargs


@spec("tf.ragged.map_flat_values")
def _ragged_map_flat_values(g):
    op = g.pick((tf.math.abs, tf.ones_like, tf.math.negative)) if not g.bad() else g.junk()
    return [op, _ragged_or_junk(g, pool=REAL)], {}


@spec("tf.ragged.boolean_mask")
def _ragged_boolean_mask(g):
    data = _ragged(g)
    mask = data.with_flat_values(tf.constant(g.array(tf.bool, data.flat_values.shape.as_list())))
    if g.p(0.3):
        mask = tf.constant(g.array(tf.bool, [data.shape[0] if not g.bad() else 7]))
    elif g.bad():
        mask = g.junk()
    return [data, mask], {}


@spec("tf.ragged.range")
def _ragged_range(g):
    dtype = g.pick((tf.int32, tf.int64, tf.float32, tf.float64))
    n = g.int_in(1, 4)
    starts = tf.constant(g.rng.integers(-3, 4, size=n), dtype)
    limits = tf.constant(g.rng.integers(-3, 8, size=n), dtype)
    deltas = tf.constant(g.rng.choice([-2, -1, 1, 2, 3] + ([0] if g.bad() else []), size=n), dtype)
    args = [starts, limits, deltas] if g.p(0.7) else [limits]
    return args if not g.bad() or g.p(0.5) else [g.junk()], {}


@spec("tf.ragged.row_splits_to_segment_ids")
def _ragged_splits_to_ids(g):
    lengths = g.rng.integers(0, 4, size=g.int_in(0, 5))
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return [splits if not g.bad() else g.junk()], {"out_type": g.pick(INDEX)}


@spec("tf.ragged.segment_ids_to_row_splits")
def _ragged_ids_to_splits(g):
    ids = np.sort(g.rng.integers(0, 5, size=g.int_in(0, 6)))
    kwargs = {"num_segments": g.int_in(int(ids.max(initial=-1)) + 1, 7)} if g.p(0.5) else {}
    return [ids if not g.bad() else g.junk()], kwargs


@spec("tf.ragged.stack")
def _ragged_stack(g):
    first = _ragged(g, ragged_rank=1, inner=[])
    second = _ragged(g, dtype=first.dtype, ragged_rank=1, inner=[])
    second = second.with_row_splits_dtype(first.row_splits.dtype)
    values = [first, second] if not g.bad() else [first, g.junk()]
    return [values], {"axis": g.int_in(-2, 1) if not g.bad() else 5}


@spec("tf.ragged.stack_dynamic_partitions")
def _ragged_stack_dynamic_partitions(g):
    n = g.int_in(0, 6)
    data = tf.constant(g.array(g.pick(NUMERIC), [n]))
    num = g.int_in(1, 4)
    partitions = g.rng.integers(0, num + (1 if g.bad() else 0), size=n)
    return [data, partitions, num if not g.bad() else g.junk()], {}


@spec(
    "tf.strings.lower", "tf.strings.upper", "tf.strings.strip", "tf.strings.length",
    "tf.strings.regex_full_match", "tf.strings.regex_replace", "tf.strings.to_number",
    "tf.strings.split", "tf.strings.bytes_split", "tf.strings.unicode_split",
    "tf.strings.to_hash_bucket_fast", "tf.strings.to_hash_bucket_strong",
    "tf.strings.to_hash_bucket", "tf.strings.reduce_join", "tf.strings.unicode_decode",
    "tf.strings.unicode_decode_with_offsets", "tf.strings.unicode_split_with_offsets",
    "tf.strings.unicode_transcode",
)  # fmt: skip
def _strings_unary(g):
    x = g.strings()
    kwargs = {}
    if g.p(0.3):
        kwargs["name"] = "s"
    return [x], kwargs


def _unicode_policy(g):
    """An encoding, error policy and replacement character for the Unicode ops."""
    return {
        "input_encoding": g.pick(("UTF-8", "UTF-16-BE", "UTF-32-BE", "UTF-16", "latin1"))
        if g.p(0.5)
        else "UTF-8",
        "errors": g.pick(("replace", "ignore", "strict", "bogus" if g.bad() else "replace")),
        "replacement_char": g.pick((0xFFFD, 32, 0x1F600, -1 if g.bad() else 63)),
    }


def _string_extra(name, g):
    """The arguments after the strings that each tf.strings op takes."""
    return {
        "tf.strings.lower": lambda: {"encoding": g.pick(("", "utf-8", "UTF-8"))},
        "tf.strings.upper": lambda: {"encoding": g.pick(("", "utf-8"))},
        "tf.strings.length": lambda: {"unit": g.pick(("BYTE", "UTF8_CHAR"))},
        "tf.strings.regex_full_match": lambda: {
            "pattern": g.pick(("a.*", "[0-9]+", "", "(", "\\s"))
        },
        "tf.strings.regex_replace": lambda: {
            "pattern": g.pick(("a", "[0-9]+", "(b)", "(")),
            "rewrite": g.pick(("", "x", "\\1", "$")),
            "replace_global": g.flag(),
        },
        "tf.strings.to_number": lambda: {
            "out_type": g.pick((tf.float32, tf.float64, tf.int32, tf.int64))
        },
        "tf.strings.split": lambda: {"sep": g.pick((None, ",", "ab")), "maxsplit": g.int_in(-1, 2)},
        "tf.strings.unicode_split": lambda: _unicode_policy(g),
        "tf.strings.unicode_split_with_offsets": lambda: _unicode_policy(g),
        "tf.strings.unicode_decode": lambda: {
            **_unicode_policy(g),
            "replace_control_characters": g.flag(),
        },
        "tf.strings.unicode_decode_with_offsets": lambda: {
            **_unicode_policy(g),
            "replace_control_characters": g.flag(),
        },
        "tf.strings.unicode_transcode": lambda: {
            **_unicode_policy(g),
            "output_encoding": g.pick(("UTF-8", "UTF-16-BE", "UTF-32-BE", "UTF-16")),
            "replace_control_characters": g.flag(),
        },
        "tf.strings.to_hash_bucket_fast": lambda: {
            "num_buckets": g.int_in(0 if g.bad() else 1, 100)
        },
        "tf.strings.to_hash_bucket": lambda: {"num_buckets": g.int_in(0 if g.bad() else 1, 100)},
        "tf.strings.to_hash_bucket_strong": lambda: {
            "num_buckets": g.int_in(1, 100),
            "key": [g.int_in(0, 2**40), g.int_in(0, 9)][: 1 if g.bad() else 2],
        },
        "tf.strings.reduce_join": lambda: {
            "axis": g.pick((None, 0, -1, [0], 3)),
            "keepdims": g.flag(),
            "separator": g.pick(("", ",")),
        },
    }.get(name, dict)()


for _name in list(SPECS):
    if SPECS[_name] is _strings_unary:

        def _gen(g, _name=_name):
            if _name == "tf.strings.to_number" and g.p(0.7):
                numbers = (" 1", "-2.5", "0x1f", "1e40", "inf", "nan", "+7", "99999999999", "3.")
                words = [g.pick(numbers) for _ in range(g.int_in(0, 4))]
                return [tf.constant(words, tf.string)], _string_extra(_name, g)
            return [g.strings()], _string_extra(_name, g)

        SPECS[_name] = _gen


@spec("tf.strings.substr")
def _strings_substr(g):
    dims = g.dims()
    x = g.strings(dims)
    pos_dims = dims if g.p(0.7) else g.dims()
    dtype = g.pick((np.int32, np.int64))
    n = int(np.prod(pos_dims, dtype=np.int64))
    pos = g.rng.integers(-1 if g.p(0.5) else -3, 3, size=n).astype(dtype).reshape(pos_dims)
    length = g.rng.integers(-1, 4, size=n).astype(dtype).reshape(pos_dims)
    pos = g.tensor() if g.bad() else g.like(pos)
    return [x, pos, g.like(length)], {"unit": g.pick(("BYTE", "UTF8_CHAR"))}


@spec("tf.strings.join")
def _strings_join(g):
    dims = g.dims()
    parts = [g.strings(dims if g.p(0.8) else []) for _ in range(g.int_in(1, 3))]
    return [parts], {"separator": g.pick(("", "-", "\u00e9"))}


@spec("tf.strings.as_string")
def _strings_as_string(g):
    x = g.tensor(pool=DTYPES) if g.p(0.9) else g.strings()
    return [x], {
        "precision": g.pick((-1, 0, 3)),
        "scientific": g.flag() if g.p(0.3) else False,
        "shortest": g.flag() if g.p(0.3) else False,
        "width": g.pick((-1, 0, 8)),
        "fill": g.pick(("", "0", " ", "-", "x")),
    }


@spec("tf.strings.unicode_encode")
def _strings_unicode_encode(g):
    codes = (65, 0xE9, 0x1F600, 0xD800, 0x110000, -1, 0, 0x10FFFF)
    if g.p(0.5):
        x = _ragged(g, pool=(tf.int32,), ragged_rank=g.int_in(1, 2), inner=[])
        x = x.with_flat_values(tf.constant([g.pick(codes) for _ in range(x.flat_values.shape[0])]))
    else:
        dims = g.dims() if g.p(0.8) else []
        n = int(np.prod(dims, dtype=np.int64))
        x = tf.constant(np.array([g.pick(codes) for _ in range(n)], np.int32).reshape(dims))
    policy = _unicode_policy(g)
    return [x if not g.bad() else g.tensor()], {
        "output_encoding": g.pick(("UTF-8", "UTF-16-BE", "UTF-32-BE", "UTF-16-LE")),
        "errors": policy["errors"],
        "replacement_char": policy["replacement_char"],
    }


@spec("tf.strings.unicode_script")
def _strings_unicode_script(g):
    n = g.int_in(0, 8)
    x = g.rng.integers(-2, 0x110002, size=n).astype(np.int32)
    return [x if not g.bad() else g.tensor()], {}


@spec("tf.strings.ngrams")
def _strings_ngrams(g):
    x = g.strings()
    if g.p(0.4) and not g.bad():
        lengths = g.rng.integers(0, 4, size=g.int_in(0, 4))
        words = [g.pick(("a", "", "\u00e9", "Bc")) for _ in range(int(lengths.sum()))]
        x = tf.RaggedTensor.from_row_lengths(tf.constant(words, tf.string), lengths)
    width = g.pick((1, 2, 3, [1, 3], 0 if g.bad() else 2))
    pad = g.pick((None, "#", ("<", ">"), 5 if g.bad() else None))
    kwargs = {"separator": g.pick((" ", "", "--")), "pad_values": pad}
    if pad is not None and g.p(0.5):
        kwargs["padding_width"] = g.int_in(0 if g.bad() else 1, 3)
    kwargs["preserve_short_sequences"] = g.flag()
    return [x, width], kwargs


@spec("tf.strings.format")
def _strings_format(g):
    inputs = [g.tensor() if g.p(0.7) else g.strings() for _ in range(g.int_in(0, 3))]
    if g.p(0.2) and not g.bad():
        inputs.append(_ragged(g, ragged_rank=1, inner=[]))
    holes = len(inputs) + (1 if g.bad() else 0)
    template = "".join(f"x{k}: {{}} " for k in range(holes))
    return [template, inputs], {"summarize": g.pick((3, 1, -1, 0))}


@spec("tf.strings.unsorted_segment_join")
def _strings_unsorted_segment_join(g):
    dims = g.dims()
    dims = dims if dims else [g.int_in(0, 4)]
    x = g.strings(dims)
    num = g.int_in(0, 4)
    ids = g.rng.integers(-1 if g.bad() else 0, max(num, 1), size=dims[0]).astype(np.int32)
    return [x, ids, num], {"separator": g.pick(("", ",", "--"))}


@spec("tf.strings.fingerprint")
def _strings_fingerprint(g):
    x = g.strings() if g.p(0.6) else g.tensor()
    return [x], {}


@spec("tf.ragged.cross_hashed", "tf.ragged.cross")
def _ragged_cross_hashed(g):
    rows = g.int_in(1, 3)
    pool = (tf.int32, tf.int64) if not g.bad() else DTYPES
    first = _ragged(g, pool=pool, ragged_rank=1, inner=[])
    rows = int(first.nrows())
    second = tf.constant(g.array(g.pick((tf.int32, tf.int64)), [rows + g.bad(), g.int_in(1, 3)]))
    kwargs = {"num_buckets": g.int_in(0, 20)} if g.p(0.5) else {}
    return [[first, second] if g.p(0.5) else [second, first]], kwargs


@spec("tf.RaggedTensor")
def _ragged_tensor_class(g):
    return [g.junk() for _ in range(g.int_in(0, 2))], {}


@spec("tf.RaggedTensorSpec")
def _ragged_tensor_spec(g):
    shape = g.pick(([None, None], [2, None], [3, None, 2], None)) if not g.bad() else g.junk()
    kwargs = {"ragged_rank": g.int_in(0, 2)} if g.p(0.5) else {}
    return [shape, g.dtype()], kwargs


@spec("tf.while_loop")
def _while_loop(g):
    limit = g.int_in(0, 5)
    cond = (lambda i: i < limit) if not g.bad() else g.junk()
    body = (lambda i: (i + 1,)) if not g.bad() else g.junk()
    loop_vars = (tf.constant(0),) if not g.bad() else g.junk()
    kwargs = {"maximum_iterations": g.pick((None, 2))} if g.p(0.3) else {}
    return [cond, body, loop_vars], kwargs


@spec("tf.print")
def _print(g):
    values = [g.tensor() if not g.bad() else g.junk() for _ in range(g.int_in(0, 3))]
    kwargs = {"output_stream": io.StringIO()}
    if g.p(0.3):
        kwargs["summarize"] = g.pick((None, -1, 0, 1, 3)) if not g.bad() else g.junk()
    return values, kwargs


@spec("tf.DType")
def _dtype_class(g):
    enum = g.pick(DTYPES).as_datatype_enum if g.p(0.7) else g.bad_int()
    return [enum, g.pick(("float32", "x", "")), g.pick((np.float32, np.int8, None))], {}


@spec("tf.Tensor")
def _tensor_class(g):
    return [g.junk() for _ in range(g.int_in(0, 2))], {}


# --- tf.nn, the rest (issue 19: activations, losses, statistics, dropout variants) ----------


@spec("tf.nn.silu", "tf.nn.crelu")
def _nn_silu_crelu(g):
    dims = g.dims()
    x = g.tensor(FLOATS if g.p(0.85) else DTYPES, dims)
    if g.p(0.5) and dims:
        return [x], {"axis": g.axis(len(dims)) if not g.bad() else g.junk()}
    return [x], {}


@spec("tf.nn.log_poisson_loss", "tf.nn.weighted_cross_entropy_with_logits")
def _nn_pair_losses(g):
    dims = g.dims()
    dtype = g.pick(FLOATS) if g.p(0.85) else g.pick(DTYPES)
    a = g.tensor(dtype=dtype, dims=g.broadcast_dims(dims) if g.bad() else dims)
    b = g.tensor(dtype=dtype, dims=dims)
    return [a, b, g.number(FLOATS) if g.p(0.5) else g.flag()], {}


@spec("tf.nn.sufficient_statistics", "tf.nn.weighted_moments")
def _nn_statistics(g):
    dims = g.dims(min_rank=1)
    axes = [int(a) for a in g.rng.permutation(len(dims))[: g.int_in(1, len(dims))]]
    if g.bad():
        axes = g.axes(len(dims))
    dtype = g.pick(FLOATS) if g.p(0.85) else g.pick(DTYPES)
    x = g.tensor(dtype=dtype, dims=dims)
    third = g.tensor(dtype=dtype, dims=g.broadcast_dims(dims)) if g.p(0.5) else g.number()
    return [x, axes, third], {"keepdims": g.flag()}


@spec("tf.nn.normalize_moments")
def _nn_normalize_moments(g):
    dims = g.dims()
    dtype = g.pick(FLOATS) if g.p(0.9) else g.pick(DTYPES)
    shift = None if g.p(0.5) else g.tensor(dtype=dtype, dims=dims)
    return [g.number((dtype,)), g.tensor(dtype=dtype, dims=dims)] + [
        g.tensor(dtype=dtype, dims=dims),
        shift,
    ], {}


@spec("tf.nn.compute_average_loss", "tf.nn.scale_regularization_loss")
def _nn_average_loss(g):
    dims = g.dims(min_rank=0 if g.bad() else 1)
    dtype = g.pick(FLOATS) if g.p(0.85) else g.pick(DTYPES)
    x = g.tensor(dtype=dtype, dims=dims)
    if g.p(0.5):
        return [x], {}
    kwargs = {"global_batch_size": g.int_in(-1, 5) if g.p(0.5) else g.number()}
    if g.p(0.5):
        kwargs["sample_weight"] = g.tensor(dtype=dtype, dims=g.broadcast_dims(dims))
    return [x], kwargs


@spec("tf.nn.batch_norm_with_global_normalization")
def _nn_bn_global(g):
    dims = g.dims(min_rank=1)
    dtype = g.pick(FLOATS) if g.p(0.9) else g.pick(DTYPES)
    c = [dims[-1]] if not g.bad() else g.dims(rank=1)
    stats = [g.tensor(dtype=dtype, dims=c) for _ in range(4)]
    return [g.tensor(dtype=dtype, dims=dims), *stats, g.number(FLOATS), g.flag()], {}


@spec("tf.nn.local_response_normalization", "tf.nn.lrn")
def _nn_lrn(g):
    dims = g.dims(rank=4 if not g.bad() else g.int_in(0, 5))
    x = g.tensor(FLOATS if g.p(0.85) else DTYPES, dims)
    kwargs = {"depth_radius": g.int_in(0, 3), "bias": g.number(FLOATS), "beta": g.number(FLOATS)}
    return [x], kwargs


@spec("tf.nn.experimental.stateless_dropout", "tf.nn.experimental.general_dropout")
def _nn_stateless_dropout(g):
    dims = g.dims()
    rate = g.pick((0.0, 0.1, 0.5, 0.9))
    if g.bad():
        rate = g.pick((1.0, -0.1, math.nan, "0.5", None, tf.constant([0.5])))
    x = g.tensor(FLOATS if g.p(0.8) else DTYPES, dims)
    kwargs = {}
    if g.p(0.3):
        kwargs["noise_shape"] = g.shape([1 if g.p(0.5) else d for d in dims])
    seed = [g.int_in(0, 9), g.int_in(0, 9)] if not g.bad() else g.junk()
    if g.p(0.5):
        return [x, rate, seed], kwargs

    def sampler(shape, dtype):
        return tf.random.stateless_uniform(shape, [1, 2], dtype=dtype)

    return [x, rate, sampler], kwargs


# --- tf.nn, the rest (issue 19: transposed/3-D convolutions, pooling and window ops) --------


def _nn_image(g, rank):
    dims = g.dims(rank=rank if not g.bad() else g.int_in(2, 6), max_dim=6)
    dtype = g.pick((tf.float32, tf.float64, tf.bfloat16)) if g.p(0.85) else g.pick(DTYPES)
    return dims, dtype, g.tensor(dtype=dtype, dims=dims)


@spec(
    "tf.nn.conv2d_transpose",
    "tf.nn.conv3d_transpose",
    "tf.nn.conv_transpose",
)
def _nn_conv_transpose(g):
    return _conv_transpose_case(g, g.int_in(3, 5))


# Its own spec: it takes rank-3 inputs only, which the shared random rank gave a third of the
# time (too few valid calls for the suite's run to see one succeed).
@spec("tf.nn.conv1d_transpose")
def _nn_conv1d_transpose(g):
    return _conv_transpose_case(g, 3)


def _conv_transpose_case(g, rank):
    dims, dtype, x = _nn_image(g, rank)
    c = dims[-1] if dims else 1
    out_c = g.int_in(1, 3)
    w = g.tensor(dtype=dtype, dims=[g.int_in(1, 3) for _ in range(rank - 2)] + [out_c, c])
    stride = g.int_in(1, 3)
    out = [dims[0] if dims else 1] + [d * stride for d in dims[1:-1]] + [out_c]
    if g.bad():
        out = g.pick((g.junk(), [d + 1 for d in out], out[:-1]))
    padding = g.pick(("SAME", "VALID")) if not g.bad() else g.junk()
    return [x, w, out, stride if g.p(0.7) else g.int_in(1, 3), padding], {}


@spec("tf.nn.atrous_conv2d_transpose")
def _nn_atrous_conv2d_transpose(g):
    # Stride 1 dilated by `rate`: SAME keeps the spatial sizes, VALID grows them by the
    # dilated kernel's extent less one.
    dims, dtype, x = _nn_image(g, 4)
    c = dims[-1] if dims else 1
    out_c, rate = g.int_in(1, 3), g.int_in(1, 3)
    kh, kw = g.int_in(1, 3), g.int_in(1, 3)
    w = g.tensor(dtype=dtype, dims=[kh, kw, out_c, c])
    padding = g.pick(("SAME", "VALID"))
    spatial = dims[1:-1] if len(dims) == 4 else [1, 1]
    if padding == "VALID":
        spatial = [d + (k - 1) * rate for d, k in zip(spatial, (kh, kw))]
    out = [dims[0] if dims else 1] + spatial + [out_c]
    if g.bad():
        out = g.pick((g.junk(), [d + 1 for d in out], out[:-1]))
        padding = g.pick((padding, g.junk()))
    return [x, w, out, rate if not g.bad() else g.int_in(-1, 3), padding], {}


@spec("tf.nn.conv3d", "tf.nn.atrous_conv2d")
def _nn_conv3d(g):
    rank = g.pick((4, 5))
    dims, dtype, x = _nn_image(g, rank)
    c = dims[-1] if dims else 1
    w = g.tensor(dtype=dtype, dims=[g.int_in(1, 3) for _ in range(rank - 2)] + [c, g.int_in(1, 3)])
    strides = [1] + [g.int_in(1, 2) for _ in range(rank - 2)] + [1]
    if g.bad():
        strides = g.junk()
    return [x, w, strides if rank == 5 else g.int_in(1, 3), g.pick(("SAME", "VALID"))], {}


@spec("tf.nn.depthwise_conv2d_backprop_input", "tf.nn.depthwise_conv2d_backprop_filter")
def _nn_depthwise_backprop(g):
    dims, dtype, x = _nn_image(g, 4)
    c = dims[-1] if dims else 1
    fdims = [g.int_in(1, 3), g.int_in(1, 3), c, g.int_in(1, 2)]
    dy = g.tensor(dtype=dtype, dims=[*dims[:-1], c * fdims[3]] if dims else [1])
    # (input sizes, filter) suits backprop_input, (input, filter sizes) backprop_filter.
    if g.p(0.5):
        pair = [dims, g.tensor(dtype=dtype, dims=fdims)]
    else:
        pair = [x, fdims]
    return [*pair, dy, [1, 1, 1, 1], "SAME"], {}


@spec("tf.nn.max_pool3d", "tf.nn.avg_pool3d")
def _nn_pool3d(g):
    _, _, x = _nn_image(g, 5)
    window = g.int_in(1, 3) if not g.bad() else g.junk()
    return [x, window, g.int_in(1, 3), g.pick(("SAME", "VALID"))], {}


@spec("tf.nn.pool")
def _nn_pool(g):
    rank = g.int_in(3, 5)
    _, _, x = _nn_image(g, rank)
    window = [g.int_in(1, 3) for _ in range(rank - 2)]
    kwargs = {"padding": g.pick(("SAME", "VALID"))}
    if g.p(0.5):
        kwargs["dilations"] = [g.int_in(1, 3) for _ in range(rank - 2)]
    elif g.p(0.5):
        kwargs["strides"] = [g.int_in(1, 3) for _ in range(rank - 2)]
    kind = g.pick(("MAX", "AVG")) if not g.bad() else g.junk()
    return [x, window, kind], kwargs


@spec("tf.nn.with_space_to_batch")
def _nn_with_space_to_batch(g):
    _, _, x = _nn_image(g, 4)
    rate = [g.int_in(1, 3), g.int_in(1, 3)] if not g.bad() else g.junk()

    def op(inp, num, padding):
        return tf.nn.max_pool2d(inp, 2, 1, padding)

    return [x, rate, g.pick(("SAME", "VALID")), op], {"filter_shape": [2, 2]}


@spec("tf.nn.dilation2d", "tf.nn.erosion2d")
def _nn_dilation2d(g):
    dims, dtype, x = _nn_image(g, 4)
    c = dims[-1] if dims else 1
    f = g.tensor(dtype=dtype, dims=[g.int_in(1, 3), g.int_in(1, 3), c])
    strides = [1, g.int_in(1, 2), g.int_in(1, 2), 1]
    rates = [1, g.int_in(1, 2), g.int_in(1, 2), 1]
    fmt = "NHWC" if not g.bad() else g.junk()
    return [x, f, strides, g.pick(("SAME", "VALID")), fmt, rates], {}


@spec("tf.nn.max_pool_with_argmax")
def _nn_max_pool_with_argmax(g):
    _, _, x = _nn_image(g, 4)
    kwargs = {"include_batch_in_index": g.flag()}
    if g.p(0.3):
        kwargs["output_dtype"] = g.pick((tf.int32, tf.int64, tf.float32))
    return [x, g.int_in(1, 3), g.int_in(1, 3), g.pick(("SAME", "VALID"))], kwargs


@spec("tf.nn.depth_to_space", "tf.nn.space_to_depth")
def _nn_depth_space(g):
    _, _, x = _nn_image(g, 4)
    block = g.int_in(2, 3) if not g.bad() else g.pick((1, 0, -2, "2", None))
    return [x, block], {"data_format": "NHWC" if not g.bad() else g.pick(("NCHW", "HWC"))}


# --- tf.experimental.numpy (issue 19: python/ferroflow/experimental/numpy/) -------------------

TNP = tf.experimental.numpy
TNP_NAMES = sorted(n for n in dir(TNP) if not n.startswith("_"))
# TensorFlow's numpy functions call NumPy methods of Tensor (`astype`, `ravel`) that exist only
# after experimental_enable_numpy_behavior (AttributeError before, as in TensorFlow); isinf and
# friends read `x.dtype` of whatever they get; moveaxis and compress assert on bad axes.
EAGER_REFUSALS.update(
    {f"tf.experimental.numpy.{n}": (AttributeError, AssertionError) for n in TNP_NAMES}
)
# tnp.random's size may be a tensor, whose `.data` (a NumPy method) TensorFlow reads too.
EAGER_REFUSALS.update(
    {f"tf.experimental.numpy.random.{n}": AttributeError for n in ("poisson", "standard_normal")}
)
# around/round (and Tensor.__round__, which is around) end with Tensor.astype, so they only
# work after experimental_enable_numpy_behavior, which the fuzzer never turns on (it is global);
# numpy.inexact is abstract.
NEVER_SUCCEEDS |= {
    "tf.experimental.numpy.around",
    "tf.experimental.numpy.round",
    "Tensor.__round__",
    "tf.experimental.numpy.inexact",
    "tf.experimental.numpy.experimental_enable_numpy_behavior",
}
# diag_indices(n, ndim) repeats a tensor ndim times in a Python tuple, as TensorFlow's does.
EAGER_REFUSALS["tf.experimental.numpy.diag_indices"] = MemoryError
TNP_DTYPES = ("float32", "float64", "int32", "int64", "bool", "int8", "uint8", "complex64",
              "float16", float, int, bool, np.float32, tf.float64, None)  # fmt: skip


def _tnp_operand(g, dims=None, pool=DTYPES):
    """A tensor, a nested list, a NumPy array or a Python scalar."""
    choice = g.int_in(0, 9)
    if choice <= 5:
        return g.tensor(pool, dims)
    value = g.array(g.pick(pool), g.dims(max_rank=2) if dims is None else dims)
    if choice == 6:
        return value
    if choice == 7:
        return value.tolist()
    if g.bad():
        return g.junk()
    return g.pick((0, 1, -2, 2.5, True, -0.0, float("nan")))


def _tnp_dtype(g):
    return g.junk() if g.bad() else g.pick(TNP_DTYPES)


def _tnp_unary(g):
    return [_tnp_operand(g)], {}


def _tnp_binary(g):
    if g.p(0.6):
        return list(g.pair()), {}
    return [_tnp_operand(g), _tnp_operand(g)], {}


def _tnp_reduce(g):
    dims = g.dims()
    kwargs = {"axis": g.axis(len(dims)) if g.p(0.6) else None}
    if g.p(0.5):
        kwargs["keepdims"] = g.flag()
    return [g.tensor(dims=dims)], kwargs


def _tnp_reduce_dtype(g):
    args, kwargs = _tnp_reduce(g)
    if g.p(0.3):
        kwargs["dtype"] = _tnp_dtype(g)
    return args, kwargs


def _tnp_shape_arg(g):
    return g.count() if g.p(0.3) else g.shape(g.dims(max_rank=3))


def _tnp_creation(g):
    kwargs = {"dtype": _tnp_dtype(g)} if g.p(0.6) else {}
    return [_tnp_shape_arg(g)], kwargs


def _tnp_like(g):
    kwargs = {"dtype": _tnp_dtype(g)} if g.p(0.5) else {}
    return [_tnp_operand(g)], kwargs


def _tnp_matrix(g, min_rank=2):
    return g.real_tensor(dims=g.dims(min_rank=min_rank, max_rank=4))


def _tnp_number(g):
    return g.junk() if g.bad() else g.pick((0, 1, 3, -2, 2.5, -1.5, 7, 0.0, 1e3))


TNP_SPECS = {
    "unary": _tnp_unary,
    "binary": _tnp_binary,
    "reduce": _tnp_reduce,
    "reduce_dtype": _tnp_reduce_dtype,
    "creation": _tnp_creation,
    "like": _tnp_like,
}
TNP_FAMILIES = {
    "unary": (
        "abs absolute angle arccos arccosh arcsin arcsinh arctan arctanh around bitwise_not cbrt "
        "ceil conj conjugate copy cos cosh deg2rad exp exp2 expm1 fabs fix floor imag iscomplex "
        "iscomplexobj isfinite isinf isnan isneginf isposinf isreal isrealobj isscalar log log10 "
        "log1p log2 logical_not negative positive rad2deg ravel real reciprocal round sign "
        "signbit sin sinc sinh sqrt square tan tanh ndim shape size flatten asanyarray "
        "ascontiguousarray atleast_1d atleast_2d atleast_3d nonzero transpose flipud fliplr "
        "squeeze diagflat ptp count_nonzero"
    ),
    "binary": (
        "add subtract multiply divide true_divide floor_divide mod remainder divmod power "
        "float_power maximum minimum arctan2 hypot logaddexp logaddexp2 heaviside nextafter "
        "equal not_equal greater greater_equal less less_equal logical_and logical_or "
        "logical_xor bitwise_and bitwise_or bitwise_xor gcd lcm isclose allclose array_equal "
        "dot matmul inner outer vdot kron cross polyval append broadcast_arrays"
    ),
    "reduce": "amax amin max min std all any argmax argmin",
    "reduce_dtype": "sum prod mean var nansum nanprod nanmean cumsum cumprod",
    "creation": "zeros ones empty",
    "like": "zeros_like ones_like empty_like array asarray",
}
for _family, _names in TNP_FAMILIES.items():
    spec(*(f"tf.experimental.numpy.{n}" for n in _names.split()))(TNP_SPECS[_family])


@spec(*(f"tf.experimental.numpy.{n}" for n in
        "bool_ complex128 complex64 float16 float32 float64 inexact int16 int32 int64 int8 "
        "object_ string_ uint16 uint32 uint64 uint8 unicode_".split()))  # fmt: skip
def _tnp_scalar_type(g):
    return ([_tnp_number(g)] if g.p(0.8) else []), {}


@spec(
    "tf.experimental.numpy.finfo",
    "tf.experimental.numpy.iinfo",
    "tf.experimental.numpy.result_type",
)
def _tnp_dtype_query(g):
    return [_tnp_dtype(g) if g.p(0.7) else _tnp_operand(g)], {}


@spec("tf.experimental.numpy.promote_types", "tf.experimental.numpy.issubdtype")
def _tnp_dtype_pair(g):
    extra = (np.inexact, np.integer, np.floating, "number")
    return [_tnp_dtype(g), g.pick(TNP_DTYPES[:-1] + extra)], {}


@spec("tf.experimental.numpy.full")
def _tnp_full(g):
    return [_tnp_shape_arg(g), _tnp_number(g)], ({"dtype": _tnp_dtype(g)} if g.p(0.4) else {})


@spec("tf.experimental.numpy.full_like")
def _tnp_full_like(g):
    return [_tnp_operand(g), _tnp_number(g)], ({"dtype": _tnp_dtype(g)} if g.p(0.4) else {})


@spec("tf.experimental.numpy.eye", "tf.experimental.numpy.tri")
def _tnp_eye(g):
    args = [g.count(), g.count() if g.p(0.5) else None, g.int_in(-4, 4) if not g.bad() else 2**40]
    return args, ({"dtype": _tnp_dtype(g)} if g.p(0.5) else {})


@spec("tf.experimental.numpy.identity")
def _tnp_identity(g):
    return [g.count()], ({"dtype": _tnp_dtype(g)} if g.p(0.5) else {})


@spec("tf.experimental.numpy.arange")
def _tnp_arange(g):
    args = [_tnp_number(g) for _ in range(g.int_in(1, 3))]
    return args, ({"dtype": _tnp_dtype(g)} if g.p(0.3) else {})


@spec(
    "tf.experimental.numpy.linspace",
    "tf.experimental.numpy.logspace",
    "tf.experimental.numpy.geomspace",
)
def _tnp_space(g):
    kwargs = {"endpoint": g.flag()} if g.p(0.4) else {}
    return [_tnp_number(g), _tnp_number(g), g.count(8)], kwargs


@spec("tf.experimental.numpy.meshgrid", "tf.experimental.numpy.ix_")
def _tnp_grids(g):
    args = [g.tensor(INTS + (tf.bool, tf.float32), [g.int_in(0, 4)]) for _ in range(g.int_in(0, 3))]
    return args, ({"indexing": g.pick(("xy", "ij", "zz"))} if g.p(0.3) else {})


@spec("tf.experimental.numpy.diag_indices")
def _tnp_diag_indices(g):
    return [g.count(), g.count(4)], {}


@spec("tf.experimental.numpy.vander")
def _tnp_vander(g):
    return [g.tensor(dims=g.dims(max_rank=2))], ({"N": g.count()} if g.p(0.5) else {})


@spec(
    "tf.experimental.numpy.diag",
    "tf.experimental.numpy.tril",
    "tf.experimental.numpy.triu",
)
def _tnp_band(g):
    return [g.tensor(dims=g.dims(max_rank=3))], {"k": g.int_in(-3, 3) if not g.bad() else 2**40}


@spec("tf.experimental.numpy.diagonal", "tf.experimental.numpy.trace")
def _tnp_diagonal(g):
    t = _tnp_matrix(g)
    rank = t.shape.rank
    return [t, g.int_in(-3, 3)], {"axis1": g.axis(rank), "axis2": g.axis(rank)}


@spec(
    "tf.experimental.numpy.reshape",
)
def _tnp_reshape(g):
    t = g.real_tensor()
    n = int(np.prod(t.shape.as_list()))
    return [t, g.pick(([n], [-1], [1, n], [n, -1], 0)) if not g.bad() else g.bad_shape()], {}


@spec("tf.experimental.numpy.expand_dims", "tf.experimental.numpy.flip")
def _tnp_axis(g):
    t = g.real_tensor()
    return [t, g.axis(t.shape.rank, extra=1)], {}


@spec("tf.experimental.numpy.swapaxes")
def _tnp_swapaxes(g):
    t = g.real_tensor()
    return [t, g.axis(t.shape.rank), g.axis(t.shape.rank)], {}


@spec("tf.experimental.numpy.moveaxis")
def _tnp_moveaxis(g):
    t = g.real_tensor()
    return [t, g.axis(t.shape.rank), g.axis(t.shape.rank)], {}


@spec("tf.experimental.numpy.rot90")
def _tnp_rot90(g):
    t = _tnp_matrix(g)
    return [t, g.int_in(-5, 5)], {}


@spec("tf.experimental.numpy.roll")
def _tnp_roll(g):
    t = g.real_tensor()
    return [t, g.int_in(-7, 7)], ({"axis": g.axis(t.shape.rank)} if g.p(0.5) else {})


@spec("tf.experimental.numpy.pad")
def _tnp_pad(g):
    t = g.real_tensor(dims=g.dims(max_rank=3))
    width = [[g.count(2), g.count(2)] for _ in range(t.shape.rank)]
    return [t, width if not g.bad() else g.junk(), g.pick(("constant", "reflect", "symmetric"))], {}


@spec(
    "tf.experimental.numpy.split",
    "tf.experimental.numpy.vsplit",
    "tf.experimental.numpy.hsplit",
    "tf.experimental.numpy.dsplit",
)
def _tnp_split(g):
    t = g.real_tensor(dims=g.dims(min_rank=1))
    sections = g.pick((1, 2, 3, [1], [1, 2], [2, 1])) if not g.bad() else g.bad_count()
    return [t, sections], {}


@spec(
    "tf.experimental.numpy.stack",
    "tf.experimental.numpy.hstack",
    "tf.experimental.numpy.vstack",
    "tf.experimental.numpy.dstack",
    "tf.experimental.numpy.concatenate",
)
def _tnp_join(g):
    dims = g.dims(max_rank=3)
    return [[g.tensor(dims=dims) for _ in range(g.int_in(1, 3))]], {}


@spec("tf.experimental.numpy.broadcast_to")
def _tnp_broadcast_to(g):
    dims = g.dims()
    return [g.tensor(dims=g.broadcast_dims(dims)), g.shape(dims)], {}


@spec("tf.experimental.numpy.tile", "tf.experimental.numpy.repeat")
def _tnp_tile(g):
    return [g.tensor(dims=g.dims(max_rank=3)), g.pick((2, [1, 2], [2], 0))], {}


@spec("tf.experimental.numpy.where")
def _tnp_where(g):
    cond = g.real_tensor((tf.bool,))
    if g.p(0.3):
        return [cond], {}
    return [cond, _tnp_operand(g, cond.shape.as_list()), _tnp_operand(g)], {}


@spec("tf.experimental.numpy.select")
def _tnp_select(g):
    dims = g.dims(max_rank=2)
    n = g.int_in(0, 2)
    conds = [g.tensor((tf.bool,), dims) for _ in range(n)]
    return [conds, [g.tensor(dims=dims) for _ in range(n)]], {}


@spec("tf.experimental.numpy.compress")
def _tnp_compress(g):
    t = g.real_tensor(dims=g.dims(min_rank=1))
    cond = [bool(v) for v in g.rng.random(g.int_in(0, 4)) < 0.5]
    return [cond, t], ({"axis": g.axis(t.shape.rank)} if g.p(0.6) else {})


@spec("tf.experimental.numpy.take_along_axis")
def _tnp_take_along_axis(g):
    t = g.real_tensor(dims=g.dims(min_rank=1))
    axis, rank = g.axis(t.shape.rank), t.shape.rank
    if type(axis) is int and -rank <= axis < rank and g.p(0.7):
        # In-range indices shaped like the array (axis may also be out of range or junk).
        idx = tf.random.uniform(t.shape, 0, t.shape[axis] or 1, dtype=tf.int64)
    else:
        idx = g.tensor(INDEX)
    return [t, idx, axis], {}


@spec("tf.experimental.numpy.take")
def _tnp_take(g):
    t = g.real_tensor(dims=g.dims(min_rank=1))
    idx = g.tensor(INDEX, [g.int_in(0, 3)] * t.shape.rank)
    return [t, idx, g.axis(t.shape.rank) if g.p(0.7) else None], {}


@spec("tf.experimental.numpy.sort", "tf.experimental.numpy.argsort")
def _tnp_sort(g):
    t = g.real_tensor()
    return [t], {"axis": g.axis(t.shape.rank) if g.p(0.8) else None}


@spec("tf.experimental.numpy.average")
def _tnp_average(g):
    t = g.real_tensor(dims=g.dims(min_rank=1))
    return [t], {"axis": g.axis(t.shape.rank) if g.p(0.5) else None, "returned": g.flag()}


@spec("tf.experimental.numpy.clip")
def _tnp_clip(g):
    return [_tnp_operand(g), _tnp_number(g), _tnp_number(g)], {}


@spec("tf.experimental.numpy.diff")
def _tnp_diff(g):
    t = g.real_tensor(dims=g.dims(min_rank=1))
    return [t, g.count(3)], {"axis": g.axis(t.shape.rank)}


@spec("tf.experimental.numpy.tensordot")
def _tnp_tensordot(g):
    a, b = g.pair()
    return [a, b, g.pick((0, 1, 2, [[0], [0]]))], {}


@spec("tf.experimental.numpy.einsum")
def _tnp_einsum(g):
    eq = g.pick(("ij,jk->ik", "i,i->", "ij->ji", "ii", "bij,bjk->bik", "i,j->ij", "x"))
    if g.p(0.6):
        # Operands shaped as the equation asks, every index one size.
        n, dtype = g.int_in(0, 4), g.pick((tf.float32, tf.float64, tf.int32))
        terms = eq.split("->")[0].split(",")
        return [eq, *(g.tensor(dims=[n] * len(term), dtype=dtype) for term in terms)], {}
    return [eq, *(g.tensor(dims=g.dims(max_rank=3)) for _ in range(g.int_in(1, 2)))], {}


@spec("tf.experimental.numpy.experimental_enable_numpy_behavior")
def _tnp_enable(g):
    # The switch is global: the fuzzer calls it only with bad modes, which change nothing.
    return [], {"dtype_conversion_mode": g.pick(("bogus", "safe", "all", 3, None))}


@spec("tf.experimental.numpy.random.seed")
def _tnp_random_seed(g):
    return [g.seed() if not g.bad() else g.junk()], {}


@spec(
    "tf.experimental.numpy.random.rand",
    "tf.experimental.numpy.random.randn",
)
def _tnp_random_dims(g):
    return [g.count(4) for _ in range(g.int_in(0, 3))], {}


@spec(
    "tf.experimental.numpy.random.random",
    "tf.experimental.numpy.random.standard_normal",
    "tf.experimental.numpy.random.uniform",
    "tf.experimental.numpy.random.poisson",
)
def _tnp_random_size(g):
    return [], {"size": g.pick((None, 3, (2, 2))) if not g.bad() else g.bad_shape()}


@spec("tf.experimental.numpy.random.randint")
def _tnp_randint(g):
    return [g.int_in(-3, 3), g.int_in(4, 9)], {
        "size": g.pick((None, 3, (2,))),
        "dtype": _tnp_dtype(g),
    }


# --- tf.nn, the rest (issue 19: CTC loss, label helpers and decoders) ------------------------


def _nn_ctc_logits(g):
    frames, batch, classes = g.int_in(1, 6), g.int_in(1, 3), g.int_in(2, 5)
    dtype = g.pick((tf.float32, tf.float64)) if g.p(0.85) else g.pick(DTYPES)
    return frames, batch, classes, g.tensor(dtype=dtype, dims=[frames, batch, classes])


@spec("tf.nn.ctc_loss")
def _nn_ctc_loss(g):
    frames, batch, classes, logits = _nn_ctc_logits(g)
    width = g.int_in(1, 4)
    labels = g.indices([batch, width], classes)
    label_length = [g.int_in(0, width) for _ in range(batch)]
    logit_length = [g.int_in(0, frames) for _ in range(batch)]
    if g.bad():
        logit_length = g.pick((logit_length[:-1], [frames + 3] * batch, g.junk()))
    kwargs = {"logits_time_major": g.flag()}
    if g.p(0.5):
        kwargs["blank_index"] = g.int_in(-classes, classes - 1)
    return [labels, logits, label_length, logit_length], kwargs


@spec("tf.nn.collapse_repeated", "tf.nn.ctc_unique_labels")
def _nn_ctc_labels(g):
    batch, width = g.int_in(1, 3), g.int_in(1, 5)
    labels = g.indices([batch, width], 4) if not g.bad() else g.tensor()
    if g.p(0.5):
        return [labels], {}
    lengths = [g.int_in(0, width) for _ in range(batch)]
    return [labels, lengths if not g.bad() else g.junk()], {}


@spec("tf.nn.ctc_greedy_decoder", "tf.nn.ctc_beam_search_decoder")
def _nn_ctc_decoders(g):
    frames, batch, _, logits = _nn_ctc_logits(g)
    lengths = tf.constant([g.int_in(0, frames) for _ in range(batch)], tf.int32)
    if g.bad():
        lengths = g.pick((lengths[:-1], tf.fill([batch], frames + 1), g.junk()))
    return [logits, lengths], {}


# --- tf.nn / tf.random, the rest (issue 19: candidate samplers and sampled losses) ----------


def _sampler_classes(g, range_max):
    batch, num_true = g.int_in(1, 3), g.int_in(1, 3)
    classes = g.indices([batch, num_true], range_max, pool=(tf.int64,))
    if g.bad():
        classes = g.pick((g.tensor(), g.indices([batch, num_true], range_max + 3)))
    return classes, num_true, batch


@spec(
    "tf.random.uniform_candidate_sampler",
    "tf.random.log_uniform_candidate_sampler",
    "tf.random.learned_unigram_candidate_sampler",
)
def _random_range_sampler(g):
    range_max = g.int_in(1, 8)
    classes, num_true, _ = _sampler_classes(g, range_max)
    num_sampled = g.int_in(1, 6) if not g.bad() else g.int_in(-1, 12)
    return [classes, num_true, num_sampled, g.flag(), range_max], {"seed": g.seed()}


@spec("tf.random.fixed_unigram_candidate_sampler")
def _random_fixed_unigram(g):
    range_max = g.int_in(2, 8)
    classes, num_true, _ = _sampler_classes(g, range_max)
    reserved = g.int_in(0, 1)
    unigrams = [float(g.int_in(1, 5)) for _ in range(range_max - reserved + (1 if g.bad() else 0))]
    kwargs = {"unigrams": unigrams, "num_reserved_ids": reserved, "distortion": g.pick((1.0, 0.5))}
    return [classes, num_true, g.int_in(1, 3), False, range_max], kwargs


@spec("tf.random.all_candidate_sampler")
def _random_all_sampler(g):
    num_sampled = g.int_in(1, 8)
    classes, num_true, _ = _sampler_classes(g, num_sampled)
    return [classes, num_true, num_sampled, g.flag()], {}


@spec("tf.nn.compute_accidental_hits")
def _nn_accidental_hits(g):
    classes, num_true, _ = _sampler_classes(g, 6)
    sampled = g.indices([g.int_in(0, 5)], 6, pool=(tf.int64,)) if not g.bad() else g.tensor()
    return [classes, sampled, num_true], {}


@spec("tf.nn.nce_loss", "tf.nn.sampled_softmax_loss")
def _nn_sampled_losses(g):
    classes, dim = g.int_in(2, 8), g.int_in(1, 4)
    labels, num_true, batch = _sampler_classes(g, classes)
    weights = g.tensor(dtype=tf.float32, dims=[classes, dim])
    biases = g.tensor(dtype=tf.float32, dims=[classes if not g.bad() else classes + 1])
    inputs = g.tensor(dtype=tf.float32, dims=[batch, dim])
    num_sampled = g.int_in(1, classes)
    kwargs = {"num_true": num_true, "remove_accidental_hits": g.flag()}
    return [weights, biases, labels, inputs, num_sampled, classes], kwargs


# --- tf.nn, the rest (issue 19: sparse embedding lookups) -----------------------------------


@spec("tf.nn.embedding_lookup_sparse", "tf.nn.safe_embedding_lookup_sparse")
def _nn_embedding_lookup_sparse(g):
    rows, width, vocab = g.int_in(1, 4), g.int_in(1, 3), g.int_in(1, 6)
    dense = g.rng.integers(-1 if g.bad() else 0, vocab + (2 if g.bad() else 0), [rows, width])
    keep = g.rng.random([rows, width]) < 0.6
    indices = np.argwhere(keep)
    ids = tf.sparse.SparseTensor(indices, dense[keep].astype(np.int64), [rows, width])
    weights = None
    if g.p(0.5):
        values = g.rng.uniform(-0.5 if g.bad() else 0.1, 2.0, len(indices)).astype(np.float32)
        weights = tf.sparse.SparseTensor(indices, values, [rows, width])
    params = g.tensor(dtype=tf.float32, dims=[vocab, g.int_in(1, 3)])
    combiner = g.pick(("mean", "sum", "sqrtn")) if not g.bad() else g.junk()
    return [params, ids, weights], {"combiner": combiner}


# --- tf.nn, the rest (issue 19: isotonic regression) ----------------------------------------


@spec("tf.nn.isotonic_regression")
def _nn_isotonic_regression(g):
    dims = g.dims(min_rank=1 if not g.bad() else 0)
    x = g.tensor(FLOATS + INTS if g.p(0.9) else DTYPES, dims)
    axis = g.axis(len(dims)) if dims and not g.bad() else g.pick((0, 5, -7, "a"))
    return [x], {"decreasing": g.flag(), "axis": axis}


# --- tf.random, the rest (issue 19: parameterized truncated normal) -------------------------


@spec("tf.random.stateless_parameterized_truncated_normal")
def _random_param_truncated_normal(g):
    dims = g.dims(max_dim=4)
    dtype = g.pick((tf.float32, tf.float64, tf.float16)) if not g.bad() else g.pick(FLOATS)
    low = g.pick((-2.0, -1.0, 0.5, 3.0))
    params = {
        "means": tf.constant(g.pick((0.0, 1.0, -3.0)), dtype),
        "stddevs": tf.constant(g.pick((1.0, 0.5, 2.0)), dtype),
        "minvals": tf.constant(low, dtype),
        "maxvals": tf.constant(low + g.pick((0.5, 2.0, 6.0)) * (-1 if g.bad() else 1), dtype),
    }
    seed = [g.int_in(0, 9), g.int_in(0, 9)] if not g.bad() else g.junk()
    return [g.shape(dims), seed], params


# --- tf.nn, the rest (issue 19: fractional pooling) -----------------------------------------


@spec("tf.nn.fractional_max_pool", "tf.nn.fractional_avg_pool")
def _nn_fractional_pool(g):
    dims = g.dims(rank=4 if not g.bad() else g.int_in(2, 5), max_dim=6)
    x = g.tensor((tf.float32, tf.float64, tf.int32, tf.int64) if g.p(0.9) else DTYPES, dims)
    ratio = [1.0, g.pick((1.0, 1.5, 2.0)), g.pick((1.0, 1.44, 3.0)), 1.0]
    if g.bad():
        ratio = g.pick((0.5, [2.0, 1.5, 1.5, 1.0], "2", None, 1.5))
    kwargs = {"pseudo_random": g.flag(), "overlapping": g.flag(), "seed": g.int_in(0, 5)}
    return [x, ratio], kwargs


# --- tf.nn, the rest (issue 19: legacy RNN cell wrappers) -----------------------------------


class _FuzzCell(tf.keras.layers.Layer):
    """A stateless cell for the wrappers: output and state are the input."""

    state_size = 2
    output_size = 2

    def call(self, inputs, states):
        return inputs, [inputs]


@spec("tf.nn.RNNCellDropoutWrapper", "tf.nn.RNNCellResidualWrapper")
def _nn_rnn_cell_wrappers(g):
    if g.bad():
        return [g.junk()], {"input_keep_prob": g.pick((1.5, -1.0, "a"))}
    return [_FuzzCell()], {}


@spec("tf.nn.RNNCellDeviceWrapper")
def _nn_rnn_device_wrapper(g):
    return [_FuzzCell() if not g.bad() else g.junk(), g.pick(("/cpu:0", "GPU:0"))], {}


# --- Tensor methods --------------------------------------------------------------------------
#
# TENSOR_METHODS maps "Tensor.<name>" to a function taking (tensor, *args). Reflected operators
# (``__radd__``) are reached the way Python reaches them: with a plain value on the left.

_BINARY_OPERATORS = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "matmul": operator.matmul,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
}
_COMPARISONS = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


def _reflected(fn):
    return lambda t, other: fn(other, t)


def _as_list(t):
    return list(iter(t))


def _pickle_round_trip(t):
    return pickle.loads(pickle.dumps(t))


TENSOR_METHODS = {
    **{f"Tensor.__{n}__": f for n, f in _BINARY_OPERATORS.items()},
    **{f"Tensor.__r{n}__": _reflected(f) for n, f in _BINARY_OPERATORS.items()},
    **{f"Tensor.__{n}__": f for n, f in _COMPARISONS.items()},
    "Tensor.__neg__": operator.neg,
    "Tensor.__pos__": operator.pos,
    "Tensor.__abs__": operator.abs,
    "Tensor.__invert__": operator.invert,
    "Tensor.__bool__": bool,
    "Tensor.__int__": int,
    "Tensor.__float__": float,
    "Tensor.__complex__": complex,
    "Tensor.__index__": operator.index,
    "Tensor.__len__": len,
    "Tensor.__iter__": _as_list,
    "Tensor.__hash__": hash,
    "Tensor.__repr__": repr,
    "Tensor.__str__": str,
    "Tensor.__format__": format,
    "Tensor.__array__": np.asarray,
    "Tensor.__reduce__": _pickle_round_trip,
    "Tensor.__getitem__": operator.getitem,
    "Tensor.numpy": lambda t: t.numpy(),
    "Tensor.ref": lambda t: hash(t.ref()) and t.ref().deref(),
    "Tensor.shape": lambda t: t.shape,
    "Tensor.dtype": lambda t: t.dtype,
    "Tensor.ndim": lambda t: t.ndim,
    "Tensor.device": lambda t: t.device,
    "Tensor.set_shape": lambda t, shape: t.set_shape(shape),
    "Tensor.__dlpack__": lambda t, *a, **k: tf.experimental.dlpack.from_dlpack(
        t.__dlpack__(*a, **k)
    ),
    "Tensor.__dlpack_device__": lambda t: t.__dlpack_device__(),
    "Tensor.__round__": round,
}


# Tensor attributes that are not part of the op surface.
# `__dict__`: tensors take attributes as TensorFlow's do (Keras's `_keras_mask`).
TENSOR_NOT_OPS = {"__module__", "__array_priority__", "_dims", "_dtype_enum", "__dict__"}


def _operand(g, t):
    """The other operand of a Tensor operator: a tensor, a Python value or an ndarray."""
    dims = g.broadcast_dims(list(t.shape.as_list()))
    dtype = t.dtype if g.p(0.7) else g.pick(DTYPES)
    choice = g.int_in(0, 9)
    if choice <= 4:
        return tf.constant(g.array(dtype, dims))
    if choice <= 7:
        return g.number((dtype,))
    if choice == 8:
        return g.array(dtype, dims)
    return g.junk() if g.p(0.5) else g.array(dtype, dims).tolist()


def _binary_operator_spec(g):
    t = g.real_tensor()
    if g.p(0.1):  # matmul-friendly shapes
        k = g.int_in(0, 3)
        t = g.real_tensor(dims=[g.int_in(0, 3), k])
        return [t, g.tensor(dtype=t.dtype, dims=[k, g.int_in(0, 3)])], {}
    return _operands(g, t)


def _operands(g, t):
    other = _operand(g, t)
    if isinstance(other, (str, bytes, list, tuple)) and t.dtype.is_integer and t.ndim == 0:
        # Python repeats a sequence by an integer scalar (via __index__): keep the count small.
        t = tf.constant(np.array(3, t.dtype.as_numpy_dtype))
    return [t, other], {}


def _reflected_operator_spec(g):
    return _operands(g, g.real_tensor())


for _name in TENSOR_METHODS:
    _method = _name.split(".", 1)[1].strip("_")
    if _method in _BINARY_OPERATORS or _method in _COMPARISONS:
        spec(_name)(_binary_operator_spec)
    elif _method.startswith("r") and _method[1:] in _BINARY_OPERATORS:
        spec(_name)(_reflected_operator_spec)


@spec("Tensor.__neg__", "Tensor.__pos__", "Tensor.__abs__", "Tensor.__invert__")
@spec("Tensor.__bool__", "Tensor.__int__", "Tensor.__float__", "Tensor.__complex__")
@spec("Tensor.__index__", "Tensor.__len__", "Tensor.__iter__", "Tensor.__hash__")
@spec("Tensor.__repr__", "Tensor.__str__", "Tensor.__reduce__", "Tensor.numpy")
@spec("Tensor.shape", "Tensor.dtype", "Tensor.ndim", "Tensor.device", "Tensor.ref")
def _tensor_unary(g):
    dims = [] if g.p(0.4) else g.dims()
    return [g.real_tensor(dims=dims)], {}


# Tensor.__round__ is tf.experimental.numpy.around, which needs Tensor.astype (AttributeError
# before experimental_enable_numpy_behavior, as in TensorFlow).
EAGER_REFUSALS["Tensor.__round__"] = AttributeError


@spec("Tensor.__round__")
def _tensor_round(g):
    return [g.real_tensor(), *([g.int_in(-2, 3)] if g.p(0.5) else [])], {}


@spec("Tensor.__dlpack__", "Tensor.__dlpack_device__")
def _tensor_dlpack(g):
    dtype = g.pick(DTYPES)
    t = tf.constant(g.array(dtype, g.dims()), dtype)
    if not g.bad():
        return [t], {}
    return [t], g.pick(
        (
            {"stream": g.junk()},
            {"dl_device": g.pick(((2, 0), (1, 0), g.junk()))},
            {"copy": g.pick((True, False, g.junk()))},
            {"max_version": g.pick(((1, 0), g.junk()))},
        )
    )


@spec("Tensor.__format__")
def _tensor_format(g):
    dims = [] if g.p(0.6) else g.dims(max_rank=2)
    fmt = g.pick(("", ".2f", "d", "x", ">10", "e", "%", "!", "junk", "{}"))
    return [g.real_tensor(dims=dims), fmt], {}


@spec("Tensor.__array__")
def _tensor_array(g):
    kwargs = {"dtype": g.pick(DTYPES).as_numpy_dtype} if g.p(0.4) else {}
    return [g.real_tensor()], kwargs


@spec("Tensor.set_shape")
def _tensor_set_shape(g):
    dims = g.dims()
    t = g.real_tensor(dims=dims)
    if g.p(0.5):
        # Compatible: some sizes left unknown (or the rank); else another shape.
        shape = None if g.p(0.1) else [None if g.p(0.3) else d for d in dims]
        return [t, shape], {}
    return [t, g.shape()], {}


def _index_item(g, d):
    """One element of an index for an axis of size ``d`` (None: no axis left)."""
    kind = g.pick(("int", "slice", "slice", "ellipsis", "newaxis"))
    if kind == "int":
        value = g.int_in(-d, d - 1) if d else 0
        return g.bad_int() if g.bad() else g.integer(value)
    if kind == "slice":
        parts = [None if g.p(0.4) else g.int_in(-7, 7) for _ in range(2)]
        step = g.pick((None, None, 1, -1, 2, -3))
        if g.bad():
            step = g.pick((0, *HUGE, *NEGATIVE, *OVERFLOW, 1.5))
            parts[g.int_in(0, 1)] = g.pick((*HUGE, *OVERFLOW, -(2**63), "a"))
        return slice(parts[0], parts[1], step)
    return Ellipsis if kind == "ellipsis" else None


@spec("Tensor.__getitem__")
def _tensor_getitem(g):
    dims = g.dims()
    t = g.real_tensor(dims=dims)
    choice = g.int_in(0, 9)
    if choice == 0 and dims:  # a boolean mask over the leading axes
        mask_dims = dims[: g.int_in(1, len(dims))]
        return [t, tf.constant(g.array(tf.bool, mask_dims))], {}
    if choice == 1:
        return [t, g.pick((g.junk(), tf.constant(1.0), tf.constant([0, 1]), [0, 1]))], {}
    items = [_index_item(g, dims[i] if i < len(dims) else 0) for i in range(g.int_in(0, 5))]
    if len(items) == 1 and g.p(0.5):
        return [t, items[0]], {}
    return [t, tuple(items)], {}


# --- tf.signal (issue 19, signal helper) --------------------------------------------------------

SIGNAL_COMPLEX = ("fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d")
SIGNAL_REAL = ("rfft", "rfft2d", "rfft3d", "irfft", "irfft2d", "irfft3d")
SIGNAL_ND = ("fftnd", "ifftnd", "rfftnd", "irfftnd")


@spec(*(f"tf.signal.{n}" for n in SIGNAL_COMPLEX))
def _signal_complex(g):
    return [g.tensor(pool=COMPLEX if not g.p(0.1) else FLOATS, dims=g.dims(max_dim=9))], {}


@spec(*(f"tf.signal.{n}" for n in SIGNAL_REAL))
def _signal_real(g):
    pool = COMPLEX if g.p(0.5) else (tf.float32, tf.float64)
    x = g.tensor(pool=pool, dims=g.dims(max_dim=9))
    rank = g.int_in(0, 3)
    lengths = [g.int_in(0, 12) for _ in range(rank)] if not g.bad() else g.junk()
    return [x], {"fft_length": lengths} if g.p(0.6) else {}


@spec(*(f"tf.signal.{n}" for n in SIGNAL_ND))
def _signal_nd(g):
    pool = COMPLEX if g.p(0.5) else (tf.float32, tf.float64)
    dims = g.dims(min_rank=1, max_rank=3, max_dim=7)
    kwargs = {}
    if g.p(0.5):
        count = g.int_in(1, len(dims))
        kwargs["axes"] = [g.int_in(-len(dims), len(dims) - 1) for _ in range(count)]
    if g.p(0.4):
        kwargs["fft_length"] = [g.int_in(0, 9) for _ in range(len(kwargs.get("axes", dims)))]
    if g.p(0.3):
        kwargs["norm"] = g.pick(("backward", "forward", "ortho", "bogus"))
    return [g.tensor(pool=pool, dims=dims)], kwargs


@spec("tf.signal.fftshift", "tf.signal.ifftshift")
def _signal_shift(g):
    dims = g.dims(min_rank=1)
    x = g.tensor(dims=dims)
    rank = len(dims)
    axes = g.pick((None, g.int_in(-rank, max(rank - 1, 0)), list(range(rank))))
    return [x], {"axes": axes if not g.bad() else g.junk()}


@spec("tf.signal.hann_window", "tf.signal.hamming_window")
def _signal_raised_cosine(g):
    n = g.int_in(0, 40) if not g.bad() else g.junk()
    return [n], {"periodic": g.flag(), "dtype": g.dtype(pool=(tf.float32, tf.float64))}


@spec("tf.signal.kaiser_window", "tf.signal.kaiser_bessel_derived_window")
def _signal_kaiser(g):
    n = g.int_in(0, 40) if not g.bad() else g.junk()
    beta = g.pick((0.0, 1.5, 12.0, 40.0)) if not g.bad() else g.junk()
    return [n], {"beta": beta, "dtype": g.dtype(pool=(tf.float32, tf.float64))}


@spec("tf.signal.vorbis_window")
def _signal_vorbis(g):
    n = g.int_in(0, 40) if not g.bad() else g.junk()
    return [n], {"dtype": g.dtype(pool=(tf.float32, tf.float64))}


@spec("tf.signal.frame")
def _signal_frame(g):
    dims = g.dims(min_rank=1, max_dim=12)
    x = g.tensor(dims=dims)
    rank = len(dims)
    kwargs = {"pad_end": g.flag(), "axis": g.int_in(-rank, rank - 1)}
    length = g.int_in(0, 6) if not g.bad() else g.junk()
    return [x, length, g.int_in(1, 5) if not g.bad() else 0], kwargs


@spec("tf.signal.overlap_and_add")
def _signal_overlap_and_add(g):
    x = g.tensor(pool=FLOATS + INTS, dims=g.dims(min_rank=2, max_rank=4, max_dim=6))
    return [x, g.int_in(1, 7) if not g.bad() else g.junk()], {}


@spec("tf.signal.stft", "tf.signal.mdct")
def _signal_stft(g):
    x = g.tensor(pool=(tf.float32, tf.float64), dims=g.dims(min_rank=1, max_rank=3, max_dim=40))
    length = g.pick((4, 8, 12, 16, 6)) if not g.bad() else g.junk()
    if g.p(0.5):
        return [x, length], {"pad_end": g.flag()}
    return [x, length, g.int_in(1, 8)], {"pad_end": g.flag()}


@spec("tf.signal.inverse_stft")
def _signal_inverse_stft(g):
    x = g.tensor(pool=COMPLEX, dims=g.dims(min_rank=2, max_rank=3, max_dim=9))
    return [x, g.pick((4, 8, 16)), g.int_in(1, 8)], {"fft_length": g.pick((None, 8, 16))}


@spec("tf.signal.inverse_mdct")
def _signal_inverse_mdct(g):
    dims = g.dims(min_rank=2, max_rank=3, max_dim=5)
    dims[-1] = g.pick((2, 4, 6, 8)) if not g.bad() else dims[-1]
    return [g.tensor(pool=(tf.float32, tf.float64), dims=dims)], {"norm": g.pick((None, "ortho"))}


@spec("tf.signal.inverse_stft_window_fn")
def _signal_inverse_window(g):
    return [g.int_in(1, 8) if not g.bad() else g.junk()], {}


@spec("tf.signal.dct", "tf.signal.idct")
def _signal_dct(g):
    x = g.tensor(pool=(tf.float32, tf.float64), dims=g.dims(min_rank=1, max_dim=9))
    kwargs = {"type": g.pick((1, 2, 3, 4)) if not g.bad() else g.junk()}
    if g.p(0.3):
        kwargs["norm"] = g.pick((None, "ortho", "bogus"))
    if g.p(0.3):
        kwargs["n"] = g.int_in(0, 10)
    return [x], kwargs


@spec("tf.signal.linear_to_mel_weight_matrix")
def _signal_mel(g):
    kwargs = {"num_mel_bins": g.int_in(0, 30), "num_spectrogram_bins": g.int_in(2, 80)}
    kwargs["sample_rate"] = g.pick((8000, 16000, 100))
    kwargs["lower_edge_hertz"] = g.pick((0.0, 20.0, 125.0, -1.0))
    kwargs["upper_edge_hertz"] = g.pick((50.0, 3800.0, 8000.0))
    kwargs["dtype"] = g.dtype(pool=(tf.float32, tf.float64))
    return [], kwargs


@spec("tf.signal.mfccs_from_log_mel_spectrograms")
def _signal_mfccs(g):
    return [g.tensor(pool=(tf.float32, tf.float64), dims=g.dims(min_rank=1, max_dim=9))], {}


# --- tf.image / tf.io image codecs (issue 19: codecs helper) ---------------------------------
# Valid files of every format, cut short, bit-flipped or replaced by junk: a decoder must give
# an image or InvalidArgumentError, never crash.
# As convert_image_dtype (which they call), TensorFlow refuses a string or complex image with
# AttributeError.
EAGER_REFUSALS.update(
    {
        f"tf.image.{n}": AttributeError
        for n in "adjust_jpeg_quality random_jpeg_quality stateless_random_jpeg_quality "
        "decode_image".split()
    }
)
_CODEC_FILES = []
_JXL_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "jxl"


def _codec_files():
    if not _CODEC_FILES:
        from parity import _codec_files as files

        img = (np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3) * 3).astype(np.uint8)
        palette = bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 9, 9, 9])
        _CODEC_FILES.extend(
            [
                tf.io.encode_png(img).numpy(),
                tf.io.encode_png(img.astype(np.uint16) * 257).numpy(),
                tf.io.encode_jpeg(img).numpy(),
                tf.io.encode_jpeg(img[..., :1], progressive=True).numpy(),
                files.gif(
                    3, 2, palette, [(0, 0, 3, 2, [0, 1, 2, 3, 2, 1], 3), (1, 0, 2, 1, [1, 2], None)]
                ),
                files.bmp(2, 2, 24, [bytes(6) + b"\0\0", bytes(range(6)) + b"\0\0"]),
                files.webp_solid(3, 2, (9, 8, 7, 6), True),
            ]
            + [p.read_bytes() for p in sorted(_JXL_FIXTURES.glob("*_lossless.jxl"))[:2]]
        )
    return _CODEC_FILES


def _image_bytes(g):
    if g.bad():
        return g.strings(dims=g.pick(([], [2])))
    blob = bytearray(g.pick(_codec_files()))
    mode = g.pick(("whole", "cut", "flip", "flips"))
    if mode == "cut":
        blob = blob[: g.int_in(0, len(blob))]
    elif mode in ("flip", "flips"):
        for _ in range(1 if mode == "flip" else g.int_in(2, 20)):
            k = g.int_in(0, len(blob) - 1)
            blob[k] ^= 1 << g.int_in(0, 7)
    return bytes(blob)


def _codec_channels(g):
    return g.pick((0, 1, 3, 4)) if not g.bad() else g.pick((2, -1, 5))


@spec("tf.image.decode_png", "tf.image.decode_webp")
def _decode_png(g):
    dtype = g.pick((tf.uint8, tf.uint16)) if not g.bad() else g.dtype()
    return [_image_bytes(g)], {"channels": _codec_channels(g), "dtype": dtype}


@spec("tf.image.decode_jxl")
def _decode_jxl(g):
    dtype = tf.uint8 if not g.bad() else g.dtype()
    return [_image_bytes(g)], {"channels": _codec_channels(g), "dtype": dtype}


@spec("tf.image.decode_gif", "tf.image.is_jpeg")
def _decode_gif(g):
    return [_image_bytes(g)], {}


@spec("tf.image.decode_bmp")
def _decode_bmp(g):
    return [_image_bytes(g)], {"channels": _codec_channels(g)}


@spec("tf.image.extract_jpeg_shape")
def _extract_jpeg_shape(g):
    return [_image_bytes(g)], {
        "output_type": g.pick((tf.int32, tf.int64)) if not g.bad() else g.dtype()
    }


@spec("tf.image.decode_image")
def _decode_image(g):
    dtype = g.pick((tf.uint8, tf.uint16, tf.float32, tf.float16)) if not g.bad() else g.dtype()
    return [_image_bytes(g)], {
        "channels": g.pick((None, 0, 1, 3, 4)),
        "dtype": dtype,
        "expand_animations": g.flag(),
    }


def _jpeg_options(g):
    return {
        "channels": _codec_channels(g),
        "ratio": g.pick((1, 2, 4, 8)) if not g.bad() else g.pick((0, 3, 16)),
        "fancy_upscaling": g.flag(),
        "try_recover_truncated": g.flag(),
        "acceptable_fraction": g.pick((1.0, 0.5, 0.0)),
        "dct_method": g.pick(("", "INTEGER_FAST", "INTEGER_ACCURATE")) if not g.bad() else "FLOAT",
    }


@spec("tf.image.decode_jpeg")
def _decode_jpeg(g):
    return [_image_bytes(g)], _jpeg_options(g)


@spec("tf.image.decode_and_crop_jpeg")
def _decode_and_crop_jpeg(g):
    # Mostly windows inside the small test images (so that some calls succeed), sometimes
    # negative or past the edge.
    if g.p(0.7):
        window = [g.int_in(0, 1), g.int_in(0, 1), g.int_in(1, 2), g.int_in(1, 2)]
    else:
        window = [g.int_in(-1, 4), g.int_in(-1, 4), g.int_in(0, 5), g.int_in(0, 5)]
    jpegs = [b for b in _codec_files() if b[:2] == b"\xff\xd8"]
    contents = g.pick(jpegs) if jpegs and g.p(0.5) else _image_bytes(g)
    return [contents, window if not g.bad() else g.junk()], _jpeg_options(g)


@spec("tf.image.encode_png")
def _encode_png(g):
    image = _image(g, pool=(tf.uint8, tf.uint16), channels=g.pick((1, 2, 3, 4)))
    return [image], {"compression": g.pick((-1, 0, 6, 9)) if not g.bad() else g.pick((10, -2))}


@spec("tf.image.encode_jpeg")
def _encode_jpeg(g):
    image = _image(g, pool=(tf.uint8,), channels=g.pick((1, 3)), rank=3)
    return [image], {
        "format": g.pick(("", "rgb", "grayscale")) if not g.bad() else "cmyk",
        "quality": g.pick((0, 50, 95, 100)) if not g.bad() else g.pick((-1, 101)),
        "progressive": g.flag(),
        "optimize_size": g.flag(),
        "chroma_downsampling": g.flag(),
        "density_unit": g.pick(("in", "cm")) if not g.bad() else "mm",
        "x_density": g.pick((1, 300, 65535)),
        "y_density": g.pick((1, 72)),
        "xmp_metadata": g.pick(("", "<x/>")),
    }


@spec("tf.image.adjust_jpeg_quality")
def _adjust_jpeg_quality(g):
    image = _image(g, pool=(tf.uint8, tf.float32), channels=g.pick((1, 3)), rank=3)
    return [image, g.pick((0, 40, 100)) if not g.bad() else g.pick((-1, 101))], {}


@spec("tf.image.random_jpeg_quality", "tf.image.stateless_random_jpeg_quality")
def _random_jpeg_quality(g):
    image = _image(g, pool=(tf.uint8, tf.float32), channels=g.pick((1, 3)), rank=3)
    low, high = g.pick(((10, 90), (0, 100), (50, 50), (-1, 5), (80, 20)))
    return [image, low, high], {"seed": _image_seed(g)}


# --- tf.io files and decoders (io-files) -----------------------------------------------------

_IO_DIR = Path(tempfile.gettempdir()) / "ferroflow_fuzz_io"


def _io_path(g):
    """A path inside the fuzzer's own directory (existing file, missing file, directory)."""
    _IO_DIR.mkdir(exist_ok=True)
    (_IO_DIR / "a.txt").write_bytes(b"abc\n1,2\n")
    return str(_IO_DIR / g.pick(("a.txt", "missing", "", "sub/b.txt", "*.txt", "[a")))


@spec("tf.io.read_file", "tf.io.matching_files", "tf.io.match_filenames_once")
def _io_path_op(g):
    return [_io_path(g) if not g.bad() else g.junk()], {}


@spec("tf.io.write_file")
def _io_write_file(g):
    contents = g.strings(dims=[]) if not g.bad() else g.strings()
    return [_io_path(g) if not g.bad() else g.junk(), contents], {}


@spec("tf.io.decode_raw")
def _io_decode_raw(g):
    kwargs = {"little_endian": g.flag()}
    if g.p(0.4):
        kwargs["fixed_length"] = g.int_in(-2, 9) if g.bad() else g.int_in(0, 4) * 8
    out_type = g.dtype() if g.p(0.3) else g.pick((tf.uint8, tf.int16, tf.float32))
    return [g.strings(), out_type], kwargs


@spec("tf.io.decode_csv")
def _io_decode_csv(g):
    n = g.int_in(0 if g.bad() else 1, 3)
    delim = g.pick((",", "|", "\t", "ab" if g.bad() else ","))
    if g.p(0.5):  # well-formed records of n fields, some empty or quoted
        cells = ("1", "", "-2.5", '"a,b"', "x", "NA", "7")
        rows = [delim.join(g.pick(cells) for _ in range(n)) for _ in range(g.int_in(0, 4))]
        records = np.array(rows, dtype=object).reshape(len(rows))
    else:
        records = g.strings()
    pool = ([0], [0.0], [""], tf.constant([], tf.int64), tf.constant([0.5], tf.float64), [[1]])
    defaults = [g.pick(pool if g.bad() else pool[:-1]) for _ in range(n)]
    kwargs = {"field_delim": delim}
    kwargs["use_quote_delim"] = g.flag()
    if g.p(0.2):
        kwargs["na_value"] = g.pick(("", "NA", "1"))
    if g.p(0.2):
        kwargs["select_cols"] = sorted(g.rng.choice(5, size=n, replace=False).tolist())
    return [records, defaults], kwargs


@spec("tf.io.encode_base64")
def _io_encode_base64(g):
    return [g.strings()], {"pad": g.flag()}


@spec("tf.io.decode_base64")
def _io_decode_base64(g):
    x = g.strings()
    if g.p(0.5) and isinstance(x, tf.Tensor) and x.dtype == tf.string:
        x = tf.io.encode_base64(x, pad=g.p(0.5))
    return [x], {}


@spec("tf.io.decode_compressed")
def _io_decode_compressed(g):
    import gzip
    import zlib

    kind = g.pick(("", "ZLIB", "GZIP")) if not g.bad() else g.pick(("ZSTD", "BAD", "zlib"))
    blob = g.pick((b"", b"hello" * 20, bytes(range(256))))
    blob = zlib.compress(blob) if kind == "ZLIB" else gzip.compress(blob) if kind else blob
    if g.p(0.5):
        cut = bytearray(blob[: g.int_in(0, len(blob))])
        if cut and g.p(0.5):
            cut[g.int_in(0, len(cut) - 1)] ^= 1 << g.int_in(0, 7)
        blob = bytes(cut)
    return [[blob] if g.p(0.5) else blob, kind], {}


_PROTO_LISTS = (
    ("tensorflow.Int64List", tf.int64, "int64_list"),
    ("tensorflow.FloatList", tf.float32, "float_list"),
    ("tensorflow.BytesList", tf.string, "bytes_list"),
)


def _fuzz_proto_bytes(g):
    """Serialized Int64List/FloatList/BytesList messages, truncated, bit-flipped or hostile
    (a length or varint far past the end)."""
    values = [g.int_in(-(2**40), 2**40) for _ in range(g.int_in(0, 4))]
    blob = tf.train.Int64List(value=values).SerializeToString()
    if g.p(0.3):
        blob = blob[: g.int_in(0, len(blob))]
    if g.p(0.2) and blob:
        flipped = bytearray(blob)
        flipped[g.int_in(0, len(flipped) - 1)] ^= 1 << g.int_in(0, 7)
        blob = bytes(flipped)
    if g.p(0.2):
        blob = g.pick((b"\x0a\xff\xff\xff\xff\x0f", b"\x08" + b"\xff" * 11, b"\x0b" * 3))
    return blob


@spec("tf.io.decode_proto")
def _io_decode_proto(g):
    message, dtype, _ = g.pick(_PROTO_LISTS)
    blobs = [_fuzz_proto_bytes(g) for _ in range(g.int_in(0, 3))]
    if g.bad():
        message = g.pick((message, "tensorflow.NoSuchMessage", ""))
        dtype = g.dtype()
    names = ["value"] if not g.bad() else g.pick((["nope"], [], ["value", "value"]))
    kwargs = {"sanitize": g.flag()}
    if g.p(0.2):
        kwargs["message_format"] = g.pick(("text", "binary", "json" if g.bad() else "binary"))
    return [blobs if g.p(0.7) else (blobs[:1] or b""), message, names, [dtype] * len(names)], kwargs


@spec("tf.io.encode_proto")
def _io_encode_proto(g):
    message, dtype, _ = g.pick(_PROTO_LISTS)
    batch, width = g.int_in(0, 3), g.int_in(0, 3)
    sizes = g.rng.integers(0, width + 1, size=(batch, 1)).astype(np.int32)
    if dtype == tf.string:
        values = tf.constant([[b"ab"] * width] * batch, shape=[batch, width], dtype=tf.string)
    else:
        values = tf.ones([batch, width], dtype)
    if g.bad():
        sizes = g.pick((sizes - 2, sizes[:, :0], np.zeros((batch + 1, 1), np.int32), g.junk()))
        message = g.pick((message, "tensorflow.NoSuchMessage"))
    names = ["value"] if not g.bad() else g.pick((["nope"], ["value", "value"]))
    return [sizes, [values] * len(names), names, message], {}


@spec("tf.io.serialize_sparse", "tf.io.serialize_many_sparse")
def _io_serialize_sparse(g):
    n = g.int_in(0, 4)
    rank = g.int_in(1, 3)
    indices = np.sort(g.rng.integers(0, 3, size=(n, rank)), axis=0)
    values = g.strings(dims=[n]) if g.p(0.3) else g.array(g.pick((tf.float32, tf.int64)), [n])
    try:
        sp = tf.sparse.SparseTensor(indices, values, [3] * rank)
    except (TypeError, ValueError):  # junk values from a bad draw: junk input
        sp = g.junk()
    return [sp if not g.bad() else g.junk()], {}


@spec("tf.io.deserialize_many_sparse")
def _io_deserialize_many_sparse(g):
    sp = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 4])
    data = tf.io.serialize_many_sparse(sp).numpy()
    if g.p(0.3):
        data = data.copy()
        data[g.int_in(0, 2), g.int_in(0, 2)] = data[0, 0][: g.int_in(0, 8)]
    dtype = tf.float32 if not g.bad() else g.dtype()
    return [data if not g.bad() else g.junk(), dtype], {"rank": g.pick((None, 2, 3))}


# --- tf.lookup (lookup) -----------------------------------------------------------------------
# Constructors fill their tables at once, so fuzzed keys, values and text files reach the import,
# duplicate, shape and parsing checks; the host functions behind lookups get the same stores.

_LOOKUP_KEYS = (tf.string, tf.int64, tf.int32)
# Given a non-initializer, TensorFlow's tables read its key_dtype: AttributeError, kept.
EAGER_REFUSALS.update(
    {f"tf.lookup.{n}": AttributeError for n in ("StaticHashTable", "StaticVocabularyTable")}
)
_LOOKUP_VALUES = (tf.string, tf.int64, tf.int32, tf.float32, tf.float64, tf.bool)


def _lookup_pair(g):
    """Keys and values for a KeyValueTensorInitializer: matching, or mismatched when bad."""
    n = g.int_in(0 if g.bad() else 1, 4)
    key_dtype, value_dtype = g.pick(_LOOKUP_KEYS), g.pick(_LOOKUP_VALUES)
    keys = g.strings(dims=[n]) if key_dtype == tf.string else g.array(key_dtype, [n])
    if key_dtype != tf.string and g.p(0.5):
        keys = np.unique(keys)
    m = n if not g.bad() else g.int_in(0, 4)
    values = g.strings(dims=[m]) if value_dtype == tf.string else g.array(value_dtype, [m])
    return keys, values


@spec("tf.lookup.KeyValueTensorInitializer")
def _lookup_kv_initializer(g):
    keys, values = _lookup_pair(g)
    kwargs = {"key_dtype": g.dtype()} if g.bad() else {}
    return [keys if not g.bad() else g.junk(), values], kwargs


def _lookup_text_file(g):
    _IO_DIR.mkdir(exist_ok=True)
    lines = ("emerson 10", "lake 20", "", "a b c", "x\t1", "-5 -5", "\u00e9 3", "9999999999999 1")
    path = _IO_DIR / "vocab.txt"
    path.write_text("\n".join(g.pick(lines) for _ in range(g.int_in(0, 5))) + g.pick(("\n", "")))
    return str(path)


def _lookup_text_args(g):
    key_dtype, value_dtype = g.pick(_LOOKUP_KEYS), g.pick(_LOOKUP_VALUES)
    index = (-2, -1, 0, 1, 2) if not g.bad() else (-3, 5, "a", None)
    kwargs = {"delimiter": g.pick((" ", "\t", ","))}
    if g.p(0.3):
        kwargs["vocab_size"] = g.int_in(-1 if g.bad() else 1, 5)
    if g.p(0.2):
        kwargs["value_index_offset"] = g.int_in(0, 3)
    args = [_lookup_text_file(g), key_dtype, g.pick(index), value_dtype, g.pick(index)]
    return args, kwargs


@spec("tf.lookup.TextFileInitializer")
def _lookup_text_initializer(g):
    return _lookup_text_args(g)


@spec("tf.lookup.TextFileIndex")
def _lookup_text_index(g):
    return [], {}


def _lookup_initializer(g):
    if g.p(0.3):
        args, kwargs = _lookup_text_args(g)
        try:
            return tf.lookup.TextFileInitializer(*args, **kwargs)
        except (TypeError, ValueError):
            return g.junk()
    keys, values = _lookup_pair(g)
    try:
        return tf.lookup.KeyValueTensorInitializer(keys, values)
    except (TypeError, ValueError):
        return g.junk()


@spec("tf.lookup.StaticHashTable")
def _lookup_static(g):
    init = _lookup_initializer(g)
    dtype = getattr(init, "value_dtype", tf.int64)
    default = g.strings(dims=[]) if dtype == tf.string else g.array(dtype, [])
    return [init, default if not g.bad() else g.junk()], {}


@spec("tf.lookup.StaticVocabularyTable")
def _lookup_vocabulary(g):
    init = None if g.p(0.2) else _lookup_initializer(g)
    kwargs = {"lookup_key_dtype": g.pick((tf.int32, tf.string, tf.float32))} if g.p(0.3) else {}
    return [init, g.int_in(-1 if g.bad() else 1, 9)], kwargs


@spec("tf.lookup.experimental.MutableHashTable")
def _lookup_mutable(g):
    value_dtype = g.pick(_LOOKUP_VALUES)
    default = g.array(value_dtype, g.dims(max_rank=2)) if value_dtype != tf.string else ""
    return [g.pick(_LOOKUP_KEYS) if not g.bad() else g.dtype(), value_dtype, default], {}


@spec("tf.lookup.experimental.DenseHashTable")
def _lookup_dense(g):
    key_dtype = g.pick(_LOOKUP_KEYS) if not g.bad() else g.dtype()
    value_dtype = g.pick(_LOOKUP_VALUES)
    default = g.array(value_dtype, []) if value_dtype != tf.string else ""
    reserved = ("", "$", "") if key_dtype == tf.string else (0, -1, 0, 7)
    if g.bad():
        reserved = (g.junk(), 0, [0, 0], "")
    return [key_dtype, value_dtype, default, g.pick(reserved), g.pick(reserved)], {}


# --- resolving and checking the table --------------------------------------------------------


def public_ops():
    """Every public callable of the fuzzed modules, as [(callable, [names])] in discovery order."""
    found = {}
    for prefix, module in MODULES:
        for name in sorted(dir(module)):
            value = getattr(module, name)
            if name.startswith("_") or not callable(value) or isinstance(value, tf.DType):
                continue
            found.setdefault(id(value), (value, []))[1].append(f"{prefix}.{name}")
    return list(found.values())


def resolve(name):
    """The callable an op name stands for: a public function, class or Tensor method."""
    if name in TENSOR_METHODS:
        return TENSOR_METHODS[name]
    module_name, _, attr = name.rpartition(".")
    return getattr(dict(MODULES)[module_name], attr)


def check_table():
    """Where SPECS and the public API disagree: an op without a spec, or a stale spec."""
    errors = []
    known = set()
    for name in SPECS:
        try:
            fn = resolve(name)
        except (AttributeError, KeyError):
            errors.append(f"fuzz spec for a missing op: {name}")
            continue
        known.add(id(fn))
        if name.startswith("Tensor.") and not hasattr(tf.Tensor, name.split(".", 1)[1]):
            errors.append(f"fuzz spec for a missing Tensor attribute: {name}")
    for value, names in public_ops():
        if id(value) not in known:
            errors.append(f"no fuzz spec for {' / '.join(names)}")
    inherited = set(dir(object))
    for attr in dir(tf.Tensor):
        if attr in TENSOR_NOT_OPS or attr in inherited or f"Tensor.{attr}" in SPECS:
            continue
        errors.append(f"no fuzz spec for Tensor.{attr}")
    return errors


# --- tf.io.decode_json_example (lead) ---------------------------------------------------------


@spec("tf.io.decode_json_example")
def _io_decode_json_example(g):
    import json

    feature = g.pick(
        (
            {"int64List": {"value": ["1", "-2"]}},
            {"floatList": {"value": [0.5, "NaN"]}},
            {"bytesList": {"value": ["aGk="]}},
            {"int64List": {"value": ["x"]}},
            {"floatList": 3},
        )
    )
    good = json.dumps({"features": {"feature": {"a": feature}}})
    texts = (good, "{}", "{", '{"features": 3}', "", "[1]", '{"features": {"feature": null}}')
    rows = [g.pick(texts) for _ in range(g.int_in(0, 3))]
    if g.bad():
        return [g.junk()], {}
    return [np.array(rows, dtype=object) if g.p(0.5) else g.pick(texts)], {}


# A graph that is not a GraphDef: TensorFlow's write_graph calls its protobuf methods anyway.
EAGER_REFUSALS["tf.io.write_graph"] = AttributeError


@spec("tf.io.write_graph")
def _io_write_graph(g):
    graph = tf.compat.v1.GraphDef()
    for k in range(g.int_in(0, 3)):
        graph.node.add(name=f"n{k}", op=g.pick(("Mul", "Placeholder", "")))
    target = graph if not g.bad() else g.junk()
    folder = str(_IO_DIR / g.pick(("graphs", "graphs/deeper", "")))
    return [target, folder, g.pick(("g.pbtxt", "g.pb", "sub/g.pb"))], {"as_text": g.flag()}


# --- tf.io TFRecord, Example parsing and TensorProto (io-core) --------------------------------


def _fuzz_example(g):
    """A serialized tf.train.Example: well-formed, truncated, or random bytes."""
    t = tf.train
    feats = {}
    for key in ("a", "i", "s")[: g.int_in(0, 3)]:
        kind = g.pick(("f", "i", "s", "none"))
        n = g.int_in(0, 3)
        if kind == "f":
            feats[key] = t.Feature(float_list=t.FloatList(value=[1.5] * n))
        elif kind == "i":
            feats[key] = t.Feature(int64_list=t.Int64List(value=[-3] * n))
        elif kind == "s":
            feats[key] = t.Feature(bytes_list=t.BytesList(value=[b"\xff"] * n))
        else:
            feats[key] = t.Feature()
    data = t.Example(features=t.Features(feature=feats)).SerializeToString()
    if g.p(0.2):
        data = data[: g.int_in(0, len(data))]
    if g.p(0.1):
        data = bytes(g.rng.integers(0, 256, size=g.int_in(0, 12), dtype=np.uint8))
    return data


def _fuzz_features(g):
    io = tf.io
    dtype = g.dtype((tf.float32, tf.int64, tf.string))
    choices = [
        lambda: io.FixedLenFeature([g.int_in(0, 2)], dtype),
        lambda: io.FixedLenFeature([], tf.float32, default_value=g.pick((0.5, None))),
        lambda: io.FixedLenSequenceFeature([], dtype, allow_missing=g.flag()),
        lambda: io.VarLenFeature(dtype),
        lambda: io.SparseFeature("i", "a", dtype, g.int_in(0, 4)),
        lambda: io.RaggedFeature(tf.float32, value_key=g.pick(("a", "i"))),
    ]
    features = {g.pick(("a", "i", "s", "x")): g.pick(choices)() for _ in range(g.int_in(1, 3))}
    return g.junk() if g.bad() else features


@spec("tf.io.parse_example")
def _io_parse_example(g):
    records = [_fuzz_example(g) for _ in range(g.int_in(0, 4))]
    if g.bad():
        records = g.pick((records[:1] and records[0], [records], g.junk()))
    return [records, _fuzz_features(g)], {}


@spec("tf.io.parse_single_example")
def _io_parse_single_example(g):
    return [_fuzz_example(g) if not g.bad() else g.junk(), _fuzz_features(g)], {}


def _fuzz_sequence_example(g):
    """A serialized tf.train.SequenceExample with one float feature list, or damaged bytes."""
    t = tf.train
    steps = [t.Feature(float_list=t.FloatList(value=[0.5] * g.int_in(0, 2)))] * g.int_in(0, 3)
    data = t.SequenceExample(
        context=t.Features(feature={"c": t.Feature(int64_list=t.Int64List(value=[1]))}),
        feature_lists=t.FeatureLists(feature_list={"x": t.FeatureList(feature=steps)}),
    ).SerializeToString()
    return data[: g.int_in(0, len(data))] if g.p(0.2) else data


def _fuzz_sequence_features(g):
    io = tf.io
    dtype = g.dtype((tf.float32, tf.int64, tf.string))
    sequence = g.pick(
        (
            {"x": io.FixedLenSequenceFeature([], dtype, allow_missing=g.flag())},
            {"x": io.VarLenFeature(dtype)},
            {"x": io.RaggedFeature(tf.float32)},
            {},
        )
    )
    context = g.pick(({"c": io.FixedLenFeature([], tf.int64)}, {"c": io.VarLenFeature(dtype)}, {}))
    return (g.junk(), sequence) if g.bad() else (context, sequence)


@spec("tf.io.parse_sequence_example")
def _io_parse_sequence_example(g):
    records = [_fuzz_sequence_example(g) for _ in range(g.int_in(0, 3))]
    context, sequence = _fuzz_sequence_features(g)
    return [records if not g.bad() else g.junk(), context, sequence], {}


@spec("tf.io.parse_single_sequence_example")
def _io_parse_single_sequence_example(g):
    context, sequence = _fuzz_sequence_features(g)
    return [_fuzz_sequence_example(g) if not g.bad() else g.junk(), context, sequence], {}


@spec("tf.io.serialize_tensor")
def _io_serialize_tensor(g):
    return [g.tensor() if not g.bad() else g.junk()], {}


@spec("tf.io.parse_tensor")
def _io_parse_tensor(g):
    try:
        data = tf.io.serialize_tensor(g.tensor()).numpy()
    except (ValueError, TypeError):  # a bad value the generator made on purpose
        data = b""
    if g.p(0.3):
        data = data[: g.int_in(0, len(data))]
    if g.p(0.2):
        flipped = bytearray(data)
        if flipped:
            flipped[g.int_in(0, len(flipped) - 1)] ^= 0xFF
        data = bytes(flipped)
    return [data if not g.bad() else g.junk(), g.dtype()], {}


@spec("tf.io.TFRecordWriter")
def _io_tfrecord_writer(g):
    _IO_DIR.mkdir(exist_ok=True)
    path = str(_IO_DIR / g.pick(("w.tfrecord", "missing/w.tfrecord")))
    options = g.pick(("", "ZLIB", "GZIP", None, tf.io.TFRecordOptions("GZIP", compression_level=1)))
    return [path if not g.bad() else g.junk(), options if not g.bad() else g.junk()], {}


@spec("tf.io.TFRecordOptions")
def _io_tfrecord_options(g):
    kind = g.pick(("", "ZLIB", "GZIP", None, 0, 1, 2))
    return [kind if not g.bad() else g.junk()], {"compression_level": g.pick((None, 0, 9))}


@spec("tf.io.FixedLenFeature", "tf.io.FixedLenSequenceFeature")
def _io_fixed_len_feature(g):
    return [[g.int_in(0, 3)], g.dtype((tf.float32, tf.int64, tf.string))], {}


@spec("tf.io.VarLenFeature")
def _io_var_len_feature(g):
    return [g.dtype((tf.float32, tf.int64, tf.string))], {}


@spec("tf.io.RaggedFeature")
def _io_ragged_feature(g):
    partitions = g.pick(((), (tf.io.RaggedFeature.RowLengths("l"),), g.junk()))
    return [g.dtype((tf.float32, tf.int64, tf.string))], {"partitions": partitions}


@spec("tf.io.SparseFeature")
def _io_sparse_feature(g):
    return ["i", "v", g.dtype((tf.float32, tf.int64, tf.string)), g.int_in(-1, 5)], {}


# --- showing arguments -----------------------------------------------------------------------


def _literal(arr):
    if arr.size == 0:
        return f"np.zeros({list(arr.shape)})"
    if arr.size <= 64:
        return repr(arr.tolist())
    head = ", ".join(repr(v) for v in arr.ravel()[:6].tolist())
    return f"<{arr.size} values of shape {list(arr.shape)}: {head}, ...>"


def _nesting(value):
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    return depth


def show(value, depth=0):
    """A short, mostly executable repr of an argument (nan/inf stand for float('nan'/'inf'))."""
    if isinstance(value, tf.Tensor):
        try:
            return f"tf.constant({_literal(np.asarray(value.numpy()))}, tf.{value.dtype.name})"
        except BaseException:  # a repr must not fail
            return "<Tensor that cannot be shown>"
    if isinstance(value, np.ndarray):
        name = value.dtype.name
        dtype = "ml_dtypes.bfloat16" if name == "bfloat16" else f"np.{name}"
        if value.dtype.kind in "OUSM":
            dtype = repr(value.dtype.str)
        return f"np.array({_literal(value)}, {dtype})"
    if isinstance(value, np.generic):
        return f"np.{type(value).__name__}({value.item()!r})"
    if isinstance(value, tf.DType):
        if tf.dtypes._BY_ENUM.get(value.as_datatype_enum) is value:
            return repr(value)
        return f"tf.DType({value.as_datatype_enum}, {value.name!r}, ...)"
    if isinstance(value, tf.TensorShape):
        return f"tf.{value!r}"
    if isinstance(value, (list, tuple)) and depth >= 4:
        return "[...]" if isinstance(value, list) else "(...)"
    if value is NESTED_TOO_DEEP or value is NESTED_RANK_70:
        return f"<a 1.0 in {_nesting(value)} nested lists>"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(show(v, depth + 1) for v in value)
        if isinstance(value, tuple):
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return f"[{inner}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {show(v, depth + 1)}" for k, v in value.items()) + "}"
    if isinstance(value, type):
        return f"{value.__module__}.{value.__qualname__}".replace("builtins.", "")
    if isinstance(value, slice):
        return f"slice({show(value.start)}, {show(value.stop)}, {show(value.step)})"
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def show_call(name, args, kwargs):
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


# --- running calls ---------------------------------------------------------------------------

# Fractions of deliberately invalid arguments: a third of the calls get none.
BAD_RATES = (0.0, 0.0, 0.1, 0.1, 0.3, 0.6)


class Plan:
    """Which op iteration ``i`` calls, and with which arguments; depends only on seed and i."""

    def __init__(self, seed, ops):
        self.seed = seed
        self.ops = ops
        self._cycle = (None, None)

    def op(self, i):
        cycle, position = divmod(i, len(self.ops))
        if self._cycle[0] != cycle:
            order = np.random.default_rng([self.seed, cycle, 0]).permutation(len(self.ops))
            self._cycle = (cycle, order)
        return self.ops[self._cycle[1][position]]

    def arguments(self, i):
        rng = np.random.default_rng([self.seed, i, 1])
        g = Gen(rng, float(rng.choice(BAD_RATES)))
        return SPECS[self.op(i)](g)


def materialize(result):
    """Reads a result through, so that a broken tensor fails here rather than later."""
    if isinstance(result, tf.type_spec.CompositeTensor):
        materialize(tf.nest.flatten(result, expand_composites=True))
    elif isinstance(result, tf.Tensor):
        np.asarray(result.numpy())
        assert isinstance(result.shape.as_list(), list)
        assert isinstance(result.dtype.name, str)
    elif isinstance(result, (list, tuple)):
        for item in result:
            materialize(item)


def _qualname(exc):
    cls = type(exc)
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )


def _stderr_since(offset):
    """What the process wrote to stderr (when that is a file) since ``offset``: panic messages."""
    if offset is None:
        return ""
    try:
        return os.pread(2, 8192, offset).decode("utf-8", "replace")
    except OSError:
        return ""


def _stderr_offset():
    try:
        return os.lseek(2, 0, os.SEEK_CUR)
    except OSError:
        return None


def run_one(plan, i):
    """Runs iteration ``i``: (op, outcome, exception name or "", failure record or None)."""
    name = plan.op(i)
    phase = "generate"
    args, kwargs = (), {}
    offset = _stderr_offset()
    try:
        args, kwargs = plan.arguments(i)
        phase = "call"
        result = resolve(name)(*args, **kwargs)
        phase = "result"
        materialize(result)
        return name, "ok", "", None
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # PanicException derives from BaseException
        expected = ALLOWED + (EAGER_REFUSALS.get(name, ALLOWED),)
        if phase != "generate" and isinstance(exc, expected):
            return name, "error", type(exc).__name__, None
        try:
            shown = show_call(name, args, kwargs)
        except BaseException as show_exc:
            shown = f"<arguments cannot be shown: {show_exc!r}>"
        record = {
            "op": name,
            "iteration": i,
            "kind": "generator" if phase == "generate" else "exception",
            "phase": phase,
            "exception": _qualname(exc),
            "message": str(exc)[:2000],
            "call": shown,
            "traceback": "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[
                -6000:
            ],
            "stderr": _stderr_since(offset)[-4000:],
        }
        return name, "failure", _qualname(exc), record


def _limit_memory(megabytes):
    if megabytes:
        import resource

        limit = megabytes * 2**20
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _quiet():
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")


def worker(opts, ops):
    """Runs iterations [start, iterations), logging each call to ``opts.log`` before and after."""
    _limit_memory(opts.max_memory_mb)
    faulthandler.enable()
    _quiet()
    plan = Plan(opts.seed, ops)
    skip = set(filter(None, opts.skip_ops.split(",")))
    log = os.open(opts.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for i in range(opts.start, opts.iterations):
        name = plan.op(i)
        if name in skip:
            os.write(log, f"E {i} {name} skipped -\n".encode())
            continue
        os.write(log, f"B {i} {_stderr_offset()}\n".encode())
        name, outcome, error, record = run_one(plan, i)
        line = f"E {i} {name} {outcome} {error or '-'}\n"
        if record is not None:
            line = "F " + json.dumps(record) + "\n" + line
        os.write(log, line.encode())
    os.close(log)
    return 0


# --- supervising workers ---------------------------------------------------------------------

HEADLINES = (
    r"memory allocation of \d+ bytes failed",
    r"panicked at .*",
    r"fatal runtime error: .*",
    r"Fatal Python error: .*",
    r"Timeout \(.*",
)


def _headline(stderr, default):
    for pattern in HEADLINES:
        match = re.search(pattern, stderr)
        if match:
            line = match.group(0)
            if line.startswith("panicked"):  # the panic message is on the next line
                rest = stderr[match.end() :].strip().splitlines()
                line += " " + (rest[0] if rest else "")
            return line.strip()
    return default


def _rust_frames(stderr):
    """The innermost ferroflow frames of a Rust backtrace: where a crash happened."""
    frames = re.findall(r"^\s*\d+: (ferroflow::\S+)", stderr, flags=re.MULTILINE)
    return frames[:4]


def _describe(opts, ops, failures):
    """Adds the call to each crash record, rebuilt from the seed in one fresh process (which
    only generates arguments, so it does not crash where the worker did)."""
    if not failures:
        return
    cmd = [sys.executable, __file__, "--seed", str(opts.seed), "--ops", ",".join(ops)]
    cmd += ["--describe", ",".join(str(f["iteration"]) for f in failures)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        calls = json.loads(done.stdout) if done.returncode == 0 else {}
        problem = f"<describe failed: {done.stderr.strip()[-500:]}>"
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        calls, problem = {}, f"<describe failed: {e!r}>"
    for f in failures:
        f["call"] = calls.get(str(f["iteration"]), problem)


def _watch(proc, log_path, call_timeout):
    """Waits for the worker; returns True when it made no progress for ``call_timeout`` s."""
    last_size, last_change = -1, time.monotonic()
    while True:
        try:
            proc.wait(timeout=0.2)
            return False
        except subprocess.TimeoutExpired:
            pass
        size = os.path.getsize(log_path) if os.path.exists(log_path) else 0
        now = time.monotonic()
        if size != last_size:
            last_size, last_change = size, now
        elif now - last_change > call_timeout:
            proc.send_signal(signal.SIGABRT)  # faulthandler prints where it was stuck
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            return True


class Tally:
    """Outcome counts per op and the failure records."""

    OUTCOMES = ("ok", "error", "failure", "crash", "hang", "skipped")

    def __init__(self, ops):
        self.ops = {
            name: {"outcomes": collections.Counter(), "errors": collections.Counter()}
            for name in ops
        }
        self.failures = []

    def add(self, op, outcome, error):
        entry = self.ops[op]
        entry["outcomes"][outcome] += 1
        if outcome != "ok" and error != "-":
            entry["errors"][error] += 1

    def read_log(self, path):
        """Counts a worker's log; returns the iteration it started and never finished, if any."""
        open_iteration = None
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.endswith("\n"):
                    break
                tag, _, rest = line.rstrip("\n").partition(" ")
                if tag == "B":
                    open_iteration = int(rest.split()[0])
                elif tag == "E":
                    _, op, outcome, error = rest.split(" ")
                    self.add(op, outcome, error)
                    open_iteration = None
                elif tag == "F":
                    self.failures.append(json.loads(rest))
        return open_iteration


def supervise(opts, ops):
    tally = Tally(ops)
    plan = Plan(opts.seed, ops)
    crashes = collections.Counter()
    skip = set()
    start, starts = 0, 0
    began = time.monotonic()
    env = dict(os.environ, RUST_BACKTRACE="1", PYTHONFAULTHANDLER="1")
    with tempfile.TemporaryDirectory(prefix="ferroflow-fuzz-") as tmp:
        while start < opts.iterations:
            starts += 1
            log_path = os.path.join(tmp, f"worker{starts}.log")
            err_path = os.path.join(tmp, f"worker{starts}.err")
            cmd = [sys.executable, __file__, "--worker", "--log", log_path]
            cmd += ["--seed", str(opts.seed), "--iterations", str(opts.iterations)]
            cmd += ["--start", str(start), "--max-memory-mb", str(opts.max_memory_mb)]
            cmd += ["--ops", ",".join(ops), "--skip-ops", ",".join(sorted(skip))]
            with open(err_path, "w+b") as err:
                proc = subprocess.Popen(
                    cmd, stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=env
                )
                hung = _watch(proc, log_path, opts.call_timeout)
            open_iteration = tally.read_log(log_path) if os.path.exists(log_path) else None
            if proc.returncode == 0 and not hung:
                break
            with open(err_path, encoding="utf-8", errors="replace") as f:
                stderr = f.read()
            if open_iteration is None:
                tally.failures.append(
                    {
                        "op": "<worker>",
                        "kind": "worker",
                        "exception": f"exit {proc.returncode}",
                        "message": _headline(stderr, "the worker died outside any call"),
                        "stderr": stderr[-6000:],
                    }  # fmt: skip
                )
                break
            op = plan.op(open_iteration)
            offset = _crash_offset(log_path, open_iteration)
            since = stderr.encode("utf-8", "replace")[offset:].decode("utf-8", "replace")
            status = _exit_status(proc.returncode)
            kind = "hang" if hung else "crash"
            # faulthandler's traceback tells whether the op or reading its result crashed.
            phase = "result" if re.search(r"line \d+ in materialize", since) else "call"
            tally.add(op, kind, status)
            tally.failures.append(
                {
                    "op": op,
                    "iteration": open_iteration,
                    "kind": kind,
                    "phase": phase,
                    "exception": status,
                    "message": _headline(
                        since, f"no progress for {opts.call_timeout} s" if hung else status
                    ),
                    "rust_frames": _rust_frames(since),
                    "stderr": since[-6000:],
                }
            )
            crashes[op] += 1
            if crashes[op] >= opts.max_crashes_per_op:
                skip.add(op)
            start = open_iteration + 1
    _describe(opts, ops, [f for f in tally.failures if f["kind"] in ("crash", "hang")])
    return {
        "seed": opts.seed,
        "iterations": opts.iterations,
        "elapsed_s": round(time.monotonic() - began, 2),
        "worker_starts": starts,
        "quarantined_ops": sorted(skip),
        "tally": tally,
    }


def _crash_offset(log_path, iteration):
    with open(log_path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if parts[:2] == ["B", str(iteration)] and len(parts) == 3 and parts[2] != "None":
                return int(parts[2])
    return 0


def _exit_status(returncode):
    if returncode is not None and returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"


def run_in_process(opts, ops):
    """All iterations in this process: faster to debug, but the first crash ends the run."""
    _limit_memory(opts.max_memory_mb)
    _quiet()
    tally = Tally(ops)
    plan = Plan(opts.seed, ops)
    began = time.monotonic()
    for i in range(opts.iterations):
        name, outcome, error, record = run_one(plan, i)
        tally.add(name, outcome, error or "-")
        if record is not None:
            tally.failures.append(record)
    return {
        "seed": opts.seed,
        "iterations": opts.iterations,
        "elapsed_s": round(time.monotonic() - began, 2),
        "worker_starts": 0,
        "quarantined_ops": [],
        "tally": tally,
    }


# --- the summary -----------------------------------------------------------------------------


def signature(failure):
    """What makes two failures the same bug: op, kind, exception and message without numbers."""
    first_line = (failure.get("message", "").strip().splitlines() or [""])[0]
    message = re.sub(r"0x[0-9a-f]+|\d+", "N", first_line)[:200]
    kind = f"{failure['kind']} in {failure.get('phase', '?')}"
    return f"{failure['op']} | {kind} | {failure.get('exception', '')} | {message}"


def summarize(run, table_errors):
    tally = run.pop("tally")
    ops = {}
    totals = collections.Counter()
    for name, entry in tally.ops.items():
        outcomes = entry["outcomes"]
        calls = sum(n for outcome, n in outcomes.items() if outcome != "skipped")
        ops[name] = {"calls": calls, **{o: outcomes[o] for o in Tally.OUTCOMES}}
        ops[name]["errors"] = dict(entry["errors"].most_common())
        totals.update(outcomes)
        totals["calls"] += calls
    distinct = {}
    for failure in tally.failures:
        key = signature(failure)
        if key in distinct:
            distinct[key]["count"] += 1
        else:
            distinct[key] = {"signature": key, "count": 1, "example": failure}
    return {
        **run,
        "allowed_exceptions": [_qualname_of(cls) for cls in ALLOWED],
        "never_succeeds": sorted(NEVER_SUCCEEDS),
        "table_errors": table_errors,
        "totals": {"calls": totals["calls"], **{o: totals[o] for o in Tally.OUTCOMES}},
        "ops": ops,
        "failure_count": len(tally.failures) + len(table_errors),
        "distinct_failures": list(distinct.values()),
    }


def _qualname_of(cls):
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )


def print_summary(summary, only_failing=False, out=sys.stdout):
    """The per-op table (only ops with failures when ``only_failing``), totals and failures."""
    rows = sorted(summary["ops"].items())
    if only_failing:
        rows = [(name, c) for name, c in rows if c["failure"] + c["crash"] + c["hang"]]
    width = max([len(name) for name, _ in rows] + [2])
    header = (
        f"{'op':<{width}}  {'calls':>6} {'ok':>6} {'error':>6} {'fail':>5} {'crash':>5} {'hang':>4}"
    )
    print(header + "  most common errors", file=out)
    for name, c in rows:
        errors = ", ".join(f"{k} {v}" for k, v in list(c["errors"].items())[:3])
        print(
            f"{name:<{width}}  {c['calls']:>6} {c['ok']:>6} {c['error']:>6} {c['failure']:>5} "
            f"{c['crash']:>5} {c['hang']:>4}  {errors}",
            file=out,
        )
    t = summary["totals"]
    print(
        f"\n{len(summary['ops'])} ops, {t['calls']} calls in {summary['elapsed_s']} s "
        f"(seed {summary['seed']}, {summary['worker_starts']} worker starts): {t['ok']} results, "
        f"{t['error']} typed errors, {t['failure']} untyped exceptions, {t['crash']} crashes, "
        f"{t['hang']} hangs, {t['skipped']} skipped",
        file=out,
    )
    for error in summary["table_errors"]:
        print(f"TABLE: {error}", file=out)
    if summary["quarantined_ops"]:
        print(
            f"stopped calling after repeated crashes: {', '.join(summary['quarantined_ops'])}",
            file=out,
        )
    if summary["distinct_failures"]:
        print(f"\n{len(summary['distinct_failures'])} distinct failures:", file=out)
    for d in summary["distinct_failures"]:
        example = d["example"]
        print(f"\n[{d['count']}x] {d['signature']}", file=out)
        if "iteration" in example:
            print(f"  replay: {replay_command(summary, example)}", file=out)
            print(f"  call:   {example.get('call', '')[:600]}", file=out)
        if example.get("rust_frames"):
            print(f"  where:  {' < '.join(example['rust_frames'])}", file=out)


def replay_command(summary, failure):
    return f"python tests/fuzz_ops.py --seed {summary['seed']} --replay {failure['iteration']}" + (
        f" --ops {','.join(summary['selected_ops'])}" if summary.get("selected_ops") else ""
    )


# --- command line ----------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=1_000_000, help="calls to make")
    parser.add_argument("--seed", type=int, default=None, help="default: random, printed")
    parser.add_argument("--json", help="write the summary as JSON to this path")
    parser.add_argument("--ops", default="", help="comma-separated op names (default: all)")
    parser.add_argument("--max-memory-mb", type=int, default=4096, help="worker address space")
    parser.add_argument("--call-timeout", type=float, default=30.0, help="seconds to call a hang")
    parser.add_argument("--max-crashes-per-op", type=int, default=3)
    parser.add_argument("--in-process", action="store_true", help="no worker process")
    parser.add_argument("--replay", type=int, metavar="I", help="rerun iteration I, in-process")
    parser.add_argument("--describe", metavar="I,J", help="print these iterations' calls")
    parser.add_argument("--list", action="store_true", help="print the op names and exit")
    parser.add_argument("--quiet", action="store_true", help="list only the ops that failed")
    # Internal: the supervisor starts workers with these.
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--log", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--skip-ops", default="", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def selected_ops(opts):
    if not opts.ops:
        return sorted(SPECS)
    ops = [name for name in opts.ops.split(",") if name]
    unknown = [name for name in ops if name not in SPECS]
    if unknown:
        raise SystemExit(f"unknown ops: {', '.join(unknown)} (see --list)")
    return ops


def replay(opts, ops):
    _limit_memory(opts.max_memory_mb)
    _quiet()
    plan = Plan(opts.seed, ops)
    print(show_call(plan.op(opts.replay), *plan.arguments(opts.replay)), flush=True)
    name, outcome, error, record = run_one(plan, opts.replay)
    print(f"-> {outcome} {error}")
    if record is not None:
        print(record["traceback"] + record["stderr"])
    return 1 if record is not None else 0


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    ops = selected_ops(opts)
    if opts.list:
        print("\n".join(ops))
        return 0
    if opts.seed is None:
        opts.seed = int.from_bytes(os.urandom(4), "little")
    if opts.worker:
        return worker(opts, ops)
    if opts.describe is not None:
        _quiet()
        plan = Plan(opts.seed, ops)
        calls = {}
        for i in map(int, opts.describe.split(",")):
            calls[i] = show_call(plan.op(i), *plan.arguments(i))
        print(json.dumps(calls, indent=1))
        return 0
    if opts.replay is not None:
        return replay(opts, ops)
    run = run_in_process(opts, ops) if opts.in_process else supervise(opts, ops)
    summary = summarize(run, check_table())
    summary["selected_ops"] = ops if opts.ops else []
    if opts.json:
        with open(opts.json, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1)
    print_summary(summary, only_failing=opts.quiet)
    return 1 if summary["failure_count"] else 0


if __name__ == "__main__":
    sys.exit(main())
