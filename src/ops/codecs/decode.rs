//! The decode ops as TensorFlow's `DecodeImageV2Op` runs them: every one sniffs the format from
//! the first bytes, and the op that was called decides what is allowed (DecodeJpeg decodes PNG
//! and GIF too, DecodeBmp only BMP, DecodeAndCropJpeg only JPEG), the output's rank (DecodeGif is
//! 4-D, animations need DecodeGif or DecodeImage) and the dtype conversion (8-bit samples times
//! 256 for uint16 or over 255 for float32; PNG's float32 goes through 16 bits, over 65535).

use super::jpeg::JpegFlags;
use super::png::Samples;
use super::{bmp, gif, jpeg, jxl, png, webp};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// What the called op asks for.
pub struct Request {
    pub op: &'static str,
    pub channels: usize,
    pub dtype: DType,
    pub expand_animations: bool,
    pub jpeg: JpegFlags,
}

enum Format {
    Jpeg,
    Png,
    Gif,
    Bmp,
    WebP,
    Jxl,
    Unknown,
}

fn sniff(data: &[u8]) -> Format {
    if data.starts_with(b"\xff\xd8\xff") {
        Format::Jpeg
    } else if data.starts_with(b"\x89PNG\r\n\x1a\n") {
        Format::Png
    } else if data.starts_with(b"GIF8") {
        Format::Gif
    } else if data.starts_with(b"BM") {
        Format::Bmp
    } else if data.starts_with(b"RIFF") && data.len() > 12 && &data[8..12] == b"WEBP" {
        Format::WebP
    } else if jxl::has_signature(data) {
        Format::Jxl
    } else {
        Format::Unknown
    }
}

fn invalid(msg: impl std::fmt::Display, op: &str) -> Error {
    Error::InvalidArgument(format!("{msg} [Op:{op}]"))
}

/// 8-bit samples in the requested dtype.
fn from_u8(data: Vec<u8>, dims: Vec<usize>, dtype: DType) -> Result<Tensor> {
    let shape = Shape::new(dims);
    Ok(match dtype {
        DType::U16 => {
            Tensor::from_vec(data.into_iter().map(|x| u16::from(x) * 256).collect(), shape)
        }
        DType::F32 => {
            let scale = (1.0f64 / 255.0) as f32;
            Tensor::from_vec(data.into_iter().map(|x| f32::from(x) * scale).collect(), shape)
        }
        _ => Tensor::from_vec(data, shape),
    })
}

/// Decodes `data` as the op in `r` does.
pub fn decode(data: &[u8], r: &Request) -> Result<Tensor> {
    let op = r.op;
    if data.is_empty() {
        return Err(invalid("Input is empty.", op));
    }
    match sniff(data) {
        Format::Jpeg => decode_jpeg(data, r),
        Format::Png => decode_png(data, r),
        Format::Gif => decode_gif(data, r),
        Format::Bmp => decode_bmp(data, r),
        Format::WebP => decode_webp(data, r),
        Format::Jxl => decode_jxl(data, r),
        Format::Unknown => Err(invalid(
            "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required.",
            op,
        )),
    }
}

/// DecodeBmp and DecodeAndCropJpeg refuse PNG and GIF files (the other ops decode them).
fn refuse_other_ops(op: &str, format: &str) -> Result<()> {
    match op {
        "DecodeBmp" => Err(invalid(
            format!(
                "Trying to decode {format} format using DecodeBmp op. Use `decode_{}` or \
                 `decode_image` instead.",
                format.to_lowercase()
            ),
            op,
        )),
        "DecodeAndCropJpeg" => Err(invalid(
            format!("DecodeAndCropJpeg operation can run on JPEG only, but detected {format}."),
            op,
        )),
        _ => Ok(()),
    }
}

fn decode_jpeg(data: &[u8], r: &Request) -> Result<Tensor> {
    let op = r.op;
    if r.channels == 4 {
        return Err(invalid("JPEG does not support 4 channels", op));
    }
    if op == "DecodeBmp" {
        return Err(invalid(
            "Trying to decode JPEG format using DecodeBmp op. Use `decode_jpeg` or \
             `decode_image` instead.",
            op,
        ));
    }
    let mut flags = r.jpeg.clone();
    flags.components = r.channels;
    let p = jpeg::decode(data, &flags)
        .ok_or_else(|| invalid("jpeg::Uncompress failed. Invalid JPEG data or crop window.", op))?;
    let mut dims = vec![p.height, p.width, p.channels];
    if op == "DecodeGif" {
        dims.insert(0, 1);
    }
    from_u8(p.data, dims, r.dtype)
}

