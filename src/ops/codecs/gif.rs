//! GIF through the `gif` crate, composed as TensorFlow's `gif_io.cc` composes frames: the canvas
//! is the largest frame's width and height, each frame starts as a copy of the previous one (the
//! first as black), a frame's transparent index keeps what is under it, and disposal methods
//! are not applied. Output: RGB frames, `[frames, height, width, 3]`.

use std::borrow::Cow;

struct Frame {
    left: usize,
    top: usize,
    width: usize,
    height: usize,
    indices: Vec<u8>,
    palette: Option<Vec<u8>>,
    transparent: Option<u8>,
}

/// Decodes every frame (only the first with `all_frames` false); Err with TensorFlow's reason.
pub fn decode(data: &[u8], all_frames: bool) -> Result<(Vec<u8>, [usize; 4]), String> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    options.check_frame_consistency(false);
    let mut decoder =
        options.read_info(data).map_err(|e| format!("failed to open gif file: {e}"))?;
    let global: Option<Vec<u8>> = decoder.global_palette().map(<[u8]>::to_vec);
    let mut frames = Vec::new();
    while let Some(f) =
        decoder.read_next_frame().map_err(|e| format!("failed to slurp gif file: {e}"))?
    {
        let indices = match &f.buffer {
            Cow::Borrowed(b) => b.to_vec(),
            Cow::Owned(b) => b.clone(),
        };
        frames.push(Frame {
            left: f.left.into(),
            top: f.top.into(),
            width: f.width.into(),
            height: f.height.into(),
            indices,
            palette: f.palette.clone(),
            transparent: f.transparent,
        });
    }
    if frames.is_empty() {
        return Err("gif file does not contain any image".into());
    }
    let width = frames.iter().map(|f| f.width).max().unwrap_or(0);
    let height = frames.iter().map(|f| f.height).max().unwrap_or(0);
    let count = if all_frames { frames.len() } else { 1 };
    let plane = width * height * 3;
    let mut out = vec![0u8; count * plane];
    for (k, f) in frames.iter().take(count).enumerate() {
        if k > 0 {
            out.copy_within((k - 1) * plane..k * plane, k * plane);
        }
        let palette = f
            .palette
            .as_deref()
            .or(global.as_deref())
            .ok_or_else(|| "missing color map".to_string())?;
        let colours = palette.len() / 3;
        let (right, bottom) = ((f.left + f.width).min(width), (f.top + f.height).min(height));
        let canvas = &mut out[k * plane..(k + 1) * plane];
        for i in f.top..bottom {
            for j in f.left..right {
                let src = (i - f.top) * f.width + (j - f.left);
                let index = *f.indices.get(src).ok_or("frame data is incomplete")?;
                let dst = (i * width + j) * 3;
                if Some(index) == f.transparent {
                    if k == 0 {
                        canvas[dst..dst + 3].fill(0);
                    }
                    continue;
                }
                if usize::from(index) >= colours {
                    return Err(format!(
                        "found color index {index} outside of color map range {colours}"
                    ));
                }
                let c = usize::from(index) * 3;
                canvas[dst..dst + 3].copy_from_slice(&palette[c..c + 3]);
            }
        }
    }
    Ok((out, [count, height, width, 3]))
}
