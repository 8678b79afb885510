// Float helpers for elementwise ops whose WGSL builtins differ from TensorFlow's results.

// pow with C semantics: WGSL's pow is undefined for negative bases and zero.
fn pow_f(x: f32, y: f32) -> f32 {
    if (y == 0.0) { return 1.0; }
    if (is_nan(x) || is_nan(y)) { return nan(); }
    if (x == 0.0) {
        let odd = y == trunc(y) && abs(y % 2.0) == 1.0;
        if (y > 0.0) { return select(0.0, x, odd); }
        let inf = bitcast<f32>(0x7f800000u);
        return select(inf, select(inf, -inf, x < 0.0 || bitcast<u32>(x) == 0x80000000u), odd);
    }
    if (x < 0.0) {
        if (y != trunc(y)) { return nan(); }
        let m = exp_f(y * log_f(-x));
        return select(m, -m, abs(y % 2.0) == 1.0);
    }
    return exp_f(y * log_f(x));
}

fn floormod_f(x: f32, y: f32) -> f32 {
    // WGSL's x % y is x - y * trunc(x / y) with a division drivers may approximate (NVIDIA's
    // is off by an ulp), so the quotient can be one off: an exact multiple then leaves y
    // instead of 0. A true fmod has x's sign and magnitude below |y|; that is restored first.
    var r = x % y;
    if (abs(r) >= abs(y)) { r = r - select(-y, y, (r < 0.0) == (y < 0.0)); }
    if (r != 0.0 && ((r < 0.0) != (x < 0.0))) { r = r + select(-y, y, (x < 0.0) == (y < 0.0)); }
    return select(r, r + y, r != 0.0 && ((r < 0.0) != (y < 0.0)));
}

// atan2 with C semantics (TensorFlow's kernels): WGSL's builtin is indeterminate where both
// arguments are zero (lavapipe gives 3*pi/4 for atan2(0, 0)) and for infinities. A zero or
// infinite argument gets C's value, signed like y; x's sign bit counts for -0.0.
fn atan2_f(y: f32, x: f32) -> f32 {
    if (is_nan(x) || is_nan(y)) { return nan(); }
    let pi = 3.14159265358979;
    let inf = bitcast<f32>(0x7f800000u);
    let x_negative = (bitcast<u32>(x) & 0x80000000u) != 0u;
    let ay = abs(y);
    let ax = abs(x);
    var r: f32;
    if (ay == 0.0) {
        r = select(0.0, pi, x_negative);
    } else if (ax == 0.0) {
        r = pi / 2.0;
    } else if (ax == inf && ay == inf) {
        r = select(pi / 4.0, 3.0 * pi / 4.0, x_negative);
    } else if (ax == inf) {
        r = select(0.0, pi, x_negative);
    } else if (ay == inf) {
        r = pi / 2.0;
    } else {
        return atan2(y, x);
    }
    return bitcast<f32>(bitcast<u32>(r) | (bitcast<u32>(y) & 0x80000000u));
}

fn max_f(x: f32, y: f32) -> f32 {
    return select(max(x, y), x + y, is_nan(x) || is_nan(y));
}

fn min_f(x: f32, y: f32) -> f32 {
    return select(min(x, y), x + y, is_nan(x) || is_nan(y));
}

fn expm1_f(x: f32) -> f32 {
    if (abs(x) >= 0.5) { return exp_f(x) - 1.0; }
    // Kahan's form: (u - 1) x / log(u) cancels the rounding of u = exp(x) near 0.
    let u = exp_f(x);
    if (u == 1.0) { return x; }
    return (u - 1.0) * x / log_f(u);
}

fn sigmoid_f(x: f32) -> f32 {
    // exp of a non-positive argument never overflows.
    let e = exp_f(-abs(x));
    return select(e / (1.0 + e), 1.0 / (1.0 + e), x >= 0.0);
}

