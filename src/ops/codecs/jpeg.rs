//! JPEG through libjpeg-turbo's code (MozJPEG's fork, `mozjpeg-sys`), driven as TensorFlow's
//! `jpeg_mem.cc` drives it: the same memory source (a fake EOI for `try_recover_truncated`,
//! suspension otherwise), the same decompression parameters, crop through
//! `jpeg_crop_scanline`/`jpeg_skip_scanlines`, CMYK converted by hand, unread lines black.
//! libjpeg reports fatal errors through `error_exit`, which must not return: ours unwinds
//! (`resume_unwind`, so no panic message is printed) to the `catch_unwind` around each call,
//! and the caller turns that into an InvalidArgumentError. Nothing here trusts a length in the
//! file: libjpeg reads through the source manager, which never reads past the input.

use mozjpeg_sys::*;
use std::os::raw::{c_int, c_long};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

/// How to decode (TensorFlow's `UncompressFlags`).
#[derive(Clone, Debug)]
pub struct JpegFlags {
    pub ratio: u32,
    /// 0 (the file's, CMYK as RGB), 1 or 3.
    pub components: usize,
    pub fancy_upscaling: bool,
    pub try_recover_truncated: bool,
    pub min_acceptable_fraction: f32,
    /// INTEGER_ACCURATE (JDCT_ISLOW); otherwise INTEGER_FAST (JDCT_IFAST), TensorFlow's default.
    pub accurate_dct: bool,
    /// y, x, height, width.
    pub crop: Option<[i64; 4]>,
}

impl Default for JpegFlags {
    /// TensorFlow's defaults (DecodeImage's flags).
    fn default() -> JpegFlags {
        JpegFlags {
            ratio: 1,
            components: 0,
            fancy_upscaling: true,
            try_recover_truncated: false,
            min_acceptable_fraction: 1.0,
            accurate_dct: false,
            crop: None,
        }
    }
}

/// A decoded image: rows of `width * channels` bytes.
pub struct Pixels {
    pub data: Vec<u8>,
    pub height: usize,
    pub width: usize,
    pub channels: usize,
}

/// The unwinding payload of a fatal libjpeg error.
struct Fatal;

static EOI: [u8; 2] = [0xFF, 0xD9];

#[repr(C)]
struct MemSource {
    public: jpeg_source_mgr,
    data: *const u8,
    len: usize,
    recover: bool,
    /// Fake EOIs handed out so far. TensorFlow's source inserts one every time it is asked
    /// (its "already inserted" test compares the advanced pointer), which loops forever on
    /// some corrupt progressive files; past a bound we raise instead.
    fake_eois: u32,
    /// Calls to `fill_input_buffer`. libjpeg's readers keep the position in locals and sync it
    /// to the source only now and then; asked for more while the source still holds stale
    /// bytes, TensorFlow's source answers "go on" without moving, and the reader re-reads the
    /// same bytes. On a file that ends inside a run of 0xFF bytes (`next_marker`'s
    /// unsynced fill loop) that never ends, so the calls are bounded too.
    fills: u32,
}

const MAX_FAKE_EOIS: u32 = 64;
/// The whole input is in the buffer from the start, so every call means the data ended; a
/// decoder that really recovers needs a few per scan.
const MAX_FILLS: u32 = 1024;

unsafe extern "C-unwind" fn error_exit(_cinfo: &mut jpeg_common_struct) {
    resume_unwind(Box::new(Fatal));
}

/// Counts warnings (libjpeg's default prints the first to stderr).
unsafe extern "C-unwind" fn emit_message(cinfo: &mut jpeg_common_struct, level: c_int) {
    if level < 0 {
        (*cinfo.err).num_warnings += 1;
    }
}

unsafe extern "C-unwind" fn output_message(_cinfo: &mut jpeg_common_struct) {}

/// libjpeg's standard error manager with our fatal-error, warning and message hooks.
fn error_manager() -> Box<jpeg_error_mgr> {
    // SAFETY: jpeg_std_error fills every field of the zeroed struct.
    unsafe {
        let mut err: Box<jpeg_error_mgr> = Box::new(std::mem::zeroed());
        jpeg_std_error(&mut err);
        err.error_exit = Some(error_exit);
        err.emit_message = Some(emit_message);
        err.output_message = Some(output_message);
        err
    }
}

