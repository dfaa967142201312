//! Scan heartbeats and cursors through ClientService: a server whose scan time limit is zero
//! reads one row per call, so a call that takes heartbeats answers after every row it reads,
//! flagged `heartbeat_message`, with that row as its cursor when the scan asked for cursors;
//! the rows a filter keeps come once each across the calls (forward, reversed, in batches,
//! with a row limit), and a client that does not take heartbeats gets today's answers.

use std::time::Duration;

use bytes::Bytes;
use prost::Message;
use redbase::native::pb;
use redbase::server::Config;

use crate::native_support::*;

const ROWS: usize = 40;

fn b(s: &str) -> Bytes {
    Bytes::copy_from_slice(s.as_bytes())
}

fn row_name(i: usize) -> String {
    format!("r{i:03}")
}

fn filter(class: &str, body: impl Message) -> pb::hbase::Filter {
    pb::hbase::Filter {
        name: Some(format!("org.apache.hadoop.hbase.filter.{class}")),
        serialized_filter: Some(body.encode_to_vec().into()),
    }
}

/// Rows equal to one of `rows` (none: a filter that keeps no row).
fn only_rows(rows: &[&str]) -> pb::hbase::Filter {
    let row_is = |r: &str| {
        filter(
            "RowFilter",
            pb::hbase::RowFilter {
                compare_filter: Some(pb::hbase::CompareFilter {
                    compare_op: Some(pb::hbase::CompareType::Equal as i32),
                    comparator: Some(pb::hbase::Comparator {
                        name: Some("org.apache.hadoop.hbase.filter.BinaryComparator".into()),
                        serialized_comparator: Some(
                            pb::hbase::BinaryComparator {
                                comparable: Some(pb::hbase::ByteArrayComparable {
                                    value: Some(b(r)),
                                }),
                            }
                            .encode_to_vec()
                            .into(),
                        ),
                    }),
                }),
            },
        )
    };
    let any: Vec<_> = if rows.is_empty() {
        vec![row_is("nothing")]
    } else {
        rows.iter().map(|r| row_is(r)).collect()
    };
    filter(
        "FilterList",
        pb::hbase::FilterList {
            operator: Some(pb::hbase::filter_list::Operator::MustPassOne as i32),
            filters: any,
        },
    )
}

/// A row of three cells (q0, q1, q2), each valued as the row.
fn three_cells(row: &str) -> pb::MutationProto {
    pb::MutationProto {
        row: Some(b(row)),
        mutate_type: Some(pb::mutation_proto::MutationType::Put as i32),
        column_value: vec![pb::mutation_proto::ColumnValue {
            family: b("f"),
            qualifier_value: (0..3)
                .map(|q| pb::mutation_proto::column_value::QualifierValue {
                    qualifier: Some(b(&format!("q{q}"))),
                    value: Some(b(row)),
                    ..Default::default()
                })
                .collect(),
        }],
        ..Default::default()
    }
}

/// What a scan's calls answered, from the open to the region's end.
#[derive(Debug, Default)]
struct Walk {
    /// Each result's row and how many cells it had.
    results: Vec<(Bytes, usize)>,
    heartbeats: usize,
    cursors: Vec<Bytes>,
    calls: usize,
    /// The last answer's `more_results`.
    more_results: Option<bool>,
}

/// Opens `scan` on region `rn` and calls next until the region (or the scan) ends.
fn walk(c: &mut Conn, rn: &Bytes, scan: pb::Scan, heartbeats: bool, limit: u32) -> Walk {
    let flags = |mut r: pb::ScanRequest| {
        r.client_handles_heartbeats = Some(heartbeats);
        r.client_handles_partials = Some(heartbeats);
        r.number_of_rows = Some(100);
        r.limit_of_rows = (limit > 0).then_some(limit);
        r
    };
    let open = flags(pb::ScanRequest {
        region: Some(region(rn.clone())),
        scan: Some(scan),
        ..Default::default()
    });
    let mut r: pb::ScanResponse = c.call("Scan", &open);
    let id = r.scanner_id;
    let mut w = Walk::default();
    let mut seq = 0;
    loop {
        w.calls += 1;
        assert!(w.calls <= 4 * ROWS, "the scan does not end: {w:?}");
        for res in &r.results {
            w.results
                .push((res.cell[0].row.clone().unwrap(), res.cell.len()));
        }
        if r.heartbeat_message == Some(true) {
            w.heartbeats += 1;
            assert_eq!(
                r.more_results_in_region,
                Some(true),
                "a heartbeat: the region goes on"
            );
            assert_eq!(r.more_results, Some(true));
        }
        if let Some(cur) = &r.cursor {
            assert_eq!(
                r.heartbeat_message,
                Some(true),
                "a cursor only in a heartbeat"
            );
            w.cursors.push(cur.row.clone().unwrap());
        }
        w.more_results = r.more_results;
        if r.more_results_in_region != Some(true) || r.more_results == Some(false) {
            break;
        }
        let next = flags(pb::ScanRequest {
            scanner_id: id,
            next_call_seq: Some(seq),
            ..Default::default()
        });
        seq += 1;
        r = c.call("Scan", &next);
    }
    w
}

