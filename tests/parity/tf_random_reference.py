"""Pure-numpy reference for TensorFlow 2.21's CPU random number generation.

This module reproduces, bit for bit, the numbers that TensorFlow's CPU kernels produce for
the stateless random ops and for ``tf.random.Generator`` with the Philox algorithm. It does
not import TensorFlow; ``/tmp/check_tf_random.py`` (run under a TensorFlow venv) compares it
with TensorFlow. It is a specification for ferroflow's Rust/WGSL kernels as much as a test
oracle, so every function follows the kernel's control flow closely.

Where the algorithms are defined in TensorFlow (read to learn, nothing copied):

* ``tensorflow/core/lib/random/philox_random.h`` (now ``xla/tsl/lib/random/philox_random.h``):
  Philox4x32-10, ``Skip``/``SkipOne`` (128-bit counter arithmetic).
* ``tensorflow/core/lib/random/random_distributions.h`` and ``random_distributions_utils.h``
  (tsl): ``Uint32ToFloat``, ``Uint64ToDouble``, ``Uint16ToHalf``, ``Uint16ToGfloat16``,
  ``BoxMullerFloat``/``BoxMullerDouble``, ``UniformDistribution`` (floats and ``% range`` ints),
  ``UniformFullIntDistribution``, ``NormalDistribution``, ``TruncatedNormalDistribution``,
  ``SingleSampleAdapter``.
* ``tensorflow/core/lib/random/simple_philox.h``: ``SimplePhilox::RandDouble`` (categorical).
* ``tensorflow/core/kernels/random_op_cpu.h``: ``FillPhiloxRandom`` / ``FillPhiloxRandomTask``
  (groups of ``kResultElementCount`` outputs, ``Skip(group)`` per shard, 256 reserved Philox
  outputs per group for variable-sample distributions).
* ``tensorflow/core/kernels/random_ops_util.h``, ``stateful_random_ops_cpu_gpu.h``: how a
  uint64 key/counter (and the int64[3] Generator state) map to Philox words; the Generator's
  ``256 * n`` counter advance (``UpdateMemWithPhiloxRandom``).
* ``tensorflow/core/kernels/stateless_random_ops.cc``: ``GenerateKey`` (seed scrambling).
* ``tensorflow/core/kernels/stateless_random_ops_v2.cc`` / ``stateless_random_ops_v2_util.h``:
  ``StatelessRandomGetKeyCounter``, AUTO_SELECT -> PHILOX on CPU, the V2 uniform/normal/
  truncated-normal/int/full-int kernels.
* ``tensorflow/core/kernels/random_poisson_op.cc`` (Poisson), ``random_binomial_op.cc``
  (binomial, stateless and stateful), ``stateless_random_gamma_op.cc`` (gamma V2/V3),
  ``multinomial_op.cc`` (categorical), ``tensorflow/core/util/work_sharder.cc`` and Eigen's
  ``ThreadPoolDevice::parallelFor`` (only categorical depends on the sharding).
* ``tensorflow/python/ops/stateless_random_ops.py``, ``random_ops_util.py``,
  ``stateful_random_ops.py``: the Python wrappers (``minval/maxval`` scaling, split, fold_in,
  gamma's ``max(tiny, x / beta)``, ``Generator`` state layout, ``from_seed``, ``split``).

Algorithms (all integer arithmetic is modulo 2**32 / 2**64)
--------------------------------------------------------------
Philox4x32-10. State: counter ``c[0..3]`` (uint32, ``c[0]`` least significant word of a
128-bit integer) and key ``k[0..1]``. One call returns 4 words and then increments the 128-bit
counter by one. Ten rounds; between rounds ``k0 += 0x9E3779B9``, ``k1 += 0xBB67AE85``. A
round: ``p0 = 0xD2511F53 * c0``, ``p1 = 0xCD9E8D57 * c2`` (64-bit products, hi/lo halves) and
``c = (hi(p1) ^ c1 ^ k0, lo(p1), hi(p0) ^ c3 ^ k1, lo(p0))``. ``Skip(n)`` adds the 64-bit
``n`` to the 128-bit counter.

uint64 <-> words: a uint64 key ``K`` is ``k = (lo32(K), hi32(K))``; a uint64[2] counter
``C`` is ``c = (lo32(C0), hi32(C0), lo32(C1), hi32(C1))``. The Generator state int64[3] is
``[C0, C1, K]`` (counter first, key last).

Seed -> key/counter (``GenerateKey``, used by every ``tf.random.stateless_*`` op, by
``StatelessRandomGetKeyCounter`` and, identically, by ``alg="philox"``): with ``s0, s1`` the
two seed values sign-extended to uint64, run one Philox call with key
``(0x3EC8F720, 0x02461E29)`` and counter ``(lo(s0), hi(s0), lo(s1), hi(s1))``, giving ``m``.
Then key ``= (m0, m1)`` and counter ``= (0, 0, m2, m3)``; as uint64: ``K = m0 | m1 << 32``,
``C = [0, m2 | m3 << 32]``. ``alg="auto_select"`` (the default) is PHILOX on CPU (and GPU).

Filling a tensor (``FillPhiloxRandom``): a distribution produces a *group* of
``kResultElementCount`` outputs from one Philox call (4 for 32-bit and 16-bit types, 2 for
64-bit types). Flat output element ``i`` is in group ``g = i // K`` at position ``i % K``, and
group ``g`` uses the Philox call with counter ``base + g``. A trailing partial group uses the
first elements of its call. The CPU kernel shards groups across threads with ``Skip(start)``,
so results do not depend on the thread count.

Word -> value:
* float32: ``bits = 0x3F800000 | (w & 0x7FFFFF)``, value ``= float(bits) - 1.0`` in [0, 1).
* float64 from words ``(w0, w1)``: ``bits = (1023 << 52) | (w0 & 0xFFFFF) << 32 | w1``, minus 1.
  Element ``j`` of a group uses words ``2j, 2j+1``.
* float16: ``bits = (15 << 10) | (w & 0x3FF)`` minus 1; bfloat16: ``(127 << 7) | (w & 0x7F)``
  minus 1 (the low bits of each 32-bit word, one word per value).
* int32 in [lo, hi): ``lo + (w % uint32(hi - lo))``; int64: ``u = w[2j] | w[2j+1] << 32``,
  ``lo + (u % uint64(hi - lo))`` (wrapping adds).
* full-range int32/uint32: the word itself; int64/uint64: ``w[2j] | w[2j+1] << 32``.
* float uniform with range (Python): ``rnd * (maxval - minval) + minval`` in the dtype.

Normal (Box-Muller). float32/float16/bfloat16: words ``(w0, w1)`` -> two values and
``(w2, w3)`` -> the next two. ``u1 = Uint32ToFloat(w0)``, clamped below at ``1e-7f``;
``v1 = (float)(6.283185307179586 * (double)Uint32ToFloat(w1))`` (2*M_PI in double, one
double multiply, rounded to float); ``r = sqrtf(-2.0f * logf(u1))``; outputs
``sinf(v1) * r`` then ``cosf(v1) * r`` (glibc ``sincosf``; float multiply). float16/bfloat16
round the float result to nearest-even. float64: one Philox call gives 2 values:
``u1 = Uint64ToDouble(w0, w1)`` (clamped at 1e-7), ``v1 = 2*M_PI * Uint64ToDouble(w2, w3)``,
``r = sqrt(-2 * log(u1))``, outputs ``sin(v1)*r, cos(v1)*r`` (glibc ``sincos``).

Truncated normal: group ``g`` (4 values for 16/32-bit types, 2 for float64) starts a fresh
generator at ``base + g * 256`` (float64: ``base + g * 128``) and reads words one at a time
(``SingleSampleAdapter``: a Philox call's 4 words in order, then the next call). Repeatedly
take 2 words (float64: 4 words), Box-Muller them into ``(f0, f1)``, accept ``f0`` if
``|f0| < 2`` then ``f1`` if ``|f1| < 2`` (the test is done in float/double before rounding to
half/bfloat16) until the group is full.

Rejection samplers (Poisson, binomial, gamma) give *each output* its own generator at
``base + 256 * output_index`` (binomial by inversion: ``base + 42 * output_index``), where
``output_index`` enumerates ``(param_index, sample_index)`` param-major, while the tensor is
laid out sample-major: memory offset ``sample_index * num_params + param_index``. Uniforms are
drawn from a ``UniformDistribution`` buffer *from its last element backwards*: float64 gives
``u[1], u[0]`` of a call (all three samplers use double uniforms in TF 2.21, whatever the
parameter dtype). See the functions below for the exact loops.

Categorical (``StatelessMultinomial``) is the exception to thread-count independence: rows are
split into blocks by ``tensorflow::Shard`` (Eigen's ``parallelFor`` cost model, see
``eigen_parallel_for_blocks``); a block starting at row ``s`` starts its generator at
``counter + (s * (num_samples + 3)) // 4`` and then reads 2 words per sample (``RandDouble``)
sequentially through its rows. With one block (small inputs, or one thread) row ``b`` sample
``j`` simply uses words ``2 * (b * num_samples + j)`` and ``+1`` of the stream.

Generator (Philox): ``from_seed(s)`` for a Python int ``s`` chops it into 64-bit chunks
(little end first) giving the state ``[s & M, (s >> 64) & M, (s >> 128) & M]`` (so a small
seed is counter ``[s, 0]``, key ``0``), no scrambling; a list seed is left-padded with zeros to
length 3. Every sampling method (``normal``, ``uniform``, ``truncated_normal``,
``uniform_full_int``) reads the state, calls the V2 stateless kernel with ``key = state[2]`` and
``counter = state[0:2]`` and advances the 128-bit counter by ``256 * n`` where ``n`` is the
number of elements (1 for shape ``[]``). ``binomial`` uses the state the same way with the
binomial kernel, and advances it by
``256 * ((num_batches * 2 * 100 * (samples_per_batch + 3)) // 4)``. ``split(count)`` draws
``keys = uniform_full_int([count], int64)`` and returns generators with state ``[0, 0, key]``.

Math library: the kernels call glibc (``logf``, ``sincosf``, ``log``, ``sincos``, ``log1p``,
``expf``, ``lgammaf``, ``pow``...). This module calls the same glibc functions through ctypes
(and Python's ``math``, which is glibc too, except ``math.lgamma``, so glibc's ``lgamma`` is
called directly), so it is exact on glibc systems. Float32 arithmetic is done with numpy
float32 (single rounding per operation, no FMA contraction; TF's kernels show none either).
glibc's float functions are *not* correctly rounded: over the 2**23 possible Box-Muller inputs,
``logf`` differs by 1 ulp from ``(float)log((double)x)`` on 60931 of them and ``sinf``/``cosf``
on ~108000; so an implementation must call glibc's ``logf``/``sinf``/``cosf`` (``sincosf``
gives the same values as separate ``sinf``/``cosf``), not compute in double and round.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

__all__ = [
    "philox4x32",
    "seed_to_key_counter",
    "key_counter_to_words",
    "stateless_uniform",
    "stateless_normal",
    "stateless_truncated_normal",
    "stateless_split",
    "stateless_fold_in",
    "stateless_categorical",
    "stateless_random_binomial",
    "stateless_random_poisson",
    "stateless_random_gamma",
    "uniform_v2",
    "uniform_int_v2",
    "uniform_full_int_v2",
    "normal_v2",
    "truncated_normal_v2",
    "Generator",
    "to_bfloat16",
    "eigen_parallel_for_blocks",
]

# --------------------------------------------------------------------------------------
# glibc math (the kernels call it; Python's math module does too, for doubles)
# --------------------------------------------------------------------------------------

_libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")


def _cfun(name, restype, *argtypes):
    f = getattr(_libm, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_c_float = ctypes.c_float
_c_double = ctypes.c_double
_logf = _cfun("logf", _c_float, _c_float)
_lgamma = _cfun("lgamma", _c_double, _c_double)
try:  # glibc; TF's kernels call sincosf/sincos on Linux (same values as sinf/cosf, sin/cos)
    _sincosf = _cfun("sincosf", None, _c_float, ctypes.POINTER(_c_float), ctypes.POINTER(_c_float))
    _sincos = _cfun("sincos", None, _c_double, ctypes.POINTER(_c_double), ctypes.POINTER(_c_double))
except AttributeError:  # not glibc: results are then only as exact as this libm
    _sinf = _cfun("sinf", _c_float, _c_float)
    _cosf = _cfun("cosf", _c_float, _c_float)

    def _sincosf(x, s, c):
        s._obj.value = _sinf(x)
        c._obj.value = _cosf(x)

    def _sincos(x, s, c):
        s._obj.value = math.sin(x)
        c._obj.value = math.cos(x)


_M32 = 0xFFFFFFFF
_M64 = 0xFFFFFFFFFFFFFFFF
_TWO_PI = 2.0 * 3.14159265358979323846  # the double 2*M_PI


def _sincosf_py(x: float):
    s = _c_float()
    c = _c_float()
    _sincosf(x, ctypes.byref(s), ctypes.byref(c))
    return s.value, c.value


def _sincos_py(x: float):
    s = _c_double()
    c = _c_double()
    _sincos(x, ctypes.byref(s), ctypes.byref(c))
    return s.value, c.value


# --------------------------------------------------------------------------------------
# Philox4x32-10
# --------------------------------------------------------------------------------------

_MA = 0xD2511F53
_MB = 0xCD9E8D57
_WA = 0x9E3779B9
_WB = 0xBB67AE85


def _key_schedule(key):
    k0, k1 = int(key[0]) & _M32, int(key[1]) & _M32
    ks = []
    for _ in range(10):
        ks.append((k0, k1))
        k0 = (k0 + _WA) & _M32
        k1 = (k1 + _WB) & _M32
    return ks


def philox4x32(key, counter, offsets) -> np.ndarray:
    """Philox outputs for counters ``counter + offsets`` (128-bit add). Returns (n, 4) uint32.

    ``key``: 2 uint32 words; ``counter``: 4 uint32 words; ``offsets``: array of uint64 >= 0.
    """
    off = np.asarray(offsets, dtype=np.uint64).ravel()
    c = [int(x) & _M32 for x in counter]
    base_lo = np.uint64(c[0] | (c[1] << 32))
    base_hi = np.uint64(c[2] | (c[3] << 32))
    with np.errstate(over="ignore"):
        lo = base_lo + off
        carry = (lo < off).astype(np.uint64)
        hi = base_hi + carry
    m = np.uint64(_M32)
    s32 = np.uint64(32)
    x0, x1 = lo & m, lo >> s32
    x2, x3 = hi & m, hi >> s32
    ma, mb = np.uint64(_MA), np.uint64(_MB)
    for k0, k1 in _key_schedule(key):
        p0 = ma * x0
        p1 = mb * x2
        x0, x1, x2, x3 = (
            (p1 >> s32) ^ x1 ^ np.uint64(k0),
            p1 & m,
            (p0 >> s32) ^ x3 ^ np.uint64(k1),
            p0 & m,
        )
    return np.stack([x0, x1, x2, x3], axis=1).astype(np.uint32)


def _philox_scalar(ks, c0, c1, c2, c3):
    """One Philox call in pure Python ints (ks = key schedule)."""
    for k0, k1 in ks:
        p0 = _MA * c0
        p1 = _MB * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0), p1 & _M32, ((p0 >> 32) ^ c3 ^ k1), p0 & _M32
    return (c0, c1, c2, c3)


def _counter_add(counter, n):
    """PhiloxRandom::Skip(n) for 0 <= n < 2**64 (a 128-bit add)."""
    v = 0
    for i, w in enumerate(counter):
        v |= (int(w) & _M32) << (32 * i)
    v = (v + int(n)) & ((1 << 128) - 1)
    return [(v >> (32 * i)) & _M32 for i in range(4)]


class _Stream:
    """A PhiloxRandom copy started at ``counter`` (already skipped): successive calls."""

    __slots__ = ("ks", "ctr", "pref", "pi")

    def __init__(self, ks, counter, prefetched=None):
        self.ks = ks
        self.ctr = list(counter)
        self.pref = prefetched  # optional list of precomputed first calls
        self.pi = 0

    def __call__(self):
        if self.pref is not None and self.pi < len(self.pref):
            r = self.pref[self.pi]
            self.pi += 1
        else:
            r = _philox_scalar(self.ks, *self.ctr)
        self.ctr = _counter_add(self.ctr, 1)
        return r


class _SingleSample:
    """SingleSampleAdapter: the words of successive Philox calls, one at a time."""

    __slots__ = ("gen", "buf", "i")

    def __init__(self, gen):
        self.gen = gen
        self.buf = None
        self.i = 4

    def __call__(self):
        if self.i == 4:
            self.buf = self.gen()
            self.i = 0
        w = self.buf[self.i]
        self.i += 1
        return w


# --------------------------------------------------------------------------------------
# key / counter
# --------------------------------------------------------------------------------------


def _as_u64(v) -> int:
    return int(v) & _M64


def seed_to_key_counter(seed):
    """``GenerateKey`` / ``StatelessRandomGetKeyCounter``.

    Returns ``(key_words[2], counter_words[4], key_u64, counter_u64[2])``.
    """
    s0, s1 = _as_u64(seed[0]), _as_u64(seed[1])
    ks = _key_schedule((0x3EC8F720, 0x02461E29))
    m = _philox_scalar(ks, s0 & _M32, s0 >> 32, s1 & _M32, s1 >> 32)
    key = [m[0], m[1]]
    counter = [0, 0, m[2], m[3]]
    return key, counter, m[0] | (m[1] << 32), [0, m[2] | (m[3] << 32)]


def key_counter_to_words(key_u64, counter_u64):
    """uint64 key and uint64[2] counter (V2 op inputs / Generator state) -> Philox words."""
    k = _as_u64(key_u64)
    c0, c1 = _as_u64(counter_u64[0]), _as_u64(counter_u64[1])
    return [k & _M32, k >> 32], [c0 & _M32, c0 >> 32, c1 & _M32, c1 >> 32]


# --------------------------------------------------------------------------------------
# small numeric helpers
# --------------------------------------------------------------------------------------


def to_bfloat16(x) -> np.ndarray:
    """Round float32 values to bfloat16 (nearest-even, Eigen semantics); returns float32
    arrays holding bfloat16-exact values."""
    f = np.asarray(x, dtype=np.float32)
    b = f.view(np.uint32).astype(np.uint64)
    lsb = (b >> np.uint64(16)) & np.uint64(1)
    r = ((b + np.uint64(0x7FFF) + lsb) >> np.uint64(16)) << np.uint64(16)
    r = r.astype(np.uint32)
    nan = np.isnan(f)
    if nan.any():
        r = np.where(nan, (f.view(np.uint32) | np.uint32(0x00400000)) & np.uint32(0xFFFF0000), r)
    return r.view(np.float32).reshape(f.shape)


def _round_to(dtype, x):
    """Round float32 (or float64 via float32, like Eigen's half(double)) to ``dtype``."""
    if dtype == "float32":
        return np.asarray(x, dtype=np.float32)
    if dtype == "float64":
        return np.asarray(x, dtype=np.float64)
    f = np.asarray(x, dtype=np.float32)
    if dtype == "float16":
        return f.astype(np.float16)
    if dtype == "bfloat16":
        return to_bfloat16(f)
    raise ValueError(dtype)


def _np_dtype(dtype):
    return {
        "float16": np.float16,
        "bfloat16": np.float32,  # carried as bfloat16-exact float32
        "float32": np.float32,
        "float64": np.float64,
        "int32": np.int32,
        "int64": np.int64,
        "uint32": np.uint32,
        "uint64": np.uint64,
    }[dtype]


def _arith(dtype, op, a, b):
    """One TF elementwise op (mul/add/sub/div) in ``dtype`` (Eigen half/bfloat16 semantics:
    compute in float32, round once)."""
    fn = {"mul": np.multiply, "add": np.add, "sub": np.subtract, "div": np.divide}[op]
    if dtype in ("float32", "float64", "float16"):
        t = _np_dtype(dtype)
        with np.errstate(all="ignore"):
            return fn(np.asarray(a, dtype=t), np.asarray(b, dtype=t))
    if dtype == "bfloat16":
        with np.errstate(all="ignore"):
            return to_bfloat16(fn(to_bfloat16(a), to_bfloat16(b)))
    raise ValueError(dtype)


def _shape_size(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


# --------------------------------------------------------------------------------------
# word -> value maps
# --------------------------------------------------------------------------------------


def _u32_to_float(w):
    bits = (np.asarray(w, dtype=np.uint32) & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)
    return bits.view(np.float32) - np.float32(1.0)


def _u64_to_double(w0, w1):
    hi = (np.asarray(w0, dtype=np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)
    bits = (np.uint64(1023) << np.uint64(52)) | hi | np.asarray(w1, dtype=np.uint64)
    return bits.view(np.float64) - 1.0


def _u16_to_half(w):
    bits = ((np.asarray(w, dtype=np.uint32) & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(
        np.uint16
    )
    return bits.view(np.float16) - np.float16(1.0)


def _u16_to_bfloat16(w):
    bits = ((np.asarray(w, dtype=np.uint32) & np.uint32(0x7F)) | np.uint32(127 << 7)) << np.uint32(
        16
    )
    return bits.view(np.float32) - np.float32(1.0)  # exact


def _scalar_u32_to_float(w):
    return float(np.uint32((w & 0x7FFFFF) | 0x3F800000).view(np.float32)) - 1.0  # exact in double


def _scalar_u64_to_double(w0, w1):
    bits = (1023 << 52) | ((w0 & 0xFFFFF) << 32) | w1
    return float(np.uint64(bits).view(np.float64)) - 1.0


# Box-Muller -----------------------------------------------------------------------------

_EPS_F = float(np.float32(1.0e-7))


def _box_muller_float(x0, x1):
    """BoxMullerFloat on arrays of words; returns (f0, f1) float32 arrays."""
    u1 = _u32_to_float(x0)
    u1 = np.where(u1 < np.float32(_EPS_F), np.float32(_EPS_F), u1).astype(np.float32)
    v1 = (_TWO_PI * _u32_to_float(x1).astype(np.float64)).astype(np.float32)
    lg = np.array([_logf(float(u)) for u in u1], dtype=np.float32)
    u2 = np.sqrt(np.float32(-2.0) * lg).astype(np.float32)
    sc = np.array([_sincosf_py(float(v)) for v in v1], dtype=np.float32).reshape(-1, 2)
    return (sc[:, 0] * u2).astype(np.float32), (sc[:, 1] * u2).astype(np.float32)


def _box_muller_double(x0, x1, x2, x3):
    u1 = _u64_to_double(x0, x1)
    u1 = np.where(u1 < 1.0e-7, 1.0e-7, u1)
    v1 = _TWO_PI * _u64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * np.array([math.log(float(u)) for u in u1], dtype=np.float64))
    sc = np.array([_sincos_py(float(v)) for v in v1], dtype=np.float64).reshape(-1, 2)
    return sc[:, 0] * u2, sc[:, 1] * u2


def _box_muller_float_scalar(x0, x1):
    u1 = np.float32(_scalar_u32_to_float(x0))
    if u1 < np.float32(_EPS_F):
        u1 = np.float32(_EPS_F)
    v1 = float(np.float32(_TWO_PI * _scalar_u32_to_float(x1)))
    u2 = np.sqrt(np.float32(-2.0) * np.float32(_logf(float(u1))))
    s, c = _sincosf_py(v1)
    return np.float32(s) * u2, np.float32(c) * u2


def _box_muller_double_scalar(x0, x1, x2, x3):
    u1 = _scalar_u64_to_double(x0, x1)
    if u1 < 1.0e-7:
        u1 = 1.0e-7
    v1 = _TWO_PI * _scalar_u64_to_double(x2, x3)
    u2 = math.sqrt(-2.0 * math.log(u1))
    s, c = _sincos_py(v1)
    return s * u2, c * u2


# --------------------------------------------------------------------------------------
# V2 kernels (key/counter inputs): FillPhiloxRandom with fixed-size groups
# --------------------------------------------------------------------------------------


def _group_words(key, counter, n, per_group):
    groups = (n + per_group - 1) // per_group
    return philox4x32(key, counter, np.arange(groups, dtype=np.uint64))


def uniform_v2(shape, key, counter, dtype="float32"):
    """StatelessRandomUniformV2 (Philox words ``key``[2], ``counter``[4])."""
    n = _shape_size(shape)
    if dtype == "float64":
        w = _group_words(key, counter, n, 2)
        out = _u64_to_double(w[:, [0, 2]], w[:, [1, 3]]).ravel()
    else:
        w = _group_words(key, counter, n, 4).ravel()
        if dtype == "float32":
            out = _u32_to_float(w)
        elif dtype == "float16":
            out = _u16_to_half(w)
        elif dtype == "bfloat16":
            out = _u16_to_bfloat16(w)
        else:
            raise ValueError(dtype)
    return out[:n].reshape(shape)


def uniform_int_v2(shape, key, counter, minval, maxval, dtype="int32"):
    """StatelessRandomUniformIntV2: ``lo + (bits % (hi - lo))``."""
    n = _shape_size(shape)
    lo, hi = int(minval), int(maxval)
    if not lo < hi:
        raise ValueError("Need minval < maxval")
    if dtype == "int32":
        rng = (hi - lo) & _M32
        w = _group_words(key, counter, n, 4).ravel()[:n].astype(np.uint64)
        v = (np.uint64(lo & _M32) + (w % np.uint64(rng))) & np.uint64(_M32)
        return v.astype(np.uint32).view(np.int32).reshape(shape)
    if dtype == "int64":
        rng = (hi - lo) & _M64
        w = _group_words(key, counter, n, 2).astype(np.uint64)
        bits = np.stack(
            [w[:, 0] | (w[:, 1] << np.uint64(32)), w[:, 2] | (w[:, 3] << np.uint64(32))], 1
        )
        bits = bits.ravel()[:n]
        with np.errstate(over="ignore"):
            v = np.uint64(lo & _M64) + (bits % np.uint64(rng))
        return v.view(np.int64).reshape(shape)
    raise ValueError(dtype)


def uniform_full_int_v2(shape, key, counter, dtype="int32"):
    """StatelessRandomUniformFullIntV2."""
    n = _shape_size(shape)
    if dtype in ("int32", "uint32"):
        w = _group_words(key, counter, n, 4).ravel()[:n]
        return w.view(np.int32 if dtype == "int32" else np.uint32).reshape(shape)
    if dtype in ("int64", "uint64"):
        w = _group_words(key, counter, n, 2).astype(np.uint64)
        bits = np.stack(
            [w[:, 0] | (w[:, 1] << np.uint64(32)), w[:, 2] | (w[:, 3] << np.uint64(32))], 1
        )
        bits = bits.ravel()[:n]
        return bits.view(np.int64 if dtype == "int64" else np.uint64).reshape(shape)
    raise ValueError(dtype)


def normal_v2(shape, key, counter, dtype="float32"):
    """StatelessRandomNormalV2."""
    n = _shape_size(shape)
    if dtype == "float64":
        w = _group_words(key, counter, n, 2)
        d0, d1 = _box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        out = np.stack([d0, d1], 1).ravel()
    else:
        w = _group_words(key, counter, n, 4)
        a0, a1 = _box_muller_float(w[:, 0], w[:, 1])
        b0, b1 = _box_muller_float(w[:, 2], w[:, 3])
        out = _round_to(dtype, np.stack([a0, a1, b0, b1], 1).ravel())
    return out[:n].reshape(shape)


def truncated_normal_v2(shape, key, counter, dtype="float32"):
    """StatelessTruncatedNormalV2: per group a fresh generator at ``counter + g * skip``."""
    n = _shape_size(shape)
    per = 2 if dtype == "float64" else 4
    skip = per * 256 // 4
    groups = (n + per - 1) // per
    ks = _key_schedule(key)
    # prefetch the first 2 Philox calls of every group (enough for ~99% of groups)
    pre = 2
    offs = (
        np.arange(groups, dtype=np.uint64)[:, None] * np.uint64(skip)
        + np.arange(pre, dtype=np.uint64)[None, :]
    ).ravel()
    pw = philox4x32(key, counter, offs).reshape(groups, pre, 4).tolist()
    out = np.empty(groups * per, dtype=np.float64 if dtype == "float64" else np.float32)
    for g in range(groups):
        gen = _Stream(ks, _counter_add(counter, g * skip), [tuple(x) for x in pw[g]])
        ss = _SingleSample(gen)
        res = []
        while True:
            if dtype == "float64":
                x0, x1, x2, x3 = ss(), ss(), ss(), ss()
                f0, f1 = _box_muller_double_scalar(x0, x1, x2, x3)
                lim = 2.0
            else:
                x0, x1 = ss(), ss()
                f0, f1 = _box_muller_float_scalar(x0, x1)
                lim = np.float32(2.0)
            if abs(f0) < lim:
                res.append(f0)
                if len(res) >= per:
                    break
            if abs(f1) < lim:
                res.append(f1)
                if len(res) >= per:
                    break
        out[g * per : (g + 1) * per] = res
    out = _round_to(dtype, out) if dtype in ("float16", "bfloat16") else out
    return out[:n].reshape(shape)


# --------------------------------------------------------------------------------------
# Python-level stateless API (tf.random.stateless_*)
# --------------------------------------------------------------------------------------


def _kc(seed):
    key, counter, _, _ = seed_to_key_counter(seed)
    return key, counter


def _seed_dtype(seed):
    if isinstance(seed, np.ndarray):
        return str(seed.dtype)
    vals = [int(s) for s in seed]
    return "int32" if all(-(2**31) <= v < 2**31 for v in vals) else "int64"


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype="float32", alg="auto_select"):
    """tf.random.stateless_uniform (alg "auto_select" and "philox" are identical on CPU)."""
    key, counter = _kc(seed)
    if dtype in ("int32", "int64", "uint32", "uint64"):
        if minval is None and maxval is None:
            return uniform_full_int_v2(shape, key, counter, dtype)
        return uniform_int_v2(shape, key, counter, minval, maxval, dtype)
    if maxval is None:
        maxval = 1
    rnd = uniform_v2(shape, key, counter, dtype)
    mn = _round_to(dtype, np.float64(minval)) if dtype != "float64" else np.float64(minval)
    mx = _round_to(dtype, np.float64(maxval)) if dtype != "float64" else np.float64(maxval)
    return _arith(dtype, "add", _arith(dtype, "mul", rnd, _arith(dtype, "sub", mx, mn)), mn)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype="float32"):
    key, counter = _kc(seed)
    rnd = normal_v2(shape, key, counter, dtype)
    return _arith(
        dtype,
        "add",
        _arith(dtype, "mul", rnd, _cast_param(dtype, stddev)),
        _cast_param(dtype, mean),
    )


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype="float32"):
    key, counter = _kc(seed)
    rnd = truncated_normal_v2(shape, key, counter, dtype)
    return _arith(
        dtype,
        "add",
        _arith(dtype, "mul", rnd, _cast_param(dtype, stddev)),
        _cast_param(dtype, mean),
    )


def _cast_param(dtype, v):
    if dtype == "float64":
        return np.float64(v)
    return _round_to(dtype, np.float64(v))


def stateless_split(seed, num=2):
    """tf.random.split: full-range ints of the seed's dtype, shape [num, 2]."""
    return stateless_uniform([num, 2], seed, minval=None, maxval=None, dtype=_seed_dtype(seed))


def stateless_fold_in(seed, data, data_dtype="int32"):
    """tf.random.fold_in: ``[full_int_scalar(seed, data_dtype), data]``."""
    s1 = stateless_uniform([], seed, minval=None, maxval=None, dtype=data_dtype)
    t = _np_dtype(data_dtype)
    return np.array([s1, np.array(data).astype(t)], dtype=t)


# --------------------------------------------------------------------------------------
# Categorical (StatelessMultinomial): the only kernel whose output depends on sharding
# --------------------------------------------------------------------------------------


def eigen_parallel_for_blocks(n, cost_per_unit, num_threads):
    """Blocks [(start, limit)] used by tensorflow::Shard -> Eigen ThreadPoolDevice::parallelFor
    (cost model with kStartupCycles = kPerThreadCycles = 100000, kTaskSize = 40000)."""
    if n <= 0:
        return []
    if num_threads <= 1 or n == 1:
        return [(0, n)]
    total = n * float(cost_per_unit)
    threads = (total - 100000) / 100000 + 0.9
    threads = min(num_threads, max(1, int(min(threads, 2**31 - 1))))
    if threads == 1:
        return [(0, n)]

    def divup(a, b):
        return (a + b - 1) // b

    block_size_f = 1.0 / (float(cost_per_unit) / 40000)
    max_oversharding_factor = 4
    block_size = min(n, max(divup(n, max_oversharding_factor * num_threads), int(block_size_f)))
    max_block_size = min(n, 2 * block_size)
    block_count = divup(n, block_size)
    max_eff = block_count / (divup(block_count, num_threads) * num_threads)
    prev = block_count
    while max_eff < 1.0 and prev > 1:
        coarser = divup(n, prev - 1)
        if coarser > max_block_size:
            break
        cc = divup(n, coarser)
        prev = cc
        eff = cc / (divup(cc, num_threads) * num_threads)
        if eff + 0.01 >= max_eff:
            block_size, block_count = coarser, cc
            if max_eff < eff:
                max_eff = eff
    return [(s, min(s + block_size, n)) for s in range(0, n, block_size)]


def stateless_categorical(
    logits, num_samples, seed, dtype="int64", num_threads=1, logits_dtype=None
):
    """tf.random.stateless_categorical (StatelessMultinomial CPU kernel).

    Rows are sharded by ``Shard(batch, cost = int(50 * (num_samples * log2(classes) + classes)))``;
    a shard starting at row ``s`` uses ``Skip(s * (num_samples + 3) // 4)`` and then draws
    2 words (``RandDouble``) per sample sequentially over its rows. Pass ``num_threads`` =
    TF's intra-op thread count to reproduce multi-shard results (1 = one shard).
    """
    lg = np.asarray(logits)
    if lg.ndim != 2:
        raise ValueError("logits must be 2-D")
    batch, classes = lg.shape
    key, counter = _kc(seed)
    ks = _key_schedule(key)
    out = np.zeros((batch, num_samples), dtype=_np_dtype(dtype))
    if batch * num_samples == 0:
        return out
    cost = int(50 * (num_samples * math.log(classes) / math.log(2) + classes))
    for start, limit in eigen_parallel_for_blocks(batch, cost, num_threads):
        gen = _Stream(ks, _counter_add(counter, start * (num_samples + 3) // 4))
        ss = _SingleSample(gen)
        for b in range(start, limit):
            row = lg[b]
            finite = np.isfinite(row.astype(np.float64))
            mx = (
                row[finite].max()
                if finite.any()
                else np.finfo(row.dtype).min
                if row.dtype.kind == "f"
                else 0
            )
            mxd = float(np.float64(mx))
            cdf = np.empty(classes, dtype=np.float64)
            total = 0.0
            for j in range(classes):
                e = math.exp(float(np.float64(row[j])) - mxd) if finite[j] else 0.0
                if finite[j]:
                    total += e
                cdf[j] = total
            for j in range(num_samples):
                x0 = ss()
                x1 = ss()
                r = _scalar_u64_to_double(x0, x1) * total
                out[b, j] = int(np.searchsorted(cdf, r, side="right"))
    return out


# --------------------------------------------------------------------------------------
# Rejection samplers
# --------------------------------------------------------------------------------------


class _UniformBuf:
    """UNIFORM(X) macro / RandomSampleBuffer: values of UniformDistribution<Philox, CT>
    taken from the last element backwards."""

    __slots__ = ("gen", "ct", "buf")

    def __init__(self, gen, ct):
        self.gen = gen
        self.ct = ct
        self.buf = []

    def __call__(self):
        if not self.buf:
            w = self.gen()
            if self.ct == "float32":
                self.buf = [np.float32(_scalar_u32_to_float(x)) for x in w]
            else:
                self.buf = [_scalar_u64_to_double(w[0], w[1]), _scalar_u64_to_double(w[2], w[3])]
        return self.buf.pop()


class _NormalBuf:
    """RandomSampleBuffer<NormalDistribution<Philox, double>>: u[1] then u[0]."""

    __slots__ = ("gen", "buf")

    def __init__(self, gen):
        self.gen = gen
        self.buf = []

    def __call__(self):
        if not self.buf:
            w = self.gen()
            self.buf = list(_box_muller_double_scalar(*w))
        return self.buf.pop()


def _param_layout(shape, params):
    p = np.asarray(params)
    n = _shape_size(shape)
    num_params = p.size
    if num_params == 0 or n % num_params:
        raise ValueError("shape must end with the parameter shape")
    return p.ravel(), num_params, n // num_params


def _prefetch(key, counter, n, stride, count):
    offs = (
        np.arange(n, dtype=np.uint64)[:, None] * np.uint64(stride)
        + np.arange(count, dtype=np.uint64)[None, :]
    ).ravel()
    w = philox4x32(key, counter, offs).reshape(n, count, 4)
    return [[tuple(x) for x in row] for row in w.tolist()]


_INT_HIGHEST = {"int32": 2**31 - 1, "int64": 2**63 - 1}


def _highest(dtype):
    if dtype in _INT_HIGHEST:
        return _INT_HIGHEST[dtype]
    return {
        "float16": 65504.0,
        "float32": float(np.finfo(np.float32).max),
        "float64": float(np.finfo(np.float64).max),
        "bfloat16": 3.3895313892515355e38,
    }[dtype]


def stateless_random_poisson(shape, seed, lam, dtype="int32", lam_dtype="float32"):
    """tf.random.stateless_poisson (StatelessRandomPoisson CPU kernel, PoissonFunctor).

    All intermediate math is double for every rate dtype in TF 2.21 (verified: float32 rates
    give the same draws as float64 rates; uniforms are UniformDistribution<Philox, double>,
    2 per Philox call, consumed u[1] then u[0]). Each output has its own generator at
    ``counter + 256 * output_index``.
    """
    rates, num_rate, num_samples = _param_layout(shape, lam)
    key, counter = _kc(seed)
    ks = _key_schedule(key)
    n = num_rate * num_samples
    out = np.zeros(n, dtype=np.float64)
    pre = _prefetch(key, counter, n, 256, 1)
    hi = float(_highest(dtype))  # CT(NumTraits<U>::highest())
    for idx in range(n):
        r_i = idx // num_samples
        s_i = idx % num_samples
        rate = float(rates[r_i])
        uni = _UniformBuf(_Stream(ks, _counter_add(counter, 256 * idx), pre[idx]), "float64")
        if rate < 10.0:
            # Knuth: multiply uniforms until the product drops to exp(-rate).
            exp_neg = math.exp(-rate)
            prod = 1.0
            x = 0.0
            while True:
                prod = prod * uni()
                if prod <= exp_neg and x <= hi:
                    val = x
                    break
                x += 1.0
        elif math.isinf(rate):
            # U(NumTraits<U>::infinity()); NumTraits<int>::infinity() is 0
            val = math.inf if dtype not in ("int32", "int64") else 0.0
        else:
            # Hormann's transformed rejection (PTRS).
            log_rate = math.log(rate)
            b = 0.931 + 2.53 * math.sqrt(rate)
            a = -0.059 + 0.02483 * b
            inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
            while True:
                u = uni() - 0.5
                v = uni()
                us = 0.5 - abs(u)
                k = _floor((2 * a / us + b) * u + rate + 0.43)
                if k > hi:
                    continue
                if us >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2):
                    val = k
                    break
                if k < 0 or (us < 0.013 and v > us):
                    continue
                s = math.log(v * inv_alpha / (a / (us * us) + b))
                t = -rate + k * log_rate - _lgamma(k + 1)
                if s <= t:
                    val = k
                    break
        out[s_i * num_rate + r_i] = val
    if dtype in ("int32", "int64"):
        return out.astype(_np_dtype(dtype)).reshape(shape)
    if dtype == "float64":
        return out.reshape(shape)
    return _round_to(dtype, out).reshape(shape)


def _floor(x):
    return float(np.floor(np.float64(x)))


def _ceil(x):
    return float(np.ceil(np.float64(x)))


def _stirling_tail(k):
    table = [
        0.0810614667953272,
        0.0413406959554092,
        0.0276779256849983,
        0.02079067210376509,
        0.0166446911898211,
        0.0138761288230707,
        0.0118967099458917,
        0.0104112652619720,
        0.00925546218271273,
        0.00833056343336287,
    ]
    if k <= 9:
        return table[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(count, prob, uni):
    geom_sum = 0.0
    num_geom = 0
    lq = math.log1p(-prob)
    while True:
        u = uni()
        lu = math.log(u) if u > 0 else -math.inf
        geom = _ceil(lu / lq)
        geom_sum += geom
        if geom_sum > count:
            break
        num_geom += 1
    return float(num_geom)


def _btrs(count, prob, uni):
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = _floor((count + 1) * prob)
    while True:
        u = uni()
        v = uni()
        u = u - 0.5
        us = 0.5 - abs(u)
        k = _floor((2 * a / us + b) * u + c)
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or k > count:
            continue
        v = math.log(v * alpha / (a / (us * us) + b))
        upperbound = (
            (m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
            + (count + 1) * math.log((count - m + 1) / (count - k + 1))
            + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
            + _stirling_tail(m)
            + _stirling_tail(count - m)
            - _stirling_tail(k)
            - _stirling_tail(count - k)
        )
        if v <= upperbound:
            return float(k)


def _binomial_kernel(shape, key, counter, counts, probs, dtype, param_dtype):
    """RandomBinomialFunctor<CPU>. counts/probs broadcast to the trailing ``batch`` shape."""
    cnt = np.asarray(counts)
    prb = np.asarray(probs)
    bshape = np.broadcast_shapes(cnt.shape, prb.shape)
    cnt = np.broadcast_to(cnt, bshape).ravel()
    prb = np.broadcast_to(prb, bshape).ravel()
    num_batches = int(np.prod(bshape)) if len(bshape) else 1
    n = _shape_size(shape)
    spb = n // num_batches
    ks = _key_schedule(key)
    T = {"float16": np.float16, "float32": np.float32, "float64": np.float64}[param_dtype]
    out = np.zeros(n, dtype=np.float64)
    for idx in range(n):
        bi = idx // spb
        si = idx % spb
        count = T(cnt[bi])
        prob = T(prb[bi])
        dcount = float(count)
        with np.errstate(all="ignore"):
            if dcount <= 0.0 or prob <= T(0):
                val = 0.0
            elif prob >= T(1):
                val = dcount
            elif prob <= T(0.5):
                dp = float(prob)
                if T(count * prob) >= T(10):
                    uni = _UniformBuf(_Stream(ks, _counter_add(counter, 256 * idx)), "float64")
                    val = _btrs(dcount, dp, uni)
                else:
                    uni = _UniformBuf(_Stream(ks, _counter_add(counter, 42 * idx)), "float64")
                    val = _binomial_inversion(dcount, dp, uni)
            elif prob > T(0.5):
                q = T(T(1) - prob)
                dq = float(q)
                if T(count * q) >= T(10):
                    uni = _UniformBuf(_Stream(ks, _counter_add(counter, 256 * idx)), "float64")
                    val = dcount - _btrs(dcount, dq, uni)
                else:
                    uni = _UniformBuf(_Stream(ks, _counter_add(counter, 42 * idx)), "float64")
                    val = dcount - _binomial_inversion(dcount, dq, uni)
            else:
                val = float("nan")
        out[si * num_batches + bi] = val
    if dtype in ("int32", "int64"):
        return out.astype(_np_dtype(dtype)).reshape(shape)
    return _round_to(dtype, out).reshape(shape) if dtype != "float64" else out.reshape(shape)


def stateless_random_binomial(
    shape, seed, counts, probs, output_dtype="int32", param_dtype="float32"
):
    """tf.random.stateless_binomial (StatelessRandomBinomial; seed scrambled by GenerateKey)."""
    key, counter = _kc(seed)
    return _binomial_kernel(shape, key, counter, counts, probs, output_dtype, param_dtype)


def stateless_random_gamma(shape, seed, alpha, beta=None, dtype="float32"):
    """tf.random.stateless_gamma (StatelessRandomGammaV3 + ``maximum(tiny, x / beta)``)."""
    key, counter = _kc(seed)
    al = np.asarray(alpha, dtype=np.float64 if dtype == "float64" else np.float32)
    if dtype in ("float16", "bfloat16"):
        al = _round_to(dtype, al).astype(np.float32)
    be = np.asarray(1.0 if beta is None else beta)
    bshape = np.broadcast_shapes(al.shape, be.shape)
    al_b = np.broadcast_to(al, bshape)
    alphas, num_alphas, spa = _param_layout(shape, al_b)
    ks = _key_schedule(key)
    n = _shape_size(shape)
    out = np.zeros(n, dtype=np.float64)
    pre = _prefetch(key, counter, n, 256, 2)
    for idx in range(n):
        ai = idx // spa
        si = idx % spa
        alpha_d = float(alphas[ai])
        gen = _Stream(ks, _counter_add(counter, 256 * idx), pre[idx])
        if alpha_d == 1.0:
            w = gen()
            u = _scalar_u64_to_double(w[2], w[3])
            res = -math.log1p(-u)
        else:
            lt1 = alpha_d < 1
            d = alpha_d + (2.0 / 3 if lt1 else -1.0 / 3)
            c = 1.0 / 3 / math.sqrt(d)
            nb = _NormalBuf(gen)
            ub = _UniformBuf(gen, "float64")
            while True:
                x = nb()
                v = 1 + c * x
                if v <= 0:
                    continue
                v = v * v * v
                u = ub()
                if (u < 1 - 0.0331 * (x * x) * (x * x)) or (
                    (math.log(u) if u > 0 else -math.inf) < 0.5 * x * x + d * (1 - v + math.log(v))
                ):
                    res = d * v
                    if lt1:
                        bb = ub()
                        res *= math.pow(bb, 1 / alpha_d)
                    break
        out[si * num_alphas + ai] = res
    rnd = out if dtype == "float64" else _round_to(dtype, out)
    rnd = rnd.reshape(shape)
    bt = (
        _cast_param(dtype, 1.0)
        if beta is None
        else (
            np.asarray(beta, dtype=np.float64)
            if dtype == "float64"
            else _round_to(dtype, np.asarray(beta, np.float64))
        )
    )
    q = _arith(dtype, "div", rnd, bt)
    tiny = {
        "float16": np.finfo(np.float16).tiny,
        "bfloat16": np.float32(1.1754943508222875e-38),
        "float32": np.finfo(np.float32).tiny,
        "float64": np.finfo(np.float64).tiny,
    }[dtype]
    return np.maximum(np.asarray(tiny, dtype=q.dtype), q)


# --------------------------------------------------------------------------------------
# tf.random.Generator (Philox)
# --------------------------------------------------------------------------------------


class Generator:
    """tf.random.Generator with alg=PHILOX.

    ``state`` is int64[3] = [counter_lo, counter_hi, key].
    """

    def __init__(self, state):
        s = [int(x) & _M64 for x in state]
        assert len(s) == 3
        self._s = s

    @staticmethod
    def create_rng_state(seed):
        if isinstance(seed, int):
            return [(seed >> (64 * i)) & _M64 for i in range(3)]
        vals = [int(x) & _M64 for x in np.asarray(seed).reshape(-1)][:3]
        return [0] * (3 - len(vals)) + vals

    @classmethod
    def from_seed(cls, seed):
        return cls(cls.create_rng_state(seed))

    def reset_from_seed(self, seed):
        self._s = self.create_rng_state(seed)

    @property
    def state(self):
        return np.array(self._s, dtype=np.uint64).view(np.int64)

    def skip(self, delta):
        """RngReadAndSkip: returns the old state; counter += 256 * delta."""
        old = list(self._s)
        c = (self._s[0] | (self._s[1] << 64)) + 256 * int(delta)
        c &= (1 << 128) - 1
        self._s[0], self._s[1] = c & _M64, c >> 64
        return old

    def _key_counter(self, shape):
        old = self.skip(_shape_size(shape))
        return key_counter_to_words(old[2], old[0:2])

    def normal(self, shape, mean=0.0, stddev=1.0, dtype="float32"):
        key, counter = self._key_counter(shape)
        rnd = normal_v2(shape, key, counter, dtype)
        return _arith(
            dtype,
            "add",
            _arith(dtype, "mul", rnd, _cast_param(dtype, stddev)),
            _cast_param(dtype, mean),
        )

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype="float32"):
        key, counter = self._key_counter(shape)
        rnd = truncated_normal_v2(shape, key, counter, dtype)
        return _arith(
            dtype,
            "add",
            _arith(dtype, "mul", rnd, _cast_param(dtype, stddev)),
            _cast_param(dtype, mean),
        )

    def uniform(self, shape, minval=0, maxval=None, dtype="float32"):
        if dtype in ("int32", "int64", "uint32", "uint64"):
            if minval is None and maxval is None:
                return self.uniform_full_int(shape, dtype)
            key, counter = self._key_counter(shape)
            return uniform_int_v2(shape, key, counter, minval, maxval, dtype)
        if maxval is None:
            maxval = 1
        key, counter = self._key_counter(shape)
        rnd = uniform_v2(shape, key, counter, dtype)
        mn, mx = _cast_param(dtype, minval), _cast_param(dtype, maxval)
        return _arith(dtype, "add", _arith(dtype, "mul", rnd, _arith(dtype, "sub", mx, mn)), mn)

    def uniform_full_int(self, shape, dtype="uint64"):
        key, counter = self._key_counter(shape)
        return uniform_full_int_v2(shape, key, counter, dtype)

    def binomial(self, shape, counts, probs, dtype="int32", param_dtype="float32"):
        cnt, prb = np.asarray(counts), np.asarray(probs)
        bshape = np.broadcast_shapes(cnt.shape, prb.shape)
        num_batches = int(np.prod(bshape)) if len(bshape) else 1
        spb = _shape_size(shape) // num_batches if num_batches else 0
        old = list(self._s)
        self.skip((num_batches * 2 * 100 * (spb + 3)) // 4)
        key, counter = key_counter_to_words(old[2], old[0:2])
        return _binomial_kernel(shape, key, counter, counts, probs, dtype, param_dtype)

    def make_seeds(self, count=1):
        keys = self.uniform_full_int([count], "int64")
        return np.stack([keys, np.zeros_like(keys)])

    def split(self, count=1):
        keys = self.uniform_full_int([count], "int64")
        return [Generator([0, 0, int(k)]) for k in keys]
