//! Image codecs (`tf.io.decode_*`, `tf.io.encode_*`): one primitive per TensorFlow op name,
//! on the host (bytes never go to the GPU), not differentiable. JPEG is libjpeg-turbo's code
//! (`jpeg.rs`), PNG, GIF, WebP and JPEG XL pure-Rust crates (`png.rs`, `gif.rs`, `webp.rs`,
//! `jxl.rs`), BMP
//! TensorFlow's own reader (`bmp.rs`); `decode.rs` holds the rules every decode op shares.

mod bmp;
mod decode;
mod gif;
mod jpeg;
mod jxl;
mod png;
mod webp;

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    describe_dims, from_variant, input, variant_attrs, Arity, Attrs, Decisions, Decode, GpuKernel,
    Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;

/// DecodeJpeg's and DecodeAndCropJpeg's attributes.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JpegOptions {
    pub channels: i64,
    pub ratio: i64,
    pub fancy_upscaling: bool,
    pub try_recover_truncated: bool,
    pub acceptable_fraction: f64,
    pub dct_method: String,
}

/// A codec primitive with its attributes. The variant names are TensorFlow's op names.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum CodecOp {
    DecodeJpeg(JpegOptions),
    /// Inputs: contents, an int32 crop window [y, x, height, width].
    DecodeAndCropJpeg(JpegOptions),
    DecodePng {
        channels: i64,
        dtype: DType,
    },
    DecodeGif {},
    DecodeBmp {
        channels: i64,
    },
    DecodeWebP {
        channels: i64,
        dtype: DType,
    },
    DecodeImage {
        channels: i64,
        dtype: DType,
        expand_animations: bool,
    },
    /// Decodes JPEG XL, and PNG, JPEG and BMP as the other decode ops (not GIF).
    DecodeJxl {
        channels: i64,
        dtype: DType,
    },
    /// Input: uint8 or uint16 images `[..., height, width, channels]`; one string per image.
    EncodePng {
        compression: i64,
    },
    EncodeJpeg {
        format: String,
        quality: i64,
        progressive: bool,
        optimize_size: bool,
        chroma_downsampling: bool,
        density_unit: String,
        x_density: i64,
        y_density: i64,
        xmp_metadata: String,
    },
    /// Inputs: a uint8 image, an int32 scalar quality.
    EncodeJpegVariableQuality {},
    ExtractJpegShape {
        output_type: DType,
    },
}

use CodecOp::*;

const NAMES: &[&str] = &[
    "DecodeJpeg",
    "DecodeAndCropJpeg",
    "DecodePng",
    "DecodeGif",
    "DecodeBmp",
    "DecodeWebP",
    "DecodeImage",
    "DecodeJxl",
    "EncodePng",
    "EncodeJpeg",
    "EncodeJpegVariableQuality",
    "ExtractJpegShape",
];

fn attr_error(attr: &str, value: impl std::fmt::Display, allowed: &str, op: &str) -> Error {
    Error::InvalidArgument(format!(
        "Value for attr '{attr}' of {value} is not in the list of allowed values: {allowed} \
         [Op:{op}]"
    ))
}

fn invalid(msg: impl std::fmt::Display, op: &str) -> Error {
    Error::InvalidArgument(format!("{msg} [Op:{op}]"))
}

/// The one string of a scalar `contents` input.
fn contents<'a>(t: &'a Tensor, op: &str) -> Result<&'a [u8]> {
    match t.buffer() {
        Buffer::Str(v) if t.shape().dims().is_empty() => Ok(v[0].as_bytes()),
        Buffer::Str(_) => Err(invalid(
            format!("`contents` must be scalar but got shape{}", describe_dims(&shape_of(t))),
            op,
        )),
        _ => Err(Error::unsupported_dtype(op, t.dtype())),
    }
}

fn shape_of(t: &Tensor) -> Vec<Option<usize>> {
    t.shape().dims().iter().map(|&d| Some(d)).collect()
}

fn check_channels(channels: i64, op: &str) -> Result<usize> {
    if [0, 1, 3, 4].contains(&channels) {
        Ok(channels as usize)
    } else {
        Err(invalid(format!("`channels` must be 0, 1, 3 or 4 but got {channels}"), op))
    }
}

