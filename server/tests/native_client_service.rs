//! ClientService's conditional and atomic writes and its scans' ends, byte by byte on a real
//! server: check-and-mutate with every compare operator, HBase's comparators (reduced to their
//! value), NO_OP, a time range and a filter, in `Mutate` and in `Multi` (conditional region
//! actions, old-style request conditions, atomic batches mixing increments and appends with
//! their merged results); a scan whose filter is done ends the whole scan, and scan metrics
//! come back when asked for.

mod native_support;

use bytes::Bytes;
use native_support::*;
use prost::Message;
use redbase::native::pb;

const PACKAGE: &str = "org.apache.hadoop.hbase.filter.";

fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

fn comparator(class: &str, body: impl Message) -> pb::hbase::Comparator {
    pb::hbase::Comparator {
        name: Some(format!("{PACKAGE}{class}")),
        serialized_comparator: Some(body.encode_to_vec().into()),
    }
}

fn binary(class: &str, value: &str) -> pb::hbase::Comparator {
    comparator(
        class,
        pb::hbase::BinaryComparator {
            comparable: Some(pb::hbase::ByteArrayComparable {
                value: Some(b(value)),
            }),
        },
    )
}

fn filter(class: &str, body: impl Message) -> pb::hbase::Filter {
    pb::hbase::Filter {
        name: Some(format!("{PACKAGE}{class}")),
        serialized_filter: Some(body.encode_to_vec().into()),
    }
}

fn value_equals(family: &str, qualifier: &str, value: &str) -> pb::hbase::Filter {
    filter(
        "SingleColumnValueFilter",
        pb::hbase::SingleColumnValueFilter {
            column_family: Some(b(family)),
            column_qualifier: Some(b(qualifier)),
            compare_op: Some(pb::hbase::CompareType::Equal as i32),
            comparator: Some(binary("BinaryComparator", value)),
            filter_if_missing: Some(true),
            latest_version_only: Some(true),
        },
    )
}

fn condition(row: &str, op: pb::hbase::CompareType, cmp: pb::hbase::Comparator) -> pb::Condition {
    pb::Condition {
        row: b(row),
        family: Some(b("f")),
        qualifier: Some(b("q")),
        compare_type: Some(op as i32),
        comparator: Some(cmp),
        ..Default::default()
    }
}

fn put_column(row: &str, qualifier: &str, value: &str, ts: Option<u64>) -> pb::MutationProto {
    pb::MutationProto {
        row: Some(b(row)),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: b("f"),
            qualifier_value: vec![pb::mutation_proto::column_value::QualifierValue {
                qualifier: Some(b(qualifier)),
                value: Some(b(value)),
                timestamp: ts,
                ..Default::default()
            }],
        }],
        ..Default::default()
    }
}

fn increment(row: &str, qualifier: &str, by: i64) -> pb::MutationProto {
    let mut m = pb::MutationProto {
        mutate_type: Some(pb::mutation_proto::MutationType::Increment as i32),
        ..put_column(row, qualifier, "", None)
    };
    m.column_value[0].qualifier_value[0].value = Some(by.to_be_bytes().to_vec().into());
    m
}

fn append(row: &str, qualifier: &str, suffix: &str) -> pb::MutationProto {
    pb::MutationProto {
        mutate_type: Some(pb::mutation_proto::MutationType::Append as i32),
        ..put_column(row, qualifier, suffix, None)
    }
}

/// The newest f:`qualifier` in `row`, read with a get.
fn newest(c: &mut Conn, region_name: &Bytes, row: &str, qualifier: &str) -> Option<pb::Cell> {
    let get = pb::GetRequest {
        region: region(region_name.clone()),
        get: pb::Get {
            row: b(row),
            column: vec![pb::Column {
                family: b("f"),
                qualifier: vec![b(qualifier)],
            }],
            ..Default::default()
        },
    };
    let got: pb::GetResponse = c.call("Get", &get);
    got.result.unwrap().cell.into_iter().next()
}

