
// 64-bit helpers (kernels with i64/u64 operands only: they need SHADER_INT64); integer
// division and powers come from integer_funcs.wgsl, like their 32-bit counterparts.

// TensorFlow's CPU cast: truncation, with NaN and out-of-range values giving INT64_MIN.
fn f32_to_i64(x: f32) -> i64 {
    if (is_nan(x) || x >= 9.223372e18 || x < -9.223372e18) {
        return -9223372036854775807li - 1li;
    }
    return i64(x);
}
