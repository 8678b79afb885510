//! The FFT primitives on the GPU (`shaders/fft_pass.wgsl`, `shaders/fft_resize.wgsl`):
//! complex64 data as pairs of float32, one Stockham pass per factor of each transformed
//! length (radices 2 to 13, eights first for powers of two), along any axis in place of a
//! transpose. Real transforms load their float32 signal as complex, keep n/2+1 frequencies
//! (forward) or rebuild the other half by conjugate symmetry and take the real part (inverse),
//! the order of TensorFlow's multi-axis real transforms: the last axis is the real one.
//! Lengths with a prime factor above 13, float64 and complex128 run on the CPU.

use super::{launch, GpuInput};
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::kernels::source::fill;
use crate::gpu::storage::GpuStorage;
use crate::ops::fft::{Fft, HostPlan};
use crate::shape::Shape;
use crate::tensor::Tensor;
use num_complex::Complex32;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

const PASS: &str = include_str!("../../../shaders/fft_pass.wgsl");
const RESIZE: &str = include_str!("../../../shaders/fft_resize.wgsl");

/// Twiddle tables kept on the device, by (device, length); cleared when this many pile up.
const TABLES_KEPT: usize = 64;

/// Whether the GPU kernels take this FFT: float32/complex64 input, every value they need on
/// hand and valid (else the CPU raises), a non-empty result, and smooth lengths.
pub fn supports(op: &Fft, inputs: &[&Tensor]) -> bool {
    if !matches!(inputs[0].dtype(), DType::F32 | DType::C64) {
        return false;
    }
    let Ok(plan) = op.host_plan(inputs) else { return false };
    let largest = plan.shape.num_elements().max(work_elements(op, inputs[0], &plan));
    plan.shape.num_elements() > 0
        && largest < u32::MAX as usize
        && plan.lens.iter().all(|&n| radices(n).is_some())
}

/// The elements of the largest intermediate: the signal at its transform lengths.
fn work_elements(op: &Fft, x: &Tensor, plan: &HostPlan) -> usize {
    let mut dims = x.dims().to_vec();
    for (&a, &n) in plan.axes.iter().zip(&plan.lens) {
        dims[a] = n;
    }
    if op.real && op.inverse {
        // The complex-to-real transform's full last axis (the input holds n/2+1 of it).
        if let (Some(&a), Some(&n)) = (plan.axes.last(), plan.lens.last()) {
            dims[a] = n;
        }
    }
    dims.iter().product()
}

/// The passes' radices for length `n` (none for 1); `None` when a prime factor exceeds 13
/// (fft_pass.wgsl's MAX_RADIX).
fn radices(mut n: usize) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    if n == 0 {
        return None;
    }
    for radix in [8, 4, 2, 3, 5, 7, 11, 13] {
        while n.is_multiple_of(radix) {
            out.push(radix);
            n /= radix;
        }
    }
    (n == 1).then_some(out)
}

/// Runs `op` on GPU-resident `x` (its other inputs read on the host by `host_plan`).
pub fn run(op: &Fft, x: &GpuInput, inputs: &[&Tensor]) -> Result<Option<Tensor>> {
    let Ok(HostPlan { axes, lens, shape }) = op.host_plan(inputs) else { return Ok(None) };
    let device = x.device();
    let mut dims = x.shape.dims().to_vec();
    for (&a, &n) in axes.iter().zip(&lens) {
        dims[a] = n;
    }
    let total: usize = lens.iter().product();
    let scale = if op.inverse { 1.0 / total as f32 } else { 1.0 };
    let (last, n_last) = (*axes.last().unwrap_or(&0), *lens.last().unwrap_or(&1));
    let out = match (op.real, op.inverse) {
        (false, inverse) => {
            let data = resize(x, &dims, None, Mode::Complex)?;
            transform(data, &dims, &axes, &lens, inverse, scale, device)?
        }
        (true, false) => {
            let data = resize(x, &dims, None, Mode::Complex)?;
            let data = transform(data, &dims, &[last], &[n_last], false, 1.0, device)?;
            dims[last] = n_last / 2 + 1;
            let kept = resize(&data, &dims, None, Mode::Complex)?;
            let (outer, outer_lens) = (&axes[..axes.len() - 1], &lens[..lens.len() - 1]);
            transform(kept, &dims, outer, outer_lens, false, 1.0, device)?
        }
        (true, true) => {
            let half = n_last / 2 + 1;
            dims[last] = half;
            let data = resize(x, &dims, None, Mode::Complex)?;
            let (outer, outer_lens) = (&axes[..axes.len() - 1], &lens[..lens.len() - 1]);
            // The scale goes with the last pass that runs (a length-1 last axis has none).
            let (outer_scale, last_scale) = if n_last > 1 { (1.0, scale) } else { (scale, 1.0) };
            let data = transform(data, &dims, outer, outer_lens, true, outer_scale, device)?;
            dims[last] = n_last;
            let full = resize(&data, &dims, Some(half), Mode::Complex)?;
            let full = transform(full, &dims, &[last], &[n_last], true, last_scale, device)?;
            resize(&full, &dims, None, Mode::RealPart)?
        }
    };
    let out = out.tensor;
    debug_assert_eq!(out.shape(), &shape);
    Ok(Some(out))
}

/// What `resize` writes.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Complex,
    RealPart,
}

