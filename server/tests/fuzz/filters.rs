//! The filter-string parser (`filter::parse_bytes`) and the serialized filters of Thrift2
//! `filterBytes` (`filter::proto::from_bytes`): any bytes give a filter or an error, never a
//! panic or a hang. (filter_fuzz.rs fuzzes the filter language's grammar in depth; this starts
//! from real filters and raw bytes.) A filter that decodes runs over a real table without
//! panicking.

use proptest::prelude::*;
use redbase::engine::{Engine, ReadOptions, Scan};
use redbase::filter::{self, proto};

use super::corpus;
use super::runner::{check, note};

/// Filter strings of every shape the language has.
const STRINGS: &[&str] = &[
    "PrefixFilter('r')",
    "KeyOnlyFilter()",
    "FirstKeyOnlyFilter()",
    "ColumnPrefixFilter('q')",
    "MultipleColumnPrefixFilter('a', 'q')",
    "ColumnCountGetFilter(2)",
    "PageFilter(3)",
    "ColumnPaginationFilter(2, 1)",
    "InclusiveStopFilter('s')",
    "TimestampsFilter(5, 10)",
    "RowFilter(<=, 'binary:s')",
    "FamilyFilter(=, 'binaryprefix:f')",
    "QualifierFilter(!=, 'regexstring:^q.*')",
    "ValueFilter(=, 'substring:v')",
    "DependentColumnFilter('f', 'q', true, =, 'binary:v')",
    "SingleColumnValueFilter('f', 'q', >=, 'binary:a', true, false)",
    "SingleColumnValueExcludeFilter('f', 'q', =, 'regexstringnocase:V')",
    "ColumnRangeFilter('a', true, 'z', false)",
    "PrefixFilter('r') AND (ValueFilter(=, 'binary:v') OR SKIP QualifierFilter(>, 'binary:a'))",
    "WHILE RowFilter(<, 'binary:z') AND PageFilter(10)",
    "(((KeyOnlyFilter())))",
];

fn table() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), Default::default()).unwrap();
    super::decode::seed_table(&e);
    (dir, e)
}

/// Scans the whole table with `f`: rows or errors, no panic.
fn run(e: &Engine, f: Box<dyn redbase::engine::Filter>) {
    if let Ok(scanner) = e.scan(
        "t",
        Scan {
            options: ReadOptions::default().filter(f),
            ..Scan::new()
        },
    ) {
        for r in scanner.take(100) {
            let _ = r;
        }
    }
}

#[test]
fn filter_strings_arbitrary_and_mutated() {
    let (_d, e) = table();
    let seeds: Vec<&[u8]> = STRINGS.iter().map(|s| s.as_bytes()).collect();
    for s in STRINGS {
        let f = filter::parse_bytes(s.as_bytes()).unwrap_or_else(|err| panic!("{s}: {err}"));
        run(&e, f);
    }
    check(
        "filter_strings_arbitrary_and_mutated",
        2_000,
        prop_oneof![
            3 => corpus::mutations().prop_map(Ok),
            1 => prop::collection::vec(any::<u8>(), 0..200).prop_map(Err),
        ],
        |input| {
            let s = match input {
                Ok((i, muts)) => corpus::apply(seeds[i % seeds.len()], &muts, &seeds),
                Err(bytes) => bytes,
            };
            note("filter string", &s);
            match filter::parse_bytes(&s) {
                Ok(f) => run(&e, f),
                Err(err) => prop_assert!(!err.to_string().is_empty()),
            }
            Ok(())
        },
    );
}

/// The serialized filters HBase 2.6.1's own classes wrote (tests/oracle/filterbytes).
fn serialized_seeds() -> Vec<Vec<u8>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/oracle/filterbytes/filters.tsv"
    );
    let text = std::fs::read_to_string(path).expect("tests/oracle/filterbytes/filters.tsv");
    text.lines()
        .filter_map(|l| l.split('\t').nth(1))
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(corpus::unhex)
        .collect()
}

#[test]
fn filter_bytes_arbitrary_and_mutated() {
    let (_d, e) = table();
    let seeds = serialized_seeds();
    assert!(seeds.len() > 20, "{} serialized filters", seeds.len());
    let refs: Vec<&[u8]> = seeds.iter().map(Vec::as_slice).collect();
    let mut decoded = 0;
    for s in &seeds {
        if let Ok(f) = proto::from_bytes(s) {
            decoded += 1;
            run(&e, f);
        }
    }
    assert!(decoded * 2 > seeds.len(), "most seeds decode ({decoded})");
    check(
        "filter_bytes_arbitrary_and_mutated",
        3_000,
        prop_oneof![
            4 => corpus::mutations().prop_map(Ok),
            1 => prop::collection::vec(any::<u8>(), 0..200).prop_map(Err),
        ],
        |input| {
            let b = match input {
                Ok((i, muts)) => corpus::apply(refs[i % refs.len()], &muts, &refs),
                Err(bytes) => bytes,
            };
            note("filterBytes", &b);
            match proto::from_bytes(&b) {
                Ok(f) => run(&e, f),
                Err(err) => {
                    prop_assert!(!err.to_string().is_empty());
                    let _ = err.can_retry();
                }
            }
            Ok(())
        },
    );
}