/// The newest value of f:`qualifier` in `row`.
fn value(c: &mut Conn, region_name: &Bytes, row: &str, qualifier: &str) -> Option<Bytes> {
    newest(c, region_name, row, qualifier).and_then(|c| c.value)
}

fn checked(c: &mut Conn, rn: &Bytes, cond: pb::Condition, m: pb::MutationProto) -> bool {
    let req = pb::MutateRequest {
        region: region(rn.clone()),
        mutation: m,
        condition: Some(cond),
        ..Default::default()
    };
    let resp: pb::MutateResponse = c.call("Mutate", &req);
    resp.processed
        .expect("a conditional mutate says whether it ran")
}

#[test]
fn check_and_mutate_compares_as_hbase_does() {
    use pb::hbase::CompareType as T;
    let server = Server::start(1 << 20);
    create_table(server.addr, "t");
    let mut c = Conn::open(server.addr, "ClientService", false);
    let rn = locate(&mut c, "t", "apple");
    for (ts, v) in [(100, "b"), (200, "d")] {
        let req = pb::MutateRequest {
            region: region(rn.clone()),
            mutation: put_column("apple", "q", v, Some(ts)),
            ..Default::default()
        };
        let _: pb::MutateResponse = c.call("Mutate", &req);
    }
    let marker = || put_column("apple", "x", "ran", None);
    // The given value compared with the stored newest one ("d"): given `op` stored.
    for (op, given, passes) in [
        (T::Less, "c", true),
        (T::Less, "d", false),
        (T::LessOrEqual, "d", true),
        (T::Equal, "d", true),
        (T::Equal, "b", false),
        (T::NotEqual, "b", true),
        (T::GreaterOrEqual, "d", true),
        (T::Greater, "e", true),
        (T::Greater, "d", false),
    ] {
        let cond = condition("apple", op, binary("BinaryComparator", given));
        assert_eq!(
            checked(&mut c, &rn, cond, marker()),
            passes,
            "{op:?} {given}"
        );
    }
    // Other comparators stand for their value, compared whole as bytes (HBase's
    // ProtobufUtil.toCheckAndMutate): a prefix "d" equals "d", a prefix "dd" does not; a
    // substring is lower-cased first; a regex is its pattern's text.
    let cases = [
        (binary("BinaryPrefixComparator", "d"), true),
        (binary("BinaryPrefixComparator", ""), false),
        (
            comparator(
                "SubstringComparator",
                pb::hbase::SubstringComparator {
                    substr: Some("D".into()),
                },
            ),
            true,
        ),
        (
            comparator(
                "RegexStringComparator",
                pb::hbase::RegexStringComparator {
                    pattern: Some("d.*".into()),
                    pattern_flags: Some(0),
                    charset: Some("UTF-8".into()),
                    engine: None,
                },
            ),
            false,
        ),
    ];
    for (cmp, passes) in cases {
        let name = cmp.name.clone();
        let cond = condition("apple", T::Equal, cmp);
        assert_eq!(checked(&mut c, &rn, cond, marker()), passes, "{name:?}");
    }
    // "Not exists": an empty value or a NullComparator passes on an absent column only;
    // NOT_EQUAL with an empty value asks for a present, non-empty one.
    let null = || comparator("NullComparator", pb::hbase::NullComparator {});
    let absent = |op| pb::Condition {
        qualifier: Some(b("nothing")),
        ..condition("apple", op, null())
    };
    assert!(checked(&mut c, &rn, absent(T::Equal), marker()));
    assert!(!checked(
        &mut c,
        &rn,
        condition("apple", T::Equal, null()),
        marker()
    ));
    assert!(checked(
        &mut c,
        &rn,
        condition("apple", T::NotEqual, null()),
        marker()
    ));
    assert!(!checked(&mut c, &rn, absent(T::NotEqual), marker()));
    // NO_OP answers the empty-value forms; with a value and a stored cell it cannot compare.
    assert!(checked(&mut c, &rn, absent(T::NoOp), marker()));
    let req = pb::MutateRequest {
        region: region(rn.clone()),
        mutation: marker(),
        condition: Some(condition("apple", T::NoOp, binary("BinaryComparator", "d"))),
        ..Default::default()
    };
    let r = c.call_raw("Mutate", &req.encode_to_vec(), &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    // A time range: the newest version inside it is compared ("b" at 100 within [0, 150)).
    let in_range = |from, to, given| pb::Condition {
        time_range: Some(pb::TimeRange {
            from: Some(from),
            to: Some(to),
        }),
        ..condition("apple", T::Equal, binary("BinaryComparator", given))
    };
    assert!(checked(&mut c, &rn, in_range(0, 150, "b"), marker()));
    assert!(!checked(&mut c, &rn, in_range(0, 150, "d"), marker()));
    assert!(checked(&mut c, &rn, in_range(150, 300, "d"), marker()));
    // Nothing in the range: the column counts as absent.
    let empty_range = pb::Condition {
        qualifier: Some(b("q")),
        ..in_range(300, 400, "")
    };
    assert!(checked(&mut c, &rn, empty_range, marker()));

    // A filter: the row read with it must keep a cell.
    let with_filter = |f: pb::hbase::Filter, tr: Option<pb::TimeRange>| pb::Condition {
        row: b("apple"),
        filter: Some(f),
        time_range: tr,
        ..Default::default()
    };
    let m = put_column("apple", "y", "by-filter", None);
    assert!(checked(
        &mut c,
        &rn,
        with_filter(value_equals("f", "q", "d"), None),
        m
    ));
    assert_eq!(
        value(&mut c, &rn, "apple", "y").as_deref(),
        Some(&b"by-filter"[..])
    );
    let m = put_column("apple", "y", "not-this", None);
    assert!(!checked(
        &mut c,
        &rn,
        with_filter(value_equals("f", "q", "b"), None),
        m
    ));
    let old = Some(pb::TimeRange {
        from: Some(0),
        to: Some(150),
    });
    let m = put_column("apple", "z", "old", None);
    assert!(checked(
        &mut c,
        &rn,
        with_filter(value_equals("f", "q", "b"), old),
        m
    ));
    assert_eq!(
        value(&mut c, &rn, "apple", "y").as_deref(),
        Some(&b"by-filter"[..])
    );
    assert_eq!(
        value(&mut c, &rn, "apple", "z").as_deref(),
        Some(&b"old"[..])
    );

    // An increment behind a condition answers its new value; a failed check writes nothing.
    let req = pb::MutateRequest {
        region: region(rn.clone()),
        mutation: increment("apple", "n", 5),
        condition: Some(condition(
            "apple",
            T::Equal,
            binary("BinaryComparator", "d"),
        )),
        ..Default::default()
    };
    let resp: pb::MutateResponse = c.call("Mutate", &req);
    assert_eq!(resp.processed, Some(true));
    let cells = resp.result.unwrap().cell;
    assert_eq!(cells[0].value.as_deref(), Some(&5i64.to_be_bytes()[..]));
    let req = pb::MutateRequest {
        condition: Some(condition(
            "apple",
            T::Equal,
            binary("BinaryComparator", "x"),
        )),
        ..req
    };
    let resp: pb::MutateResponse = c.call("Mutate", &req);
    assert_eq!(resp.processed, Some(false));
    assert!(resp.result.is_none_or(|r| r.cell.is_empty()));
    assert_eq!(
        value(&mut c, &rn, "apple", "n").as_deref(),
        Some(&5i64.to_be_bytes()[..])
    );
}

/// The timestamp of the newest f:`qualifier` in `row`.
fn newest_ts(c: &mut Conn, region_name: &Bytes, row: &str, qualifier: &str) -> Option<u64> {
    newest(c, region_name, row, qualifier).and_then(|c| c.timestamp)
}

/// A checked put without a timestamp, its condition met by a cell in the future (a clock that
/// went back, or a client's own timestamps), is written at that cell's time, not now, so a
/// read sees it and not the cell it replaced (HBase's checkAndMutate, HBASE-14054); with a
/// filter condition, at the time of the filtered row's first cell.
#[test]
fn a_checked_put_is_not_hidden_behind_a_future_checked_cell() {
    use pb::hbase::CompareType as T;
    let server = Server::start(1 << 20);
    create_table(server.addr, "t");
    let mut c = Conn::open(server.addr, "ClientService", false);
    let rn = locate(&mut c, "t", "future"); // both rows below the split at "m"
    let future = 4_102_444_800_000u64; // 2100-01-01
    for q in ["q", "p"] {
        let req = pb::MutateRequest {
            region: region(rn.clone()),
            mutation: put_column("future", q, "old", Some(future)),
            ..Default::default()
        };
        let _: pb::MutateResponse = c.call("Mutate", &req);
    }
    let cond = condition("future", T::Equal, binary("BinaryComparator", "old"));
    assert!(checked(
        &mut c,
        &rn,
        cond,
        put_column("future", "q", "new", None)
    ));
    assert_eq!(
        value(&mut c, &rn, "future", "q").as_deref(),
        Some(&b"new"[..])
    );
    assert_eq!(newest_ts(&mut c, &rn, "future", "q"), Some(future));

    let by_filter = pb::Condition {
        row: b("future"),
        filter: Some(value_equals("f", "p", "old")),
        ..Default::default()
    };
    assert!(checked(
        &mut c,
        &rn,
        by_filter,
        put_column("future", "p", "new", None)
    ));
    assert_eq!(
        value(&mut c, &rn, "future", "p").as_deref(),
        Some(&b"new"[..])
    );
    assert_eq!(newest_ts(&mut c, &rn, "future", "p"), Some(future));

    // A condition on a cell of the past changes nothing: the put lands at now.
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let req = pb::MutateRequest {
        region: region(rn.clone()),
        mutation: put_column("earlier", "q", "old", Some(100)),
        ..Default::default()
    };
    let _: pb::MutateResponse = c.call("Mutate", &req);
    let cond = condition("earlier", T::Equal, binary("BinaryComparator", "old"));
    assert!(checked(
        &mut c,
        &rn,
        cond,
        put_column("earlier", "q", "new", None)
    ));
    let ts = newest_ts(&mut c, &rn, "earlier", "q").unwrap();
    assert!(ts >= before && ts < future, "{ts}");
}

fn action(i: u32, m: pb::MutationProto) -> pb::Action {
    pb::Action {
        index: Some(i),
        mutation: Some(m),
        ..Default::default()
    }
}

#[test]
fn conditional_and_atomic_batches_answer_merged_results() {
    use pb::hbase::CompareType as T;
    let server = Server::start(1 << 20);
    create_table(server.addr, "t");
    let mut c = Conn::open(server.addr, "ClientService", false);
    let low = locate(&mut c, "t", "a");
    let high = locate(&mut c, "t", "z");
    let seed = pb::MutateRequest {
        region: region(low.clone()),
        mutation: put_column("key", "q", "v1", None),
        ..Default::default()
    };
    let _: pb::MutateResponse = c.call("Mutate", &seed);

    // Two conditional region actions (checkAndMutate(List) sends one per check): the first
    // passes with a put, an increment and an append; the second fails.
    let ok = pb::RegionAction {
        region: region(low.clone()),
        atomic: Some(true),
        action: vec![
            action(0, put_column("key", "p", "put", None)),
            action(1, increment("key", "n", 7)),
            action(2, append("key", "s", "ab")),
        ],
        condition: Some(condition("key", T::Equal, binary("BinaryComparator", "v1"))),
    };
    let failed = pb::RegionAction {
        region: region(high.clone()),
        action: vec![action(0, put_column("zz", "p", "never", None))],
        condition: Some(condition("zz", T::Equal, binary("BinaryComparator", "v1"))),
        ..Default::default()
    };
    let req = pb::MultiRequest {
        region_action: vec![ok, failed],
        ..Default::default()
    };
    let resp: pb::MultiResponse = c.call("Multi", &req);
    let (first, second) = (&resp.region_action_result[0], &resp.region_action_result[1]);
    assert!(first.exception.is_none(), "{:?}", first.exception);
    assert_eq!(first.processed, Some(true));
    assert_eq!(first.result_or_exception.len(), 3);
    let merged = first.result_or_exception[0].result.as_ref().unwrap();
    let got: Vec<_> = merged
        .cell
        .iter()
        .map(|c| (c.qualifier.clone().unwrap(), c.value.clone().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            (b("n"), Bytes::copy_from_slice(&7i64.to_be_bytes())),
            (b("s"), b("ab"))
        ]
    );
    assert_eq!(second.processed, Some(false));
    assert_eq!(second.result_or_exception.len(), 1);
    assert_eq!(
        value(&mut c, &low, "key", "p").as_deref(),
        Some(&b"put"[..])
    );
    assert_eq!(value(&mut c, &high, "zz", "p"), None);

    // An atomic batch (mutateRow) with an append: its result comes first, the others empty.
    let atomic = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(low.clone()),
            atomic: Some(true),
            action: vec![
                action(0, put_column("key", "q", "v2", None)),
                action(1, append("key", "s", "cd")),
            ],
            ..Default::default()
        }],
        ..Default::default()
    };
    let resp: pb::MultiResponse = c.call("Multi", &atomic);
    assert_eq!(resp.processed, Some(true));
    let r = &resp.region_action_result[0];
    assert_eq!(r.processed, Some(true));
    let indexes: Vec<_> = r.result_or_exception.iter().map(|x| x.index).collect();
    assert_eq!(indexes, [Some(0), Some(1)]);
    let first = r.result_or_exception[0].result.as_ref().unwrap();
    assert_eq!(first.cell[0].value.as_deref(), Some(&b"abcd"[..]));
    assert_eq!(value(&mut c, &low, "key", "q").as_deref(), Some(&b"v2"[..]));

    // A mutation of another row inside a conditional action fails the action as a whole.
    let mixed = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(low.clone()),
            action: vec![
                action(0, put_column("key", "p", "x", None)),
                action(1, put_column("another", "p", "x", None)),
            ],
            condition: Some(condition("key", T::Equal, binary("BinaryComparator", "v2"))),
            ..Default::default()
        }],
        ..Default::default()
    };
    let resp: pb::MultiResponse = c.call("Multi", &mixed);
    let e = resp.region_action_result[0].exception.as_ref().unwrap();
    assert_eq!(e.name, "org.apache.hadoop.hbase.DoNotRetryIOException");
    assert_eq!(
        value(&mut c, &low, "key", "p").as_deref(),
        Some(&b"put"[..])
    );

    // Clients before 2.4 sent the condition on the request; the answer's flag says it ran.
    let old_style = pb::MultiRequest {
        region_action: vec![pb::RegionAction {
            region: region(low.clone()),
            atomic: Some(true),
            action: vec![action(0, put_column("key", "p", "old", None))],
            ..Default::default()
        }],
        condition: Some(condition(
            "key",
            T::Equal,
            binary("BinaryComparator", "nope"),
        )),
        ..Default::default()
    };
    let resp: pb::MultiResponse = c.call("Multi", &old_style);
    assert_eq!(resp.processed, Some(false));
    assert_eq!(
        value(&mut c, &low, "key", "p").as_deref(),
        Some(&b"put"[..])
    );
}

