//! Element-wise unary primitives, one declaration each (`unary_ops!` below): TensorFlow and
//! Python names, accepted dtypes, the CPU kernel body, the float element function the fused CPU
//! loops use, the WGSL expressions per GPU element type (or why the op stays on the CPU), and the
//! gradient rule (or that it has none). The dispatcher, the GPU kernels, fused chains and the
//! tapes read these declarations; adding an op means adding a row here and its Python name.

use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::element::{Element, FloatElem, Num, Real};
use crate::error::{Error, Result};
use crate::kernels::parallel;
use crate::ops::primitive::{
    input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::ops::special_fns as sf;
use crate::ops::special_grads as sg;
use crate::ops::{self, scalar_like, zeros_like, BinaryOp};
use crate::tensor::Tensor;
use crate::{match_buffer, with_all, with_complex, with_float, with_int, with_numeric, with_real};
use num_traits::Float;

/// How a unary primitive differentiates.
pub enum UnaryGrad {
    /// The input's gradient from (x, y, upstream g), written with ops so that it runs on any
    /// device and can itself be differentiated.
    Rule(fn(&Tensor, &Tensor, &Tensor) -> Result<Tensor>),
    /// TensorFlow registers no gradient (or a constant zero): tapes never record the op.
    NotDifferentiable,
}

/// The GPU element types a WGSL expression is written for. float16 computes through the F32
/// expression; int32/int64 use their own expression, else the unsigned one (bit-identical
/// arithmetic).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuClass {
    F32,
    I32,
    I64,
    U,
    Bool,
}

/// Everything about one unary primitive.
pub struct UnaryDecl {
    pub tf_name: &'static str,
    pub python_name: &'static str,
    pub dtypes: DTypeSet,
    /// WGSL expressions over `a`, per element type.
    pub gpu: &'static [(GpuClass, &'static str)],
    /// Why the op has no float32 GPU kernel (required when `gpu` has no F32 entry and the op
    /// accepts float32).
    pub cpu_only: Option<&'static str>,
    pub grad: UnaryGrad,
}

/// Transcendental functions over every inexact dtype: complex variants come from num_complex's
/// inherent methods, half types from `half`'s `Float` implementation.
macro_rules! inexact {
    ($b:ident, $bad:ident, |$a:ident| $body:expr) => {
        match_buffer!(
            $b,
            v,
            [F16, BF16, F32, F64, C64, C128],
            un(v, |$a| $body),
            return Err($bad())
        )
    };
}

