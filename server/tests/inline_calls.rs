//! Short reads run on the connection's task, within the server's cap: point gets through both
//! gateways are counted as inline, other calls (writes, scans) are not, and a cap of 0 sends
//! every call to the blocking pool. Answers are the same either way.

mod common;

use common::acl::{client1, client2, family1, tget, tscan};
use common::server::TestServer;
use redbase::generated::{hbase1 as h1, hbase2 as h2};
use redbase::server::Config;
use redbase::thrift::{InlineCalls, Limits};
use std::collections::BTreeMap;

fn server(cap: usize) -> (TestServer, InlineCalls) {
    let inline = InlineCalls::new(cap);
    let server = TestServer::start(Config {
        limits: Limits {
            inline: inline.clone(),
            ..Limits::default()
        },
        ..Config::default()
    });
    (server, inline)
}

/// Creates table `t`, writes one row through Thrift1 and reads it back `n` times through each
/// gateway; returns the inline count the writes and table creation added, and the total.
fn traffic(server: &TestServer, inline: &InlineCalls, n: u64) -> (u64, u64) {
    use h1::THbaseSyncClient;
    use h2::TTHBaseServiceSyncClient;
    let mut c1 = client1(server.thrift1);
    c1.create_table(b"t".to_vec(), vec![family1("f")]).unwrap();
    let m = h1::Mutation {
        is_delete: Some(false),
        column: Some(b"f:q".to_vec()),
        value: Some(b"v".to_vec()),
        write_to_w_a_l: Some(true),
    };
    c1.mutate_row(b"t".to_vec(), b"r".to_vec(), vec![m], BTreeMap::new())
        .unwrap();
    let after_writes = inline.count();
    let mut c2 = client2(server.thrift2);
    for _ in 0..n {
        let cells = c1
            .get(
                b"t".to_vec(),
                b"r".to_vec(),
                b"f:q".to_vec(),
                BTreeMap::new(),
            )
            .unwrap();
        assert_eq!(cells[0].value.as_deref(), Some(&b"v"[..]));
        let got = c2.get(b"t".to_vec(), tget(b"r")).unwrap();
        assert_eq!(got.column_values[0].value, b"v".to_vec());
    }
    (after_writes, inline.count())
}

#[test]
fn gets_run_inline_and_writes_do_not() {
    let (server, inline) = server(1);
    let (after_writes, total) = traffic(&server, &inline, 50);
    assert_eq!(
        after_writes, 0,
        "createTable and mutateRow go to the call threads"
    );
    assert_eq!(
        total, 100,
        "every get of both gateways ran inline (one at a time)"
    );
}

/// A scan's open, a batch of up to 1,000 rows, and its close run inline; a larger batch
/// goes to the call threads.
#[test]
fn small_scanner_batches_run_inline_and_large_ones_do_not() {
    use h1::THbaseSyncClient;
    let (server, inline) = server(1);
    traffic(&server, &inline, 0);
    let mut c1 = client1(server.thrift1);
    let before = inline.count();
    let id = c1
        .scanner_open_with_stop(
            b"t".to_vec(),
            Vec::new(),
            Vec::new(),
            vec![b"f:q".to_vec()],
            BTreeMap::new(),
        )
        .unwrap();
    assert_eq!(c1.scanner_get_list(id, 1000).unwrap().len(), 1);
    c1.scanner_close(id).unwrap();
    assert_eq!(inline.count() - before, 3);
    let id = c1
        .scanner_open_with_stop(
            b"t".to_vec(),
            Vec::new(),
            Vec::new(),
            vec![b"f:q".to_vec()],
            BTreeMap::new(),
        )
        .unwrap();
    let before = inline.count();
    assert_eq!(c1.scanner_get_list(id, 1001).unwrap().len(), 1);
    assert_eq!(inline.count(), before, "a batch of 1,001 rows is not short");
}

#[test]
fn a_cap_of_zero_runs_nothing_inline() {
    let (server, inline) = server(0);
    let (_, total) = traffic(&server, &inline, 20);
    assert_eq!(total, 0);
}

/// Thrift2's scans alike: opening a scanner (which reads nothing yet), a batch of up to 1,000
/// rows, closing it, and a one-call scan of up to 1,000 rows run inline; more rows do not.
#[test]
fn thrift2_scanner_calls_run_inline_up_to_the_short_batch() {
    use h2::TTHBaseServiceSyncClient;
    let (server, inline) = server(1);
    traffic(&server, &inline, 0);
    let mut c2 = client2(server.thrift2);
    let before = inline.count();
    let id = c2.open_scanner(b"t".to_vec(), tscan()).unwrap();
    assert_eq!(c2.get_scanner_rows(id, 1000).unwrap().len(), 1);
    c2.close_scanner(id).unwrap();
    assert_eq!(inline.count() - before, 3);
    let before = inline.count();
    assert_eq!(
        c2.get_scanner_results(b"t".to_vec(), tscan(), 1000)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(inline.count() - before, 1);
    let before = inline.count();
    assert_eq!(
        c2.get_scanner_results(b"t".to_vec(), tscan(), 1001)
            .unwrap()
            .len(),
        1
    );
    let id = c2.open_scanner(b"t".to_vec(), tscan()).unwrap();
    let opened = inline.count();
    assert_eq!(c2.get_scanner_rows(id, 1001).unwrap().len(), 1);
    assert_eq!(
        (opened - before, inline.count() - opened),
        (1, 0),
        "only the open ran inline: batches of 1,001 rows are not short"
    );
}
