"""The op registry is complete: every declared primitive has a test-table entry, a gradient
decision that the finite-difference table checks, and a GPU kernel or a stated reason."""

import ferroflow as tf
from ferroflow import _core
from test_autodiff import CASES as GRADIENT_CASES
from test_ops_numpy import UNARY as NUMPY_TABLE

# Ops whose values are checked outside the numpy table (complex parts, bitwise not).
CHECKED_ELSEWHERE = {"real", "imag", "conj", "angle", "invert"}
# The special functions numpy has no reference for: tests/parity/test_math_special.py checks them
# against TensorFlow over their domains and edges.
CHECKED_ELSEWHERE |= {
    "digamma",
    "erfinv",
    "ndtri",
    "dawsn",
    "expint",
    "fresnel_cos",
    "fresnel_sin",
    "spence",
    *(
        f"bessel_{k}"
        for k in ("i0", "i0e", "i1", "i1e", "j0", "j1", "k0", "k0e", "k1", "k1e", "y0", "y1")
    ),
}
# Differentiable ops whose gradients are checked by cases under other names.
GRADIENT_ELSEWHERE = {"real", "imag", "conj", "angle"}


def test_every_unary_primitive_has_a_numpy_table_entry():
    declared = {name for name, *_ in _core.unary_declarations()}
    missing = declared - set(NUMPY_TABLE) - CHECKED_ELSEWHERE
    assert not missing, f"unary ops without a row in test_ops_numpy.UNARY: {sorted(missing)}"


def test_every_differentiable_unary_primitive_has_a_gradient_case():
    cases = {case[0] for case in GRADIENT_CASES}
    differentiable = {name for name, _, grad, _ in _core.unary_declarations() if grad}
    missing = differentiable - cases - GRADIENT_ELSEWHERE
    assert not missing, f"no finite-difference case in test_autodiff.CASES: {sorted(missing)}"


def test_every_unary_primitive_has_a_gpu_kernel_or_a_reason():
    for name, tf_name, _, gpu in _core.unary_declarations():
        assert gpu.startswith(("wgsl: ", "cpu only: ")) or name in {"logical_not", "invert"}, (
            f"{name} ({tf_name}): {gpu}"
        )


def test_every_unary_primitive_has_its_python_name():
    for name, *_ in _core.unary_declarations():
        fn = getattr(tf.math, name, getattr(tf.math.special, name, getattr(tf, name, None)))
        assert callable(fn) or name == "invert", name


def test_the_op_registry_names_each_tensorflow_op_once():
    rows = _core.op_registry()
    names = [name for _, row in rows for name in row]
    assert len(names) == len(set(names))
    expected = ["Relu", "Conv2D", "MaxPool", "BatchMatMulV2", "StridedSlice", "ZerosLike",
                "StatelessRandomUniformV2", "RandomStandardNormal", "TopKV2", "Where"]  # fmt: skip
    for name in expected:
        assert name in names, name
