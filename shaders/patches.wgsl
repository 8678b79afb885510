// Image windows as rows (`Patches`): out[n, oh, ow, (kh, kw, c)] = x[n, h, w, c] with
// h = oh*stride + kh*dilation - pad, or the fill value where (h, w) falls outside the image.
// Moves 4-byte elements as u32 bits, so one kernel serves float32, int32 and uint32.
// Parameters: p[0] = outputs, p[1..5] = H, W, C, OH, p[5] = OW, p[6..8] = KH, KW,
// p[8..10] = strides, p[10..12] = dilations, p[12..14] = pads, p[14] = fill bits.

@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
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
    let k = p[6] * p[7] * c;
    let tap = flat % k;
    let pos = flat / k;
    let ch = tap % c;
    let win = tap / c;
    let col = pos % p[5];
    let row = (pos / p[5]) % p[4];
    let image = pos / (p[5] * p[4]);
    // Unsigned arithmetic: a position above the padding wraps to a huge value, outside.
    let y = row * p[8] + (win / p[7]) * p[10] - p[12];
    let xx = col * p[9] + (win % p[7]) * p[11] - p[13];
    let inside_y = row * p[8] + (win / p[7]) * p[10] >= p[12] && y < h;
    let inside_x = col * p[9] + (win % p[7]) * p[11] >= p[13] && xx < w;
    if (inside_y && inside_x) {
        out[flat] = x[((image * h + y) * w + xx) * c + ch];
    } else {
        out[flat] = p[14];
    }
}
