//! `tf.string`'s element: an arbitrary byte string (TensorFlow's `tstring`), not necessarily
//! UTF-8. Short strings live inline, as TensorFlow's small-string optimisation keeps them, so a
//! tensor of short tokens is one allocation rather than one per element.

use smallvec::SmallVec;

/// Bytes kept inline before a string spills to the heap (TensorFlow keeps 22).
const INLINE: usize = 24;

#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TfString(SmallVec<[u8; INLINE]>);

impl TfString {
    pub fn new(bytes: &[u8]) -> TfString {
        TfString(SmallVec::from_slice(bytes))
    }

    pub fn from_vec(bytes: Vec<u8>) -> TfString {
        TfString(SmallVec::from_vec(bytes))
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<&str> for TfString {
    fn from(s: &str) -> TfString {
        TfString::new(s.as_bytes())
    }
}

impl From<&[u8]> for TfString {
    fn from(s: &[u8]) -> TfString {
        TfString::new(s)
    }
}

/// Python's `repr` of `bytes` (`b'caf\xc3\xa9'`), which is how TensorFlow shows string elements.
pub fn bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') { '"' } else { '\'' };
    let mut out = String::with_capacity(bytes.len() + 3);
    out.push('b');
    out.push(quote);
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ if b as char == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(quote);
    out
}

/// C-style escaping as TensorFlow's `CEscape`: how `tf.print` and assertion messages show
/// string elements (`\n`, `\"`, and octal `\303` for bytes outside printable ASCII).
pub fn c_escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

impl std::fmt::Debug for TfString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&bytes_repr(&self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repr_matches_python_bytes() {
        assert_eq!(bytes_repr(b"abc"), "b'abc'");
        assert_eq!(bytes_repr("café".as_bytes()), "b'caf\\xc3\\xa9'");
        assert_eq!(bytes_repr(b"it's"), "b\"it's\"");
        assert_eq!(bytes_repr(b"'\""), "b'\\'\"'");
        assert_eq!(bytes_repr(b"a\nb\\"), "b'a\\nb\\\\'");
    }

    #[test]
    fn c_escape_matches_tensorflow() {
        assert_eq!(c_escape(b"a\"b\n"), "a\\\"b\\n");
        assert_eq!(c_escape("é".as_bytes()), "\\303\\251");
    }

    #[test]
    fn long_strings_spill_and_compare() {
        let long = TfString::new(&[b'x'; 100]);
        assert_eq!(long.len(), 100);
        assert!(TfString::from("a") < TfString::from("b"));
        assert!(TfString::default().is_empty());
    }
}
