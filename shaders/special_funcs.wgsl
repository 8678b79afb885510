// tf.math's special functions in float32 (the `special_*` expressions of ops/unary.rs and
// gpu/kernels/elementwise.rs' binary table), with the domain rules of the float64 CPU functions
// (src/ops/special_fns.rs): NaN, infinities, poles and negative arguments give the same values.
// Only kernels whose expression names a `special_` function include this file.
//
// The polynomials are Chebyshev fits (4000 Chebyshev nodes) to the float64 CPU functions,
// written as monomials in u in [-1, 1] and evaluated by Horner's rule; each comment gives the
// fit's largest error including float32 evaluation (relative unless it says absolute).

fn special_inf() -> f32 {
    return bitcast<f32>(0x7f800000u);
}

fn special_is_zero(x: f32) -> bool {
    // On the bits: GPUs that flush subnormals would call a subnormal x zero.
    return (bitcast<u32>(x) & 0x7fffffffu) == 0u;
}

// x * log(y), x * log1p(y) and x / y, 0 where x is 0 (unless y is NaN).
fn special_xlogy(x: f32, y: f32) -> f32 {
    if (special_is_zero(x) && !is_nan(y)) { return 0.0; }
    return x * log_f(y);
}

fn special_xlog1py(x: f32, y: f32) -> f32 {
    if (special_is_zero(x) && !is_nan(y)) { return 0.0; }
    // log1p(y) rounds to y here, and log1p_f's y / (2 + y) would lose a subnormal y's bits.
    if (abs(y) < 1e-9) { return x * y; }
    return x * log1p_f(y);
}

fn special_xdivy(x: f32, y: f32) -> f32 {
    if (special_is_zero(x) && !is_nan(y)) { return 0.0; }
    return x / y;
}

// The float32 neighbour of x towards y, on the bits (exact, subnormals included).
fn special_nextafter(x: f32, y: f32) -> f32 {
    if (is_nan(x) || is_nan(y)) { return nan(); }
    let ux = bitcast<u32>(x);
    let uy = bitcast<u32>(y);
    let ax = ux & 0x7fffffffu;
    let ay = uy & 0x7fffffffu;
    if (ux == uy || (ax == 0u && ay == 0u)) { return y; }
    if (ax == 0u) { return bitcast<f32>((uy & 0x80000000u) | 1u); }
    if (ax > ay || ((ux ^ uy) & 0x80000000u) != 0u) { return bitcast<f32>(ux - 1u); }
    return bitcast<f32>(ux + 1u);
}

// lgamma(2 + t) / t for |t| <= 1/2: 1.5e-07
fn special_lgamma_q(t: f32) -> f32 {
    let u = 2.0 * t;
    var p = -2.796734720e-09;
    p = p * u + 1.195890242e-08;
    p = p * u - 4.316961158e-08;
    p = p * u + 1.917293382e-07;
    p = p * u - 8.721872654e-07;
    p = p * u + 3.983335588e-06;
    p = p * u - 1.863660687e-05;
    p = p * u + 9.032799292e-05;
    p = p * u - 4.615969683e-04;
    p = p * u + 2.572601111e-03;
    p = p * u - 1.683807526e-02;
    p = p * u + 1.612335167e-01;
    p = p * u + 4.227843351e-01;
    return p;
}

// lgamma for x >= 1/2: the series around 1 and 2 (t = x - 1 and x - 2 are exact), the
// recurrence down to [1.5, 2.5) below 8, Stirling's series from 8.
fn special_lgamma_pos(x: f32) -> f32 {
    if (x < 1.5) {
        let t = x - 1.0;
        return t * special_lgamma_q(t) - log1p_f(t);
    }
    if (x < 2.5) {
        let t = x - 2.0;
        return t * special_lgamma_q(t);
    }
    if (x < 8.0) {
        var y = x;
        var prod = 1.0;
        while (y >= 2.5) {
            y = y - 1.0;
            prod = prod * y;
        }
        let t = y - 2.0;
        return log_f(prod) + t * special_lgamma_q(t);
    }
    let z = 1.0 / (x * x);
    let s = (1.0 / 12.0 - z * (1.0 / 360.0 - z / 1260.0)) / x;
    // (x - 1/2) log x - x + log(2 pi) / 2, without x log x overflowing first.
    return (x - 0.5) * (log_f(x) - 1.0) + (0.41893853320467274 + s);
}

// log|Gamma(x)|: +inf at 0, the negative integers and +-inf.
fn special_lgamma(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    if (is_inf(x)) { return special_inf(); }
    let a = abs(x);
    if (a < 0.5) {
        if (special_is_zero(x)) { return special_inf(); }
        // Gamma(x) = Gamma(x + 2) / (x (x + 1)), with t = x exactly.
        return x * special_lgamma_q(x) - log1p_f(x) - log_f(a);
    }
    if (x > 0.0) { return special_lgamma_pos(x); }
    let f = floor(x);
    if (x == f) { return special_inf(); }
    // Reflection: |Gamma(x)| = pi / (|sin(pi x)| Gamma(1 - x)); r = x - floor(x) is exact.
    let r = x - f;
    let s = sin_f(3.14159265358979 * select(r, 1.0 - r, r > 0.5));
    return log_f(3.14159265358979 / s) - special_lgamma_pos(1.0 - x);
}

