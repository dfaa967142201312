//! Compare operators and comparators (HBase's CompareOperator and ByteArrayComparable).
//!
//! A comparator compares its own value with a cell's bytes, and the operator reads the result
//! the way round people write it: `RowFilter(<, 'binary:m')` keeps rows less than `m`.

use std::cmp::Ordering;

use regex::{Regex, RegexBuilder};

/// The compiled size a regular expression may reach; bigger ones are refused when parsed.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Less,
    LessOrEqual,
    Equal,
    NotEqual,
    GreaterOrEqual,
    Greater,
}

impl CompareOp {
    pub fn parse(word: &str) -> Option<CompareOp> {
        Some(match word {
            "<" => CompareOp::Less,
            "<=" => CompareOp::LessOrEqual,
            "=" => CompareOp::Equal,
            "!=" => CompareOp::NotEqual,
            ">=" => CompareOp::GreaterOrEqual,
            ">" => CompareOp::Greater,
            _ => return None,
        })
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Less => "<",
            CompareOp::LessOrEqual => "<=",
            CompareOp::Equal => "=",
            CompareOp::NotEqual => "!=",
            CompareOp::GreaterOrEqual => ">=",
            CompareOp::Greater => ">",
        }
    }

    /// Whether a cell whose bytes compare as `cell` against the comparator's value passes.
    pub fn passes(self, cell: Ordering) -> bool {
        match self {
            CompareOp::Less => cell.is_lt(),
            CompareOp::LessOrEqual => cell.is_le(),
            CompareOp::Equal => cell.is_eq(),
            CompareOp::NotEqual => cell.is_ne(),
            CompareOp::GreaterOrEqual => cell.is_ge(),
            CompareOp::Greater => cell.is_gt(),
        }
    }
}

/// `binary:`, `binaryprefix:`, `regexstring:`, `regexstringnocase:` or `substring:`.
#[derive(Debug, Clone)]
pub enum Comparator {
    /// Byte-wise comparison with the whole cell.
    Binary(Vec<u8>),
    /// Byte-wise comparison with the cell's first `value.len()` bytes.
    BinaryPrefix(Vec<u8>),
    /// Matches (anywhere, Java's `find`) or not; the cell is read as UTF-8.
    Regex(Box<Regex>),
    /// Contains the (lower-cased) text or not, case-insensitively, as HBase's
    /// SubstringComparator does.
    Substring(String),
}

impl Comparator {
    /// The comparator's type name as the filter language writes it.
    pub fn kind(&self) -> &'static str {
        match self {
            Comparator::Binary(_) => "binary",
            Comparator::BinaryPrefix(_) => "binaryprefix",
            Comparator::Regex(_) => "regexstring",
            Comparator::Substring(_) => "substring",
        }
    }

    /// Regex and substring comparators only say "matches" or "does not".
    pub fn equality_only(&self) -> bool {
        matches!(self, Comparator::Regex(_) | Comparator::Substring(_))
    }

    /// How the cell's bytes compare with the comparator: `Equal` for a match of a regex or
    /// substring comparator, `Greater` for a miss (so only = and != are meaningful).
    pub fn compare(&self, cell: &[u8]) -> Ordering {
        match self {
            Comparator::Binary(v) => cell.cmp(v),
            Comparator::BinaryPrefix(v) => cell[..cell.len().min(v.len())].cmp(v),
            Comparator::Regex(r) => match_order(r.is_match(&String::from_utf8_lossy(cell))),
            Comparator::Substring(s) => {
                match_order(String::from_utf8_lossy(cell).to_lowercase().contains(s))
            }
        }
    }

    /// Whether a cell with these bytes passes `op`.
    pub fn passes(&self, op: CompareOp, cell: &[u8]) -> bool {
        op.passes(self.compare(cell))
    }
}

fn match_order(matched: bool) -> Ordering {
    if matched {
        Ordering::Equal
    } else {
        Ordering::Greater
    }
}

/// Parses the text after `type:`. Errors are plain messages; the caller adds the position.
pub fn comparator(spec: &[u8]) -> Result<Comparator, ComparatorError> {
    let Some(colon) = spec.iter().position(|&b| b == b':') else {
        return Err(ComparatorError::Syntax(
            "a comparator is written 'type:value' (binary, binaryprefix, regexstring, \
             regexstringnocase or substring), and this one has no ':'"
                .into(),
        ));
    };
    let (kind, value) = (&spec[..colon], &spec[colon + 1..]);
    Ok(match kind {
        b"binary" => Comparator::Binary(value.to_vec()),
        b"binaryprefix" => Comparator::BinaryPrefix(value.to_vec()),
        b"regexstring" => Comparator::Regex(Box::new(regex(value, false)?)),
        b"regexstringnocase" => Comparator::Regex(Box::new(regex(value, true)?)),
        b"substring" => Comparator::Substring(String::from_utf8_lossy(value).to_lowercase()),
        other => {
            return Err(ComparatorError::Syntax(format!(
                "unknown comparator type {:?} (known: binary, binaryprefix, regexstring, \
                 regexstringnocase, substring; lower case)",
                String::from_utf8_lossy(other)
            )))
        }
    })
}

