// Fused softmax / log-softmax over rows: one workgroup per row finds the maximum, sums the
// shifted exponentials (both as workgroup trees) and writes the result, reading the row from
// memory three times instead of materialising each step. LOG selects log-softmax.
// Parameters: p[0] = rows, p[1] = row length.

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<storage, read> p: array<u32>;

var<workgroup> scratch: array<f32, 256>;

@compute @workgroup_size(256)
fn main(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let row = wid.x + wid.y * nwg.x;
    let n = p[1];
    let live = row < p[0];
    let base = row * n;
    var m = bitcast<f32>(0xff800000u);
    if (live) {
        for (var j = lid.x; j < n; j += WG) {
            let v = x[base + j];
            m = select(m, v, is_nan(v) || v > m);
        }
    }
    scratch[lid.x] = m;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid.x < s) {
            let o = scratch[lid.x + s];
            scratch[lid.x] = select(scratch[lid.x], o, is_nan(o) || o > scratch[lid.x]);
        }
        workgroupBarrier();
    }
    let row_max = scratch[0];
    workgroupBarrier();
    var total = 0.0;
    if (live) {
        for (var j = lid.x; j < n; j += WG) {
            total += exp_f(x[base + j] - row_max);
        }
    }
    scratch[lid.x] = total;
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s = s / 2u) {
        if (lid.x < s) {
            scratch[lid.x] += scratch[lid.x + s];
        }
        workgroupBarrier();
    }
    let sum = scratch[0];
    if (live) {
        for (var j = lid.x; j < n; j += WG) {
            let shifted = x[base + j] - row_max;
            if (LOG) {
                out[base + j] = shifted - log_f(sum);
            } else {
                out[base + j] = exp_f(shifted) / sum;
            }
        }
    }
}
