// Sorts rows of up to 1024 elements, one workgroup per row, with a bitonic network in workgroup
// memory; writes the first k values and their int32 positions. The order is total (value with
// NaN above every number, then position), which gives TensorFlow's tie rule and makes the
// network's result unique. Generated per element type T (IS_NAN) and direction (DESCENDING).
// Parameters: p[0] = rows, p[1] = row length, p[2] = k, p[3] = padded length (a power of two).

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> values: array<T>;
@group(0) @binding(2) var<storage, read_write> positions: array<i32>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

var<workgroup> keys: array<T, 1024>;
var<workgroup> pos: array<u32, 1024>;

// greater() and before() come from sort_order.wgsl.

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let row = wid.x + wid.y * nwg.x;
    let n = p[1];
    let padded = p[3];
    let live = row < p[0];
    for (var t = lid.x; t < padded; t += WG) {
        if (live && t < n) {
            keys[t] = x[row * n + t];
        }
        pos[t] = t;
    }
    workgroupBarrier();
    for (var size = 2u; size <= padded; size = size * 2u) {
        for (var stride = size / 2u; stride > 0u; stride = stride / 2u) {
            for (var t = lid.x; t < padded / 2u; t += WG) {
                let i = 2u * t - (t & (stride - 1u));
                let j = i + stride;
                let up = (i & size) == 0u;
                compare_exchange(i, j, up);
            }
            workgroupBarrier();
        }
    }
    if (live) {
        for (var t = lid.x; t < p[2]; t += WG) {
            values[row * p[2] + t] = keys[t];
            positions[row * p[2] + t] = i32(pos[t]);
        }
    }
}