impl CodecOp {
    /// What a decode op asks for, its attributes checked as TensorFlow's kernel constructor does.
    fn request(&self) -> Result<decode::Request> {
        let op = self.tf_name();
        let mut r = decode::Request {
            op,
            channels: 3,
            dtype: DType::U8,
            expand_animations: true,
            jpeg: jpeg::JpegFlags::default(),
        };
        match self {
            DecodeJpeg(o) | DecodeAndCropJpeg(o) => {
                let ratio = o.ratio;
                if ![1, 2, 4, 8].contains(&ratio) {
                    return Err(invalid(format!("ratio must be 1, 2, 4, or 8, got {ratio}"), op));
                }
                let accurate =
                    match o.dct_method.as_str() {
                        "" | "INTEGER_FAST" => false,
                        "INTEGER_ACCURATE" => true,
                        _ => return Err(invalid(
                            "dct_method must be one of {'', 'INTEGER_FAST', 'INTEGER_ACCURATE'}",
                            op,
                        )),
                    };
                r.jpeg.ratio = ratio as u32;
                r.jpeg.fancy_upscaling = o.fancy_upscaling;
                r.jpeg.try_recover_truncated = o.try_recover_truncated;
                r.jpeg.min_acceptable_fraction = o.acceptable_fraction as f32;
                r.jpeg.accurate_dct = accurate;
                r.channels = check_channels(o.channels, op)?;
            }
            DecodePng { channels, dtype } => {
                if !matches!(dtype, DType::U8 | DType::U16) {
                    return Err(attr_error("dtype", dtype.name(), "uint8, uint16", op));
                }
                r.dtype = *dtype;
                r.channels = check_channels(*channels, op)?;
            }
            DecodeWebP { channels, dtype } => {
                if !matches!(dtype, DType::U8 | DType::U16 | DType::F32) {
                    return Err(attr_error("dtype", dtype.name(), "uint8, uint16, float", op));
                }
                r.dtype = *dtype;
                r.channels = check_channels(*channels, op)?;
            }
            DecodeImage { channels, dtype, expand_animations } => {
                if !matches!(dtype, DType::U8 | DType::U16 | DType::F32) {
                    return Err(attr_error("dtype", dtype.name(), "uint8, uint16, float", op));
                }
                r.dtype = *dtype;
                r.expand_animations = *expand_animations;
                r.channels = check_channels(*channels, op)?;
            }
            DecodeJxl { channels, dtype } => {
                if *dtype != DType::U8 {
                    return Err(attr_error("dtype", dtype.name(), "uint8", op));
                }
                r.channels = check_channels(*channels, op)?;
            }
            DecodeBmp { channels } => r.channels = check_channels(*channels, op)?,
            DecodeGif {} => {}
            _ => return Err(Error::Internal(format!("{op} is not a decode op"))),
        }
        Ok(r)
    }

    pub(crate) fn is_decode(&self) -> bool {
        !matches!(
            self,
            EncodePng { .. }
                | EncodeJpeg { .. }
                | EncodeJpegVariableQuality {}
                | ExtractJpegShape { .. }
        )
    }
}

