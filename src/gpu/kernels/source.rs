//! Kernel source generation: a template from `shaders/` with `{{NAME}}` holes filled in, after
//! the shared helpers. Generated variants replace copy-pasted kernels.

use crate::dtype::DType;

const COMMON: &str = include_str!("../../../shaders/common.wgsl");
/// Accurate exp/log/sin/cos (the builtins are approximations on some drivers), for every kernel.
const PRECISE_MATH: &str = include_str!("../../../shaders/precise_math.wgsl");

/// `template` with each `{{key}}` replaced, prefixed by the shared helpers.
pub fn fill(template: &str, holes: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(COMMON.len() + PRECISE_MATH.len() + template.len() + 256);
    let mut body = template.to_string();
    for (key, value) in holes {
        body = body.replace(&format!("{{{{{key}}}}}"), value);
    }
    debug_assert!(!body.contains("{{"), "unfilled hole in generated kernel:\n{body}");
    out.push_str(COMMON);
    out.push_str(PRECISE_MATH);
    out.push_str(&body);
    out
}

/// `source` with the directive float16 kernels need (first in a module, as WGSL requires).
/// Only kernels with float16 operands mention the type, and only GPUs with `SHADER_F16`
/// receive them.
pub fn enable_extensions(source: String) -> String {
    if source.contains("f16") {
        format!("enable f16;\n{source}")
    } else {
        source
    }
}

/// The WGSL element type a dtype is stored as.
pub fn wgsl_type(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "f32",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::U64 => "u64",
        DType::F16 => "f16",
        _ => "u32", // u32 and bool
    }
}

/// The unsigned type of the same width, for kernels that only move elements.
pub fn raw_type(dtype: DType) -> &'static str {
    match dtype {
        DType::I64 | DType::U64 => "u64",
        DType::F16 => "f16",
        _ => "u32",
    }
}

/// `var<storage, read> name: array<T>;` at `binding`.
pub fn input_binding(binding: usize, name: &str, dtype: DType) -> String {
    format!(
        "@group(0) @binding({binding}) var<storage, read> {name}: array<{}>;\n",
        wgsl_type(dtype)
    )
}
