// TensorFlow's MaxPoolGrad for float32 as a gather: each pixel sums the gradients of the
// windows whose first maximum (in tap order) it is. Parameters as in patches.wgsl, p[0] =
// pixels of the image. Uses `hit` and `source` from window_taps.wgsl.

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> g: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

// The flat pixel index (y * W + x) of window (row, col)'s first maximum in channel `ch`.
fn first_max(n: u32, row: u32, col: u32, ch: u32) -> u32 {
    var best = 0.0;
    var found = false;
    var at = 0u;
    for (var ty = 0u; ty < p[6]; ty++) {
        let y = source(row, ty, p[8], p[10], p[12], p[1]);
        if (y < 0) {
            continue;
        }
        for (var tx = 0u; tx < p[7]; tx++) {
            let xx = source(col, tx, p[9], p[11], p[13], p[2]);
            if (xx < 0) {
                continue;
            }
            let pixel = u32(y) * p[2] + u32(xx);
            let v = x[(n * p[1] * p[2] + pixel) * p[3] + ch];
            if (!found || v > best) {
                best = v;
                at = pixel;
                found = true;
            }
        }
    }
    return at;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = linear_index(gid, nwg);
    if (flat >= p[0]) {
        return;
    }
    let c = p[3];
    let ch = flat % c;
    let pix = flat / c;
    let xx = pix % p[2];
    let y = (pix / p[2]) % p[1];
    let n = pix / (p[2] * p[1]);
    let me = y * p[2] + xx;
    var sum = 0.0;
    for (var ty = 0u; ty < p[6]; ty++) {
        let row = hit(y, ty, p[12], p[10], p[8], p[4]);
        if (row < 0) {
            continue;
        }
        for (var tx = 0u; tx < p[7]; tx++) {
            let col = hit(xx, tx, p[13], p[11], p[9], p[5]);
            if (col < 0) {
                continue;
            }
            if (first_max(n, u32(row), u32(col), ch) == me) {
                sum += g[((n * p[4] + u32(row)) * p[5] + u32(col)) * c + ch];
            }
        }
    }
    out[flat] = sum;
}
