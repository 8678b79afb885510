// The steps of tf.unique after a stable sort of x (src/gpu/kernels/unique.rs), chosen by p[1]:
//   0: out[j] = 1 where sorted[j] starts a run of equal values (every NaN starts its own; -0.0
//      equals 0.0), else 0
//   1: out[group[j] - 1] = position[j] at the start of each run: the run's first occurrence
//      (`aux` = inclusive scan of the starts, so group ids count from 1)
//   2: out[aux[r]] = r: the rank of each run when runs are ordered by first occurrence
//      (`aux` = the run ids sorted by first position)
//   3: out[position[j]] = rank[group[j] - 1]: each element's index into the unique values
//      (`aux` = group ids, `rank` = step 2's output)
// Parameters: p[0] = invocations, p[1] = step.

@group(0) @binding(0) var<storage, read> sorted: array<T>;
@group(0) @binding(1) var<storage, read> position: array<i32>;
@group(0) @binding(2) var<storage, read> aux: array<u32>;
@group(0) @binding(3) var<storage, read> rank: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;
@group(0) @binding(5) var<storage, read> p: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = linear_index(gid, nwg);
    if (j >= p[0]) {
        return;
    }
    switch p[1] {
        case 0u: {
            let starts = j == 0u || IS_NAN(sorted[j]) || sorted[j] != sorted[j - 1u];
            out[j] = select(0u, 1u, starts);
        }
        case 1u: {
            if (j == 0u || aux[j] != aux[j - 1u]) {
                out[aux[j] - 1u] = u32(position[j]);
            }
        }
        case 2u: {
            out[aux[j]] = j;
        }
        default: {
            out[u32(position[j])] = rank[aux[j] - 1u];
        }
    }
}

fn never_nan(v: T) -> bool {
    return false;
}
