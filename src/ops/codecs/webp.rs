//! WebP through `image-webp` (pure Rust): still images as RGB or RGBA (the file's; a requested
//! channel count must match it, as in TensorFlow, which does not convert), animations as
//! composed RGBA frames.

use image_webp::WebPDecoder;
use std::io::Cursor;

/// Decoded frames `[frames, height, width, channels]`; Err with TensorFlow's message.
pub fn decode(
    data: &[u8],
    channels: usize,
    all_frames: bool,
) -> Result<(Vec<u8>, [usize; 4]), String> {
    if ![0, 3, 4].contains(&channels) {
        return Err("WebP only supports 3 or 4 channels".into());
    }
    let header = || "Failed to decode WebP header.".to_string();
    let mut decoder = WebPDecoder::new(Cursor::new(data)).map_err(|_| header())?;
    let (w, h) = decoder.dimensions();
    let (w, h) = (w as usize, h as usize);
    let file_channels = if decoder.has_alpha() { 4 } else { 3 };
    if channels != 0 && channels != file_channels {
        return Err("Number of channels requested does not match input".into());
    }
    let size = decoder.output_buffer_size().ok_or_else(header)?;
    if !decoder.is_animated() {
        let mut buf = vec![0u8; size];
        decoder.read_image(&mut buf).map_err(|_| "Failed to decode WebP image.".to_string())?;
        return Ok((buf, [1, h, w, file_channels]));
    }
    if channels != 0 && channels != 4 {
        return Err("WebP Animation must be 4 channel RGBA".into());
    }
    let frames = if all_frames { decoder.num_frames() as usize } else { 1 };
    let mut out = vec![0u8; size * frames];
    for k in 0..frames {
        decoder
            .read_frame(&mut out[k * size..(k + 1) * size])
            .map_err(|e| format!("Failed to decode WebP Animation: {e}"))?;
    }
    Ok((out, [frames, h, w, file_channels]))
}
