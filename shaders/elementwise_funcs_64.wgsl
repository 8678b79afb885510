
// 64-bit integer helpers (kernels with i64/u64 operands only: they need SHADER_INT64), the
// counterparts of the 32-bit ones in elementwise_funcs.wgsl.
fn floordiv_l(x: i64, y: i64) -> i64 {
    let q = x / y;
    return select(q, q - 1li, x % y != 0li && ((x < 0li) != (y < 0li)));
}

fn floormod_l(x: i64, y: i64) -> i64 {
    let r = x % y;
    return select(r, r + y, r != 0li && ((r < 0li) != (y < 0li)));
}

fn pow_lu(x: u64, y: u64) -> u64 {
    var result = 1lu;
    var base = x;
    var e = y;
    while (e > 0lu) {
        if ((e & 1lu) == 1lu) {
            result *= base;
        }
        base *= base;
        e >>= 1u;
    }
    return result;
}

// TensorFlow's CPU cast: truncation, with NaN and out-of-range values giving INT64_MIN.
fn f32_to_i64(x: f32) -> i64 {
    if (is_nan(x) || x >= 9.223372e18 || x < -9.223372e18) {
        return -9223372036854775807li - 1li;
    }
    return i64(x);
}
