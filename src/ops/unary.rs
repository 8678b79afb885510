//! Element-wise unary primitives: one row per op (TensorFlow name, accepted dtypes, output
//! dtype) and one CPU kernel body per op, instantiated for each accepted dtype.

use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::element::{Element, FloatElem, Num, Real};
use crate::error::{Error, Result};
use crate::kernels::parallel;
use crate::tensor::Tensor;
use crate::{match_buffer, with_complex, with_float, with_int, with_numeric, with_real};
use num_traits::Float;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sign,
    Square,
    Sqrt,
    Rsqrt,
    Exp,
    Expm1,
    Log,
    Log1p,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Erf,
    Floor,
    Ceil,
    Round,
    Reciprocal,
    LogicalNot,
    Invert,
    IsNan,
    IsInf,
    IsFinite,
    Real,
    Imag,
    Conj,
    Angle,
}

use UnaryOp::*;

impl UnaryOp {
    pub const ALL: [UnaryOp; 29] = [
        Neg, Abs, Sign, Square, Sqrt, Rsqrt, Exp, Expm1, Log, Log1p, Sin, Cos, Tan, Tanh, Sigmoid,
        Erf, Floor, Ceil, Round, Reciprocal, LogicalNot, Invert, IsNan, IsInf, IsFinite, Real,
        Imag, Conj, Angle,
    ];

    /// (TensorFlow op name, Python name, dtypes accepted).
    pub fn info(self) -> (&'static str, &'static str, DTypeSet) {
        const INEXACT: DTypeSet = DTypeSet::INEXACT;
        const FLOAT: DTypeSet = DTypeSet::FLOAT;
        match self {
            Neg => ("Neg", "negative", DTypeSet::SIGNED_NUMERIC),
            Abs => ("Abs", "abs", DTypeSet::SIGNED_NUMERIC),
            Sign => ("Sign", "sign", DTypeSet::SIGNED_NUMERIC),
            Square => ("Square", "square", DTypeSet::NUMERIC),
            Sqrt => ("Sqrt", "sqrt", INEXACT),
            Rsqrt => ("Rsqrt", "rsqrt", INEXACT),
            Exp => ("Exp", "exp", INEXACT),
            Expm1 => ("Expm1", "expm1", INEXACT),
            Log => ("Log", "log", INEXACT),
            Log1p => ("Log1p", "log1p", INEXACT),
            Sin => ("Sin", "sin", INEXACT),
            Cos => ("Cos", "cos", INEXACT),
            Tan => ("Tan", "tan", INEXACT),
            Tanh => ("Tanh", "tanh", INEXACT),
            Sigmoid => ("Sigmoid", "sigmoid", INEXACT),
            Erf => ("Erf", "erf", FLOAT),
            Floor => ("Floor", "floor", FLOAT),
            Ceil => ("Ceil", "ceil", FLOAT),
            Round => ("Round", "round", DTypeSet::REAL),
            Reciprocal => ("Reciprocal", "reciprocal", INEXACT),
            LogicalNot => ("LogicalNot", "logical_not", DTypeSet::BOOL),
            Invert => ("Invert", "invert", DTypeSet::INT),
            IsNan => ("IsNan", "is_nan", FLOAT),
            IsInf => ("IsInf", "is_inf", FLOAT),
            IsFinite => ("IsFinite", "is_finite", FLOAT),
            Real => ("Real", "real", DTypeSet::NUMERIC),
            Imag => ("Imag", "imag", DTypeSet::NUMERIC),
            Conj => ("Conj", "conj", DTypeSet::NUMERIC),
            Angle => ("Angle", "angle", DTypeSet::NUMERIC),
        }
    }

    pub fn tf_name(self) -> &'static str {
        self.info().0
    }

    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.iter().copied().find(|op| op.info().1 == name)
    }

    /// The output dtype for an input dtype.
    pub fn output_dtype(self, input: DType) -> DType {
        match self {
            IsNan | IsInf | IsFinite => DType::Bool,
            Real | Imag | Angle => input.real_dtype(),
            Abs if input.is_complex() => input.real_dtype(),
            _ => input,
        }
    }
}

fn un<T: Copy + Sync, U: Element>(v: &[T], f: impl Fn(T) -> U + Sync) -> Buffer {
    U::wrap(parallel::map(v, f))
}

#[inline(always)]
fn one<T: num_traits::One>() -> T {
    T::one()
}