// digamma(x) / (x - x0) on [1, 2], x0 = 1.46163214496836 its positive root: 7.8e-08
fn special_digamma_root(x: f32) -> f32 {
    let u = 2.0 * x - 3.0;
    var p = 1.290186195e-06;
    p = p * u - 3.761454768e-06;
    p = p * u + 7.099045098e-06;
    p = p * u - 2.166338962e-05;
    p = p * u + 7.040581616e-05;
    p = p * u - 2.117419904e-04;
    p = p * u + 6.367246792e-04;
    p = p * u - 1.934770214e-03;
    p = p * u + 5.936822948e-03;
    p = p * u - 1.855065301e-02;
    p = p * u + 6.013561931e-02;
    p = p * u - 2.118137093e-01;
    p = p * u + 9.510558760e-01;
    return p;
}

// digamma for x > 0: one step up from (0, 1), the root's factored form on [1, 2], else the
// recurrence up to 6 and the asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k).
fn special_digamma_pos(x0: f32) -> f32 {
    var x = x0;
    var shift = 0.0;
    if (x < 1.0) {
        shift = -1.0 / x;
        x = x + 1.0;
    }
    if (x <= 2.0) {
        // x - 1.4616321 is exact (Sterbenz); the root's low part follows.
        return shift + ((x - 1.4616321325302124) - 1.2438149843418955e-8) * special_digamma_root(x);
    }
    while (x < 6.0) {
        shift = shift - 1.0 / x;
        x = x + 1.0;
    }
    let z = 1.0 / (x * x);
    let tail = z * (1.0 / 12.0 - z * (1.0 / 120.0 - z * (1.0 / 252.0 - z * (1.0 / 240.0
        - z * (1.0 / 132.0)))));
    return shift + (log_f(x) - 0.5 / x - tail);
}

// The digamma function: NaN at 0, the negative integers and -inf.
fn special_digamma(x: f32) -> f32 {
    if (is_nan(x) || x == -special_inf()) { return nan(); }
    if (x == special_inf()) { return x; }
    if (x > 0.0) { return special_digamma_pos(x); }
    let f = floor(x);
    if (x == f) { return nan(); }
    // Reflection psi(x) = psi(1 - x) - pi / tan(pi x); tan has period pi, so x is reduced to
    // r = x - round(x) in [-1/2, 1/2] (exact): pi r then carries no rounding near the poles.
    let r = x - round(x);
    return special_digamma_pos(1.0 - x) - 3.14159265358979 / tan_f(3.14159265358979 * r);
}

// P(t) = log(erfcx(x) / t) with t = 2 / (2 + x), x >= 0: 1.8e-07 absolute
fn special_erfc_p(t: f32) -> f32 {
    let u = 2.0 * t - 1.0;
    var p = 1.337151311e-05;
    p = p * u - 8.728381449e-05;
    p = p * u - 3.211379994e-05;
    p = p * u + 5.737663837e-04;
    p = p * u - 1.827821126e-04;
    p = p * u - 2.288765250e-03;
    p = p * u + 1.770666105e-03;
    p = p * u + 8.808825374e-03;
    p = p * u - 9.874534915e-03;
    p = p * u - 4.689364056e-02;
    p = p * u + 4.734341752e-02;
    p = p * u + 6.726431548e-01;
    p = p * u - 6.717940852e-01;
    return p;
}

// erfc(x) = t exp(-x^2 + P(t)) for x >= 0. x^2 is split as xh^2 (exact, xh has 12 bits) plus
// (x - xh)(x + xh), and the power of two of exp(-xh^2) is applied last, so results down to the
// subnormals are rounded once.
fn special_erfc_pos(x: f32) -> f32 {
    if (x > 10.1) { return 0.0; }
    let t = 2.0 / (2.0 + x);
    let xh = bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
    let a = -xh * xh;
    let n = round(a * 1.44269504088896341);
    let r = (a - n * LN2_HI) - n * LN2_LO;
    let b = -(x - xh) * (x + xh) + special_erfc_p(t);
    let y = t * exp_f(r + b);
    let k = i32(n);
    return ldexp(ldexp(y, k / 2), k - k / 2);
}

fn special_erfc(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    if (x < 0.0) { return 2.0 - special_erfc_pos(-x); }
    return special_erfc_pos(x);
}

