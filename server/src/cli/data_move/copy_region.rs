//! Copy's workers: each takes source regions from the queue and streams one at a time from its
//! own source scanner to its own destination writer (sink.rs's writer thread, at most two
//! chunks queued), so memory is bounded by `--parallel` x (one scanner batch + three chunks)
//! whatever the table's size. The writer acknowledges each chunk to the checkpoint with the
//! chunk's last row, so a resumed region starts at a row every row before which is written.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use indicatif::ProgressBar;

use super::checkpoint::{Region, Store};
use super::client::{Connection, Protocol, Transport};
use super::progress;
use super::scan::{self, Selection};
use super::sink::{Mark, Sink, Writer};
use super::workers::{self, Stop};
use crate::cli::connect::ClientSecurity;
use crate::generated::hbase2::{TDurability, TPut};

/// One side of a copy: where its server is, how it speaks, and what its connections present.
pub struct Endpoint {
    pub addr: String,
    pub transport: Transport,
    pub protocol: Protocol,
    pub security: ClientSecurity,
}

impl Endpoint {
    fn connect(&self) -> Result<Connection, String> {
        Connection::open_at(&self.addr, &self.security, self.transport, self.protocol)
    }
}

/// Everything about a copy the workers share.
pub struct Plan {
    pub from: Endpoint,
    pub to: Endpoint,
    pub source_table: String,
    pub dest_table: String,
    /// What is read from the source (source family names).
    pub source: Selection,
    /// The same cells as the destination names them (verification's scan there).
    pub dest: Selection,
    /// Source family to destination family, for the renamed ones.
    pub renames: BTreeMap<Vec<u8>, Vec<u8>>,
    pub chunk: u64,
    pub durability: TDurability,
}

impl Plan {
    pub fn connect_source(&self) -> Result<Connection, String> {
        self.from.connect().map_err(|e| format!("source: {e}"))
    }

    pub fn connect_dest(&self) -> Result<Connection, String> {
        self.to.connect().map_err(|e| format!("destination: {e}"))
    }

    /// A source family's name in the destination.
    pub fn dest_family<'a>(&'a self, family: &'a [u8]) -> &'a [u8] {
        self.renames.get(family).map_or(family, Vec::as_slice)
    }
}

/// What the workers count between them, for the progress bar's message.
struct Counters {
    rows: AtomicU64,
    cells: AtomicU64,
    started: Instant,
}

/// Copies the regions with `parallel` workers; returns the rows and cells copied.
pub fn run(
    plan: &Plan,
    store: &Arc<Store>,
    regions: Vec<Region>,
    parallel: usize,
    bar: &ProgressBar,
) -> Result<(u64, u64), String> {
    let stop = Stop::default();
    let counters = Counters {
        rows: AtomicU64::new(0),
        cells: AtomicU64::new(0),
        started: Instant::now(),
    };
    let results = workers::run(
        regions,
        parallel,
        &stop,
        || {
            let src = plan.connect_source()?;
            let dst = plan.connect_dest()?;
            let store = Arc::clone(store);
            let writer = Writer::start_acked(
                Sink::Thrift2(Box::new(dst)),
                Box::new(move |mark: Mark| store.record(&mark)),
            );
            Ok((src, writer))
        },
        |(src, writer), region| {
            copy_one(plan, src, writer, &region, &stop, &counters, bar).map_err(|e| {
                format!(
                    "region [{}, {}): {e}",
                    show(&region.start),
                    if region.stop.is_empty() {
                        "end".into()
                    } else {
                        show(&region.stop)
                    }
                )
            })
        },
        |(_, writer)| writer.finish().map_err(|e| format!("destination: {e}")),
    )?;
    let _ = results;
    Ok((
        counters.rows.load(Ordering::Relaxed),
        counters.cells.load(Ordering::Relaxed),
    ))
}

fn show(key: &[u8]) -> String {
    format!("\"{}\"", crate::cli::shell::format::to_string_binary(key))
}

/// One region, from its resume row (or start) to its stop row.
fn copy_one(
    plan: &Plan,
    src: &mut Connection,
    writer: &mut Writer,
    region: &Region,
    stop: &Stop,
    counters: &Counters,
    bar: &ProgressBar,
) -> Result<(), String> {
    let from = region
        .resume
        .clone()
        .unwrap_or_else(|| region.start.clone());
    let mut shown = progress::key_position(&region.start, &region.stop, &from);
    bar.inc(shown);
    // The resume row was counted by the run that wrote it.
    let mut last_row = region.resume.clone();
    let (mut puts, mut rows, mut cells) = (Vec::new(), 0u64, 0u64);
    let table = plan.dest_table.as_str();
    scan::for_each_result(
        src,
        &plan.source_table,
        plan.source.scan(&from, &region.stop),
        |r| {
            if stop.stopped() {
                return Err("stopped after another region's error".into());
            }
            let row = r.row.unwrap_or_default();
            if last_row.as_deref() != Some(&row[..]) {
                rows += 1;
                last_row = Some(row.clone());
            }
            let values: Vec<_> = r
                .column_values
                .into_iter()
                .map(|mut c| {
                    if let Some(to) = plan.renames.get(&c.family) {
                        c.family = to.clone();
                    }
                    c.tags = None;
                    c.type_ = None;
                    c
                })
                .collect();
            cells += values.len() as u64;
            puts.push(TPut::new(
                row.clone(),
                values,
                None,
                None,
                plan.durability,
                None,
            ));
            if cells >= plan.chunk {
                counters.rows.fetch_add(rows, Ordering::Relaxed);
                counters.cells.fetch_add(cells, Ordering::Relaxed);
                let mark = Mark {
                    unit: region.index,
                    row: row.clone(),
                    rows,
                    cells,
                    done: false,
                };
                writer.put_marked(table, std::mem::take(&mut puts), Some(mark))?;
                (rows, cells) = (0, 0);
                let at = progress::key_position(&region.start, &region.stop, &row);
                bar.inc(at.saturating_sub(shown));
                shown = shown.max(at);
                message(bar, counters);
            }
            Ok(())
        },
    )?;
    counters.rows.fetch_add(rows, Ordering::Relaxed);
    counters.cells.fetch_add(cells, Ordering::Relaxed);
    let mark = Mark {
        unit: region.index,
        row: Vec::new(),
        rows,
        cells,
        done: true,
    };
    writer.put_marked(table, puts, Some(mark))?;
    bar.inc(progress::PER_REGION.saturating_sub(shown));
    message(bar, counters);
    Ok(())
}

fn message(bar: &ProgressBar, c: &Counters) {
    let rows = c.rows.load(Ordering::Relaxed);
    let elapsed = c.started.elapsed();
    bar.set_message(format!(
        "{rows} rows, {} cells ({} rows/s)",
        c.cells.load(Ordering::Relaxed),
        progress::rate(rows, elapsed)
    ));
}
