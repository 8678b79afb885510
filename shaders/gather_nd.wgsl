// gather_nd, moving elements as the unsigned type E of their width: output row r is the slice
// of x at the k coordinates indices[r, :]. A coordinate outside its dimension gives zeros, as
// TensorFlow's GPU kernel does (host-resident indices are checked before launch and raise).
// Parameters: p[0] = n (outputs), p[1] = slice length, p[2] = k, p[3 + j] = x's dimension j,
// p[3 + k + j] = x's stride j.

@group(0) @binding(0) var<storage, read> x: array<{{E}}>;
@group(0) @binding(1) var<storage, read> indices: array<i32>;
@group(0) @binding(2) var<storage, read_write> out: array<{{E}}>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = linear_index(gid, nwg);
    if (flat >= p[0]) {
        return;
    }
    let offset = nd_offset(flat);
    out[flat] = select({{E}}(), x[max(offset, 0)], offset >= 0);
}
