// The second pass of a chunked scan (scan.wgsl): each element combines the scan of the totals
// of the chunks before its own (`carry`, [outer, chunks, inner]) with its in-chunk result.
// Parameters: p[0] = n, p[1] = r, p[2] = inner, p[3] = L, p[4] = chunks.

@group(0) @binding(0) var<storage, read> partial: array<T>;
@group(0) @binding(1) var<storage, read> carry: array<T>;
@group(0) @binding(2) var<storage, read_write> out: array<T>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let at = linear_index(gid, nwg);
    if (at >= p[0]) {
        return;
    }
    let r = p[1];
    let inner = p[2];
    let i = at % inner;
    let j = (at / inner) % r;
    let o = at / (inner * r);
    var step = j;
    if (REVERSE) {
        step = r - 1u - j;
    }
    let acc = carry[(o * p[4] + step / p[3]) * inner + i];
    let v = partial[at];
    out[at] = COMBINE;
}
