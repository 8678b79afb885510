// Shared by every generated kernel (prepended by src/gpu/kernels/source.rs).
// Parameters arrive as `p: array<u32>`; p[0] is always the number of invocations needed.

const WG: u32 = 256u;

// The linear invocation index on the 2D grid that large tensors need.
fn linear_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

// NaN and infinity tests on the bits: value comparisons may be folded away by fast-math drivers.
fn is_nan(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u;
}

fn is_inf(x: f32) -> bool {
    return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u;
}

fn nan() -> f32 {
    return bitcast<f32>(0x7fc00000u);
}

// The 64-bit product of two u32 as (low, high): WGSL has no 64-bit integers.
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a_lo = a & 0xffffu;
    let a_hi = a >> 16u;
    let b_lo = b & 0xffffu;
    let b_hi = b >> 16u;
    let ll = a_lo * b_lo;
    let lh = a_lo * b_hi;
    let hl = a_hi * b_lo;
    let mid = (ll >> 16u) + (lh & 0xffffu) + (hl & 0xffffu);
    let hi = a_hi * b_hi + (lh >> 16u) + (hl >> 16u) + (mid >> 16u);
    return vec2<u32>(a * b, hi);
}