fn tanh_f(x: f32) -> f32 {
    if (abs(x) < 0.625) {
        // Cephes' odd polynomial: 1 - e and 1 + e below would cancel near 0.
        let z = x * x;
        return ((((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z
            + 1.33314422036e-1) * z - 3.33332819422e-1) * z * x + x;
    }
    let e = exp_f(-2.0 * abs(x));
    let t = (1.0 - e) / (1.0 + e);
    return select(-t, t, x >= 0.0);
}

// erf by Abramowitz and Stegun 7.1.26 refined with one Newton step (error below 1e-6).
fn erf_f(x: f32) -> f32 {
    let a = abs(x);
    let t = 1.0 / (1.0 + 0.3275911 * a);
    let poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
    var y = 1.0 - poly * exp_f(-a * a);
    return select(-y, y, x >= 0.0);
}

fn sign_f(x: f32) -> f32 {
    if (is_nan(x)) { return x; }
    return sign(x);
}

// Float to int32 as TensorFlow's CPU kernels (x86): NaN and out-of-range values give INT_MIN.
fn f32_to_i32(x: f32) -> i32 {
    if (is_nan(x) || x >= 2147483648.0 || x < -2147483648.0) { return i32(-2147483647 - 1); }
    return i32(x);
}

// Float to uint32 through int64 as on x86: the low 32 bits of the truncated value.
fn f32_to_u32(x: f32) -> u32 {
    if (is_nan(x) || abs(x) >= 9.223372e18) { return 0u; }
    let t = abs(trunc(x));
    let m = t - floor(t / 4294967296.0) * 4294967296.0;
    let u = u32(m);
    return select(u, 0u - u, x < 0.0);
}

// WGSL leaves these undefined outside their domain; TensorFlow gives NaN and infinities.
fn sqrt_f(x: f32) -> f32 {
    return select(sqrt(x), nan(), x < 0.0);
}

fn rsqrt_f(x: f32) -> f32 {
    if (x == 0.0) { return bitcast<f32>(0x7f800000u); }
    return select(inverseSqrt(x), nan(), x < 0.0);
}

fn log1p_f(x: f32) -> f32 {
    if (x == -1.0) { return bitcast<f32>(0xff800000u); }
    if (x < -1.0) { return nan(); }
    if (x < -0.4 || x > 0.6 || is_nan(x)) { return log_f(1.0 + x); }
    // 2 atanh(s) with s = x / (2 + x), |s| <= 1/4: no 1 + x to round. (Goldberg's
    // log(u) x / (u - 1) relies on u - 1 not being folded to x, which drivers do.)
    let s = x / (2.0 + x);
    let z = s * s;
    let p = (((((z / 13.0 + 1.0 / 11.0) * z + 1.0 / 9.0) * z + 1.0 / 7.0) * z + 0.2) * z
        + 1.0 / 3.0) * z;
    return 2.0 * (s + s * p);
}

// Comparisons that hold for NaN as IEEE says: drivers may compile `!=` as an ordered compare.
fn unordered(a: f32, b: f32) -> bool {
    return is_nan(a) || is_nan(b);
}

// The inverse and hyperbolic functions: WGSL leaves them indeterminate outside their domains
// (TensorFlow gives NaN there, +-inf at atanh(+-1)) and software drivers approximate asin and
// acos coarsely (4e-4 off in lavapipe), so they are built on a float32 arctangent accurate to a
// few ulp: Cephes' range reduction to |x| <= tan(pi/8) and its odd minimax polynomial.
fn atan_f(x: f32) -> f32 {
    let t = abs(x);
    var base = 0.0;
    var r = t;
    if (t > 2.414213562373095) {
        base = 1.5707963267948966;
        r = -1.0 / t;
    } else if (t > 0.4142135623730950) {
        base = 0.7853981633974483;
        r = (t - 1.0) / (t + 1.0);
    }
    let z = r * r;
    let p = (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z
        - 3.33329491539e-1) * z * r + r;
    let y = base + p;
    return select(y, -y, x < 0.0);
}

fn asin_f(x: f32) -> f32 {
    if (abs(x) > 1.0) { return nan(); }
    // atan(x / sqrt(1 - x^2)) with (1 - x)(1 + x) exact near +-1; x / 0 gives +-pi/2.
    return atan_f(x / sqrt((1.0 - x) * (1.0 + x)));
}

fn acos_f(x: f32) -> f32 {
    if (abs(x) > 1.0) { return nan(); }
    // 2 atan(sqrt((1 - x) / (1 + x))): no cancellation near 1, pi at -1.
    return 2.0 * atan_f(sqrt((1.0 - x) / (1.0 + x)));
}

fn sinh_f(x: f32) -> f32 {
    if (abs(x) <= 1.0) {
        // Cephes' odd polynomial: the exponentials below would cancel near 0.
        let z = x * x;
        return ((2.03721912945e-4 * z + 8.33028376239e-3) * z + 1.66667160211e-1) * z * x + x;
    }
    let t = abs(x);
    let y = select(half_exp(t) - 0.5 / exp_f(t), half_exp(t), t > 20.0);
    return select(y, -y, x < 0.0);
}

fn asinh_f(x: f32) -> f32 {
    let t = abs(x);
    var y: f32;
    if (t > 1e8) {
        y = log_f(t) + 0.6931471805599453;
    } else {
        y = log1p_f(t + t * t / (1.0 + sqrt(1.0 + t * t)));
    }
    return select(y, -y, x < 0.0);
}

fn acosh_f(x: f32) -> f32 {
    if (x < 1.0) { return nan(); }
    if (x > 1e8) { return log_f(x) + 0.6931471805599453; }
    return log1p_f((x - 1.0) + sqrt((x - 1.0) * (x + 1.0)));
}

fn atanh_f(x: f32) -> f32 {
    let t = abs(x);
    if (t > 1.0) { return nan(); }
    if (t == 1.0) { return x * bitcast<f32>(0x7f800000u); }
    // 0.5 log1p(2t / (1 - t)): +inf at 1, accurate near 0.
    let y = 0.5 * log1p_f(2.0 * t / (1.0 - t));
    return select(y, -y, x < 0.0);
}
