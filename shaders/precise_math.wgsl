
// Exponential, logarithm and trigonometric functions accurate to a few float32 ulp on every
// GPU. WGSL lets drivers approximate its builtins: NVIDIA's Vulkan driver runs exp, log, sin
// and cos on its special-function units (sin(x) off by ~1e-6 absolute, so relative error grows
// without bound near its zeros, and log(x) near 1 loses most digits), where TensorFlow's CPU
// and CUDA kernels are accurate to an ulp or two. These follow Cephes' float32 routines:
// a Cody-Waite range reduction with the constant split so the leading products are exact,
// then a minimax polynomial; sin/cos/tan hold their accuracy over all float32 (see
// reduce_quarter_turns).

// Correctly rounded float32 division. WGSL lets drivers approximate a / b (2.5 ulp) and
// NVIDIA's Vulkan driver does, where TensorFlow's kernels round correctly: on an H200, 40 / 100
// came out an ulp low, enough to move a percentile's index, a quantization step or a resize's
// output size. A residual step with fma is not enough (lavapipe's fma is not fused), so the
// significands are divided as integers, exactly: a leading 1 and three 8-bit digits give 24
// bits and a guard bit, the remainder is the sticky bit, and the result rounds half to even.
// Zeros, infinities, NaNs, subnormal operands and results outside the normal range keep the
// driver's quotient (GPUs may flush subnormals anyway).
fn div_f(a: f32, b: f32) -> f32 {
    let q = a / b;
    if (is_nan(q) || is_inf(q) || q == 0.0) { return q; }
    let ua = bitcast<u32>(a);
    let ub = bitcast<u32>(b);
    let ea = i32((ua >> 23u) & 0xffu);
    let eb = i32((ub >> 23u) & 0xffu);
    if (ea == 0 || eb == 0 || ea == 255 || eb == 255) { return q; }
    var ma = (ua & 0x7fffffu) | 0x800000u;
    let mb = (ub & 0x7fffffu) | 0x800000u;
    var e = ea - eb + 127;
    // ma / mb in [1, 2): the quotient's leading digit is 1.
    if (ma < mb) {
        ma = ma << 1u;
        e = e - 1;
    }
    var r = ma - mb;
    var quotient = 1u;
    for (var i = 0; i < 3; i = i + 1) {
        let shifted = r << 8u;
        let digit = shifted / mb;
        r = shifted - digit * mb;
        quotient = (quotient << 8u) | digit;
    }
    var mant = quotient >> 1u;
    if ((quotient & 1u) == 1u && (r != 0u || (mant & 1u) == 1u)) { mant = mant + 1u; }
    if (mant == 0x1000000u) {
        mant = 0x800000u;
        e = e + 1;
    }
    if (e < 1 || e > 254) { return q; }
    return bitcast<f32>(((ua ^ ub) & 0x80000000u) | (u32(e) << 23u) | (mant & 0x7fffffu));
}

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

// x = quadrant * pi/2 + rest, rest in [-pi/4, pi/4]. Small arguments use Cody-Waite: pi/2 split
// in four parts (to 2e-21), the first three of 12 bits, and the quadrant j (below 2^12 here)
// times a 12-bit part is exact, so each subtraction cancels exactly. Larger ones are reduced
// on the integers (Payne-Hanek): float32 Cody-Waite past there needs products split in halves,
// which shader compilers reassociate back into one rounded product (Mesa's did: 1e-4 errors
// from 1e7 on), and loses the quadrant past 2^24.
struct QuarterTurns {
    rest: f32,
    quadrant: u32,
}

fn reduce_quarter_turns(x: f32) -> QuarterTurns {
    if (abs(x) >= 4096.0) { return reduce_quarter_turns_large(x); }
    let j = round(x * 0.63661977236758134);
    var r = x - j * 1.57080078125;
    r = r - j * -4.453584551811218e-06;
    r = r - j * -8.706138032721356e-10;
    r = r - j * 6.223371969669989e-14;
    return QuarterTurns(r, u32(i32(j) & 3));
}

