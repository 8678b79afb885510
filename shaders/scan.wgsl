// Cumulative sum or product along the middle axis of [outer, r, inner] data, one invocation per
// (outer, inner) column. Generated per op and element type from T, INIT and COMBINE; EXCLUSIVE
// and REVERSE are constants. Parameters: p[0] = columns, p[1] = r, p[2] = inner.

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let col = linear_index(gid, nwg);
    if (col >= p[0]) {
        return;
    }
    let r = p[1];
    let inner = p[2];
    let base = (col / inner) * r * inner + col % inner;
    var acc: T = INIT;
    for (var step = 0u; step < r; step++) {
        var j = step;
        if (REVERSE) {
            j = r - 1u - step;
        }
        let at = base + j * inner;
        let v = x[at];
        if (EXCLUSIVE) {
            out[at] = acc;
            acc = COMBINE;
        } else {
            acc = COMBINE;
            out[at] = acc;
        }
    }
}
