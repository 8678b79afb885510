//! Unary, binary, select and cast kernels, all generated from `shaders/elementwise.wgsl`:
//! an op contributes one WGSL expression per dtype; broadcasting is an operand layout.

use super::{launch_elementwise, GpuInput};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::{fill, input_binding, wgsl_type};
use crate::ops::binary::BinaryOp;
use crate::ops::unary::{GpuClass, UnaryOp};
use crate::shape::{broadcast_shapes, Shape};
use crate::tensor::Tensor;

const TEMPLATE: &str = include_str!("../../../shaders/elementwise.wgsl");
const FUNCS: &str = include_str!("../../../shaders/elementwise_funcs.wgsl");
/// Helpers over i64/u64 and f16: only kernels with such operands include them (and only GPUs
/// with the feature get those kernels).
const FUNCS_64: &str = include_str!("../../../shaders/elementwise_funcs_64.wgsl");
const FUNCS_F16: &str = include_str!("../../../shaders/elementwise_funcs_f16.wgsl");
const INTEGER_FUNCS: &str = include_str!("../../../shaders/integer_funcs.wgsl");
/// tf.math's special functions (`special_*`): only kernels whose expression calls one include
/// them, so every other kernel's shader stays small.
const SPECIAL_FUNCS: &str = include_str!("../../../shaders/special_funcs.wgsl");
/// The series-based ones (zeta, polygamma, the incomplete gamma functions), after
/// `SPECIAL_FUNCS` whose lgamma and digamma they use: only their kernels include them.
const SPECIAL_SERIES: &str = include_str!("../../../shaders/special_series.wgsl");
const SERIES_NAMES: [&str; 3] = ["special_zeta", "special_polygamma", "special_igamma"];

/// The integer division and power helpers for one width: `floordiv_32`, `pow_64`, ...
fn integer_funcs(bits: u32) -> String {
    let (signed, unsigned) = if bits == 64 { ("i64", "u64") } else { ("i32", "u32") };
    INTEGER_FUNCS
        .replace("{{SINT}}", signed)
        .replace("{{UINT}}", unsigned)
        .replace("{{BITS}}", &bits.to_string())
}

