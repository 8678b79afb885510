// The adjoint of `Patches` for float32: each pixel sums the window entries it was copied to,
// a gather over its taps (no atomics, deterministic). Same parameters as patches.wgsl, with
// p[0] = pixels of the image. Uses `hit` from window_taps.wgsl.

@group(0) @binding(0) var<storage, read> cols: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = linear_index(gid, nwg);
    if (flat >= p[0]) {
        return;
    }
    let h = p[1];
    let w = p[2];
    let c = p[3];
    let kh = p[6];
    let kw = p[7];
    let k = kh * kw * c;
    let ch = flat % c;
    let pix = flat / c;
    let x = pix % w;
    let y = (pix / w) % h;
    let n = pix / (w * h);
    var sum = 0.0;
    for (var ty = 0u; ty < kh; ty++) {
        let row = hit(y, ty, p[12], p[10], p[8], p[4]);
        if (row < 0) {
            continue;
        }
        for (var tx = 0u; tx < kw; tx++) {
            let col = hit(x, tx, p[13], p[11], p[9], p[5]);
            if (col < 0) {
                continue;
            }
            let at = ((n * p[4] + u32(row)) * p[5] + u32(col)) * k + (ty * kw + tx) * c + ch;
            sum += cols[at];
        }
    }
    out[flat] = sum;
}
