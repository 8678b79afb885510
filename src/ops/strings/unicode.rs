//! Unicode decoding, encoding and transcoding as TensorFlow's ICU-based kernels do it: each
//! string is read one character at a time (a malformed piece is one error covering its maximal
//! subpart), errors are replaced, skipped or fatal, and text is written as UTF-8, UTF-16-BE or
//! UTF-32-BE. Scripts are Unicode 13.0's (the ICU TensorFlow links), as ICU's `UScriptCode`.

use super::{string_tensor, strs};
use crate::buffer::Buffer;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use crate::tstring::TfString;
use unicode_script::{Script, UnicodeScript};

const REPLACEMENT: u32 = 0xFFFD;

/// A byte order: fixed, or read from a leading byte order mark (big-endian without one).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Order {
    Big,
    Little,
    Detect,
}

/// An input encoding TensorFlow's ICU converters read.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    Utf8,
    Utf16(Order),
    Utf32(Order),
    Latin1,
    Ascii,
}

/// ICU's name matching ignores case and everything but letters and digits.
fn normalized(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

fn source(name: &str, op: &str) -> Result<Source> {
    use Order::*;
    Ok(match normalized(name).as_str() {
        "utf8" => Source::Utf8,
        "utf16" => Source::Utf16(Detect),
        "utf16be" => Source::Utf16(Big),
        "utf16le" => Source::Utf16(Little),
        "utf32" => Source::Utf32(Detect),
        "utf32be" => Source::Utf32(Big),
        "utf32le" => Source::Utf32(Little),
        "iso88591" | "latin1" | "l1" | "ibm819" | "cp819" | "csisolatin1" | "isoir100"
        | "88591" => Source::Latin1,
        "usascii" | "ascii" | "ascii7" | "ansix341968" | "ansix341986" | "iso646us" | "us"
        | "csascii" | "isoir6" | "cp367" | "ibm367" | "646" => Source::Ascii,
        _ => {
            return Err(Error::InvalidArgument(format!(
                "Could not create converter for input encoding: {name} (ferroflow reads UTF-8, \
                 UTF-16, UTF-32 (with -BE or -LE), ISO-8859-1 and US-ASCII) [Op:{op}]"
            )))
        }
    })
}

/// Checks that `name` is an input encoding ferroflow reads.
pub fn check_source(name: &str, op: &str) -> Result<()> {
    source(name, op).map(|_| ())
}

/// An output encoding (TensorFlow's attribute allows exactly these three names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    Utf8,
    Utf16Be,
    Utf32Be,
}

pub fn target(name: &str, op: &str) -> Result<Target> {
    match name {
        "UTF-8" => Ok(Target::Utf8),
        "UTF-16-BE" => Ok(Target::Utf16Be),
        "UTF-32-BE" => Ok(Target::Utf32Be),
        _ => Err(Error::InvalidArgument(format!(
            "Value for attr 'output_encoding' of \"{name}\" is not in the list of allowed values: \
             \"UTF-8\", \"UTF-16-BE\", \"UTF-32-BE\" [Op:{op}]"
        ))),
    }
}

/// What happens to malformed input (and, when asked, to C0 control characters).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    pub ignore: bool,
    pub strict: bool,
    pub subst: u32,
    pub replace_control: bool,
}

pub fn policy(errors: &str, replacement: i64, replace_control: bool, op: &str) -> Result<Policy> {
    let (ignore, strict) = match errors {
        "replace" => (false, false),
        "ignore" => (true, false),
        "strict" => (false, true),
        _ => {
            return Err(Error::InvalidArgument(format!(
                "Value for attr 'errors' of \"{errors}\" is not in the list of allowed values: \
                 \"strict\", \"replace\", \"ignore\" [Op:{op}]"
            )))
        }
    };
    if !(0..=0x10FFFF).contains(&replacement) {
        return Err(Error::InvalidArgument(format!(
            "replacement_char out of unicode codepoint range [Op:{op}]"
        )));
    }
    Ok(Policy { ignore, strict, subst: replacement as u32, replace_control })
}

/// One step of a decoder: the code point, how many bytes produced it, and whether they were
/// malformed (the code point is then U+FFFD).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Step {
    value: u32,
    len: usize,
    error: bool,
}

fn ok(value: u32, len: usize) -> Step {
    Step { value, len, error: false }
}

fn bad(len: usize) -> Step {
    Step { value: REPLACEMENT, len, error: true }
}

