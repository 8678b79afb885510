//! Protocol Buffers' text format, as far as configuration files use it: fields with scalar
//! values (strings, numbers, identifiers), nested messages in `{}` or `<>`, `[...]` lists,
//! `#` comments and optional `,`/`;` separators. The result is an untyped tree; `config`
//! gives it the types of TensorFlow Serving's `ModelServerConfig`.

use std::fmt;

/// Where in the text something is: 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextFormatError {
    #[error("{0}: unterminated string")]
    UnterminatedString(Pos),
    #[error("{0}: invalid escape '\\{1}' in a string")]
    BadEscape(Pos, char),
    #[error("{0}: a string is not valid UTF-8")]
    NotUtf8(Pos),
    #[error("{0}: unexpected character {1:?}")]
    UnexpectedChar(Pos, char),
    #[error("{pos}: expected {expected}, found {found}")]
    Expected { pos: Pos, expected: &'static str, found: String },
    #[error("{0}: messages nest deeper than {MAX_DEPTH} levels")]
    TooDeep(Pos),
}

/// Deeper nesting is refused rather than recursed into (a hostile file must not overflow the
/// stack).
pub const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Str(String),
    /// A number as written (`1`, `-2`, `0x10`, `1.5e3`); the typed layer parses it.
    Number(String),
    /// An enum value or `true`/`false`.
    Ident(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Scalar(Scalar),
    Message(Message),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub pos: Pos,
    pub value: Value,
}

/// A message: its fields in the order written (a repeated field appears once per value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Message {
    pub fields: Vec<Field>,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Number(String),
    Str(String),
    Punct(char),
    End,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Ident(s) | Token::Number(s) => format!("'{s}'"),
            Token::Str(s) => format!("string {s:?}"),
            Token::Punct(c) => format!("'{c}'"),
            Token::End => "the end of the text".into(),
        }
    }
}

struct Lexer<'a> {
    text: &'a [u8],
    at: usize,
    line: usize,
    line_start: usize,
}

impl<'a> Lexer<'a> {
    fn pos(&self) -> Pos {
        Pos { line: self.line, column: self.at - self.line_start + 1 }
    }

    fn bump(&mut self) -> Option<u8> {
        let c = *self.text.get(self.at)?;
        self.at += 1;
        if c == b'\n' {
            self.line += 1;
            self.line_start = self.at;
        }
        Some(c)
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_blank(&mut self) {
        while let Some(c) = self.peek() {
            if c == b'#' {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.bump();
                }
            } else if c.is_ascii_whitespace() {
                self.bump();
            } else {
                break;
            }
        }
    }

    /// The next token and where it starts.
    fn next(&mut self) -> Result<(Token, Pos), TextFormatError> {
        self.skip_blank();
        let pos = self.pos();
        let Some(c) = self.peek() else { return Ok((Token::End, pos)) };
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'+';
        let token = match c {
            b'"' | b'\'' => Token::Str(self.string(pos)?),
            b'{' | b'}' | b'<' | b'>' | b'[' | b']' | b':' | b',' | b';' => {
                self.bump();
                Token::Punct(c as char)
            }
            b'-' | b'0'..=b'9' => {
                let start = self.at;
                self.bump();
                while self.peek().is_some_and(word) || self.peek() == Some(b'-') {
                    self.bump();
                }
                Token::Number(String::from_utf8_lossy(&self.text[start..self.at]).into_owned())
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
                    self.bump();
                }
                Token::Ident(String::from_utf8_lossy(&self.text[start..self.at]).into_owned())
            }
            _ => {
                let rest = std::str::from_utf8(&self.text[self.at..]).ok();
                let ch = rest.and_then(|r| r.chars().next()).unwrap_or(c as char);
                return Err(TextFormatError::UnexpectedChar(pos, ch));
            }
        };
        Ok((token, pos))
    }

    /// A quoted string with C escapes; adjacent strings are not joined here but by the parser.
    fn string(&mut self, pos: Pos) -> Result<String, TextFormatError> {
        let Some(quote) = self.bump() else { return Err(TextFormatError::UnterminatedString(pos)) };
        let mut bytes = Vec::new();
        loop {
            match self.bump() {
                None | Some(b'\n') => return Err(TextFormatError::UnterminatedString(pos)),
                Some(c) if c == quote => break,
                Some(b'\\') => {
                    let escape_pos = self.pos();
                    let Some(e) = self.bump() else {
                        return Err(TextFormatError::UnterminatedString(pos));
                    };
                    bytes.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'a' => 7,
                        b'b' => 8,
                        b'f' => 12,
                        b'v' => 11,
                        b'\\' | b'\'' | b'"' | b'?' => e,
                        b'x' => self.digits(16, 2, escape_pos, 'x')?,
                        b'0'..=b'7' => {
                            self.at -= 1;
                            self.digits(8, 3, escape_pos, e as char)?
                        }
                        _ => return Err(TextFormatError::BadEscape(escape_pos, e as char)),
                    });
                }
                Some(c) => bytes.push(c),
            }
        }
        String::from_utf8(bytes).map_err(|_| TextFormatError::NotUtf8(pos))
    }

    /// Up to `most` digits of `radix` (an escape's value), at least one.
    fn digits(
        &mut self,
        radix: u32,
        most: usize,
        pos: Pos,
        escape: char,
    ) -> Result<u8, TextFormatError> {
        let mut value = 0u32;
        let mut count = 0;
        while count < most {
            match self.peek().and_then(|c| (c as char).to_digit(radix)) {
                Some(d) => {
                    value = value * radix + d;
                    self.bump();
                    count += 1;
                }
                None => break,
            }
        }
        if count == 0 || value > 255 {
            return Err(TextFormatError::BadEscape(pos, escape));
        }
        Ok(value as u8)
    }
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    token: Token,
    pos: Pos,
}