// erfinv(x) / x as a function of w = -log((1 - x)(1 + x)), w up to 104 (ndtri's smallest p):
// in w below 5 (1.3e-07), in s = sqrt(w) on [sqrt 5, 4.5] (2.0e-07) and
// [4.5, 10.3] (1.8e-07).
fn special_erfinv_g(w: f32) -> f32 {
    if (w < 5.0) {
        let u = 0.4 * w - 1.0;
        var p = -3.333980931e-05;
        p = p * u + 3.553137894e-05;
        p = p * u + 2.840751529e-04;
        p = p * u - 8.455459388e-04;
        p = p * u - 4.843499507e-04;
        p = p * u + 8.529176355e-03;
        p = p * u - 1.957419401e-02;
        p = p * u - 2.610868599e-02;
        p = p * u + 6.166007235e-01;
        p = p * u + 1.501409360e+00;
        return p;
    }
    let s = sqrt(w);
    if (s < 4.5) {
        let u = (2.0 * s - 6.73606797749979) * 0.4417093755737567;
        var p = 1.599373587e-04;
        p = p * u - 6.183893620e-05;
        p = p * u - 8.037423429e-04;
        p = p * u + 1.637924913e-03;
        p = p * u - 2.040954693e-03;
        p = p * u + 2.674303295e-03;
        p = p * u - 4.038512379e-03;
        p = p * u + 5.423807331e-03;
        p = p * u + 1.139193784e+00;
        p = p * u + 3.202609261e+00;
        return p;
    }
    let u = (2.0 * s - 14.8) * 0.1724137931034483;
    var p = 3.999959449e-05;
    p = p * u - 8.810772153e-05;
    p = p * u + 1.023126553e-04;
    p = p * u - 1.829679203e-04;
    p = p * u + 2.502523493e-04;
    p = p * u + 3.275384299e-04;
    p = p * u - 4.207589172e-03;
    p = p * u + 2.923751218e+00;
    p = p * u + 7.272376431e+00;
    return p;
}

// The inverse error function: +-inf at +-1, NaN outside [-1, 1].
fn special_erfinv(x: f32) -> f32 {
    if (is_nan(x) || abs(x) > 1.0) { return nan(); }
    if (abs(x) == 1.0) { return x * special_inf(); }
    return x * special_erfinv_g(-log_f((1.0 - x) * (1.0 + x)));
}

// The inverse normal CDF, -sqrt 2 erfcinv(2p): q = 2 min(p, 1 - p) is exact and w is taken from
// q itself (no 1 - q to round), so the tails keep their digits down to the subnormals.
fn special_ndtri(p: f32) -> f32 {
    if (is_nan(p) || p < 0.0 || p > 1.0) { return nan(); }
    if (p == 0.0) { return -special_inf(); }
    if (p == 1.0) { return special_inf(); }
    let q = 2.0 * min(p, 1.0 - p);
    let v = 1.4142135623730951 * (1.0 - q) * special_erfinv_g(-log_f(q * (2.0 - q)));
    return select(-v, v, p > 0.5);
}

// I0(x) and I1(x) / x for |x| <= 8 by their power series in y = (x / 8)^2 (positive terms).
fn special_i0_series(y: f32) -> f32 {
    let u = y;
    var p = 7.410232127e-15;
    p = p * u + 2.042445230e-13;
    p = p * u + 5.106113075e-12;
    p = p * u + 1.152066763e-10;
    p = p * u + 2.332935194e-09;
    p = p * u + 4.213864194e-08;
    p = p * u + 6.742182711e-07;
    p = p * u + 9.481194437e-06;
    p = p * u + 1.161446319e-04;
    p = p * u + 1.226777674e-03;
    p = p * u + 1.104099907e-02;
    p = p * u + 8.349755544e-02;
    p = p * u + 5.218597215e-01;
    p = p * u + 2.641914840e+00;
    p = p * u + 1.056765936e+01;
    p = p * u + 3.236345679e+01;
    p = p * u + 7.281777778e+01;
    p = p * u + 1.137777778e+02;
    p = p * u + 1.137777778e+02;
    p = p * u + 6.400000000e+01;
    p = p * u + 1.600000000e+01;
    p = p * u + 1.000000000e+00;
    return p;
}

fn special_i1_series(y: f32) -> f32 {
    let u = y;
    var p = 1.684143665e-16;
    p = p * u + 4.862964833e-15;
    p = p * u + 1.276528269e-13;
    p = p * u + 3.031754638e-12;
    p = p * u + 6.480375539e-11;
    p = p * u + 1.239371822e-09;
    p = p * u + 2.106932097e-08;
    p = p * u + 3.160398146e-07;
    p = p * u + 4.148022566e-06;
    p = p * u + 4.718375669e-05;
    p = p * u + 4.600416278e-04;
    p = p * u + 3.795343429e-03;
    p = p * u + 2.609298607e-02;
    p = p * u + 1.467730467e-01;
    p = p * u + 6.604787100e-01;
    p = p * u + 2.311675485e+00;
    p = p * u + 6.068148148e+00;
    p = p * u + 1.137777778e+01;
    p = p * u + 1.422222222e+01;
    p = p * u + 1.066666667e+01;
    p = p * u + 4.000000000e+00;
    p = p * u + 5.000000000e-01;
    return p;
}