macro_rules! unary_ops {
    ($(
        $(#[$doc:meta])*
        $name:ident {
            tf: $tf:literal,
            python: $py:literal,
            dtypes: $dtypes:expr,
            cpu: |$x:ident, $b:ident, $bad:ident| $cpu:expr,
            $(fused: |$fx:ident| $fused:expr,)?
            gpu: [$($class:ident => $wgsl:literal),* $(,)?],
            $(cpu_only: $why:literal,)?
            grad: $grad:expr $(,)?
        }
    ),* $(,)?) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum UnaryOp {
            $($(#[$doc])* $name,)*
        }

        static DECLARATIONS: &[UnaryDecl] = &[$(UnaryDecl {
            tf_name: $tf,
            python_name: $py,
            dtypes: $dtypes,
            gpu: &[$((GpuClass::$class, $wgsl)),*],
            cpu_only: unary_ops!(@why $($why)?),
            grad: $grad,
        }),*];

        impl UnaryOp {
            pub const ALL: &'static [UnaryOp] = &[$(UnaryOp::$name),*];
        }

        /// The CPU kernel: the declared body for the input's buffer (a body may also return
        /// the input itself, as Real and Conj of real numbers do).
        #[allow(unused_variables)]
        fn cpu_kernel(op: UnaryOp, x: &Tensor, bad: &dyn Fn() -> Error) -> Result<Tensor> {
            let buffer = x.buffer();
            let out: Buffer = match op {
                $(UnaryOp::$name => {
                    let ($x, $b, $bad) = (x, buffer, bad);
                    $cpu
                })*
            };
            Ok(Tensor::from_buffer_unchecked(out, x.shape().clone()))
        }

        /// The fused CPU loops' element function for float32/float64, where one is declared
        /// (compiled once per vector width: `kernels::wide`).
        #[inline(always)]
        pub(crate) fn fused_map_loops<T: FloatElem>(
            op: UnaryOp,
            a: &[T],
            out: &mut [std::mem::MaybeUninit<T>],
        ) -> bool {
            match op {
                $($(UnaryOp::$name => {
                    for (o, &$fx) in out.iter_mut().zip(a) {
                        o.write($fused);
                    }
                    true
                })?)*
                #[allow(unreachable_patterns)]
                _ => false,
            }
        }
    };
    (@why $why:literal) => { Some($why) };
    (@why) => { None };
}

use UnaryGrad::{NotDifferentiable, Rule};

/// `g` times the (conjugated) local derivative `d`.
fn chain(g: &Tensor, d: &Tensor) -> Result<Tensor> {
    ops::mul(g, &crate::autodiff::conj(d)?)
}

fn c(like: &Tensor, v: f64) -> Tensor {
    scalar_like(like, v)
}

fn conj(x: &Tensor) -> Result<Tensor> {
    crate::autodiff::conj(x)
}

/// `g` times the local derivative `d`, 0 where `g` is 0 and `d` is not finite: TensorFlow's
/// SqrtGrad, RsqrtGrad and ReciprocalGrad return 0 wherever the upstream is 0, so an infinite
/// derivative (at 0, or at an infinite output) times a zero upstream is 0, not NaN (e.g.
/// `tf.where(x > 0, tf.sqrt(x), 0)` at 0). Only the non-finite derivatives are masked, so the
/// result stays linear in `g` with slope `d` wherever `d` is finite (forward mode
/// differentiates this rule with respect to a zero `g`).
fn chain_zero_upstream_safe(g: &Tensor, d: &Tensor) -> Result<Tensor> {
    if d.dtype().is_complex() {
        return chain(g, d);
    }
    let zero_upstream = ops::equal(g, &c(g, 0.0))?;
    let infinite = ops::logical_not(&ops::unary(UnaryOp::IsFinite, d)?)?;
    let mask = ops::logical_and(&zero_upstream, &infinite)?;
    chain(g, &ops::select(&mask, &zeros_like(d)?, d)?)
}

/// 1 - x^2, the radicand of the inverse sine and cosine's derivatives.
fn one_minus_square(x: &Tensor) -> Result<Tensor> {
    ops::sub(&c(x, 1.0), &ops::square(x)?)
}

unary_ops! {
    Neg {
        tf: "Neg", python: "negative", dtypes: DTypeSet::SIGNED_NUMERIC,
        cpu: |x, b, bad| with_numeric!(b, v => un(v, Num::neg), else return Err(bad())),
        fused: |a| Num::neg(a),
        gpu: [F32 => "-a", I32 => "-a", I64 => "-a"],
        grad: Rule(|_, _, g| ops::neg(g)),
    },
    Abs {
        tf: "Abs", python: "abs", dtypes: DTypeSet::SIGNED_NUMERIC,
        cpu: |x, b, bad| with_real!(b, v => un(v, Real::abs), else with_complex!(b, v => un(v, |a| a.norm()), else return Err(bad()))),
        fused: |a| Real::abs(a),
        gpu: [F32 => "abs(a)", I32 => "abs(a)", I64 => "select(a, -a, a < 0li)"],
        // A complex input's gradient is the real upstream times x / |x| (0 at 0), unconjugated,
        // as TensorFlow's ComplexAbsGrad.
        grad: Rule(|x, _, g| if x.dtype().is_complex() {
            ops::mul(&ops::cast(g, x.dtype())?, &ops::unary(UnaryOp::Sign, x)?)
        } else {
            chain(g, &ops::unary(UnaryOp::Sign, x)?)
        }),
    },
    Sign {
        tf: "Sign", python: "sign", dtypes: DTypeSet::SIGNED_NUMERIC,
        cpu: |x, b, bad| with_real!(b, v => un(v, Real::sign), else with_complex!(b, v => un(v, |a| if a.norm() == 0.0 { a } else { a / a.norm() }), else return Err(bad()))),
        gpu: [
            F32 => "sign_f(a)",
            I32 => "sign(a)",
            I64 => "select(select(0li, -1li, a < 0li), 1li, a > 0li)",
        ],
        grad: Rule(|x, _, _| zeros_like(x)),
    },
    Square {
        tf: "Square", python: "square", dtypes: DTypeSet::NUMERIC,
        cpu: |x, b, bad| with_numeric!(b, v => un(v, |a| a.mul(a)), else return Err(bad())),
        fused: |a| Num::mul(a, a),
        gpu: [F32 => "a * a", U => "a * a"],
        grad: Rule(|x, _, g| chain(g, &ops::mul(x, &c(x, 2.0))?)),
    },
    Sqrt {
        tf: "Sqrt", python: "sqrt", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.sqrt()),
        fused: |a| a.sqrt(),
        gpu: [F32 => "sqrt_f(a)"],
        grad: Rule(|_, y, g| {
            let d = ops::div(&c(y, 0.5), y)?;
            chain_zero_upstream_safe(g, &d)
        }),
    },
    Rsqrt {
        tf: "Rsqrt", python: "rsqrt", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| Num::div(Num::one(), a.sqrt())),
        fused: |a| Num::div(Num::one(), a.sqrt()),
        gpu: [F32 => "rsqrt_f(a)"],
        grad: Rule(|_, y, g| {
            let d = ops::mul(&ops::mul(y, &ops::square(y)?)?, &c(y, -0.5))?;
            chain_zero_upstream_safe(g, &d)
        }),
    },
    Exp {
        tf: "Exp", python: "exp", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| with_float!(b, v => un(v, FloatElem::tf_exp), else with_complex!(b, v => un(v, |a| a.exp()), else return Err(bad()))),
        fused: |a| FloatElem::tf_exp(a),
        gpu: [F32 => "exp_f(a)"],
        grad: Rule(|_, y, g| chain(g, y)),
    },
    Expm1 {
        tf: "Expm1", python: "expm1", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| a.exp_m1()), else with_complex!(b, v => un(v, |a| Num::sub(a.exp(), Num::one())), else return Err(bad()))),
        gpu: [F32 => "expm1_f(a)"],
        grad: Rule(|_, y, g| chain(g, &ops::add(y, &c(y, 1.0))?)),
    },
    Log {
        tf: "Log", python: "log", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.ln()),
        fused: |a| a.ln(),
        gpu: [F32 => "log_f(a)"],
        grad: Rule(|x, _, g| ops::div(g, &conj(x)?)),
    },
    Log1p {
        tf: "Log1p", python: "log1p", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| a.ln_1p()), else with_complex!(b, v => un(v, |a| Num::add(a, Num::one()).ln()), else return Err(bad()))),
        gpu: [F32 => "log1p_f(a)"],
        grad: Rule(|x, _, g| ops::div(g, &conj(&ops::add(x, &c(x, 1.0))?)?)),
    },
    Sin {
        tf: "Sin", python: "sin", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.sin()),
        fused: |a| a.sin(),
        gpu: [F32 => "sin_f(a)"],
        grad: Rule(|x, _, g| chain(g, &ops::unary(UnaryOp::Cos, x)?)),
    },
    Cos {
        tf: "Cos", python: "cos", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.cos()),
        fused: |a| a.cos(),
        gpu: [F32 => "cos_f(a)"],
        grad: Rule(|x, _, g| ops::neg(&chain(g, &ops::unary(UnaryOp::Sin, x)?)?)),
    },
    Tan {
        tf: "Tan", python: "tan", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.tan()),
        gpu: [F32 => "tan_f(a)"],
        grad: Rule(|x, _, g| ops::div(g, &conj(&ops::square(&ops::unary(UnaryOp::Cos, x)?)?)?)),
    },
    Asin {
        tf: "Asin", python: "asin", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.asin()),
        gpu: [F32 => "asin_f(a)"],
        grad: Rule(|x, _, g| chain(g, &ops::unary(UnaryOp::Rsqrt, &one_minus_square(x)?)?)),
    },
    Acos {
        tf: "Acos", python: "acos", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.acos()),
        gpu: [F32 => "acos_f(a)"],
        grad: Rule(|x, _, g| ops::neg(&chain(g, &ops::unary(UnaryOp::Rsqrt, &one_minus_square(x)?)?)?)),
    },
    Atan {
        tf: "Atan", python: "atan", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.atan()),
        gpu: [F32 => "atan_f(a)"],
        grad: Rule(|x, _, g| ops::div(g, &conj(&ops::add(&c(x, 1.0), &ops::square(x)?)?)?)),
    },
    Sinh {
        tf: "Sinh", python: "sinh", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.sinh()),
        gpu: [F32 => "sinh_f(a)"],
        grad: Rule(|x, _, g| chain(g, &ops::unary(UnaryOp::Cosh, x)?)),
    },
    Cosh {
        tf: "Cosh", python: "cosh", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.cosh()),
        gpu: [F32 => "cosh_f(a)"],
        grad: Rule(|x, _, g| chain(g, &ops::unary(UnaryOp::Sinh, x)?)),
    },
    Asinh {
        tf: "Asinh", python: "asinh", dtypes: DTypeSet::INEXACT,
        // num_complex's asinh cancels for a negative real part: use asinh(-z) = -asinh(z).
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| a.asinh()), else with_complex!(b, v => un(v, |a| if a.re < 0.0 { -(-a).asinh() } else { a.asinh() }), else return Err(bad()))),
        gpu: [F32 => "asinh_f(a)"],
        grad: Rule(|_, y, g| ops::div(g, &conj(&ops::unary(UnaryOp::Cosh, y)?)?)),
    },
    Acosh {
        tf: "Acosh", python: "acosh", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.acosh()),
        gpu: [F32 => "acosh_f(a)"],
        grad: Rule(|_, y, g| ops::div(g, &conj(&ops::unary(UnaryOp::Sinh, y)?)?)),
    },
    Atanh {
        tf: "Atanh", python: "atanh", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| inexact!(b, bad, |a| a.atanh()),
        gpu: [F32 => "atanh_f(a)"],
        grad: Rule(|x, _, g| ops::div(g, &conj(&one_minus_square(x)?)?)),
    },
    Tanh {
        tf: "Tanh", python: "tanh", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| with_float!(b, v => un(v, FloatElem::tf_tanh), else with_complex!(b, v => un(v, |a| a.tanh()), else return Err(bad()))),
        fused: |a| FloatElem::tf_tanh(a),
        gpu: [F32 => "tanh_f(a)"],
        grad: Rule(|_, y, g| chain(g, &ops::sub(&c(y, 1.0), &ops::square(y)?)?)),
    },
    /// Half types overflow exp(-x) early: they compute through f32, as in TensorFlow.
    Sigmoid {
        tf: "Sigmoid", python: "sigmoid", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| match_buffer!(
            b,
            v,
            [F16, BF16],
            un(v, sigmoid_via_f32),
            match_buffer!(
                b,
                v,
                [F32, F64],
                un(v, sigmoid),
                with_complex!(b, v => un(v, |a| Num::div(Num::one(), Num::add(Num::one(), (-a).exp()))), else return Err(bad()))
            )
        ),
        fused: |a| sigmoid(a),
        gpu: [F32 => "sigmoid_f(a)"],
        grad: Rule(|_, y, g| chain(g, &ops::mul(y, &ops::sub(&c(y, 1.0), y)?)?)),
    },
    Erf {
        tf: "Erf", python: "erf", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, FloatElem::erf), else return Err(bad())),
        gpu: [F32 => "erf_f(a)"],
        grad: Rule(|x, _, g| {
            let two_over_sqrt_pi = c(x, std::f64::consts::FRAC_2_SQRT_PI);
            chain(g, &ops::mul(&two_over_sqrt_pi, &ops::exp(&ops::neg(&ops::square(x)?)?)?)?)
        }),
    },
    Floor {
        tf: "Floor", python: "floor", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| a.floor()), else return Err(bad())),
        fused: |a| a.floor(),
        gpu: [F32 => "floor(a)"],
        grad: NotDifferentiable,
    },
    Ceil {
        tf: "Ceil", python: "ceil", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| a.ceil()), else return Err(bad())),
        fused: |a| a.ceil(),
        gpu: [F32 => "ceil(a)"],
        grad: NotDifferentiable,
    },
    Round {
        tf: "Round", python: "round", dtypes: DTypeSet::REAL,
        cpu: |x, b, bad| with_float!(b, v => un(v, round_half_even), else with_int!(b, v => un(v, |a| a), else return Err(bad()))),
        gpu: [F32 => "round(a)"],
        grad: NotDifferentiable,
    },
    Reciprocal {
        tf: "Reciprocal", python: "reciprocal", dtypes: DTypeSet::INEXACT,
        cpu: |x, b, bad| with_numeric!(b, v => un(v, |a| Num::div(Num::one(), a)), else return Err(bad())),
        fused: |a| Num::div(Num::one(), a),
        gpu: [F32 => "1.0 / a"],
        grad: Rule(|_, y, g| chain_zero_upstream_safe(g, &ops::neg(&ops::square(y)?)?)),
    },
    LogicalNot {
        tf: "LogicalNot", python: "logical_not", dtypes: DTypeSet::BOOL,
        cpu: |x, b, bad| match_buffer!(b, v, [Bool], un(v, |a: bool| !a), return Err(bad())),
        gpu: [Bool => "1u - a"],
        grad: NotDifferentiable,
    },
    /// The value, as its own node (`tf.identity`): gradients pass through unchanged.
    Identity {
        tf: "Identity", python: "identity", dtypes: DTypeSet::ANY,
        cpu: |x, b, bad| with_all!(b, v => un(v, |a| a), else b.clone()),
        gpu: [F32 => "a", I32 => "a", I64 => "a", U => "a", Bool => "a"],
        grad: Rule(|_, _, g| Ok(g.clone())),
    },
    /// The value, as a node that stops gradients (tapes never record it; graphs keep it, so a
    /// gradient taken through a traced function stops there too).
    StopGradient {
        tf: "StopGradient", python: "stop_gradient", dtypes: DTypeSet::ANY,
        cpu: |x, b, bad| with_all!(b, v => un(v, |a| a), else b.clone()),
        gpu: [F32 => "a", I32 => "a", I64 => "a", U => "a", Bool => "a"],
        grad: NotDifferentiable,
    },
    /// Zeros shaped like the input at run time (so an unknown traced size never bakes in).
    ZerosLike {
        tf: "ZerosLike", python: "zeros_like", dtypes: DTypeSet::ANY,
        cpu: |x, b, bad| with_all!(b, v => un(v, |a| filled(a, 0.0)), else Buffer::zeros(DType::String, b.len())),
        gpu: [F32 => "0.0", I32 => "0", I64 => "0li", U => "a ^ a", Bool => "0u"],
        grad: NotDifferentiable,
    },
    OnesLike {
        tf: "OnesLike", python: "ones_like", dtypes: DTypeSet::ALL,
        cpu: |x, b, bad| with_all!(b, v => un(v, |a| filled(a, 1.0)), else return Err(bad())),
        gpu: [F32 => "1.0", I32 => "1", I64 => "1li", U => "(a ^ a) + 1", Bool => "1u"],
        grad: NotDifferentiable,
    },
    Invert {
        tf: "Invert", python: "invert", dtypes: DTypeSet::INT,
        cpu: |x, b, bad| with_int!(b, v => un(v, |a| !a), else return Err(bad())),
        gpu: [U => "~a"],
        grad: NotDifferentiable,
    },
    IsNan {
        tf: "IsNan", python: "is_nan", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| a.is_nan()), else return Err(bad())),
        gpu: [F32 => "select(0u, 1u, is_nan(a))"],
        grad: NotDifferentiable,
    },
    IsInf {
        tf: "IsInf", python: "is_inf", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| a.is_infinite()), else return Err(bad())),
        gpu: [F32 => "select(0u, 1u, is_inf(a))"],
        grad: NotDifferentiable,
    },
    IsFinite {
        tf: "IsFinite", python: "is_finite", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| a.is_finite()), else return Err(bad())),
        gpu: [F32 => "select(0u, 1u, (bitcast<u32>(a) & 0x7fffffffu) < 0x7f800000u)"],
        grad: NotDifferentiable,
    },
    Real {
        tf: "Real", python: "real", dtypes: DTypeSet::NUMERIC,
        cpu: |x, b, bad| with_complex!(b, v => un(v, |a| a.re), else return Ok(x.clone())),
        gpu: [],
        cpu_only: "complex dtypes live on the CPU; for real input it is the identity",
        grad: Rule(|_, _, g| ops::binary(BinaryOp::Complex, g, &zeros_like(g)?)),
    },
    Imag {
        tf: "Imag", python: "imag", dtypes: DTypeSet::NUMERIC,
        cpu: |x, b, bad| with_complex!(b, v => un(v, |a| a.im), else Buffer::zeros(x.dtype(), x.num_elements())),
        gpu: [],
        cpu_only: "complex dtypes live on the CPU; for real input it is zeros",
        grad: Rule(|_, _, g| ops::binary(BinaryOp::Complex, &zeros_like(g)?, g)),
    },
    Conj {
        tf: "Conj", python: "conj", dtypes: DTypeSet::NUMERIC,
        cpu: |x, b, bad| with_complex!(b, v => un(v, |a| a.conj()), else return Ok(x.clone())),
        gpu: [],
        cpu_only: "complex dtypes live on the CPU; for real input it is the identity",
        grad: Rule(|_, _, g| ops::unary(UnaryOp::Conj, g)),
    },
    Angle {
        tf: "Angle", python: "angle", dtypes: DTypeSet::NUMERIC,
        cpu: |x, b, bad| with_complex!(b, v => un(v, |a| a.arg()), else with_real!(b, v => un(v, |a| if a < Num::zero() { cast_pi(a) } else { Num::zero() }), else return Err(bad()))),
        gpu: [],
        cpu_only: "complex dtypes live on the CPU; real input is a sign test",
        grad: Rule(|x, _, g| {
            let re = ops::unary(UnaryOp::Real, x)?;
            let im = ops::unary(UnaryOp::Imag, x)?;
            let z = ops::unary(UnaryOp::Reciprocal, &ops::binary(BinaryOp::Complex, &im, &re)?)?;
            let cg = ops::binary(BinaryOp::Complex, g, &zeros_like(g)?)?;
            ops::neg(&ops::mul(&cg, &z)?)
        }),
    },
    // The special functions (`special_fns.rs`): on the CPU every float dtype computes in
    // float64 and rounds once; the GPU's float32 kernels are `shaders/special_funcs.wgsl`;
    // gradients as TensorFlow's (`special_grads.rs`).
    Lgamma {
        tf: "Lgamma", python: "lgamma", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::lgamma)), else return Err(bad())),
        gpu: [F32 => "special_lgamma(a)"],
        grad: Rule(sg::lgamma),
    },
    Digamma {
        tf: "Digamma", python: "digamma", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::digamma)), else return Err(bad())),
        gpu: [F32 => "special_digamma(a)"],
        grad: Rule(sg::digamma),
    },
    Erfc {
        tf: "Erfc", python: "erfc", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::erfc)), else return Err(bad())),
        gpu: [F32 => "special_erfc(a)"],
        grad: Rule(sg::erfc),
    },
    Erfinv {
        tf: "Erfinv", python: "erfinv", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::erfinv)), else return Err(bad())),
        gpu: [F32 => "special_erfinv(a)"],
        grad: Rule(sg::erfinv),
    },
    Ndtri {
        tf: "Ndtri", python: "ndtri", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::ndtri)), else return Err(bad())),
        gpu: [F32 => "special_ndtri(a)"],
        grad: Rule(sg::ndtri),
    },
    BesselI0 {
        tf: "BesselI0", python: "bessel_i0", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_i0)), else return Err(bad())),
        gpu: [F32 => "special_bessel_i0(a)"],
        grad: Rule(sg::bessel_i0),
    },
    BesselI0e {
        tf: "BesselI0e", python: "bessel_i0e", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_i0e)), else return Err(bad())),
        gpu: [F32 => "special_bessel_i0e(a)"],
        grad: Rule(sg::bessel_i0e),
    },
    BesselI1 {
        tf: "BesselI1", python: "bessel_i1", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_i1)), else return Err(bad())),
        gpu: [F32 => "special_bessel_i1(a)"],
        grad: Rule(sg::bessel_i1),
    },
    BesselI1e {
        tf: "BesselI1e", python: "bessel_i1e", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_i1e)), else return Err(bad())),
        gpu: [F32 => "special_bessel_i1e(a)"],
        grad: Rule(sg::bessel_i1e),
    },
    BesselK0 {
        tf: "BesselK0", python: "bessel_k0", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_k0)), else return Err(bad())),
        gpu: [F32 => "special_bessel_k(a, 0u, false)"],
        grad: Rule(sg::bessel_k0),
    },
    BesselK0e {
        tf: "BesselK0e", python: "bessel_k0e", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_k0e)), else return Err(bad())),
        gpu: [F32 => "special_bessel_k(a, 0u, true)"],
        grad: Rule(sg::bessel_k0e),
    },
    BesselK1 {
        tf: "BesselK1", python: "bessel_k1", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_k1)), else return Err(bad())),
        gpu: [F32 => "special_bessel_k(a, 1u, false)"],
        grad: Rule(sg::bessel_k1),
    },
    BesselK1e {
        tf: "BesselK1e", python: "bessel_k1e", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_k1e)), else return Err(bad())),
        gpu: [F32 => "special_bessel_k(a, 1u, true)"],
        grad: Rule(sg::bessel_k1e),
    },
    BesselJ0 {
        tf: "BesselJ0", python: "bessel_j0", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_j0)), else return Err(bad())),
        gpu: [F32 => "special_bessel_j(a, 0u)"],
        grad: Rule(sg::bessel_j0),
    },
    BesselJ1 {
        tf: "BesselJ1", python: "bessel_j1", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_j1)), else return Err(bad())),
        gpu: [F32 => "special_bessel_j(a, 1u)"],
        grad: Rule(sg::bessel_j1),
    },
    BesselY0 {
        tf: "BesselY0", python: "bessel_y0", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::bessel_y0)), else return Err(bad())),
        gpu: [F32 => "special_bessel_y(a, 0u)"],
        grad: Rule(sg::bessel_y0),
    },
    BesselY1 {
        tf: "BesselY1", python: "bessel_y1", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, bessel_y1), else return Err(bad())),
        gpu: [F32 => "special_bessel_y(a, 1u)"],
        grad: Rule(sg::bessel_y1),
    },
    Dawsn {
        tf: "Dawsn", python: "dawsn", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::dawsn)), else return Err(bad())),
        gpu: [F32 => "special_dawsn(a)"],
        grad: Rule(sg::dawsn),
    },
    Expint {
        tf: "Expint", python: "expint", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::expint)), else return Err(bad())),
        gpu: [F32 => "special_expint(a)"],
        grad: Rule(sg::expint),
    },
    FresnelCos {
        tf: "FresnelCos", python: "fresnel_cos", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::fresnel_cos)), else return Err(bad())),
        gpu: [F32 => "special_fresnel(a, false)"],
        grad: Rule(sg::fresnel_cos),
    },
    FresnelSin {
        tf: "FresnelSin", python: "fresnel_sin", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::fresnel_sin)), else return Err(bad())),
        gpu: [F32 => "special_fresnel(a, true)"],
        grad: Rule(sg::fresnel_sin),
    },
    Spence {
        tf: "Spence", python: "spence", dtypes: DTypeSet::FLOAT,
        cpu: |x, b, bad| with_float!(b, v => un(v, |a| via_f64(a, sf::spence)), else return Err(bad())),
        gpu: [F32 => "special_spence(a)"],
        grad: Rule(sg::spence),
    },
}

