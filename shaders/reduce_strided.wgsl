// Reduction with one invocation per output over [outer, r, inner] data: element j of output
// (o, i) is x[(o * r + j) * inner + i], so neighbouring invocations read neighbouring memory.
// Long columns are cut into chunks, one partial each, reduced again by the caller.
// Generated like reduce_rows.wgsl; arg variants track the index of the best element instead.
// Parameters: p[0] = outputs (outer * chunks * inner), p[1] = r, p[2] = inner,
// p[3] = chunks, p[4] = chunk length.

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<OUT_T>;
@group(0) @binding(2) var<storage, read> p: array<u32>;

fn combine(a: T, b: T) -> T {
    return COMBINE;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = linear_index(gid, nwg);
    if (flat >= p[0]) {
        return;
    }
    let r = p[1];
    let inner = p[2];
    let oc = flat / inner;
    let c = oc % p[3];
    let base = ((oc / p[3]) * r + c * p[4]) * inner + flat % inner;
    let len = min(p[4], r - c * p[4]);
{{BODY}}
}
