// Copies row-major data of one shape into another, element by element of the output: each
// axis cropped or zero-padded at its end (coordinates at or past the axis' `limit` read zero),
// converting with READ (the input element as a complex pair) and WRITE (the pair as an output
// element). The FFT kernels use it to load real or complex signals at their transform lengths,
// to keep a real transform's n/2+1 frequencies and to take the real part. With HERMITIAN, the
// last axis grows from its n/2+1 stored frequencies to n by conjugate symmetry
// (X[n - k] = conj(X[k])), as a complex-to-real inverse transform reads its input.
// Parameters: p[0] = output elements, p[1] = rank, then rank output sizes, rank input sizes
// and rank limits.

@group(0) @binding(0) var<storage, read> x: array<{{IN}}>;
@group(0) @binding(1) var<storage, read_write> out: array<{{OUT}}>;
@group(0) @binding(2) var<storage, read> p: array<u32>;

const HERMITIAN: bool = {{HERMITIAN}};

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let id = linear_index(gid, nwg);
    if (id >= p[0]) {
        return;
    }
    let rank = p[1];
    var rest = id;
    var src = 0u;
    var stride = 1u;
    var inside = true;
    var mirrored = false;
    for (var d = rank; d > 0u; d--) {
        let axis = d - 1u;
        let size = p[2u + axis];
        var c = rest % size;
        rest = rest / size;
        if (HERMITIAN && axis + 1u == rank && c > size / 2u) {
            c = size - c;
            mirrored = true;
        }
        inside = inside && c < p[2u + 2u * rank + axis];
        src += c * stride;
        stride *= p[2u + rank + axis];
    }
    var v = vec2<f32>(0.0, 0.0);
    if (inside) {
        v = {{READ}};
    }
    if (mirrored) {
        v.y = -v.y;
    }
    out[id] = {{WRITE}};
}
