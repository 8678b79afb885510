//! WGSL of the tiled matmul (`shaders/matmul.wgsl`) for one tiling, element type and transpose
//! pair: the staging loops and the multiply are written out here, unrolled, so that every
//! accumulator is a named vec4 the shader compiler keeps in registers (loops over private
//! arrays left them in memory on some drivers).

use crate::gpu::kernels::source::fill;
use std::fmt::Write;

const TEMPLATE: &str = include_str!("../../../shaders/matmul.wgsl");

/// One tiling: a workgroup computes a `bm` x `bn` tile of C from `bk`-deep slices of A and B
/// staged in workgroup memory; each invocation holds `tm` x `tn` outputs in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tiling {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub tm: u32,
    pub tn: u32,
    /// Fetch the next slice into registers before multiplying the current one.
    pub prefetch: bool,
}

const fn tiling(bm: u32, bn: u32, bk: u32, tm: u32, tn: u32) -> Tiling {
    Tiling { bm, bn, bk, tm, tn, prefetch: false }
}

const fn prefetched(t: Tiling) -> Tiling {
    Tiling { prefetch: true, ..t }
}

/// The tiling of products too small to tune, and of software adapters.
pub const DEFAULT: Tiling = tiling(64, 64, 16, 4, 4);

/// What the autotune times (on an H200, 32x64x16 won at 1024, 64x64x16 at 2048 and 128x128x16
/// from 4096). Every one divides evenly (tm, tn multiples of 4; bk a multiple of 4;
/// at most 256 invocations), which `tests::candidates_are_well_formed` checks.
pub const CANDIDATES: [Tiling; 11] = [
    DEFAULT,
    tiling(64, 64, 8, 4, 4),
    tiling(32, 64, 16, 4, 4),
    tiling(128, 64, 8, 8, 4),
    tiling(64, 128, 8, 4, 8),
    tiling(128, 128, 8, 8, 8),
    tiling(128, 128, 16, 8, 8),
    prefetched(DEFAULT),
    prefetched(tiling(32, 64, 16, 4, 4)),
    prefetched(tiling(128, 128, 8, 8, 8)),
    prefetched(tiling(128, 128, 16, 8, 8)),
];

impl Tiling {
    /// Invocations along n and along m.
    pub const fn threads_x(self) -> u32 {
        self.bn / self.tn
    }

    pub const fn threads_y(self) -> u32 {
        self.bm / self.tm
    }

    pub const fn threads(self) -> u32 {
        self.threads_x() * self.threads_y()
    }

    /// Workgroup memory for elements of `bytes` bytes.
    pub const fn shared_bytes(self, bytes: u32) -> u32 {
        (self.bm + self.bn) * self.bk * bytes
    }

    /// `BMxBNxBK/TMxTN`, `+p` with prefetch, as the tuning cache stores it.
    pub fn name(self) -> String {
        let p = if self.prefetch { "+p" } else { "" };
        format!("{}x{}x{}/{}x{}{p}", self.bm, self.bn, self.bk, self.tm, self.tn)
    }

    /// The candidate called `name`; anything else (a stale or damaged cache line) is `None`.
    pub fn named(name: &str) -> Option<Tiling> {
        CANDIDATES.iter().copied().find(|t| t.name() == name)
    }
}

/// The operands' layouts: transposed or not, and whether each is read as vec4s (its contiguous
/// axis a multiple of 4 long, so a vec4 never straddles rows and batch strides stay aligned).
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub transpose_a: bool,
    pub transpose_b: bool,
    pub vector_a: bool,
    pub vector_b: bool,
}

/// Rounds float32 accumulators to float16 outputs (TensorFlow's overflow to infinity included).
const F16_ROUNDING: &str = include_str!("../../../shaders/elementwise_funcs_f16.wgsl");

