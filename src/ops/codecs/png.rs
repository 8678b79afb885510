//! PNG through the `png` crate, with libpng's transformations as TensorFlow's `png_io.cc` asks
//! for them: palette and low bit depths expanded, tRNS to alpha or alpha stripped, RGB to grey
//! with libpng's fixed-point Rec. 601 weights (16-bit sums rounded, 8-bit truncated), 16 bits to
//! 8 by dropping the low byte, 8 to 16 by `v * 257`, and an added alpha channel filled with
//! `(1 << file bit depth) - 1` (so 1, 3 or 15 for low-bit-depth files, as libpng does).

use png::{BitDepth, ColorType, Transformations};

/// Samples of a decoded or to-be-encoded image.
pub enum Samples {
    U8(Vec<u8>),
    U16(Vec<u16>),
}

/// libpng's `png_set_rgb_to_gray(.., 0.299, 0.587)` coefficients over 2^15.
const RED: u32 = 9797;
const GREEN: u32 = 19234;
const BLUE: u32 = 32768 - RED - GREEN;

fn grey(r: u32, g: u32, b: u32, sixteen: bool) -> u32 {
    if r == g && r == b {
        r
    } else if sixteen {
        (RED * r + GREEN * g + BLUE * b + 16384) >> 15
    } else {
        (RED * r + GREEN * g + BLUE * b) >> 15
    }
}

/// Decodes to `channels` (0: the file's) samples of 8 or 16 bits; Err with TensorFlow's reason.
pub fn decode(
    data: &[u8],
    channels: usize,
    sixteen: bool,
) -> Result<(Samples, [usize; 3]), String> {
    let init = "Invalid PNG. Failed to initialize decoder.".to_string();
    // TensorFlow's own bound (2^29 pixels) applies below; the crate's default 64 MiB would refuse
    // images TensorFlow decodes.
    let limits = png::Limits { bytes: 1 << 33 };
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(data), limits);
    decoder.set_transformations(Transformations::EXPAND);
    let mut reader = decoder.read_info().map_err(|_| init.clone())?;
    let info = reader.info();
    let (width, height) = (info.width as usize, info.height as usize);
    let (color, depth) = (info.color_type, info.bit_depth);
    let has_trns = info.trns.is_some();
    if width == 0
        || height == 0
        || width >= 1 << 27
        || height >= 1 << 27
        || width * height >= 1 << 29
    {
        return Err(format!("PNG size too large for int: {width} by {height}"));
    }
    let channels = match (channels, color) {
        (0, ColorType::Indexed) => 3 + has_trns as usize,
        (0, c) => c.samples(),
        (c, _) => c,
    };
    let size = reader.output_buffer_size().ok_or_else(|| init.clone())?;
    let mut buf = vec![0u8; size];
    let bad = || format!("Invalid PNG data, size {}", data.len());
    reader.next_frame(&mut buf).map_err(|_| bad())?;
    reader.finish().map_err(|_| bad())?;
    let (out_color, out_depth) = reader.output_color_type();
    let src_channels = out_color.samples();
    let src16 = out_depth == BitDepth::Sixteen;
    let is_grey = matches!(color, ColorType::Grayscale | ColorType::GrayscaleAlpha);
    let src_alpha = matches!(out_color, ColorType::GrayscaleAlpha | ColorType::Rgba);
    let want_alpha = channels % 2 == 0;
    let want_grey = channels < 3;
    let filler = (1u32 << depth as u8) - 1;
    let pixel_bytes = src_channels * if src16 { 2 } else { 1 };
    let n = width * height;
    let mut out = vec![0u32; n * channels];
    let sample = |p: &[u8], k: usize| -> u32 {
        if src16 {
            u32::from(u16::from_be_bytes([p[2 * k], p[2 * k + 1]]))
        } else {
            u32::from(p[k])
        }
    };
    for (i, p) in buf.chunks_exact(pixel_bytes).take(n).enumerate() {
        let colour = if is_grey { 1 } else { 3 };
        let (mut v, mut nv) = ([0u32; 4], colour);
        for (k, slot) in v.iter_mut().enumerate().take(colour) {
            *slot = sample(p, k);
        }
        if want_grey && !is_grey {
            v[0] = grey(v[0], v[1], v[2], src16);
            nv = 1;
        } else if !want_grey && is_grey {
            v = [v[0], v[0], v[0], 0];
            nv = 3;
        }
        // libpng strips 16 bits to 8 after the colour transforms.
        if src16 && !sixteen {
            for x in &mut v[..nv] {
                *x >>= 8;
            }
        }
        if want_alpha {
            v[nv] = match (src_alpha, src16, sixteen) {
                (true, true, false) => sample(p, colour) >> 8,
                (true, _, _) => sample(p, colour),
                (false, true, false) => filler & 0xFF,
                (false, _, _) => filler,
            };
            nv += 1;
        }
        out[i * channels..(i + 1) * channels].copy_from_slice(&v[..nv]);
    }
    let dims = [height, width, channels];
    Ok(if sixteen {
        let widen = !src16;
        (
            Samples::U16(
                out.into_iter()
                    .map(|x| if widen { (x | x << 8) as u16 } else { x as u16 })
                    .collect(),
            ),
            dims,
        )
    } else {
        (Samples::U8(out.into_iter().map(|x| x as u8).collect()), dims)
    })
}

/// Encodes an image of 1-4 channels at 8 or 16 bits; `compression` -1 (zlib's default) to 9.
pub fn encode(samples: &Samples, dims: [usize; 3], compression: i64) -> Result<Vec<u8>, String> {
    let [height, width, channels] = dims;
    let color = match channels {
        1 => ColorType::Grayscale,
        2 => ColorType::GrayscaleAlpha,
        3 => ColorType::Rgb,
        4 => ColorType::Rgba,
        _ => return Err(format!("image must have 1, 2, 3, or 4 channels, got {channels}")),
    };
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width as u32, height as u32);
    enc.set_color(color);
    let bytes: Vec<u8> = match samples {
        Samples::U8(v) => {
            enc.set_depth(BitDepth::Eight);
            v.clone()
        }
        Samples::U16(v) => {
            enc.set_depth(BitDepth::Sixteen);
            v.iter().flat_map(|x| x.to_be_bytes()).collect()
        }
    };
    let level = if compression < 0 { 6 } else { compression as u8 };
    enc.set_deflate_compression(if level == 0 {
        png::DeflateCompression::NoCompression
    } else {
        png::DeflateCompression::Level(level)
    });
    let fail = |e: png::EncodingError| format!("PNG encoding failed: {e}");
    let mut writer = enc.write_header().map_err(fail)?;
    writer.write_image_data(&bytes).map_err(fail)?;
    writer.finish().map_err(fail)?;
    Ok(out)
}