// sqrt(x) e^-x I0(x) and sqrt(x) e^-x I1(x) for x > 8, in z = 8 / x: 6.3e-08, 5.0e-08.
fn special_i0e_big(x: f32) -> f32 {
    let u = 16.0 / x - 1.0;
    var p = 1.521811524e-09;
    p = p * u + 3.161985527e-08;
    p = p * u + 1.056358016e-07;
    p = p * u + 3.073322917e-07;
    p = p * u + 1.478017999e-06;
    p = p * u + 1.113981566e-05;
    p = p * u + 1.362167838e-04;
    p = p * u + 3.360552242e-03;
    p = p * u + 4.021765094e-01;
    return p / sqrt(x);
}

fn special_i1e_big(x: f32) -> f32 {
    let u = 16.0 / x - 1.0;
    var p = -2.428793584e-09;
    p = p * u - 3.577435825e-08;
    p = p * u - 1.178745851e-07;
    p = p * u - 3.584298885e-07;
    p = p * u - 1.828726724e-06;
    p = p * u - 1.503526803e-05;
    p = p * u - 2.192365182e-04;
    p = p * u - 9.749577458e-03;
    p = p * u + 3.893984590e-01;
    return p / sqrt(x);
}

fn special_bessel_i0e(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    let a = abs(x);
    if (a <= 8.0) {
        let h = 0.125 * a;
        return special_i0_series(h * h) * exp_f(-a);
    }
    if (is_inf(x)) { return 0.0; }
    return special_i0e_big(a);
}

fn special_bessel_i1e(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    let a = abs(x);
    if (a <= 8.0) {
        let h = 0.125 * a;
        return x * special_i1_series(h * h) * exp_f(-a);
    }
    let v = select(special_i1e_big(a), 0.0, is_inf(x));
    return select(v, -v, x < 0.0);
}

// I0 and I1 are NaN at +-inf (their scaled forms are 0 there); e^|x| is applied as two halves
// so it does not overflow before the product does.
fn special_bessel_i0(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) { return nan(); }
    let a = abs(x);
    if (a <= 8.0) {
        let h = 0.125 * a;
        return special_i0_series(h * h);
    }
    let e = exp_f(0.5 * a);
    return special_i0e_big(a) * e * e;
}

fn special_bessel_i1(x: f32) -> f32 {
    if (is_nan(x) || is_inf(x)) { return nan(); }
    let a = abs(x);
    if (a <= 8.0) {
        let h = 0.125 * a;
        return x * special_i1_series(h * h);
    }
    let e = exp_f(0.5 * a);
    let v = special_i1e_big(a) * e * e;
    return select(v, -v, x < 0.0);
}

// Dawson's integral, odd: D(x) / x in y = x^2 up to x = 2 (2.0e-07), D itself on [2, 3]
// (8.4e-08), 2 x D(x) in z = 1 / x^2 from 3 (9.1e-08).
fn special_dawsn(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    let a = abs(x);
    if (a <= 2.0) {
        let u = 0.5 * (x * x) - 1.0;
        var p = 1.231093021e-05;
        p = p * u - 6.573281186e-05;
        p = p * u + 2.878953507e-04;
        p = p * u - 1.241008497e-03;
        p = p * u + 4.766381232e-03;
        p = p * u - 1.589374124e-02;
        p = p * u + 4.529458495e-02;
        p = p * u - 1.074793024e-01;
        p = p * u + 2.049798875e-01;
        p = p * u - 2.999851157e-01;
        p = p * u + 3.199940371e-01;
        return x * p;
    }
    if (a <= 3.0) {
        let u = 2.0 * a - 5.0;
        var p = 3.180590365e-07;
        p = p * u - 1.123268971e-06;
        p = p * u - 1.567658425e-06;
        p = p * u + 2.700496773e-05;
        p = p * u - 1.091713211e-04;
        p = p * u + 1.686067278e-04;
        p = p * u + 4.667075896e-04;
        p = p * u - 4.019861903e-03;
        p = p * u + 1.636570093e-02;
        p = p * u - 5.770930566e-02;
        p = p * u + 2.230837222e-01;
        return select(p, -p, x < 0.0);
    }
    // 1 / (x x) underflows to 0 for huge x: D is then 1 / (2x) (0 at infinity).
    let u = 18.0 / (a * a) - 1.0;
    var p = 9.515526715e-07;
    p = p * u + 3.494724010e-05;
    p = p * u + 1.619392867e-05;
    p = p * u - 1.373495483e-04;
    p = p * u - 1.487732327e-04;
    p = p * u + 1.284628679e-04;
    p = p * u + 4.658309446e-04;
    p = p * u + 1.031971528e-03;
    p = p * u + 3.978583940e-03;
    p = p * u + 3.375507587e-02;
    p = p * u + 1.030500306e+00;
    return 0.5 * p / x;
}

