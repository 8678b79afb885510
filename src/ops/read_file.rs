//! `ReadFile` (`tf.io.read_file` inside a graph): a local file's bytes as a scalar string, read
//! on the thread that runs the node, without the GIL, so that a `tf.data` map reading files runs
//! its elements in parallel. Eagerly `io/_files.py` reads in Python over the same file system
//! rules (`io/_filesystem.py`), which this mirrors: plain paths and `file://` URIs (host
//! ignored), `ram://` names in the folder where `io/_ram_filesystem.py` keeps TensorFlow's
//! in-memory files, other schemes TensorFlow's UnimplementedError, and an OS error the
//! `tf.errors` class tsl's `ErrnoToCode` gives its errno, with TensorFlow's
//! `"<path>; <strerror>"` message.

use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::primitive::{
    expect_name, input, Arity, Attrs, Decisions, Decode, GpuKernel, Primitive, TensorType,
};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use std::borrow::Cow;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::RwLock;

const NAME: &str = "ReadFile";

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ReadFile {}

/// The folder holding this process's `ram://` files, set by `io/_ram_filesystem.py` when it
/// creates it (`ferroflow._core.set_ram_root`); None before any `ram://` name was used.
static RAM_ROOT: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Names the folder that holds the `ram://` files.
pub fn set_ram_root(root: PathBuf) {
    *RAM_ROOT.write().unwrap_or_else(|e| e.into_inner()) = Some(root);
}

/// The `ram://` names (less the scheme) whose folder on disk holds names below them but is no
/// directory of TensorFlow's map (a write's parents, the root until made), published by
/// `io/_ram_filesystem.py` whenever they change: reading one is NotFound, as in TensorFlow,
/// where reading a directory made with `mkdir` is InvalidArgument.
static RAM_IMPLICIT: RwLock<Option<HashSet<String>>> = RwLock::new(None);

/// In the folder of a `ram://` name that is a file and has names below it, that file (see
/// `io/_ram_filesystem.py`'s `_OWN_FILE`).
const RAM_OWN_FILE: &str = "%file";

/// Replaces the set of implicit `ram://` folders.
pub fn set_ram_implicit(names: Vec<String>) {
    *RAM_IMPLICIT.write().unwrap_or_else(|e| e.into_inner()) = Some(names.into_iter().collect());
}

fn ram_implicit(key: &str) -> bool {
    RAM_IMPLICIT
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map_or(key.is_empty(), |names| names.contains(key))
}

/// A `ram://` name's part as a file name, escaped as `io/_ram_filesystem.py` escapes it: '%'
/// as `%25`, and the parts a path cannot hold ('', '.', '..') as `%`, `%2E`, `%2E%2E`.
fn ram_part(part: &str) -> Cow<'_, str> {
    match part {
        "" => Cow::Borrowed("%"),
        "." => Cow::Borrowed("%2E"),
        ".." => Cow::Borrowed("%2E%2E"),
        _ if part.contains('%') => Cow::Owned(part.replace('%', "%25")),
        _ => Cow::Borrowed(part),
    }
}

/// Where the `ram://` file `rest` (the name less its scheme) is kept; None when no `ram://`
/// name was used yet (so it cannot exist).
fn ram_path(rest: &str) -> Option<PathBuf> {
    let key = ram_key(rest);
    let mut path = RAM_ROOT.read().unwrap_or_else(|e| e.into_inner()).clone()?;
    if !key.is_empty() {
        for part in key.split('/') {
            path.push(&*ram_part(part));
        }
    }
    Some(path)
}

/// tsl's StripRamFsPrefix: the map's name, less one trailing '/'.
fn ram_key(rest: &str) -> &str {
    rest.strip_suffix('/').unwrap_or(rest)
}

