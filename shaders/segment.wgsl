// Unsorted segment reductions (UnsortedSegmentSum/Prod/Max/Min) of 4-byte elements.
// Phase 0 fills the output with the reduction's identity; phase 1 combines each data element
// into its segment's element through a compare-exchange loop (`combine` on the bits), so float
// sums vary in order as on TensorFlow's GPU. Ids below zero are dropped and ids at or past
// num_segments skipped, as TensorFlow's GPU kernels do (host-resident ids are checked before
// launch and raise as on the CPU).
// Parameters: p[0] = invocations, p[1] = phase, p[2] = elements per row, p[3] = num_segments,
// p[4] = the identity's bits.

@group(0) @binding(0) var<storage, read> ids: array<i32>;
@group(0) @binding(1) var<storage, read> data: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

{{COMBINE}}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let flat = linear_index(gid, nwg);
    if (flat >= p[0]) {
        return;
    }
    if (p[1] == 0u) {
        atomicStore(&out[flat], p[4]);
        return;
    }
    let inner = p[2];
    let id = ids[flat / inner];
    if (id < 0 || u32(id) >= p[3]) {
        return;
    }
    let at = u32(id) * inner + flat % inner;
    let v = data[flat];
    var old = atomicLoad(&out[at]);
    loop {
        let next = combine(old, v);
        if (next == old) {
            break;
        }
        let r = atomicCompareExchangeWeak(&out[at], old, next);
        if (r.exchanged) {
            break;
        }
        old = r.old_value;
    }
}