// Li2(w) / w on [-1, 1/2] (7.4e-08).
fn special_li2_over(w: f32) -> f32 {
    let u = (4.0 * w + 1.0) / 3.0;
    var p = 5.322193156e-06;
    p = p * u + 9.015962306e-06;
    p = p * u - 5.895044454e-06;
    p = p * u - 7.290968722e-06;
    p = p * u + 2.687137816e-05;
    p = p * u + 4.582073944e-05;
    p = p * u + 5.153533748e-05;
    p = p * u + 1.090940736e-04;
    p = p * u + 2.444979911e-04;
    p = p * u + 5.093009021e-04;
    p = p * u + 1.092208910e-03;
    p = p * u + 2.451088381e-03;
    p = p * u + 5.799368002e-03;
    p = p * u + 1.480902489e-02;
    p = p * u + 4.265894364e-02;
    p = p * u + 1.530809557e-01;
    p = p * u + 9.436011908e-01;
    return p;
}

// Spence's function Li2(1 - x): NaN for x < 0 and +inf. Each branch is a reflection of Li2
// whose argument is exact or well conditioned in x (never 1 - x rounded where it matters).
fn special_spence(x: f32) -> f32 {
    if (is_nan(x) || x < 0.0 || is_inf(x)) { return nan(); }
    let pi2_6 = 1.6449340668482264;
    if (special_is_zero(x)) { return pi2_6; }
    if (x < 0.5) {
        // Li2(z) = pi^2/6 - ln z ln(1 - z) - Li2(1 - z), with 1 - z = x.
        return pi2_6 - log1p_f(-x) * log_f(x) - x * special_li2_over(x);
    }
    if (x <= 1.5) {
        let w = 1.0 - x;
        return w * special_li2_over(w);
    }
    if (x <= 2.0) {
        // Li2(z) = -Li2(z / (z - 1)) - ln(1 - z)^2 / 2, z / (z - 1) = (x - 1) / x.
        let w = (x - 1.0) / x;
        let l = log_f(x);
        return -w * special_li2_over(w) - 0.5 * l * l;
    }
    // Li2(z) = -pi^2/6 - ln(-z)^2 / 2 - Li2(1 / z) for z < -1, -z = x - 1.
    let l = log_f(x - 1.0);
    let w = 1.0 / (1.0 - x);
    return -pi2_6 - 0.5 * l * l - w * special_li2_over(w);
}

// e^-x x Ei(x) in z = 1 / x for 6 <= x <= 100 (1.2e-07).
fn special_expint_h(x: f32) -> f32 {
    let u = (2.0 / x - 0.17666666666666667) * 6.382978723404255;
    var p = 7.195021312e-04;
    p = p * u - 1.083518199e-04;
    p = p * u - 3.410689085e-03;
    p = p * u + 1.085304987e-03;
    p = p * u + 7.034582440e-03;
    p = p * u - 3.990078663e-03;
    p = p * u - 8.569079536e-03;
    p = p * u + 8.542832076e-03;
    p = p * u + 8.217983673e-03;
    p = p * u - 1.358126992e-02;
    p = p * u - 1.362775928e-02;
    p = p * u + 1.229821661e-02;
    p = p * u + 4.307428174e-02;
    p = p * u + 1.300921654e-01;
    p = p * u + 1.111106245e+00;
    return p;
}

// The exponential integral Ei(x): NaN for x < 0 and at +inf, -inf at 0. Below 6:
// gamma + ln x + x sum x^(k-1) / (k k!) (positive terms); above, e^x / x times the fit.
fn special_expint(x: f32) -> f32 {
    if (is_nan(x) || x < 0.0 || is_inf(x)) { return nan(); }
    if (special_is_zero(x)) { return -special_inf(); }
    if (x <= 6.0) {
        let u = x;
        var p = 3.899987202e-33;
        p = p * u + 1.171389013e-31;
        p = p * u + 3.401366616e-30;
        p = p * u + 9.536908705e-29;
        p = p * u + 2.578780114e-27;
        p = p * u + 6.715573213e-26;
        p = p * u + 1.681813118e-24;
        p = p * u + 4.043996087e-23;
        p = p * u + 9.320448125e-22;
        p = p * u + 2.055158812e-20;
        p = p * u + 4.326650130e-19;
        p = p * u + 8.677337205e-18;
        p = p * u + 1.653798385e-16;
        p = p * u + 2.987173333e-15;
        p = p * u + 5.098109155e-14;
        p = p * u + 8.193389713e-13;
        p = p * u + 1.235311064e-11;
        p = p * u + 1.739729749e-10;
        p = p * u + 2.277464399e-09;
        p = p * u + 2.755731922e-08;
        p = p * u + 3.061924358e-07;
        p = p * u + 3.100198413e-06;
        p = p * u + 2.834467120e-05;
        p = p * u + 2.314814815e-04;
        p = p * u + 1.666666667e-03;
        p = p * u + 1.041666667e-02;
        p = p * u + 5.555555556e-02;
        p = p * u + 2.500000000e-01;
        p = p * u + 1.000000000e+00;
        return (0.5772156649015329 + log_f(x)) + x * p;
    }
    if (x > 100.0) { return special_inf(); }
    // e^x as e * e overflows float32 above 88.7 where Ei(x) does not (Ei(88.8) = 4e36), and a
    // driver may multiply e * e first (NVIDIA's did, on an H200): e's exponent is applied last.
    let e = exp_f(0.5 * x);
    let parts = frexp(e);
    return ldexp(special_expint_h(x) / x * parts.fract * e, parts.exp);
}

