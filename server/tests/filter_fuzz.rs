//! Fuzzing the filter language with proptest: whatever the input, parsing returns a filter or
//! an error (never a panic, never a hang), a parsed filter prints in a canonical form that
//! parses back to the same tree, and parsed filters run against a real table without panicking.
//!
//! `FILTER_FUZZ_CASES` sets the number of cases per property (default 1500); docs/filters.md
//! records a long run.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use redbase::engine::*;
use redbase::filter;
use redbase::filter::build::FILTER_NAMES;

fn cases() -> u32 {
    std::env::var("FILTER_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
}

/// Every fragment: the registered filter names and the pieces below.
fn fragments() -> Vec<&'static str> {
    FILTER_NAMES.iter().chain(FRAGMENTS).copied().collect()
}

/// Pieces of the language (and of broken inputs), glued together at random, besides the
/// filter names themselves (`FILTER_NAMES`).
const FRAGMENTS: &[&str] = &[
    "NoSuchFilter",
    "(",
    "(",
    ")",
    ")",
    "'",
    "''",
    "'a'",
    "'f'",
    "'q'",
    "'r1'",
    " ",
    " ",
    "\t",
    ",",
    ", ",
    " AND ",
    " OR ",
    "SKIP ",
    "WHILE ",
    "AND",
    "OR",
    "=",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "'binary:a'",
    "'binaryprefix:r'",
    "'regexstring:a.*'",
    "'regexstringnocase:^R'",
    "'substring:x'",
    "'regexstring:(a+)+$'",
    "'regexstring:(((a{50}){50}){50})'",
    "'regexstring:['",
    "'bogus:x'",
    "0",
    "1",
    "2",
    "-1",
    "99999999999999999999",
    "true",
    "false",
    "TRUE",
    "x",
    "\n",
    "\u{e9}",
];

fn fragment_soup() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        8 => proptest::sample::select(fragments()).prop_map(|s| s.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 1..4),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

fn quoted() -> impl Strategy<Value = String> {
    "[a-z']{0,3}".prop_map(|s| format!("'{}'", s.replace('\'', "''")))
}

fn comparator() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(
            &[
                "binary",
                "binaryprefix",
                "regexstring",
                "regexstringnocase",
                "substring",
            ][..],
        ),
        "[a-c.*^$]{0,3}",
    )
        .prop_map(|(k, v)| format!("'{k}:{v}'"))
}

fn op() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(&["=", "!=", "<", "<=", ">", ">="][..])
}

/// A well-formed filter call (argument values may still be refused, e.g. < with a regex).
fn call() -> impl Strategy<Value = String> {
    let b = || proptest::sample::select(&["true", "false"][..]);
    prop_oneof![
        Just("KeyOnlyFilter()".to_string()),
        b().prop_map(|b| format!("KeyOnlyFilter({b})")),
        Just("FirstKeyOnlyFilter()".to_string()),
        quoted().prop_map(|q| format!("PrefixFilter({q})")),
        quoted().prop_map(|q| format!("ColumnPrefixFilter({q})")),
        proptest::collection::vec(quoted(), 1..4)
            .prop_map(|v| format!("MultipleColumnPrefixFilter({})", v.join(", "))),
        (0..4i32).prop_map(|n| format!("ColumnCountGetFilter({n})")),
        (0..6i64).prop_map(|n| format!("PageFilter({n})")),
        (0..3i32, 0..3i32).prop_map(|(l, o)| format!("ColumnPaginationFilter({l}, {o})")),
        quoted().prop_map(|q| format!("InclusiveStopFilter({q})")),
        proptest::collection::vec(1..4i64, 0..3).prop_map(|v| format!(
            "TimestampsFilter({})",
            v.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        (
            proptest::sample::select(
                &[
                    "RowFilter",
                    "FamilyFilter",
                    "QualifierFilter",
                    "ValueFilter"
                ][..]
            ),
            op(),
            comparator()
        )
            .prop_map(|(n, o, c)| format!("{n}({o}, {c})")),
        (quoted(), b(), quoted(), b())
            .prop_map(|(a, x, c, y)| format!("ColumnRangeFilter({a}, {x}, {c}, {y})")),
        (
            proptest::sample::select(
                &["SingleColumnValueFilter", "SingleColumnValueExcludeFilter"][..]
            ),
            op(),
            comparator(),
            b(),
            b()
        )
            .prop_map(|(n, o, c, x, y)| format!("{n}('f', 'a', {o}, {c}, {x}, {y})")),
        (b(), op(), comparator())
            .prop_map(|(d, o, c)| format!("DependentColumnFilter('f', 'a', {d}, {o}, {c})")),
        (op(), comparator()).prop_map(|(o, c)| format!("ColumnValueFilter('g', 'b', {o}, {c})")),
    ]
}

/// A well-formed expression over those calls.
fn expr() -> impl Strategy<Value = String> {
    call().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 2..4).prop_map(|v| v.join(" AND ")),
            proptest::collection::vec(inner.clone(), 2..4).prop_map(|v| v.join(" OR ")),
            inner.clone().prop_map(|e| format!("SKIP ({e})")),
            inner.clone().prop_map(|e| format!("WHILE ({e})")),
            inner.prop_map(|e| format!("({e})")),
        ]
    })
}

