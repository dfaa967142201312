//! `redbase import --in FILE`: an export file into a Thrift2 server or an offline data dir.
//! Tables are created from the stored descriptors and split points (unless `--no-create`), then
//! rows stream from the file to `putMultiple` in chunks, every cell with its timestamp, so
//! memory holds one chunk. A bad line is reported as FILE:LINE and, within `--max-errors`,
//! skipped; a file without its trailer is refused at the line where it ends.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::client::{ConnectArgs, Connection};
use super::format::{unb64, FileReader, Line, RowRecord};
use super::progress;
use super::sink::{Mark, Sink, Writer};
use crate::generated::hbase2::{TColumnValue, TDurability, TPut};

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// Write into this data directory with the engine, no server (it must not be in use).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// An export file (docs/export-format.md).
    #[arg(
        long = "in",
        value_name = "FILE",
        required_unless_present = "csv",
        conflicts_with = "csv"
    )]
    pub input: Option<PathBuf>,
    /// A CSV or TSV file whose columns map to cells (needs --schema and --table).
    #[arg(long, value_name = "FILE", requires_all = ["schema", "table"])]
    pub csv: Option<PathBuf>,
    /// The schema file (TOML, docs/schema.md) whose key design builds the row keys of --csv.
    #[arg(long, value_name = "SCHEMA.toml", requires = "csv")]
    pub schema: Option<PathBuf>,
    /// The destination table: a new name for a one-table export file; with --csv, the table
    /// of the schema (its HBase name or schema id).
    #[arg(long)]
    pub table: Option<String>,
    /// Create the tables from the file's descriptors and split points (the default; refused
    /// if a table exists).
    #[arg(long, overrides_with = "no_create")]
    pub create: bool,
    /// Write into existing tables; create nothing.
    #[arg(long, overrides_with = "create")]
    pub no_create: bool,
    /// Bad lines to skip, each reported, before giving up.
    #[arg(long, default_value_t = 0)]
    pub max_errors: u64,
    /// Cells per `putMultiple` call.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub chunk: u64,
    /// The CSV field separator: `,`, `\t` (or `tab`), or another single byte.
    #[arg(long, default_value = ",")]
    pub delimiter: String,
    /// What each CSV field is (comma-separated): a key component, a schema column (`field` or
    /// `family:field`), `family:qualifier` for raw bytes, `HBASE_TS_KEY` for the cells'
    /// timestamp, `-` to skip. Without it the first line of the file names the fields.
    #[arg(long, value_delimiter = ',')]
    pub columns: Vec<String>,
    /// How each chunk is written: `async` (ASYNC_WAL: acknowledged once logged, made durable
    /// within the server's flush interval; an interrupted import is simply run again, as every
    /// cell carries its timestamp) or `sync` (every chunk durable before the next).
    #[arg(long, value_enum, default_value_t = WriteDurability::Async)]
    pub durability: WriteDurability,
    /// No progress line.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WriteDurability {
    Async,
    Sync,
}

impl WriteDurability {
    pub fn thrift(self) -> TDurability {
        match self {
            WriteDurability::Async => TDurability::ASYNC_WAL,
            WriteDurability::Sync => TDurability::SYNC_WAL,
        }
    }
}

/// The destination of either importer.
pub fn open_sink(args: &ImportArgs) -> Result<Sink, String> {
    match &args.data_dir {
        Some(dir) => Sink::offline(dir),
        None => Ok(Sink::Thrift2(Box::new(Connection::open(&args.connect)?))),
    }
}

/// Rows and cells the destination acknowledged: chunks it wrote, counted on the writer thread
/// as each is acknowledged, so a run that stops says what landed, not what was read.
#[derive(Clone, Default)]
pub struct Acked(Arc<(AtomicU64, AtomicU64)>);

impl Acked {
    /// The writer for `sink`, counting here every chunk it writes.
    pub fn writer(&self, sink: Sink) -> Writer {
        let counts = self.clone();
        Writer::start_acked(
            sink,
            Box::new(move |m: Mark| {
                counts.0 .0.fetch_add(m.rows, Ordering::Relaxed);
                counts.0 .1.fetch_add(m.cells, Ordering::Relaxed);
                Ok(())
            }),
        )
    }

    pub fn rows(&self) -> u64 {
        self.0 .0.load(Ordering::Relaxed)
    }

    pub fn cells(&self) -> u64 {
        self.0 .1.load(Ordering::Relaxed)
    }

    /// The end of a run's message: on success what was written; after a failure what the
    /// destination acknowledged against what was read.
    pub fn summary(&self, ok: bool, read: (u64, u64), rows_word: &str, rest: &str) -> String {
        if ok {
            format!(
                "{} {rows_word}, {} cells into {rest}",
                self.rows(),
                self.cells()
            )
        } else {
            format!(
                "{} {rows_word}, {} cells into {rest}, as the destination acknowledged them, \
                 of {} {rows_word}, {} cells read (a chunk that failed may be partly written)",
                self.rows(),
                self.cells(),
                read.0,
                read.1
            )
        }
    }
}

/// Puts gathered for one table until a chunk is full.
pub struct Pending {
    pub table: String,
    pub puts: Vec<TPut>,
    pub cells: u64,
    pub chunk: u64,
}

impl Pending {
    pub fn new(table: String, chunk: u64) -> Pending {
        Pending {
            table,
            puts: Vec::new(),
            cells: 0,
            chunk,
        }
    }

    pub fn add(&mut self, sink: &mut Writer, put: TPut) -> Result<(), String> {
        self.cells += put.column_values.len() as u64;
        self.puts.push(put);
        if self.cells >= self.chunk {
            self.flush(sink)?;
        }
        Ok(())
    }

