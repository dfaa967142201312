//! Where an import writes: a Thrift2 server (redbase or HBase's gateway) or, offline, a data
//! directory opened with the engine. Both take the same Thrift2 descriptors and `TPut`s, so the
//! file and CSV importers have one write path and the offline import stores exactly what the
//! server's `putMultiple` would (the same conversion, `thrift2::convert`).

use std::path::Path;

use super::client::Connection;
use super::descriptor::table_name;
use crate::cli::shell::client::describe_error;
use crate::engine::{Engine, EngineConfig};
use crate::generated::hbase2::TTHBaseServiceSyncClient;
use crate::generated::hbase2::{TPut, TTableDescriptor};
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
            Err(crate::engine::OpenError::InUse { .. }) => Err(format!(
                "the data directory {} is in use by another process (a running `redbase \
                 serve`?): stop it first, or import through the server with --thrift2",
                dir.display()
            )),
            Err(e) => Err(format!("cannot open {}: {e}", dir.display())),
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
                c.refresh_if_idle()?;
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
/// the sum of both. At most two chunks wait in the queue, which bounds memory. A chunk may
/// carry a mark (copy's resume row) handed to the acknowledgement callback once it is written.
pub struct Writer {
    tx: Option<std::sync::mpsc::SyncSender<Chunk>>,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

struct Chunk {
    table: String,
    puts: Vec<TPut>,
    mark: Option<Mark>,
}

/// What a written chunk means to its sender (copy: a region's progress).
#[derive(Debug, Clone)]
pub struct Mark {
    /// The sender's unit of work (copy: the region's index).
    pub unit: usize,
    /// Where to resume once this chunk is written (copy: its last row, inclusive).
    pub row: Vec<u8>,
    /// Rows started and cells in this chunk.
    pub rows: u64,
    pub cells: u64,
    /// The unit's last chunk (it may hold no puts).
    pub done: bool,
}

/// Called on the writer thread with a chunk's mark after the chunk was written.
pub type Ack = Box<dyn FnMut(Mark) -> Result<(), String> + Send>;

/// Test hook: milliseconds to wait before each chunk, so a test can interrupt a run midway
/// (kill -9) without a huge table. Not a user setting.
const DELAY_ENV: &str = "REDBASE_TEST_WRITE_DELAY_MS";

impl Writer {
    pub fn start_acked(sink: Sink, mut ack: Ack) -> Writer {
        let delay = std::env::var(DELAY_ENV)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map(std::time::Duration::from_millis);
        let (tx, rx) = std::sync::mpsc::sync_channel::<Chunk>(2);
        let thread = std::thread::spawn(move || {
            let mut sink = sink;
            let mut result = Ok(());
            for chunk in rx {
                if let Some(d) = delay {
                    std::thread::sleep(d);
                }
                result = sink.put(&chunk.table, chunk.puts);
                if let (Ok(()), Some(mark)) = (&result, chunk.mark) {
                    result = ack(mark);
                }
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

    /// Queues a chunk whose mark goes to the acknowledgement callback once it is written; if
    /// the writer stopped on an error, that error.
    pub fn put_marked(
        &mut self,
        table: &str,
        puts: Vec<TPut>,
        mark: Option<Mark>,
    ) -> Result<(), String> {
        if puts.is_empty() && mark.is_none() {
            return Ok(());
        }
        let chunk = Chunk {
            table: table.to_string(),
            puts,
            mark,
        };
        let sent = match &self.tx {
            Some(tx) => tx.send(chunk).is_ok(),
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
