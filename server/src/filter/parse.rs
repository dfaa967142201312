//! The filter language's syntax, as HBase's ParseFilter reads it:
//!
//! ```text
//! filter   := or
//! or       := and ("OR" and)*
//! and      := unary ("AND" unary)*
//! unary    := ("SKIP" | "WHILE") unary | primary
//! primary  := "(" or ")" | Name "(" [arg ("," arg)*] ")"
//! arg      := "'" bytes with '' for a quote "'" | bare word (integer, boolean, operator)
//! ```
//!
//! Operators are upper case and stand apart from their neighbours (space, tab or parenthesis);
//! spaces and tabs separate anything at the top level, only spaces inside an argument list
//! (HBase reads a tab there as part of an argument). This module checks syntax and filter
//! names; whether the arguments suit the filter is [`super::build`]'s business.

use super::ast::{Arg, ArgValue, Call, Expr};
use super::build::{FILTER_NAMES, KNOWN_FILTERS};
use super::error::FilterError;

/// How deep parentheses and SKIP/WHILE may nest: a bound on the parser's recursion.
pub const MAX_DEPTH: usize = 64;

/// Parses a filter string into its syntax tree.
pub fn parse_expr(input: &[u8]) -> Result<Expr, FilterError> {
    let mut p = Parser {
        s: input,
        i: 0,
        depth: 0,
    };
    p.skip_ws();
    if p.i == input.len() {
        return Err(FilterError::Empty);
    }
    let e = p.or_expr()?;
    p.skip_ws();
    if p.i < input.len() {
        if input[p.i] == b')' {
            return Err(FilterError::UnmatchedClose { at: p.i });
        }
        return Err(p.unexpected("AND, OR or the end of the filter string"));
    }
    Ok(e)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

/// Bytes that end a word at the top level.
fn ends_word(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'(' | b')' | b'\'' | b',')
}