/// The next UTF-8 character of `s` (not empty): a malformed sequence is an error over its
/// longest valid prefix, or over one byte.
fn utf8_step(s: &[u8]) -> Step {
    let lead = s[0];
    let (need, low, high) = match lead {
        0x00..=0x7F => return ok(lead as u32, 1),
        0xC2..=0xDF => (1, 0x80, 0xBF),
        0xE0 => (2, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (2, 0x80, 0xBF),
        0xED => (2, 0x80, 0x9F),
        0xF0 => (3, 0x90, 0xBF),
        0xF1..=0xF3 => (3, 0x80, 0xBF),
        0xF4 => (3, 0x80, 0x8F),
        _ => return bad(1),
    };
    let mut value = (lead as u32) & (0x7F >> (need + 1));
    for k in 1..=need {
        let (lo, hi) = if k == 1 { (low, high) } else { (0x80, 0xBF) };
        match s.get(k) {
            Some(&b) if (lo..=hi).contains(&b) => value = (value << 6) | (b as u32 & 0x3F),
            _ => return bad(k),
        }
    }
    ok(value, need + 1)
}

fn unit16(s: &[u8], little: bool) -> u32 {
    if little {
        u16::from_le_bytes([s[0], s[1]]) as u32
    } else {
        u16::from_be_bytes([s[0], s[1]]) as u32
    }
}

fn utf16_step(s: &[u8], little: bool) -> Step {
    if s.len() < 2 {
        return bad(s.len());
    }
    let u = unit16(s, little);
    match u {
        0xD800..=0xDBFF => match s.len() {
            2 => bad(2),
            3 => bad(3),
            _ => {
                let v = unit16(&s[2..], little);
                if (0xDC00..=0xDFFF).contains(&v) {
                    ok(0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00), 4)
                } else {
                    bad(2)
                }
            }
        },
        0xDC00..=0xDFFF => bad(2),
        _ => ok(u, 2),
    }
}

fn utf32_step(s: &[u8], little: bool) -> Step {
    if s.len() < 4 {
        return bad(s.len());
    }
    let b = [s[0], s[1], s[2], s[3]];
    let v = if little { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) };
    if v > 0x10FFFF || (0xD800..=0xDFFF).contains(&v) {
        bad(4)
    } else {
        ok(v, 4)
    }
}

/// Calls `f` with each step of decoding `s`. An unmarked UTF-16 or UTF-32 string may start
/// with a byte order mark: it picks the order and counts as part of the first character (a
/// mark alone reads as U+FFFF, as ICU's converter returns it). TensorFlow reads a whole batch
/// with one converter, whose order stays fixed once it has produced a supplementary character
/// and until it meets malformed input: `fixed` carries that order from string to string.
fn decode_steps(
    s: &[u8],
    src: Source,
    fixed: &mut Option<bool>,
    mut f: impl FnMut(Step) -> Result<()>,
) -> Result<()> {
    let (width, mut little, detect) = match src {
        Source::Utf16(o) => (2, o == Order::Little, o == Order::Detect),
        Source::Utf32(o) => (4, o == Order::Little, o == Order::Detect),
        _ => (0, false, false),
    };
    let mut pos = 0;
    let mut carried = 0;
    if let (true, Some(l)) = (detect, *fixed) {
        little = l;
    } else if detect {
        let mark: Option<bool> = match (width, s) {
            (2, [0xFE, 0xFF, ..]) | (4, [0, 0, 0xFE, 0xFF, ..]) => Some(false),
            (2, [0xFF, 0xFE, ..]) | (4, [0xFF, 0xFE, 0, 0, ..]) => Some(true),
            _ => None,
        };
        if let Some(l) = mark {
            little = l;
            pos = width;
            carried = width;
            if s.len() == width {
                return f(ok(0xFFFF, width));
            }
        }
    }
    while pos < s.len() {
        let rest = &s[pos..];
        let mut step = match src {
            Source::Utf8 => utf8_step(rest),
            Source::Utf16(_) => utf16_step(rest, little),
            Source::Utf32(_) => utf32_step(rest, little),
            Source::Latin1 => ok(rest[0] as u32, 1),
            Source::Ascii if rest[0] < 0x80 => ok(rest[0] as u32, 1),
            Source::Ascii => bad(1),
        };
        pos += step.len.max(1);
        step.len += carried;
        carried = 0;
        if detect && step.error {
            *fixed = None;
        } else if detect && step.value >= 0x10000 {
            *fixed = Some(little);
        }
        f(step)?;
    }
    Ok(())
}

fn malformed(op: &str) -> Error {
    Error::InvalidArgument(format!("Invalid formatting on input string [Op:{op}]"))
}