// K0(x) + ln(x) I0(x) and x K1(x) - x ln(x) I1(x), entire in y = x^2, for 0 < x <= 2
// (7.3e-07, 9.7e-07).
fn special_k0_small(x: f32) -> f32 {
    let y = x * x;
    let u = 0.5 * y - 1.0;
    var p = 7.202558552e-12;
    p = p * u + 8.892957791e-10;
    p = p * u + 8.336544993e-08;
    p = p * u + 5.688655759e-06;
    p = p * u + 2.658589288e-04;
    p = p * u + 7.776466470e-03;
    p = p * u + 1.227856201e-01;
    p = p * u + 7.812430851e-01;
    p = p * u + 7.819051944e-01;
    let h = 0.125 * x;
    return p - log_f(x) * special_i0_series(h * h);
}

fn special_k1_small(x: f32) -> f32 {
    let y = x * x;
    let u = 0.5 * y - 1.0;
    var p = -1.136731589e-10;
    p = p * u - 1.223852548e-08;
    p = p * u - 9.804716065e-07;
    p = p * u - 5.552936335e-05;
    p = p * u - 2.063937303e-03;
    p = p * u - 4.485710514e-02;
    p = p * u - 4.642114109e-01;
    p = p * u - 1.417766923e+00;
    p = p * u + 3.596759535e-03;
    let h = 0.125 * x;
    return (p + x * log_f(x) * (x * special_i1_series(h * h))) / x;
}

// sqrt(x) e^x K0(x) and sqrt(x) e^x K1(x) for x > 2, in z = 2 / x (9.1e-08, 6.8e-08).
fn special_k0e_big(x: f32) -> f32 {
    let u = 4.0 / x - 1.0;
    var p = 3.800967618e-08;
    p = p * u - 8.148461611e-08;
    p = p * u + 6.913364832e-08;
    p = p * u - 2.104861164e-07;
    p = p * u + 7.678523028e-07;
    p = p * u - 2.229016401e-06;
    p = p * u + 6.993002391e-06;
    p = p * u - 2.472363837e-05;
    p = p * u + 9.956214377e-05;
    p = p * u - 4.797705495e-04;
    p = p * u + 3.032891708e-03;
    p = p * u - 3.107146177e-02;
    p = p * u + 1.218595339e+00;
    return p / sqrt(x);
}

fn special_k1e_big(x: f32) -> f32 {
    let u = 4.0 / x - 1.0;
    var p = -4.362185686e-08;
    p = p * u + 9.439564026e-08;
    p = p * u - 8.368063562e-08;
    p = p * u + 2.562647525e-07;
    p = p * u - 9.351158537e-07;
    p = p * u + 2.773213141e-06;
    p = p * u - 8.950740305e-06;
    p = p * u + 3.283067672e-05;
    p = p * u - 1.395920266e-04;
    p = p * u + 7.357258564e-04;
    p = p * u - 5.566729764e-03;
    p = p * u + 1.033497377e-01;
    p = p * u + 1.363151890e+00;
    return p / sqrt(x);
}

// The modified Bessel functions of the second kind: +inf for x <= 0 (TensorFlow's domain),
// 0 at +inf. e^-x is applied as two halves so results in the subnormals round once.
fn special_bessel_k(x: f32, nu: u32, scaled: bool) -> f32 {
    if (is_nan(x)) { return x; }
    if (x <= 0.0 || special_is_zero(x)) { return special_inf(); }
    if (is_inf(x)) { return 0.0; }
    if (x <= 2.0) {
        let k = select(special_k0_small(x), special_k1_small(x), nu == 1u);
        return select(k, k * exp_f(x), scaled);
    }
    let ke = select(special_k0e_big(x), special_k1e_big(x), nu == 1u);
    if (scaled) { return ke; }
    let e = exp_f(-0.5 * x);
    return ke * e * e;
}

// The Bessel functions J0, J1, Y0 and Y1 by Cephes' single precision algorithms (j0f, j1f,
// y0f, y1f, as Eigen's float32 kernels): polynomials in x^2 with the zeros factored out up to
// 2, above it modulus and phase in q = 1 / x, M(q) cos(x + P(q)). The phase is added as
// cos(x) cos(p) - sin(x) sin(p) so that x itself is reduced exactly (precise_math's reduction,
// exact for |x| up to 2^24 pi / 2): the error is then 2e-7 of the modulus, absolute.
fn special_j0_small(z: f32) -> f32 {
    var p = -6.068350350393235e-08;
    p = p * z + 6.388945720783375e-06;
    p = p * z - 3.969646342510940e-04;
    p = p * z + 1.332913422519003e-02;
    p = p * z - 1.729150680240724e-01;
    return (z - 5.78318596294678452118) * p;
}

