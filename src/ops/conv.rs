//! Convolution and pooling over NHWC images, composed from the `Patches` primitive: a
//! convolution is patches times the flattened filter (one GEMM, as im2col frameworks do), a
//! pooling a reduction over each window. Gradients follow from the parts (`Patches` has its
//! adjoint as gradient); max pooling alone has a rule of its own, TensorFlow's: the whole
//! gradient goes to the first maximum of each window.

use super::composite::{composite, Composite};
use super::patches::{image_dims, MaxPoolGrad, PatchFill, PatchSpec, PatchesGrad};
use super::primitive::TensorType;
use super::*;
use super::{conv_cpu, pool_cpu};
use crate::buffer::Buffer;
use crate::ops::reduce::ArgOp;

/// TensorFlow's `padding` argument, for the two spatial axes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Padding {
    Valid,
    Same,
    /// (before, after) per spatial axis.
    Explicit([(usize, usize); 2]),
}

/// Window sizes, strides and dilations of one 2-D op, `[rows, cols]` each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Window {
    pub kernel: [usize; 2],
    pub strides: [usize; 2],
    pub dilations: [usize; 2],
}

/// Output size and padding before, per axis, with TensorFlow's rules: SAME gives
/// ceil(size / stride) outputs and puts the odd padding element after.
fn geometry(image: [usize; 2], w: &Window, padding: &Padding, op: &str) -> Result<PatchSpec> {
    let mut out = [0; 2];
    let mut pad = [0; 2];
    for axis in 0..2 {
        let (size, k, s, d) = (image[axis], w.kernel[axis], w.strides[axis], w.dilations[axis]);
        if k == 0 || s == 0 || d == 0 {
            return Err(Error::InvalidArgument(format!(
                "window sizes, strides and dilations must be positive, got kernel {:?}, strides {:?}, dilations {:?} [Op:{op}]",
                w.kernel, w.strides, w.dilations
            )));
        }
        // Sizes past 2^31 are refused: no image has them, and the GPU indexes with u32.
        const LIMIT: usize = i32::MAX as usize;
        let too_big = || {
            Error::InvalidArgument(format!(
                "window of kernel {:?}, strides {:?}, dilations {:?} is too large [Op:{op}]",
                w.kernel, w.strides, w.dilations
            ))
        };
        let span =
            (k - 1).checked_mul(d).map(|v| v + 1).filter(|&v| v <= LIMIT).ok_or_else(too_big)?;
        if k.checked_mul(w.kernel[1 - axis]).is_none_or(|v| v > LIMIT) || s > LIMIT {
            return Err(too_big());
        }
        (out[axis], pad[axis]) = match padding {
            Padding::Same => {
                let o = size.div_ceil(s);
                let total = ((o.max(1) - 1) * s + span).saturating_sub(size);
                (o, total / 2)
            }
            Padding::Valid | Padding::Explicit(_) => {
                let (before, after) = match padding {
                    Padding::Explicit(p) => p[axis],
                    _ => (0, 0),
                };
                let padded = size.saturating_add(before).saturating_add(after);
                if padded < span {
                    let negative = (padded as i64 - span as i64 + s as i64) / s as i64;
                    return Err(Error::InvalidArgument(format!(
                        "Computed output size would be negative: {negative} [input_size: {padded}, effective_filter_size: {span}, stride: {s}] [Op:{op}]"
                    )));
                }
                ((padded - span) / s + 1, before)
            }
        };
    }
    Ok(PatchSpec {
        kernel: w.kernel,
        strides: w.strides,
        dilations: w.dilations,
        pad,
        out,
        fill: PatchFill::Zero,
    })
}

fn image_of(x: &Tensor, op: &str) -> Result<[usize; 2]> {
    image_dims(x, op).map(|[_, h, w, _]| [h, w])
}

fn float_only(x: &Tensor, op: &str) -> Result<()> {
    if !x.dtype().is_floating() {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, float, double [Op:{op}]",
            x.dtype()
        )));
    }
    Ok(())
}

