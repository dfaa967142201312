//! What every generated table has in common, as traits and generic types: code written once
//! for all tables (tools, migrations, the cross-language test) uses these.

use super::client::{Cells, Connection};
use super::error::Result;
use super::keys::{KeyParts, RowKey};
use super::scan::{KeyRange, ScanOptions};
use super::values::RowValues;

/// One row read back: its key bytes, the decoded key and the typed values.
#[derive(Debug, Clone, PartialEq)]
pub struct Row<P, V> {
    pub row_key: Vec<u8>,
    pub key: P,
    pub values: V,
}

impl<P: KeyParts, V: RowValues> Row<P, V> {
    pub fn from_cells(row_key: Vec<u8>, cells: &Cells) -> Result<Self> {
        Ok(Row {
            key: P::decode_row(&row_key)?,
            values: V::from_cells(cells)?,
            row_key,
        })
    }

    pub(crate) fn from_scanned(scanned: Result<(Vec<u8>, Cells)>) -> Result<Self> {
        let (row_key, cells) = scanned?;
        Row::from_cells(row_key, &cells)
    }
}

/// A generated table client over a borrowed connection.
#[allow(clippy::type_complexity)]
pub trait TypedTable<'c>: Sized {
    type Key: RowKey;
    type Values: RowValues;

    fn new(conn: &'c mut Connection) -> Self;
    /// Creates the table with its families (and their settings) and split keys.
    fn create(&mut self) -> Result<()>;
    fn exists(&mut self) -> Result<bool>;
    /// Disables and deletes the table.
    fn drop_table(&mut self) -> Result<()>;
    fn get(
        &mut self,
        key: &Self::Key,
    ) -> Result<Option<Row<<Self::Key as RowKey>::Parts, Self::Values>>>;
    fn put(&mut self, key: &Self::Key, values: &Self::Values) -> Result<()>;
    fn delete(&mut self, key: &Self::Key) -> Result<()>;
    /// Rows in `keys` in key order (see the table's own `scan`).
    fn scan(
        &mut self,
        keys: &KeyRange,
        options: ScanOptions,
    ) -> impl Iterator<Item = Result<Row<<Self::Key as RowKey>::Parts, Self::Values>>> + '_;
}
