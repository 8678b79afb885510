// Gather along one axis, moving elements as the unsigned type E of their width, with indices
// of type I (i32 or i64): out[o, j, e] = x[o, indices[j], e]. An index outside [0, d) gives 0,
// as TensorFlow's GPU kernels do (host-resident indices are checked before launch and raise).
// Parameters: p[0] = n (outputs), p[1] = inner, p[2] = number of indices, p[3] = d.

@group(0) @binding(0) var<storage, read> x: array<{{E}}>;
@group(0) @binding(1) var<storage, read> indices: array<{{I}}>;
@group(0) @binding(2) var<storage, read_write> out: array<{{E}}>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = linear_index(gid, nwg);
    if (flat >= p[0]) {
        return;
    }
    let inner = p[1];
    let e = flat % inner;
    let j = (flat / inner) % p[2];
    let o = flat / (inner * p[2]);
    let idx = indices[j];
    if (idx < {{I}}(0) || idx >= {{I}}(p[3])) {
        out[flat] = {{E}}();
        return;
    }
    out[flat] = x[(o * p[3] + u32(idx)) * inner + e];
}
