//! Serialized filters (Thrift2 `filterBytes`): every filter and comparator encoded with the
//! prost types of server/proto/, decoded, and run by the real engine against the same results
//! as the equivalent filter string; the filters and comparators only this form has on their
//! own semantics; bytes HBase 2.6.1's own classes wrote (tests/oracle/filterbytes) decoded.
//! Hostile bytes through a real server are in bad_input.rs.
//!
//! This file holds the encoding and running helpers; the tests are in filter_bytes/.

mod common;

use common::*;
use prost::Message;
use redbase::engine::*;
use redbase::filter::{self, wire as pb};

// ---------------------------------------------------------------------------------------------
// Encoding helpers
// ---------------------------------------------------------------------------------------------

const P: &str = "org.apache.hadoop.hbase.filter.";

fn f(class: &str, m: impl Message) -> pb::Filter {
    pb::Filter {
        name: Some(format!("{P}{class}")),
        serialized_filter: Some(m.encode_to_vec().into()),
    }
}

fn cmp(class: &str, m: impl Message) -> pb::Comparator {
    pb::Comparator {
        name: Some(format!("{P}{class}")),
        serialized_comparator: Some(m.encode_to_vec().into()),
    }
}

fn comparable(v: &[u8]) -> Option<pb::ByteArrayComparable> {
    Some(pb::ByteArrayComparable {
        value: Some(v.to_vec().into()),
    })
}

fn binary(v: &str) -> pb::Comparator {
    cmp(
        "BinaryComparator",
        pb::BinaryComparator {
            comparable: comparable(v.as_bytes()),
        },
    )
}

fn binary_prefix(v: &str) -> pb::Comparator {
    cmp(
        "BinaryPrefixComparator",
        pb::BinaryPrefixComparator {
            comparable: comparable(v.as_bytes()),
        },
    )
}

fn substring(v: &str) -> pb::Comparator {
    cmp(
        "SubstringComparator",
        pb::SubstringComparator {
            substr: Some(v.into()),
        },
    )
}

fn regex(p: &str, flags: i32) -> pb::Comparator {
    cmp(
        "RegexStringComparator",
        pb::RegexStringComparator {
            pattern: Some(p.into()),
            pattern_flags: Some(flags),
            charset: Some("UTF-8".into()),
            engine: Some("JAVA".into()),
        },
    )
}

fn bit(v: &[u8], op: pb::bit_comparator::BitwiseOp) -> pb::Comparator {
    cmp(
        "BitComparator",
        pb::BitComparator {
            comparable: comparable(v),
            bitwise_op: Some(op as i32),
        },
    )
}

fn long(v: i64) -> pb::Comparator {
    cmp(
        "LongComparator",
        pb::LongComparator {
            comparable: comparable(&v.to_be_bytes()),
        },
    )
}

fn null() -> pb::Comparator {
    cmp("NullComparator", pb::NullComparator {})
}

use pb::CompareType as Ct;

fn compare(op: Ct, c: pb::Comparator) -> Option<pb::CompareFilter> {
    Some(pb::CompareFilter {
        compare_op: Some(op as i32),
        comparator: Some(c),
    })
}

fn row_filter(op: Ct, c: pb::Comparator) -> pb::Filter {
    f(
        "RowFilter",
        pb::RowFilter {
            compare_filter: compare(op, c),
        },
    )
}

fn value_filter(op: Ct, c: pb::Comparator) -> pb::Filter {
    f(
        "ValueFilter",
        pb::ValueFilter {
            compare_filter: compare(op, c),
        },
    )
}

fn list(all: bool, filters: Vec<pb::Filter>) -> pb::Filter {
    let op = if all {
        pb::filter_list::Operator::MustPassAll
    } else {
        pb::filter_list::Operator::MustPassOne
    };
    f(
        "FilterList",
        pb::FilterList {
            operator: Some(op as i32),
            filters,
        },
    )
}

fn prefix(p: &str) -> pb::Filter {
    f(
        "PrefixFilter",
        pb::PrefixFilter {
            prefix: Some(p.as_bytes().to_vec().into()),
        },
    )
}