unsafe extern "C-unwind" fn init_source(cinfo: &mut jpeg_decompress_struct) {
    let src = &mut *(cinfo.src as *mut MemSource);
    src.public.next_input_byte = src.data;
    src.public.bytes_in_buffer = src.len;
}

/// TensorFlow's `MemFillInputBuffer`: the whole input is in the buffer from the start, so being
/// asked for more means the data ended early.
unsafe extern "C-unwind" fn fill_input_buffer(cinfo: &mut jpeg_decompress_struct) -> boolean {
    let src = &mut *(cinfo.src as *mut MemSource);
    src.fills += 1;
    if src.fills > MAX_FILLS
        || (src.public.bytes_in_buffer == 0 && src.public.next_input_byte == src.data)
    {
        resume_unwind(Box::new(Fatal));
    } else if src.public.bytes_in_buffer != 0 {
        src.recover as boolean
    } else if src.public.next_input_byte != EOI.as_ptr()
        && src.recover
        && src.fake_eois < MAX_FAKE_EOIS
    {
        src.fake_eois += 1;
        (*cinfo.common.err).num_warnings += 1;
        src.public.next_input_byte = EOI.as_ptr();
        src.public.bytes_in_buffer = 2;
        1
    } else {
        resume_unwind(Box::new(Fatal));
    }
}

unsafe extern "C-unwind" fn skip_input_data(cinfo: &mut jpeg_decompress_struct, jump: c_long) {
    let src = &mut *(cinfo.src as *mut MemSource);
    if jump < 0 {
        return;
    }
    let jump = jump as usize;
    if jump > src.public.bytes_in_buffer {
        src.public.bytes_in_buffer = 0;
        fill_input_buffer(cinfo);
    } else {
        src.public.bytes_in_buffer -= jump;
        src.public.next_input_byte = src.public.next_input_byte.add(jump);
    }
}

unsafe extern "C-unwind" fn term_source(_cinfo: &mut jpeg_decompress_struct) {}

/// A decompressor over `data`, destroyed on drop (also after a fatal error).
struct Decompressor {
    cinfo: Box<jpeg_decompress_struct>,
    _err: Box<jpeg_error_mgr>,
    _src: Box<MemSource>,
}

impl Decompressor {
    fn new(data: &[u8], recover: bool) -> Option<Decompressor> {
        // SAFETY: the structs are plain C data that libjpeg initialises; they are boxed so
        // their addresses stay fixed while libjpeg holds pointers to them.
        unsafe {
            let mut err = error_manager();
            let mut cinfo: Box<jpeg_decompress_struct> = Box::new(std::mem::zeroed());
            cinfo.common.err = &mut *err;
            let mut src = Box::new(MemSource {
                public: std::mem::zeroed(),
                data: data.as_ptr(),
                len: data.len(),
                recover,
                fake_eois: 0,
                fills: 0,
            });
            src.public.init_source = Some(init_source);
            src.public.fill_input_buffer = Some(fill_input_buffer);
            src.public.skip_input_data = Some(skip_input_data);
            src.public.resync_to_restart = Some(jpeg_resync_to_restart);
            src.public.term_source = Some(term_source);
            catch_unwind(AssertUnwindSafe(|| jpeg_create_decompress(&mut *cinfo))).ok()?;
            cinfo.src = &mut src.public;
            Some(Decompressor { cinfo, _err: err, _src: src })
        }
    }
}

impl Drop for Decompressor {
    fn drop(&mut self) {
        // SAFETY: created by jpeg_create_decompress; destroy is valid in any state.
        unsafe { jpeg_destroy_decompress(&mut self.cinfo) }
    }
}

/// Whether an APP14 "Adobe" marker was read (libjpeg keeps its flag private).
unsafe fn saw_adobe(cinfo: &jpeg_decompress_struct) -> bool {
    let mut m = cinfo.marker_list;
    while !m.is_null() {
        let mk = &*m;
        if c_int::from(mk.marker) == 0xEE && mk.original_length >= 12 && mk.data_length >= 5 {
            let bytes = std::slice::from_raw_parts(mk.data, 5);
            if bytes == b"Adobe" {
                return true;
            }
        }
        m = mk.next;
    }
    false
}

/// Lines read and lines wanted, for the acceptable-fraction rule.
struct Outcome {
    pixels: Pixels,
    read: usize,
}