/// `UnicodeDecode(WithOffsets)`: every string's code points (int32) with row splits and each
/// character's starting byte (int64).
pub fn decode(x: &Tensor, encoding: &str, p: Policy, op: &str) -> Result<[Tensor; 3]> {
    let src = source(encoding, op)?;
    let v = strs(x)?;
    let mut splits: Vec<i64> = Vec::with_capacity(v.len() + 1);
    let mut values: Vec<i32> = Vec::new();
    let mut starts: Vec<i64> = Vec::new();
    splits.push(0);
    let mut fixed = None;
    for s in v {
        let mut offset = 0usize;
        decode_steps(s.as_bytes(), src, &mut fixed, |step| {
            if p.strict && step.error {
                return Err(malformed(op));
            }
            let mut value = step.value;
            if step.error || (p.replace_control && value <= 0x1F) {
                if p.ignore {
                    offset += step.len;
                    return Ok(());
                }
                value = p.subst;
            }
            values.push(value as i32);
            starts.push(offset as i64);
            offset += step.len;
            Ok(())
        })?;
        splits.push(values.len() as i64);
    }
    let n = values.len();
    Ok([
        Tensor::from_slice(&splits, &[splits.len()])?,
        Tensor::from_slice(&values, &[n])?,
        Tensor::from_slice(&starts, &[n])?,
    ])
}

/// Appends code points to UTF-16 code units as ICU's `UnicodeString::append` does (a
/// surrogate code point is one unit).
fn push_unit(units: &mut Vec<u16>, c: u32) {
    if c >= 0x10000 {
        let c = c - 0x10000;
        units.push(0xD800 + (c >> 10) as u16);
        units.push(0xDC00 + (c & 0x3FF) as u16);
    } else {
        units.push(c as u16);
    }
}

/// Writes UTF-16 code units in the target encoding: in UTF-8 an unpaired surrogate becomes
/// U+FFFD; UTF-16 and UTF-32 keep it.
fn encode_units(units: &[u16], target: Target) -> Vec<u8> {
    let mut out = Vec::with_capacity(units.len() * 2);
    if target == Target::Utf16Be {
        for u in units {
            out.extend_from_slice(&u.to_be_bytes());
        }
        return out;
    }
    for c in char::decode_utf16(units.iter().copied()) {
        let (value, ch) = match c {
            Ok(ch) => (ch as u32, ch),
            Err(e) => (e.unpaired_surrogate() as u32, char::REPLACEMENT_CHARACTER),
        };
        match target {
            Target::Utf8 => {
                let mut b = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
            }
            _ => out.extend_from_slice(&value.to_be_bytes()),
        }
    }
    out
}

/// `UnicodeTranscode`: each string decoded and written again. With `strict`, any error (or
/// control character being replaced) fails the op once every string has been read.
pub fn transcode(x: &Tensor, encoding: &str, target: Target, p: Policy) -> Result<Tensor> {
    let op = "UnicodeTranscode";
    let src = source(encoding, op)?;
    let v = strs(x)?;
    let mut any_error = false;
    let mut out = Vec::with_capacity(v.len());
    let mut units: Vec<u16> = Vec::new();
    let mut fixed = None;
    for s in v {
        units.clear();
        decode_steps(s.as_bytes(), src, &mut fixed, |step| {
            let mut value = step.value;
            if step.error || (p.replace_control && value <= 0x1F) {
                any_error = true;
                if p.ignore {
                    return Ok(());
                }
                value = p.subst;
            }
            push_unit(&mut units, value);
            Ok(())
        })?;
        out.push(TfString::from_vec(encode_units(&units, target)));
    }
    if p.strict && any_error {
        return Err(malformed(op));
    }
    Ok(string_tensor(out, x.dims()))
}

fn split_values(t: &Tensor) -> Result<Vec<i64>> {
    match t.buffer() {
        Buffer::I32(v) => Ok(v.iter().map(|&x| x as i64).collect()),
        Buffer::I64(v) => Ok(v.clone()),
        _ => Err(Error::unsupported_dtype("UnicodeEncode", t.dtype())),
    }
}

/// Checks that row splits start at 0, never decrease and end at `n`.
pub fn check_splits(splits: &[i64], n: usize, op: &str) -> Result<()> {
    let fail = |why: String| Err(Error::InvalidArgument(format!("{why} [Op:{op}]")));
    match splits.first() {
        None => return fail("Input splits must have at least one element".into()),
        Some(&s) if s != 0 => return fail(format!("First split value must be 0, got {s}")),
        _ => {}
    }
    for w in splits.windows(2) {
        if w[1] < w[0] || w[1] > n as i64 {
            return fail(format!("Invalid split value {}, must be in [{}, {n}]", w[1], w[0]));
        }
    }
    let last = splits.last().copied().unwrap_or(0);
    if last != n as i64 {
        return fail(format!("Last split value must be data size. Expected {n}, got {last}"));
    }
    Ok(())
}

