//! Element-wise binary primitives with numpy broadcasting. Both inputs must share a dtype:
//! TensorFlow never promotes between tensors.

use crate::buffer::Buffer;
use crate::dtype::{DType, DTypeSet};
use crate::element::{Element, Num, Real};
use crate::error::{Error, Result};
use crate::kernels::broadcast;
use crate::ops::primitive::{
    self, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::ops::special_fns as sf;
use crate::shape::{broadcast_shapes, Shape};
use crate::tensor::Tensor;
use crate::tstring::TfString;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// True division for floats and complex; truncating for integers (TensorFlow's `Div`).
    Div,
    FloorDiv,
    FloorMod,
    Pow,
    Maximum,
    Minimum,
    Atan2,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    /// Bitwise on integers, logical on bool.
    And,
    Or,
    Xor,
    /// Integer shifts; the amount is clamped to [0, bits - 1] as TensorFlow's CPU kernels do.
    LeftShift,
    /// Arithmetic for signed integers.
    RightShift,
    /// Builds a complex number from real and imaginary parts.
    Complex,
    /// The special functions of two arguments (`special_fns.rs`), computed in float64.
    Igamma,
    Igammac,
    /// dP(a, x)/da, the gradient of `Igamma` with respect to `a`.
    IgammaGradA,
    Zeta,
    Polygamma,
    /// x * log(y), x * log1p(y) and x / y, each 0 where x is 0.
    Xlogy,
    Xlog1py,
    Xdivy,
    NextAfter,
}

use BinaryOp::*;

/// The dtypes of TensorFlow's Igamma, Zeta, Polygamma and NextAfter kernels.
const F32_F64: DTypeSet = DTypeSet::of(&[DType::F32, DType::F64]);

impl BinaryOp {
    pub const ALL: [BinaryOp; 31] = [
        Add,
        Sub,
        Mul,
        Div,
        FloorDiv,
        FloorMod,
        Pow,
        Maximum,
        Minimum,
        Atan2,
        Equal,
        NotEqual,
        Less,
        LessEqual,
        Greater,
        GreaterEqual,
        And,
        Or,
        Xor,
        LeftShift,
        RightShift,
        Complex,
        Igamma,
        Igammac,
        IgammaGradA,
        Zeta,
        Polygamma,
        Xlogy,
        Xlog1py,
        Xdivy,
        NextAfter,
    ];

    /// (TensorFlow op name, Python name, dtypes accepted).
    pub fn info(self) -> (&'static str, &'static str, DTypeSet) {
        match self {
            // Adding strings concatenates them, as TensorFlow's AddV2 does.
            Add => ("AddV2", "add", DTypeSet::NUMERIC.union(DTypeSet::STRING)),
            Sub => ("Sub", "subtract", DTypeSet::NUMERIC),
            Mul => ("Mul", "multiply", DTypeSet::NUMERIC),
            Div => ("RealDiv", "divide_raw", DTypeSet::NUMERIC),
            FloorDiv => ("FloorDiv", "floordiv", DTypeSet::REAL),
            FloorMod => ("FloorMod", "floormod", DTypeSet::REAL),
            Pow => ("Pow", "pow", DTypeSet::NUMERIC),
            Maximum => ("Maximum", "maximum", DTypeSet::REAL),
            Minimum => ("Minimum", "minimum", DTypeSet::REAL),
            Atan2 => ("Atan2", "atan2", DTypeSet::FLOAT),
            Equal => ("Equal", "equal", DTypeSet::ANY),
            NotEqual => ("NotEqual", "not_equal", DTypeSet::ANY),
            Less => ("Less", "less", DTypeSet::REAL),
            LessEqual => ("LessEqual", "less_equal", DTypeSet::REAL),
            Greater => ("Greater", "greater", DTypeSet::REAL),
            GreaterEqual => ("GreaterEqual", "greater_equal", DTypeSet::REAL),
            And => ("BitwiseAnd", "bitwise_and", DTypeSet::BITWISE),
            Or => ("BitwiseOr", "bitwise_or", DTypeSet::BITWISE),
            Xor => ("BitwiseXor", "bitwise_xor", DTypeSet::BITWISE),
            LeftShift => ("LeftShift", "left_shift", DTypeSet::INT),
            RightShift => ("RightShift", "right_shift", DTypeSet::INT),
            Complex => ("Complex", "complex", DTypeSet::of(&[DType::F32, DType::F64])),
            Igamma => ("Igamma", "igamma", F32_F64),
            Igammac => ("Igammac", "igammac", F32_F64),
            IgammaGradA => ("IgammaGradA", "igamma_grad_a", F32_F64),
            Zeta => ("Zeta", "zeta", F32_F64),
            Polygamma => ("Polygamma", "polygamma", F32_F64),
            Xlogy => ("Xlogy", "xlogy", DTypeSet::FLOAT),
            Xlog1py => ("Xlog1py", "xlog1py", DTypeSet::FLOAT),
            Xdivy => ("Xdivy", "xdivy", DTypeSet::FLOAT),
            NextAfter => ("NextAfter", "nextafter", F32_F64),
        }
    }