unsafe fn uncompress_low(d: &mut Decompressor, f: &JpegFlags) -> Option<Outcome> {
    let cinfo = &mut *d.cinfo;
    jpeg_save_markers(cinfo, 0xEE, 0xFFFF);
    jpeg_read_header(cinfo, 1);
    let components =
        if f.components == 0 { (cinfo.num_components as usize).min(3) } else { f.components };
    let cmyk = components == 3
        && matches!(cinfo.jpeg_color_space, J_COLOR_SPACE::JCS_CMYK | J_COLOR_SPACE::JCS_YCCK);
    cinfo.out_color_space = match components {
        1 => J_COLOR_SPACE::JCS_GRAYSCALE,
        _ if cmyk => J_COLOR_SPACE::JCS_CMYK,
        _ => J_COLOR_SPACE::JCS_RGB,
    };
    cinfo.do_fancy_upsampling = f.fancy_upscaling as boolean;
    cinfo.scale_num = 1;
    cinfo.scale_denom = f.ratio;
    cinfo.dct_method =
        if f.accurate_dct { J_DCT_METHOD::JDCT_ISLOW } else { J_DCT_METHOD::JDCT_IFAST };
    jpeg_calc_output_dimensions(cinfo);
    let total =
        cinfo.output_height as i64 * cinfo.output_width as i64 * cinfo.num_components as i64;
    if cinfo.output_width == 0 || cinfo.output_height == 0 || total >= 1 << 29 {
        return None;
    }
    jpeg_start_decompress(cinfo);
    let (mut out_w, mut out_h) = (cinfo.output_width as usize, cinfo.output_height as usize);
    let mut skipped = 0usize;
    if let Some([y, x, h, w]) = f.crop {
        let valid = w > 0
            && h > 0
            && x >= 0
            && y >= 0
            && y + h <= cinfo.output_height as i64
            && x + w <= cinfo.output_width as i64;
        if !valid {
            return None;
        }
        out_h = h as usize;
        out_w = w as usize;
        let (mut cx, mut cw) = (x as JDIMENSION, w as JDIMENSION);
        jpeg_crop_scanline(cinfo, &mut cx, &mut cw);
        skipped = jpeg_skip_scanlines(cinfo, y as JDIMENSION) as usize;
        if skipped != y as usize {
            return None;
        }
    }
    let stride = out_w * components;
    let mut data = vec![0u8; stride * out_h];
    let full_w = cinfo.output_width as usize;
    let realign = out_w != full_w;
    let mut temp = vec![
        0u8;
        if cmyk {
            full_w * 4
        } else if realign {
            full_w * components
        } else {
            0
        }
    ];
    let offset = (full_w - out_w) * if cmyk { 4 } else { components };
    let adobe = saw_adobe(cinfo);
    let mut read = out_h;
    let last = skipped + out_h;
    let mut row = 0usize;
    let mut complete = true;
    while (cinfo.output_scanline as usize) < last {
        let line = &mut data[row * stride..(row + 1) * stride];
        let n = if cmyk || realign {
            let mut p = temp.as_mut_ptr();
            let n = jpeg_read_scanlines(cinfo, &mut p, 1);
            if n > 0 && cmyk {
                for (i, px) in line.chunks_exact_mut(3).enumerate() {
                    let s = &temp[offset + 4 * i..offset + 4 * i + 4];
                    let (c, m, y, k) = (s[0] as u32, s[1] as u32, s[2] as u32, s[3] as u32);
                    let rgb = if adobe {
                        [k * c / 255, k * m / 255, k * y / 255]
                    } else {
                        [
                            (255 - k) * (255 - c) / 255,
                            (255 - k) * (255 - m) / 255,
                            (255 - k) * (255 - y) / 255,
                        ]
                    };
                    for (o, v) in px.iter_mut().zip(rgb) {
                        *o = v as u8;
                    }
                }
            } else if n > 0 {
                line.copy_from_slice(&temp[offset..offset + stride]);
            }
            n
        } else {
            let mut p = line.as_mut_ptr();
            jpeg_read_scanlines(cinfo, &mut p, 1)
        };
        if n == 0 {
            // A suspended source: the data ended.
            if !f.try_recover_truncated {
                read = cinfo.output_scanline as usize - skipped;
                complete = false;
            } else {
                for r in row..out_h {
                    if r == 0 {
                        data[..stride].fill(0);
                    } else {
                        data.copy_within((r - 1) * stride..r * stride, r * stride);
                    }
                }
                cinfo.output_scanline = last as JDIMENSION;
            }
            break;
        }
        row += 1;
    }
    if f.crop.is_some() && (cinfo.output_scanline as usize) < cinfo.output_height as usize {
        let rest = cinfo.output_height - cinfo.output_scanline;
        jpeg_skip_scanlines(cinfo, rest);
    }
    let channels_ok = match components {
        1 => cinfo.output_components == 1,
        _ if cmyk => cinfo.output_components == 4,
        _ => cinfo.output_components == 3,
    };
    if complete && channels_ok {
        jpeg_finish_decompress(cinfo);
    } else {
        jpeg_abort(&mut cinfo.common);
        if !channels_ok {
            return None;
        }
    }
    Some(Outcome {
        pixels: Pixels { data, height: out_h, width: out_w, channels: components },
        read,
    })
}