/// `tf.image.extract_patches` with its `[1, r, c, 1]`-style arguments reduced to `[r, c]`.
pub fn extract_patches(x: &Tensor, w: &Window, padding: &Padding) -> Result<Tensor> {
    let spec = geometry(image_of(x, "ExtractImagePatches")?, w, padding, "ExtractImagePatches")?;
    apply1(&Op::Patches(spec), &[x])
}

/// `tf.nn.conv2d` (NHWC): `filters` is `[KH, KW, C_in, C_out]`. A `Conv2D` node whose gradients
/// are the `Conv2DBackpropInput`/`Conv2DBackpropFilter` nodes, as in TensorFlow's graphs.
pub fn conv2d(x: &Tensor, filters: &Tensor, w: &Window, padding: &Padding) -> Result<Tensor> {
    composite(Composite::Conv2D { window: *w, padding: padding.clone() }, &[x, filters])
}

/// The geometry of a convolution of `x` by `filters`, checking both as TensorFlow does.
fn conv_spec(x: &Tensor, filters: &Tensor, w: &Window, padding: &Padding) -> Result<PatchSpec> {
    let op = "Conv2D";
    let image = image_of(x, op)?;
    if x.dtype() == DType::Bool || x.dtype().is_complex() {
        return Err(Error::InvalidArgument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, float, double, int32 [Op:{op}]",
            x.dtype()
        )));
    }
    let &[kh, kw, cin, _] = filters.dims() else {
        return Err(Error::InvalidArgument(format!(
            "filter must be 4-dimensional [height, width, in_channels, out_channels], got shape {:?} [Op:{op}]",
            filters.dims()
        )));
    };
    if filters.dtype() != x.dtype() {
        return Err(Error::InvalidArgument(format!(
            "filter must have the input's dtype {}, got {} [Op:{op}]",
            x.dtype(),
            filters.dtype()
        )));
    }
    let c = x.dims()[3];
    if c != cin {
        return Err(Error::InvalidArgument(format!(
            "input depth must be evenly divisible by filter depth: {c} vs {cin} (grouped convolutions are not supported) [Op:{op}]"
        )));
    }
    geometry(image, &Window { kernel: [kh, kw], ..*w }, padding, op)
}

/// A 1x1, stride-1, unpadded window: the image is its own patch matrix.
fn pointwise(spec: &PatchSpec, image: [usize; 2]) -> bool {
    spec.window() == 1 && spec.strides == [1, 1] && spec.pad == [0, 0] && spec.out == image
}

/// The image's windows as rows `[N*OH*OW, KH*KW*C]`.
fn patch_rows(x: &Tensor, spec: &PatchSpec) -> Result<Tensor> {
    let cols = if pointwise(spec, image_of(x, "Conv2D")?) {
        x.clone()
    } else {
        apply1(&Op::Patches(spec.clone()), &[x])?
    };
    reshape(&cols, &[-1, spec.window() as i64 * x.dims()[3] as i64])
}

/// Conv2D's decomposition: patches times the flattened filter (one GEMM).
pub(crate) fn conv2d_composed(x: &Tensor, f: &Tensor, w: &Window, p: &Padding) -> Result<Tensor> {
    let spec = conv_spec(x, f, w, p)?;
    let (k, cout) = (spec.window() as i64 * x.dims()[3] as i64, f.dims()[3] as i64);
    let product = matmul(&patch_rows(x, &spec)?, &reshape(f, &[k, cout])?, Default::default())?;
    reshape(&product, &[-1, spec.out[0] as i64, spec.out[1] as i64, cout])
}

/// Conv2D and its gradients on host float32/float64 tensors, by the tiled kernels of
/// `conv_cpu` (no patch matrix); None for other dtypes, which run the decomposition. The
/// geometry and its errors are the decomposition's.
pub(crate) fn direct_cpu(c: &Composite, inputs: &[&Tensor]) -> Result<Option<Tensor>> {
    let float = |t: &Tensor| matches!(t.dtype(), DType::F32 | DType::F64);
    let supported = matches!(
        c,
        Composite::MaxPool { .. }
            | Composite::AvgPool { .. }
            | Composite::Conv2D { .. }
            | Composite::Conv2DBackpropInput { .. }
            | Composite::Conv2DBackpropFilter { .. }
    );
    if !supported || !inputs.iter().all(|t| float(t)) {
        return Ok(None);
    }
    // Composites are placed part by part; these kernels run only where the whole op would be
    // placed on a CPU (a GPU that can run the parts keeps the decomposition).
    let placement = crate::device::place(c.tf_name(), |i| i < crate::gpu::visible_count())?;
    if !placement.device.is_cpu() {
        return Ok(None);
    }
    for t in inputs {
        t.host()?;
    }
    crate::device::log(c.tf_name(), placement.device);
    let Some(out) = direct_on_host(c, inputs)? else { return Ok(None) };
    Ok(Some(match out.device() == placement.device {
        true => out,
        false => out.to_device(placement.device)?.unwrap_or(out),
    }))
}

