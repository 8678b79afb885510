
// Integer division and powers, generated for 32 and 64 bits (SINT / UINT are the signed and
// unsigned types, BITS names the variant). Divisors are never zero here (the host checks them
// first, as TensorFlow raises for them); WGSL's `/` and `%` wrap MIN / -1 like the CPU kernels.
fn floordiv_{{BITS}}(x: {{SINT}}, y: {{SINT}}) -> {{SINT}} {
    let q = x / y;
    let zero = {{SINT}}(0);
    return select(q, q - {{SINT}}(1), x % y != zero && ((x < zero) != (y < zero)));
}

fn floormod_{{BITS}}(x: {{SINT}}, y: {{SINT}}) -> {{SINT}} {
    let r = x % y;
    let zero = {{SINT}}(0);
    return select(r, r + y, r != zero && ((r < zero) != (y < zero)));
}

// Square-and-multiply with wrapping products: the low bits are the same signed or unsigned.
fn pow_{{BITS}}(x: {{UINT}}, y: {{UINT}}) -> {{UINT}} {
    var result = {{UINT}}(1);
    var base = x;
    var e = y;
    while (e > {{UINT}}(0)) {
        if ((e & {{UINT}}(1)) == {{UINT}}(1)) {
            result *= base;
        }
        base *= base;
        e >>= 1u;
    }
    return result;
}
