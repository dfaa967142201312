//! What every generated table has in common, as traits and generic types: code written once
//! for all tables (tools, migrations, the cross-language test) uses these.

use super::batch::BatchOptions;
use super::client::{latest, CellVersion, Cells, Connection, ReadOptions};
use super::error::Result;
use super::keys::{KeyParts, RowKey};
use super::scan::{KeyRange, ScanOptions};
use super::values::{CellValue, Column, CounterRef, RowValues};

/// One row read back: its key bytes, the decoded key, the typed values (newest version of
/// each column) and every cell version returned.
#[derive(Debug, Clone, PartialEq)]
pub struct Row<P, V> {
    pub row_key: Vec<u8>,
    pub key: P,
    pub values: V,
    /// Every cell returned, newest first per column (more than one per column when read with
    /// `versions`).
    pub cells: Vec<CellVersion>,
}

impl<P: KeyParts, V: RowValues> Row<P, V> {
    /// A row from the newest cells only (no timestamps known).
    pub fn from_cells(row_key: Vec<u8>, cells: &Cells) -> Result<Self> {
        Ok(Row {
            key: P::decode_row(&row_key)?,
            values: V::from_cells(cells)?,
            cells: Vec::new(),
            row_key,
        })
    }

    /// A row from every cell version the server returned.
    pub fn from_versions(row_key: Vec<u8>, cells: Vec<CellVersion>) -> Result<Self> {
        Ok(Row {
            key: P::decode_row(&row_key)?,
            values: V::from_cells(&latest(&cells))?,
            cells,
            row_key,
        })
    }

    /// A scanned row; with `key_only` (a key-only filter: every value empty) the values stay
    /// unset and the cells tell which columns the row has.
    pub(crate) fn from_scanned(
        scanned: Result<(Vec<u8>, Vec<CellVersion>)>,
        key_only: bool,
    ) -> Result<Self> {
        let (row_key, cells) = scanned?;
        if key_only {
            return Ok(Row {
                key: P::decode_row(&row_key)?,
                values: V::default(),
                cells,
                row_key,
            });
        }
        Row::from_versions(row_key, cells)
    }

    /// The versions of one column, newest first: (timestamp ms, value).
    pub fn versions<T: CellValue, Tbl>(&self, column: Column<T, Tbl>) -> Result<Vec<(i64, T)>> {
        let mut out: Vec<(i64, T)> = self
            .cells
            .iter()
            .filter(|c| c.family == column.family && c.qualifier == column.qualifier)
            .map(|c| Ok((c.timestamp, T::decode_cell(&c.value)?)))
            .collect::<Result<_>>()?;
        out.sort_by_key(|c| std::cmp::Reverse(c.0));
        Ok(out)
    }

    /// The timestamp of a column's newest cell, if the row has one.
    pub fn timestamp<T, Tbl>(&self, column: Column<T, Tbl>) -> Option<i64> {
        self.cells
            .iter()
            .filter(|c| c.family == column.family && c.qualifier == column.qualifier)
            .map(|c| c.timestamp)
            .max()
    }
}

/// A generated table client over a borrowed connection.
#[allow(clippy::type_complexity)]
pub trait TypedTable<'c>: Sized {
    type Key: RowKey;
    type Values: RowValues;
    /// The table's column descriptors (the marker of its `Column`s).
    type Columns;

    fn new(conn: &'c mut Connection) -> Self;
    /// Creates the table with its families (and their settings) and split keys.
    fn create(&mut self) -> Result<()>;
    fn exists(&mut self) -> Result<bool>;
    /// At start-up: creates the table if missing, adds missing families and sets differing
    /// family settings as the schema says (the rules of `redbase schema diff`); returns what it
    /// changed. A live family the schema lacks, or other split points, are
    /// `Error::SchemaDrift` (it never deletes data or re-splits).
    fn ensure(&mut self) -> Result<Vec<String>>;
    /// Disables and deletes the table.
    fn drop_table(&mut self) -> Result<()>;
    fn get(
        &mut self,
        key: &Self::Key,
    ) -> Result<Option<Row<<Self::Key as RowKey>::Parts, Self::Values>>>;
    /// The row read with versions, a time range or timestamp, or columns.
    fn get_with(
        &mut self,
        key: &Self::Key,
        options: &ReadOptions,
    ) -> Result<Option<Row<<Self::Key as RowKey>::Parts, Self::Values>>>;
    fn put(&mut self, key: &Self::Key, values: &Self::Values) -> Result<()>;
    /// `put` with the cell timestamp `ts` (ms).
    fn put_at(&mut self, key: &Self::Key, values: &Self::Values, ts: i64) -> Result<()>;
    /// Rows in batched calls (see the table's own `put_many_with`).
    fn put_many_with(
        &mut self,
        rows: &[(Self::Key, Self::Values)],
        options: &BatchOptions,
    ) -> Result<()>;
    /// Whole rows deleted in batched calls.
    fn delete_many_with(&mut self, keys: &[Self::Key], options: &BatchOptions) -> Result<()>;
    /// Counters of many rows, one call per row.
    fn increment_many<C: CounterRef<Self::Columns>>(
        &mut self,
        rows: &[(Self::Key, Vec<(C, i64)>)],
    ) -> Result<Vec<Vec<i64>>>;
    fn delete(&mut self, key: &Self::Key) -> Result<()>;
    /// Rows in `keys` in key order (see the table's own `scan`).
    fn scan(
        &mut self,
        keys: &KeyRange,
        options: ScanOptions,
    ) -> impl Iterator<Item = Result<Row<<Self::Key as RowKey>::Parts, Self::Values>>> + '_;
}