/// Float16 computes as float32: the f32 expression, with float32 results stored as float16.
fn as_f16((expr, out): (&'static str, DType)) -> (&'static str, DType) {
    (expr, if out == DType::F32 { DType::F16 } else { out })
}

/// (expression over `a`, output dtype) for a unary op on the GPU: the op's declared WGSL
/// (`ops/unary.rs`).
pub fn unary_expr(op: UnaryOp, dtype: DType) -> Option<(&'static str, DType)> {
    let with_output = |e| (e, op.output_dtype(dtype));
    match dtype {
        DType::F16 => unary_expr(op, DType::F32).map(as_f16),
        DType::F32 => op.wgsl(GpuClass::F32).map(with_output),
        DType::I32 => op.wgsl(GpuClass::I32).or_else(|| op.wgsl(GpuClass::U)).map(with_output),
        DType::I64 => op.wgsl(GpuClass::I64).or_else(|| op.wgsl(GpuClass::U)).map(with_output),
        DType::U32 | DType::U64 => op.wgsl(GpuClass::U).map(with_output),
        DType::Bool => op.wgsl(GpuClass::Bool).map(with_output),
        _ => None,
    }
}

/// (expression over `a`, `b`, output dtype) for a binary op on the GPU. Integer division,
/// modulo and powers stay on the CPU: their errors (division by zero, negative exponents)
/// need the values before the op returns.
pub fn binary_expr(op: BinaryOp, dtype: DType) -> Option<(&'static str, DType)> {
    use BinaryOp::*;
    let cmp = |e| Some((e, DType::Bool));
    let comparison = || match op {
        Equal => cmp("select(0u, 1u, a == b)"),
        NotEqual => cmp("select(0u, 1u, a != b)"),
        Less => cmp("select(0u, 1u, a < b)"),
        LessEqual => cmp("select(0u, 1u, a <= b)"),
        Greater => cmp("select(0u, 1u, a > b)"),
        GreaterEqual => cmp("select(0u, 1u, a >= b)"),
        _ => None,
    };
    match dtype {
        // The CPU rounds the quotient to float16 before flooring it.
        DType::F16 if op == FloorDiv => Some(("floor(f32(to_f16(div_f(a, b))))", DType::F16)),
        // Ops TensorFlow has no float16 kernel for (zeta, igamma, ...) leave the CPU's error.
        DType::F16 if !op.info().2.contains(DType::F16) => None,
        DType::F16 => binary_expr(op, DType::F32).map(as_f16),
        DType::F32 => match op {
            Equal => cmp("select(0u, 1u, a == b && !unordered(a, b))"),
            NotEqual => cmp("select(0u, 1u, a != b || unordered(a, b))"),
            Less => cmp("select(0u, 1u, a < b && !unordered(a, b))"),
            LessEqual => cmp("select(0u, 1u, a <= b && !unordered(a, b))"),
            Greater => cmp("select(0u, 1u, a > b && !unordered(a, b))"),
            GreaterEqual => cmp("select(0u, 1u, a >= b && !unordered(a, b))"),
            Add => Some(("a + b", dtype)),
            Sub => Some(("a - b", dtype)),
            Mul => Some(("a * b", dtype)),
            Div => Some(("div_f(a, b)", dtype)),
            FloorDiv => Some(("floor(div_f(a, b))", dtype)),
            FloorMod => Some(("floormod_f(a, b)", dtype)),
            Pow => Some(("pow_f(a, b)", dtype)),
            Maximum => Some(("max_f(a, b)", dtype)),
            Minimum => Some(("min_f(a, b)", dtype)),
            Atan2 => Some(("atan2_f(a, b)", dtype)),
            Xlogy => Some(("special_xlogy(a, b)", dtype)),
            Xlog1py => Some(("special_xlog1py(a, b)", dtype)),
            Xdivy => Some(("special_xdivy(a, b)", dtype)),
            NextAfter => Some(("special_nextafter(a, b)", dtype)),
            Zeta => Some(("special_zeta(a, b)", dtype)),
            Polygamma => Some(("special_polygamma(a, b)", dtype)),
            Igamma => Some(("special_igamma(a, b)", dtype)),
            Igammac => Some(("special_igammac(a, b)", dtype)),
            IgammaGradA => Some(("special_igamma_grad_a(a, b)", dtype)),
            _ => None,
        },
        DType::I32 => match op {
            Div => Some(("a / b", dtype)),
            FloorDiv => Some(("floordiv_32(a, b)", dtype)),
            FloorMod => Some(("floormod_32(a, b)", dtype)),
            Pow => Some(("bitcast<i32>(pow_32(bitcast<u32>(a), bitcast<u32>(b)))", dtype)),
            LeftShift => Some(("a << u32(clamp(b, 0, 31))", dtype)),
            RightShift => Some(("a >> u32(clamp(b, 0, 31))", dtype)),
            // The rest are the same bit operations as on u32.
            _ => binary_expr(op, DType::U32)
                .map(|(e, out)| (e, if out == DType::Bool { out } else { dtype })),
        },
        DType::I64 => match op {
            Div => Some(("a / b", dtype)),
            FloorDiv => Some(("floordiv_64(a, b)", dtype)),
            FloorMod => Some(("floormod_64(a, b)", dtype)),
            Pow => Some(("bitcast<i64>(pow_64(bitcast<u64>(a), bitcast<u64>(b)))", dtype)),
            LeftShift => Some(("a << u32(clamp(b, 0li, 63li))", dtype)),
            RightShift => Some(("a >> u32(clamp(b, 0li, 63li))", dtype)),
            _ => binary_expr(op, DType::U32)
                .map(|(e, out)| (e, if out == DType::Bool { out } else { dtype })),
        },
        DType::U32 | DType::U64 => match op {
            Div | FloorDiv => Some(("a / b", dtype)),
            FloorMod => Some(("a % b", dtype)),
            Pow if dtype == DType::U64 => Some(("pow_64(a, b)", dtype)),
            Pow => Some(("pow_32(a, b)", dtype)),
            Add => Some(("a + b", dtype)),
            Sub => Some(("a - b", dtype)),
            Mul => Some(("a * b", dtype)),
            Maximum => Some(("max(a, b)", dtype)),
            Minimum => Some(("min(a, b)", dtype)),
            And => Some(("a & b", dtype)),
            Or => Some(("a | b", dtype)),
            Xor => Some(("a ^ b", dtype)),
            LeftShift if dtype == DType::U64 => Some(("a << u32(min(b, 63lu))", dtype)),
            RightShift if dtype == DType::U64 => Some(("a >> u32(min(b, 63lu))", dtype)),
            LeftShift => Some(("a << min(b, 31u)", dtype)),
            RightShift => Some(("a >> min(b, 31u)", dtype)),
            _ => comparison(),
        },
        DType::Bool => match op {
            Equal | NotEqual => comparison(),
            And => Some(("a & b", dtype)),
            Or => Some(("a | b", dtype)),
            Xor => Some(("a ^ b", dtype)),
            _ => None,
        },
        _ => None,
    }
}

/// Conversion expression from one GPU dtype to another, with TensorFlow's CPU results.
pub fn cast_expr(from: DType, to: DType) -> Option<&'static str> {
    use DType::*;
    Some(match (from, to) {
        // Float16 operands load as f32, and f32 results store as f16.
        (F16, F32) | (F32, F16) => "a",
        (F16, _) => return cast_expr(F32, to),
        (_, F16) => return cast_expr(from, F32),
        (F32, I32) => "f32_to_i32(a)",
        (F32, U32) => "f32_to_u32(a)",
        (F32, Bool) => "select(0u, 1u, a != 0.0 || is_nan(a))",
        (I32, F32) | (U32, F32) | (Bool, F32) => "f32(a)",
        (I32, U32) => "bitcast<u32>(a)",
        (U32, I32) => "bitcast<i32>(a)",
        (Bool, I32) => "i32(a)",
        (Bool, U32) => "a",
        (I32, Bool) => "select(0u, 1u, a != 0)",
        (U32, Bool) => "select(0u, 1u, a != 0u)",
        (F32, I64) => "f32_to_i64(a)",
        (I64, F32) | (U64, F32) => "f32(a)",
        (I32, I64) | (U32, I64) | (Bool, I64) => "i64(a)",
        (U32, U64) | (Bool, U64) => "u64(a)",
        (I32, U64) => "bitcast<u64>(i64(a))",
        // Narrowing keeps the low bits, as the CPU's casts do.
        (I64, I32) | (U64, I32) => "i32(a)",
        (I64, U32) | (U64, U32) => "u32(a)",
        (I64, U64) => "bitcast<u64>(a)",
        (U64, I64) => "bitcast<i64>(a)",
        (I64, Bool) => "select(0u, 1u, a != 0li)",
        (U64, Bool) => "select(0u, 1u, a != 0lu)",
        _ => return None,
    })
}

