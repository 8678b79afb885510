// scatter_nd: adds update row r into the zeroed output at the k coordinates indices[r, :].
// Duplicates combine atomically (floats through a compare-exchange loop, so their sum order
// varies as on TensorFlow's GPU); a row with a coordinate out of range is skipped, as
// TensorFlow's GPU kernel does (host-resident indices are checked before launch and raise).
// Parameters: p[0] = n (update elements), p[1] = slice length, p[2] = k, p[3 + j] = output
// dimension j, p[3 + k + j] = output stride j.

@group(0) @binding(0) var<storage, read> indices: array<i32>;
@group(0) @binding(1) var<storage, read> updates: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

fn add_f32(at: u32, v: u32) {
    var old = atomicLoad(&out[at]);
    loop {
        let sum = bitcast<u32>(bitcast<f32>(old) + bitcast<f32>(v));
        let r = atomicCompareExchangeWeak(&out[at], old, sum);
        if (r.exchanged) {
            break;
        }
        old = r.old_value;
    }
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = linear_index(gid, nwg);
    if (flat >= p[0]) {
        return;
    }
    let offset = nd_offset(flat);
    if (offset >= 0) {
        {{COMBINE}}(u32(offset), updates[flat]);
    }
}

fn add_int(at: u32, v: u32) {
    atomicAdd(&out[at], v);
}

fn or_bool(at: u32, v: u32) {
    atomicOr(&out[at], v);
}