impl Parser<'_> {
    fn advance(&mut self) -> Result<(), TextFormatError> {
        (self.token, self.pos) = self.lexer.next()?;
        Ok(())
    }

    fn expected(&self, expected: &'static str) -> TextFormatError {
        TextFormatError::Expected { pos: self.pos, expected, found: self.token.describe() }
    }

    /// Fields until `close` (a punctuation mark, or `Token::End` at the top level).
    fn message(&mut self, close: &Token, depth: usize) -> Result<Message, TextFormatError> {
        if depth > MAX_DEPTH {
            return Err(TextFormatError::TooDeep(self.pos));
        }
        let mut message = Message::default();
        while &self.token != close {
            let Token::Ident(name) = self.token.clone() else {
                return Err(self.expected("a field name"));
            };
            let pos = self.pos;
            self.advance()?;
            let colon = self.token == Token::Punct(':');
            if colon {
                self.advance()?;
            }
            if self.token == Token::Punct('[') {
                self.advance()?;
                while self.token != Token::Punct(']') {
                    let value = self.value(colon, depth)?;
                    message.fields.push(Field { name: name.clone(), pos, value });
                    if self.token == Token::Punct(',') {
                        self.advance()?;
                    } else if self.token != Token::Punct(']') {
                        return Err(self.expected("',' or ']'"));
                    }
                }
                self.advance()?;
            } else {
                let value = self.value(colon, depth)?;
                message.fields.push(Field { name, pos, value });
            }
            if matches!(self.token, Token::Punct(',' | ';')) {
                self.advance()?;
            }
        }
        Ok(message)
    }

    /// One value: a nested message, or (after a colon) a scalar.
    fn value(&mut self, colon: bool, depth: usize) -> Result<Value, TextFormatError> {
        let close = match self.token {
            Token::Punct('{') => Some(Token::Punct('}')),
            Token::Punct('<') => Some(Token::Punct('>')),
            _ => None,
        };
        if let Some(close) = close {
            self.advance()?;
            let inner = self.message(&close, depth + 1)?;
            if self.token != close {
                return Err(self.expected("the end of the message"));
            }
            self.advance()?;
            return Ok(Value::Message(inner));
        }
        if !colon {
            return Err(self.expected("':' or '{'"));
        }
        let scalar = match std::mem::replace(&mut self.token, Token::End) {
            Token::Str(mut s) => {
                self.advance()?;
                // Adjacent strings are one value, as in C.
                while let Token::Str(more) = &self.token {
                    s.push_str(more);
                    self.advance()?;
                }
                return Ok(Value::Scalar(Scalar::Str(s)));
            }
            Token::Number(n) => Scalar::Number(n),
            Token::Ident(i) => Scalar::Ident(i),
            other => {
                self.token = other;
                return Err(self.expected("a value"));
            }
        };
        self.advance()?;
        Ok(Value::Scalar(scalar))
    }
}

/// Parses a whole text-format message.
pub fn parse(text: &str) -> Result<Message, TextFormatError> {
    let lexer = Lexer { text: text.as_bytes(), at: 0, line: 1, line_start: 0 };
    let mut parser = Parser { lexer, token: Token::End, pos: Pos { line: 1, column: 1 } };
    parser.advance()?;
    parser.message(&Token::End, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(m: &Message, i: usize) -> &Scalar {
        match &m.fields[i].value {
            Value::Scalar(s) => s,
            Value::Message(_) => panic!("field {i} is a message"),
        }
    }

    #[test]
    fn scalars_messages_lists_and_comments() {
        let m =
            parse("# a comment\n a: \"x\\n\" 'y'  b: -3, c < d: true > e {} f: [1, 2]; g: 0x1F")
                .unwrap();
        let names: Vec<&str> = m.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "e", "f", "f", "g"]);
        assert_eq!(scalar(&m, 0), &Scalar::Str("x\ny".into()));
        assert_eq!(scalar(&m, 1), &Scalar::Number("-3".into()));
        assert_eq!(scalar(&m, 6), &Scalar::Number("0x1F".into()));
        let Value::Message(c) = &m.fields[2].value else { panic!() };
        assert_eq!(scalar(c, 0), &Scalar::Ident("true".into()));
        assert_eq!(m.fields[4].pos, Pos { line: 2, column: 42 });
    }

    #[test]
    fn errors_say_where() {
        let err = |text: &str| parse(text).unwrap_err().to_string();
        assert_eq!(err("a: {"), "1:5: expected a field name, found the end of the text");
        assert_eq!(err("a: ]"), "1:4: expected a value, found ']'");
        assert_eq!(err("a {\n b: 1"), "2:6: expected a field name, found the end of the text");
        assert_eq!(err("a: \"x"), "1:4: unterminated string");
        assert_eq!(err("a: \"\\q\""), "1:6: invalid escape '\\q' in a string");
        assert_eq!(err("a 1"), "1:3: expected ':' or '{', found '1'");
        assert_eq!(err("a: 1 }"), "1:6: expected a field name, found '}'");
        assert_eq!(err("a: @"), "1:4: unexpected character '@'");
        let deep = "a {".repeat(MAX_DEPTH + 2);
        assert!(matches!(parse(&deep), Err(TextFormatError::TooDeep(_))));
    }
}