/// TensorFlow's RamFileSystem read: NotFoundError (with no message, as TensorFlow's) for a
/// missing name or a folder that only holds names below it, InvalidArgumentError for a
/// directory made as one; a file with names below it is read from its folder.
fn read_ram(name: &str, rest: &str) -> Result<Vec<u8>> {
    let path = ram_path(rest).ok_or_else(|| Error::NotFound(String::new()))?;
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => {
            let own = path.join(RAM_OWN_FILE);
            if own.is_file() {
                std::fs::read(&own).map_err(|e| os_error(&e, name))
            } else if ram_implicit(ram_key(rest)) {
                Err(Error::NotFound(String::new()))
            } else {
                Err(Error::InvalidArgument(format!("{name} is a directory.")))
            }
        }
        Ok(_) => std::fs::read(&path).map_err(|e| os_error(&e, name)),
        Err(_) => Err(Error::NotFound(String::new())),
    }
}

/// The local path `name` names: the path part of a `file://host/path` URI, `name` itself
/// without a scheme; `ram://` is read by `read_ram`, any other scheme has no file system here.
fn local_path(name: &str) -> Result<&str> {
    let scheme_len = name
        .find("://")
        .filter(|&end| {
            let mut chars = name[..end].chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '.')
        })
        .unwrap_or(0);
    if scheme_len == 0 {
        return Ok(name);
    }
    let (scheme, rest) = (&name[..scheme_len], &name[scheme_len + 3..]);
    if scheme == "file" {
        return Ok(rest.find('/').map_or("", |slash| &rest[slash..]));
    }
    Err(Error::Unimplemented(format!(
        "File system scheme '{scheme}' not implemented (file: '{name}')"
    )))
}

/// tsl's `ErrnoToCode` for the errors reading a file can meet; an errno it maps to a class
/// this crate has no variant for (UnknownError) is reported as an internal error.
fn os_error(e: &std::io::Error, path: &str) -> Error {
    let reason = e.to_string();
    // std prints "<strerror> (os error N)"; TensorFlow prints strerror alone.
    let reason = reason.split(" (os error").next().unwrap_or(&reason);
    let message = format!("{path}; {reason}");
    errno_class(e)(message)
}

#[cfg(target_os = "linux")]
fn errno_class(e: &std::io::Error) -> fn(String) -> Error {
    use libc::*;
    let code = e.raw_os_error().unwrap_or(0);
    let is = |codes: &[i32]| codes.contains(&code);
    if is(&[ENOENT, ENODEV, ENXIO, ESRCH]) {
        Error::NotFound
    } else if is(&[EPERM, EACCES, EROFS]) {
        Error::PermissionDenied
    } else if is(&[ENOTEMPTY, EPIPE, ENOTDIR, EISDIR, EBUSY, ETXTBSY, EBADF]) {
        Error::FailedPrecondition
    } else if is(&[EINVAL, ENAMETOOLONG, E2BIG, EFAULT, ENOTTY, ESPIPE, EILSEQ]) {
        Error::InvalidArgument
    } else if is(&[ENOSPC, EMFILE, ENFILE, ENOBUFS, ENOMEM, EMLINK, EDQUOT]) {
        Error::ResourceExhausted
    } else if is(&[EFBIG, EOVERFLOW, ERANGE]) {
        Error::OutOfRange
    } else if is(&[ENOSYS, ENOTSUP, EXDEV]) {
        Error::Unimplemented
    } else if is(&[EAGAIN, EINTR, EIO]) {
        Error::Unavailable
    } else {
        Error::Internal
    }
}

#[cfg(not(target_os = "linux"))]
fn errno_class(e: &std::io::Error) -> fn(String) -> Error {
    match e.kind() {
        std::io::ErrorKind::NotFound => Error::NotFound,
        std::io::ErrorKind::PermissionDenied => Error::PermissionDenied,
        std::io::ErrorKind::IsADirectory | std::io::ErrorKind::NotADirectory => {
            Error::FailedPrecondition
        }
        _ => Error::Internal,
    }
}

#[cfg(unix)]
fn os_path(bytes: &[u8]) -> &std::path::Path {
    use std::os::unix::ffi::OsStrExt;
    std::path::Path::new(std::ffi::OsStr::from_bytes(bytes))
}

