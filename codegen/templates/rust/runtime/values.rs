//! Cell value encodings, identical to Java HBase's `Bytes` (docs/schema.md, "Value
//! encodings"), and the typed column descriptors generated table modules are built from.

use std::marker::PhantomData;

use super::error::{Error, Result};

/// Ties a descriptor to its types without owning values of them (and stays `Send + Sync`).
pub type Marker<T> = PhantomData<fn() -> T>;

/// A Rust type a column holds, with its HBase `Bytes` encoding. i64 serves i64,
/// timestamp-ms and counter columns (all 8-byte big-endian longs).
pub trait CellValue: Sized {
    fn encode_cell(&self) -> Result<Vec<u8>>;
    fn decode_cell(raw: &[u8]) -> Result<Self>;
}

fn width<const N: usize>(raw: &[u8], what: &str) -> Result<[u8; N]> {
    raw.try_into()
        .map_err(|_| Error::value(format!("a {what} value is {N} bytes, got {}", raw.len())))
}

impl CellValue for String {
    fn encode_cell(&self) -> Result<Vec<u8>> {
        Ok(self.as_bytes().to_vec())
    }
    fn decode_cell(raw: &[u8]) -> Result<Self> {
        String::from_utf8(raw.to_vec()).map_err(|_| Error::value("not UTF-8"))
    }
}

impl CellValue for Vec<u8> {
    fn encode_cell(&self) -> Result<Vec<u8>> {
        Ok(self.clone())
    }
    fn decode_cell(raw: &[u8]) -> Result<Self> {
        Ok(raw.to_vec())
    }
}

impl CellValue for i32 {
    fn encode_cell(&self) -> Result<Vec<u8>> {
        Ok(self.to_be_bytes().to_vec())
    }
    fn decode_cell(raw: &[u8]) -> Result<Self> {
        Ok(i32::from_be_bytes(width(raw, "i32")?))
    }
}

impl CellValue for i64 {
    fn encode_cell(&self) -> Result<Vec<u8>> {
        Ok(self.to_be_bytes().to_vec())
    }
    fn decode_cell(raw: &[u8]) -> Result<Self> {
        Ok(i64::from_be_bytes(width(raw, "i64")?))
    }
}

impl CellValue for f32 {
    fn encode_cell(&self) -> Result<Vec<u8>> {
        Ok(self.to_bits().to_be_bytes().to_vec())
    }
    fn decode_cell(raw: &[u8]) -> Result<Self> {
        Ok(f32::from_bits(u32::from_be_bytes(width(raw, "f32")?)))
    }
}

impl CellValue for f64 {
    fn encode_cell(&self) -> Result<Vec<u8>> {
        Ok(self.to_bits().to_be_bytes().to_vec())
    }
    fn decode_cell(raw: &[u8]) -> Result<Self> {
        Ok(f64::from_bits(u64::from_be_bytes(width(raw, "f64")?)))
    }
}

impl CellValue for bool {
    /// 0xFF true, 0x00 false; any non-zero byte reads true.
    fn encode_cell(&self) -> Result<Vec<u8>> {
        Ok(vec![if *self { 0xFF } else { 0 }])
    }
    fn decode_cell(raw: &[u8]) -> Result<Self> {
        Ok(width::<1>(raw, "bool")?[0] != 0)
    }
}

impl CellValue for serde_json::Value {
    /// Compact, object keys sorted (serde_json's map is ordered), non-ASCII unescaped.
    fn encode_cell(&self) -> Result<Vec<u8>> {
        serde_json::to_vec(self).map_err(|e| Error::value(format!("not JSON: {e}")))
    }
    fn decode_cell(raw: &[u8]) -> Result<Self> {
        serde_json::from_slice(raw).map_err(|e| Error::value(format!("not JSON: {e}")))
    }
}

/// One fixed-qualifier column of table `Tbl` holding `T` (the marker keeps a table's
/// `check_and_put` from taking another table's column).
pub struct Column<T, Tbl> {
    pub field: &'static str,
    pub family: &'static [u8],
    pub qualifier: &'static [u8],
    /// The value and table types.
    pub types: Marker<(T, Tbl)>,
}

