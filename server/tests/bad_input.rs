//! Bad input gets a typed error, writes nothing, and never panics the engine; damaged files
//! keep their table offline instead of losing data.

mod common;

use common::*;
use proptest::prelude::*;
use redbase::engine::*;

fn setup() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            max_value_size: 1024,
            ..Default::default()
        },
    )
    .unwrap();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    (dir, e)
}

fn put_row(row: &[u8], fam: &[u8], ts: Option<i64>, value: &[u8]) -> RowMutation {
    RowMutation::new(row).with(Op::Put {
        family: fam.to_vec(),
        qualifier: b"q".to_vec(),
        timestamp: ts,
        value: value.to_vec(),
    })
}

fn nothing_written(e: &Engine) {
    assert!(
        e.scan("t", Scan::new()).unwrap().next().is_none(),
        "a rejected write left data behind"
    );
}

#[test]
fn each_bad_write_is_a_typed_error_and_writes_nothing() {
    let (_d, e) = setup();
    assert_eq!(
        e.mutate_row("t", put_row(b"", b"f", None, b"v")),
        Err(MutateError::EmptyRow)
    );
    let long = vec![b'x'; MAX_ROW_LEN + 1];
    assert_eq!(
        e.mutate_row("t", put_row(&long, b"f", None, b"v")),
        Err(MutateError::RowTooLong {
            len: MAX_ROW_LEN + 1
        })
    );
    assert!(matches!(
        e.mutate_row("t", put_row(b"r", b"nope", None, b"v")),
        Err(MutateError::NoSuchFamily { .. })
    ));
    assert_eq!(
        e.mutate_row("t", put_row(b"r", b"f", Some(-1), b"v")),
        Err(MutateError::NegativeTimestamp(-1))
    );
    assert_eq!(
        e.mutate_row("t", put_row(b"r", b"f", None, &[0u8; 1025])),
        Err(MutateError::ValueTooLarge {
            len: 1025,
            max: 1024
        })
    );
    assert!(matches!(
        e.mutate_row("t", RowMutation::new(b"r")),
        Err(MutateError::EmptyMutation { .. })
    ));
    let mut ttl = put_row(b"r", b"f", None, b"v");
    ttl.ttl_ms = Some(0);
    assert_eq!(e.mutate_row("t", ttl), Err(MutateError::InvalidTtl(0)));
    // A mutation with one bad op writes none of its good ops.
    let mixed = put_row(b"r", b"f", None, b"good").with(Op::put(b"nope", b"q", b"bad"));
    assert!(e.mutate_row("t", mixed).is_err());
    assert_eq!(
        e.mutate_row("missing", put_row(b"r", b"f", None, b"v")),
        Err(MutateError::TableNotFound("missing".into()))
    );
    assert!(matches!(
        e.increment(
            "t",
            b"r",
            vec![(b"zz".to_vec(), b"q".to_vec(), 1)],
            None,
            Durability::UseDefault
        ),
        Err(MutateError::NoSuchFamily { .. })
    ));
    nothing_written(&e);
    // The largest row key is accepted.
    e.mutate_row("t", put_row(&vec![b'x'; MAX_ROW_LEN], b"f", None, b"v"))
        .unwrap();
}

#[test]
fn bad_reads_are_typed_errors() {
    let (_d, e) = setup();
    assert_eq!(
        e.get("missing", Get::new(b"r")).unwrap_err(),
        ReadError::TableNotFound("missing".into())
    );
    assert!(matches!(
        e.get("t", Get::with(b"r", ReadOptions::default().family(b"nope"))),
        Err(ReadError::NoSuchFamily { .. })
    ));
    assert!(matches!(
        e.get(
            "t",
            Get::with(
                b"r",
                ReadOptions::default().time_range(TimeRange::new(10, 5))
            )
        ),
        Err(ReadError::InvalidTimeRange { .. })
    ));
    assert!(matches!(
        e.scan(
            "t",
            Scan {
                options: ReadOptions::default().time_range(TimeRange::new(-1, 5)),
                ..Default::default()
            }
        ),
        Err(ReadError::InvalidTimeRange { .. })
    ));
}

