//! A fused elementwise chain as one generated kernel: each step's WGSL expression becomes a
//! function, the body calls them in order, and the operands are read once (bias rows
//! broadcast through the operand strides). Float32 chains only (their expressions need
//! no range checks); others run step by step.

use super::elementwise::{binary_expr, run_program, unary_expr, Program};
use super::{to_gpu, GpuInput};
use crate::dispatch::Op;
use crate::dtype::DType;
use crate::error::Result;
use crate::graph::fused::{Arg, FusedChain};
use crate::ops::composite::Composite;
use crate::ops::BinaryOp;
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Operand names in the generated body.
const NAMES: [&str; 16] = [
    "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14",
    "v15",
];

pub fn run(
    chain: &FusedChain,
    inputs: &[&Tensor],
    shape: &Shape,
    device: usize,
) -> Result<Option<Tensor>> {
    if chain.dtype != DType::F32 || inputs.iter().any(|t| t.dtype() != DType::F32) {
        return Ok(None);
    }
    let Some(program) = program(chain) else { return Ok(None) };
    // Inputs, the output and the parameters are one storage binding each: a chain wider than
    // the device allows runs step by step.
    let bindings =
        crate::gpu::adapters::context(device)?.limits.max_storage_buffers_per_shader_stage as usize;
    if inputs.len() + 2 > bindings {
        return Ok(None);
    }
    let mut moved: Vec<GpuInput> = Vec::with_capacity(inputs.len());
    for t in inputs {
        match to_gpu(t, device)? {
            Some(g) => moved.push(g),
            None => return Ok(None),
        }
    }
    crate::device::log("FusedElementwise", crate::device::Device::Gpu(device));
    let result = format!("t{}", chain.steps.len() - 1);
    run_program("Fused", &result, &moved, DType::F32, shape, program)
}

/// One WGSL function per step and the `let` that calls it; `None` if a step has no float32
/// expression.
fn program(chain: &FusedChain) -> Option<Program<'static>> {
    let mut funcs = String::new();
    let mut lets = String::new();
    for (j, step) in chain.steps.iter().enumerate() {
        // Relu is its decomposition, `maximum(x, 0)`: Maximum's expression with b = 0.
        let (expr, out, prelude) = match &step.op {
            Op::Unary(u) => with_no_prelude(unary_expr(*u, DType::F32)?),
            Op::Binary(b) => with_no_prelude(binary_expr(*b, DType::F32)?),
            Op::Composite(Composite::Relu) => {
                let (expr, out) = binary_expr(BinaryOp::Maximum, DType::F32)?;
                (expr, out, "    let b = f32(0.0);\n")
            }
            _ => return None,
        };
        if out != DType::F32 {
            return None;
        }
        let params = if step.args.len() == 1 { "a: f32" } else { "a: f32, b: f32" };
        funcs += &format!("fn step{j}({params}) -> f32 {{\n{prelude}    return {expr};\n}}\n");
        let args: Vec<String> = step
            .args
            .iter()
            .map(|a| match a {
                Arg::Input(k) => NAMES.get(*k).map(|s| s.to_string()),
                Arg::Step(s) => Some(format!("t{s}")),
            })
            .collect::<Option<_>>()?;
        lets += &format!("    let t{j} = step{j}({});\n", args.join(", "));
    }
    Some(Program { names: &NAMES, funcs, lets })
}

fn with_no_prelude<E>((expr, out): (E, DType)) -> (E, DType, &'static str) {
    (expr, out, "")
}