impl UnaryOp {
    /// The op's declaration.
    pub fn decl(self) -> &'static UnaryDecl {
        &DECLARATIONS[self as usize]
    }

    /// (TensorFlow op name, Python name, dtypes accepted).
    pub fn info(self) -> (&'static str, &'static str, DTypeSet) {
        let d = self.decl();
        (d.tf_name, d.python_name, d.dtypes)
    }

    pub fn tf_name(self) -> &'static str {
        self.decl().tf_name
    }

    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.iter().copied().find(|op| op.decl().python_name == name)
    }

    pub fn differentiable(self) -> bool {
        matches!(self.decl().grad, Rule(_))
    }

    /// The output dtype for an input dtype.
    pub fn output_dtype(self, input: DType) -> DType {
        use UnaryOp::*;
        match self {
            IsNan | IsInf | IsFinite => DType::Bool,
            Real | Imag | Angle => input.real_dtype(),
            Abs if input.is_complex() => input.real_dtype(),
            _ => input,
        }
    }

    /// The declared WGSL expression for one GPU element type.
    pub fn wgsl(self, class: GpuClass) -> Option<&'static str> {
        self.decl().gpu.iter().find(|(c, _)| *c == class).map(|(_, e)| *e)
    }
}

/// The declarations above answer every question about a unary op: the trait reads them.
impl Primitive for UnaryOp {
    fn tf_name(&self) -> &'static str {
        self.decl().tf_name
    }

    fn reads_only_shapes(&self) -> bool {
        matches!(self, UnaryOp::ZerosLike | UnaryOp::OnesLike)
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    /// The name says which op: there are no attributes.
    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        let d = self.decl();
        if !d.dtypes.contains(x.dtype) {
            return Err(Error::unsupported_dtype(d.tf_name, x.dtype));
        }
        Ok(vec![x.with_dtype(self.output_dtype(x.dtype))])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![cpu(*self, inputs[0])?])
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let rule = crate::autodiff::rules::elementwise::unary;
        Ok(vec![rule(*self, &inputs[0], &outputs[0], g)?])
    }

    /// Any declared expression is a kernel (bool- and integer-only ops have no float32 one).
    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: {
                let d = self.decl();
                match d.cpu_only {
                    _ if !d.gpu.is_empty() => GpuKernel::Wgsl,
                    Some(why) => GpuKernel::CpuOnly(why),
                    None => GpuKernel::CpuOnly("no WGSL expression is declared for it"),
                }
            },
            differentiable: UnaryOp::differentiable(*self),
            fusable: true,
        }
    }
}

