//! The server side of a backup: walks a [`BackupPoint`]'s snapshots (the catalog, then every
//! region) and sends each dump as stream frames ([`super::stream`]), with its size and
//! SHA-256, then the manifest. Memory is bounded by one data frame: a frame is sent (and the
//! sender waits while the client is slow) before the next is filled. Nothing is written to the
//! server's disk.

use std::collections::BTreeSet;
use std::io::{self, Write};

use sha2::{Digest, Sha256};

use super::manifest::{hex, FileEntry, Manifest, Point, FORMAT, KIND, KIND_CATALOG, KIND_REGION};
use super::stream::{frame, FileEnd, DATA_MAX, TAG_DATA, TAG_END, TAG_FILE, TAG_MANIFEST};
use crate::engine::{BackupError, BackupPoint};

/// Sends one frame; false once the client has gone.
pub type Send<'a> = &'a dyn Fn(Vec<u8>) -> bool;

/// Streams the whole backup of `point`; returns its manifest. The point is released (and its
/// figures recorded) when this returns.
pub fn stream(mut point: BackupPoint<'_>, send: Send<'_>) -> Result<Manifest, BackupError> {
    let mut files = Vec::new();
    let mut out = FileOut::new(send, "catalog.dump")?;
    let entries = point.dump_catalog(&mut out)?;
    files.push(out.finish(&mut point, "meta.redb", KIND_CATALOG, None, entries)?);
    let mut tables = BTreeSet::new();
    for i in 0..point.regions().len() {
        let r = &point.regions()[i];
        let dir = format!("tables/{}/{}", r.namespace, r.qualifier);
        let (path, restore_to, table) = (
            format!("{dir}/{}.dump", r.file),
            format!("{dir}/{}", r.file),
            r.table.clone(),
        );
        tables.insert(table.clone());
        let mut out = FileOut::new(send, &path)?;
        let entries = point.dump_region(i, &mut out)?;
        files.push(out.finish(&mut point, &restore_to, KIND_REGION, Some(table), entries)?);
    }
    let manifest = Manifest {
        format: FORMAT,
        kind: KIND.into(),
        server_version: env!("CARGO_PKG_VERSION").into(),
        cluster_id: point.cluster_id().to_string(),
        point: Point {
            taken_at_ms: point.taken_ms,
            pause_us: point.pause.as_micros() as u64,
        },
        tables: tables.into_iter().collect(),
        files,
    };
    let json =
        serde_json::to_vec_pretty(&manifest).map_err(|e| BackupError::io("manifest.json", e))?;
    if !send(frame(TAG_MANIFEST, &json)) {
        return Err(gone());
    }
    point.finish();
    Ok(manifest)
}

fn gone() -> BackupError {
    BackupError::Stream {
        message: "the client disconnected".into(),
    }
}

/// One file of the stream: its bytes go out in data frames as they are written.
struct FileOut<'a> {
    send: Send<'a>,
    path: String,
    buf: Vec<u8>,
    hash: Sha256,
    size: u64,
}

impl<'a> FileOut<'a> {
    fn new(send: Send<'a>, path: &str) -> Result<FileOut<'a>, BackupError> {
        if !send(frame(TAG_FILE, path.as_bytes())) {
            return Err(gone());
        }
        Ok(FileOut {
            send,
            path: path.to_string(),
            buf: Vec::with_capacity(DATA_MAX),
            hash: Sha256::new(),
            size: 0,
        })
    }

    fn emit(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let ok = (self.send)(frame(TAG_DATA, &self.buf));
        self.buf.clear();
        if ok {
            Ok(())
        } else {
            Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the client disconnected",
            ))
        }
    }

    fn finish(
        mut self,
        point: &mut BackupPoint<'_>,
        restore_to: &str,
        kind: &str,
        table: Option<String>,
        entries: u64,
    ) -> Result<FileEntry, BackupError> {
        self.emit().map_err(|_| gone())?;
        let sha256 = hex(&self.hash.finalize_reset());
        let end = FileEnd {
            size: self.size,
            sha256: sha256.clone(),
        };
        let json = serde_json::to_vec(&end).map_err(|e| BackupError::io(&self.path, e))?;
        if !(self.send)(frame(TAG_END, &json)) {
            return Err(gone());
        }
        point.add_bytes(self.size);
        Ok(FileEntry {
            path: self.path,
            restore_to: restore_to.to_string(),
            kind: kind.to_string(),
            table,
            entries,
            size: self.size,
            sha256,
        })
    }
}

impl Write for FileOut<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.hash.update(data);
        self.size += data.len() as u64;
        let mut rest = data;
        while !rest.is_empty() {
            let room = DATA_MAX - self.buf.len();
            let n = room.min(rest.len());
            self.buf.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if self.buf.len() >= DATA_MAX {
                self.emit()?;
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