impl<T, Tbl> Clone for Column<T, Tbl> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, Tbl> Copy for Column<T, Tbl> {}

impl<T, Tbl> std::fmt::Debug for Column<T, Tbl> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Column")
            .field("field", &self.field)
            .finish()
    }
}

impl<T: CellValue, Tbl> Column<T, Tbl> {
    pub const fn new(field: &'static str, family: &'static [u8], qualifier: &'static [u8]) -> Self {
        Column {
            field,
            family,
            qualifier,
            types: PhantomData,
        }
    }
}

/// How a pattern column's part (`{period}` in `fb:{period}`) is written in the qualifier.
pub trait QualifierPart: Sized {
    fn part_text(&self, width: Option<u32>) -> Result<String>;
    fn parse_part(text: &str, width: Option<u32>) -> Option<Self>;
}

impl QualifierPart for String {
    fn part_text(&self, _: Option<u32>) -> Result<String> {
        Ok(self.clone())
    }
    fn parse_part(text: &str, _: Option<u32>) -> Option<Self> {
        Some(text.to_string())
    }
}

fn int_text(part: i64, width: Option<u32>) -> Result<String> {
    match width {
        None => Ok(part.to_string()),
        Some(w) => {
            let t = format!("{part:0w$}", w = w as usize);
            if part < 0 || t.len() > w as usize {
                return Err(Error::value(format!(
                    "{part} does not fit {w} zero-padded digits"
                )));
            }
            Ok(t)
        }
    }
}

fn int_parse(text: &str, width: Option<u32>) -> Option<i64> {
    let digits = match width {
        None => text.strip_prefix('-').unwrap_or(text),
        Some(w) if text.len() == w as usize => text,
        Some(_) => return None,
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl QualifierPart for i64 {
    fn part_text(&self, width: Option<u32>) -> Result<String> {
        int_text(*self, width)
    }
    fn parse_part(text: &str, width: Option<u32>) -> Option<Self> {
        int_parse(text, width)
    }
}

impl QualifierPart for i32 {
    fn part_text(&self, width: Option<u32>) -> Result<String> {
        int_text(i64::from(*self), width)
    }
    fn parse_part(text: &str, width: Option<u32>) -> Option<Self> {
        int_parse(text, width).and_then(|n| i32::try_from(n).ok())
    }
}

/// Cells of table `Tbl` whose qualifier is `prefix{part}suffix`, read as a map from part `P`
/// to value `T`.
pub struct PatternColumn<P, T, Tbl> {
    pub field: &'static str,
    pub family: &'static [u8],
    pub prefix: &'static [u8],
    pub suffix: &'static [u8],
    /// Zero-padding of integer parts.
    pub part_width: Option<u32>,
    /// The part, value and table types.
    pub types: Marker<(P, T, Tbl)>,
}

impl<P, T, Tbl> Clone for PatternColumn<P, T, Tbl> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P, T, Tbl> Copy for PatternColumn<P, T, Tbl> {}

impl<P, T, Tbl> std::fmt::Debug for PatternColumn<P, T, Tbl> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatternColumn")
            .field("field", &self.field)
            .finish()
    }
}

impl<P: QualifierPart, T: CellValue, Tbl> PatternColumn<P, T, Tbl> {
    pub const fn new(
        field: &'static str,
        family: &'static [u8],
        prefix: &'static [u8],
        suffix: &'static [u8],
        part_width: Option<u32>,
    ) -> Self {
        PatternColumn {
            field,
            family,
            prefix,
            suffix,
            part_width,
            types: PhantomData,
        }
    }

    /// The qualifier of the cell for `part`.
    pub fn qualifier(&self, part: &P) -> Result<Vec<u8>> {
        let mut q = self.prefix.to_vec();
        q.extend_from_slice(part.part_text(self.part_width)?.as_bytes());
        q.extend_from_slice(self.suffix);
        Ok(q)
    }

    /// The part of a qualifier of this pattern, or `None` if it is not one.
    pub fn parse(&self, qualifier: &[u8]) -> Option<P> {
        let inner = qualifier
            .strip_prefix(self.prefix)?
            .strip_suffix(self.suffix)?;
        P::parse_part(std::str::from_utf8(inner).ok()?, self.part_width)
    }
}

