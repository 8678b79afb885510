//! TFRecord files, TensorFlow's framing byte for byte: each record is
//! `u64 length (LE) | masked CRC-32C of those 8 bytes | data | masked CRC-32C of data`, the whole
//! file optionally ZLIB- or GZIP-compressed.
//!
//! The reader never trusts a length before its checksum, and even then reads the data
//! incrementally, so a hostile length costs no more memory than the bytes the stream delivers.

use crate::error::{Error, Result};
use flate2::read::{MultiGzDecoder, ZlibDecoder};
use flate2::write::{GzEncoder, ZlibEncoder};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// The compression of a whole TFRecord file (TensorFlow's `compression_type` strings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Zlib,
    Gzip,
}

impl Compression {
    /// `""`, `"ZLIB"` or `"GZIP"` (case-sensitive, as in TensorFlow).
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "" => Ok(Compression::None),
            "ZLIB" => Ok(Compression::Zlib),
            "GZIP" => Ok(Compression::Gzip),
            other => Err(Error::InvalidArgument(format!(
                "Unsupported compression_type: {other}. Valid values are '', 'ZLIB' and 'GZIP'."
            ))),
        }
    }
}

pub use super::masked_crc::masked_crc;

/// Frames one record (header, data and footer) into `out`.
pub fn frame_record(data: &[u8], out: &mut Vec<u8>) {
    let length = (data.len() as u64).to_le_bytes();
    out.extend_from_slice(&length);
    out.extend_from_slice(&masked_crc(&length).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&masked_crc(data).to_le_bytes());
}

fn io_error(path: &str, e: io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::NotFound => Error::NotFound(format!("{path}; No such file or directory")),
        io::ErrorKind::PermissionDenied => {
            Error::PermissionDenied(format!("{path}; Permission denied"))
        }
        io::ErrorKind::NotADirectory => {
            Error::FailedPrecondition(format!("{path}; Not a directory"))
        }
        io::ErrorKind::IsADirectory => Error::FailedPrecondition(format!("{path}; Is a directory")),
        // flate2 reports a damaged compressed stream as invalid data: zlib's Z_DATA_ERROR (-3),
        // worded as TensorFlow's reader words it (zlib's own detail differs from flate2's).
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput => {
            Error::DataLoss(format!("inflate() failed with error -3: {e}"))
        }
        _ => Error::Internal(format!("{path}; {e}")),
    }
}

enum Sink {
    Plain(BufWriter<File>),
    Zlib(ZlibEncoder<BufWriter<File>>),
    Gzip(GzEncoder<BufWriter<File>>),
}

impl Sink {
    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Sink::Plain(w) => w,
            Sink::Zlib(w) => w,
            Sink::Gzip(w) => w,
        }
    }

    fn finish(self) -> io::Result<()> {
        let mut file = match self {
            Sink::Plain(w) => w,
            Sink::Zlib(w) => w.finish()?,
            Sink::Gzip(w) => w.finish()?,
        };
        file.flush()?;
        file.into_inner().map_err(|e| e.into_error())?.sync_data().or(Ok(()))
    }
}

/// Writes records to a new file (truncating an existing one), or after an existing file's
/// contents (`ram://` files, which TensorFlow's RamFileSystem always appends to).
pub struct TFRecordWriter {
    path: String,
    sink: Option<Sink>,
    frame: Vec<u8>,
}

impl TFRecordWriter {
    /// `level` is zlib's 0..=9, or -1 for its default (6).
    pub fn create(path: &Path, compression: Compression, level: i32) -> Result<Self> {
        Self::open(path, compression, level, false)
    }

    /// As `create`, but `append` keeps the file's contents and writes after them: nothing
    /// already there is lost, even if the writer is never closed.
    pub fn open(path: &Path, compression: Compression, level: i32, append: bool) -> Result<Self> {
        let name = path.display().to_string();
        if !(-1..=9).contains(&level) {
            return Err(Error::InvalidArgument(format!(
                "compression_level must be in [-1, 9], got {level}"
            )));
        }
        let file = match append {
            true => std::fs::OpenOptions::new().create(true).append(true).open(path),
            false => File::create(path),
        };
        let file = BufWriter::with_capacity(256 << 10, file.map_err(|e| io_error(&name, e))?);
        let level = if level < 0 {
            flate2::Compression::default()
        } else {
            flate2::Compression::new(level as u32)
        };
        let sink = match compression {
            Compression::None => Sink::Plain(file),
            Compression::Zlib => Sink::Zlib(ZlibEncoder::new(file, level)),
            Compression::Gzip => Sink::Gzip(GzEncoder::new(file, level)),
        };
        Ok(TFRecordWriter { path: name, sink: Some(sink), frame: Vec::new() })
    }

    fn open_sink(&mut self) -> Result<&mut Sink> {
        self.sink.as_mut().ok_or_else(|| Error::FailedPrecondition("Writer is closed.".into()))
    }

    /// Appends one record.
    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        let mut frame = std::mem::take(&mut self.frame);
        frame.clear();
        frame_record(data, &mut frame);
        let path = self.path.clone();
        let result = self.open_sink()?.writer().write_all(&frame).map_err(|e| io_error(&path, e));
        self.frame = frame;
        result
    }

    /// Pushes buffered records (and a compressor's pending output) to the file.
    pub fn flush(&mut self) -> Result<()> {
        let path = self.path.clone();
        self.open_sink()?.writer().flush().map_err(|e| io_error(&path, e))
    }

    /// Finishes the compressed stream and closes the file; closing twice is allowed.
    pub fn close(&mut self) -> Result<()> {
        match self.sink.take() {
            Some(sink) => sink.finish().map_err(|e| io_error(&self.path, e)),
            None => Ok(()),
        }
    }
}