impl Primitive for CodecOp {
    fn tf_name(&self) -> &'static str {
        match self {
            DecodeJpeg(_) => "DecodeJpeg",
            DecodeAndCropJpeg(_) => "DecodeAndCropJpeg",
            DecodePng { .. } => "DecodePng",
            DecodeGif {} => "DecodeGif",
            DecodeBmp { .. } => "DecodeBmp",
            DecodeWebP { .. } => "DecodeWebP",
            DecodeImage { .. } => "DecodeImage",
            DecodeJxl { .. } => "DecodeJxl",
            EncodePng { .. } => "EncodePng",
            EncodeJpeg { .. } => "EncodeJpeg",
            EncodeJpegVariableQuality {} => "EncodeJpegVariableQuality",
            ExtractJpegShape { .. } => "ExtractJpegShape",
        }
    }

    fn arity(&self) -> Arity {
        match self {
            DecodeAndCropJpeg(_) | EncodeJpegVariableQuality {} => Arity::Exactly(2),
            _ => Arity::Exactly(1),
        }
    }

    /// The variant's fields (the name says which variant).
    fn attrs(&self) -> Attrs {
        variant_attrs(self)
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let op = self.tf_name();
        let x = input(inputs, 0)?;
        if (self.is_decode() || matches!(self, ExtractJpegShape { .. })) && x.dtype != DType::String
        {
            return Err(Error::unsupported_dtype(op, x.dtype));
        }
        Ok(vec![match self {
            ExtractJpegShape { output_type } => {
                if !matches!(output_type, DType::I32 | DType::I64) {
                    return Err(attr_error("output_type", output_type.name(), "int32, int64", op));
                }
                TensorType { dtype: *output_type, dims: vec![Some(3)] }
            }
            EncodePng { compression } => {
                if !matches!(x.dtype, DType::U8 | DType::U16) {
                    return Err(attr_error("T", x.dtype.name(), "uint8, uint16", op));
                }
                if !(-1..=9).contains(compression) {
                    return Err(invalid(
                        format!("compression should be in [-1,9], got {compression}"),
                        op,
                    ));
                }
                if x.rank() < 3 {
                    return Err(invalid(
                        format!("images must be at least rank 3{}", describe_dims(&x.dims)),
                        op,
                    ));
                }
                TensorType { dtype: DType::String, dims: x.dims[..x.rank() - 3].to_vec() }
            }
            EncodeJpeg { format, quality, density_unit, .. } => {
                if !["", "grayscale", "rgb"].contains(&format.as_str()) {
                    return Err(attr_error(
                        "format",
                        format!("\"{format}\""),
                        "\"\", \"grayscale\", \"rgb\"",
                        op,
                    ));
                }
                if !["in", "cm"].contains(&density_unit.as_str()) {
                    return Err(attr_error(
                        "density_unit",
                        format!("\"{density_unit}\""),
                        "\"in\", \"cm\"",
                        op,
                    ));
                }
                encode_image_check(x, op)?;
                if !(0..=100).contains(quality) {
                    return Err(invalid(format!("quality must be in [0,100], got {quality}"), op));
                }
                TensorType { dtype: DType::String, dims: vec![] }
            }
            EncodeJpegVariableQuality {} => {
                encode_image_check(x, op)?;
                let q = input(inputs, 1)?;
                if q.dtype != DType::I32 {
                    return Err(attr_error("T", q.dtype.name(), "int32", op));
                }
                if q.rank() != 0 {
                    return Err(invalid(
                        format!("quality must be scalar: {}", describe_dims(&q.dims)),
                        op,
                    ));
                }
                TensorType { dtype: DType::String, dims: vec![] }
            }
            _ => {
                let r = self.request()?;
                if let DecodeAndCropJpeg(_) = self {
                    let w = input(inputs, 1)?;
                    if w.dtype != DType::I32 {
                        return Err(Error::unsupported_dtype(op, w.dtype));
                    }
                }
                let rank = match self {
                    DecodeGif {} | DecodeWebP { .. } => 4,
                    _ => 3,
                };
                let mut dims = vec![None; rank];
                if r.channels != 0 && !matches!(self, DecodeGif {}) {
                    dims[rank - 1] = Some(r.channels);
                }
                TensorType { dtype: r.dtype, dims }
            }
        }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let types: Vec<TensorType> = inputs.iter().map(|t| TensorType::of(t)).collect();
        self.infer(&types)?;
        let op = self.tf_name();
        let x = inputs[0];
        let out = match self {
            ExtractJpegShape { output_type } => {
                let data = contents(x, op)?;
                let [h, w, c] = jpeg::shape(data).ok_or_else(|| {
                    invalid(format!("Invalid JPEG data, size {}", data.len()), op)
                })?;
                if *output_type == DType::I64 {
                    Tensor::from_slice(&[h as i64, w as i64, c as i64], &[3])?
                } else {
                    Tensor::from_slice(&[h as i32, w as i32, c as i32], &[3])?
                }
            }
            EncodePng { compression } => encode_png(x, *compression)?,
            EncodeJpeg {
                format,
                quality,
                progressive,
                optimize_size,
                chroma_downsampling,
                density_unit,
                x_density,
                y_density,
                xmp_metadata,
            } => {
                let channels = x.shape().dims()[2];
                let want = match format.as_str() {
                    "grayscale" => Some(1),
                    "rgb" => Some(3),
                    _ => None,
                };
                if let Some(want) = want.filter(|&w| w != channels) {
                    return Err(invalid(
                        format!(
                            "format {format} expects {want} channels, got {}",
                            describe_dims(&shape_of(x))
                        ),
                        op,
                    ));
                }
                let flags = jpeg::EncodeFlags {
                    quality: *quality as i32,
                    progressive: *progressive,
                    optimize_size: *optimize_size,
                    chroma_downsampling: *chroma_downsampling,
                    density_unit: if density_unit == "cm" { 2 } else { 1 },
                    x_density: density(*x_density, "x_density", op)?,
                    y_density: density(*y_density, "y_density", op)?,
                    xmp_metadata: xmp_metadata.as_bytes().to_vec(),
                };
                encode_jpeg(x, &flags, op)?
            }
            EncodeJpegVariableQuality {} => {
                let quality = inputs[1].to_vec::<i32>()?[0];
                if !(0..=100).contains(&quality) {
                    return Err(invalid(format!("quality must be in [0,100], got {quality}"), op));
                }
                let flags = jpeg::EncodeFlags { quality, ..Default::default() };
                encode_jpeg(x, &flags, op)?
            }
            _ => {
                let mut r = self.request()?;
                let data = contents(x, op)?;
                if let DecodeAndCropJpeg(_) = self {
                    r.jpeg.crop = Some(crop_window(inputs[1], op)?);
                }
                decode::decode(data, &r)?
            }
        };
        Ok(vec![out])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("image codecs read and write bytes on the host"),
            differentiable: false,
            fusable: false,
        }
    }
}

