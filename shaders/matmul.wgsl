// Batched matrix product C = op(A) op(B), tiled: each TX x TY workgroup computes a BM x BN tile
// of C from BK-deep slices of A and B staged in workgroup memory, every invocation a block of
// rows x columns held in registers as vec4 accumulators. The tiling, the staging code and the
// unrolled multiply are generated per tiling, element type and transpose pair
// (src/gpu/kernels/matmul_source.rs); src/gpu/kernels/matmul_tuning.rs picks the tiling.
//
// Each slice is fetched from storage into registers, then put into workgroup memory. With
// prefetch, the next slice's fetch is issued before the multiply, so its latency overlaps it.
// Workgroup memory holds vec4s of four consecutive rows (As) or columns (Bs) of one depth k, so
// the multiply reads whole vec4s: invocation (x, y) owns the vec4 columns x, x + TX, ... and the
// vec4 rows y, y + TY, ..., which neighbouring invocations read at neighbouring addresses.
// Float16 operands are widened as they are fetched; workgroup memory and accumulators hold T
// (float32 then) and only the stored result (C_T) is rounded.
// Parameters: p[0] = M, p[1] = N, p[2] = K, p[3] / p[4] = batch strides of A / B (0 when
// broadcast), batch = workgroup z.

@group(0) @binding(0) var<storage, read> a: array<{{A_T}}>;
@group(0) @binding(1) var<storage, read> b: array<{{B_T}}>;
@group(0) @binding(2) var<storage, read_write> c: array<{{C_T}}>;
@group(0) @binding(3) var<storage, read> p: array<u32>;

const BM: u32 = {{BM}}u;
const BN: u32 = {{BN}}u;
const BK: u32 = {{BK}}u;
const TX: u32 = {{TX}}u;
const TY: u32 = {{TY}}u;

var<workgroup> As: array<vec4<{{T}}>, {{AS_LEN}}>;
var<workgroup> Bs: array<vec4<{{T}}>, {{BS_LEN}}>;

{{HELPERS}}
@compute @workgroup_size({{TX}}, {{TY}})
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let M = p[0];
    let N = p[1];
    let K = p[2];
    let abase = wid.z * p[3];
    let bbase = wid.z * p[4];
    let cbase = wid.z * M * N;
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
    let tid = lid.y * TX + lid.x;
{{DECLARE}}
{{FETCH_FIRST}}
    for (var k0 = 0u; k0 < K; k0 += BK) {
{{STAGE}}
        workgroupBarrier();
{{FETCH_NEXT}}
{{MULTIPLY}}
        workgroupBarrier();
    }
{{STORE}}
}