/// Element `i` of tf.range from `a` = start and `b` = delta, in the CPU's order of operations.
pub fn range_expr(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::F32 => "a + f32(i) * b",
        DType::I32 => "a + i32(i) * b",
        DType::U32 => "a + i * b",
        DType::I64 => "a + i64(i) * b",
        DType::U64 => "a + u64(i) * b",
        _ => return None,
    })
}

/// The helpers a kernel includes: 64-bit and float16 ones only where its operands need them
/// (and so only on GPUs with those features). Built only when a kernel is first compiled.
fn funcs(wide: bool, half: bool) -> String {
    let mut funcs = format!("{FUNCS}{}", integer_funcs(32));
    if wide {
        funcs += FUNCS_64;
        funcs += &integer_funcs(64);
    }
    if half {
        funcs += FUNCS_F16;
    }
    funcs
}

/// How operand `k` is indexed at output index `i`, and its strides when it broadcasts.
fn layout(operand: &Shape, out: &Shape) -> (&'static str, Option<Vec<u32>>) {
    if operand == out {
        return ("i", None);
    }
    if operand.num_elements() == 1 {
        return ("0u", None);
    }
    let rank = out.rank();
    let offset = rank - operand.rank();
    let mut strides = vec![0u32; rank];
    let mut stride = 1u32;
    for d in (0..operand.rank()).rev() {
        let dim = operand.dims()[d];
        if dim != 1 {
            strides[offset + d] = stride;
        }
        stride = stride.saturating_mul(dim as u32);
    }
    ("", Some(strides))
}

