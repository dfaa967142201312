//! Compare operators and comparators (HBase's CompareOperator and ByteArrayComparable).
//!
//! A comparator compares its own value with a cell's bytes, and the operator reads the result
//! the way round people write it: `RowFilter(<, 'binary:m')` keeps rows less than `m`.
//!
//! The filter language builds the first four comparators; serialized filters (Thrift2
//! `filterBytes`, [`super::proto`]) can also send Null, Bit, Long, BigDecimal and
//! BinaryComponent comparators, regexes with Java's flags and charsets, and the NO_OP operator.

use std::cmp::Ordering;

use num_bigint::{BigInt, BigUint, Sign};
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
    /// HBase's NO_OP (serialized filters only): the compare filters drop everything they test
    /// with it, without asking the comparator.
    NoOp,
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
            CompareOp::NoOp => "NO_OP",
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
            CompareOp::NoOp => false,
        }
    }
}

/// `binary:`, `binaryprefix:`, `regexstring:`, `regexstringnocase:` or `substring:`, and the
/// comparators only serialized filters carry.
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
    /// A regex over the cell read in a charset other than UTF-8 (RegexStringComparator's
    /// `charset`).
    RegexIn(Box<Regex>, Charset),
    /// HBase's NullComparator: a cell's bytes are never null, so every cell compares as less
    /// (even an empty one): `=` never passes, `!=` always does.
    Null,
    /// HBase's BitComparator: "equal" when the cell has the value's length and `op` of the two
    /// has a bit set, otherwise less.
    Bit(Vec<u8>, BitOp),
    /// HBase's LongComparator: the cell's first 8 bytes as a big-endian signed integer against
    /// this one. A cell shorter than 8 bytes passes no operator: HBase reads 8 bytes from the
    /// value's start whatever its length, so for a shorter one it reads past the value (or
    /// fails the read, depending on how the cell is stored).
    Long(i64),
    /// HBase's BigDecimalComparator: the cell read as a [`Decimal`], compared by numeric value
    /// (1.0 equals 1.00). A cell of fewer than 5 bytes is no decimal: HBase's scan fails on it
    /// (a NullPointerException, after the client's retries); here it passes no operator.
    BigDecimal(Decimal),
    /// HBase's BinaryComponentComparator: the cell's bytes from `offset` on, as many as the
    /// value has, compared byte-wise with the value (an empty value is equal to any cell). A
    /// cell that ends before a differing byte is found (or a negative offset, a `uint32` on the
    /// wire read as Java's `int`) passes no operator: HBase reads past the cell there and fails
    /// the scan (ArrayIndexOutOfBoundsException) or compares whatever bytes follow it.
    Component(Vec<u8>, i32),
}

/// A `java.math.BigDecimal` as HBase's `Bytes.toBytes(BigDecimal)` writes it: the scale as a
/// 4-byte big-endian signed integer, then the unscaled value's two's-complement bytes
/// (`BigInteger.toByteArray`, at least one). The value is `unscaled * 10^-scale`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    unscaled: BigInt,
    scale: i32,
}

impl Decimal {
    /// Reads HBase's encoding; `None` for fewer than 5 bytes (HBase's `Bytes.toBigDecimal`
    /// answers null for them). Any 5 bytes or more are some decimal.
    pub fn from_hbase_bytes(b: &[u8]) -> Option<Decimal> {
        let (scale, unscaled) = b.split_first_chunk::<4>()?;
        if unscaled.is_empty() {
            return None;
        }
        Some(Decimal {
            unscaled: BigInt::from_signed_bytes_be(unscaled),
            scale: i32::from_be_bytes(*scale),
        })
    }

    /// HBase's encoding of this decimal.
    pub fn to_hbase_bytes(&self) -> Vec<u8> {
        let mut out = self.scale.to_be_bytes().to_vec();
        out.extend(self.unscaled.to_signed_bytes_be());
        out
    }
}