fn special_j1_small(x: f32) -> f32 {
    let z = x * x;
    var p = -4.878788132172128e-09;
    p = p * z + 6.009061827883699e-07;
    p = p * z - 4.541343896997497e-05;
    p = p * z + 1.937383947804541e-03;
    p = p * z - 3.405537384615824e-02;
    return (z - 14.6819706421238932572) * x * p;
}

// The modulus M(q) sqrt(q) and the phase q P(q^2) of order 0 (nu = 0) or 1, q = 1 / x.
struct SpecialBesselWave {
    modulus: f32,
    phase: f32,
}

fn special_bessel_wave(x: f32, nu: u32) -> SpecialBesselWave {
    let q = 1.0 / x;
    let w = q * q;
    var m: f32;
    var p: f32;
    if (nu == 0u) {
        m = -6.838999669318810e-02;
        m = m * q + 1.864949361379502e-01;
        m = m * q - 2.145007480346739e-01;
        m = m * q + 1.197549369473540e-01;
        m = m * q - 3.560281861530129e-03;
        m = m * q - 4.969382655296620e-02;
        m = m * q - 3.355424622293709e-06;
        m = m * q + 7.978845717621440e-01;
        p = 3.242077816988247e+01;
        p = p * w - 3.630592630518434e+01;
        p = p * w + 1.756221482109099e+01;
        p = p * w - 4.974978466280903e+00;
        p = p * w + 1.001973420681837e+00;
        p = p * w - 1.939906941791308e-01;
        p = p * w + 6.490598792654666e-02;
        p = p * w - 1.249992184872738e-01;
    } else {
        m = 6.913942741265801e-02;
        m = m * q - 2.284801500053359e-01;
        m = m * q + 3.138238455499697e-01;
        m = m * q - 2.102302420403875e-01;
        m = m * q + 5.435364690523026e-03;
        m = m * q + 1.493389585089498e-01;
        m = m * q + 4.976029650847191e-06;
        m = m * q + 7.978845453073848e-01;
        p = -4.497014141919556e+01;
        p = p * w + 5.073465654089319e+01;
        p = p * w - 2.485774108720340e+01;
        p = p * w + 7.222973196770240e+00;
        p = p * w - 1.544842782180211e+00;
        p = p * w + 3.503787691653334e-01;
        p = p * w - 1.637986776941202e-01;
        p = p * w + 3.749989509080821e-01;
    }
    // 1 / sqrt(x) rather than sqrt(q): q is subnormal for the largest x.
    let quarter = select(0.7853981633974483, 2.356194490192345, nu == 1u);
    return SpecialBesselWave(m / sqrt(x), q * p - quarter);
}

// cos(x + p) (sine = false) or sin(x + p) for x > 2 and a small phase p.
fn special_bessel_trig(x: f32, p: f32, sine: bool) -> f32 {
    let cx = cos_f(x);
    let sx = sin_f(x);
    let cp = cos_f(p);
    let sp = sin_f(p);
    return select(cx * cp - sx * sp, sx * cp + cx * sp, sine);
}

// J0 (nu = 0) and J1 (odd) of the first kind: NaN at +-inf as TensorFlow.
fn special_bessel_j(x: f32, nu: u32) -> f32 {
    if (is_nan(x) || is_inf(x)) { return nan(); }
    let a = abs(x);
    if (a <= 2.0) {
        if (nu == 0u) {
            let z = a * a;
            return select(special_j0_small(z), 1.0 - 0.25 * z, a < 1.0e-3);
        }
        return special_j1_small(x);
    }
    let wave = special_bessel_wave(a, nu);
    let v = wave.modulus * special_bessel_trig(a, wave.phase, false);
    return select(v, -v, nu == 1u && x < 0.0);
}

// Y0 and Y1 of the second kind: -inf for x <= 0 (TensorFlow's domain), NaN at +inf.
fn special_bessel_y(x: f32, nu: u32) -> f32 {
    if (is_nan(x) || x == special_inf()) { return nan(); }
    // The CPU's (and TensorFlow's) float32 y1 is NaN at +-0, y0 -inf.
    if (special_is_zero(x)) { return select(-special_inf(), nan(), nu == 1u); }
    if (x <= 0.0) { return -special_inf(); }
    if (x <= 2.0) {
        let z = x * x;
        if (nu == 0u) {
            var p = 9.454583683980369e-08;
            p = p * z - 9.413212653797057e-06;
            p = p * z + 5.344486707214273e-04;
            p = p * z - 1.584289289821316e-02;
            p = p * z + 1.707584643733568e-01;
            let j0 = select(special_j0_small(z), 1.0 - 0.25 * z, x < 1.0e-3);
            return (z - 0.43221455686510834878) * p + 0.6366197723675813 * log_f(x) * j0;
        }
        var p = 8.061978323326852e-09;
        p = p * z - 9.496460629917016e-07;
        p = p * z + 6.719543806674249e-05;
        p = p * z - 2.641785726447862e-03;
        p = p * z + 4.202369946500099e-02;
        let w = (z - 4.66539330185668857532) * x * p;
        // -2 / (pi x) apart, so that it stays finite down to the subnormals.
        return w + 0.6366197723675813 * special_j1_small(x) * log_f(x) - 0.6366197723675813 / x;
    }
    let wave = special_bessel_wave(x, nu);
    return wave.modulus * special_bessel_trig(x, wave.phase, true);
}

