//! Tokens of the shell's input: the small part of Ruby's literal syntax the HBase shell's
//! commands are written in. Every token carries its line and column, so a syntax error can
//! name where it is; anything outside the subset is refused here or in the parser with a
//! message naming the construct, never handed to an interpreter.

use std::fmt;

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A quoted string, already unescaped (Ruby's rules: escapes only in double quotes).
    Str(Vec<u8>),
    Int(i64),
    /// A lower-case word: a command name, `nil`, `true`, `false`.
    Ident(String),
    /// A word starting with a capital letter: one of the HBase shell's constants.
    Const(String),
    Comma,
    Arrow,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    /// A newline or `;`: the end of a command (unless inside brackets).
    End,
}

/// Why input could not be read: `incomplete` errors mean more lines may complete it (an open
/// quote or bracket), which the interactive shell and script reader wait for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub pos: Pos,
    pub message: String,
    pub incomplete: bool,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "syntax error at {}: {}", self.pos, self.message)
    }
}

impl SyntaxError {
    pub fn at(pos: Pos, message: impl Into<String>) -> Self {
        SyntaxError {
            pos,
            message: message.into(),
            incomplete: false,
        }
    }
    fn incomplete(pos: Pos, message: impl Into<String>) -> Self {
        SyntaxError {
            pos,
            message: message.into(),
            incomplete: true,
        }
    }
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    pos: Pos,
}

impl Lexer<'_> {
    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }
    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.pos.line += 1;
            self.pos.col = 1;
        } else {
            self.pos.col += 1;
        }
        Some(c)
    }
}

/// Splits `input` into tokens with their positions.
pub fn tokenize(input: &str) -> Result<Vec<(Tok, Pos)>, SyntaxError> {
    let mut lx = Lexer {
        chars: input.chars().peekable(),
        pos: Pos { line: 1, col: 1 },
    };
    let mut out = Vec::new();
    while let Some(c) = lx.peek() {
        let start = lx.pos;
        match c {
            ' ' | '\t' | '\r' => {
                lx.bump();
            }
            '\\' => {
                // A backslash before a newline continues the line, as in Ruby.
                lx.bump();
                if lx.peek() == Some('\n') {
                    lx.bump();
                } else {
                    return Err(SyntaxError::at(
                        start,
                        "unexpected backslash outside a string",
                    ));
                }
            }
            '#' => {
                while let Some(c) = lx.peek() {
                    if c == '\n' {
                        break;
                    }
                    lx.bump();
                }
            }
            '\n' | ';' => {
                lx.bump();
                out.push((Tok::End, start));
            }
            ',' => {
                lx.bump();
                out.push((Tok::Comma, start));
            }
            '[' | ']' | '{' | '}' | '(' | ')' => {
                lx.bump();
                let t = match c {
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    '{' => Tok::LBrace,
                    '}' => Tok::RBrace,
                    '(' => Tok::LParen,
                    _ => Tok::RParen,
                };
                out.push((t, start));
            }
            '=' => {
                lx.bump();
                if lx.peek() == Some('>') {
                    lx.bump();
                    out.push((Tok::Arrow, start));
                } else {
                    return Err(SyntaxError::at(
                        start,
                        "assignment (`=`) is not supported: the shell runs commands, not Ruby",
                    ));
                }
            }
            '\'' | '"' => out.push((Tok::Str(string(&mut lx, c)?), start)),
            '-' | '0'..='9' => out.push((Tok::Int(integer(&mut lx)?), start)),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut word = String::new();
                while let Some(c) = lx.peek() {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        word.push(c);
                        lx.bump();
                    } else {
                        break;
                    }
                }
                if matches!(lx.peek(), Some('?' | '!')) {
                    return Err(SyntaxError::at(
                        start,
                        format!(
                            "`{word}{}` is a Ruby method call, which the shell does not run",
                            lx.peek().unwrap_or('?')
                        ),
                    ));
                }
                if lx.peek() == Some('.') {
                    return Err(SyntaxError::at(
                        start,
                        format!("method calls (`{word}.`) are not supported"),
                    ));
                }
                let first = word.chars().next().unwrap_or('a');
                out.push((
                    if first.is_ascii_uppercase() {
                        Tok::Const(word)
                    } else {
                        Tok::Ident(word)
                    },
                    start,
                ));
            }
            ':' => {
                return Err(SyntaxError::at(
                    start,
                    "Ruby symbols (`:name`) are not supported; write a string",
                ))
            }
            '\u{2018}' | '\u{2019}' | '\u{2032}' | '\u{201c}' | '\u{201d}' => {
                return Err(SyntaxError::at(
                    start,
                    format!("typographic quote `{c}`: write ' or \""),
                ))
            }
            other => {
                return Err(SyntaxError::at(
                    start,
                    format!("unexpected character `{other}`"),
                ))
            }
        }
    }
    Ok(out)
}