    /// Queues the gathered puts as one chunk, marked with its rows and cells so that [`Acked`]
    /// counts them once written.
    pub fn flush(&mut self, sink: &mut Writer) -> Result<(), String> {
        self.cells = 0;
        if self.puts.is_empty() {
            return Ok(());
        }
        let puts = std::mem::take(&mut self.puts);
        let mark = Mark {
            unit: 0,
            row: Vec::new(),
            rows: puts.len() as u64,
            cells: puts.iter().map(|p| p.column_values.len() as u64).sum(),
            done: false,
        };
        sink.put_marked(&self.table, puts, Some(mark))
    }
}

pub fn run(args: &ImportArgs, path: &std::path::Path) -> Result<(), String> {
    let started = Instant::now();
    let mut reader = FileReader::open(path)?;
    let tables = reader.header.tables.clone();
    let targets: Vec<String> = match &args.table {
        Some(t) if tables.len() == 1 => vec![t.clone()],
        Some(_) => {
            return Err(format!(
                "{} holds {} tables; --table renames the table of a one-table file",
                path.display(),
                tables.len()
            ))
        }
        None => tables.iter().map(|t| t.full_name()).collect(),
    };
    let mut sink = open_sink(args)?;
    for (desc, target) in tables.iter().zip(&targets) {
        let exists = sink.table_exists(target)?;
        if args.no_create {
            if !exists {
                return Err(format!(
                    "table {target} does not exist (--no-create writes into existing tables)"
                ));
            }
            continue;
        }
        if exists {
            return Err(format!(
                "table {target} already exists: import into it with --no-create, or give \
                 --table a new name"
            ));
        }
        let d = desc
            .to_thrift(target)
            .map_err(|e| format!("{}:1: table {}: {e}", path.display(), desc.full_name()))?;
        let splits = desc
            .split_keys()
            .map_err(|e| format!("{}:1: table {}: {e}", path.display(), desc.full_name()))?;
        sink.create_table(d, splits)
            .map_err(|e| format!("cannot create table {target}: {e}"))?;
    }
    let acked = Acked::default();
    let mut sink = acked.writer(sink);
    let bar = progress::bar(args.quiet);
    let mut pending: Option<(usize, Pending)> = None;
    let (mut lines, mut cells, mut errors) = (0u64, 0u64, 0u64);
    let outcome: Result<(), String> = loop {
        let line = match reader.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        };
        match line {
            Line::Row(r) => match to_put(&r, args.durability.thrift()) {
                Ok(put) => {
                    if pending.as_ref().map(|p| p.0) != Some(r.t) {
                        if let Some((_, mut p)) = pending.take() {
                            if let Err(e) = p.flush(&mut sink) {
                                break Err(format!("cannot write: {e}"));
                            }
                        }
                        bar.set_message(targets[r.t].clone());
                        pending = Some((r.t, Pending::new(targets[r.t].clone(), args.chunk)));
                    }
                    lines += 1;
                    cells += put.column_values.len() as u64;
                    bar.inc(1);
                    if let Some((_, p)) = pending.as_mut() {
                        if let Err(e) = p.add(&mut sink, put) {
                            break Err(reader.at(&format!("cannot write: {e}")));
                        }
                    }
                }
                Err(e) => {
                    errors += 1;
                    eprintln!("{}", reader.at(&e));
                    if errors > args.max_errors {
                        break Err(too_many(errors, args.max_errors));
                    }
                }
            },
            Line::Bad(e) => {
                errors += 1;
                eprintln!("{e}");
                if errors > args.max_errors {
                    break Err(too_many(errors, args.max_errors));
                }
            }
            Line::Mismatch(e) if errors > 0 => {
                eprintln!("warning: {e}");
            }
            Line::Mismatch(e) => break Err(e),
            Line::End(_) => {}
        }
    };
    bar.finish_and_clear();
    // What was read before a cut or a bad line is written either way, and the error says so.
    let flushed = match pending.take() {
        Some((_, mut p)) => p.flush(&mut sink),
        None => Ok(()),
    };
    let outcome = outcome.and(flushed).and(sink.finish());
    let elapsed = started.elapsed();
    let summary = format!(
        "{} in {:.1} s ({} cells/s); {errors} bad line(s) skipped",
        acked.summary(
            outcome.is_ok(),
            (lines, cells),
            "row lines",
            &targets.join(", ")
        ),
        elapsed.as_secs_f64(),
        progress::rate(acked.cells(), elapsed)
    );
    match outcome {
        Ok(()) => {
            println!("imported {summary}");
            Ok(())
        }
        Err(e) => Err(format!("{e}\n(before stopping, imported {summary})")),
    }
}

fn too_many(errors: u64, max: u64) -> String {
    format!("too many bad lines: {errors} (--max-errors {max})")
}

/// A row line as one put, every cell with its timestamp.
fn to_put(r: &RowRecord, durability: TDurability) -> Result<TPut, String> {
    let row = unb64("the row key", &r.row)?;
    if row.is_empty() {
        return Err("the row key is empty".into());
    }
    let mut values = Vec::with_capacity(r.cells.len());
    for (i, c) in r.cells.iter().enumerate() {
        if c.kind != "put" {
            return Err(format!(
                "cell {i}: type {:?} is not supported (version 1 files hold puts only)",
                c.kind
            ));
        }
        if c.ts < 0 {
            return Err(format!("cell {i}: negative timestamp {}", c.ts));
        }
        values.push(TColumnValue::new(
            unb64("a family", &c.f)?,
            unb64("a qualifier", &c.q)?,
            unb64("a value", &c.v)?,
            c.ts,
            None,
            None,
        ));
    }
    if values.is_empty() {
        return Err("the row line has no cells".into());
    }
    Ok(TPut::new(row, values, None, None, durability, None))
}
