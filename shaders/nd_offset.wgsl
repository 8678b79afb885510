
// Shared by gather_nd.wgsl and scatter_nd.wgsl: the flat offset that element `flat` of the
// gathered (or scattered) rows addresses, or -1 when its index row is out of range.
fn nd_offset(flat: u32) -> i32 {
    let slice = p[1];
    let k = p[2];
    let row = flat / slice;
    var offset = flat % slice;
    for (var j = 0u; j < k; j++) {
        let idx = indices[row * k + j];
        if (idx < 0 || u32(idx) >= p[3u + j]) {
            return -1;
        }
        offset += u32(idx) * p[3u + k + j];
    }
    return i32(offset);
}
