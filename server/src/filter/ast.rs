//! The parsed form of a filter string, with the position of every piece, and its canonical
//! printing (which parses back to the same tree).

use std::fmt;

/// A filter expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// `Name(arg, ...)`.
    Call(Call),
    /// `a AND b AND ...` (two or more), HBase's FilterList MUST_PASS_ALL.
    And(Vec<Expr>),
    /// `a OR b OR ...` (two or more), HBase's FilterList MUST_PASS_ONE.
    Or(Vec<Expr>),
    /// `SKIP e`: drop the whole row when `e` excludes any of its cells.
    Skip(Box<Expr>),
    /// `WHILE e`: end the scan at the first row or cell `e` excludes.
    While(Box<Expr>),
}

/// One filter and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub name: String,
    /// Where the name starts.
    pub at: usize,
    pub args: Vec<Arg>,
}

/// One argument, untyped: the filter decides what it must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// Where the argument starts (its opening quote for a quoted one).
    pub at: usize,
    pub value: ArgValue,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgValue {
    /// `'...'`, with `''` already read as one quote. Any bytes.
    Quoted(Vec<u8>),
    /// An unquoted word: an integer, a boolean or a compare operator.
    Bare(String),
}

impl ArgValue {
    /// How the argument looks, for error messages.
    pub fn describe(&self) -> String {
        match self {
            ArgValue::Quoted(b) => format!("the string '{}'", String::from_utf8_lossy(b)),
            ArgValue::Bare(w) => format!("{w:?}"),
        }
    }
}

impl Expr {
    /// The canonical filter string: operators and arguments separated by single spaces, every
    /// nested AND/OR and every AND/OR under SKIP or WHILE in parentheses. Parsing it gives back
    /// this tree (positions aside).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Expr::Call(c) => {
                out.extend_from_slice(c.name.as_bytes());
                out.push(b'(');
                for (i, a) in c.args.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    match &a.value {
                        ArgValue::Quoted(b) => {
                            out.push(b'\'');
                            for &byte in b {
                                if byte == b'\'' {
                                    out.push(b'\'');
                                }
                                out.push(byte);
                            }
                            out.push(b'\'');
                        }
                        ArgValue::Bare(w) => out.extend_from_slice(w.as_bytes()),
                    }
                }
                out.push(b')');
            }
            Expr::And(items) | Expr::Or(items) => {
                let op: &[u8] = if matches!(self, Expr::And(_)) {
                    b" AND "
                } else {
                    b" OR "
                };
                for (i, e) in items.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(op);
                    }
                    e.write_operand(out);
                }
            }
            Expr::Skip(e) | Expr::While(e) => {
                out.extend_from_slice(if matches!(self, Expr::Skip(_)) {
                    b"SKIP "
                } else {
                    b"WHILE "
                });
                e.write_operand(out);
            }
        }
    }

    fn write_operand(&self, out: &mut Vec<u8>) {
        if matches!(self, Expr::And(_) | Expr::Or(_)) {
            out.push(b'(');
            self.write(out);
            out.push(b')');
        } else {
            self.write(out);
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.to_bytes()))
    }
}