/// Decodes as TensorFlow's `jpeg::Uncompress`; None where TensorFlow's returns null.
pub fn decode(data: &[u8], f: &JpegFlags) -> Option<Pixels> {
    if data.is_empty() || ![1, 2, 4, 8].contains(&f.ratio) || ![0, 1, 3].contains(&f.components) {
        return None;
    }
    let mut d = Decompressor::new(data, f.try_recover_truncated)?;
    // SAFETY: `d` owns a created decompressor over `data`, which outlives it.
    let outcome =
        catch_unwind(AssertUnwindSafe(|| unsafe { uncompress_low(&mut d, f) })).ok()??;
    drop(d);
    let Outcome { mut pixels, read } = outcome;
    let fraction = if pixels.height == 0 { 1.0 } else { read as f32 / pixels.height as f32 };
    if fraction < f.min_acceptable_fraction.min(1.0) {
        return None;
    }
    let stride = pixels.width * pixels.channels;
    pixels.data[read * stride..].fill(0);
    Some(pixels)
}

/// Height, width and channels from the header (TensorFlow's `GetImageInfo`).
pub fn shape(data: &[u8]) -> Option<[usize; 3]> {
    if data.is_empty() {
        return None;
    }
    let mut d = Decompressor::new(data, false)?;
    // SAFETY: as in `decode`.
    catch_unwind(AssertUnwindSafe(|| unsafe {
        let cinfo = &mut *d.cinfo;
        jpeg_read_header(cinfo, 1);
        jpeg_start_decompress(cinfo);
        [
            cinfo.output_height as usize,
            cinfo.output_width as usize,
            cinfo.output_components as usize,
        ]
    }))
    .ok()
}

/// How to encode (TensorFlow's `CompressFlags`).
#[derive(Clone, Debug)]
pub struct EncodeFlags {
    pub quality: i32,
    pub progressive: bool,
    pub optimize_size: bool,
    pub chroma_downsampling: bool,
    /// 1 = inch, 2 = cm.
    pub density_unit: u8,
    pub x_density: u16,
    pub y_density: u16,
    pub xmp_metadata: Vec<u8>,
}

impl Default for EncodeFlags {
    /// EncodeJpeg's attribute defaults (EncodeJpegVariableQuality's fixed settings).
    fn default() -> EncodeFlags {
        EncodeFlags {
            quality: 95,
            progressive: false,
            optimize_size: false,
            chroma_downsampling: true,
            density_unit: 1,
            x_density: 300,
            y_density: 300,
            xmp_metadata: Vec::new(),
        }
    }
}

#[repr(C)]
struct VecDest {
    public: jpeg_destination_mgr,
    buf: Vec<u8>,
    out: Vec<u8>,
}

unsafe extern "C-unwind" fn init_destination(cinfo: &mut jpeg_compress_struct) {
    let dest = &mut *(cinfo.dest as *mut VecDest);
    dest.public.next_output_byte = dest.buf.as_mut_ptr();
    dest.public.free_in_buffer = dest.buf.len();
}

unsafe extern "C-unwind" fn empty_output_buffer(cinfo: &mut jpeg_compress_struct) -> boolean {
    let dest = &mut *(cinfo.dest as *mut VecDest);
    dest.out.extend_from_slice(&dest.buf);
    dest.public.next_output_byte = dest.buf.as_mut_ptr();
    dest.public.free_in_buffer = dest.buf.len();
    1
}

