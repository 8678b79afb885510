// One Stockham autosort pass of an FFT along the middle axis of [outer, n, inner] complex
// data (pairs of f32): invocation j of a column takes the RADIX elements j, j + n/RADIX, ...,
// multiplies them by their twiddles, transforms them with a RADIX-point DFT and writes them
// to their sorted places, so that after one pass per factor of n the column holds its DFT in
// natural order (Govindaraju et al., "High performance discrete Fourier transforms on graphics
// processors", 2008). Mixed radix: the passes' radices multiply to n, `ns` is the product of
// the earlier ones. Every twiddle, the small DFTs' too, is read from `w`, exp(-2 pi i m / n)
// for m < n computed in float64 on the host: nothing here evaluates a sine.
// Parameters: p[0] = outer * inner * n / radix invocations, p[1] = n, p[2] = radix,
// p[3] = ns, p[4] = inner, p[5] = 1 for the inverse transform (conjugate twiddles),
// p[6] = the bits of a float32 factor the outputs are scaled by (the inverse's 1/n, once).

@group(0) @binding(0) var<storage, read> x: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read> w: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

// The largest radix the host plans (it sends other lengths to the CPU).
const MAX_RADIX: u32 = 13u;

fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

fn twiddle(m: u32, inverse: bool) -> vec2<f32> {
    let t = w[m];
    return select(t, vec2<f32>(t.x, -t.y), inverse);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_index(gid, nwg);
    if (id >= p[0]) {
        return;
    }
    let n = p[1];
    let radix = p[2];
    let ns = p[3];
    let inner = p[4];
    let inverse = p[5] == 1u;
    let scale = bitcast<f32>(p[6]);
    let span = n / radix;
    let i = id % inner;
    let rest = id / inner;
    let j = rest % span;
    let base = (rest / span) * n * inner + i;
    let k = j % ns;
    // The twiddle of input r is exp(-2 pi i r k / (ns * radix)) = w[r * k * n / (ns * radix)].
    let step = k * (n / (ns * radix));
    var v: array<vec2<f32>, MAX_RADIX>;
    for (var r = 0u; r < radix; r++) {
        v[r] = cmul(x[base + (j + r * span) * inner], twiddle(r * step, inverse));
    }
    let dst = (j / ns) * ns * radix + k;
    for (var q = 0u; q < radix; q++) {
        var acc = v[0];
        for (var r = 1u; r < radix; r++) {
            // exp(-2 pi i r q / radix) = w[(r q mod radix) * n / radix]
            acc += cmul(v[r], twiddle(((r * q) % radix) * span, inverse));
        }
        out[base + (dst + q * ns) * inner] = acc * scale;
    }
}