// x^2 modulo 4 for x >= 1 (so that pi/2 x^2 is a phase in [0, 2 pi)), on the integers: with
// x = M 2^e (M of 24 bits), M^2 is formed exactly in two u32 words and its bits below
// 2^(2 - 2e) are kept; only their conversion rounds. (A float32 split of x into halves is
// reassembled into x * x by shader compilers that reassociate, e.g. Mesa's.)
fn special_square_mod4(x: f32) -> f32 {
    let bits = bitcast<u32>(x);
    let e = i32((bits >> 23u) & 0xffu) - 150;
    if (e >= 1) { return 0.0; }
    let m = (bits & 0x7fffffu) | 0x800000u;
    let hi16 = m >> 16u;
    let lo16 = m & 0xffffu;
    let mid = 2u * hi16 * lo16;
    let sq = lo16 * lo16;
    var lo = sq + (mid << 16u);
    var hi = hi16 * hi16 + (mid >> 16u) + select(0u, 1u, lo < sq);
    let k = u32(2 - 2 * e);
    if (k >= 32u) {
        hi = hi & ((1u << (k - 32u)) - 1u);
    } else {
        hi = 0u;
        lo = lo & ((1u << k) - 1u);
    }
    return ldexp(f32(hi) * 4294967296.0 + f32(lo), 2 * e);
}

// The Fresnel integrals C(x) (sine = false) and S(x), odd, by Cephes' single precision
// fresnlf (as Eigen): polynomials in x^4 below x^2 = 2.5625, above it
// 1/2 + (f sin - g cos) / (pi x) and 1/2 - (f cos + g sin) / (pi x) with the auxiliary
// functions f, g in 1 / (pi x^2) and the phase pi/2 x^2 reduced exactly. Past 1e10 they are
// 1/2 to float32 (Cephes stops at 36974, 1e-5 early).
fn special_fresnel(x: f32, sine: bool) -> f32 {
    if (is_nan(x)) { return x; }
    let a = abs(x);
    var v: f32;
    let x2 = a * a;
    if (x2 < 2.5625) {
        let t = x2 * x2;
        if (sine) {
            var p = 1.647629463788700e-09;
            p = p * t - 1.522754752581096e-07;
            p = p * t + 8.424748808502400e-06;
            p = p * t - 3.120693124703272e-04;
            p = p * t + 7.244727626597022e-03;
            p = p * t - 9.228055941124598e-02;
            p = p * t + 5.235987735681432e-01;
            // x^3 p multiplied from the largest factor so a subnormal result rounds once.
            v = ((a * p) * a) * a;
        } else {
            var p = 1.416802502367354e-08;
            p = p * t - 1.157231412229871e-06;
            p = p * t + 5.387223446683264e-05;
            p = p * t - 1.604381798862293e-03;
            p = p * t + 2.818489036795073e-02;
            p = p * t - 2.467398198317899e-01;
            p = p * t + 9.999999760004487e-01;
            v = a * p;
        }
    } else if (a > 1.0e10) {
        v = 0.5;
    } else {
        let pi = 3.141592653589793;
        let r = 1.0 / (pi * x2);
        let u = r * r;
        var f = -1.903009855649792e+12;
        f = f * u + 1.355942388050252e+11;
        f = f * u - 4.158143148511033e+09;
        f = f * u + 7.343848463587323e+07;
        f = f * u - 8.732356681548485e+05;
        f = f * u + 8.560515466275470e+03;
        f = f * u - 1.032877601091159e+02;
        f = f * u + 2.999401847870011e+00;
        f = 1.0 - u * f;
        var g = -1.860843997624650e+11;
        g = g * u + 1.278350673393208e+10;
        g = g * u - 3.779387713202229e+08;
        g = g * u + 6.492611570598858e+06;
        g = g * u - 7.787789623358162e+04;
        g = g * u + 8.602931494734327e+02;
        g = g * u - 1.493439396592284e+01;
        g = g * u + 9.999841934744914e-01;
        g = r * g;
        let phase = 1.5707963267948966 * special_square_mod4(a);
        let c = cos_f(phase);
        let s = sin_f(phase);
        let d = pi * a;
        v = select(0.5 + (f * s - g * c) / d, 0.5 - (f * c + g * s) / d, sine);
    }
    return select(v, -v, x < 0.0);
}
