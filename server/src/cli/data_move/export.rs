//! `redbase export`: tables to one export file (format.rs) over Thrift2 scans, so the source can
//! be redbase or HBase's gateway. Rows stream from the scanner to the compressor: memory holds
//! one scanner batch (`--caching` results of at most `--batch` cells each), whatever the table's
//! size. The file appears under its name only when complete (written beside it, then renamed).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::client::{ConnectArgs, Connection};
use super::format::{
    b64, CellRecord, ExportOptions, FileWriter, Header, RowRecord, FORMAT_NAME, FORMAT_VERSION,
};
use super::progress;
use super::scan::{self, Selection};
use crate::generated::hbase2::TTHBaseServiceSyncClient;

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    #[command(flatten)]
    pub connect: ConnectArgs,
    /// A table to export (`ns:name` or `name`); repeat for several.
    #[arg(long = "table", value_name = "TABLE", required_unless_present = "all")]
    pub tables: Vec<String>,
    /// Export every user table (not the `hbase` namespace).
    #[arg(long, conflicts_with = "tables")]
    pub all: bool,
    /// The export file to write (zstd-compressed JSON Lines, docs/export-format.md).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Versions per cell to export, newest first [default: every stored version].
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..))]
    pub versions: Option<i32>,
    /// Only cells with a timestamp at or after this (milliseconds since the epoch).
    #[arg(long, value_name = "MS")]
    pub start_time: Option<i64>,
    /// Only cells with a timestamp before this (milliseconds since the epoch).
    #[arg(long, value_name = "MS")]
    pub end_time: Option<i64>,
    /// Only these column families (comma-separated or repeated).
    #[arg(long = "families", value_delimiter = ',', value_name = "FAMILY")]
    pub families: Vec<String>,
    /// Rows the scanner returns per call.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(i32).range(1..=100_000))]
    pub caching: i32,
    /// Most cells of one row per result; a wider row comes in several lines.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(i32).range(1..=1_000_000))]
    pub batch: i32,
    /// No progress line.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: &ExportArgs) -> Result<(), String> {
    let started = Instant::now();
    let time_range = scan::time_range(args.start_time, args.end_time)?;
    let mut conn = Connection::open(&args.connect)?;
    let names = if args.all {
        let names = conn.call(|c| c.get_table_names_by_pattern(".*".into(), false))?;
        names
            .into_iter()
            .filter(|n| n.ns.as_deref() != Some(b"hbase"))
            .map(|n| {
                super::descriptor::full_name(
                    &String::from_utf8_lossy(n.ns.as_deref().unwrap_or_default()),
                    &String::from_utf8_lossy(&n.qualifier),
                )
            })
            .collect()
    } else {
        args.tables.clone()
    };
    let families: Vec<Vec<u8>> = args
        .families
        .iter()
        .map(|f| f.as_bytes().to_vec())
        .collect();
    let mut tables = Vec::new();
    for name in &names {
        tables.push(scan::table_desc(&mut conn, name, &families)?);
    }
    let max_versions = args.versions.unwrap_or(i32::MAX);
    let header = Header {
        format: FORMAT_NAME.into(),
        version: FORMAT_VERSION,
        source: conn.addr.clone(),
        created_ms: now_ms(),
        options: ExportOptions {
            max_versions,
            time_range,
            families: args.families.clone(),
        },
        tables,
    };
    let selection = Selection {
        families,
        max_versions,
        time_range,
        caching: args.caching,
        batch: args.batch,
    };
    let partial = partial_path(&args.out);
    let result = write_file(&mut conn, args, &selection, &header, &partial);
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    let (rows, cells) = result?;
    std::fs::rename(&partial, &args.out)
        .map_err(|e| format!("cannot rename {} to its name: {e}", partial.display()))?;
    let elapsed = started.elapsed();
    println!(
        "exported {} table(s): {rows} rows, {cells} cells to {} in {:.1} s ({} cells/s)",
        header.tables.len(),
        args.out.display(),
        elapsed.as_secs_f64(),
        progress::rate(cells, elapsed)
    );
    Ok(())
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// `FILE.partial` beside the target, so a crash never leaves a file that looks complete.
fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    out.with_file_name(name)
}

fn write_file(
    conn: &mut Connection,
    args: &ExportArgs,
    selection: &Selection,
    header: &Header,
    path: &Path,
) -> Result<(u64, u64), String> {
    let mut w = FileWriter::create(path, header)?;
    let bar = progress::bar(args.quiet);
    let (mut rows, mut cells) = (0u64, 0u64);
    for (index, table) in header.tables.iter().enumerate() {
        let name = table.full_name();
        bar.set_message(name.clone());
        let mut last_row: Option<Vec<u8>> = None;
        scan::for_each_result(conn, &name, selection.scan(&[], &[]), |r| {
            let row = r.row.unwrap_or_default();
            cells += r.column_values.len() as u64;
            let record = RowRecord {
                t: index,
                row: b64(&row),
                cells: r
                    .column_values
                    .iter()
                    .map(|c| CellRecord {
                        f: b64(&c.family),
                        q: b64(&c.qualifier),
                        ts: c.timestamp.unwrap_or(0),
                        kind: "put".into(),
                        v: b64(&c.value),
                    })
                    .collect(),
            };
            w.write_row(&record)?;
            if last_row.as_deref() != Some(&row[..]) {
                rows += 1;
                bar.inc(1);
                last_row = Some(row);
            }
            Ok(())
        })?;
    }
    bar.finish_and_clear();
    w.finish()?;
    Ok((rows, cells))
}