impl Ord for Decimal {
    /// By numeric value, as `BigDecimal.compareTo` (not `equals`) orders: 1.0 == 1.00.
    fn cmp(&self, other: &Decimal) -> Ordering {
        let rank = |s: Sign| match s {
            Sign::Minus => -1,
            Sign::NoSign => 0,
            Sign::Plus => 1,
        };
        let (a, b) = (self.unscaled.sign(), other.unscaled.sign());
        if a != b || a == Sign::NoSign {
            return rank(a).cmp(&rank(b));
        }
        let by_magnitude = compare_scaled(
            self.unscaled.magnitude(),
            self.scale,
            other.unscaled.magnitude(),
            other.scale,
        );
        if a == Sign::Minus {
            by_magnitude.reverse()
        } else {
            by_magnitude
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `a * 10^-sa` against `b * 10^-sb`, both magnitudes non-zero. Scales span the whole `i32`
/// range, so the decimal exponents are bounded from the bit lengths first and the scales are
/// only aligned exactly (a power of ten as long as the values' own digits) when those bounds
/// overlap: a 5-byte cell with scale -2^31 costs nothing.
fn compare_scaled(a: &BigUint, sa: i32, b: &BigUint, sb: i32) -> Ordering {
    // a * 10^-sa <=> b * 10^-sb  is  a * 10^d <=> b  with d = sb - sa.
    let d = i64::from(sb) - i64::from(sa);
    // floor(log10 x) lies in [lo(x), hi(x)] (a bit of slack for float rounding).
    let lo = |x: &BigUint| ((x.bits() - 1) as f64 * std::f64::consts::LOG10_2).floor() as i64 - 1;
    let hi = |x: &BigUint| (x.bits() as f64 * std::f64::consts::LOG10_2).floor() as i64 + 1;
    if lo(a) + d > hi(b) {
        return Ordering::Greater;
    }
    if hi(a) + d < lo(b) {
        return Ordering::Less;
    }
    // Here |d| is at most about the number of digits of a or b.
    let ten = |n: i64| BigUint::from(10u32).pow(u32::try_from(n).expect("bounded above"));
    if d >= 0 {
        (a * ten(d)).cmp(b)
    } else {
        a.cmp(&(b * ten(-d)))
    }
}

/// BitComparator's operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
}

/// How a regex comparator reads a cell's bytes as text (Java's `Charset` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    Utf8,
    /// ISO-8859-1: every byte is one character, so any bytes match byte-wise patterns.
    Latin1,
    /// US-ASCII: bytes above 0x7F become U+FFFD, as Java decodes them.
    Ascii,
}

impl Charset {
    /// The charset a Java name (or alias, any case) denotes, if supported.
    pub fn from_java_name(name: &str) -> Option<Charset> {
        let n = name.to_ascii_lowercase().replace('_', "-");
        Some(match n.as_str() {
            "utf-8" | "utf8" | "unicode-1-1-utf-8" => Charset::Utf8,
            "iso-8859-1" | "iso8859-1" | "latin1" | "l1" | "iso-latin-1" | "iso-ir-100"
            | "cp819" | "ibm819" | "ibm-819" | "csisolatin1" | "819" | "iso8859-1:1987" => {
                Charset::Latin1
            }
            "us-ascii" | "ascii" | "us" | "iso646-us" | "iso-646.irv:1991" | "default"
            | "cp367" | "ibm367" | "646" | "csascii" => Charset::Ascii,
            _ => return None,
        })
    }

    fn decode(self, cell: &[u8]) -> std::borrow::Cow<'_, str> {
        match self {
            Charset::Utf8 => String::from_utf8_lossy(cell),
            Charset::Latin1 => cell.iter().map(|&b| b as char).collect::<String>().into(),
            Charset::Ascii => cell
                .iter()
                .map(|&b| if b < 0x80 { b as char } else { '\u{FFFD}' })
                .collect::<String>()
                .into(),
        }
    }
}