/// Runs `expr` over `operands` (already on the GPU and broadcast-compatible with `out_shape`).
pub fn run(
    name: &str,
    expr: &str,
    operands: &[GpuInput],
    out_dtype: DType,
    out_shape: &Shape,
) -> Result<Option<Tensor>> {
    let program = Program { names: &["a", "b", "c"], funcs: String::new(), lets: String::new() };
    run_program(name, expr, operands, out_dtype, out_shape, program)
}

/// What a kernel computes beyond loading operands: the names operand k is loaded as, extra
/// WGSL functions, and `let` statements before `out[i] = expr`.
pub struct Program<'a> {
    pub names: &'a [&'a str],
    pub funcs: String,
    pub lets: String,
}

/// `run` with a whole program: fused chains bring one function per step and a `let` each.
pub fn run_program(
    name: &str,
    expr: &str,
    operands: &[GpuInput],
    out_dtype: DType,
    out_shape: &Shape,
    program: Program<'_>,
) -> Result<Option<Tensor>> {
    // Dims and per-operand strides must fit one parameter block (64 words).
    const MAX_RANK: usize = 14;
    if out_shape.rank() > MAX_RANK || operands.len() > program.names.len() {
        return Ok(None);
    }
    if (operands.len() + 1) * out_shape.rank() + 2 > crate::gpu::batch::MAX_PARAMS {
        return Ok(None);
    }
    let mut bindings = String::new();
    let mut loads = String::new();
    let mut params = vec![out_shape.num_elements() as u32, out_shape.rank() as u32];
    params.extend(out_shape.dims().iter().map(|&d| d as u32));
    // The step functions are part of the program: two fused chains with the same call pattern
    // but different ops must not share a pipeline.
    let mut key =
        format!("ew:{name}:{expr}:{}:{}:{}", wgsl_type(out_dtype), program.funcs, program.lets);
    let mut broadcast = 0u32;
    for (k, x) in operands.iter().enumerate() {
        bindings += &input_binding(k, &format!("x{k}"), x.dtype);
        let (index, strides) = layout(&x.shape, out_shape);
        let index = match strides {
            None => index.to_string(),
            Some(strides) => {
                // Operands that do not broadcast still take a slot so stride offsets stay fixed.
                while broadcast < k as u32 {
                    params.extend(std::iter::repeat_n(0, out_shape.rank()));
                    broadcast += 1;
                }
                params.extend(strides);
                broadcast += 1;
                format!("operand_index({k}u, i)")
            }
        };
        key += &format!(":{}{index}", wgsl_type(x.dtype));
        let load = format!("x{k}[{index}]");
        let load = if x.dtype == DType::F16 { format!("f32({load})") } else { load };
        loads += &format!("    let {} = {load};\n", program.names[k]);
    }
    loads += &program.lets;
    let n = operands.len();
    let uses = |d: DType| out_dtype == d || operands.iter().any(|x| x.dtype == d);
    let (wide, half) = (uses(DType::I64) || uses(DType::U64), uses(DType::F16));
    let calls_special = expr.contains("special_") || program.funcs.contains("special_");
    let calls_series = SERIES_NAMES.iter().any(|f| expr.contains(f) || program.funcs.contains(f));
    let special = match (calls_special, calls_series) {
        (_, true) => format!("{SPECIAL_FUNCS}{SPECIAL_SERIES}"),
        (true, false) => SPECIAL_FUNCS.to_string(),
        _ => String::new(),
    };
    let expr =
        if half && out_dtype == DType::F16 { format!("to_f16({expr})") } else { expr.into() };
    let source = || {
        fill(
            TEMPLATE,
            &[
                ("BINDINGS", bindings.clone()),
                ("OUT", n.to_string()),
                ("OUT_T", wgsl_type(out_dtype).to_string()),
                ("PARAMS", (n + 1).to_string()),
                ("FUNCS", funcs(wide, half) + &special + &program.funcs),
                ("LOADS", loads.clone()),
                ("EXPR", expr.clone()),
            ],
        )
    };
    launch_elementwise(&key, source, operands, out_dtype, out_shape, &params).map(Some)
}

/// The broadcast output shape of a binary op, or `None` (the CPU path reports the error).
pub fn binary_shape(a: &Shape, b: &Shape) -> Option<Shape> {
    broadcast_shapes(a, b).ok()
}