/// The file's bytes.
pub fn read(name: &[u8]) -> Result<Vec<u8>> {
    let text = String::from_utf8_lossy(name);
    if let Some(rest) = text.strip_prefix("ram://") {
        return read_ram(&text, rest);
    }
    let path = local_path(&text)?;
    #[cfg(unix)]
    let target = if path.len() == text.len() { os_path(name) } else { os_path(path.as_bytes()) };
    #[cfg(not(unix))]
    let target = std::path::Path::new(path);
    std::fs::read(target).map_err(|e| os_error(&e, path))
}

impl Primitive for ReadFile {
    fn tf_name(&self) -> &'static str {
        NAME
    }

    fn arity(&self) -> Arity {
        Arity::Exactly(1)
    }

    fn attrs(&self) -> Attrs {
        Attrs::new()
    }

    fn infer(&self, inputs: &[TensorType]) -> Result<Vec<TensorType>> {
        let x = input(inputs, 0)?;
        if x.dtype != DType::String {
            return Err(Error::unsupported_dtype(NAME, x.dtype));
        }
        if x.rank() != 0 {
            return Err(Error::InvalidArgument(format!(
                "Input filename tensor must be scalar, but had shape: {} [Op:{NAME}]",
                crate::ops::primitive::describe_dims(&x.dims).replace('?', "-1")
            )));
        }
        Ok(vec![TensorType { dtype: DType::String, dims: vec![] }])
    }

    fn cpu(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        self.infer(&[TensorType::of(inputs[0])])?;
        let Buffer::Str(names) = inputs[0].buffer() else {
            return Err(Error::unsupported_dtype(NAME, inputs[0].dtype()));
        };
        let bytes = read(names[0].as_bytes())?;
        let contents = Buffer::Str(vec![TfString::from_vec(bytes)]);
        Ok(vec![Tensor::from_buffer_unchecked(contents, Shape::scalar())])
    }

    fn decisions(&self) -> Decisions {
        Decisions {
            gpu: GpuKernel::CpuOnly("file contents are host strings"),
            differentiable: false,
            fusable: false,
        }
    }

    /// A file can change between runs: never folded into a constant or deduplicated.
    fn stateful(&self) -> bool {
        true
    }

    /// TensorFlow declares ReadFile stateless, so tf.data fuses and parallelises maps that
    /// read files (an image pipeline's `read_file` + `decode_jpeg` map).
    fn tensorflow_stateful(&self) -> bool {
        false
    }
}

impl Decode for ReadFile {
    fn names() -> Vec<&'static str> {
        vec![NAME]
    }

    fn decode(name: &str, _: &Attrs) -> Result<Self> {
        expect_name(name, NAME)?;
        Ok(ReadFile {})
    }
}

#[cfg(test)]
pub(crate) fn registry_examples() -> Vec<(crate::ops::registry::Op, Vec<Tensor>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let name = Buffer::Str(vec![TfString::from(path)]);
    let name = Tensor::from_buffer_unchecked(name, Shape::scalar());
    vec![(crate::ops::registry::Op::ReadFile(ReadFile {}), vec![name])]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_and_errors() {
        assert_eq!(local_path("/a/b").unwrap(), "/a/b");
        assert_eq!(local_path("file://host/a/b").unwrap(), "/a/b");
        assert_eq!(local_path("file://host").unwrap(), "");
        assert!(matches!(local_path("gs://bucket/x"), Err(Error::Unimplemented(_))));
        let missing = read(b"/no/such/file/here").unwrap_err();
        assert_eq!(missing.to_string(), "/no/such/file/here; No such file or directory");
        assert!(matches!(missing, Error::NotFound(_)));
        assert!(matches!(read(b"/").unwrap_err(), Error::FailedPrecondition(_)));
    }

    #[test]
    fn ram_names_are_escaped_parts_under_the_root() {
        assert_eq!(ram_part("a%b"), "a%25b");
        assert_eq!(ram_part(".."), "%2E%2E");
        assert_eq!(ram_part(""), "%");
        assert_eq!(ram_part("x"), "x");
    }
}
