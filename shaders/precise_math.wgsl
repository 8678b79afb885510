
// Exponential, logarithm and trigonometric functions accurate to a few float32 ulp on every
// GPU. WGSL lets drivers approximate its builtins: NVIDIA's Vulkan driver runs exp, log, sin
// and cos on its special-function units (sin(x) off by ~1e-6 absolute, so relative error grows
// without bound near its zeros, and log(x) near 1 loses most digits), where TensorFlow's CPU
// and CUDA kernels are accurate to an ulp or two. These follow Cephes' float32 routines:
// a Cody-Waite range reduction with the constant split so the leading products are exact,
// then a minimax polynomial. sin/cos/tan hold their accuracy for |x| up to 2.6e7.

const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.12194440e-4;

fn exp_f(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    if (x > 88.72284) { return bitcast<f32>(0x7f800000u); }
    if (x < -103.97208) { return 0.0; }
    let n = round(x * 1.44269504088896341);
    let r = (x - n * LN2_HI) - n * LN2_LO;
    var p = 1.9875691500e-4;
    p = p * r + 1.3981999507e-3;
    p = p * r + 8.3334519073e-3;
    p = p * r + 4.1665795894e-2;
    p = p * r + 1.6666665459e-1;
    p = p * r + 5.0000001201e-1;
    let y = p * (r * r) + r + 1.0;
    // Two steps keep each exponent in ldexp's defined range (results down to subnormals).
    let k = i32(n);
    return ldexp(ldexp(y, k / 2), k - k / 2);
}

// The natural logarithm of a positive normal float32.
fn log_normal(x: f32) -> f32 {
    let parts = frexp(x);
    var m = parts.fract;
    var e = f32(parts.exp);
    if (m < 0.70710678118654752) {
        m = m + m - 1.0;
        e = e - 1.0;
    } else {
        m = m - 1.0;
    }
    let z = m * m;
    var p = 7.0376836292e-2;
    p = p * m - 1.1514610310e-1;
    p = p * m + 1.1676998740e-1;
    p = p * m - 1.2420140846e-1;
    p = p * m + 1.4249322787e-1;
    p = p * m - 1.6668057665e-1;
    p = p * m + 2.0000714765e-1;
    p = p * m - 2.4999993993e-1;
    p = p * m + 3.3333331174e-1;
    var y = p * m * z;
    y = y + LN2_LO * e;
    y = y - 0.5 * z;
    return (m + y) + LN2_HI * e;
}

// Classified on the bits: GPUs may flush subnormals to zero in arithmetic and compares
// (NVIDIA's does), where TensorFlow's CPU kernels give log(1e-40) = -92.1.
fn log_f(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let magnitude = bits & 0x7fffffffu;
    if (magnitude == 0u) { return bitcast<f32>(0xff800000u); }
    if (magnitude > 0x7f800000u || (bits >> 31u) == 1u) { return nan(); }
    if (magnitude == 0x7f800000u) { return x; }
    if (magnitude < 0x00800000u) {
        // A subnormal is its mantissa (an exact, normal float32) times 2^-149.
        let e = -149.0;
        return (log_normal(f32(magnitude)) + LN2_LO * e) + LN2_HI * e;
    }
    return log_normal(x);
}

// x = quadrant * pi/2 + rest, rest in [-pi/4, pi/4]. pi/2 is split in four parts (to 2e-21),
// the first three of 12 bits, and the quadrant j in two halves of 12 bits, so every product
// of a half with a 12-bit part is exact and each subtraction cancels exactly: the rest keeps
// its digits near multiples of pi/2 and for |x| up to 2^24 pi/2 (no fused fma needed).
struct QuarterTurns {
    rest: f32,
    quadrant: u32,
}

fn reduce_quarter_turns(x: f32) -> QuarterTurns {
    let j = round(x * 0.63661977236758134);
    let j_hi = bitcast<f32>(bitcast<u32>(j) & 0xfffff000u);
    let j_lo = j - j_hi;
    var r = x - j_hi * 1.57080078125;
    r = r - j_lo * 1.57080078125;
    r = r - j_hi * -4.453584551811218e-06;
    r = r - j_lo * -4.453584551811218e-06;
    r = r - j_hi * -8.706138032721356e-10;
    r = r - j_lo * -8.706138032721356e-10;
    r = r - j * 6.223371969669989e-14;
    return QuarterTurns(r, u32(i32(j) & 3));
}

fn sin_poly(r: f32) -> f32 {
    let z = r * r;
    return r + r * z * ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1);
}

fn cos_poly(r: f32) -> f32 {
    let z = r * r;
    return 1.0 - 0.5 * z
        + z * z * ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2);
}

fn sin_f(x: f32) -> f32 {
    if (x == 0.0) { return x; }
    let q = reduce_quarter_turns(x);
    let s = sin_poly(q.rest);
    let c = cos_poly(q.rest);
    return select(select(-c, -s, q.quadrant == 2u), select(c, s, q.quadrant == 0u), q.quadrant < 2u);
}

fn cos_f(x: f32) -> f32 {
    let q = reduce_quarter_turns(x);
    let s = sin_poly(q.rest);
    let c = cos_poly(q.rest);
    return select(select(s, -c, q.quadrant == 2u), select(-s, c, q.quadrant == 0u), q.quadrant < 2u);
}

fn tan_f(x: f32) -> f32 {
    if (x == 0.0) { return x; }
    let q = reduce_quarter_turns(x);
    let s = sin_poly(q.rest);
    let c = cos_poly(q.rest);
    return select(-c / s, s / c, (q.quadrant & 1u) == 0u);
}

// exp(t) / 2 for t up to cosh's overflow at 89.4, past exp's own at 88.7: exp(t/2)^2 / 2
// (t/2 is exact; exp(t - ln 2) would round t - ln 2 and lose ~20 ulp).
fn half_exp(t: f32) -> f32 {
    if (t < 88.0) { return 0.5 * exp_f(t); }
    let e = exp_f(0.5 * t);
    return (0.5 * e) * e;
}

fn cosh_f(x: f32) -> f32 {
    let t = abs(x);
    if (t > 20.0) { return half_exp(t); }
    let e = exp_f(t);
    return 0.5 * e + 0.5 / e;
}