/// `UnicodeEncode`: the code points between consecutive splits as one string each.
pub fn encode(values: &Tensor, splits: &Tensor, target: Target, p: Policy) -> Result<Tensor> {
    let op = "UnicodeEncode";
    let cps: Vec<i32> = values.to_vec()?;
    let splits = split_values(splits)?;
    check_splits(&splits, cps.len(), op)?;
    let mut out = Vec::with_capacity(splits.len().saturating_sub(1));
    let mut units: Vec<u16> = Vec::new();
    for w in splits.windows(2) {
        units.clear();
        for &c in cps.get(w[0] as usize..w[1] as usize).unwrap_or(&[]) {
            let valid = (0..=0x10FFFF).contains(&c) && !(0xD800..=0xDFFF).contains(&c);
            if valid {
                push_unit(&mut units, c as u32);
            } else if p.strict {
                return Err(Error::InvalidArgument(format!(
                    "Code point is out of range for Unicode, or is a surrogate. [Op:{op}]"
                )));
            } else if !p.ignore {
                push_unit(&mut units, p.subst);
            }
        }
        out.push(TfString::from_vec(encode_units(&units, target)));
    }
    let n = out.len();
    Ok(string_tensor(out, &[n]))
}

/// ICU's `UScriptCode` of a script, by its ISO 15924 code (the scripts of Unicode 13.0).
fn icu_code(script: Script) -> i32 {
    match script.short_name() {
        "Zyyy" => 0,
        "Zinh" => 1,
        "Arab" => 2,
        "Armn" => 3,
        "Beng" => 4,
        "Bopo" => 5,
        "Cher" => 6,
        "Copt" => 7,
        "Cyrl" => 8,
        "Dsrt" => 9,
        "Deva" => 10,
        "Ethi" => 11,
        "Geor" => 12,
        "Goth" => 13,
        "Grek" => 14,
        "Gujr" => 15,
        "Guru" => 16,
        "Hani" => 17,
        "Hang" => 18,
        "Hebr" => 19,
        "Hira" => 20,
        "Knda" => 21,
        "Kana" => 22,
        "Khmr" => 23,
        "Laoo" => 24,
        "Latn" => 25,
        "Mlym" => 26,
        "Mong" => 27,
        "Mymr" => 28,
        "Ogam" => 29,
        "Ital" => 30,
        "Orya" => 31,
        "Runr" => 32,
        "Sinh" => 33,
        "Syrc" => 34,
        "Taml" => 35,
        "Telu" => 36,
        "Thaa" => 37,
        "Thai" => 38,
        "Tibt" => 39,
        "Cans" => 40,
        "Yiii" => 41,
        "Tglg" => 42,
        "Hano" => 43,
        "Buhd" => 44,
        "Tagb" => 45,
        "Brai" => 46,
        "Cprt" => 47,
        "Limb" => 48,
        "Linb" => 49,
        "Osma" => 50,
        "Shaw" => 51,
        "Tale" => 52,
        "Ugar" => 53,
        "Bugi" => 55,
        "Glag" => 56,
        "Khar" => 57,
        "Sylo" => 58,
        "Talu" => 59,
        "Tfng" => 60,
        "Xpeo" => 61,
        "Bali" => 62,
        "Batk" => 63,
        "Brah" => 65,
        "Cham" => 66,
        "Egyp" => 71,
        "Hmng" => 75,
        "Hung" => 76,
        "Java" => 78,
        "Kali" => 79,
        "Lepc" => 82,
        "Lina" => 83,
        "Mand" => 84,
        "Mero" => 86,
        "Nkoo" => 87,
        "Orkh" => 88,
        "Perm" => 89,
        "Phag" => 90,
        "Phnx" => 91,
        "Plrd" => 92,
        "Vaii" => 99,
        "Xsux" => 101,
        "Cari" => 104,
        "Lana" => 106,
        "Lyci" => 107,
        "Lydi" => 108,
        "Olck" => 109,
        "Rjng" => 110,
        "Saur" => 111,
        "Sgnw" => 112,
        "Sund" => 113,
        "Mtei" => 115,
        "Armi" => 116,
        "Avst" => 117,
        "Cakm" => 118,
        "Kthi" => 120,
        "Mani" => 121,
        "Phli" => 122,
        "Phlp" => 123,
        "Prti" => 125,
        "Samr" => 126,
        "Tavt" => 127,
        "Bamu" => 130,
        "Lisu" => 131,
        "Sarb" => 133,
        "Bass" => 134,
        "Dupl" => 135,
        "Elba" => 136,
        "Gran" => 137,
        "Mend" => 140,
        "Merc" => 141,
        "Narb" => 142,
        "Nbat" => 143,
        "Palm" => 144,
        "Sind" => 145,
        "Wara" => 146,
        "Mroo" => 149,
        "Nshu" => 150,
        "Shrd" => 151,
        "Sora" => 152,
        "Takr" => 153,
        "Tang" => 154,
        "Hluw" => 156,
        "Khoj" => 157,
        "Tirh" => 158,
        "Aghb" => 159,
        "Mahj" => 160,
        "Ahom" => 161,
        "Hatr" => 162,
        "Modi" => 163,
        "Mult" => 164,
        "Pauc" => 165,
        "Sidd" => 166,
        "Adlm" => 167,
        "Bhks" => 168,
        "Marc" => 169,
        "Newa" => 170,
        "Osge" => 171,
        "Gonm" => 175,
        "Soyo" => 176,
        "Zanb" => 177,
        "Dogr" => 178,
        "Gong" => 179,
        "Maka" => 180,
        "Medf" => 181,
        "Rohg" => 182,
        "Sogd" => 183,
        "Sogo" => 184,
        "Elym" => 185,
        "Hmnp" => 186,
        "Nand" => 187,
        "Wcho" => 188,
        "Chrs" => 189,
        "Diak" => 190,
        "Kits" => 191,
        "Yezi" => 192,
        _ => 103, // Zzzz: unknown
    }
}

