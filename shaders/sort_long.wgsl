// Sorts rows longer than a workgroup can hold with a bitonic network in storage memory, one
// dispatch per network stage, in the same total order as sort_rows.wgsl (sort_order.wgsl).
// p[4] picks the step: 0 copies each row into its padded slot range, 1 runs one stage
// (p[5] = merge size, p[6] = compare stride), 2 writes the first k values and positions.
// Parameters: p[0] = invocations, p[1] = row length n, p[2] = k, p[3] = padded length P.

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> keys: array<T>;
@group(0) @binding(2) var<storage, read_write> pos: array<u32>;
@group(0) @binding(3) var<storage, read_write> values: array<T>;
@group(0) @binding(4) var<storage, read_write> positions: array<i32>;
@group(0) @binding(5) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let t = linear_index(gid, nwg);
    if (t >= p[0]) {
        return;
    }
    let n = p[1];
    let k = p[2];
    let padded = p[3];
    switch p[4] {
        case 0u: {
            let row = t / padded;
            let slot = t % padded;
            if (slot < n) {
                keys[t] = x[row * n + slot];
            }
            pos[t] = slot;
        }
        case 1u: {
            let half = padded / 2u;
            let row = t / half;
            let pair = t % half;
            let stride = p[6];
            let i = 2u * pair - (pair & (stride - 1u));
            let up = (i & p[5]) == 0u;
            let a = row * padded + i;
            let b = a + stride;
            compare_exchange(a, b, up);
        }
        default: {
            let row = t / k;
            let slot = row * padded + t % k;
            values[t] = keys[slot];
            positions[t] = i32(pos[slot]);
        }
    }
}
