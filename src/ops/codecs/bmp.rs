//! BMP as TensorFlow's `DecodeBmp` reads it: uncompressed 8-, 24- or 32-bit rows (BGR(A), padded
//! to four bytes, bottom-up unless the height is negative) after `header_size` bytes; the file's
//! size must be exactly the header plus the rows. Every offset is checked against the input.

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Decodes to `channels` (0: the file's; 3 or 4 otherwise); Err with TensorFlow's message.
pub fn decode(data: &[u8], channels: usize) -> Result<(Vec<u8>, [usize; 3]), String> {
    if channels == 1 {
        return Err(format!("`channels` must be 0, 3 or 4 for BMP, but got {channels}"));
    }
    if data.len() < 32 {
        return Err(format!(
            "Incomplete bmp content, requires at least 32 bytes to find the header size, width, \
             height, and bpp, got {} bytes",
            data.len()
        ));
    }
    let header_size = le_i32(data, 10);
    let width = le_i32(data, 18);
    let height = le_i32(data, 22);
    let bpp = i16::from_le_bytes([data[28], data[29]]);
    let img_channels = i64::from(bpp / 8);
    if ![1, 3, 4].contains(&img_channels) {
        return Err(format!(
            "Number of channels inherent in the image must be 1, 3 or 4, was {img_channels}"
        ));
    }
    let img_channels = img_channels as usize;
    let out_channels = if channels == 0 { img_channels } else { channels };
    if width <= 0 {
        return Err("Width must be positive".into());
    }
    if height == 0 {
        return Err("Height must be nonzero".into());
    }
    if header_size < 0 {
        return Err("header size must be nonnegative".into());
    }
    let (width, abs_height) = (width as i64, i64::from(height).abs());
    if width * abs_height >= i64::from(i32::MAX / 8) {
        return Err("Total possible pixel bytes must be less than 2^30".into());
    }
    let row_size = (img_channels as i64 * width + 3) / 4 * 4;
    let size_diff = data.len() as i64 - i64::from(header_size) - row_size * abs_height;
    if size_diff != 0 {
        return Err(format!(
            "Input size should match (header_size + row_size * abs_height) but they differ by \
             {size_diff}"
        ));
    }
    let (w, h, row_size) = (width as usize, abs_height as usize, row_size as usize);
    let pixels = &data[header_size as usize..];
    let top_down = height < 0;
    let mut out = vec![0u8; w * h * out_channels];
    for i in 0..h {
        let src_row = if top_down { i } else { h - 1 - i } * row_size;
        for j in 0..w {
            let s = &pixels[src_row + j * img_channels..src_row + (j + 1) * img_channels];
            let d = &mut out[(i * w + j) * out_channels..(i * w + j + 1) * out_channels];
            let rgba = match img_channels {
                1 => [s[0], s[0], s[0], 255],
                3 => [s[2], s[1], s[0], 255],
                _ => [s[2], s[1], s[0], s[3]],
            };
            if out_channels == 1 {
                d[0] = rgba[0];
            } else {
                d.copy_from_slice(&rgba[..out_channels]);
            }
        }
    }
    Ok((out, [h, w, out_channels]))
}