/// The complete kernel for `tiling` over elements stored as WGSL type `t`. Float16 operands are
/// widened as they are fetched and the products accumulate in float32, as TensorFlow's GPU
/// kernels do; only the stored result is rounded to float16.
pub fn source(tiling: Tiling, layout: Layout, t: &str) -> String {
    let scalar_or_vec = |vector: bool| if vector { format!("vec4<{t}>") } else { t.to_string() };
    let half = t == "f16";
    let ct = if half { "f32" } else { t };
    let u = |v: u32| v.to_string();
    let sa = staging_a(tiling, layout.transpose_a, layout.vector_a, ct);
    let sb = staging_b(tiling, layout.transpose_b, layout.vector_b, ct);
    let fetch = |kb: &str| sa.fetch(tiling, kb) + &sb.fetch(tiling, kb);
    let put = sa.put(tiling) + &sb.put(tiling);
    fill(
        TEMPLATE,
        &[
            ("A_T", scalar_or_vec(layout.vector_a)),
            ("B_T", scalar_or_vec(layout.vector_b)),
            ("T", ct.to_string()),
            ("C_T", t.to_string()),
            ("HELPERS", if half { F16_ROUNDING.to_string() } else { String::new() }),
            ("BM", u(tiling.bm)),
            ("BN", u(tiling.bn)),
            ("BK", u(tiling.bk)),
            ("TX", u(tiling.threads_x())),
            ("TY", u(tiling.threads_y())),
            ("AS_LEN", u(tiling.bk * tiling.bm / 4)),
            ("BS_LEN", u(tiling.bk * tiling.bn / 4)),
            ("DECLARE", declare(tiling, ct) + &sa.declare(tiling) + &sb.declare(tiling)),
            ("FETCH_FIRST", if tiling.prefetch { fetch("0u") } else { String::new() }),
            ("STAGE", if tiling.prefetch { put } else { fetch("k0") + &put }),
            ("FETCH_NEXT", if tiling.prefetch { fetch("k0 + BK") } else { String::new() }),
            ("MULTIPLY", multiply(tiling)),
            ("STORE", store(tiling, if half { "to_f16" } else { "" })),
        ],
    )
}

/// Accumulator `acc_r_j`: row r of the invocation's block, vec4 column group j.
fn declare(tiling: Tiling, t: &str) -> String {
    let mut out = String::new();
    for r in 0..tiling.tm {
        for j in 0..tiling.tn / 4 {
            let _ = writeln!(out, "    var acc_{r}_{j}: vec4<{t}>;");
        }
    }
    out
}

/// One BK-deep step, unrolled: per depth, the invocation's vec4s of A rows and B columns, then
/// `tm * tn / 4` vec4 multiply-adds.
fn multiply(tiling: Tiling) -> String {
    let mut out = String::new();
    let (a_vecs, b_vecs) = (tiling.tm / 4, tiling.tn / 4);
    let lanes = ["x", "y", "z", "w"];
    for k in 0..tiling.bk {
        out.push_str("        {\n");
        for i in 0..a_vecs {
            let index = k * tiling.bm / 4 + i * tiling.threads_y();
            let _ = writeln!(out, "            let ra{i} = As[{index}u + lid.y];");
        }
        for j in 0..b_vecs {
            let index = k * tiling.bn / 4 + j * tiling.threads_x();
            let _ = writeln!(out, "            let rb{j} = Bs[{index}u + lid.x];");
        }
        for r in 0..tiling.tm {
            let (i, lane) = (r / 4, lanes[(r % 4) as usize]);
            for j in 0..b_vecs {
                let _ = writeln!(out, "            acc_{r}_{j} += ra{i}.{lane} * rb{j};");
            }
        }
        out.push_str("        }\n");
    }
    out
}

/// Row r of the invocation's block is row `(r / 4) * 4 * TY + 4 * lid.y + r % 4` of the tile,
/// column group j starts at column `j * 4 * TX + 4 * lid.x`.
/// `round` names the function that turns an accumulator lane into the stored type (or is empty).
fn store(tiling: Tiling, round: &str) -> String {
    let mut out = String::new();
    let lanes = ["x", "y", "z", "w"];
    for r in 0..tiling.tm {
        let row = (r / 4) * 4 * tiling.threads_y() + r % 4;
        let _ = writeln!(out, "    {{\n        let m = row0 + {row}u + 4u * lid.y;");
        out.push_str("        if (m < M) {\n");
        for j in 0..tiling.tn / 4 {
            let col = j * 4 * tiling.threads_x();
            let _ = writeln!(out, "            let n{j} = col0 + {col}u + 4u * lid.x;");
            for (l, lane) in lanes.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "            if (n{j} + {l}u < N) {{ c[cbase + m * N + n{j} + {l}u] = {round}(acc_{r}_{j}.{lane}); }}"
                );
            }
        }
        out.push_str("        }\n    }\n");
    }
    out
}