fn decode_png(data: &[u8], r: &Request) -> Result<Tensor> {
    let op = r.op;
    let sixteen = r.dtype != DType::U8;
    let (samples, dims) = png::decode(data, r.channels, sixteen).map_err(|m| invalid(m, op))?;
    refuse_other_ops(op, "PNG")?;
    let mut dims = dims.to_vec();
    if op == "DecodeGif" {
        dims.insert(0, 1);
    }
    let shape = Shape::new(dims);
    Ok(match (samples, r.dtype) {
        (Samples::U8(v), _) => Tensor::from_vec(v, shape),
        (Samples::U16(v), DType::F32) => {
            let scale = (1.0f64 / 65535.0) as f32;
            Tensor::from_vec(v.into_iter().map(|x| f32::from(x) * scale).collect(), shape)
        }
        (Samples::U16(v), _) => Tensor::from_vec(v, shape),
    })
}

fn decode_gif(data: &[u8], r: &Request) -> Result<Tensor> {
    let op = r.op;
    if r.channels != 0 && r.channels != 3 {
        return Err(invalid(format!("channels must be 0 or 3 for GIF, got {}", r.channels), op));
    }
    refuse_other_ops(op, "GIF")?;
    let all = r.expand_animations;
    let (pixels, [frames, h, w, c]) = gif::decode(data, all)
        .map_err(|m| invalid(format!("Invalid GIF data (size {}), {m}", data.len()), op))?;
    let dims = match op {
        "DecodePng" | "DecodeJpeg" if frames != 1 => {
            return Err(invalid(
                format!(
                    "Got {frames} frames, but animated gifs can only be decoded by \
                     tf.io.decode_gif or tf.io.decode_image"
                ),
                op,
            ))
        }
        "DecodePng" | "DecodeJpeg" => vec![h, w, c],
        "DecodeImage" if !r.expand_animations => vec![h, w, c],
        "DecodeJxl" => return Err(invalid("Bad op type DecodeJxl", op)),
        _ => vec![frames, h, w, c],
    };
    from_u8(pixels, dims, r.dtype)
}

fn decode_bmp(data: &[u8], r: &Request) -> Result<Tensor> {
    let op = r.op;
    if r.channels == 1 {
        return Err(invalid(
            format!("`channels` must be 0, 3 or 4 for BMP, but got {}", r.channels),
            op,
        ));
    }
    match op {
        "DecodeBmp" | "DecodeImage" => {}
        "DecodeAndCropJpeg" => {
            return Err(invalid(
                "DecodeAndCropJpeg operation can run on JPEG only, but detected BMP.",
                op,
            ))
        }
        _ => {
            return Err(invalid(
                format!(
                    "Trying to decode BMP format using a wrong op. Use `decode_bmp` or \
                     `decode_image` instead. Op used: {op}"
                ),
                op,
            ))
        }
    }
    let (pixels, dims) = bmp::decode(data, r.channels).map_err(|m| invalid(m, op))?;
    from_u8(pixels, dims.to_vec(), r.dtype)
}

fn decode_webp(data: &[u8], r: &Request) -> Result<Tensor> {
    let op = r.op;
    if r.channels != 0 && r.channels != 3 && r.channels != 4 {
        return Err(invalid("WebP only supports 3 or 4 channels", op));
    }
    if r.dtype != DType::U8 {
        return Err(invalid("WebP only supports uint8 for dtype", op));
    }
    let (pixels, [frames, h, w, c]) =
        webp::decode(data, r.channels, r.expand_animations).map_err(|m| invalid(m, op))?;
    let dims = if r.expand_animations { vec![frames, h, w, c] } else { vec![h, w, c] };
    Ok(Tensor::from_vec(pixels, Shape::new(dims)))
}

/// Every decode op decodes JPEG XL the same way: 3-D uint8 (DecodeGif's too), the crop of
/// DecodeAndCropJpeg ignored, as TensorFlow's kernel does.
fn decode_jxl(data: &[u8], r: &Request) -> Result<Tensor> {
    let op = r.op;
    if r.dtype != DType::U8 {
        return Err(invalid("JXL only supports uint8 for dtype", op));
    }
    let (pixels, dims) = jxl::decode(data, r.channels).map_err(|m| invalid(m, op))?;
    Ok(Tensor::from_vec(pixels, Shape::new(dims.to_vec())))
}
