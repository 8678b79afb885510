
// Float16 kernels load operands as f32 and compute with the float32 expressions; the result
// is rounded back here. WGSL leaves out-of-range conversions indeterminate, so values from
// 65520 (where round-to-nearest-even leaves the finite range) become infinities through a
// runtime overflow of the largest float16, with x's sign, as TensorFlow's casts give.
fn to_f16(x: f32) -> f16 {
    if (abs(x) >= 65520.0 && !is_nan(x)) {
        return f16(clamp(x, -65504.0, 65504.0)) * 2.0h;
    }
    return f16(x);
}
