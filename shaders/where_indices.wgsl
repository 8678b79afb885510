// The compaction step of tf.where(condition): element i, when its flag is set, writes its
// coordinates (int64) to row prefix[i] of the output, prefix being the exclusive scan of the
// flags, so rows come out in row-major order as on the CPU.
// Parameters: p[0] = n, p[1] = rank, p[2 + d] = dimension d.

@group(0) @binding(0) var<storage, read> flags: array<u32>;
@group(0) @binding(1) var<storage, read> prefix: array<u32>;
@group(0) @binding(2) var<storage, read_write> out: array<i64>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_index(gid, nwg);
    if (i >= p[0] || flags[i] == 0u) {
        return;
    }
    let rank = p[1];
    let row = prefix[i];
    var rest = i;
    for (var d = rank; d > 0u; d--) {
        let dim = p[1u + d];
        out[row * rank + d - 1u] = i64(rest % dim);
        rest = rest / dim;
    }
}