fn scvf(fam: &str, q: &str, op: Ct, c: pb::Comparator) -> pb::SingleColumnValueFilter {
    pb::SingleColumnValueFilter {
        column_family: Some(fam.as_bytes().to_vec().into()),
        column_qualifier: Some(q.as_bytes().to_vec().into()),
        compare_op: Some(op as i32),
        comparator: Some(c),
        filter_if_missing: Some(false),
        latest_version_only: Some(true),
    }
}

fn range(start: &str, si: bool, stop: &str, so: bool) -> pb::RowRange {
    pb::RowRange {
        start_row: Some(start.as_bytes().to_vec().into()),
        start_row_inclusive: Some(si),
        stop_row: Some(stop.as_bytes().to_vec().into()),
        stop_row_inclusive: Some(so),
    }
}

fn multi_range(ranges: Vec<pb::RowRange>) -> pb::Filter {
    f(
        "MultiRowRangeFilter",
        pb::MultiRowRangeFilter {
            row_range_list: ranges,
        },
    )
}

fn fuzzy(pairs: &[(&[u8], &[u8])], v2: bool) -> pb::Filter {
    f(
        "FuzzyRowFilter",
        pb::FuzzyRowFilter {
            fuzzy_keys_data: pairs
                .iter()
                .map(|(k, m)| pb::BytesBytesPair {
                    first: Some(k.to_vec().into()),
                    second: Some(m.to_vec().into()),
                })
                .collect(),
            is_mask_v2: Some(v2),
        },
    )
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

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

fn decoded(pbf: &pb::Filter) -> Box<dyn Filter> {
    filter::from_serialized(&pbf.encode_to_vec()).unwrap()
}

fn run(e: &Engine, flt: Box<dyn Filter>, reversed: bool, versions: u32) -> Vec<String> {
    let mut s = Scan::new();
    s.reversed = reversed;
    s.options.filter = Some(flt);
    s.options.max_versions = versions;
    e.scan("t", s)
        .unwrap()
        .map(|r| render(&r.unwrap()))
        .collect()
}

fn scan(e: &Engine, pbf: &pb::Filter) -> Vec<String> {
    run(e, decoded(pbf), false, 1)
}

fn scan_rev(e: &Engine, pbf: &pb::Filter) -> Vec<String> {
    run(e, decoded(pbf), true, 1)
}

fn keys(rows: Vec<String>) -> Vec<String> {
    rows.into_iter()
        .map(|r| r[..r.find('[').unwrap()].to_string())
        .collect()
}

/// The serialized filter gives what the filter string gives: scans forward and reversed with
/// one and three versions, and a get of every row.
fn same(e: &Engine, pbf: pb::Filter, s: &str) {
    for reversed in [false, true] {
        for versions in [1, 3] {
            let want = run(e, filter::parse(s).unwrap(), reversed, versions);
            let got = run(e, decoded(&pbf), reversed, versions);
            assert_eq!(got, want, "{s} (reversed {reversed}, versions {versions})");
        }
    }
    for row in ["a1", "a2", "b1", "b2", "c1"] {
        let get = |flt| {
            let mut o = ReadOptions::default().versions(3);
            o.filter = Some(flt);
            e.get("t", Get::with(row.as_bytes(), o))
                .unwrap()
                .map(|r| render(&r))
        };
        assert_eq!(
            get(decoded(&pbf)),
            get(filter::parse(s).unwrap()),
            "{s}, get {row}"
        );
    }
}

/// Rows a1 a2 b1 b2 c1 in families f and g (both keep 3 versions), as filters.rs has them.
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

fn err(pbf: &pb::Filter) -> String {
    match filter::from_serialized(&pbf.encode_to_vec()) {
        Ok(_) => panic!("decoded, expected an error"),
        Err(e) => e.to_string(),
    }
}

#[path = "filter_bytes/hbase_bytes.rs"]
mod hbase_bytes;
#[path = "filter_bytes/only_serialized.rs"]
mod only_serialized;
#[path = "filter_bytes/same_as_strings.rs"]
mod same_as_strings;
#[path = "filter_bytes/sampled_and_numeric.rs"]
mod sampled_and_numeric;