impl Drop for TFRecordWriter {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// Reads records one by one from any byte stream.
pub struct TFRecordReader<R: Read> {
    source: R,
    name: String,
    offset: u64,
}

/// Reads up to `buf.len()` bytes, fewer only at the end of the stream.
fn read_full<R: Read>(source: &mut R, buf: &mut [u8], name: &str) -> Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match source.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(name, e)),
        }
    }
    Ok(filled)
}

impl TFRecordReader<Box<dyn Read + Send + Sync>> {
    /// Opens `path`, decompressing as `compression` says; `buffer_size` is the read buffer.
    pub fn open(path: &Path, compression: Compression, buffer_size: usize) -> Result<Self> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| io_error(&name, e))?;
        // A buffer the caller asked for, within reason: the size only trades memory for calls.
        let file = BufReader::with_capacity(buffer_size.clamp(1, 64 << 20), file);
        let source: Box<dyn Read + Send + Sync> = match compression {
            Compression::None => Box::new(file),
            Compression::Zlib => Box::new(ZlibDecoder::new(file)),
            Compression::Gzip => Box::new(MultiGzDecoder::new(file)),
        };
        Ok(TFRecordReader::new(source, name))
    }
}

impl<R: Read> TFRecordReader<R> {
    /// A reader over `source`; `name` appears in I/O error messages.
    pub fn new(source: R, name: String) -> Self {
        TFRecordReader { source, name, offset: 0 }
    }

    /// The next record, `None` at the end. A damaged record is `DataLoss`, as in TensorFlow:
    /// a bad checksum is "corrupted record", a record cut short is "truncated record". A header
    /// cut short ends the file silently, as TensorFlow's reader does.
    pub fn read_record(&mut self) -> Result<Option<Vec<u8>>> {
        let start = self.offset;
        let mut header = [0u8; 12];
        if read_full(&mut self.source, &mut header, &self.name)? < header.len() {
            return Ok(None);
        }
        let (length, crc) = header.split_at(8);
        if masked_crc(length) != u32::from_le_bytes(crc.try_into().unwrap()) {
            let hint = if start == 0 { " (Is this even a TFRecord file?)" } else { "" };
            return Err(Error::DataLoss(format!("corrupted record at {start}{hint}")));
        }
        let length = u64::from_le_bytes(length.try_into().unwrap());
        let truncated = || {
            Error::DataLoss(format!(
                "truncated record at {start}' failed with Read less bytes than requested"
            ))
        };
        // The checksum vouches for the length, but the data may still be missing: grow the
        // buffer only as bytes arrive.
        let mut data = Vec::with_capacity(length.min(1 << 20) as usize);
        let got = (&mut self.source)
            .take(length)
            .read_to_end(&mut data)
            .map_err(|e| io_error(&self.name, e))?;
        if (got as u64) < length {
            return Err(truncated());
        }
        let mut footer = [0u8; 4];
        if read_full(&mut self.source, &mut footer, &self.name)? < footer.len() {
            return Err(truncated());
        }
        if masked_crc(&data) != u32::from_le_bytes(footer) {
            return Err(Error::DataLoss(format!("corrupted record at {}", start + 12)));
        }
        self.offset = start + 16 + length;
        Ok(Some(data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(bytes: &[u8]) -> Result<Vec<Vec<u8>>> {
        let mut reader = TFRecordReader::new(bytes, "mem".into());
        let mut out = Vec::new();
        while let Some(r) = reader.read_record()? {
            out.push(r);
        }
        Ok(out)
    }

    #[test]
    fn framing_matches_tensorflow() {
        // Written by tf.io.TFRecordWriter: b"hello" then b"".
        let expected = "0500000000000000eab2043e68656c6c6fbb1f1c19000000000000000029039807d8ea82a2";
        let mut out = Vec::new();
        frame_record(b"hello", &mut out);
        frame_record(b"", &mut out);
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, expected);
        assert_eq!(records(&out).unwrap(), vec![b"hello".to_vec(), vec![]]);
    }

    #[test]
    fn damage_is_data_loss_never_a_panic() {
        let mut file = Vec::new();
        frame_record(b"hello", &mut file);
        frame_record(b"world!", &mut file);
        for cut in 0..file.len() {
            let result = records(&file[..cut]);
            // A cut inside a header ends the file; anywhere else it is DataLoss.
            let in_header = cut < 12 || (21..33).contains(&cut);
            assert_eq!(result.is_ok(), in_header, "cut at {cut}: {result:?}");
        }
        for i in 0..file.len() {
            let mut bad = file.clone();
            bad[i] ^= 0x40;
            assert!(matches!(records(&bad), Err(Error::DataLoss(_))), "flip at {i}");
        }
    }

    #[test]
    fn hostile_length_allocates_nothing_large() {
        let length = (u64::MAX / 2).to_le_bytes();
        let mut file = length.to_vec();
        file.extend_from_slice(&masked_crc(&length).to_le_bytes());
        file.extend_from_slice(b"short");
        assert!(matches!(records(&file), Err(Error::DataLoss(_))));
    }
}