// 2/pi in binary, 32 bits a word from the point on: enough for float32's largest exponent.
const TWO_OVER_PI_BITS = array<u32, 8>(
    0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u,
    0xDB629599u, 0x3C439041u, 0xFE5163ABu, 0xDEBBC561u,
);

// Bits n..n+31 of a little-endian multi-word integer (zero past its end).
fn bits_at(q: ptr<function, array<u32, 8>>, n: u32) -> u32 {
    let w = n / 32u;
    let b = n % 32u;
    // WGSL takes shift amounts modulo 32: a zero shift must not shift the next word in.
    return ((*q)[w] >> b) | select((*q)[w + 1u] << (32u - b), 0u, b == 0u);
}

// |x| = M 2^e with a 24-bit M; x 2/pi mod 4 = M 2^e (2/pi) keeps only the bits of 2/pi from
// about 2^-(e - 2) on (the earlier ones make multiples of 4), so four words of them from there,
// times M exactly (160 bits), give the quadrant and 64 bits of the fraction. No float32 input
// lies closer than 2^-30 or so to a multiple of pi/2 (relative to 1), so those 64 bits keep
// at least 24 significant ones.
fn reduce_quarter_turns_large(x: f32) -> QuarterTurns {
    let bits = bitcast<u32>(x);
    let biased = (bits >> 23u) & 0xffu;
    if (biased == 0xffu) { return QuarterTurns(bitcast<f32>(0x7fc00000u), 0u); }
    let m = (bits & 0x7fffffu) | 0x800000u;
    let e = i32(biased) - 150;
    let first = u32(max(e - 2, 0)) / 32u;
    var table = TWO_OVER_PI_BITS;
    var q = array<u32, 8>(0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    // q = m * (table[first..first + 4] as one 128-bit integer, the first word highest).
    var carry = 0u;
    for (var k = 0u; k < 4u; k = k + 1u) {
        let p = mul_wide(m, table[first + 3u - k]);
        let low = p.x + carry;
        q[k] = low;
        carry = p.y + u32(low < p.x);
    }
    q[4] = carry;
    // q * 2^(e - 32 (first + 4)) is x 2/pi modulo 4: the point sits n bits up in q, with
    // n between 95 (first = (e - 2) / 32 makes 32 first + 128 - e at least 95) and 139.
    let n = u32(32 * i32(first) + 128 - e);
    var hi = bits_at(&q, n - 32u);
    var lo = bits_at(&q, n - 64u);
    var quadrant = bits_at(&q, n) & 3u;
    var negative = false;
    if (hi >= 0x80000000u) {
        // Past one half: the nearest quarter turn is the next one, and the rest negative.
        quadrant = (quadrant + 1u) & 3u;
        negative = true;
        lo = ~lo + 1u;
        hi = ~hi + u32(lo == 0u);
    }
    // Normalise the 64-bit fraction so that its top bit is set, then scale back.
    var shift = 0u;
    if (hi == 0u) {
        hi = lo;
        lo = 0u;
        shift = 32u;
    }
    let z = countLeadingZeros(hi);
    if (z > 0u) {
        hi = (hi << z) | (lo >> (32u - z));
        lo = lo << z;
    }
    let top = f32(hi & 0xffffff00u);
    let rest = f32(hi & 0xffu) + f32(lo) * 2.3283064365386963e-10;
    // (top + rest) pi/2 with pi/2 in two parts: the rounding of the leading product is all.
    var r = top * 1.5707963705062866 + (rest * 1.5707963705062866 + top * -4.371139000186243e-08);
    r = ldexp(r, -i32(32u + shift + z));
    if (negative) { r = -r; }
    if (x < 0.0) { return QuarterTurns(-r, (4u - quadrant) & 3u); }
    return QuarterTurns(r, quadrant);
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