/// How one operand's slice is staged: `units` elements (or vec4s) spread over the workgroup's
/// invocations, round r of them held in register `{name}{r}` between its fetch from storage and
/// its put into workgroup memory. `split` turns the walk index `e` into tile coordinates,
/// `outer`/`depth` into matrix ones (`depth` relative to the slice's first depth `kb`).
struct Staging {
    name: &'static str,
    input: &'static str,
    units: u32,
    ty: String,
    split: &'static str,
    outer: &'static str,
    depth: &'static str,
    outer_len: &'static str,
    address: &'static str,
    put: String,
}

impl Staging {
    fn rounds(&self, tiling: Tiling) -> impl Iterator<Item = (u32, String)> + '_ {
        let threads = tiling.threads();
        let units = self.units;
        (0..units.div_ceil(threads)).map(move |r| {
            let guard = if (r + 1) * threads > units {
                format!("if (e < {units}u) ")
            } else {
                String::new()
            };
            (r, guard)
        })
    }

    fn declare(&self, tiling: Tiling) -> String {
        self.rounds(tiling)
            .map(|(r, _)| format!("    var {}{r}: {};\n", self.name, self.ty))
            .collect()
    }

    /// Loads the slice starting at depth `kb` into the registers (zero outside the matrix).
    fn fetch(&self, tiling: Tiling, kb: &str) -> String {
        let threads = tiling.threads();
        self.rounds(tiling)
            .map(|(r, guard)| {
                format!(
                    "        {{
            let e = tid + {offset}u;
            {name}{r} = {ty}();
            {guard}{{
                {split}
                let m = {outer};
                let k = {kb} + {depth};
                if (m < {outer_len} && k < K) {{
                    {name}{r} = {ty}({input}[{address}]);
                }}
            }}
        }}\n",
                    offset = r * threads,
                    name = self.name,
                    ty = self.ty,
                    split = self.split,
                    outer = self.outer,
                    depth = self.depth,
                    outer_len = self.outer_len,
                    input = self.input,
                    address = self.address,
                )
            })
            .collect()
    }

    /// Stores the registers into workgroup memory.
    fn put(&self, tiling: Tiling) -> String {
        let threads = tiling.threads();
        self.rounds(tiling)
            .map(|(r, guard)| {
                let put = self.put.replace("VALUE", &format!("{}{r}", self.name));
                format!(
                    "        {{ let e = tid + {offset}u; {guard}{{ {split} {put} }} }}\n",
                    offset = r * threads,
                    split = self.split,
                )
            })
            .collect()
    }
}

/// Writes element `index` (of the tile's k-major layout) of a vec4 workgroup array.
fn put(array: &str, index: &str, value: &str) -> String {
    format!("{{ let at = {index}; {array}[at / 4u][at % 4u] = {value}; }}")
}

/// The four lanes of a vec4 register to four k-major positions of a vec4 workgroup array.
fn put_lanes(array: &str, index: impl Fn(u32) -> String) -> String {
    (0..4).map(|c| put(array, &index(c), &format!("VALUE[{c}]"))).collect::<Vec<_>>().join(" ")
}

