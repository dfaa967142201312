//! One-row writes (Thrift2 `put`, `deleteSingle`; Thrift1 `mutateRow`, `mutateRowTs`) await
//! their commit on the connection's task instead of a call thread (`gateway::awaited`): they
//! are counted as such, land as before, durable or not, answer errors exactly as the same write
//! through a call the usual way does (`putMultiple` of one put), and none is lost or doubled
//! while the regions they write split under them.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::acl::{client1, client2, family1, io_error, tget, tscan};
use common::server::TestServer;
use redbase::engine::{Engine, EngineConfig};
use redbase::generated::{hbase1 as h1, hbase2 as h2};
use redbase::server::Config;

use h1::THbaseSyncClient;
use h2::TTHBaseServiceSyncClient;

fn tput(row: &[u8], value: &[u8], durability: Option<h2::TDurability>) -> h2::TPut {
    h2::TPut {
        row: row.to_vec(),
        column_values: vec![h2::TColumnValue {
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            value: value.to_vec(),
            timestamp: None,
            tags: None,
            type_: None,
        }],
        timestamp: None,
        attributes: None,
        durability,
        cell_visibility: None,
    }
}

fn tdelete(row: &[u8]) -> h2::TDelete {
    h2::TDelete {
        row: row.to_vec(),
        columns: None,
        timestamp: None,
        delete_type: None,
        attributes: None,
        durability: None,
        cell_visibility: None,
    }
}

fn value_of(c: &mut common::acl::Client2, row: &[u8]) -> Option<Vec<u8>> {
    let r = c.get(b"t".to_vec(), tget(row)).unwrap();
    r.column_values.first().map(|cv| cv.value.clone())
}

#[test]
fn one_row_writes_await_their_commit_and_land() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let server = TestServer::start_engine(engine.clone(), Config::default());
    let mut c1 = client1(server.thrift1);
    let mut c2 = client2(server.thrift2);
    c1.create_table(b"t".to_vec(), vec![family1("f")]).unwrap();

    let before = engine.awaited_write_count();
    c2.put(b"t".to_vec(), tput(b"durable", b"1", None)).unwrap();
    c2.put(
        b"t".to_vec(),
        tput(b"async", b"2", Some(h2::TDurability::ASYNC_WAL)),
    )
    .unwrap();
    c2.put(
        b"t".to_vec(),
        tput(b"skip", b"3", Some(h2::TDurability::SKIP_WAL)),
    )
    .unwrap();
    let m = |v: &[u8]| h1::Mutation {
        is_delete: Some(false),
        column: Some(b"f:q".to_vec()),
        value: Some(v.to_vec()),
        write_to_w_a_l: Some(true),
    };
    c1.mutate_row(
        b"t".to_vec(),
        b"t1".to_vec(),
        vec![m(b"4")],
        BTreeMap::new(),
    )
    .unwrap();
    c1.mutate_row_ts(
        b"t".to_vec(),
        b"t1ts".to_vec(),
        vec![m(b"5")],
        77,
        BTreeMap::new(),
    )
    .unwrap();
    c2.delete_single(b"t".to_vec(), tdelete(b"skip")).unwrap();
    assert_eq!(
        engine.awaited_write_count() - before,
        6,
        "every one-row write awaited its commit"
    );

    assert_eq!(value_of(&mut c2, b"durable").as_deref(), Some(&b"1"[..]));
    assert_eq!(value_of(&mut c2, b"async").as_deref(), Some(&b"2"[..]));
    assert_eq!(value_of(&mut c2, b"skip"), None, "deleted");
    assert_eq!(value_of(&mut c2, b"t1").as_deref(), Some(&b"4"[..]));
    let r = c2.get(b"t".to_vec(), tget(b"t1ts")).unwrap();
    assert_eq!(r.column_values[0].timestamp, Some(77));

    // A batch goes the usual way (a call thread), and is not counted.
    let before = engine.awaited_write_count();
    c2.put_multiple(
        b"t".to_vec(),
        vec![tput(b"m1", b"x", None), tput(b"m2", b"y", None)],
    )
    .unwrap();
    assert_eq!(engine.awaited_write_count(), before);
    assert_eq!(value_of(&mut c2, b"m2").as_deref(), Some(&b"y"[..]));
}

