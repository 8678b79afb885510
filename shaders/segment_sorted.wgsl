// Sorted segment reductions (SegmentSum/Prod/Max/Min/Mean) of 4-byte elements: one invocation
// per output element combines its segment's rows in order (the CPU's order, no atomics).
// `starts` holds each segment's first row and, last, the row count, so segment s owns rows
// [starts[s], starts[s + 1]); an empty segment holds p[2]'s bits (0, or 1 for products).
// Parameters: p[0] = invocations, p[1] = elements per row, p[2] = the empty segment's bits.

@group(0) @binding(0) var<storage, read> starts: array<u32>;
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<u32>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

{{COMBINE}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = linear_index(gid, nwg);
    if (flat >= p[0]) {
        return;
    }
    let inner = p[1];
    let s = flat / inner;
    let j = flat % inner;
    let a = starts[s];
    let b = starts[s + 1u];
    if (a == b) {
        out[flat] = p[2];
        return;
    }
    var acc = data[a * inner + j];
    for (var r = a + 1u; r < b; r++) {
        acc = combine(acc, data[r * inner + j]);
    }
    out[flat] = finish(acc, b - a);
}