#[derive(Debug)]
pub enum ComparatorError {
    Syntax(String),
    Regex(String),
}

/// Compiles a Java-style regular expression: DOTALL always (as HBase's RegexStringComparator
/// sets it), case-insensitive for `regexstringnocase`. `\Q...\E` quoting is translated; the
/// `regex` crate's guarantees (no backtracking, linear-time matching) keep any pattern from
/// hanging a scan, and the size limit refuses patterns that would compile to huge programs.
fn regex(value: &[u8], nocase: bool) -> Result<Regex, ComparatorError> {
    let text = String::from_utf8_lossy(value);
    refuse_possessive(&text).map_err(ComparatorError::Regex)?;
    let pattern = translate_java(&text);
    RegexBuilder::new(&pattern)
        .dot_matches_new_line(true)
        .case_insensitive(nocase)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .nest_limit(64)
        .build()
        .map_err(|e| {
            let msg = match e {
                regex::Error::CompiledTooBig(n) => format!(
                    "{pattern:?} compiles to more than {n} bytes; simplify it (counted \
                     repetitions like {{1000}} multiply its size)"
                ),
                other => {
                    // The crate's message is several lines: a heading, the pattern with a
                    // caret under the problem, and "error: <what>". Keep the what.
                    let text = other.to_string();
                    let what = text
                        .lines()
                        .find_map(|l| l.trim().strip_prefix("error: "))
                        .map(str::to_string)
                        .unwrap_or_else(|| text.lines().collect::<Vec<_>>().join(" "));
                    format!("{pattern:?}: {what}")
                }
            };
            ComparatorError::Regex(msg)
        })
}

/// Java's possessive quantifiers (`a*+`, `a++`, `a?+`, `a{2}+`) have no equivalent here, and
/// the `regex` crate would read them as a repeated repetition that matches more: refused.
fn refuse_possessive(p: &str) -> Result<(), String> {
    let b = p.as_bytes();
    let (mut i, mut class, mut brace) = (0, 0usize, false);
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 1;
                // \p{..}, \x{..}: the braces belong to the escape.
                if b.get(i).is_some_and(u8::is_ascii_alphabetic) && b.get(i + 1) == Some(&b'{') {
                    while i < b.len() && b[i] != b'}' {
                        i += 1;
                    }
                }
            }
            b'[' => class += 1,
            b']' if class > 0 => class -= 1,
            b'{' if class == 0 => brace = true,
            c @ (b'*' | b'+' | b'?' | b'}') if class == 0 => {
                let quantifier = c != b'}' || std::mem::take(&mut brace);
                if quantifier && b.get(i + 1) == Some(&b'+') {
                    return Err(format!(
                        "{p:?}: possessive quantifiers (like a*+) are not supported"
                    ));
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// Java's `\Q...\E` (quote everything between) becomes escaped text; the rest passes through.
fn translate_java(p: &str) -> String {
    if !p.contains("\\Q") {
        return p.to_string();
    }
    let mut out = String::with_capacity(p.len() * 2);
    let mut rest = p;
    while let Some(start) = find_unescaped(rest, "\\Q") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let (quoted, next) = match after.find("\\E") {
            Some(end) => (&after[..end], &after[end + 2..]),
            None => (after, ""),
        };
        out.push_str(&regex::escape(quoted));
        rest = next;
    }
    out.push_str(rest);
    out
}

/// The position of `needle` (a backslash escape) in `s` where the backslash is not itself
/// escaped.
fn find_unescaped(s: &str, needle: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            if s[i..].starts_with(needle) {
                return Some(i);
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn possessive_quantifiers_are_refused() {
        for p in ["a*+", "a++", "a?+", "a{2}+", "(ab)*+c"] {
            assert!(refuse_possessive(p).is_err(), "{p}");
        }
        for p in [
            "a*", "a+?", "a+", r"\*+", "[*+]", "}+", "a{2}", "[a{]+", r"\p{L}+",
        ] {
            assert!(refuse_possessive(p).is_ok(), "{p}");
        }
    }

    #[test]
    fn quoting_is_translated() {
        assert_eq!(translate_java(r"a\Q.*\Eb"), r"a\.\*b");
        assert_eq!(translate_java(r"\\Qx"), r"\\Qx");
        assert_eq!(translate_java(r"\Q("), r"\(");
    }
}