    pub fn from_name(name: &str) -> Option<BinaryOp> {
        BinaryOp::ALL.iter().copied().find(|op| op.info().1 == name)
    }

    /// The special functions of two arguments (`special_fns.rs`; gradients in `special_grads.rs`).
    pub fn is_special(self) -> bool {
        matches!(
            self,
            Igamma | Igammac | IgammaGradA | Zeta | Polygamma | Xlogy | Xlog1py | Xdivy | NextAfter
        )
    }

    pub fn is_comparison(self) -> bool {
        matches!(self, Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual)
    }

    pub fn output_dtype(self, input: DType) -> DType {
        match self {
            _ if self.is_comparison() => DType::Bool,
            Complex if input == DType::F64 => DType::C128,
            Complex => DType::C64,
            _ => input,
        }
    }
}

impl Primitive for BinaryOp {
    fn tf_name(&self) -> &'static str {
        self.info().0
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(2)
    }

    /// The name says which op: there are no attributes.
    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    /// The CPU kernel's checks in its order: dtypes agree, are accepted, shapes broadcast.
    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let (x, y) = (input(inputs, 0)?, input(inputs, 1)?);
        let (tf_name, _, dtypes) = self.info();
        if x.dtype != y.dtype {
            return Err(Error::dtype_mismatch(tf_name, x.dtype, y.dtype));
        }
        if !dtypes.contains(x.dtype) {
            return Err(Error::unsupported_dtype(tf_name, x.dtype));
        }
        let dims = primitive::broadcast(&[x, y], tf_name)?;
        Ok(vec![TensorType { dtype: self.output_dtype(x.dtype), dims }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        Ok(vec![cpu(*self, inputs[0], inputs[1])?])
    }

    fn gradient(
        &self,
        inputs: &[Tensor],
        outputs: &[Tensor],
        g: &Tensor,
    ) -> Result<Vec<Option<Tensor>>> {
        let rule = crate::autodiff::rules::elementwise::binary;
        rule(*self, &inputs[0], &inputs[1], &outputs[0], g)
    }

    /// Every op but `Complex` has an expression (bitwise ones for integers and bool only, the
    /// rest for float32 and more): the backend's dtype check does the rest.
    /// TensorFlow registers no gradient for comparisons, bitwise ops and FloorDiv.
    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: {
                match self {
                    Complex => GpuKernel::CpuOnly("complex dtypes live on the CPU"),
                    // xlogy, xlog1py, xdivy and nextafter have float32 kernels
                    // (shaders/special_funcs.wgsl); zeta, polygamma, igamma, igammac and
                    // IgammaGradA too (shaders/special_series.wgsl).
                    _ => GpuKernel::Wgsl,
                }
            },
            differentiable: matches!(
                self,
                Add | Sub
                    | Mul
                    | Div
                    | FloorMod
                    | Pow
                    | Maximum
                    | Minimum
                    | Atan2
                    | Complex
                    | Igamma
                    | Igammac
                    | Zeta
                    | Polygamma
                    | Xlogy
                    | Xlog1py
                    | Xdivy
                    | NextAfter
            ),
            fusable: true,
        }
    }
}

impl Decode for BinaryOp {
    fn names() -> Vec<&'static str> {
        BinaryOp::ALL.iter().map(|op| op.info().0).collect()
    }

    fn decode(name: &str, _: &Attrs) -> Result<BinaryOp> {
        BinaryOp::ALL
            .iter()
            .copied()
            .find(|op| op.info().0 == name)
            .ok_or_else(|| Error::Internal(format!("{name} is not a binary op")))
    }
}