fn strings(v: Vec<TfString>, dims: Vec<usize>) -> Tensor {
    Tensor::from_buffer_unchecked(Buffer::Str(v), Shape::new(dims))
}

fn density(v: i64, name: &str, op: &str) -> Result<u16> {
    u16::try_from(v).map_err(|_| invalid(format!("{name} must be in [0, 65535], got {v}"), op))
}

/// EncodeJpeg's image checks: uint8, 3-D, 1 or 3 channels.
fn encode_image_check(x: &TensorType, op: &str) -> Result<()> {
    if x.dtype != DType::U8 {
        return Err(attr_error("T", x.dtype.name(), "uint8", op));
    }
    if x.rank() != 3 {
        return Err(invalid(format!("image must be 3-dimensional{}", describe_dims(&x.dims)), op));
    }
    if let Some(c) = x.dims[2] {
        if c != 1 && c != 3 {
            return Err(invalid(
                format!("image must have 1 or 3 channels, got {}", describe_dims(&x.dims)),
                op,
            ));
        }
    }
    Ok(())
}

fn crop_window(t: &Tensor, op: &str) -> Result<[i64; 4]> {
    let dims = t.shape().dims();
    if dims.len() != 1 {
        return Err(invalid(
            format!("crop_window must be 1-D, got shape {}", describe_dims(&shape_of(t))),
            op,
        ));
    }
    if dims[0] != 4 {
        return Err(invalid(
            format!("crop_size must have four elements {}", describe_dims(&shape_of(t))),
            op,
        ));
    }
    let v = t.to_vec::<i32>()?;
    Ok([v[0].into(), v[1].into(), v[2].into(), v[3].into()])
}

fn encode_jpeg(x: &Tensor, flags: &jpeg::EncodeFlags, op: &str) -> Result<Tensor> {
    let dims = x.shape().dims().to_vec();
    let pixels = x.to_vec::<u8>()?;
    let bytes = jpeg::encode(&pixels, dims[0], dims[1], dims[2], flags)
        .ok_or_else(|| Error::Internal(format!("JPEG encoding failed [Op:{op}]")))?;
    Ok(strings(vec![TfString::from_vec(bytes)], vec![]))
}

