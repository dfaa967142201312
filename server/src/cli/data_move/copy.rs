//! `redbase copy`: one table from a Thrift2 server to another (or to a new name on the same
//! one), like HBase's CopyTable but with no MapReduce: the destination is created with the
//! source's descriptor and split points, then every source region is scanned and written with
//! `putMultiple` by a pool of workers (copy_region.rs), each cell with its timestamp, so a
//! repeated run stores the same cells and a time range copies only what changed. A checkpoint
//! (checkpoint.rs) lets an interrupted copy resume region by region; `--verify` compares
//! row counts and a hash per region on both sides (verify.rs).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use super::checkpoint::{Checkpoint, Store};
use super::client::{Connection, Protocol, Transport};
use super::copy_region::{self, Endpoint, Plan};
use super::descriptor::TableDesc;
use super::format::b64;
use super::import::WriteDurability;
use super::progress;
use super::scan::{self, Selection};
use super::verify;
use crate::cli::connect::{AuthArgs, FromAuthArgs, ToAuthArgs};
use crate::cli::shell::format::to_string_binary;
use crate::generated::hbase2::TTHBaseServiceSyncClient;

#[derive(clap::Args, Debug)]
pub struct CopyArgs {
    /// The source's Thrift2 server (`host:port`): redbase or HBase's `hbase thrift2` gateway.
    #[arg(long, value_name = "HOST:PORT", value_parser = crate::flag_values::address)]
    pub from: String,
    /// The destination's Thrift2 server [default: the source's, then --new-name is needed].
    #[arg(long, value_name = "HOST:PORT", value_parser = crate::flag_values::address)]
    pub to: Option<String>,
    /// Thrift transport of the source (HBase's default is buffered).
    #[arg(long, value_enum, default_value_t = Transport::Buffered)]
    pub from_transport: Transport,
    /// Thrift protocol of the source (HBase's default is binary).
    #[arg(long, value_enum, default_value_t = Protocol::Binary)]
    pub from_protocol: Protocol,
    /// Thrift transport of the destination.
    #[arg(long, value_enum, default_value_t = Transport::Buffered)]
    pub to_transport: Transport,
    /// Thrift protocol of the destination.
    #[arg(long, value_enum, default_value_t = Protocol::Binary)]
    pub to_protocol: Protocol,
    /// TLS and credentials for both servers (with a user the transport is SASL's, framed).
    #[command(flatten)]
    pub auth: AuthArgs,
    /// The source's own TLS and credentials, where they differ (each replaces the plain flag).
    #[command(flatten)]
    pub from_auth: FromAuthArgs,
    /// The destination's own TLS and credentials, where they differ.
    #[command(flatten)]
    pub to_auth: ToAuthArgs,
    /// The source table (`ns:name` or `name`).
    #[arg(long)]
    pub table: String,
    /// The destination table's name [default: the source's].
    #[arg(long, value_name = "TABLE")]
    pub new_name: Option<String>,
    /// Only these families, comma-separated; `src:dst` copies family src into dst.
    #[arg(long, value_delimiter = ',', value_name = "FAMILY[:NEW]")]
    pub families: Vec<String>,
    /// Versions per cell to copy, newest first [default: every stored version].
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..))]
    pub versions: Option<i32>,
    /// First row to copy (inclusive); `\xNN` escapes as HBase's Bytes.toStringBinary.
    #[arg(long, value_name = "ROW")]
    pub start_row: Option<String>,
    /// Row to stop before (exclusive); `\xNN` escapes allowed.
    #[arg(long, value_name = "ROW")]
    pub stop_row: Option<String>,
    /// Only cells with a timestamp at or after this (ms since the epoch).
    #[arg(long, value_name = "MS")]
    pub start_time: Option<i64>,
    /// Only cells with a timestamp before this (ms since the epoch).
    #[arg(long, value_name = "MS")]
    pub end_time: Option<i64>,
    /// Write into an existing destination table; create nothing and skip the schema check.
    #[arg(long)]
    pub no_create: bool,
    /// Regions copied at once, each with its own connections.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub parallel: u16,
    /// Record progress per region in this file (or, for a directory, a file named for the
    /// tables in it) and resume from it when it exists.
    #[arg(long, value_name = "FILE|DIR")]
    pub checkpoint: Option<PathBuf>,
    /// After copying, compare row counts and a hash of every cell per region on both sides.
    #[arg(long)]
    pub verify: bool,
    /// Only compare (as --verify), copy nothing.
    #[arg(long, conflicts_with_all = ["verify", "checkpoint"])]
    pub verify_only: bool,
    /// Rows the source scanner returns per call.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(i32).range(1..=100_000))]
    pub caching: i32,
    /// Most cells of one row per scanner result; a wider row comes in several.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(i32).range(1..=1_000_000))]
    pub batch: i32,
    /// Cells per `putMultiple` call.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub chunk: u64,
    /// How the destination writes each chunk (as `redbase import --durability`).
    #[arg(long, value_enum, default_value_t = WriteDurability::Async)]
    pub durability: WriteDurability,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Runs the copy (and verification); `Ok(false)` when verification found a difference.