unsafe extern "C-unwind" fn term_destination(cinfo: &mut jpeg_compress_struct) {
    let dest = &mut *(cinfo.dest as *mut VecDest);
    let used = dest.buf.len() - dest.public.free_in_buffer;
    dest.out.extend_from_slice(&dest.buf[..used]);
}

struct Compressor {
    cinfo: Box<jpeg_compress_struct>,
    _err: Box<jpeg_error_mgr>,
    dest: Box<VecDest>,
}

impl Drop for Compressor {
    fn drop(&mut self) {
        // SAFETY: created by jpeg_create_compress.
        unsafe { jpeg_destroy_compress(&mut self.cinfo) }
    }
}

/// Encodes `height` rows of `width * channels` bytes (channels 1 or 3) as TensorFlow's
/// `jpeg::Compress` does, with libjpeg-turbo's defaults (MozJPEG's extensions off).
pub fn encode(
    pixels: &[u8],
    height: usize,
    width: usize,
    channels: usize,
    f: &EncodeFlags,
) -> Option<Vec<u8>> {
    if width == 0
        || height == 0
        || (width * height) >= 1 << 29
        || pixels.len() != height * width * channels
    {
        return None;
    }
    // SAFETY: as for the decompressor; rows handed to libjpeg are slices of `pixels`.
    unsafe {
        let mut err = error_manager();
        let mut cinfo: Box<jpeg_compress_struct> = Box::new(std::mem::zeroed());
        cinfo.common.err = &mut *err;
        catch_unwind(AssertUnwindSafe(|| jpeg_create_compress(&mut *cinfo))).ok()?;
        let dest = Box::new(VecDest {
            public: std::mem::zeroed(),
            buf: vec![0u8; (width * height * channels).clamp(4096, 1 << 20)],
            out: Vec::new(),
        });
        let mut c = Compressor { cinfo, _err: err, dest };
        c.dest.public.init_destination = Some(init_destination);
        c.dest.public.empty_output_buffer = Some(empty_output_buffer);
        c.dest.public.term_destination = Some(term_destination);
        let ok = catch_unwind(AssertUnwindSafe(|| {
            let cinfo = &mut *c.cinfo;
            cinfo.dest = &mut c.dest.public;
            cinfo.image_width = width as JDIMENSION;
            cinfo.image_height = height as JDIMENSION;
            cinfo.input_components = channels as c_int;
            cinfo.in_color_space =
                if channels == 1 { J_COLOR_SPACE::JCS_GRAYSCALE } else { J_COLOR_SPACE::JCS_RGB };
            // libjpeg-turbo's defaults: baseline tables, no trellis, no scan optimisation.
            jpeg_c_set_int_param(
                cinfo,
                J_INT_PARAM::JINT_COMPRESS_PROFILE,
                JCP_FASTEST as u32 as c_int,
            );
            jpeg_set_defaults(cinfo);
            if f.optimize_size {
                cinfo.optimize_coding = 1;
            }
            cinfo.density_unit = f.density_unit;
            cinfo.X_density = f.x_density;
            cinfo.Y_density = f.y_density;
            jpeg_set_quality(cinfo, f.quality, 1);
            if f.progressive {
                jpeg_simple_progression(cinfo);
            }
            if !f.chroma_downsampling {
                for i in 0..cinfo.num_components as usize {
                    let comp = &mut *cinfo.comp_info.add(i);
                    comp.h_samp_factor = 1;
                    comp.v_samp_factor = 1;
                }
            }
            jpeg_start_compress(cinfo, 1);
            if !f.xmp_metadata.is_empty() {
                let mut packet = b"http://ns.adobe.com/xap/1.0/\0".to_vec();
                packet.extend_from_slice(&f.xmp_metadata);
                jpeg_write_marker(cinfo, 0xE1, packet.as_ptr(), packet.len() as _);
            }
            let stride = width * channels;
            while (cinfo.next_scanline as usize) < height {
                let r = cinfo.next_scanline as usize;
                let row = pixels[r * stride..(r + 1) * stride].as_ptr();
                jpeg_write_scanlines(cinfo, &row, 1);
            }
            jpeg_finish_compress(cinfo);
        }));
        ok.ok()?;
        Some(std::mem::take(&mut c.dest.out))
    }
}
