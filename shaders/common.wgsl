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