fn scan_open(rn: &Bytes, scan: pb::Scan, metrics: bool) -> pb::ScanRequest {
    pb::ScanRequest {
        region: Some(region(rn.clone())),
        scan: Some(scan),
        number_of_rows: Some(100),
        track_scan_metrics: Some(metrics),
        ..Default::default()
    }
}

fn rows(r: &pb::ScanResponse) -> Vec<Bytes> {
    r.results
        .iter()
        .map(|r| r.cell[0].row.clone().unwrap())
        .collect()
}

fn metric(r: &pb::ScanResponse, name: &str) -> i64 {
    r.scan_metrics
        .as_ref()
        .expect("scan metrics")
        .metrics
        .iter()
        .find(|m| m.name.as_deref() == Some(name))
        .and_then(|m| m.value)
        .expect(name)
}

#[test]
fn a_done_filter_ends_the_scan_and_metrics_count_rows() {
    let server = Server::start(1 << 20);
    create_table(server.addr, "t");
    let mut c = Conn::open(server.addr, "ClientService", false);
    let low = locate(&mut c, "t", "a");
    let high = locate(&mut c, "t", "z");
    for (rn, row) in [(&low, "a1"), (&low, "a2"), (&low, "b1"), (&high, "n1")] {
        let req = pb::MutateRequest {
            region: region(rn.clone()),
            mutation: put(row, row),
            ..Default::default()
        };
        let _: pb::MutateResponse = c.call("Mutate", &req);
    }
    let while_a = || pb::Scan {
        filter: Some(filter(
            "WhileMatchFilter",
            pb::hbase::WhileMatchFilter {
                filter: Some(filter(
                    "PrefixFilter",
                    pb::hbase::PrefixFilter {
                        prefix: Some(b("a")),
                    },
                )),
            },
        )),
        ..Default::default()
    };
    // The first region: rows until the filter is done; the region ends, the scan goes on
    // (the round trip had rows).
    let first: pb::ScanResponse = c.call("Scan", &scan_open(&low, while_a(), false));
    assert_eq!(rows(&first), [b("a1"), b("a2")]);
    assert_eq!(first.more_results_in_region, Some(false));
    assert_eq!(first.more_results, Some(true));
    // The next region, with the filter fresh: done at its first row with nothing found, so
    // the whole scan is over (the client opens no further region).
    let next: pb::ScanResponse = c.call("Scan", &scan_open(&high, while_a(), false));
    assert!(next.results.is_empty());
    assert_eq!(next.more_results, Some(false));
    // The same for an InclusiveStopFilter whose stop row lies before the region.
    let stop_early = pb::Scan {
        filter: Some(filter(
            "InclusiveStopFilter",
            pb::hbase::InclusiveStopFilter {
                stop_row_key: Some(b("b0")),
            },
        )),
        ..Default::default()
    };
    let r: pb::ScanResponse = c.call("Scan", &scan_open(&high, stop_early, false));
    assert!(r.results.is_empty());
    assert_eq!(r.more_results, Some(false));
    // Without a filter a region's end is only the region's end.
    let plain: pb::ScanResponse = c.call("Scan", &scan_open(&high, pb::Scan::default(), false));
    assert_eq!(rows(&plain), [b("n1")]);
    assert_eq!(plain.more_results_in_region, Some(false));
    assert_eq!(plain.more_results, Some(true));

    // Scan metrics: every row read, and the ones the filter removed, added up over the calls.
    let only_b1 = pb::Scan {
        filter: Some(value_equals("f", "q", "b1")),
        ..Default::default()
    };
    let mut open = scan_open(&low, only_b1, true);
    open.number_of_rows = Some(1);
    let r: pb::ScanResponse = c.call("Scan", &open);
    let (mut scanned, mut filtered) = (metric(&r, "ROWS_SCANNED"), metric(&r, "ROWS_FILTERED"));
    let mut found = rows(&r);
    let mut seq = 0;
    let mut more = r.more_results_in_region == Some(true);
    while more {
        let next = pb::ScanRequest {
            scanner_id: r.scanner_id,
            number_of_rows: Some(1),
            next_call_seq: Some(seq),
            track_scan_metrics: Some(true),
            ..Default::default()
        };
        seq += 1;
        let n: pb::ScanResponse = c.call("Scan", &next);
        scanned += metric(&n, "ROWS_SCANNED");
        filtered += metric(&n, "ROWS_FILTERED");
        found.extend(rows(&n));
        more = n.more_results_in_region == Some(true);
    }
    assert_eq!(found, [b("b1")]);
    assert_eq!((scanned, filtered), (3, 2));
    // Not asked for: none sent.
    let r: pb::ScanResponse = c.call("Scan", &scan_open(&low, pb::Scan::default(), false));
    assert!(r.scan_metrics.is_none());
}
