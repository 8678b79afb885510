// Batched matrix product C = op(A) op(B), tiled: each 16x16 workgroup computes a 64x64 tile of
// C, every invocation a 4x4 block held in registers, with 16-deep slices of A and B staged in
// workgroup memory. Generated per element type T and per transpose pair: LOAD_A and LOAD_B
// stage the slices, as vec4 loads along the contiguous axis when its length is a multiple of
// 4, else one element at a time (src/gpu/kernels/matmul.rs writes both).
// Parameters: p[0] = M, p[1] = N, p[2] = K, p[3] / p[4] = batch strides of A / B (0 when
// broadcast), batch = workgroup z.

@group(0) @binding(0) var<storage, read> a: array<{{A_T}}>;
@group(0) @binding(1) var<storage, read> b: array<{{B_T}}>;
@group(0) @binding(2) var<storage, read_write> c: array<T>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 16u;

var<workgroup> As: array<T, 1024>;
var<workgroup> Bs: array<T, 1024>;

@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let M = p[0];
    let N = p[1];
    let K = p[2];
    let a0 = wid.z * p[3];
    let b0 = wid.z * p[4];
    let c0 = wid.z * M * N;
    let row0 = wid.y * TM;
    let col0 = wid.x * TN;
    let tid = lid.y * 16u + lid.x;
    var acc: array<array<T, 4>, 4>;
    for (var k0 = 0u; k0 < K; k0 += TK) {
{{LOAD_A}}
{{LOAD_B}}
        workgroupBarrier();
        for (var kk = 0u; kk < TK; kk++) {
            var av: array<T, 4>;
            var bv: array<T, 4>;
            for (var i = 0u; i < 4u; i++) {
                av[i] = As[kk * TM + lid.y + 16u * i];
                bv[i] = Bs[kk * TN + lid.x + 16u * i];
            }
            for (var i = 0u; i < 4u; i++) {
                for (var j = 0u; j < 4u; j++) {
                    acc[i][j] += av[i] * bv[j];
                }
            }
        }
        workgroupBarrier();
    }
    for (var i = 0u; i < 4u; i++) {
        let m = row0 + lid.y + 16u * i;
        for (var j = 0u; j < 4u; j++) {
            let n = col0 + lid.x + 16u * j;
            if (m < M && n < N) {
                c[c0 + m * N + n] = acc[i][j];
            }
        }
    }
}
