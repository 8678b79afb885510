//! `NaN` and infinities in request bodies. TensorFlow Serving parses requests with RapidJSON's
//! `kParseNanAndInfFlag`, so `NaN`, `Inf`, `Infinity`, `-Inf` and `-Infinity` are numbers
//! there (and its responses write them). Strict JSON parsers refuse those tokens, so before
//! parsing each bare one (outside strings, where a value may start) becomes a marked string,
//! which `value_of` turns back into the number. The mark holds a random number drawn once per
//! process, so no string a client sends can pass for a marked one.

use serde_json::Value;
use std::borrow::Cow;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// `\0non-finite-<16 random hex digits>:`, as parsed strings hold it.
fn mark() -> &'static str {
    static MARK: OnceLock<String> = OnceLock::new();
    MARK.get_or_init(|| {
        let nonce = std::collections::hash_map::RandomState::new().build_hasher().finish();
        format!("\u{0}non-finite-{nonce:016x}:")
    })
}

/// The tokens, longest first so `Infinity` is not read as `Inf` followed by junk.
const TOKENS: [(&str, f64); 5] = [
    ("-Infinity", f64::NEG_INFINITY),
    ("Infinity", f64::INFINITY),
    ("-Inf", f64::NEG_INFINITY),
    ("Inf", f64::INFINITY),
    ("NaN", f64::NAN),
];

/// `body` with every bare non-finite token quoted as a marked string.
pub fn quote_tokens(body: &[u8]) -> Cow<'_, [u8]> {
    if !body.iter().any(|&b| b == b'N' || b == b'I') {
        return Cow::Borrowed(body);
    }
    let mut out = Vec::with_capacity(body.len() + 32);
    let (mut in_string, mut escaped) = (false, false);
    // The last byte outside strings that was not whitespace: a value starts after `[`, `,`, `:`.
    let mut last = b'\0';
    let mut i = 0;
    while i < body.len() {
        let b = body[i];
        if in_string {
            out.push(b);
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if matches!(last, b'[' | b',' | b':') {
            if let Some((token, _)) = TOKENS.iter().find(|(t, _)| token_at(body, i, t)) {
                out.extend_from_slice(b"\"\\u0000");
                out.extend_from_slice(&mark().as_bytes()[1..]); // the NUL is written escaped
                out.extend_from_slice(token.as_bytes());
                out.push(b'"');
                i += token.len();
                last = b'"';
                continue;
            }
        }
        if b == b'"' {
            in_string = true;
        }
        if !b.is_ascii_whitespace() {
            last = b;
        }
        out.push(b);
        i += 1;
    }
    Cow::Owned(out)
}

/// Whether `token` stands at `i`, followed by the end or a byte that ends a value.
fn token_at(body: &[u8], i: usize, token: &str) -> bool {
    body[i..].starts_with(token.as_bytes())
        && body
            .get(i + token.len())
            .is_none_or(|&b| b.is_ascii_whitespace() || matches!(b, b',' | b']' | b'}'))
}

/// The number a marked string stands for.
pub fn value_of(v: &Value) -> Option<f64> {
    let token = v.as_str()?.strip_prefix(mark())?;
    TOKENS.iter().find(|(t, _)| *t == token).map(|(_, x)| *x)
}

/// How a value prints in error messages: a marked string as its token.
pub fn display(v: &Value) -> String {
    match v.as_str().and_then(|s| s.strip_prefix(mark())) {
        Some(token) => token.to_string(),
        None => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &str) -> Value {
        serde_json::from_slice(&quote_tokens(body.as_bytes())).unwrap()
    }

    #[test]
    fn bare_tokens_become_numbers_and_strings_stay_as_they_are() {
        let v =
            parse(r#"{"instances": [NaN, -Infinity, Inf,1.5 , "NaN", "a\"NaN"], "x":Infinity}"#);
        let items = v["instances"].as_array().unwrap();
        assert!(value_of(&items[0]).unwrap().is_nan());
        assert_eq!(value_of(&items[1]), Some(f64::NEG_INFINITY));
        assert_eq!(value_of(&items[2]), Some(f64::INFINITY));
        assert_eq!(items[3], 1.5);
        assert_eq!(items[4], "NaN");
        // A client's string shaped like an old-style mark stays a string.
        let forged = parse(r#"{"a": ["\u0000non-finite:NaN"]}"#);
        assert_eq!(value_of(&forged["a"][0]), None);
        assert_eq!(items[5], "a\"NaN");
        assert_eq!(value_of(&items[4]), None);
        assert_eq!(value_of(&v["x"]), Some(f64::INFINITY));
        assert_eq!(display(&items[1]), "-Infinity");
    }

    #[test]
    fn tokens_inside_other_words_are_left_for_the_parser_to_refuse() {
        for body in [r#"{"a": [NaNx]}"#, r#"{"a": [Infinit]}"#, r#"{"NaN": 1, "b": xNaN}"#] {
            assert!(serde_json::from_slice::<Value>(&quote_tokens(body.as_bytes())).is_err());
        }
        assert_eq!(parse(r#"{"NaN": 1}"#)["NaN"], 1);
    }
}
