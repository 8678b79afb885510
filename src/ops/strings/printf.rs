//! C's printf conversions `%d`, `%f`, `%e` and `%g` with flags, width and precision: the
//! formats TensorFlow's AsString builds (`%08.3e`, `%-5d`, ...). glibc's output is the
//! reference: `inf`, `-nan`, two-digit exponents, `%g`'s trailing zeros removed.

/// One conversion: a flag character (`-`, `+`, ` `, `0` or `#`, or none), width, precision.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub flag: Option<char>,
    pub width: usize,
    pub precision: Option<usize>,
    pub conv: char,
}

impl Spec {
    /// Sign, then digits, padded to the width as the flag says.
    fn pad(&self, negative: bool, digits: String, numeric: bool) -> String {
        let sign = match (negative, self.flag) {
            (true, _) => "-",
            (false, Some('+')) => "+",
            (false, Some(' ')) => " ",
            _ => "",
        };
        let len = sign.len() + digits.len();
        let fill = self.width.saturating_sub(len);
        match self.flag {
            Some('-') => format!("{sign}{digits}{}", " ".repeat(fill)),
            Some('0') if numeric => format!("{sign}{}{digits}", "0".repeat(fill)),
            _ => format!("{}{sign}{digits}", " ".repeat(fill)),
        }
    }

    pub fn int(&self, v: i128) -> String {
        self.pad(v < 0, v.unsigned_abs().to_string(), true)
    }

    pub fn float(&self, v: f64) -> String {
        let negative = v.is_sign_negative();
        if v.is_nan() {
            return self.pad(negative, "nan".into(), false);
        }
        if v.is_infinite() {
            return self.pad(negative, "inf".into(), false);
        }
        let a = v.abs();
        let alt = self.flag == Some('#');
        let digits = match self.conv {
            'e' => exp(a, self.precision.unwrap_or(6), alt),
            'g' => general(a, self.precision.unwrap_or(6), alt),
            _ => fixed(a, self.precision.unwrap_or(6), alt),
        };
        self.pad(negative, digits, true)
    }
}

fn fixed(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$}");
    if alt && p == 0 {
        s + "."
    } else {
        s
    }
}

/// `d.ddde+XX`.
fn exp(a: f64, p: usize, alt: bool) -> String {
    let s = format!("{a:.p$e}");
    let (mantissa, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    format!("{mantissa}{dot}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// `%g`: `%e` when the exponent is below -4 or at least the precision, else `%f`; then
/// trailing zeros go (unless `#`).
fn general(a: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    let probe = format!("{a:.prec$e}", prec = p - 1);
    let x: i64 = probe.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0);
    let s = if x < -4 || x >= p as i64 {
        exp(a, p - 1, alt)
    } else {
        fixed(a, (p as i64 - 1 - x) as usize, alt)
    };
    if alt {
        return s;
    }
    let (body, tail) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s.as_str(), ""),
    };
    let body =
        if body.contains('.') { body.trim_end_matches('0').trim_end_matches('.') } else { body };
    format!("{body}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(flag: Option<char>, width: usize, precision: Option<usize>, conv: char) -> Spec {
        Spec { flag, width, precision, conv }
    }

    #[test]
    fn matches_glibc() {
        let f = spec(None, 0, None, 'f');
        assert_eq!(f.float(1.5), "1.500000");
        assert_eq!(f.float(-0.25), "-0.250000");
        assert_eq!(f.float(f64::NAN), "nan");
        assert_eq!(f.float(-f64::NAN), "-nan");
        assert_eq!(f.float(f64::NEG_INFINITY), "-inf");
        let g = spec(None, 0, None, 'g');
        assert_eq!(g.float(1.5), "1.5");
        assert_eq!(g.float(123456789.0), "1.23457e+08");
        assert_eq!(g.float(0.0001), "0.0001");
        assert_eq!(g.float(0.00001), "1e-05");
        assert_eq!(g.float(100000.0), "100000");
        assert_eq!(spec(Some('0'), 12, Some(3), 'e').float(-0.25), "-002.500e-01");
        assert_eq!(spec(Some('-'), 5, None, 'd').int(-25), "-25  ");
        assert_eq!(spec(Some('+'), 0, None, 'd').int(7), "+7");
    }
}