fn direct_on_host(c: &Composite, inputs: &[&Tensor]) -> Result<Option<Tensor>> {
    let (window, padding) = match c {
        Composite::MaxPool { window, padding } | Composite::AvgPool { window, padding } => {
            return pooled_cpu(c, inputs[0], window, padding);
        }
        Composite::Conv2D { window, padding }
        | Composite::Conv2DBackpropInput { window, padding }
        | Composite::Conv2DBackpropFilter { window, padding } => (window, padding),
        _ => return Ok(None),
    };
    let (x, f) = (inputs[0], inputs[1]);
    let spec = conv_spec(x, f, window, padding)?;
    let &[n, h, w, ch] = x.dims() else { unreachable!("conv_spec checked the rank") };
    let shape = conv_cpu::ConvShape { image: [n, h, w, ch], spec: &spec, c_out: f.dims()[3] };
    let out_dims = [n, spec.out[0], spec.out[1], f.dims()[3]];
    check_output(&spec, out_dims, x.dtype(), c.tf_name())?;
    let gradient = || -> Result<&Tensor> {
        let g = inputs[2];
        if g.dims() != out_dims || g.dtype() != x.dtype() {
            return Err(Error::InvalidArgument(format!(
                "{}: out_backprop of shape {} and dtype {} does not match the convolution's output {out_dims:?} of {}",
                c.tf_name(),
                g.shape(),
                g.dtype(),
                x.dtype()
            )));
        }
        Ok(g)
    };
    let out = match (c, x.buffer(), f.buffer()) {
        (Composite::Conv2D { .. }, Buffer::F32(xv), Buffer::F32(fv)) => {
            Buffer::F32(conv_cpu::forward(shape, xv, fv))
        }
        (Composite::Conv2D { .. }, Buffer::F64(xv), Buffer::F64(fv)) => {
            Buffer::F64(conv_cpu::forward(shape, xv, fv))
        }
        (Composite::Conv2DBackpropInput { .. }, _, fb) => match (fb, gradient()?.buffer()) {
            (Buffer::F32(fv), Buffer::F32(gv)) => {
                Buffer::F32(conv_cpu::input_gradient(shape, fv, gv))
            }
            (Buffer::F64(fv), Buffer::F64(gv)) => {
                Buffer::F64(conv_cpu::input_gradient(shape, fv, gv))
            }
            _ => return Ok(None),
        },
        (Composite::Conv2DBackpropFilter { .. }, xb, _) => match (xb, gradient()?.buffer()) {
            (Buffer::F32(xv), Buffer::F32(gv)) => {
                Buffer::F32(conv_cpu::filter_gradient(shape, xv, gv))
            }
            (Buffer::F64(xv), Buffer::F64(gv)) => {
                Buffer::F64(conv_cpu::filter_gradient(shape, xv, gv))
            }
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    let dims = match c {
        Composite::Conv2D { .. } => out_dims.to_vec(),
        Composite::Conv2DBackpropInput { .. } => x.dims().to_vec(),
        _ => f.dims().to_vec(),
    };
    Ok(Some(Tensor::from_buffer_unchecked(out, Shape(dims))))
}

/// The dims of Conv2D's output for these operands (checked as the op checks them).
pub(crate) fn conv2d_dims(
    x: &Tensor,
    f: &Tensor,
    window: &Window,
    padding: &Padding,
) -> Result<[usize; 4]> {
    let spec = conv_spec(x, f, window, padding)?;
    let out_dims = [x.dims()[0], spec.out[0], spec.out[1], f.dims()[3]];
    check_output(&spec, out_dims, x.dtype(), "Conv2D")?;
    Ok(out_dims)
}

/// Conv2D of host `x` and `f` (their values `xs`, `fs`) with `epilogue(offset, tile, dst)` run
/// on each tile of output rows in cache (`conv_cpu::forward_then`).
pub(crate) fn conv2d_then<T: crate::element::Num + 'static>(
    (x, xs): (&Tensor, &[T]),
    (f, fs): (&Tensor, &[T]),
    window: &Window,
    padding: &Padding,
    epilogue: impl Fn(usize, &[T], &mut [std::mem::MaybeUninit<T>]) + Sync,
) -> Result<Vec<T>> {
    let spec = conv_spec(x, f, window, padding)?;
    let &[n, h, w, ch] = x.dims() else { unreachable!("conv_spec checked the rank") };
    check_output(&spec, [n, spec.out[0], spec.out[1], f.dims()[3]], x.dtype(), "Conv2D")?;
    let shape = conv_cpu::ConvShape { image: [n, h, w, ch], spec: &spec, c_out: f.dims()[3] };
    Ok(conv_cpu::forward_then(shape, xs, fs, epilogue))
}

/// The checks the decomposition's `Patches` makes: a geometry in bounds and an output that can
/// be allocated (explicit padding from Python is unbounded), so that a huge request raises
/// instead of overflowing an index or aborting on allocation.
fn check_output(spec: &PatchSpec, dims: [usize; 4], dtype: DType, op: &str) -> Result<()> {
    spec.check(op)?;
    let total = dims.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    crate::shape::check_alloc(total.unwrap_or(usize::MAX), dtype)
}

/// MaxPool and AvgPool of a host float32/float64 image in one pass (`pool_cpu`).
fn pooled_cpu(c: &Composite, x: &Tensor, w: &Window, padding: &Padding) -> Result<Option<Tensor>> {
    let (op, how) = match c {
        Composite::MaxPool { .. } => ("MaxPool", pool_cpu::Pooling::Max),
        _ => ("AvgPool", pool_cpu::Pooling::Average),
    };
    if !matches!(x.dtype(), DType::F32 | DType::F64) {
        return Ok(None);
    }
    let spec = geometry(image_of(x, op)?, w, padding, op)?;
    let &[n, h, wd, ch] = x.dims() else { unreachable!("image_of checked the rank") };
    check_output(&spec, [n, spec.out[0], spec.out[1], ch], x.dtype(), op)?;
    let out = match x.buffer() {
        Buffer::F32(v) => Buffer::F32(pool_cpu::pool(v, [n, h, wd, ch], &spec, how)),
        Buffer::F64(v) => Buffer::F64(pool_cpu::pool(v, [n, h, wd, ch], &spec, how)),
        _ => return Ok(None),
    };
    Ok(Some(Tensor::from_buffer_unchecked(out, Shape(vec![n, spec.out[0], spec.out[1], ch]))))
}

/// Conv2DBackpropInput: the gradient `g` (`[N, OH, OW, C_out]`) of a convolution, back to an
/// image shaped like `x` (read for its dims only).
pub(crate) fn conv2d_backprop_input(
    x: &Tensor,
    f: &Tensor,
    g: &Tensor,
    w: &Window,
    p: &Padding,
) -> Result<Tensor> {
    let spec = conv_spec(x, f, w, p)?;
    let &[n, rows, cols, c] = x.dims() else { unreachable!("conv_spec checked the rank") };
    let (k, cout) = (spec.window() as i64 * c as i64, f.dims()[3] as i64);
    let grad_rows = reshape(g, &[-1, cout])?;
    let flat_filter = reshape(f, &[k, cout])?;
    let grad_cols =
        matmul(&grad_rows, &flat_filter, MatMulAttrs { transpose_b: true, ..Default::default() })?;
    if pointwise(&spec, [rows, cols]) {
        return reshape(&grad_cols, &[n as i64, rows as i64, cols as i64, c as i64]);
    }
    let grad_cols = reshape(&grad_cols, &[-1, spec.out[0] as i64, spec.out[1] as i64, k])?;
    apply1(&Op::PatchesGrad(PatchesGrad { spec, image: [rows, cols] }), &[&grad_cols])
}

/// `tf.nn.conv2d_transpose`: TensorFlow's Conv2DBackpropInput called for itself, the gradient
/// `g` of a convolution of an image of `input_sizes` by `f`. The composite reads its image input
/// for the shape only, so zeros stand in for it; no forward convolution runs.
pub fn conv2d_input_gradient(
    input_sizes: &[i64],
    f: &Tensor,
    g: &Tensor,
    w: &Window,
    p: &Padding,
) -> Result<Tensor> {
    let op = "Conv2DBackpropInput";
    if input_sizes.len() != 4 || input_sizes.iter().any(|&d| d < 0) {
        return Err(Error::InvalidArgument(format!(
            "input_sizes must be 4 non-negative sizes [batch, rows, cols, channels], got {input_sizes:?} [Op:{op}]"
        )));
    }
    let x = zeros(input_sizes, g.dtype())?;
    let spec = conv_spec(&x, f, w, p)?;
    let expected = [x.dims()[0], spec.out[0], spec.out[1], f.dims()[3]];
    if g.dims() != expected {
        return Err(Error::InvalidArgument(format!(
            "Conv2DSlowBackpropInput: Size of out_backprop doesn't match computed: actual = {:?}, computed = {expected:?} [Op:{op}]",
            g.dims()
        )));
    }
    composite(Composite::Conv2DBackpropInput { window: *w, padding: p.clone() }, &[&x, f, g])
}

/// Conv2DBackpropFilter: the gradient `g` of a convolution of `x`, as a filter shaped like `f`.
pub(crate) fn conv2d_backprop_filter(
    x: &Tensor,
    f: &Tensor,
    g: &Tensor,
    w: &Window,
    p: &Padding,
) -> Result<Tensor> {
    let spec = conv_spec(x, f, w, p)?;
    let cout = f.dims()[3] as i64;
    let product = matmul(
        &patch_rows(x, &spec)?,
        &reshape(g, &[-1, cout])?,
        MatMulAttrs { transpose_a: true, ..Default::default() },
    )?;
    reshape(&product, &f.shape().dims_i64())
}

/// `tf.nn.depthwise_conv2d` (NHWC): `filter` is `[KH, KW, C, M]`, each input channel convolved
/// with its own `M` filters; the output has `C * M` channels, channel `c * M + m`. A
/// `DepthwiseConv2dNative` node, as in TensorFlow's graphs.
pub fn depthwise_conv2d(x: &Tensor, filter: &Tensor, w: &Window, p: &Padding) -> Result<Tensor> {
    composite(Composite::DepthwiseConv2dNative { window: *w, padding: p.clone() }, &[x, filter])
}

/// The geometry of a depthwise convolution, checking both operands as TensorFlow does.
fn depthwise_spec(x: &Tensor, f: &Tensor, w: &Window, padding: &Padding) -> Result<PatchSpec> {
    let op = "DepthwiseConv2dNative";
    let image = image_of(x, op)?;
    float_only(x, op)?;
    let &[kh, kw, cin, _] = f.dims() else {
        return Err(Error::InvalidArgument(format!(
            "filter must be 4-dimensional: {} [Op:{op}]",
            super::primitive::describe_dims(&TensorType::of(f).dims)
        )));
    };
    if f.dtype() != x.dtype() {
        return Err(Error::InvalidArgument(format!(
            "cannot compute {op} as input #1(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{op}]",
            x.dtype(),
            f.dtype()
        )));
    }
    check_depthwise_channels(Some(x.dims()[3]), Some(cin), op)?;
    geometry(image, &Window { kernel: [kh, kw], ..*w }, padding, op)
}

/// The input's channels must be the filter's third dimension. TensorFlow's oneDNN kernel words
/// a count that does not divide as below (and fails less clearly where it divides).
pub(crate) fn check_depthwise_channels(
    c: Option<usize>,
    cin: Option<usize>,
    op: &str,
) -> Result<()> {
    let (Some(c), Some(cin)) = (c, cin) else { return Ok(()) };
    if c == cin {
        return Ok(());
    }
    let message = if cin == 0 || c % cin != 0 {
        format!("input depth must be evenly divisible by filter depth: {c} vs {cin}")
    } else {
        format!("input and filter must have the same depth: {c} vs {cin}")
    };
    Err(Error::InvalidArgument(format!("{message} [Op:{op}]")))
}

/// DepthwiseConv2dNative's decomposition: the patches `[N, OH, OW, KH*KW*C]` as
/// `[N, OH, OW, KH*KW, C, 1]` times the filter as `[KH*KW, C, M]`, summed over the taps.
pub(crate) fn depthwise_conv2d_composed(
    x: &Tensor,
    f: &Tensor,
    w: &Window,
    p: &Padding,
) -> Result<Tensor> {
    let spec = depthwise_spec(x, f, w, p)?;
    let [n, rows, cols, c] = image_dims(x, "DepthwiseConv2dNative")?;
    let (n, c, m, taps) = (n as i64, c as i64, f.dims()[3] as i64, spec.window() as i64);
    let (oh, ow) = (spec.out[0] as i64, spec.out[1] as i64);
    let windows =
        if pointwise(&spec, [rows, cols]) { x.clone() } else { apply1(&Op::Patches(spec), &[x])? };
    let windows = reshape(&windows, &[n, oh, ow, taps, c, 1])?;
    let products = mul(&windows, &reshape(f, &[taps, c, m])?)?;
    reshape(&reduce_sum(&products, Some(&[3]), false)?, &[n, oh, ow, c * m])
}

/// `tf.nn.conv1d` (NWC): a conv2d over a height-1 image; `filters` is `[K, C_in, C_out]`.
pub fn conv1d(
    x: &Tensor,
    filters: &Tensor,
    stride: usize,
    padding: &Padding,
    dilation: usize,
) -> Result<Tensor> {
    if x.rank() != 3 || filters.rank() != 3 {
        return Err(Error::InvalidArgument(format!(
            "conv1d takes a 3-D input [batch, width, channels] and a 3-D filter [width, in, out], got shapes {:?} and {:?} [Op:Conv1D]",
            x.dims(),
            filters.dims()
        )));
    }
    let padding = match padding {
        Padding::Explicit(p) => Padding::Explicit([(0, 0), p[1]]),
        other => other.clone(),
    };
    let w = Window { kernel: [1, 1], strides: [1, stride], dilations: [1, dilation] };
    let y = conv2d(&expand_dims(x, 1)?, &expand_dims(filters, 0)?, &w, &padding)?;
    squeeze(&y, Some(&[1]))
}

/// Windows as `[N, OH, OW, KH*KW, C]`, for the poolings.
fn pooled_windows(
    x: &Tensor,
    w: &Window,
    padding: &Padding,
    fill: PatchFill,
    op: &str,
) -> Result<(Tensor, PatchSpec)> {
    let spec = PatchSpec { fill, ..geometry(image_of(x, op)?, w, padding, op)? };
    let cols = apply1(&Op::Patches(spec.clone()), &[x])?;
    let c = x.dims()[3] as i64;
    let dims = [-1, spec.out[0] as i64, spec.out[1] as i64, spec.window() as i64, c];
    Ok((reshape(&cols, &dims)?, spec))
}

/// `tf.nn.max_pool2d`: a `MaxPool` node. The gradient goes to each window's first maximum
/// (TensorFlow's MaxPoolGrad), not split between ties as a reduction's would be.
pub fn max_pool2d(x: &Tensor, w: &Window, padding: &Padding) -> Result<Tensor> {
    composite(Composite::MaxPool { window: *w, padding: padding.clone() }, &[x])
}

pub(crate) fn max_pool_composed(x: &Tensor, w: &Window, padding: &Padding) -> Result<Tensor> {
    let op = "MaxPool";
    if x.dtype() == DType::Bool || x.dtype().is_complex() {
        return Err(Error::InvalidArgument(format!(
            "MaxPool takes real numbers, got {} [Op:{op}]",
            x.dtype()
        )));
    }
    let x = &at_least_lowest(x)?;
    reduce_max(&pooled_windows(x, w, padding, PatchFill::Lowest, op)?.0, Some(&[3]), false)
}

/// `x` with NaN and everything below the dtype's lowest value (-inf) raised to that value:
/// TensorFlow's CPU MaxPool starts each window at the lowest and takes only greater values,
/// so NaN never propagates and a window of -inf pools to the lowest finite value. (Its
/// MaxPoolGrad scans differently, from the window's first tap, NaN included: `max_pool_grad`
/// keeps that rule and reads the original `x`.)
fn at_least_lowest(x: &Tensor) -> Result<Tensor> {
    let lowest = match x.dtype() {
        DType::F16 => -65504.0,
        DType::BF16 => -3.389_531_389_251_535_5e38,
        DType::F32 => f64::from(f32::MIN),
        DType::F64 => f64::MIN,
        _ => return Ok(x.clone()),
    };
    let lowest = scalar_like(x, lowest);
    let raised = binary(BinaryOp::Maximum, x, &lowest)?;
    select(&unary(UnaryOp::IsNan, x)?, &lowest, &raised)
}

/// MaxPoolGrad: `g` (pooled) routed to each window's first maximum in `x`.
pub(crate) fn max_pool_grad(
    x: &Tensor,
    g: &Tensor,
    w: &Window,
    padding: &Padding,
) -> Result<Tensor> {
    let op = "MaxPoolGrad";
    let spec = PatchSpec { fill: PatchFill::Lowest, ..geometry(image_of(x, op)?, w, padding, op)? };
    apply1(&Op::MaxPoolGrad(MaxPoolGrad(spec)), &[x, g])
}

/// The values of `v` (an image like `x`) at each of `x`'s windows' first maximum:
/// `[N, OH, OW, C]`, the gradient of `MaxPoolGrad` with respect to its pooled gradient.
pub fn at_first_maxima(x: &Tensor, v: &Tensor, spec: &PatchSpec) -> Result<Tensor> {
    let windows = |t: &Tensor, fill| {
        let spec = PatchSpec { fill, ..spec.clone() };
        let dims =
            [-1, spec.out[0] as i64, spec.out[1] as i64, spec.window() as i64, t.dims()[3] as i64];
        reshape(&apply1(&Op::Patches(spec), &[t])?, &dims)
    };
    let first = arg_reduce(ArgOp::ArgMax, &windows(x, PatchFill::Lowest)?, 3, DType::I32)?;
    let (one, zero) = (scalar_like(v, 1.0), scalar_like(v, 0.0));
    let picked =
        mul(&windows(v, PatchFill::Zero)?, &one_hot(&first, spec.window(), &one, &zero, 3)?)?;
    reduce_sum(&picked, Some(&[3]), false)
}

/// `tf.nn.avg_pool2d`: an `AvgPool` node; padding is left out of each window's average, as in
/// TensorFlow.
pub fn avg_pool2d(x: &Tensor, w: &Window, padding: &Padding) -> Result<Tensor> {
    composite(Composite::AvgPool { window: *w, padding: padding.clone() }, &[x])
}

pub(crate) fn avg_pool_composed(x: &Tensor, w: &Window, padding: &Padding) -> Result<Tensor> {
    let op = "AvgPool";
    float_only(x, op)?;
    let (windows, spec) = pooled_windows(x, w, padding, PatchFill::Zero, op)?;
    let sums = reduce_sum(&windows, Some(&[3]), false)?;
    if *padding == Padding::Valid {
        return div(&sums, &scalar_like(&sums, spec.window() as f64));
    }
    // Each output's count of in-image taps, a constant of the geometry.
    let image = image_of(x, op)?;
    let count = |axis: usize, o: usize| {
        (0..spec.kernel[axis]).filter(|&k| spec.source(axis, o, k, image[axis]).is_some()).count()
    };
    let counts: Vec<f64> = (0..spec.out[0])
        .flat_map(|r| (0..spec.out[1]).map(move |c| (r, c)))
        .map(|(r, c)| (count(0, r) * count(1, c)).max(1) as f64)
        .collect();
    let counts = Tensor::from_slice(&counts, &[spec.out[0], spec.out[1], 1])?;
    div(&sums, &cast(&counts, x.dtype())?)
}
