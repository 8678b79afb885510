// Window geometry shared by the kernels that gather over windows (patches_grad.wgsl,
// max_pool_grad.wgsl); parameters as in patches.wgsl.

// The window position along one axis whose tap `tap` reads pixel `at`, or -1.
fn hit(at: u32, tap: u32, pad: u32, dilation: u32, stride: u32, outs: u32) -> i32 {
    let shifted = i32(at + pad) - i32(tap * dilation);
    if (shifted < 0 || u32(shifted) % stride != 0u) {
        return -1;
    }
    let o = u32(shifted) / stride;
    if (o >= outs) {
        return -1;
    }
    return i32(o);
}

// Pixel `at` of an axis read by window position `o`, tap `tap`, or -1 (padding).
fn source(o: u32, tap: u32, stride: u32, dilation: u32, pad: u32, size: u32) -> i32 {
    let at = i32(o * stride + tap * dilation) - i32(pad);
    if (at < 0 || u32(at) >= size) {
        return -1;
    }
    return at;
}
