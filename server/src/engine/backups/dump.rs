//! The dump format of a backup: every table of one redb file (the catalog or a region file)
//! as a byte stream, written from a read transaction and loaded back into a new redb file.
//!
//! A dump rather than a copy of the redb file: a redb file cannot be copied byte for byte
//! while writers commit to it, and a dump can be written straight into an HTTP response while
//! the server walks the snapshot (no temporary files on the server, memory bounded by one
//! entry). It is also smaller: no free pages, no B-tree slack.
//!
//! ```text
//! magic   "RBDUMP1\n"
//! then records, each starting with a tag byte:
//!   1  table:  u32 LE name length, name (UTF-8); the entries that follow belong to it
//!   2  entry:  u32 LE key length, key bytes, u32 LE value length, value bytes
//!   0  end:    u64 LE number of entries in the dump; nothing follows
//! ```
//!
//! Tables are written in redb's name order, entries in key order. A table named `cf:...`
//! holds cells ([`CellKey`] keys); every other table has `&str` keys. Values are `&[u8]`.

use std::io::{self, BufRead, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use redb::{Database, ReadTransaction, ReadableTable, TableDefinition, TableHandle};

use super::backup_error::BackupError;
use crate::engine::model::keys::CellKey;

pub const MAGIC: &[u8; 8] = b"RBDUMP1\n";
const TAG_END: u8 = 0;
const TAG_TABLE: u8 = 1;
const TAG_ENTRY: u8 = 2;
/// A key or value longer than this is not something redbase wrote (values are at most
/// `--max-value-size`, keys a row of 32 KiB plus a qualifier).
const MAX_FIELD: u32 = 1 << 30;
/// Entries loaded per insert round, and bytes per (non-durable) commit while loading: a redb
/// write transaction keeps its dirty pages in memory until it commits.
const BATCH_BYTES: usize = 4 << 20;
const COMMIT_BYTES: usize = 32 << 20;
/// How often (in entries) a dump looks at the stop switch.
const STOP_EVERY: u64 = 4096;

fn is_cells(table: &str) -> bool {
    table.starts_with("cf:")
}

/// Writes every table of `txn` to `out`; returns the number of entries. Gives up with
/// [`BackupError::ShuttingDown`] once `stop` is set. `label` names the file in errors.
pub(crate) fn write_dump(
    txn: &ReadTransaction,
    out: &mut impl Write,
    stop: &AtomicBool,
    label: &Path,
) -> Result<u64, BackupError> {
    let err = |e: &dyn std::fmt::Display| BackupError::io(label, e);
    out.write_all(MAGIC).map_err(|e| err(&e))?;
    let mut names: Vec<String> = txn
        .list_tables()
        .map_err(|e| err(&e))?
        .map(|h| h.name().to_string())
        .collect();
    names.sort();
    let mut entries = 0u64;
    for name in names {
        out.write_all(&[TAG_TABLE]).map_err(|e| err(&e))?;
        write_field(out, name.as_bytes()).map_err(|e| err(&e))?;
        if is_cells(&name) {
            let def: TableDefinition<CellKey, &[u8]> = TableDefinition::new(&name);
            let t = txn.open_table(def).map_err(|e| err(&e))?;
            for item in t.iter().map_err(|e| err(&e))? {
                let (k, v) = item.map_err(|e| err(&e))?;
                write_entry(out, k.value(), v.value()).map_err(|e| err(&e))?;
                entries += 1;
                check_stop(entries, stop)?;
            }
        } else {
            let def: TableDefinition<&str, &[u8]> = TableDefinition::new(&name);
            let t = txn.open_table(def).map_err(|e| err(&e))?;
            for item in t.iter().map_err(|e| err(&e))? {
                let (k, v) = item.map_err(|e| err(&e))?;
                write_entry(out, k.value().as_bytes(), v.value()).map_err(|e| err(&e))?;
                entries += 1;
                check_stop(entries, stop)?;
            }
        }
    }
    out.write_all(&[TAG_END]).map_err(|e| err(&e))?;
    out.write_all(&entries.to_le_bytes()).map_err(|e| err(&e))?;
    Ok(entries)
}

fn check_stop(entries: u64, stop: &AtomicBool) -> Result<(), BackupError> {
    if entries % STOP_EVERY == 0 && stop.load(Ordering::Acquire) {
        return Err(BackupError::ShuttingDown);
    }
    Ok(())
}

fn write_field(out: &mut impl Write, b: &[u8]) -> io::Result<()> {
    let len = u32::try_from(b.len()).map_err(|_| io::Error::other("field over 4 GiB"))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(b)
}

fn write_entry(out: &mut impl Write, k: &[u8], v: &[u8]) -> io::Result<()> {
    out.write_all(&[TAG_ENTRY])?;
    write_field(out, k)?;
    write_field(out, v)
}

/// Loads the dump read from `input` into a new redb file at `dest` (which must not exist);
/// returns the number of entries. `label` names the dump in errors.
pub fn load_dump(input: &mut impl BufRead, dest: &Path, label: &Path) -> Result<u64, BackupError> {
    let bad = |m: String| BackupError::Dump {
        file: label.to_path_buf(),
        message: m,
    };
    let io_err = |e: &dyn std::fmt::Display| BackupError::io(dest, e);
    let mut magic = [0u8; 8];
    input
        .read_exact(&mut magic)
        .map_err(|e| bad(format!("cannot read the header: {e}")))?;
    if &magic != MAGIC {
        return Err(bad("wrong magic bytes".into()));
    }
    let db = redb::Builder::new().create(dest).map_err(|e| io_err(&e))?;
    let mut loader = Loader {
        db: &db,
        txn: None,
        table: None,
        batch: Vec::new(),
        batch_bytes: 0,
        txn_bytes: 0,
    };
    let mut entries = 0u64;
    loop {
        let tag = read_u8(input).map_err(|e| bad(format!("cut short: {e}")))?;
        match tag {
            TAG_TABLE => {
                let name = read_field(input).map_err(|e| bad(format!("cut short: {e}")))?;
                let name =
                    String::from_utf8(name).map_err(|_| bad("a table name is not UTF-8".into()))?;
                loader.start_table(name).map_err(|e| io_err(&e))?;
            }
            TAG_ENTRY => {
                if loader.table.is_none() {
                    return Err(bad("an entry before any table".into()));
                }
                let k = read_field(input).map_err(|e| bad(format!("cut short: {e}")))?;
                let v = read_field(input).map_err(|e| bad(format!("cut short: {e}")))?;
                loader.push(k, v).map_err(|e| match e {
                    LoadError::Key(m) => bad(m),
                    LoadError::Db(m) => io_err(&m),
                })?;
                entries += 1;
            }
            TAG_END => {
                let mut n = [0u8; 8];
                input
                    .read_exact(&mut n)
                    .map_err(|e| bad(format!("cut short: {e}")))?;
                if u64::from_le_bytes(n) != entries {
                    return Err(bad(format!(
                        "the end record counts {} entries, the dump holds {entries}",
                        u64::from_le_bytes(n)
                    )));
                }
                if !input.fill_buf().map_err(|e| io_err(&e))?.is_empty() {
                    return Err(bad("bytes after the end record".into()));
                }
                loader.finish().map_err(|e| match e {
                    LoadError::Key(m) => bad(m),
                    LoadError::Db(m) => io_err(&m),
                })?;
                return Ok(entries);
            }
            t => return Err(bad(format!("unknown record tag {t}"))),
        }
    }
}

fn read_u8(input: &mut impl Read) -> io::Result<u8> {
    let mut b = [0u8; 1];
    input.read_exact(&mut b)?;
    Ok(b[0])
}

fn read_field(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut n = [0u8; 4];
    input.read_exact(&mut n)?;
    let n = u32::from_le_bytes(n);
    if n > MAX_FIELD {
        return Err(io::Error::other(format!("a field of {n} bytes")));
    }
    let mut b = vec![0u8; n as usize];
    input.read_exact(&mut b)?;
    Ok(b)
}

enum LoadError {
    /// The dump's content is wrong (a `&str` key that is not UTF-8).
    Key(String),
    /// redb failed.
    Db(String),
}

fn db_err(e: impl std::fmt::Display) -> LoadError {
    LoadError::Db(e.to_string())
}

/// Inserts a dump's entries in batches, committing (without a sync) every [`COMMIT_BYTES`];
/// the last commit is durable.
struct Loader<'d> {
    db: &'d Database,
    txn: Option<redb::WriteTransaction>,
    table: Option<String>,
    batch: Vec<(Vec<u8>, Vec<u8>)>,
    batch_bytes: usize,
    txn_bytes: usize,
}