/// One example per op: float32 with broadcasting (divisors and bases positive, no ties where
/// a gradient picks a side), a tie for the comparisons, int32 for the bitwise ops.
#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    let x = Tensor::from_slice(&[1.5f32, 2.0, 0.5, 3.0, 1.0, 2.5], &[2, 3]).unwrap();
    let y = Tensor::from_slice(&[0.75f32, 2.25, 1.25], &[3]).unwrap();
    let tie = Tensor::from_slice(&[0.75f32, 2.0, 1.25], &[3]).unwrap();
    let ints = |v: &[i32]| Tensor::from_slice(v, &[v.len()]).unwrap();
    BinaryOp::ALL
        .iter()
        .map(|&op| {
            let inputs = match op {
                And | Or | Xor | LeftShift | RightShift => {
                    vec![ints(&[6, 3, -1]), ints(&[3, 5, 4])]
                }
                _ if op.is_comparison() => vec![x.clone(), tie.clone()],
                _ => vec![x.clone(), y.clone()],
            };
            (crate::ops::registry::Op::Binary(op), inputs)
        })
        .collect()
}

fn bin<A: Copy + Sync, U: Element>(
    a: &[A],
    a_shape: &Shape,
    b: &[A],
    b_shape: &Shape,
    out: &Shape,
    f: impl Fn(A, A) -> U + Sync + Send,
) -> Result<Buffer> {
    Ok(U::wrap(broadcast::zip2(a, a_shape, b, b_shape, out, f)?))
}

/// The binary ops TensorFlow defines on strings: concatenation and byte equality. Positions
/// broadcast (they are `Copy`); each output then reads its two strings once.
fn strings(
    op: BinaryOp,
    a: &[TfString],
    a_shape: &Shape,
    b: &[TfString],
    b_shape: &Shape,
    out: &Shape,
) -> Result<Buffer> {
    let ia: Vec<usize> = (0..a.len()).collect();
    let ib: Vec<usize> = (0..b.len()).collect();
    let pairs = broadcast::zip2(&ia, a_shape, &ib, b_shape, out, |i, j| (i, j))?;
    let pair = |(i, j): (usize, usize)| (&a[i], &b[j]);
    Ok(match op {
        Add => Buffer::Str(
            pairs
                .into_iter()
                .map(|p| {
                    let (x, y) = pair(p);
                    TfString::from_vec([x.as_bytes(), y.as_bytes()].concat())
                })
                .collect(),
        ),
        Equal => Buffer::Bool(pairs.into_iter().map(|p| pair(p).0 == pair(p).1).collect()),
        NotEqual => Buffer::Bool(pairs.into_iter().map(|p| pair(p).0 != pair(p).1).collect()),
        _ => return Err(Error::unsupported_dtype(op.info().0, DType::String)),
    })
}

/// `match_pair!(x, y, a, b, [F32, ...], body, otherwise)`: both buffers of one listed variant.
macro_rules! match_pair {
    ($x:expr, $y:expr, $a:ident, $b:ident, [$($v:ident),*], $body:expr, $otherwise:expr) => {
        match ($x, $y) {
            $( (Buffer::$v($a), Buffer::$v($b)) => $body, )*
            #[allow(unreachable_patterns)]
            _ => $otherwise,
        }
    };
}