/// A column's value type as the schema names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    String,
    Bytes,
    I32,
    I64,
    F32,
    F64,
    Bool,
    Json,
    TimestampMs,
    Counter,
}

/// The type of a pattern column's part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartType {
    String,
    I32,
    I64,
}

/// Where a column's cells live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    Fixed {
        qualifier: &'static [u8],
    },
    /// `prefix{part}suffix`; integer parts zero-padded to `width`.
    Pattern {
        prefix: &'static [u8],
        suffix: &'static [u8],
        part: PartType,
        width: Option<u32>,
    },
}

/// One column as the schema declares it: for generic code (tools, dumps) over any table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnInfo {
    pub field: &'static str,
    pub family: &'static [u8],
    pub kind: ColumnKind,
    pub ty: ValueType,
}

/// The typed values of one table's row.
pub trait RowValues: Sized + Default {
    /// The table's columns, sorted by family, then field.
    const COLUMNS: &'static [ColumnInfo];
    /// The (family, qualifier, value) cells to write for the fields that are set.
    fn to_cells(&self) -> Result<Vec<super::client::Cell>>;
    /// Typed values from a row's cells; cells no column describes are ignored.
    fn from_cells(cells: &super::client::Cells) -> Result<Self>;
}

/// A column a read or scan can select: (family, qualifier), `None` for a whole family.
pub trait ColumnRef {
    fn column_ref(&self) -> (Vec<u8>, Option<Vec<u8>>);
}

impl<T, Tbl> ColumnRef for Column<T, Tbl> {
    fn column_ref(&self) -> (Vec<u8>, Option<Vec<u8>>) {
        (self.family.to_vec(), Some(self.qualifier.to_vec()))
    }
}

/// A pattern column's cells have many qualifiers: selecting it selects its family.
impl<P, T, Tbl> ColumnRef for PatternColumn<P, T, Tbl> {
    fn column_ref(&self) -> (Vec<u8>, Option<Vec<u8>>) {
        (self.family.to_vec(), None)
    }
}

/// One counter cell of table `Tbl`: a pattern counter's cell for one part
/// (`SocialUsageColumns::FB_USAGE.counter(&201510)?`); fixed counter columns serve directly.
pub struct Counter<Tbl> {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub types: Marker<Tbl>,
}

impl<Tbl> Clone for Counter<Tbl> {
    fn clone(&self) -> Self {
        Counter {
            family: self.family.clone(),
            qualifier: self.qualifier.clone(),
            types: PhantomData,
        }
    }
}

impl<Tbl> std::fmt::Debug for Counter<Tbl> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Counter")
            .field("family", &self.family)
            .field("qualifier", &self.qualifier)
            .finish()
    }
}

/// A counter cell of table `Tbl` that batched increments and the writer add to.
pub trait CounterRef<Tbl> {
    /// (family, qualifier).
    fn counter_cell(&self) -> (Vec<u8>, Vec<u8>);
}

impl<Tbl> CounterRef<Tbl> for Column<i64, Tbl> {
    fn counter_cell(&self) -> (Vec<u8>, Vec<u8>) {
        (self.family.to_vec(), self.qualifier.to_vec())
    }
}

impl<Tbl> CounterRef<Tbl> for Counter<Tbl> {
    fn counter_cell(&self) -> (Vec<u8>, Vec<u8>) {
        (self.family.clone(), self.qualifier.clone())
    }
}

impl<Tbl> From<Column<i64, Tbl>> for Counter<Tbl> {
    fn from(c: Column<i64, Tbl>) -> Self {
        Counter {
            family: c.family.to_vec(),
            qualifier: c.qualifier.to_vec(),
            types: PhantomData,
        }
    }
}

impl<P: QualifierPart, Tbl> PatternColumn<P, i64, Tbl> {
    /// The counter cell of one part.
    pub fn counter(&self, part: &P) -> Result<Counter<Tbl>> {
        Ok(Counter {
            family: self.family.to_vec(),
            qualifier: self.qualifier(part)?,
            types: PhantomData,
        })
    }
}
