// Reduction of long contiguous rows: one workgroup per chunk of a row, a strided pass per
// invocation, then a tree in workgroup memory. Rows longer than a chunk leave one partial per
// chunk, reduced again by the caller: short sequential runs keep float sums accurate.
// Generated per op and dtype (src/gpu/kernels/reduce.rs) from T, INIT and COMBINE.
// Parameters: p[0] = partials (rows * chunks), p[1] = row length, p[2] = chunks per row,
// p[3] = chunk length.

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out: array<T>;
@group(0) @binding(2) var<storage, read> p: array<u32>;

var<workgroup> scratch: array<T, 256>;

fn combine(a: T, b: T) -> T {
    return COMBINE;
}

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let row = wid.x + wid.y * nwg.x;
    let r = p[1];
    let c = row % p[2];
    let start = (row / p[2]) * r + c * p[3];
    var acc: T = INIT;
    if (row < p[0]) {
        let len = min(p[3], r - c * p[3]);
        for (var j = lid.x; j < len; j += WG) {
            acc = combine(acc, x[start + j]);
        }
    }
    scratch[lid.x] = acc;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid.x < s) {
            scratch[lid.x] = combine(scratch[lid.x], scratch[lid.x + s]);
        }
        workgroupBarrier();
    }
    if (lid.x == 0u && row < p[0]) {
        out[row] = scratch[0];
    }
}