pub fn run(args: &CopyArgs) -> Result<bool, String> {
    let started = Instant::now();
    let to = args.to.clone().unwrap_or_else(|| args.from.clone());
    let dest_table = args.new_name.clone().unwrap_or_else(|| args.table.clone());
    if to == args.from && dest_table == args.table {
        return Err(format!(
            "the source and the destination are the same table ({} on {to}): give --to another \
             server or --new-name another table",
            args.table
        ));
    }
    let time_range = scan::time_range(args.start_time, args.end_time)?;
    let families = parse_families(&args.families)?;
    let start_row = row_key("--start-row", args.start_row.as_deref())?;
    let stop_row = row_key("--stop-row", args.stop_row.as_deref())?;
    if !stop_row.is_empty() && start_row >= stop_row {
        return Err("--start-row must come before --stop-row".into());
    }
    let selection = |fams: Vec<Vec<u8>>| Selection {
        families: fams,
        max_versions: args.versions.unwrap_or(i32::MAX),
        time_range,
        caching: args.caching,
        batch: args.batch,
    };
    let (from_security, to_security) = crate::cli::connect::resolve_pair(
        &args.from_auth.over(&args.auth),
        &args.from,
        &args.to_auth.over(&args.auth),
        &to,
    )?;
    let plan = Plan {
        from: Endpoint {
            addr: args.from.clone(),
            transport: args.from_transport,
            protocol: args.from_protocol,
            security: from_security,
        },
        to: Endpoint {
            addr: to.clone(),
            transport: args.to_transport,
            protocol: args.to_protocol,
            security: to_security,
        },
        source_table: args.table.clone(),
        dest_table: dest_table.clone(),
        source: selection(families.iter().map(|(s, _)| s.clone()).collect()),
        dest: selection(families.iter().map(|(_, d)| d.clone()).collect()),
        renames: families.iter().filter(|(s, d)| s != d).cloned().collect(),
        chunk: args.chunk,
        durability: args.durability.thrift(),
    };
    let mut src = plan.connect_source()?;
    let source = scan::table_desc(&mut src, &args.table, &plan.source.families)
        .map_err(|e| format!("source: {e}"))?;
    let ranges = clip(&source.split_keys()?, &start_row, &stop_row);
    let mut dst = plan.connect_dest()?;
    if args.verify_only {
        return verify::run(&plan, &ranges, args.parallel.into(), args.quiet);
    }
    let arguments = fingerprint(args, &to, &dest_table);
    let checkpoint_path = args
        .checkpoint
        .as_ref()
        .map(|p| checkpoint_file(p, &args.table, &dest_table));
    let resumed = match &checkpoint_path {
        Some(p) if p.exists() => Some(Checkpoint::load(p, &arguments)?),
        _ => None,
    };
    let state = resumed
        .clone()
        .unwrap_or_else(|| Checkpoint::new(arguments, &ranges));
    // Written once before anything else, so an unwritable path fails before the copy starts.
    let store = std::sync::Arc::new(Store::new(checkpoint_path.clone(), state)?);
    if let Err(e) = prepare_destination(&mut dst, args, &plan, &source, resumed.is_some()) {
        // Nothing was copied: a new checkpoint would only block a corrected rerun.
        if let (None, Some(p)) = (&resumed, &checkpoint_path) {
            let _ = std::fs::remove_file(p);
        }
        return Err(e);
    }
    drop((src, dst));
    let before = store.snapshot();
    let pending = before.pending();
    let (done_before, rows_before, _) = before.totals();
    println!(
        "copying {} ({}) to {} ({to}): {} region(s), {} at once{}",
        args.table,
        args.from,
        dest_table,
        before.regions.len(),
        usize::from(args.parallel).min(pending.len()),
        match (&resumed, &checkpoint_path) {
            (Some(_), Some(p)) => format!(
                "; resuming from {}: {done_before} region(s) done, {} to go, {rows_before} \
                 rows copied before",
                p.display(),
                pending.len()
            ),
            _ => String::new(),
        }
    );
    let bar = progress::regions_bar(args.quiet, before.regions.len());
    bar.inc(done_before as u64 * progress::PER_REGION);
    let outcome = copy_region::run(&plan, &store, pending, args.parallel.into(), &bar);
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    let (rows, cells) = match outcome {
        Ok(x) => x,
        Err(e) => {
            let hint = match &checkpoint_path {
                Some(p) => format!(
                    "rerun the same command to resume from the checkpoint {}",
                    p.display()
                ),
                None => "rerun the same command (cells keep their timestamps, so copying \
                         again is harmless), with --checkpoint FILE to resume where it stops"
                    .into(),
            };
            return Err(format!("{e}\n(the copy stopped; {hint})"));
        }
    };
    println!(
        "copied {rows} rows, {cells} cells in {:.1} s ({} cells/s){}",
        elapsed.as_secs_f64(),
        progress::rate(cells, elapsed),
        if resumed.is_some() {
            format!(
                "; with the {rows_before} rows before the resume, {} rows in all",
                store.snapshot().totals().1
            )
        } else {
            String::new()
        }
    );
    if args.verify {
        return verify::run(&plan, &before.ranges(), args.parallel.into(), args.quiet);
    }
    Ok(true)
}