pub fn cpu(op: BinaryOp, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let (tf_name, _, dtypes) = op.info();
    if x.dtype() != y.dtype() {
        return Err(Error::dtype_mismatch(tf_name, x.dtype(), y.dtype()));
    }
    let dtype = x.dtype();
    if !dtypes.contains(dtype) {
        return Err(Error::unsupported_dtype(tf_name, dtype));
    }
    let out_shape = broadcast_shapes(x.shape(), y.shape()).map_err(|e| match e {
        Error::InvalidArgument(m) => Error::InvalidArgument(format!("{m} [Op:{tf_name}]")),
        other => other,
    })?;
    check_integer_operand(op, y)?;
    if let (Buffer::Str(a), Buffer::Str(b)) = (x.buffer(), y.buffer()) {
        let out = strings(op, a, x.shape(), b, y.shape(), &out_shape)?;
        return Ok(Tensor::from_buffer_unchecked(out, out_shape));
    }
    let (xs, ys, o) = (x.shape(), y.shape(), &out_shape);
    let bad = || Error::unsupported_dtype(tf_name, dtype);
    macro_rules! numeric {
        (|$a:ident, $b:ident| $body:expr) => {
            match_pair!(
                x.buffer(),
                y.buffer(),
                p,
                q,
                [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, C64, C128],
                bin(p, xs, q, ys, o, |$a, $b| $body)?,
                return Err(bad())
            )
        };
    }
    macro_rules! real {
        (|$a:ident, $b:ident| $body:expr) => {
            match_pair!(
                x.buffer(),
                y.buffer(),
                p,
                q,
                [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64],
                bin(p, xs, q, ys, o, |$a, $b| $body)?,
                return Err(bad())
            )
        };
    }
    macro_rules! all {
        (|$a:ident, $b:ident| $body:expr) => {
            match_pair!(
                x.buffer(),
                y.buffer(),
                p,
                q,
                [F16, BF16, F32, F64, I8, I16, I32, I64, U8, U16, U32, U64, C64, C128, Bool],
                bin(p, xs, q, ys, o, |$a, $b| $body)?,
                return Err(bad())
            )
        };
    }
    macro_rules! bitwise {
        (|$a:ident, $b:ident| $body:expr) => {
            match_pair!(
                x.buffer(),
                y.buffer(),
                p,
                q,
                [I8, I16, I32, I64, U8, U16, U32, U64, Bool],
                bin(p, xs, q, ys, o, |$a, $b| $body)?,
                return Err(bad())
            )
        };
    }
    macro_rules! shift {
        (|$a:ident, $n:ident| $body:expr) => {
            match_pair!(
                x.buffer(),
                y.buffer(),
                p,
                q,
                [I8, I16, I32, I64, U8, U16, U32, U64],
                bin(p, xs, q, ys, o, |$a, b| {
                    let $n = shift_amount(b);
                    $body
                })?,
                return Err(bad())
            )
        };
    }
    let out = match op {
        Add => numeric!(|a, b| a.add(b)),
        Sub => numeric!(|a, b| a.sub(b)),
        Mul => numeric!(|a, b| a.mul(b)),
        Div => numeric!(|a, b| a.div(b)),
        Pow => match_pair!(
            x.buffer(),
            y.buffer(),
            p,
            q,
            [C64, C128],
            bin(p, xs, q, ys, o, |a, b| a.powc(b))?,
            real!(|a, b| Real::pow(a, b))
        ),
        FloorDiv => real!(|a, b| a.floor_div(b)),
        FloorMod => real!(|a, b| a.floor_mod(b)),
        Maximum => real!(|a, b| a.tf_maximum(b)),
        Minimum => real!(|a, b| a.tf_minimum(b)),
        Atan2 => match_pair!(
            x.buffer(),
            y.buffer(),
            p,
            q,
            [F16, BF16, F32, F64],
            bin(p, xs, q, ys, o, num_traits::Float::atan2)?,
            return Err(bad())
        ),
        Equal => all!(|a, b| a == b),
        NotEqual => all!(|a, b| a != b),
        Less => real!(|a, b| a < b),
        LessEqual => real!(|a, b| a <= b),
        Greater => real!(|a, b| a > b),
        GreaterEqual => real!(|a, b| a >= b),
        And => bitwise!(|a, b| a & b),
        Or => bitwise!(|a, b| a | b),
        Xor => bitwise!(|a, b| a ^ b),
        LeftShift => shift!(|a, n| a.wrapping_shl(n)),
        RightShift => shift!(|a, n| a.wrapping_shr(n)),
        Complex => match_pair!(
            x.buffer(),
            y.buffer(),
            p,
            q,
            [F32, F64],
            bin(p, xs, q, ys, o, num_complex::Complex::new)?,
            return Err(bad())
        ),
        _ => {
            let f: fn(f64, f64) -> f64 = match op {
                Igamma => sf::igamma,
                Igammac => sf::igammac,
                IgammaGradA => sf::igamma_grad_a,
                Zeta => sf::zeta,
                Polygamma => sf::polygamma,
                Xlogy => sf::xlogy,
                Xlog1py => sf::xlog1py,
                Xdivy => sf::xdivy,
                _ => libm::nextafter,
            };
            match_pair!(
                x.buffer(),
                y.buffer(),
                p,
                q,
                [F16, BF16, F64],
                bin(p, xs, q, ys, o, |a, b| via_f64(a, b, f))?,
                match_pair!(
                    x.buffer(),
                    y.buffer(),
                    p,
                    q,
                    [F32],
                    // float32's neighbours are float32's own (nextafterf), the rest round once.
                    bin(p, xs, q, ys, o, |a, b| if op == NextAfter {
                        libm::nextafterf(a, b)
                    } else {
                        f(a as f64, b as f64) as f32
                    })?,
                    return Err(bad())
                )
            )
        }
    };
    Ok(Tensor::from_buffer_unchecked(out, out_shape))
}

