// The one layout kernel: transpose, strided slice, concat, pad and tile are all a copy over an
// iteration shape where source and destination each have a base offset and per-axis strides
// (source strides may be negative for reversed slices). T is filled in per dtype width.
// Parameters: p[0] = n, p[1] = rank, p[2] = source base, p[3] = destination base,
// p[4 ..] = iteration dims, then source strides (i32 bits), then destination strides.

@group(0) @binding(0) var<storage, read> src: array<T>;
@group(0) @binding(1) var<storage, read_write> dst: array<T>;
@group(0) @binding(2) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if (i >= p[0]) {
        return;
    }
    let rank = p[1];
    var rem = i;
    var s = i32(p[2]);
    var d = p[3];
    for (var k = rank; k > 0u; k--) {
        let dim = p[3u + k];
        let c = rem % dim;
        rem = rem / dim;
        s += i32(c) * bitcast<i32>(p[3u + rank + k]);
        d += c * p[3u + 2u * rank + k];
    }
    dst[d] = src[u32(s)];
}