impl Decode for UnaryOp {
    fn names() -> Vec<&'static str> {
        UnaryOp::ALL.iter().map(|op| op.decl().tf_name).collect()
    }

    fn decode(name: &str, _: &Attrs) -> Result<UnaryOp> {
        UnaryOp::ALL
            .iter()
            .copied()
            .find(|op| op.decl().tf_name == name)
            .ok_or_else(|| Error::Internal(format!("{name} is not a unary op")))
    }
}

/// One example per op, on values inside its domain (positive for logarithms and roots, in
/// (-1, 1) for the inverse sine, cosine and hyperbolic tangent, complex where the op is about
/// complex parts, so that gradients keep the input's dtype).
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use num_complex::Complex32;
    use UnaryOp as U;
    let floats = |v: &[f32]| Tensor::from_slice(v, &[v.len()]).unwrap();
    UnaryOp::ALL
        .iter()
        .map(|&op| {
            let x = match op {
                U::LogicalNot => Tensor::from_slice(&[true, false, true], &[3]).unwrap(),
                U::Invert => Tensor::from_slice(&[0i32, 5, -3], &[3]).unwrap(),
                U::Real | U::Imag | U::Conj | U::Angle => {
                    let z = [Complex32::new(1.0, 2.0), Complex32::new(-0.5, 0.25)];
                    Tensor::from_slice(&z, &[2]).unwrap()
                }
                U::Acosh => floats(&[1.5, 2.0, 3.0]),
                U::Asin | U::Acos | U::Atanh => floats(&[-0.5, 0.1, 0.6]),
                U::Sqrt | U::Rsqrt | U::Log | U::Log1p | U::Reciprocal => floats(&[0.5, 1.0, 4.0]),
                U::Erfinv | U::Ndtri => floats(&[0.25, 0.5, 0.75]),
                U::BesselK0
                | U::BesselK0e
                | U::BesselK1
                | U::BesselK1e
                | U::BesselY0
                | U::BesselY1
                | U::Expint
                | U::Spence => floats(&[0.5, 1.5, 4.0]),
                _ => Tensor::from_slice(&[-1.5f32, 0.3, 2.0, 0.75, -0.2, 1.25], &[2, 3]).unwrap(),
            };
            (crate::ops::registry::Op::Unary(op), vec![x])
        })
        .collect()
}