/// The BM x BK slice of A into `As` (element (m, k) at `k * BM + m`). `e` walks A's memory
/// order so that neighbouring invocations read neighbouring addresses.
fn staging_a(tiling: Tiling, transposed: bool, vectorised: bool, t: &str) -> Staging {
    let (split, address, put_code) = match (transposed, vectorised) {
        (false, false) => (
            "let am = e / BK; let ak = e % BK;",
            "abase + m * K + k",
            put("As", "ak * BM + am", "VALUE"),
        ),
        (true, false) => (
            "let am = e % BM; let ak = e / BM;",
            "abase + k * M + m",
            put("As", "ak * BM + am", "VALUE"),
        ),
        (false, true) => (
            "let am = e / (BK / 4u); let ak = (e % (BK / 4u)) * 4u;",
            "(abase + m * K + k) / 4u",
            put_lanes("As", |c| format!("(ak + {c}u) * BM + am")),
        ),
        (true, true) => (
            "let am = (e % (BM / 4u)) * 4u; let ak = e / (BM / 4u);",
            "(abase + k * M + m) / 4u",
            "As[(ak * BM + am) / 4u] = VALUE;".to_string(),
        ),
    };
    Staging {
        name: "sa",
        input: "a",
        units: tiling.bm * tiling.bk / if vectorised { 4 } else { 1 },
        ty: if vectorised { format!("vec4<{t}>") } else { t.to_string() },
        split,
        outer: "row0 + am",
        depth: "ak",
        outer_len: "M",
        address,
        put: put_code,
    }
}

/// The BK x BN slice of B into `Bs` (element (k, n) at `k * BN + n`). For B, `m` names the
/// column (n) so that one bounds check serves both inputs.
fn staging_b(tiling: Tiling, transposed: bool, vectorised: bool, t: &str) -> Staging {
    let (split, address, put_code) = match (transposed, vectorised) {
        (false, false) => (
            "let bn = e % BN; let bk = e / BN;",
            "bbase + k * N + m",
            put("Bs", "bk * BN + bn", "VALUE"),
        ),
        (true, false) => (
            "let bn = e / BK; let bk = e % BK;",
            "bbase + m * K + k",
            put("Bs", "bk * BN + bn", "VALUE"),
        ),
        (false, true) => (
            "let bn = (e % (BN / 4u)) * 4u; let bk = e / (BN / 4u);",
            "(bbase + k * N + m) / 4u",
            "Bs[(bk * BN + bn) / 4u] = VALUE;".to_string(),
        ),
        (true, true) => (
            "let bn = e / (BK / 4u); let bk = (e % (BK / 4u)) * 4u;",
            "(bbase + m * K + k) / 4u",
            put_lanes("Bs", |c| format!("(bk + {c}u) * BN + bn")),
        ),
    };
    Staging {
        name: "sb",
        input: "b",
        units: tiling.bk * tiling.bn / if vectorised { 4 } else { 1 },
        ty: if vectorised { format!("vec4<{t}>") } else { t.to_string() },
        split,
        outer: "col0 + bn",
        depth: "bk",
        outer_len: "N",
        address,
        put: put_code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_well_formed() {
        for t in CANDIDATES {
            assert!(t.tm % 4 == 0 && t.tn % 4 == 0 && t.bk % 4 == 0, "{t:?}");
            assert!(t.bm % t.tm == 0 && t.bn % t.tn == 0, "{t:?}");
            assert!(t.threads() <= 256, "{t:?}");
            assert!(t.shared_bytes(4) <= 16384, "{t:?}");
            assert_eq!(Tiling::named(&t.name()), Some(t));
        }
        assert_eq!(Tiling::named("64x64x16/4x4"), Some(DEFAULT));
        assert_eq!(Tiling::named("64x64x16/4x5"), None);
        assert_eq!(Tiling::named(""), None);
    }

    #[test]
    fn every_hole_is_filled() {
        for t in CANDIDATES {
            for bits in 0..16u32 {
                let layout = Layout {
                    transpose_a: bits & 1 != 0,
                    transpose_b: bits & 2 != 0,
                    vector_a: bits & 4 != 0,
                    vector_b: bits & 8 != 0,
                };
                for ty in ["f32", "f16", "i32"] {
                    let wgsl = source(t, layout, ty);
                    assert!(!wgsl.contains("{{"), "{t:?} {layout:?} {ty}");
                    assert_eq!(wgsl.contains("to_f16("), ty == "f16");
                }
                let wgsl = source(t, layout, "f32");
                assert_eq!(wgsl.matches("acc_").count() as u32 % (t.tm * t.tn / 4), 0);
            }
        }
    }
}
