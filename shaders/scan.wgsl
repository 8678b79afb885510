// Cumulative sum or product along the middle axis of [outer, r, inner] data, in chunks of L
// steps: one invocation scans one chunk of one (outer, inner) column and writes the chunk's
// total; scan_carry.wgsl then folds in the exclusive scan of earlier chunks' totals. With
// REVERSE, steps (and so chunks) count from the end of the axis. Generated per op and element
// type from T, INIT and COMBINE; EXCLUSIVE and REVERSE are constants.
// Parameters: p[0] = columns * chunks, p[1] = r, p[2] = inner, p[3] = L, p[4] = chunks.

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<storage, read_write> totals: array<T>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_index(gid, nwg);
    if (id >= p[0]) {
        return;
    }
    let r = p[1];
    let inner = p[2];
    let chunks = p[4];
    let chunk = id % chunks;
    let col = id / chunks;
    let o = col / inner;
    let i = col % inner;
    let base = o * r * inner + i;
    let first = chunk * p[3];
    let last = min(r, first + p[3]);
    var acc: T = INIT;
    for (var step = first; step < last; step++) {
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
    // Exclusive chunks still report their full total (the last element's contribution).
    totals[(o * chunks + chunk) * inner + i] = acc;
}
