//! `redbase copy --verify`: for each source region's row range, the rows and a SHA-256 of every
//! cell (row, family as the destination names it, qualifier, timestamp, value) read with the
//! copy's own selection from both sides, compared region by region. Each row's cells are
//! sorted before hashing, since renamed families can sort differently on the two sides.
//! Memory holds one scanner batch and one row per side.

use sha2::{Digest, Sha256};

use super::client::Connection;
use super::copy_region::Plan;
use super::progress;
use super::scan::{self, Selection};
use super::workers::{self, Stop};
use crate::cli::shell::format::to_string_binary;

/// One side of one region.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    rows: u64,
    cells: u64,
    hash: [u8; 32],
}

/// Compares every range; prints a line per region and `Ok(false)` when any differs.
pub fn run(
    plan: &Plan,
    ranges: &[(Vec<u8>, Vec<u8>)],
    parallel: usize,
    quiet: bool,
) -> Result<bool, String> {
    let bar = progress::regions_bar(quiet, ranges.len());
    let stop = Stop::default();
    let results = workers::run(
        ranges.to_vec(),
        parallel,
        &stop,
        || Ok(()),
        |(), (start, end)| {
            // Connections per region: one side waits while the other is read, and a long
            // region would let the server close an idle connection kept across regions.
            let mut src = plan.connect_source()?;
            let s = summarize(
                &mut src,
                &plan.source_table,
                &plan.source,
                Some(plan),
                &start,
                &end,
            )
            .map_err(|e| format!("verifying the source: {e}"))?;
            drop(src);
            let mut dst = plan.connect_dest()?;
            let d = summarize(&mut dst, &plan.dest_table, &plan.dest, None, &start, &end)
                .map_err(|e| format!("verifying the destination: {e}"))?;
            bar.inc(progress::PER_REGION);
            Ok((s, d))
        },
        |_| Ok(()),
    );
    bar.finish_and_clear();
    let results = results?;
    println!(
        "verify {} ({}) against {} ({}):",
        plan.source_table, plan.from.addr, plan.dest_table, plan.to.addr
    );
    println!(
        "  {:<24} {:>10} {:>10} {:>12} {:>12}  result",
        "region start", "src rows", "dst rows", "src sha256", "dst sha256"
    );
    let mut bad = Vec::new();
    for ((start, _), (s, d)) in ranges.iter().zip(&results) {
        let same = s == d;
        let name = format!("\"{}\"", to_string_binary(start));
        println!(
            "  {:<24} {:>10} {:>10} {:>12} {:>12}  {}",
            name,
            s.rows,
            d.rows,
            hex(&s.hash[..6]),
            hex(&d.hash[..6]),
            if same { "ok" } else { "MISMATCH" }
        );
        if !same {
            bad.push(name);
        }
    }
    let rows: u64 = results.iter().map(|(s, _)| s.rows).sum();
    let cells: u64 = results.iter().map(|(s, _)| s.cells).sum();
    if bad.is_empty() {
        println!(
            "verified: {} region(s), {rows} rows, {cells} cells equal on both sides",
            results.len()
        );
        Ok(true)
    } else {
        eprintln!(
            "redbase copy: verification failed: {} of {} region(s) differ (region start {})",
            bad.len(),
            results.len(),
            bad.join(", ")
        );
        Ok(false)
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// One cell as hashed: (family, qualifier, timestamp, value), the family as the destination
/// names it (`renames`: the plan whose --families renames apply, on the source side).
type Cell = (Vec<u8>, Vec<u8>, i64, Vec<u8>);

fn summarize(
    conn: &mut Connection,
    table: &str,
    selection: &Selection,
    renames: Option<&Plan>,
    start: &[u8],
    end: &[u8],
) -> Result<Summary, String> {
    let mut hasher = Sha256::new();
    let (mut rows, mut cells) = (0u64, 0u64);
    let mut row: Option<Vec<u8>> = None;
    let mut pending: Vec<Cell> = Vec::new();
    let flush = |hasher: &mut Sha256, row: &[u8], cells: &mut Vec<Cell>| {
        cells.sort_by(|a, b| (&a.0, &a.1, b.2).cmp(&(&b.0, &b.1, a.2)));
        put(hasher, row);
        hasher.update((cells.len() as u64).to_be_bytes());
        for (f, q, ts, v) in cells.drain(..) {
            put(hasher, &f);
            put(hasher, &q);
            hasher.update(ts.to_be_bytes());
            put(hasher, &v);
        }
    };
    scan::for_each_result(conn, table, selection.scan(start, end), |r| {
        let key = r.row.unwrap_or_default();
        if row.as_deref() != Some(&key[..]) {
            if let Some(prev) = row.take() {
                flush(&mut hasher, &prev, &mut pending);
            }
            rows += 1;
            row = Some(key);
        }
        for c in r.column_values {
            cells += 1;
            let family = match renames {
                Some(plan) => plan.dest_family(&c.family).to_vec(),
                None => c.family,
            };
            pending.push((family, c.qualifier, c.timestamp.unwrap_or(0), c.value));
        }
        Ok(())
    })?;
    if let Some(prev) = row.take() {
        flush(&mut hasher, &prev, &mut pending);
    }
    Ok(Summary {
        rows,
        cells,
        hash: hasher.finalize().into(),
    })
}

/// A length-prefixed field, so no two different cells hash the same bytes.
fn put(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_be_bytes());
    hasher.update(bytes);
}