/// A float64 function of two elements of one float type, rounded once.
fn via_f64<T: Element>(a: T, b: T, f: fn(f64, f64) -> f64) -> T {
    T::from_f64(f(a.to_f64(), b.to_f64()))
}

/// Whether `op` on integers needs the values of its second operand checked first.
pub fn checks_integer_operand(op: BinaryOp, dtype: DType) -> bool {
    dtype.is_integer() && matches!(op, Div | FloorDiv | FloorMod | Pow)
}

/// TensorFlow's errors for integer division by zero and negative integer powers (host values).
/// A shift amount clamped to [0, bits - 1] of its own type (a negative or too large one is
/// implementation-defined in TensorFlow; its CPU kernels clamp).
fn shift_amount<T: num_traits::PrimInt>(b: T) -> u32 {
    let bits = (std::mem::size_of::<T>() * 8) as i128;
    b.to_i128().map_or(0, |n| n.clamp(0, bits - 1) as u32)
}

pub fn check_integer_operand(op: BinaryOp, y: &Tensor) -> Result<()> {
    let tf_name = op.info().0;
    if y.dtype().is_integer() && matches!(op, Div | FloorDiv | FloorMod) && has_zero(y) {
        return Err(Error::InvalidArgument(format!("Integer division by zero [Op:{tf_name}]")));
    }
    if y.dtype().is_signed_integer() && op == Pow && has_negative(y) {
        return Err(Error::InvalidArgument(format!(
            "Integers to negative integer powers are not allowed [Op:{tf_name}]"
        )));
    }
    Ok(())
}

fn has_zero(t: &Tensor) -> bool {
    crate::with_int!(t.buffer(), v => v.contains(&0), else false)
}

fn has_negative(t: &Tensor) -> bool {
    crate::match_buffer!(t.buffer(), v, [I8, I16, I32, I64], v.iter().any(|&e| e < 0), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_add() {
        let a = Tensor::from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        let b = Tensor::from_slice(&[10.0f32, 20.0], &[2, 1]).unwrap();
        let c = cpu(Add, &a, &b).unwrap();
        assert_eq!(c.dims(), &[2, 3]);
        assert_eq!(c.to_vec::<f32>().unwrap(), vec![11.0, 12.0, 13.0, 24.0, 25.0, 26.0]);
    }

    #[test]
    fn mixed_dtypes_are_rejected() {
        let a = Tensor::from_slice(&[1.0f32], &[1]).unwrap();
        let b = Tensor::from_slice(&[1i32], &[1]).unwrap();
        assert!(matches!(cpu(Add, &a, &b), Err(Error::InvalidArgument(_))));
    }

    #[test]
    fn integer_division_by_zero_is_an_error() {
        let a = Tensor::from_slice(&[1i32, 2], &[2]).unwrap();
        let b = Tensor::from_slice(&[1i32, 0], &[2]).unwrap();
        assert!(cpu(FloorDiv, &a, &b).is_err());
    }

    #[test]
    fn incompatible_shapes_name_both() {
        let a = Tensor::from_slice(&[1.0f32; 6], &[2, 3]).unwrap();
        let b = Tensor::from_slice(&[1.0f32; 4], &[4]).unwrap();
        let msg = cpu(Add, &a, &b).unwrap_err().to_string();
        assert!(msg.contains("[2,3] vs. [4]"), "{msg}");
    }
}
