//! The filter language evaluated: every filter run by the real engine against small tables,
//! with versions, batch, limit and reversed scans; early stops are measured with the regions'
//! read counters. The parser's constructs and errors are in filter_parser.rs. The tests are in
//! `filters/`: each filter alone ([`each`]), combined and with scan options ([`combined`]),
//! early stops and regions ([`early_stop`]); the helpers and the fixture are here.

mod common;

use common::*;
use redbase::engine::*;
use redbase::filter;

#[path = "filters/combined.rs"]
mod combined;
#[path = "filters/each.rs"]
mod each;
#[path = "filters/early_stop.rs"]
mod early_stop;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Renders one result: `row[f:q@ts=value ...]`.
fn render(r: &RowResult) -> String {
    let cells: Vec<String> = r
        .to_cells()
        .iter()
        .map(|c| {
            format!(
                "{}:{}@{}={}",
                String::from_utf8_lossy(&c.family),
                String::from_utf8_lossy(&c.qualifier),
                c.timestamp,
                String::from_utf8_lossy(&c.value)
            )
        })
        .collect();
    format!("{}[{}]", String::from_utf8_lossy(r.row()), cells.join(" "))
}

fn run(e: &Engine, scan: Scan) -> Vec<String> {
    e.scan("t", scan)
        .unwrap()
        .map(|r| render(&r.unwrap()))
        .collect()
}

fn with(f: &str) -> Scan {
    let mut s = Scan::new();
    s.options.filter = Some(filter::parse(f).unwrap());
    s
}

fn scan(e: &Engine, f: &str) -> Vec<String> {
    run(e, with(f))
}

fn row_keys(e: &Engine, f: &str) -> Vec<String> {
    scan(e, f)
        .into_iter()
        .map(|r| r[..r.find('[').unwrap()].to_string())
        .collect()
}

fn row_keys_reversed(e: &Engine, f: &str) -> Vec<String> {
    let mut s = with(f);
    s.reversed = true;
    run(e, s)
        .into_iter()
        .map(|r| r[..r.find('[').unwrap()].to_string())
        .collect()
}

fn get(e: &Engine, row: &str, f: &str, versions: u32) -> Option<String> {
    let mut opts = ReadOptions::default().versions(versions);
    opts.filter = Some(filter::parse(f).unwrap());
    e.get("t", Get::with(row.as_bytes(), opts))
        .unwrap()
        .map(|r| render(&r))
}

fn reads(e: &Engine) -> u64 {
    e.regions("t").unwrap().iter().map(|r| r.reads).sum()
}

/// Rows a1 a2 b1 b2 c1 in families f and g (both keep 3 versions).
fn fixture() -> (tempfile::TempDir, Engine) {
    let (d, e) = engine();
    table(
        &e,
        "t",
        vec![
            FamilyDescriptor::new(b"f").max_versions(3),
            FamilyDescriptor::new(b"g").max_versions(3),
        ],
    );
    put(&e, "t", "a1", "f:a", 1, "1");
    put(&e, "t", "a1", "f:b", 1, "2");
    put(&e, "t", "a1", "g:c", 1, "3");
    put(&e, "t", "a2", "f:a", 1, "old");
    put(&e, "t", "a2", "f:a", 2, "new");
    put(&e, "t", "a2", "f:b", 1, "z");
    put(&e, "t", "b1", "f:a", 1, "1");
    put(&e, "t", "b1", "g:d", 5, "hello");
    put(&e, "t", "b2", "g:c", 3, "World");
    put(&e, "t", "c1", "f:x", 1, "abc");
    put(&e, "t", "c1", "f:y", 1, "abd");
    put(&e, "t", "c1", "f:z", 1, "xyz");
    (d, e)
}
