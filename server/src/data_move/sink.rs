//! Where an import writes: a Thrift2 server (redbase or HBase's gateway) or, offline, a data
//! directory opened with the engine. Both take the same Thrift2 descriptors and `TPut`s, so the
//! file and CSV importers have one write path and the offline import stores exactly what the
//! server's `putMultiple` would (the same conversion, `thrift2::convert`).

use std::path::Path;

use super::client::Connection;
use super::descriptor::table_name;
use crate::engine::{Engine, EngineConfig};
use crate::generated::hbase2::TTHBaseServiceSyncClient;
use crate::generated::hbase2::{TPut, TTableDescriptor};
use crate::shell::client::describe_error;
use crate::thrift2::convert;

pub enum Sink {
    Thrift2(Box<Connection>),
    Engine(Engine),
}

impl Sink {
    /// Opens the data directory for writing. The catalog's redb file is locked by whichever
    /// process has it open, so a running server makes this fail; the message says so.
    pub fn offline(dir: &Path) -> Result<Sink, String> {
        if !dir.join("meta.redb").exists() {
            return Err(format!(
                "{} is not a redbase data directory (no meta.redb); give the directory a \
                 `redbase serve --data-dir` uses",
                dir.display()
            ));
        }
        match Engine::open(dir, EngineConfig::default()) {
            Ok(e) => Ok(Sink::Engine(e)),
            Err(e) => {
                let text = e.to_string();
                if text.to_ascii_lowercase().contains("already open") {
                    Err(format!(
                        "the data directory {} is in use by another process (a running \
                         `redbase serve`?): stop it first, or import through the server with \
                         --thrift2 ({text})",
                        dir.display()
                    ))
                } else {
                    Err(format!("cannot open {}: {text}", dir.display()))
                }
            }
        }
    }

    pub fn table_exists(&mut self, name: &str) -> Result<bool, String> {
        match self {
            Sink::Thrift2(c) => c.call(|c| c.table_exists(table_name(name))),
            Sink::Engine(e) => Ok(e.table_exists(name)),
        }
    }

    pub fn create_table(
        &mut self,
        desc: TTableDescriptor,
        splits: Vec<Vec<u8>>,
    ) -> Result<(), String> {
        match self {
            Sink::Thrift2(c) => c.call(move |c| c.create_table(desc, splits)),
            Sink::Engine(e) => {
                let d = convert::table_from_thrift(&desc).map_err(|e| describe_error(&e))?;
                e.create_table(d, &splits).map_err(|e| e.to_string())
            }
        }
    }

    /// Writes the puts (each cell with its own timestamp); any failure fails the chunk.
    pub fn put(&mut self, table: &str, puts: Vec<TPut>) -> Result<(), String> {
        if puts.is_empty() {
            return Ok(());
        }
        match self {
            Sink::Thrift2(c) => {
                let t = table.as_bytes().to_vec();
                c.call(move |c| c.put_multiple(t, puts))
            }
            Sink::Engine(e) => {
                let rows = puts
                    .iter()
                    .map(convert::put_mutation)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| describe_error(&e))?;
                for r in e.mutate_rows(table, rows) {
                    r.map_err(|e| format!("cannot write to {table}: {e}"))?;
                }
                Ok(())
            }
        }
    }

    /// Closes the engine (its last commits made durable) when importing offline.
    pub fn close(self) {
        if let Sink::Engine(e) = self {
            e.close();
        }
    }
}

/// The sink on a thread of its own, so reading and converting the next chunk overlaps the
/// server (or engine) writing this one: an import runs at the pace of the slower side, not
/// the sum of both. At most two chunks wait in the queue, which bounds memory.
pub struct Writer {
    tx: Option<std::sync::mpsc::SyncSender<(String, Vec<TPut>)>>,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl Writer {
    pub fn start(sink: Sink) -> Writer {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(String, Vec<TPut>)>(2);
        let thread = std::thread::spawn(move || {
            let mut sink = sink;
            let mut result = Ok(());
            for (table, puts) in rx {
                result = sink.put(&table, puts);
                if result.is_err() {
                    break;
                }
            }
            sink.close();
            result
        });
        Writer {
            tx: Some(tx),
            thread: Some(thread),
        }
    }

    /// Queues a chunk; if the writer stopped on an error, that error.
    pub fn put(&mut self, table: &str, puts: Vec<TPut>) -> Result<(), String> {
        if puts.is_empty() {
            return Ok(());
        }
        let sent = match &self.tx {
            Some(tx) => tx.send((table.to_string(), puts)).is_ok(),
            None => false,
        };
        if sent {
            Ok(())
        } else {
            Err(self
                .join()
                .err()
                .unwrap_or_else(|| "the writer stopped".into()))
        }
    }

    /// Waits for every queued chunk to be written and the sink closed.
    pub fn finish(mut self) -> Result<(), String> {
        self.join()
    }

    fn join(&mut self) -> Result<(), String> {
        self.tx = None;
        match self.thread.take() {
            Some(t) => t
                .join()
                .unwrap_or_else(|_| Err("the writer thread failed".into())),
            None => Err("the writer stopped".into()),
        }
    }
}