#[inline(always)]
pub(crate) fn sigmoid<T: FloatElem>(x: T) -> T {
    one::<T>() / (one::<T>() + (-x).exp())
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
    let b = x.buffer();
    let bad = || Error::unsupported_dtype(tf_name, dtype);
    // Complex variants of the transcendental functions come from num_complex's inherent methods.
    macro_rules! inexact {
        (|$a:ident| $body:expr) => {
            match_buffer!(
                b,
                v,
                [F16, BF16, F32, F64, C64, C128],
                un(v, |$a| $body),
                return Err(bad())
            )
        };
    }
    let out: Buffer = match op {
        Neg => with_numeric!(b, v => un(v, Num::neg), else return Err(bad())),
        Abs => {
            with_real!(b, v => un(v, Real::abs), else with_complex!(b, v => un(v, |a| a.norm()), else return Err(bad())))
        }
        Sign => {
            with_real!(b, v => un(v, Real::sign), else with_complex!(b, v => un(v, |a| if a.norm() == 0.0 { a } else { a / a.norm() }), else return Err(bad())))
        }
        Square => with_numeric!(b, v => un(v, |a| a.mul(a)), else return Err(bad())),
        Sqrt => inexact!(|a| a.sqrt()),
        Rsqrt => inexact!(|a| Num::div(Num::one(), a.sqrt())),
        Exp => inexact!(|a| a.exp()),
        Expm1 => {
            with_float!(b, v => un(v, |a| a.exp_m1()), else with_complex!(b, v => un(v, |a| Num::sub(a.exp(), Num::one())), else return Err(bad())))
        }
        Log => inexact!(|a| a.ln()),
        Log1p => {
            with_float!(b, v => un(v, |a| a.ln_1p()), else with_complex!(b, v => un(v, |a| Num::add(a, Num::one()).ln()), else return Err(bad())))
        }
        Sin => inexact!(|a| a.sin()),
        Cos => inexact!(|a| a.cos()),
        Tan => inexact!(|a| a.tan()),
        Tanh => {
            with_float!(b, v => un(v, FloatElem::tf_tanh), else with_complex!(b, v => un(v, |a| a.tanh()), else return Err(bad())))
        }
        // Half types overflow exp(-x) early: they compute through f32, as in TensorFlow.
        Sigmoid => match_buffer!(
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
        Erf => with_float!(b, v => un(v, FloatElem::erf), else return Err(bad())),
        Floor => with_float!(b, v => un(v, |a| a.floor()), else return Err(bad())),
        Ceil => with_float!(b, v => un(v, |a| a.ceil()), else return Err(bad())),
        Round => {
            with_float!(b, v => un(v, round_half_even), else with_int!(b, v => un(v, |a| a), else return Err(bad())))
        }
        Reciprocal => {
            with_numeric!(b, v => un(v, |a| Num::div(Num::one(), a)), else return Err(bad()))
        }
        LogicalNot => match_buffer!(b, v, [Bool], un(v, |a: bool| !a), return Err(bad())),
        Invert => with_int!(b, v => un(v, |a| !a), else return Err(bad())),
        IsNan => with_float!(b, v => un(v, |a| a.is_nan()), else return Err(bad())),
        IsInf => with_float!(b, v => un(v, |a| a.is_infinite()), else return Err(bad())),
        IsFinite => with_float!(b, v => un(v, |a| a.is_finite()), else return Err(bad())),
        Real => with_complex!(b, v => un(v, |a| a.re), else return Ok(x.clone())),
        Imag => with_complex!(b, v => un(v, |a| a.im), else Buffer::zeros(dtype, x.num_elements())),
        Conj => with_complex!(b, v => un(v, |a| a.conj()), else return Ok(x.clone())),
        Angle => {
            with_complex!(b, v => un(v, |a| a.arg()), else with_real!(b, v => un(v, |a| if a < Num::zero() { cast_pi(a) } else { Num::zero() }), else return Err(bad())))
        }
    };
    Ok(Tensor::from_buffer_unchecked(out, x.shape().clone()))
}

/// pi in the element type: the angle of a negative real number.
fn cast_pi<T: Element>(_: T) -> T {
    T::from_f64(std::f64::consts::PI)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_op_has_a_unique_python_name() {
        for op in UnaryOp::ALL {
            assert_eq!(UnaryOp::from_name(op.info().1), Some(op));
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