/// (source, destination) family names.
type FamilyPairs = Vec<(Vec<u8>, Vec<u8>)>;

/// `a,b:c` as (source, destination) family pairs.
fn parse_families(list: &[String]) -> Result<FamilyPairs, String> {
    let mut pairs = FamilyPairs::new();
    for item in list {
        let (s, d) = item.split_once(':').unwrap_or((item, item));
        if s.is_empty() || d.is_empty() {
            return Err(format!(
                "--families {item:?}: give FAMILY or SOURCE:DESTINATION, both non-empty"
            ));
        }
        if pairs.iter().any(|(x, _)| x == s.as_bytes()) {
            return Err(format!("--families names {s:?} twice"));
        }
        if pairs.iter().any(|(_, y)| y == d.as_bytes()) {
            return Err(format!("--families writes two families into {d:?}"));
        }
        pairs.push((s.as_bytes().to_vec(), d.as_bytes().to_vec()));
    }
    Ok(pairs)
}

/// A row key from the command line, with HBase's `\xNN` escapes.
fn row_key(flag: &str, text: Option<&str>) -> Result<Vec<u8>, String> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'x') {
            let hex = text.get(i + 2..i + 4).unwrap_or("");
            let b = u8::from_str_radix(hex, 16).map_err(|_| {
                format!("{flag} {text:?}: \\x at byte {i} needs two hex digits (as \\x0A)")
            })?;
            out.push(b);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

/// The source's regions as `[start, stop)` ranges, cut to the row range; regions outside it go.
fn clip(splits: &[Vec<u8>], start: &[u8], stop: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut bounds = vec![Vec::new()];
    bounds.extend(splits.iter().cloned());
    let mut ranges = Vec::new();
    for (i, s) in bounds.iter().enumerate() {
        let e = bounds.get(i + 1).cloned().unwrap_or_default();
        let s = if start > s.as_slice() {
            start.to_vec()
        } else {
            s.clone()
        };
        let e = match (e.is_empty(), stop.is_empty()) {
            (_, true) => e,
            (true, false) => stop.to_vec(),
            (false, false) => e.min(stop.to_vec()),
        };
        if e.is_empty() || s < e {
            ranges.push((s, e));
        }
    }
    ranges
}

/// What decides which cells a copy writes: a checkpoint is only resumed with the same.
fn fingerprint(args: &CopyArgs, to: &str, dest_table: &str) -> BTreeMap<String, String> {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    BTreeMap::from([
        ("from".into(), args.from.clone()),
        ("to".into(), to.to_string()),
        ("table".into(), args.table.clone()),
        ("new-name".into(), dest_table.to_string()),
        (
            "families".into(),
            opt((!args.families.is_empty()).then(|| args.families.join(","))),
        ),
        ("versions".into(), opt(args.versions.map(|v| v.to_string()))),
        ("start-row".into(), opt(args.start_row.clone())),
        ("stop-row".into(), opt(args.stop_row.clone())),
        (
            "start-time".into(),
            opt(args.start_time.map(|v| v.to_string())),
        ),
        ("end-time".into(), opt(args.end_time.map(|v| v.to_string()))),
    ])
}

/// `--checkpoint DIR` holds one file per source and destination table. The name keeps the two
/// table names readable; when cleaning them lost something (a namespace's `:` or a `.`
/// becomes `_`, so `ns:t` and `ns_t` would share a file) or the name would pass what a file
/// system allows (two 255-byte table names), a digest of the exact names is added and each
/// name is cut short.
fn checkpoint_file(path: &std::path::Path, table: &str, dest: &str) -> PathBuf {
    if !path.is_dir() {
        return path.to_path_buf();
    }
    let clean = |s: &str| {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect::<String>()
    };
    let (a, b) = (clean(table), clean(dest));
    let plain = format!("copy-{a}-to-{b}.json");
    let lossless = a == table && b == dest;
    if lossless && plain.len() <= 200 {
        return path.join(plain);
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{table}\0{dest}").as_bytes());
    let hex: String = digest[..8].iter().map(|x| format!("{x:02x}")).collect();
    let cut = |s: &str| s.chars().take(80).collect::<String>();
    path.join(format!("copy-{}-to-{}-{hex}.json", cut(&a), cut(&b)))
}

/// Creates the destination table from the source's descriptor (families chosen and renamed
/// by --families) and split points, or checks an existing one has the same families.
fn prepare_destination(
    dst: &mut Connection,
    args: &CopyArgs,
    plan: &Plan,
    source: &TableDesc,
    resuming: bool,
) -> Result<(), String> {
    let name = &plan.dest_table;
    let wanted = plan.dest_desc(source);
    let exists = dst
        .call(|c| c.table_exists(super::descriptor::table_name(name)))
        .map_err(|e| format!("destination: {e}"))?;
    if !exists {
        if args.no_create {
            return Err(format!(
                "the destination table {name} does not exist on {} (--no-create writes into \
                 an existing table)",
                dst.addr
            ));
        }
        let d = wanted.to_thrift(name)?;
        let splits = wanted.split_keys()?;
        return dst
            .call(move |c| c.create_table(d, splits))
            .map_err(|e| format!("cannot create the destination table {name}: {e}"));
    }
    let existing = scan::describe(dst, name).map_err(|e| format!("destination {e}"))?;
    let have = TableDesc::from_thrift(&existing, &[]);
    let versions = |t: &TableDesc| -> BTreeMap<String, Option<i32>> {
        t.families
            .iter()
            .map(|f| {
                let n = super::format::unb64("", &f.name).unwrap_or_default();
                (to_string_binary(&n), f.max_versions)
            })
            .collect()
    };
    let (want, got) = (versions(&wanted), versions(&have));
    if args.no_create {
        let missing: Vec<&String> = want.keys().filter(|f| !got.contains_key(*f)).collect();
        if !missing.is_empty() {
            return Err(format!(
                "the destination table {name} on {} has no column family {}",
                dst.addr,
                missing
                    .iter()
                    .map(|f| format!("{f:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        return Ok(());
    }
    if want != got {
        let show = |m: &BTreeMap<String, Option<i32>>| {
            m.iter()
                .map(|(f, v)| format!("{f} (VERSIONS {})", v.map_or("-".into(), |v| v.to_string())))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(format!(
            "the destination table {name} already exists on {} with other families: {} there, \
             {} expected; give --no-create to copy into it anyway, or --new-name another table",
            dst.addr,
            show(&got),
            show(&want)
        ));
    }
    if !resuming {
        eprintln!(
            "note: the destination table {name} already exists with the same families; \
             copying into it"
        );
    }
    Ok(())
}

impl Plan {
    /// The source's descriptor as the destination gets it: only the copied families, renamed.
    fn dest_desc(&self, source: &TableDesc) -> TableDesc {
        let mut d = source.clone();
        if !self.source.families.is_empty() {
            d.families = self
                .source
                .families
                .iter()
                .zip(&self.dest.families)
                .filter_map(|(s, t)| {
                    let mut f = source
                        .families
                        .iter()
                        .find(|f| super::format::unb64("", &f.name).ok().as_ref() == Some(s))?
                        .clone();
                    f.name = b64(t);
                    Some(f)
                })
                .collect();
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::{checkpoint_file, clip, parse_families, row_key};

    #[test]
    fn checkpoint_files_are_apart_and_short_enough_for_any_table_names() {
        let dir = tempfile::tempdir().unwrap();
        let name = |t: &str, d: &str| {
            let p = checkpoint_file(dir.path(), t, d);
            p.file_name().unwrap().to_str().unwrap().to_string()
        };
        assert_eq!(name("logs", "logs-copy"), "copy-logs-to-logs-copy.json");
        // a namespace's colon and an underscore no longer meet in one file
        assert_ne!(name("ns:t", "x"), name("ns_t", "x"));
        let long_a = "a".repeat(255);
        let long_b = format!("ns:{}", "b".repeat(250));
        let long = name(&long_a, &long_b);
        assert!(long.len() <= 255, "{} bytes", long.len());
        assert_ne!(long, name(&long_a, &format!("ns:{}c", "b".repeat(249))));
        std::fs::write(dir.path().join(&long), b"{}").unwrap();
        // a file path is used as it is
        let file = dir.path().join("mine.json");
        assert_eq!(checkpoint_file(&file, "a", "b"), file);
    }

    #[test]
    fn regions_are_cut_to_the_row_range() {
        let splits = vec![b"1".to_vec(), b"2".to_vec(), b"3".to_vec()];
        let all = clip(&splits, b"", b"");
        assert_eq!(all.len(), 4);
        assert_eq!(all[0], (b"".to_vec(), b"1".to_vec()));
        assert_eq!(all[3], (b"3".to_vec(), b"".to_vec()));
        let part = clip(&splits, b"15", b"25");
        assert_eq!(
            part,
            vec![
                (b"15".to_vec(), b"2".to_vec()),
                (b"2".to_vec(), b"25".to_vec())
            ]
        );
        assert_eq!(clip(&[], b"a", b"b"), vec![(b"a".to_vec(), b"b".to_vec())]);
        assert_eq!(clip(&splits, b"2", b"").len(), 2);
    }

    #[test]
    fn row_keys_take_hex_escapes_and_families_take_renames() {
        assert_eq!(
            row_key("--start-row", Some("a\\x00\\xFFb")).unwrap(),
            b"a\x00\xffb"
        );
        assert_eq!(row_key("--start-row", None).unwrap(), b"");
        assert!(row_key("--stop-row", Some("\\x4")).is_err());
        let pairs = parse_families(&["a".into(), "b:c".into()]).unwrap();
        assert_eq!(pairs[1], (b"b".to_vec(), b"c".to_vec()));
        assert!(parse_families(&[":c".into()]).is_err());
        assert!(parse_families(&["a".into(), "a:b".into()]).is_err());
    }
}