impl Comparator {
    /// The comparator's type name as the filter language writes it.
    pub fn kind(&self) -> &'static str {
        match self {
            Comparator::Binary(_) => "binary",
            Comparator::BinaryPrefix(_) => "binaryprefix",
            Comparator::Regex(_) => "regexstring",
            Comparator::Substring(_) => "substring",
            Comparator::RegexIn(..) => "regexstring",
            Comparator::Null => "null",
            Comparator::Bit(..) => "bit",
            Comparator::Long(_) => "long",
            Comparator::BigDecimal(_) => "bigdecimal",
            Comparator::Component(..) => "binarycomponent",
        }
    }

    /// Regex and substring comparators only say "matches" or "does not".
    pub fn equality_only(&self) -> bool {
        matches!(
            self,
            Comparator::Regex(_) | Comparator::Substring(_) | Comparator::RegexIn(..)
        )
    }

    /// How the cell's bytes compare with the comparator: `Equal` for a match of a regex or
    /// substring comparator, `Less` for a miss (HBase's compareTo answers 1, "the comparator is
    /// greater", so `RowFilter(<, regex)`, which serialized filters may send, keeps misses).
    /// `None` for a cell the comparator cannot read (HBase fails or reads past the cell): it
    /// passes no operator.
    pub fn compare(&self, cell: &[u8]) -> Option<Ordering> {
        Some(match self {
            Comparator::Binary(v) => cell.cmp(v),
            Comparator::BinaryPrefix(v) => cell[..cell.len().min(v.len())].cmp(v),
            Comparator::Regex(r) => match_order(r.is_match(&String::from_utf8_lossy(cell))),
            Comparator::Substring(s) => {
                match_order(String::from_utf8_lossy(cell).to_lowercase().contains(s))
            }
            Comparator::RegexIn(r, charset) => match_order(r.is_match(&charset.decode(cell))),
            Comparator::Null => Ordering::Less,
            Comparator::Bit(v, op) => {
                let set = cell.len() == v.len()
                    && v.iter().zip(cell).any(|(&a, &b)| match op {
                        BitOp::And => a & b,
                        BitOp::Or => a | b,
                        BitOp::Xor => a ^ b,
                    } != 0);
                match_order(set)
            }
            Comparator::Long(v) => {
                i64::from_be_bytes(cell.get(..8)?.try_into().expect("8 bytes")).cmp(v)
            }
            Comparator::BigDecimal(v) => Decimal::from_hbase_bytes(cell)?.cmp(v),
            Comparator::Component(v, offset) => return component_order(cell, v, *offset),
        })
    }

    /// Whether a cell with these bytes passes `op`.
    pub fn passes(&self, op: CompareOp, cell: &[u8]) -> bool {
        self.compare(cell).is_some_and(|o| op.passes(o))
    }
}

/// BinaryComponentComparator: the first byte of `cell[offset..]` that differs from `value`
/// decides; `None` when the cell ends (or `offset` is negative) before one is found.
fn component_order(cell: &[u8], value: &[u8], offset: i32) -> Option<Ordering> {
    for (i, v) in value.iter().enumerate() {
        let at = usize::try_from(i64::from(offset) + i as i64).ok()?;
        let c = cell.get(at)?;
        if c != v {
            return Some(c.cmp(v));
        }
    }
    Some(Ordering::Equal)
}