impl Loader<'_> {
    fn txn(&mut self) -> Result<&redb::WriteTransaction, LoadError> {
        if self.txn.is_none() {
            let mut t = self.db.begin_write().map_err(db_err)?;
            t.set_durability(redb::Durability::None).map_err(db_err)?;
            self.txn = Some(t);
        }
        self.txn.as_ref().ok_or_else(|| db_err("no transaction"))
    }

    fn start_table(&mut self, name: String) -> Result<(), String> {
        self.flush().map_err(|e| match e {
            LoadError::Key(m) | LoadError::Db(m) => m,
        })?;
        // Created even when it holds no entry, as in the original file.
        let txn = self.txn().map_err(|e| match e {
            LoadError::Key(m) | LoadError::Db(m) => m,
        })?;
        if is_cells(&name) {
            txn.open_table(TableDefinition::<CellKey, &[u8]>::new(&name))
                .map_err(|e| e.to_string())?;
        } else {
            txn.open_table(TableDefinition::<&str, &[u8]>::new(&name))
                .map_err(|e| e.to_string())?;
        }
        self.table = Some(name);
        Ok(())
    }

    fn push(&mut self, k: Vec<u8>, v: Vec<u8>) -> Result<(), LoadError> {
        self.batch_bytes += k.len() + v.len();
        self.batch.push((k, v));
        if self.batch_bytes >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Inserts the batch; commits when the transaction has grown past its bound.
    fn flush(&mut self) -> Result<(), LoadError> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let name = self.table.clone().unwrap_or_default();
        let batch = std::mem::take(&mut self.batch);
        let txn = self.txn()?;
        if is_cells(&name) {
            let mut t = txn
                .open_table(TableDefinition::<CellKey, &[u8]>::new(&name))
                .map_err(db_err)?;
            for (k, v) in &batch {
                t.insert(k.as_slice(), v.as_slice()).map_err(db_err)?;
            }
        } else {
            let mut t = txn
                .open_table(TableDefinition::<&str, &[u8]>::new(&name))
                .map_err(db_err)?;
            for (k, v) in &batch {
                let k = std::str::from_utf8(k)
                    .map_err(|_| LoadError::Key(format!("a key of table {name} is not UTF-8")))?;
                t.insert(k, v.as_slice()).map_err(db_err)?;
            }
        }
        self.txn_bytes += self.batch_bytes;
        self.batch_bytes = 0;
        if self.txn_bytes >= COMMIT_BYTES {
            self.txn_bytes = 0;
            if let Some(t) = self.txn.take() {
                t.commit().map_err(db_err)?;
            }
        }
        Ok(())
    }

    /// The last batch and a durable commit, which persists the non-durable ones before it.
    fn finish(mut self) -> Result<(), LoadError> {
        self.flush()?;
        let mut txn = match self.txn.take() {
            Some(t) => t,
            None => self.db.begin_write().map_err(db_err)?,
        };
        txn.set_durability(redb::Durability::Immediate)
            .map_err(db_err)?;
        txn.commit().map_err(db_err)
    }
}
