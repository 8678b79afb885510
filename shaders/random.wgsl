// Random tensors: element i takes Philox4x32-10 of counter (i, 0, call, attempt) under the call's
// key, exactly as src/ops/random/philox.rs, then shapes the words like the CPU kernel does (the
// CPU computes that last step in float64, so floats agree to float32 rounding).
// Parameters: p[0] = n, p[1..3] = key, p[3] = call, p[4] = kind (0 uniform float, 1 normal,
// 2 truncated normal, 3 uniform int), p[5], p[6] = the two float parameters' bits (minval and
// maxval, or mean and stddev); for ints p[5] = minval's bits and p[6] = the range width.

@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> p: array<u32>;

fn philox(counter: vec4<u32>) -> vec4<u32> {
    var c = counter;
    var k = vec2<u32>(p[1], p[2]);
    for (var round = 0u; round < 10u; round++) {
        let p0 = mul_wide(0xD2511F53u, c.x);
        let p1 = mul_wide(0xCD9E8D57u, c.z);
        c = vec4<u32>(p1.y ^ c.y ^ k.x, p1.x, p0.y ^ c.w ^ k.y, p0.x);
        k += vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
    }
    return c;
}

// (hi * 2^32 + lo) mod m by binary long division; the remainder stays below m <= 2^32.
fn mod64(hi: u32, lo: u32, m: u32) -> u32 {
    var rem = 0u;
    for (var bit = 63i; bit >= 0; bit--) {
        let word = select(lo, hi, bit >= 32);
        let next = (word >> (u32(bit) & 31u)) & 1u;
        let carry = rem >> 31u;
        rem = (rem << 1u) | next;
        if (carry == 1u || rem >= m) {
            rem -= m;
        }
    }
    return rem;
}

// The uniform [0, 1) of 53 bits the CPU builds from two words, to float32 precision.
fn unit(hi: u32, lo: u32) -> f32 {
    return f32(hi) * 2.3283064e-10 + f32(lo) * 5.421011e-20;
}

fn box_muller(w: vec4<u32>) -> f32 {
    let u1 = max(unit(w.x, w.y), 1.1754944e-38);
    let u2 = unit(w.z, w.w);
    return sqrt(-2.0 * log_f(u1)) * cos_f(6.2831855 * u2);
}

// The largest float32 below finite v.
fn step_down(v: f32) -> f32 {
    let bits = bitcast<u32>(v);
    if (bits == 0u) {
        return bitcast<f32>(0x80000001u);
    }
    return bitcast<f32>(select(bits + 1u, bits - 1u, v > 0.0));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if (i >= p[0]) {
        return;
    }
    let kind = p[4];
    let a = bitcast<f32>(p[5]);
    let b = bitcast<f32>(p[6]);
    let call = p[3];
    if (kind == 3u) {
        let w = philox(vec4<u32>(i, 0u, call, 0u));
        out[i] = p[5] + mod64(w.x, w.y, p[6]);
        return;
    }
    if (kind == 0u) {
        let w = philox(vec4<u32>(i, 0u, call, 0u));
        let v = a + (b - a) * (f32(w.x >> 8u) * 5.9604645e-8);
        out[i] = bitcast<u32>(select(v, max(step_down(b), a), v >= b && b > a));
        return;
    }
    var z = box_muller(philox(vec4<u32>(i, 0u, call, 0u)));
    if (kind == 2u) {
        var attempt = 0u;
        while (abs(z) > 2.0 && attempt <= 1000u) {
            attempt += 1u;
            z = box_muller(philox(vec4<u32>(i, 0u, call, attempt)));
        }
        z = clamp(z, -2.0, 2.0);
    }
    out[i] = bitcast<u32>(a + b * z);
}