/// One PNG per image of a `[..., h, w, c]` batch.
fn encode_png(x: &Tensor, compression: i64) -> Result<Tensor> {
    let dims = x.shape().dims().to_vec();
    let r = dims.len();
    let image = [dims[r - 3], dims[r - 2], dims[r - 1]];
    let per = image.iter().product::<usize>();
    let batch: usize = dims[..r - 3].iter().product();
    let mut out = Vec::with_capacity(batch);
    let samples = match x.dtype() {
        DType::U16 => png::Samples::U16(x.to_vec::<u16>()?),
        _ => png::Samples::U8(x.to_vec::<u8>()?),
    };
    let failed = |i: usize| {
        Error::Internal(format!(
            "PNG encoding failed at the following flattened batch indices: {i} [Op:EncodePng]"
        ))
    };
    for i in 0..batch {
        let one = match &samples {
            png::Samples::U8(v) => png::Samples::U8(v[i * per..(i + 1) * per].to_vec()),
            png::Samples::U16(v) => png::Samples::U16(v[i * per..(i + 1) * per].to_vec()),
        };
        if image[2] == 0 || image[2] > 4 {
            return Err(invalid(
                format!("image must have 1, 2, 3, or 4 channels, got {}", image[2]),
                "EncodePng",
            ));
        }
        if image[0] == 0 || image[1] == 0 {
            return Err(failed(i));
        }
        let bytes = png::encode(&one, image, compression).map_err(|_| failed(i))?;
        out.push(TfString::from_vec(bytes));
    }
    Ok(strings(out, dims[..r - 3].to_vec()))
}