fn integer(lx: &mut Lexer<'_>) -> Result<i64, SyntaxError> {
    let start = lx.pos;
    let mut text = String::new();
    if lx.peek() == Some('-') {
        text.push('-');
        lx.bump();
        if !matches!(lx.peek(), Some('0'..='9')) {
            return Err(SyntaxError::at(start, "`-` must start a number"));
        }
    }
    while let Some(c) = lx.peek() {
        if c.is_ascii_digit() {
            text.push(c);
            lx.bump();
        } else if c == '_' {
            lx.bump();
        } else {
            break;
        }
    }
    if lx.peek() == Some('.') {
        return Err(SyntaxError::at(
            start,
            "floating-point numbers and method calls on numbers are not supported",
        ));
    }
    if matches!(lx.peek(), Some(c) if c.is_ascii_alphabetic()) {
        return Err(SyntaxError::at(
            start,
            format!("malformed number `{text}…`"),
        ));
    }
    text.parse::<i64>()
        .map_err(|_| SyntaxError::at(start, format!("integer `{text}` does not fit in 64 bits")))
}

/// A quoted string. Single quotes take `\\` and `\'` only; double quotes take Ruby's escapes
/// (`\x00`, octal, `\u`, `\n` ...) and refuse `#{}` interpolation.
fn string(lx: &mut Lexer<'_>, quote: char) -> Result<Vec<u8>, SyntaxError> {
    let start = lx.pos;
    lx.bump();
    let mut out = Vec::new();
    let mut buf = [0u8; 4];
    loop {
        let here = lx.pos;
        let Some(c) = lx.bump() else {
            return Err(SyntaxError::incomplete(start, "unterminated string"));
        };
        if c == quote {
            return Ok(out);
        }
        if quote == '"' && c == '#' && lx.peek() == Some('{') {
            return Err(SyntaxError::at(
                here,
                "string interpolation `#{...}` is not supported",
            ));
        }
        if c != '\\' {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let Some(e) = lx.bump() else {
            return Err(SyntaxError::incomplete(start, "unterminated string"));
        };
        if quote == '\'' {
            if e != '\\' && e != '\'' {
                out.push(b'\\');
            }
            out.extend_from_slice(e.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        match e {
            'n' => out.push(b'\n'),
            't' => out.push(b'\t'),
            'r' => out.push(b'\r'),
            's' => out.push(b' '),
            'a' => out.push(7),
            'b' => out.push(8),
            'e' => out.push(0x1b),
            'f' => out.push(0x0c),
            'v' => out.push(0x0b),
            '\n' => {}
            'x' => {
                let mut v: u32 = 0;
                let mut n = 0;
                while n < 2 {
                    match lx.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            lx.bump();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    return Err(SyntaxError::at(here, "`\\x` needs a hexadecimal digit"));
                }
                out.push(v as u8);
            }
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                let mut n = 1;
                while n < 3 {
                    match lx.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            lx.bump();
                            n += 1;
                        }
                        None => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            'u' => {
                let mut v: u32 = 0;
                for _ in 0..4 {
                    match lx.peek().and_then(|c| c.to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            lx.bump();
                        }
                        None => {
                            return Err(SyntaxError::at(
                                here,
                                "`\\u` needs four hexadecimal digits",
                            ))
                        }
                    }
                }
                let ch = char::from_u32(v)
                    .ok_or_else(|| SyntaxError::at(here, "`\\u` names no character"))?;
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            other => out.extend_from_slice(other.encode_utf8(&mut buf).as_bytes()),
        }
    }
}