/// `UnicodeScript`: each code point's script code, -1 outside Unicode's range (surrogates and
/// unassigned code points are Unknown, 103).
pub fn script(x: &Tensor) -> Result<Tensor> {
    let cps: Vec<i32> = x.to_vec()?;
    let out: Vec<i32> = cps
        .iter()
        .map(|&c| match u32::try_from(c) {
            Ok(c) if c <= 0x10FFFF => char::from_u32(c).map_or(103, |ch| icu_code(ch.script())),
            _ => -1,
        })
        .collect();
    Tensor::from_slice(&out, x.dims())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(s: &[u8], src: Source) -> Vec<(u32, usize, bool)> {
        let mut out = Vec::new();
        decode_steps(s, src, &mut None, |st| {
            out.push((st.value, st.len, st.error));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn utf8_errors_cover_maximal_subparts() {
        let got = steps(b"\xe2\x82A\xf0\x9f\x98\xed\xa0\x80\xe2\x82\xac", Source::Utf8);
        let f = 0xFFFD;
        let want = [
            (f, 2, true),
            (65, 1, false),
            (f, 3, true),
            (f, 1, true),
            (f, 1, true),
            (f, 1, true),
            (0x20AC, 3, false),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn utf16_marks_and_surrogates() {
        let detect = Source::Utf16(Order::Detect);
        assert_eq!(steps(b"\xff\xfeB\x00", detect), [(66, 4, false)]);
        assert_eq!(steps(b"\xfe\xff", detect), [(0xFFFF, 2, false)]);
        let be = Source::Utf16(Order::Big);
        assert_eq!(steps(b"\xd8\x00\xdc", be), [(0xFFFD, 3, true)]);
        assert_eq!(
            steps(b"\xd8\x00\xd8\x00\xdc\x00", be),
            [(0xFFFD, 2, true), (0x10000, 4, false)]
        );
    }

    #[test]
    fn scripts_use_icu_numbers() {
        let x =
            Tensor::from_slice(&[0x41, 0x3b1, 0x5d0, 0x4e00, 0x2800, 0xD800, -1], &[7]).unwrap();
        assert_eq!(script(&x).unwrap().to_vec::<i32>().unwrap(), [25, 14, 19, 17, 46, 103, -1]);
    }

    #[test]
    fn encodes_unpaired_surrogates_as_icu() {
        let units = [0x41u16, 0xD800];
        assert_eq!(encode_units(&units, Target::Utf8), b"A\xef\xbf\xbd");
        assert_eq!(encode_units(&units, Target::Utf16Be), b"\x00A\xd8\x00");
        assert_eq!(encode_units(&units, Target::Utf32Be), b"\x00\x00\x00A\x00\x00\xd8\x00");
    }
}