fn names(range: impl Iterator<Item = usize>) -> Vec<Bytes> {
    range.map(|i| b(&row_name(i))).collect()
}

#[test]
fn a_call_past_its_time_limit_answers_a_heartbeat_and_the_next_goes_on() {
    // No time at all: every call that takes heartbeats stops after its first row.
    let config = Config {
        scan_time: redbase::native::ScanTimeLimit {
            rpc_timeout: Duration::from_nanos(1),
            min: Duration::ZERO,
        },
        ..Config::default()
    };
    let (server, http) = Server::start_with(config, true);
    create_table(server.addr, "t");
    let mut c = Conn::open(server.addr, "ClientService", false);
    let rn = locate(&mut c, "t", "r");
    for i in 0..ROWS {
        let req = pb::MutateRequest {
            region: region(rn.clone()),
            mutation: three_cells(&row_name(i)),
            ..Default::default()
        };
        let _: pb::MutateResponse = c.call("Mutate", &req);
    }
    let scan = |filter: pb::hbase::Filter| pb::Scan {
        filter: Some(filter),
        need_cursor_result: Some(true),
        ..Default::default()
    };

    // A filter that keeps nothing: a heartbeat after each row but the last (whose call
    // finds the region's end), each with that row as its cursor; nothing lost on the way.
    let w = walk(&mut c, &rn, scan(only_rows(&[])), true, 0);
    assert!(w.results.is_empty());
    assert_eq!(w.calls, ROWS);
    assert_eq!(w.heartbeats, ROWS - 1);
    assert_eq!(w.cursors, names(0..ROWS - 1));
    let mut sent = ROWS - 1;

    // Kept rows come once each, in the heartbeat of the call that read them.
    let keep = ["r005", "r006", "r031"];
    let w = walk(&mut c, &rn, scan(only_rows(&keep)), true, 0);
    let rows: Vec<_> = w.results.iter().map(|(r, _)| r.clone()).collect();
    assert_eq!(rows, keep.map(b));
    assert!(w.results.iter().all(|(_, cells)| *cells == 3));
    assert_eq!(w.cursors, names(0..ROWS - 1));
    sent += w.heartbeats;

    // Reversed: the same rows from the other end, cursors counting down.
    let reversed = pb::Scan {
        reversed: Some(true),
        ..scan(only_rows(&keep))
    };
    let w = walk(&mut c, &rn, reversed, true, 0);
    let rows: Vec<_> = w.results.iter().map(|(r, _)| r.clone()).collect();
    assert_eq!(rows, [b("r031"), b("r006"), b("r005")]);
    assert_eq!(w.cursors, names((1..ROWS).rev()));
    sent += w.heartbeats;

    // Batches of two cells: each kept row in two pieces (two cells, then one), both in the
    // call that read the row.
    let batched = pb::Scan {
        batch_size: Some(2),
        allow_partial_results: Some(true),
        ..scan(only_rows(&keep))
    };
    let w = walk(&mut c, &rn, batched, true, 0);
    let pieces: Vec<_> = w
        .results
        .iter()
        .map(|(r, n)| (String::from_utf8_lossy(r).into_owned(), *n))
        .collect();
    let expected: Vec<_> = keep
        .iter()
        .flat_map(|r| [(r.to_string(), 2), (r.to_string(), 1)])
        .collect();
    assert_eq!(pieces, expected);
    sent += w.heartbeats;

    // A row limit of two: the scan ends at the second kept row, with no heartbeat after it.
    let w = walk(&mut c, &rn, scan(only_rows(&keep)), true, 2);
    let rows: Vec<_> = w.results.iter().map(|(r, _)| r.clone()).collect();
    assert_eq!(rows, [b("r005"), b("r006")]);
    assert_eq!(w.more_results, Some(false));
    assert_eq!(
        w.heartbeats, 6,
        "rows r000..r005 in heartbeats, r006 ends the scan"
    );
    sent += w.heartbeats;

    // Without need_cursor_result: heartbeats, no cursors.
    let no_cursor = pb::Scan {
        filter: Some(only_rows(&keep)),
        ..Default::default()
    };
    let w = walk(&mut c, &rn, no_cursor, true, 0);
    assert_eq!(w.heartbeats, ROWS - 1);
    assert!(w.cursors.is_empty());
    assert_eq!(w.results.len(), keep.len());
    sent += w.heartbeats;

    // A client that takes no heartbeats: one call reads the whole region.
    let w = walk(&mut c, &rn, scan(only_rows(&keep)), false, 0);
    assert_eq!((w.calls, w.heartbeats), (1, 0));
    assert_eq!(w.results.len(), keep.len());

    let m = metrics(http.unwrap());
    let line = m
        .lines()
        .find(|l| l.starts_with("redbase_native_scan_heartbeats_total "))
        .expect("the heartbeat counter");
    assert_eq!(line, format!("redbase_native_scan_heartbeats_total {sent}"));
}