/// How the byte at a position looks, for error messages.
fn describe_byte(b: u8) -> String {
    match b {
        b'\t' => "a tab".into(),
        b'\'' => "a quote".into(),
        0x21..=0x7e => format!("'{}'", b as char),
        _ => format!("byte 0x{b:02x}"),
    }
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t') {
            self.i += 1;
        }
    }

    fn skip_spaces(&mut self) {
        while self.i < self.s.len() && self.s[self.i] == b' ' {
            self.i += 1;
        }
    }

    /// The word starting at the current position (empty when none starts here).
    fn word(&self) -> &[u8] {
        let end = self.s[self.i..]
            .iter()
            .position(|&b| ends_word(b))
            .map_or(self.s.len(), |n| self.i + n);
        &self.s[self.i..end]
    }

    fn unexpected(&self, expected: &'static str) -> FilterError {
        if self.i >= self.s.len() {
            return FilterError::UnexpectedEnd {
                at: self.i,
                expected,
            };
        }
        let w = self.word();
        let b = self.s[self.i];
        let found = if w.is_empty() || !(0x21..=0x7e).contains(&b) {
            describe_byte(self.s[self.i])
        } else {
            format!("{:?}", String::from_utf8_lossy(w))
        };
        FilterError::Unexpected {
            at: self.i,
            found,
            expected,
        }
    }

    fn deeper(&mut self) -> Result<(), FilterError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(FilterError::TooDeep {
                at: self.i,
                limit: MAX_DEPTH,
            });
        }
        Ok(())
    }

    /// Reads `op` if it is the next word; the position after it is checked for an operand.
    fn operator(&mut self, op: &'static str) -> Result<bool, FilterError> {
        let save = self.i;
        self.skip_ws();
        if self.i < self.s.len() && self.word() == op.as_bytes() {
            let at = self.i;
            self.i += op.len();
            self.skip_ws();
            if self.i >= self.s.len() || self.s[self.i] == b')' {
                return Err(FilterError::MissingOperand {
                    at,
                    operator: op,
                    side: "after it",
                });
            }
            return Ok(true);
        }
        self.i = save;
        Ok(false)
    }

    fn or_expr(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.and_expr()?];
        while self.operator("OR")? {
            items.push(self.and_expr()?);
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one")
        } else {
            Expr::Or(items)
        })
    }

    fn and_expr(&mut self) -> Result<Expr, FilterError> {
        let mut items = vec![self.unary()?];
        while self.operator("AND")? {
            items.push(self.unary()?);
        }
        Ok(if items.len() == 1 {
            items.pop().expect("one")
        } else {
            Expr::And(items)
        })
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        self.skip_ws();
        for (op, skip) in [("SKIP", true), ("WHILE", false)] {
            if self.i < self.s.len() && self.word() == op.as_bytes() {
                let at = self.i;
                self.i += op.len();
                self.skip_ws();
                if self.i >= self.s.len() || self.s[self.i] == b')' {
                    return Err(FilterError::MissingOperand {
                        at,
                        operator: op,
                        side: "after it",
                    });
                }
                self.deeper()?;
                let inner = Box::new(self.unary()?);
                self.depth -= 1;
                return Ok(if skip {
                    Expr::Skip(inner)
                } else {
                    Expr::While(inner)
                });
            }
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, FilterError> {
        self.skip_ws();
        if self.i >= self.s.len() {
            return Err(self.unexpected("a filter"));
        }
        match self.s[self.i] {
            b'(' => {
                let open = self.i;
                self.deeper()?;
                self.i += 1;
                let e = self.or_expr()?;
                self.skip_ws();
                if self.i >= self.s.len() {
                    return Err(FilterError::UnclosedParen { at: open });
                }
                if self.s[self.i] != b')' {
                    return Err(self.unexpected("AND, OR or ')'"));
                }
                self.i += 1;
                self.depth -= 1;
                Ok(e)
            }
            b')' | b'\'' | b',' => Err(self.unexpected("a filter")),
            _ => {
                let w = self.word();
                for op in ["AND", "OR"] {
                    if w == op.as_bytes() {
                        return Err(FilterError::MissingOperand {
                            at: self.i,
                            operator: op,
                            side: "before it",
                        });
                    }
                }
                self.call()
            }
        }
    }

    fn call(&mut self) -> Result<Expr, FilterError> {
        let at = self.i;
        let name = String::from_utf8_lossy(self.word()).into_owned();
        self.i += self.word().len();
        self.skip_ws();
        if self.i >= self.s.len() || self.s[self.i] != b'(' {
            return Err(self.unexpected("'(' and the filter's arguments"));
        }
        if !FILTER_NAMES.contains(&name.as_str()) {
            return Err(FilterError::UnknownFilter {
                at,
                name,
                known: KNOWN_FILTERS,
            });
        }
        let open = self.i;
        self.i += 1;
        let mut args = Vec::new();
        loop {
            self.skip_spaces();
            if self.i >= self.s.len() {
                return Err(FilterError::UnclosedParen { at: open });
            }
            match self.s[self.i] {
                b')' if args.is_empty() => {
                    self.i += 1;
                    break;
                }
                b')' | b',' | b'\t' | b'(' => {
                    return Err(self.unexpected(if args.is_empty() {
                        "an argument or ')'"
                    } else {
                        "an argument after ','"
                    }));
                }
                _ => args.push(self.arg()?),
            }
            self.skip_spaces();
            if self.i >= self.s.len() {
                return Err(FilterError::UnclosedParen { at: open });
            }
            match self.s[self.i] {
                b',' => self.i += 1,
                b')' => {
                    self.i += 1;
                    break;
                }
                _ => return Err(self.unexpected("',' or ')' after an argument")),
            }
        }
        Ok(Expr::Call(Call { name, at, args }))
    }

    fn arg(&mut self) -> Result<Arg, FilterError> {
        let at = self.i;
        if self.s[self.i] == b'\'' {
            let mut bytes = Vec::new();
            self.i += 1;
            loop {
                if self.i >= self.s.len() {
                    return Err(FilterError::UnclosedQuote { at });
                }
                let b = self.s[self.i];
                if b == b'\'' {
                    if self.s.get(self.i + 1) == Some(&b'\'') {
                        bytes.push(b'\'');
                        self.i += 2;
                        continue;
                    }
                    self.i += 1;
                    break;
                }
                bytes.push(b);
                self.i += 1;
            }
            return Ok(Arg {
                at,
                value: ArgValue::Quoted(bytes),
            });
        }
        let end = self.s[self.i..]
            .iter()
            .position(|&b| matches!(b, b' ' | b',' | b')' | b'\t' | b'\'' | b'('))
            .map_or(self.s.len(), |n| self.i + n);
        let word = String::from_utf8_lossy(&self.s[self.i..end]).into_owned();
        self.i = end;
        Ok(Arg {
            at,
            value: ArgValue::Bare(word),
        })
    }
}
