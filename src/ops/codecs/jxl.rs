//! JPEG XL through `jxl` (jxl-rs, the JPEG XL project's Rust decoder, which TensorFlow's own
//! `DecodeJxl` kernel wraps): 8-bit samples in the file's layout (grey, grey + alpha, RGB,
//! RGBA, CMYK from a Black extra channel), with no colour conversion, oriented as the header
//! says. An animation's frames are decoded in turn into one buffer, so the last one is returned,
//! as TensorFlow's kernel does.

use jxl::api::{
    check_signature, Event, ExtraChannel, JxlColorType, JxlDataFormat, JxlDecoder,
    JxlDecoderOptions, JxlOutputBuffer, JxlParallelRunner, JxlParallelRunnerFun, JxlPixelFormat,
    JxlSignature,
};
use rayon::prelude::*;

/// jxl-rs decodes groups of the image in parallel on rayon's pool (the CPU kernels' pool).
struct RayonRunner;

impl JxlParallelRunner for RayonRunner {
    fn run(&mut self, num: usize, fun: &JxlParallelRunnerFun<'_>) -> jxl::error::Result<()> {
        (0..num).into_par_iter().try_for_each(fun)
    }

    fn num_threads(&self) -> usize {
        rayon::current_num_threads()
    }
}

/// The most samples (pixels times channels) an image may have: a header can claim any size,
/// and nothing is allocated before this is checked.
const SAMPLE_LIMIT: usize = 1 << 31;

/// Whether `data` starts with a JPEG XL codestream or container signature.
pub fn has_signature(data: &[u8]) -> bool {
    matches!(check_signature(data), JxlSignature::Codestream | JxlSignature::Container)
}

/// The pixels `[height, width, channels]`; Err with TensorFlow's message. `channels` 0 takes
/// the file's count; any other must equal it (TensorFlow does not convert JPEG XL). A panic in
/// the decoder on a hostile file (none is known: Chromium fuzzes it) is an error, not a crash.
pub fn decode(data: &[u8], channels: usize) -> Result<(Vec<u8>, [usize; 3]), String> {
    std::panic::catch_unwind(|| decode_unguarded(data, channels))
        .unwrap_or_else(|_| Err("Failed to decode JXL image".to_string()))
}

fn decode_unguarded(data: &[u8], channels: usize) -> Result<(Vec<u8>, [usize; 3]), String> {
    let mut options = JxlDecoderOptions::default();
    options.sample_limit = Some(SAMPLE_LIMIT);
    let mut decoder = JxlDecoder::new(options);
    let mut input = data;
    let mut pixels: Option<(Vec<u8>, [usize; 3])> = None;
    let header_error = || "Failed to decode JXL header".to_string();
    let image_error = || "Failed to decode JXL image".to_string();
    loop {
        let mut output = pixels.as_mut().map(|(buf, [h, w, c])| {
            let stride = *w * *c;
            [JxlOutputBuffer::new(buf, *h, stride)]
        });
        let event = decoder
            .process(&mut input, output.as_mut().map(|o| &mut o[..]), Some(&mut RayonRunner))
            .map_err(
                |_| if decoder.basic_info().is_none() { header_error() } else { image_error() },
            )?;
        match event {
            Event::BasicInfo => {
                let (layout, count, dims) = layout(&decoder)?;
                if channels != 0 && channels != count {
                    return Err("Number of channels requested does not match input".into());
                }
                let [h, w, c] = dims;
                let samples = h
                    .checked_mul(w)
                    .and_then(|n| n.checked_mul(c))
                    .filter(|&n| n <= SAMPLE_LIMIT)
                    .ok_or_else(|| "Image buffer size exceeds sample limit".to_string())?;
                let extra = decoder.basic_info().map_or(0, |i| i.extra_channels.len());
                decoder
                    .set_pixel_format(JxlPixelFormat {
                        color_type: layout,
                        color_data_format: Some(JxlDataFormat::U8 { bit_depth: 8 }),
                        extra_channel_format: vec![None; extra],
                    })
                    .map_err(|_| image_error())?;
                pixels = Some((vec![0u8; samples], dims));
            }
            Event::FrameHeader | Event::FrameComplete { .. } => {}
            Event::Complete => return pixels.ok_or_else(image_error),
            // The whole file is in `input`: asked for more, the data ended early.
            Event::NeedMoreInput { .. } if decoder.basic_info().is_none() => {
                return Err(header_error())
            }
            Event::NeedMoreInput { .. } => return Err(image_error()),
        }
    }
}

/// The output layout TensorFlow's kernel picks for the file, its channel count and the dims.
fn layout(decoder: &JxlDecoder) -> Result<(JxlColorType, usize, [usize; 3]), String> {
    let info = decoder.basic_info().ok_or("Failed to decode JXL header")?;
    let profile = decoder.embedded_color_profile().ok_or("Failed to decode JXL header")?;
    let has = |kind: ExtraChannel| info.extra_channels.iter().any(|e| e.ec_type == kind);
    let alpha = has(ExtraChannel::Alpha);
    let color = if profile.is_cmyk() { 4 } else { profile.channels() };
    let (layout, count) = match (color, alpha) {
        (1, false) => (JxlColorType::Grayscale, 1),
        (1, true) => (JxlColorType::GrayscaleAlpha, 2),
        (3, false) => (JxlColorType::Rgb, 3),
        (3, true) => (JxlColorType::Rgba, 4),
        (4, _) if has(ExtraChannel::Black) => (JxlColorType::Cmyk, 4),
        (4, _) => {
            return Err("Image has a 4-channel color profile but no Black extra channel".to_string())
        }
        (n, _) => return Err(format!("Unsupported number of color channels: {n}")),
    };
    let (w, h) = info.size;
    if w == 0 || h == 0 {
        return Err("Image has zero width or height".into());
    }
    Ok((layout, count, [h, w, count]))
}