impl Decode for CodecOp {
    fn names() -> Vec<&'static str> {
        NAMES.to_vec()
    }

    fn decode(name: &str, attrs: &Attrs) -> Result<Self> {
        from_variant(name, attrs)
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    use crate::ops::registry::Op;
    let image =
        Tensor::from_slice(&(0..48u8).map(|v| v * 5).collect::<Vec<_>>(), &[4, 4, 3]).unwrap();
    let scalar = |b: Vec<u8>| strings(vec![TfString::from_vec(b)], vec![]);
    let flags = jpeg::EncodeFlags { quality: 90, ..Default::default() };
    let jpg = scalar(jpeg::encode(&image.to_vec::<u8>().unwrap(), 4, 4, 3, &flags).unwrap());
    let png_bytes =
        png::encode(&png::Samples::U8(image.to_vec::<u8>().unwrap()), [4, 4, 3], -1).unwrap();
    let png = scalar(png_bytes);
    let mut webp_bytes = Vec::new();
    image_webp::WebPEncoder::new(&mut webp_bytes)
        .encode(&image.to_vec::<u8>().unwrap(), 4, 4, image_webp::ColorType::Rgb8)
        .unwrap();
    let mut bmp = vec![0u8; 54];
    bmp[..2].copy_from_slice(b"BM");
    bmp[10] = 54;
    bmp[18] = 2;
    bmp[22] = 1;
    bmp[28] = 24;
    bmp.extend_from_slice(&[1, 2, 3, 4, 5, 6, 0, 0]);
    let options = |channels, ratio, dct_method: &str| JpegOptions {
        channels,
        ratio,
        fancy_upscaling: ratio == 1,
        try_recover_truncated: false,
        acceptable_fraction: 1.0,
        dct_method: dct_method.into(),
    };
    let ex = |op: CodecOp, inputs: Vec<Tensor>| (Op::Codecs(op), inputs);
    vec![
        ex(DecodeJpeg(options(3, 1, "")), vec![jpg.clone()]),
        ex(
            DecodeAndCropJpeg(options(0, 2, "INTEGER_ACCURATE")),
            vec![jpg.clone(), Tensor::from_slice(&[0i32, 0, 2, 2], &[4]).unwrap()],
        ),
        ex(DecodePng { channels: 4, dtype: DType::U16 }, vec![png.clone()]),
        ex(DecodeGif {}, vec![png.clone()]),
        ex(DecodeBmp { channels: 0 }, vec![scalar(bmp)]),
        ex(DecodeWebP { channels: 0, dtype: DType::U8 }, vec![scalar(webp_bytes)]),
        ex(
            DecodeImage { channels: 1, dtype: DType::F32, expand_animations: false },
            vec![jpg.clone()],
        ),
        ex(
            DecodeJxl { channels: 0, dtype: DType::U8 },
            vec![scalar(include_bytes!("../../../tests/fixtures/jxl/rgba_lossless.jxl").to_vec())],
        ),
        ex(EncodePng { compression: 3 }, vec![image.clone()]),
        ex(
            EncodeJpeg {
                format: String::new(),
                quality: 95,
                progressive: true,
                optimize_size: true,
                chroma_downsampling: false,
                density_unit: "cm".into(),
                x_density: 72,
                y_density: 72,
                xmp_metadata: "<x/>".into(),
            },
            vec![image.clone()],
        ),
        ex(EncodeJpegVariableQuality {}, vec![image, Tensor::scalar(50i32)]),
        ex(ExtractJpegShape { output_type: DType::I64 }, vec![jpg]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags() -> jpeg::JpegFlags {
        jpeg::JpegFlags::default()
    }

    /// Truncated and bit-flipped inputs are errors or images, never panics or overruns.
    #[test]
    fn corrupt_inputs_never_panic() {
        let pixels: Vec<u8> = (0..16 * 16 * 3).map(|i| (i * 7 % 256) as u8).collect();
        let ef = jpeg::EncodeFlags { quality: 80, progressive: true, ..Default::default() };
        let jpg = jpeg::encode(&pixels, 16, 16, 3, &ef).unwrap();
        let png_bytes = png::encode(&png::Samples::U8(pixels), [16, 16, 3], -1).unwrap();
        for file in [jpg, png_bytes] {
            for cut in (0..file.len()).step_by(7) {
                let mut f = flags();
                f.try_recover_truncated = cut % 2 == 0;
                let _ = jpeg::decode(&file[..cut], &f);
                let _ = png::decode(&file[..cut], 0, false);
                let _ = gif::decode(&file[..cut], true);
                let _ = bmp::decode(&file[..cut], 0);
                let _ = webp::decode(&file[..cut], 0, true);
                let _ = jpeg::shape(&file[..cut]);
            }
            for bit in (0..file.len() * 8).step_by(13) {
                let mut g = file.clone();
                g[bit / 8] ^= 1 << (bit % 8);
                let _ = jpeg::decode(&g, &flags());
                let _ = png::decode(&g, 3, true);
            }
        }
    }

    /// Truncated and bit-flipped JPEG XL files are errors or images, never panics.
    #[test]
    fn corrupt_jxl_never_panics() {
        let file = include_bytes!("../../../tests/fixtures/jxl/rgba_lossy.jxl");
        let (pixels, dims) = jxl::decode(file, 0).unwrap();
        assert_eq!(dims, [37, 53, 4]);
        assert_eq!(pixels.len(), 37 * 53 * 4);
        for cut in (0..file.len()).step_by(11) {
            assert!(jxl::decode(&file[..cut], 0).is_err());
        }
        for bit in (0..file.len() * 8).step_by(17) {
            let mut g = file.to_vec();
            g[bit / 8] ^= 1 << (bit % 8);
            if let Ok((pixels, [h, w, c])) = jxl::decode(&g, 0) {
                assert_eq!(pixels.len(), h * w * c);
            }
        }
    }

    /// A cut progressive file on which TensorFlow's recovering source loops forever: an error.
    #[test]
    fn recovering_a_corrupt_progressive_file_terminates() {
        let hex = "ffd8ffe000104a46494600010101012c012c0000ffdb0043000201010101010201010102020202020403\
                   020202020504040304060506060605060606070908060709070606080b08090a0a0a0a0a06080b0c0b\
                   0a0c090a0a0affc2000b080004000501011100ffc40014000100000000000000000000000000000003\
                   ffda00080101000000013fffc40017100003010000000000000000000000000005060714ff";
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let mut f = flags();
        f.try_recover_truncated = true;
        f.ratio = 8;
        f.accurate_dct = true;
        f.fancy_upscaling = false;
        assert!(jpeg::decode(&bytes, &f).is_none());
    }
}