/// `fused_map_loops` compiled for the widest vector unit the CPU has, as the fused chains'
/// step loops (`graph::fused_cpu`) run it; the test below compares it with the baseline.
#[cfg(test)]
fn fused_map<T: FloatElem>(op: UnaryOp, a: &[T], out: &mut [T]) -> bool {
    let out = crate::kernels::parallel::as_uninit_mut(out);
    crate::kernels::wide::dispatch!(fused_map_loops(op, a, out))
}

/// The element map of a unary op, its loop compiled for the CPU's widest vector unit: the
/// element functions (exp, tanh, sigmoid) vectorise there, several times faster than the
/// baseline build's scalar calls, with the same values.
fn un<T: Copy + Sync, U: Element>(v: &[T], f: impl Fn(T) -> U + Sync) -> Buffer {
    U::wrap(parallel::build(v.len(), |offset, dst| {
        let src = &v[offset..offset + dst.len()];
        crate::kernels::wide::dispatch!(map_into(src, dst, &f))
    }))
}

#[inline(always)]
fn map_into<T: Copy, U>(src: &[T], dst: &mut [std::mem::MaybeUninit<U>], f: &impl Fn(T) -> U) {
    for (o, &x) in dst.iter_mut().zip(src) {
        o.write(f(x));
    }
}

