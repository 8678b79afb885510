//! Standard base64 (RFC 4648, `+/`, padding optional when decoding): the `{"b64": ...}` form
//! TensorFlow Serving's JSON gives binary strings, and the bytes TensorFlow's error messages
//! print.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `None` when `text` is not base64 (a bad character, a lone trailing character, or padding
/// anywhere but the end).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    let unpadded = text.strip_suffix(b"==").or_else(|| text.strip_suffix(b"=")).unwrap_or(text);
    if !(text.len() == unpadded.len() || text.len().is_multiple_of(4)) || unpadded.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(unpadded.len() * 3 / 4);
    for chunk in unpadded.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|&a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips_and_rejects() {
        for s in [&b""[..], b"f", b"fo", b"foo", b"foob", b"\xff\x00\x10"] {
            assert_eq!(super::decode(&super::encode(s)).unwrap(), s);
        }
        assert_eq!(super::encode(b"foob"), "Zm9vYg==");
        assert_eq!(super::decode("Zm9vYg").unwrap(), b"foob");
        for bad in ["Z", "Zm9v!", "Zm=9", "Zm9vY==="] {
            assert_eq!(super::decode(bad), None, "{bad}");
        }
    }
}