/// Parses `input`: it must finish quickly, and a tree must print and parse back unchanged.
fn check_parse(input: &[u8]) -> Result<(), TestCaseError> {
    let t = Instant::now();
    let syntax = filter::syntax(input);
    let built = filter::parse_bytes(input);
    prop_assert!(
        t.elapsed() < Duration::from_secs(2),
        "slow: {:?}",
        t.elapsed()
    );
    match syntax {
        Ok(tree) => {
            let printed = tree.to_bytes();
            let again = filter::syntax(&printed);
            prop_assert!(again.is_ok(), "canonical form does not parse: {:?}", again);
            let again = again.unwrap();
            prop_assert_eq!(again.to_bytes(), printed.clone());
            // The canonical form builds exactly when the input does.
            prop_assert_eq!(filter::parse_bytes(&printed).is_ok(), built.is_ok());
        }
        Err(e) => {
            prop_assert!(built.is_err());
            let msg = e.to_string();
            prop_assert!(msg.starts_with("at position "), "{}", msg);
            prop_assert!(e.position() <= input.len());
        }
    }
    Ok(())
}

fn fuzz_table() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new(b"f").max_versions(3))
        .with_family(FamilyDescriptor::new(b"g"));
    e.create_table(d, &[]).unwrap();
    for (i, row) in ["a", "ab", "b", "r1", "r2", "zz"].iter().enumerate() {
        let mut m = RowMutation::new(row.as_bytes());
        for ts in 1..=2 {
            m = m
                .with(Op::put_at(b"f", b"a", ts, format!("v{i}{ts}").as_bytes()))
                .with(Op::put_at(b"f", b"q", ts, b"abc"));
        }
        m = m.with(Op::put_at(b"g", b"b", 1, row.as_bytes()));
        e.mutate_row("t", m).unwrap();
    }
    (dir, e)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_soup_parses_or_errors(input in fragment_soup()) {
        check_parse(&input)?;
    }

    #[test]
    fn any_bytes_parse_or_error(input in proptest::collection::vec(any::<u8>(), 0..64)) {
        check_parse(&input)?;
    }

    #[test]
    fn well_formed_expressions_round_trip_and_run(
        text in expr(),
        reversed in any::<bool>(),
        versions in 1..4u32,
        batch in 0..3usize,
        limit in 0..3usize,
    ) {
        check_parse(text.as_bytes())?;
        let tree = filter::syntax(text.as_bytes());
        prop_assert!(tree.is_ok(), "{}: {:?}", text, tree);
        thread_local! {
            static TABLE: (tempfile::TempDir, Engine) = fuzz_table();
        }
        if let Ok(f) = filter::parse(&text) {
            let mut scan = Scan::new();
            scan.reversed = reversed;
            scan.batch = batch;
            scan.limit = limit;
            scan.options.max_versions = versions;
            scan.options.filter = Some(f);
            let t = Instant::now();
            let results: Vec<_> = TABLE.with(|(_, e)| e.scan("t", scan).unwrap().collect());
            prop_assert!(t.elapsed() < Duration::from_secs(5));
            prop_assert!(results.len() <= 12 * 2 * 3);
            for r in &results {
                if let Err(e) = r {
                    prop_assert!(matches!(e, ReadError::IncompatibleFilter(_)), "{}", e);
                }
            }
            // A get with the same filter also runs.
            let mut opts = ReadOptions::default().versions(versions);
            opts.filter = Some(filter::parse(&text).unwrap());
            let got = TABLE.with(|(_, e)| e.get("t", Get::with(b"r1", opts)));
            prop_assert!(got.is_ok());
        }
    }
}