#[inline(always)]
fn one<T: num_traits::One>() -> T {
    T::one()
}

#[inline(always)]
pub(crate) fn sigmoid<T: FloatElem>(x: T) -> T {
    one::<T>() / (one::<T>() + (-x).tf_exp())
}

/// Y1 of the element; TensorFlow's float32 (and half) kernels give NaN at 0, its float64 one
/// -inf.
fn bessel_y1<T: Element>(x: T) -> T {
    if T::DTYPE != DType::F64 && x.to_f64() == 0.0 {
        T::from_f64(f64::NAN)
    } else {
        via_f64(x, sf::bessel_y1)
    }
}

/// A float64 element function applied to any float element (rounded once).
#[inline(always)]
fn via_f64<T: Element>(x: T, f: fn(f64) -> f64) -> T {
    T::from_f64(f(x.to_f64()))
}

fn sigmoid_via_f32<T: Element>(x: T) -> T {
    T::from_f64(sigmoid(x.to_f64() as f32) as f64)
}

/// Rounds half to even, as TensorFlow's `round` (banker's rounding) does.
#[inline(always)]
fn round_half_even<T: FloatElem>(x: T) -> T {
    let r = x.round();
    let two = one::<T>() + one::<T>();
    if Float::abs(x - x.trunc()) == one::<T>() / two {
        two * (x / two).round()
    } else {
        r
    }
}