/// A match is "equal"; a miss is "less", as HBase's comparators answer 1 for it.
fn match_order(matched: bool) -> Ordering {
    if matched {
        Ordering::Equal
    } else {
        Ordering::Less
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
    compile(
        &pattern,
        RegexBuilder::new(&pattern)
            .dot_matches_new_line(true)
            .case_insensitive(nocase),
    )
}

/// Builds a regex within the size limits, with the crate's error cut down to what went wrong.
fn compile(pattern: &str, builder: &mut RegexBuilder) -> Result<Regex, ComparatorError> {
    builder
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

/// java.util.regex.Pattern's flag bits, as RegexStringComparator serializes them.
pub mod java_flags {
    pub const UNIX_LINES: i32 = 0x01;
    pub const CASE_INSENSITIVE: i32 = 0x02;
    pub const COMMENTS: i32 = 0x04;
    pub const MULTILINE: i32 = 0x08;
    pub const LITERAL: i32 = 0x10;
    pub const DOTALL: i32 = 0x20;
    pub const UNICODE_CASE: i32 = 0x40;
    pub const CANON_EQ: i32 = 0x80;
    pub const UNICODE_CHARACTER_CLASS: i32 = 0x100;
}

/// Compiles a pattern with Java's Pattern flags, as a serialized RegexStringComparator sends
/// it. CASE_INSENSITIVE, MULTILINE, DOTALL, COMMENTS and LITERAL map onto the `regex` crate's
/// options; UNIX_LINES, UNICODE_CASE and UNICODE_CHARACTER_CLASS describe what the crate does
/// anyway (`.` stops only at `\n`; case folding and classes are Unicode-aware) and are
/// accepted; CANON_EQ and unknown bits are refused rather than silently ignored.
pub fn java_regex(pattern: &str, flags: i32) -> Result<Regex, ComparatorError> {
    use java_flags::*;
    let known = UNIX_LINES
        | CASE_INSENSITIVE
        | COMMENTS
        | MULTILINE
        | LITERAL
        | DOTALL
        | UNICODE_CASE
        | UNICODE_CHARACTER_CLASS;
    if flags & CANON_EQ != 0 {
        return Err(ComparatorError::Regex(
            "the Pattern flag CANON_EQ (128) is not supported".into(),
        ));
    }
    if flags & !known != 0 {
        return Err(ComparatorError::Regex(format!(
            "unknown Pattern flag bits {:#x} (supported: UNIX_LINES=1, CASE_INSENSITIVE=2, \
             COMMENTS=4, MULTILINE=8, LITERAL=16, DOTALL=32, UNICODE_CASE=64, \
             UNICODE_CHARACTER_CLASS=256)",
            flags & !known
        )));
    }
    let translated = if flags & LITERAL != 0 {
        regex::escape(pattern)
    } else {
        refuse_possessive(pattern).map_err(ComparatorError::Regex)?;
        translate_java(pattern)
    };
    compile(
        &translated,
        RegexBuilder::new(&translated)
            .dot_matches_new_line(flags & DOTALL != 0)
            .case_insensitive(flags & CASE_INSENSITIVE != 0)
            .multi_line(flags & MULTILINE != 0)
            .ignore_whitespace(flags & COMMENTS != 0 && flags & LITERAL == 0),
    )
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
pub(crate) fn translate_java(p: &str) -> String {
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

    /// The decimal of `unscaled * 10^-scale` in HBase's encoding.
    fn dec(unscaled: i64, scale: i32) -> Decimal {
        let mut b = scale.to_be_bytes().to_vec();
        b.extend(BigInt::from(unscaled).to_signed_bytes_be());
        Decimal::from_hbase_bytes(&b).unwrap()
    }

    /// The plain way: both scaled to the larger scale, then compared as integers.
    fn naive(a: (i64, i32), b: (i64, i32)) -> Ordering {
        let top = a.1.max(b.1);
        let up = |(v, s): (i64, i32)| BigInt::from(v) * BigInt::from(10u32).pow((top - s) as u32);
        up(a).cmp(&up(b))
    }

    #[test]
    fn decimals_order_as_their_exact_values() {
        use proptest::prelude::*;
        let value = (any::<i64>(), -40i32..40);
        let small = (-1000i64..1000, -4i32..4);
        proptest::proptest!(|(a in value.clone(), b in value, c in small.clone(), d in small)| {
            for (x, y) in [(a, b), (c, d), (a, c)] {
                prop_assert_eq!(dec(x.0, x.1).cmp(&dec(y.0, y.1)), naive(x, y), "{:?} {:?}", x, y);
            }
        });
        assert_eq!(dec(10, 1).cmp(&dec(100, 2)), Ordering::Equal);
        assert_eq!(dec(0, -5).cmp(&dec(0, 9)), Ordering::Equal);
        assert_eq!(dec(-1, i32::MIN).cmp(&dec(1, i32::MAX)), Ordering::Less);
        assert_eq!(dec(7, 3).to_hbase_bytes(), [0, 0, 0, 3, 7]);
        assert!(Decimal::from_hbase_bytes(&[0, 0, 0, 3]).is_none());
    }

    #[test]
    fn components_compare_until_the_first_difference() {
        assert_eq!(component_order(b"abz", b"bz", 1), Some(Ordering::Equal));
        assert_eq!(component_order(b"aby", b"bz", 1), Some(Ordering::Less));
        assert_eq!(component_order(b"ac", b"bz", 1), Some(Ordering::Greater));
        assert_eq!(component_order(b"ab", b"bz", 1), None);
        assert_eq!(component_order(b"ab", b"b", -1), None);
        assert_eq!(component_order(b"ab", b"", 10), Some(Ordering::Equal));
    }

    #[test]
    fn quoting_is_translated() {
        assert_eq!(translate_java(r"a\Q.*\Eb"), r"a\.\*b");
        assert_eq!(translate_java(r"\\Qx"), r"\\Qx");
        assert_eq!(translate_java(r"\Q("), r"\(");
    }
}