/// `x` cropped or zero-padded to `dims` (complex64, or float32 for `RealPart`); with `half`,
/// the last axis rebuilt from its first `half` frequencies by conjugate symmetry. `x` itself
/// when nothing changes.
fn resize(x: &GpuInput, dims: &[usize], half: Option<usize>, mode: Mode) -> Result<GpuInput> {
    let out_dtype = if mode == Mode::RealPart { DType::F32 } else { DType::C64 };
    if x.dtype == out_dtype && x.shape.dims() == dims && half.is_none() {
        return Ok(x.clone());
    }
    let rank = dims.len();
    let limits: Vec<usize> = x
        .shape
        .dims()
        .iter()
        .zip(dims)
        .enumerate()
        .map(|(a, (&i, &o))| if a + 1 == rank { half.unwrap_or(o).min(i) } else { i.min(o) })
        .collect();
    let n: usize = dims.iter().product();
    let mut params = vec![n as u32, rank as u32];
    params.extend(dims.iter().chain(x.shape.dims()).chain(&limits).map(|&d| d as u32));
    let (in_type, read) = match x.dtype {
        DType::F32 => ("f32", "vec2<f32>(x[src], 0.0)"),
        _ => ("vec2<f32>", "x[src]"),
    };
    let (out_type, write) = match mode {
        Mode::Complex => ("vec2<f32>", "v"),
        Mode::RealPart => ("f32", "v.x"),
    };
    let hermitian = half.is_some();
    let source = || {
        fill(
            RESIZE,
            &[
                ("IN", in_type.to_string()),
                ("OUT", out_type.to_string()),
                ("READ", read.to_string()),
                ("WRITE", write.to_string()),
                ("HERMITIAN", hermitian.to_string()),
            ],
        )
    };
    let key = format!("fft_resize:{in_type}:{out_type}:{hermitian}");
    let out = GpuStorage::alloc(x.device(), out_dtype, n)?;
    launch(&key, source, &[x], &out, &params, n.div_ceil(256) as u64)?;
    Ok(GpuInput::from(Tensor::from_gpu(out, Shape(dims.to_vec()))))
}

/// The complex transform of `data` (of shape `dims`) along each of `axes` (lengths `lens`),
/// the results multiplied by `scale` (in the last pass: every pass is linear).
fn transform(
    data: GpuInput,
    dims: &[usize],
    axes: &[usize],
    lens: &[usize],
    inverse: bool,
    scale: f32,
    device: usize,
) -> Result<GpuInput> {
    let mut passes = Vec::new();
    for (&axis, &n) in axes.iter().zip(lens) {
        let mut ns = 1;
        for radix in radices(n).unwrap_or_default() {
            passes.push((axis, n, radix, ns));
            ns *= radix;
        }
    }
    let count = passes.len();
    // (No pass: every length is 1, and so is the scale.)
    let mut data = data;
    for (k, (axis, n, radix, ns)) in passes.into_iter().enumerate() {
        let table = twiddles(device, n)?;
        let inner: usize = dims[axis + 1..].iter().product();
        let elements: usize = dims.iter().product();
        let threads = elements / radix;
        let factor = if k + 1 == count { scale } else { 1.0 };
        let params = [
            threads as u32,
            n as u32,
            radix as u32,
            ns as u32,
            inner as u32,
            u32::from(inverse),
            factor.to_bits(),
        ];
        let out = GpuStorage::alloc(device, DType::C64, elements)?;
        let source = || fill(PASS, &[]);
        launch("fft_pass", source, &[&data, &table], &out, &params, threads.div_ceil(256) as u64)?;
        data = GpuInput::from(Tensor::from_gpu(out, Shape(dims.to_vec())));
    }
    Ok(data)
}

/// exp(-2 pi i m / n) for m < n on `device`, computed in float64 and kept for the next call.
fn twiddles(device: usize, n: usize) -> Result<GpuInput> {
    static TABLES: OnceLock<Mutex<HashMap<(usize, usize), Tensor>>> = OnceLock::new();
    let tables = TABLES.get_or_init(Default::default);
    if let Some(t) = tables.lock().unwrap_or_else(|p| p.into_inner()).get(&(device, n)) {
        return Ok(GpuInput::from(t.clone()));
    }
    let values: Vec<Complex32> = (0..n)
        .map(|m| {
            let angle = -2.0 * std::f64::consts::PI * m as f64 / n as f64;
            Complex32::new(angle.cos() as f32, angle.sin() as f32)
        })
        .collect();
    let storage = GpuStorage::upload(device, &Buffer::C64(values))?.ok_or_else(|| {
        crate::error::Error::Internal("complex64 does not live on the GPU".into())
    })?;
    let table = Tensor::from_gpu(storage, Shape(vec![n]));
    let mut tables = tables.lock().unwrap_or_else(|p| p.into_inner());
    if tables.len() >= TABLES_KEPT {
        tables.clear();
    }
    tables.insert((device, n), table.clone());
    Ok(GpuInput::from(table))
}

#[cfg(test)]
mod tests {
    use super::radices;

    #[test]
    fn lengths_factor_into_the_kernels_radices() {
        assert_eq!(radices(1), Some(vec![]));
        assert_eq!(radices(1 << 20), Some(vec![8, 8, 8, 8, 8, 8, 4]));
        assert_eq!(radices(2 * 3 * 5 * 7 * 11 * 13), Some(vec![2, 3, 5, 7, 11, 13]));
        assert_eq!(radices(17), None);
        assert_eq!(radices(0), None);
    }
}