pub fn cpu(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    let (tf_name, _, dtypes) = op.info();
    let dtype = x.dtype();
    if !dtypes.contains(dtype) {
        return Err(Error::unsupported_dtype(tf_name, dtype));
    }
    cpu_kernel(op, x, &|| Error::unsupported_dtype(tf_name, dtype))
}

/// `value` in the element type of `_like` (zeros_like and ones_like of every dtype).
fn filled<T: Element>(_like: T, value: f64) -> T {
    T::from_f64(value)
}

/// pi in the element type: the angle of a negative real number.
fn cast_pi<T: Element>(_: T) -> T {
    T::from_f64(std::f64::consts::PI)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parallel::as_uninit_mut;
    use UnaryOp::*;

    /// The fused loops compiled for the CPU's widest vectors give the baseline's values bit for
    /// bit, for every op with a fused loop, on ordinary and edge inputs.
    #[test]
    fn wide_fused_loops_match_the_baseline_bit_for_bit() {
        let mut inputs: Vec<f32> = (0..20_000).map(|i| (i as f32 - 10_000.0) * 0.0137).collect();
        inputs.extend([0.0, -0.0, 1e-40, -1e-40, 88.8, -104.5, f32::INFINITY, f32::NEG_INFINITY]);
        inputs.extend([f32::NAN, f32::MAX, f32::MIN, 0.5, -0.5, 1.0, -1.0]);
        let wide64: Vec<f64> = inputs.iter().map(|&x| x as f64 * 1.0000001).collect();
        for &op in UnaryOp::ALL {
            let (mut wide, mut plain) = (vec![0f32; inputs.len()], vec![0f32; inputs.len()]);
            if !fused_map(op, &inputs, &mut wide) {
                continue;
            }
            assert!(fused_map_loops(op, &inputs, as_uninit_mut(&mut plain)));
            for ((w, p), x) in wide.iter().zip(&plain).zip(&inputs) {
                assert!(w.to_bits() == p.to_bits() || w.is_nan() && p.is_nan(), "{op:?}({x})");
            }
            let (mut wide, mut plain) = (vec![0f64; wide64.len()], vec![0f64; wide64.len()]);
            assert!(fused_map(op, &wide64, &mut wide));
            assert!(fused_map_loops(op, &wide64, as_uninit_mut(&mut plain)));
            for ((w, p), x) in wide.iter().zip(&plain).zip(&wide64) {
                assert!(w.to_bits() == p.to_bits() || w.is_nan() && p.is_nan(), "{op:?}({x})");
            }
        }
    }

    /// The registry: every op has a unique Python name, a GPU kernel for float32 or a stated
    /// reason not to, and accepts some dtype its CPU kernel computes.
    #[test]
    fn every_declaration_is_complete() {
        for &op in UnaryOp::ALL {
            let d = op.decl();
            assert_eq!(UnaryOp::from_name(d.python_name), Some(op), "{op:?}: python name");
            assert!(!d.tf_name.is_empty(), "{op:?}: TensorFlow name");
            let float32 = d.dtypes.contains(DType::F32);
            let has_gpu = op.wgsl(GpuClass::F32).is_some() || !float32 && !d.gpu.is_empty();
            assert!(has_gpu || d.cpu_only.is_some(), "{op:?}: a GPU kernel or a reason");
            let accepted = DType::ALL.iter().find(|&&t| d.dtypes.contains(t)).copied();
            let accepted = accepted.unwrap_or_else(|| panic!("{op:?} accepts no dtype"));
            let x = crate::ops::cast(&Tensor::from_slice(&[0.5f64], &[1]).unwrap(), accepted);
            cpu(op, &x.unwrap()).unwrap_or_else(|e| panic!("{op:?} on {accepted}: {e}"));
        }
    }

    #[test]
    fn round_is_half_to_even() {
        let t = Tensor::from_slice(&[0.5f32, 1.5, 2.5, -0.5, -1.5, 2.4], &[6]).unwrap();
        let r = cpu(Round, &t).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(r, vec![0.0, 2.0, 2.0, -0.0, -2.0, 2.0]);
    }

    #[test]
    fn wrong_dtype_is_an_error() {
        let t = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
        assert!(cpu(Exp, &t).is_err());
    }
}