#[test]
fn disabled_tables_refuse_reads_and_writes_clearly() {
    let (_d, e) = setup();
    put(&e, "t", "r", "f:q", 1, "v");
    e.disable_table("t").unwrap();
    assert_eq!(
        e.mutate_row("t", put_row(b"r", b"f", None, b"v")),
        Err(MutateError::TableDisabled("t".into()))
    );
    assert_eq!(
        e.get("t", Get::new(b"r")).unwrap_err(),
        ReadError::TableDisabled("t".into())
    );
    assert!(matches!(
        e.scan("t", Scan::new()),
        Err(ReadError::TableDisabled(_))
    ));
    e.enable_table("t").unwrap();
    assert_eq!(values(&e, "t", "r", ReadOptions::default()), vec!["v"]);
}

#[test]
fn bad_ddl_is_refused() {
    let (_d, e) = setup();
    let d = |name: &str| {
        TableDescriptor::new(TableName::parse(name).unwrap())
            .with_family(FamilyDescriptor::new(b"f"))
    };
    assert_eq!(
        e.create_table(d("t"), &[]),
        Err(TableError::Exists("t".into()))
    );
    assert!(matches!(
        TableName::parse("bad name"),
        Err(SchemaError::InvalidTableName { .. })
    ));
    assert!(matches!(
        TableName::parse("-x"),
        Err(SchemaError::InvalidTableName { .. })
    ));
    assert!(matches!(
        TableName::parse("b-d:x"),
        Err(SchemaError::InvalidNamespaceName { .. })
    ));
    assert_eq!(
        e.create_table(d("nons:t"), &[]),
        Err(TableError::NamespaceNotFound("nons".into()))
    );
    let no_fam = TableDescriptor::new(TableName::parse("x").unwrap());
    assert!(matches!(
        e.create_table(no_fam, &[]),
        Err(TableError::Invalid(SchemaError::NoFamilies { .. }))
    ));
    for bad in [
        FamilyDescriptor::new(b"f").max_versions(0),
        FamilyDescriptor::new(b"f").max_versions(1).min_versions(2),
        FamilyDescriptor::new(b"a:b"),
        FamilyDescriptor::new(b""),
        FamilyDescriptor {
            compression: "ZIP".into(),
            ..FamilyDescriptor::new(b"f")
        },
        FamilyDescriptor {
            bloom_filter: "ALL".into(),
            ..FamilyDescriptor::new(b"f")
        },
        FamilyDescriptor {
            block_size: 10,
            ..FamilyDescriptor::new(b"f")
        },
        FamilyDescriptor {
            data_block_encoding: "X".into(),
            ..FamilyDescriptor::new(b"f")
        },
    ] {
        let t = TableDescriptor::new(TableName::parse("x").unwrap()).with_family(bad.clone());
        match e.create_table(t, &[]) {
            Err(TableError::Invalid(SchemaError::InvalidFamily { .. })) => {}
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
    assert!(matches!(
        e.create_table(d("x"), &[b"a".to_vec(), b"a".to_vec()]),
        Err(TableError::InvalidSplitKeys(_))
    ));
    assert!(matches!(
        e.create_table(d("x"), &[Vec::new()]),
        Err(TableError::InvalidSplitKeys(_))
    ));
    assert!(!e.table_exists("x"));
    assert_eq!(
        e.delete_table("t"),
        Err(TableError::NotDisabled("t".into()))
    );
    assert_eq!(
        e.delete_table("nope"),
        Err(TableError::NotFound("nope".into()))
    );
}

#[test]
fn a_missing_or_corrupt_region_file_keeps_its_table_offline() {
    let dir = tempfile::tempdir().unwrap();
    {
        let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        table(&e, "good", vec![FamilyDescriptor::new(b"f")]);
        table(&e, "corrupt", vec![FamilyDescriptor::new(b"f")]);
        table(&e, "missing", vec![FamilyDescriptor::new(b"f")]);
        for t in ["good", "corrupt", "missing"] {
            put(&e, t, "r", "f:q", 1, "v");
        }
        e.close();
    }
    // The table's region file (its redo log, `<file>.log`, sits beside it).
    let region_file = |t: &str| {
        std::fs::read_dir(dir.path().join("tables/default").join(t))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "redb"))
            .unwrap()
    };
    let corrupt = region_file("corrupt");
    std::fs::write(&corrupt, b"this is not a redb file at all").unwrap();
    let missing = region_file("missing");
    std::fs::remove_file(&missing).unwrap();

    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let offline = e.offline_tables();
    assert_eq!(offline.len(), 2, "{offline:?}");
    let reason = |t: &str| offline.iter().find(|(n, _)| n == t).unwrap().1.clone();
    assert!(
        reason("corrupt").contains(&corrupt.display().to_string()),
        "{}",
        reason("corrupt")
    );
    assert!(
        reason("missing").contains(&missing.display().to_string()),
        "{}",
        reason("missing")
    );
    assert!(matches!(
        e.get("corrupt", Get::new(b"r")),
        Err(ReadError::TableOffline { .. })
    ));
    assert!(matches!(
        e.mutate_row("missing", put_row(b"r", b"f", None, b"v")),
        Err(MutateError::TableOffline { .. })
    ));
    assert_eq!(values(&e, "good", "r", ReadOptions::default()), vec!["v"]);
    // The damaged file is left exactly as it was for an operator to inspect.
    assert_eq!(
        std::fs::read(&corrupt).unwrap(),
        b"this is not a redb file at all"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Arbitrary rows, families, qualifiers, timestamps and values: the engine answers Ok or a
    /// typed error and stays usable.
    #[test]
    fn arbitrary_writes_never_panic(
        row in proptest::collection::vec(any::<u8>(), 0..40),
        fam in prop_oneof![Just(b"f".to_vec()), proptest::collection::vec(any::<u8>(), 0..4)],
        qual in proptest::collection::vec(any::<u8>(), 0..40),
        ts in prop_oneof![Just(None), any::<i64>().prop_map(Some)],
        value in proptest::collection::vec(any::<u8>(), 0..1100),
        delta in any::<i64>(),
    ) {
        let (_d, e) = setup();
        let m = RowMutation::new(&row).with(Op::Put { family: fam.clone(), qualifier: qual.clone(), timestamp: ts, value });
        let _ = e.mutate_row("t", m);
        let _ = e.increment("t", &row, vec![(fam.clone(), qual.clone(), delta)], None, Durability::UseDefault);
        let _ = e.increment("t", &row, vec![(fam.clone(), qual.clone(), delta)], None, Durability::UseDefault);
        let _ = e.get("t", Get::new(&row));
        let _ = e.scan("t", Scan::range(&row, &qual)).map(|s| s.count());
        let _ = e.mutate_row("t", RowMutation::new(&row).with(Op::DeleteFamily { family: fam, timestamp: ts }));
        prop_assert!(e.mutate_row("t", RowMutation::new(b"still-ok").with(Op::put(b"f", b"q", b"v"))).is_ok());
    }
}

/// Serialized filters (Thrift2 `filterBytes`) that cannot be decoded, sent to a real server on
/// loopback by the generated client: each call gets a TIOError naming the problem, nothing
/// panics, and the same connection answers the next call.
mod filter_bytes_over_thrift2 {
    use std::net::SocketAddr;

    use prost::Message;
    use redbase::engine::{Engine, EngineConfig, FamilyDescriptor};
    use redbase::filter::wire as pb;
    use redbase::generated::hbase2::*;
    use redbase::server::{self, Config, Listeners};
    use thrift::protocol::{TBinaryInputProtocol, TBinaryOutputProtocol};
    use thrift::transport::{ReadHalf, TIoChannel, TTcpChannel, WriteHalf};

    type Client = THBaseServiceSyncClient<
        TBinaryInputProtocol<ReadHalf<TTcpChannel>>,
        TBinaryOutputProtocol<WriteHalf<TTcpChannel>>,
    >;

    const P: &str = "org.apache.hadoop.hbase.filter.";

    struct Server {
        addr: SocketAddr,
        stop: Option<tokio::sync::oneshot::Sender<()>>,
        thread: Option<std::thread::JoinHandle<()>>,
        _dir: tempfile::TempDir,
    }

    impl Server {
        /// A Thrift2 server over table "t" (family f) with rows r1, r2, r3.
        fn start() -> Server {
            let dir = tempfile::tempdir().unwrap();
            let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
            super::common::table(&engine, "t", vec![FamilyDescriptor::new(b"f")]);
            for (r, q) in [("r1", "apple"), ("r2", "banana"), ("r3", "cherry")] {
                super::common::put(&engine, "t", r, &format!("f:{q}"), 1, "v");
            }
            let (addr_tx, addr_rx) = std::sync::mpsc::channel();
            let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
            let thread = std::thread::spawn(move || {
                let rt = tokio::runtime::Runtime::new().unwrap();
                rt.block_on(async move {
                    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                    addr_tx.send(l.local_addr().unwrap()).unwrap();
                    let listeners = Listeners {
                        thrift1: None,
                        thrift2: Some(l),
                        http: None,
                    };
                    server::run(engine.clone(), listeners, Config::default(), async move {
                        let _ = stop_rx.await;
                    })
                    .await;
                    engine.close();
                });
            });
            Server {
                addr: addr_rx.recv().unwrap(),
                stop: Some(stop),
                thread: Some(thread),
                _dir: dir,
            }
        }

        fn client(&self) -> Client {
            let mut c = TTcpChannel::new();
            c.open(self.addr.to_string()).unwrap();
            let (r, w) = c.split().unwrap();
            THBaseServiceSyncClient::new(
                TBinaryInputProtocol::new(r, true),
                TBinaryOutputProtocol::new(w, true),
            )
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            if let Some(s) = self.stop.take() {
                let _ = s.send(());
            }
            if let Some(t) = self.thread.take() {
                t.join().unwrap();
            }
        }
    }

    fn scan(filter_string: Option<&str>, filter_bytes: Option<Vec<u8>>) -> TScan {
        TScan::new(
            None,
            None,
            None,
            None,
            None,
            None,
            filter_string.map(|s| s.as_bytes().to_vec()),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            filter_bytes,
        )
    }

    fn get(row: &str, filter_bytes: Vec<u8>) -> TGet {
        TGet::new(
            row.as_bytes().to_vec(),
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            filter_bytes,
        )
    }

    fn filter(class: &str, body: Vec<u8>) -> pb::Filter {
        pb::Filter {
            name: Some(format!("{P}{class}")),
            serialized_filter: Some(body.into()),
        }
    }

    fn prefix(p: &str) -> pb::Filter {
        let m = pb::PrefixFilter {
            prefix: Some(p.as_bytes().to_vec().into()),
        };
        filter("PrefixFilter", m.encode_to_vec())
    }

    fn rows(r: thrift::Result<Vec<TResult>>) -> Vec<String> {
        r.unwrap()
            .iter()
            .map(|t| String::from_utf8_lossy(t.row.as_deref().unwrap_or_default()).into_owned())
            .collect()
    }

    /// The TIOError a call must end in: its message and canRetry.
    fn io_error<T: std::fmt::Debug>(r: thrift::Result<T>) -> (String, bool) {
        match r {
            Err(thrift::Error::User(e)) => match e.downcast_ref::<TIOError>() {
                Some(io) => (
                    io.message.clone().unwrap_or_default(),
                    io.can_retry == Some(true),
                ),
                None => panic!("not a TIOError: {e:?}"),
            },
            other => panic!("expected a TIOError, got {other:?}"),
        }
    }

    /// (case, filterBytes, what the message must say, canRetry).
    fn hostile_cases() -> Vec<(&'static str, Vec<u8>, &'static str, bool)> {
        let good = prefix("r2").encode_to_vec();
        let mut truncated_inner = prefix("r2");
        truncated_inner.serialized_filter = Some(vec![0x0a, 0x09, b'r'].into());
        let unknown = pb::Filter {
            name: Some(format!("{P}NoSuchFilter")),
            serialized_filter: None,
        };
        let wrong_comparator = {
            let cmp = pb::Comparator {
                name: Some(format!("{P}PrefixFilter")),
                serialized_comparator: None,
            };
            let m = pb::RowFilter {
                compare_filter: Some(pb::CompareFilter {
                    compare_op: Some(pb::CompareType::Equal as i32),
                    comparator: Some(cmp),
                }),
            };
            filter("RowFilter", m.encode_to_vec())
        };
        let mut deep = prefix("r");
        for _ in 0..10_000 {
            let m = pb::FilterList {
                operator: Some(pb::filter_list::Operator::MustPassAll as i32),
                filters: vec![deep],
            };
            deep = filter("FilterList", m.encode_to_vec());
        }
        // A million prefixes, the last one cut short.
        let mut huge = pb::MultipleColumnPrefixFilter {
            sorted_prefixes: (0..1_000_000)
                .map(|i| format!("p{i:07}").into_bytes().into())
                .collect(),
        }
        .encode_to_vec();
        huge.truncate(huge.len() - 3);
        let mut bad_utf8 = prefix("r2").encode_to_vec();
        bad_utf8[2] = 0xff;
        vec![
            (
                "truncated",
                good[..good.len() - 4].to_vec(),
                "cannot decode",
                true,
            ),
            ("empty", Vec::new(), "field name is missing", true),
            (
                "not protobuf",
                b"\xff\xff\xff\xff".to_vec(),
                "cannot decode",
                true,
            ),
            (
                "bad UTF-8 in the class name",
                bad_utf8,
                "cannot decode",
                true,
            ),
            (
                "truncated inner message",
                truncated_inner.encode_to_vec(),
                "cannot decode",
                false,
            ),
            (
                "unknown class",
                unknown.encode_to_vec(),
                "NoSuchFilter",
                false,
            ),
            (
                "wrong comparator class",
                wrong_comparator.encode_to_vec(),
                "unknown comparator",
                false,
            ),
            (
                "nested 10,000 deep",
                deep.encode_to_vec(),
                "deeper than 100",
                false,
            ),
            (
                "a million prefixes, truncated",
                filter("MultipleColumnPrefixFilter", huge).encode_to_vec(),
                "cannot decode",
                false,
            ),
        ]
    }

    #[test]
    fn hostile_filter_bytes_are_tio_errors_and_the_connection_lives_on() {
        let server = Server::start();
        let mut c = server.client();
        for (case, bytes, says, retry) in hostile_cases() {
            assert!(bytes.len() < 16 << 20, "{case} fits the frame limit");
            let calls = [
                io_error(c.get_scanner_results(b"t".to_vec(), scan(None, Some(bytes.clone())), 10)),
                io_error(c.open_scanner(b"t".to_vec(), scan(None, Some(bytes.clone())))),
                io_error(c.get(b"t".to_vec(), get("r2", bytes.clone()))),
                io_error(c.exists(b"t".to_vec(), get("r2", bytes.clone()))),
            ];
            for (message, can_retry) in calls {
                assert!(message.contains("invalid filterBytes"), "{case}: {message}");
                assert!(message.contains(says), "{case}: {message}");
                assert_eq!(can_retry, retry, "{case}: canRetry ({message})");
            }
            // The same connection answers the next call.
            assert_eq!(
                rows(c.get_scanner_results(b"t".to_vec(), scan(None, None), 10)),
                ["r1", "r2", "r3"],
                "after {case}"
            );
        }
    }

    #[test]
    fn a_million_prefixes_within_the_frame_limit_are_read() {
        let server = Server::start();
        let mut c = server.client();
        let mut prefixes: Vec<bytes::Bytes> = (0..1_000_000)
            .map(|i| format!("p{i:07}").into_bytes().into())
            .collect();
        prefixes.push(b"ban".to_vec().into());
        let m = pb::MultipleColumnPrefixFilter {
            sorted_prefixes: prefixes,
        };
        let bytes = filter("MultipleColumnPrefixFilter", m.encode_to_vec()).encode_to_vec();
        assert!(bytes.len() > 8 << 20 && bytes.len() < 16 << 20);
        let started = std::time::Instant::now();
        assert_eq!(
            rows(c.get_scanner_results(b"t".to_vec(), scan(None, Some(bytes)), 10)),
            ["r2"]
        );
        assert!(started.elapsed().as_secs() < 30);
        assert_eq!(
            rows(c.get_scanner_results(b"t".to_vec(), scan(None, None), 10)).len(),
            3
        );
    }

    #[test]
    fn filter_bytes_replace_a_filter_string_which_is_still_checked() {
        let server = Server::start();
        let mut c = server.client();
        let bytes = prefix("r2").encode_to_vec();
        // As HBase's ThriftUtilities: the string is parsed, then the bytes replace it.
        assert_eq!(
            rows(c.get_scanner_results(
                b"t".to_vec(),
                scan(Some("PrefixFilter('r1')"), Some(bytes.clone())),
                10
            )),
            ["r2"]
        );
        match c.get_scanner_results(b"t".to_vec(), scan(Some("Nope("), Some(bytes)), 10) {
            Err(thrift::Error::Application(e)) => {
                assert!(e.message.contains("invalid filter string"), "{}", e.message)
            }
            other => panic!("expected a TApplicationException, got {other:?}"),
        }
        // And through get, the bytes alone.
        let r = c
            .get(b"t".to_vec(), get("r1", prefix("r1").encode_to_vec()))
            .unwrap();
        assert_eq!(r.row.as_deref(), Some(&b"r1"[..]));
        let r = c
            .get(b"t".to_vec(), get("r1", prefix("r2").encode_to_vec()))
            .unwrap();
        assert!(r.column_values.is_empty());
    }
}