/// The same bad write through `put` (awaited) and `putMultiple` of one put (the usual way)
/// gets the same message, and nothing is written. (As in HBase, only the batch's TIOError
/// says the call may be retried.)
#[test]
fn refused_writes_answer_as_the_usual_way_does() {
    let server = TestServer::start(Config::default());
    let mut c1 = client1(server.thrift1);
    let mut c2 = client2(server.thrift2);
    c1.create_table(b"t".to_vec(), vec![family1("f")]).unwrap();

    // a table that does not exist
    let one = io_error(c2.put(b"nope".to_vec(), tput(b"r", b"v", None)));
    let many = io_error(c2.put_multiple(b"nope".to_vec(), vec![tput(b"r", b"v", None)]));
    assert_eq!((one.0.as_str(), one.1), (many.0.as_str(), !many.1));
    assert!(one.0.contains("nope"), "{one:?}");

    // a family the table lacks
    let mut bad = tput(b"r", b"v", None);
    bad.column_values[0].family = b"zz".to_vec();
    let one = io_error(c2.put(b"t".to_vec(), bad.clone()));
    let many = io_error(c2.put_multiple(b"t".to_vec(), vec![bad]));
    assert_eq!((one.0.as_str(), one.1), (many.0.as_str(), !many.1));
    assert!(many.1, "a batch's failure may be retried");
    assert!(one.0.contains("zz"), "{one:?}");

    // no columns at all: an application exception either way
    let mut empty = tput(b"r", b"v", None);
    empty.column_values.clear();
    let one = format!("{:?}", c2.put(b"t".to_vec(), empty.clone()).unwrap_err());
    let many = format!(
        "{:?}",
        c2.put_multiple(b"t".to_vec(), vec![empty]).unwrap_err()
    );
    assert_eq!(one, many);
    assert!(one.contains("No columns to insert"), "{one}");

    assert_eq!(value_of(&mut c2, b"r"), None, "nothing was written");
    // the connection still serves calls after the refusals
    c2.put(b"t".to_vec(), tput(b"r", b"ok", None)).unwrap();
    assert_eq!(value_of(&mut c2, b"r").as_deref(), Some(&b"ok"[..]));
}

/// Writers on many connections while their table's regions split again and again: every
/// acknowledged write is there once, whether it was queued before a split retired its region
/// (and sent again to the new one) or after.
#[test]
fn no_write_is_lost_or_doubled_while_regions_split() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(
        dir.path(),
        EngineConfig {
            region_max_size: 32 * 1024,
            ..EngineConfig::default()
        },
    )
    .unwrap();
    let server = Arc::new(TestServer::start_engine(engine.clone(), Config::default()));
    client1(server.thrift1)
        .create_table(b"t".to_vec(), vec![family1("f")])
        .unwrap();
    let writers = 8;
    let per_writer = 400;
    let handles: Vec<_> = (0..writers)
        .map(|w| {
            let addr = server.thrift2;
            std::thread::spawn(move || {
                let mut c = client2(addr);
                for i in 0..per_writer {
                    let row = format!("w{w}-{i:05}");
                    let durability = (i % 2 == 0).then_some(h2::TDurability::ASYNC_WAL);
                    c.put(
                        b"t".to_vec(),
                        tput(row.as_bytes(), &[b'v'; 200], durability),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let regions = engine.regions("t").unwrap().len();
    assert!(regions > 1, "the table split ({regions} regions)");
    assert!(engine.awaited_write_count() > 0);

    let mut c = client2(server.thrift2);
    let scan = h2::TScan {
        max_versions: Some(10),
        ..tscan()
    };
    let id = c.open_scanner(b"t".to_vec(), scan).unwrap();
    let mut rows = Vec::new();
    loop {
        let batch = c.get_scanner_rows(id, 1000).unwrap();
        if batch.is_empty() {
            break;
        }
        for r in batch {
            assert_eq!(r.column_values.len(), 1, "one version of {:?}", r.row);
            rows.push(r.row.unwrap());
        }
    }
    c.close_scanner(id).unwrap();
    let mut expected: Vec<Vec<u8>> = (0..writers)
        .flat_map(|w| (0..per_writer).map(move |i| format!("w{w}-{i:05}").into_bytes()))
        .collect();
    expected.sort();
    assert_eq!(rows.len(), expected.len());
    assert_eq!(rows, expected);
}
