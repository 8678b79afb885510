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

fn greater(a: T, b: T) -> bool {
    let an = IS_NAN(a);
    let bn = IS_NAN(b);
    return (an && !bn) || (!an && !bn && a > b);
}

// Whether slot a belongs before slot b. Padding (position >= row length) always goes last.
fn before(a: u32, b: u32) -> bool {
    let n = p[1];
    if (pos[a] >= n) {
        return false;
    }
    if (pos[b] >= n) {
        return true;
    }
    let ka = keys[a];
    let kb = keys[b];
    var first = greater(kb, ka);
    var second = greater(ka, kb);
    if (DESCENDING) {
        let t = first;
        first = second;
        second = t;
    }
    return first || (!second && pos[a] < pos[b]);
}

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
                if (select(before(i, j), before(j, i), up)) {
                    let k = keys[i];
                    keys[i] = keys[j];
                    keys[j] = k;
                    let q = pos[i];
                    pos[i] = pos[j];
                    pos[j] = q;
                }
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
