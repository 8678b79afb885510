// One template for every elementwise op: unary, binary, select and cast. Generated per op,
// dtype and operand layout by src/gpu/kernels/elementwise.rs, which fills the holes:
//   BINDINGS  operand bindings x0, x1, ... (element types per dtype)
//   OUT_T     output element type;  OUT / PARAMS their binding numbers
//   LOADS     `let a = x0[<index>];` for each operand: `i` when it has the output's shape,
//             `0u` for a scalar, `operand_index(k, i)` when it broadcasts
//   EXPR      the result from a, b, c
// Parameters: p[0] = n, p[1] = rank, p[2 ..] = output dims, then each operand's strides.

{{BINDINGS}}
@group(0) @binding({{OUT}}) var<storage, read_write> out: array<{{OUT_T}}>;
@group(0) @binding({{PARAMS}}) var<storage, read> p: array<u32>;

fn operand_index(k: u32, i: u32) -> u32 {
    let rank = p[1];
    var rem = i;
    var idx = 0u;
    for (var d = rank; d > 0u; d--) {
        let dim = p[1u + d];
        idx += (rem % dim) * p[1u + rank * (k + 1u) + d];
        rem = rem / dim;
    }
    return idx;
}

{{FUNCS}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if (i >= p[0]) {
        return;
    }
{{LOADS}}
    out[i] = {{EXPR}};
}
