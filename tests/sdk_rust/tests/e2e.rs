//! The generated Rust SDK end to end against a real Thrift2 gateway (REDBASE_SDK_TARGET):
//! tables created from the schema with their split keys, typed rows written and read back,
//! prefix and range scans in key order, salted scans merged by the key without the salt, exact
//! counters under threads, check-and-put,
//! deletes, typed errors.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use redbase_examples::runtime::keys::region_index;
use redbase_examples::*;
use sdk_rust_tests::target;
use serde_json::json;

/// The tests share table names: one at a time.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

fn connect() -> Connection {
    sdk_rust_tests::connect()
}

/// Drops the table if it exists and creates it from its schema.
fn fresh<'c, T: TypedTable<'c>>(conn: &'c mut Connection) -> T {
    let mut t = T::new(conn);
    if t.exists().unwrap() {
        t.drop_table().unwrap();
    }
    t.create().unwrap();
    t
}

fn all<T>(rows: impl Iterator<Item = Result<T>>) -> Vec<T> {
    rows.collect::<Result<Vec<_>>>().unwrap()
}

#[test]
fn tables_are_created_with_the_derived_split_keys() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsTable = fresh(&mut conn);
    let want: Vec<Vec<u8>> = std::iter::once(vec![])
        .chain(b"123456789abcdef".iter().map(|c| vec![*c]))
        .collect();
    assert_eq!(logs.region_starts().unwrap(), want, "SPLITS => ['1'..'f']");
    let mut events: EventsTable = fresh(&mut conn);
    let starts = events.region_starts().unwrap();
    assert_eq!(
        starts,
        [&b""[..], b"b", b"c", b"d"],
        "one region per salt character"
    );
    let mut devices: DeviceEventsTable = fresh(&mut conn);
    let want: Vec<Vec<u8>> = (0u8..16)
        .map(|b| if b == 0 { vec![] } else { vec![b] })
        .collect();
    assert_eq!(devices.region_starts().unwrap(), want);
    let mut files: DriveFilesTable = fresh(&mut conn);
    let starts = files.region_starts().unwrap();
    assert_eq!(
        starts,
        [&b""[..], b"\x40", b"\x80", b"\xc0"],
        "explicit split keys"
    );
}

#[test]
fn hashed_keys_land_in_the_seed_regions() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsTable = fresh(&mut conn);
    let starts = logs.region_starts().unwrap();
    let splits: Vec<&[u8]> = starts[1..].iter().map(Vec::as_slice).collect();
    for (user, region) in [("dave", 1), ("elton", 13), ("fred", 5)] {
        let key = AccessLogsKey::new(user, "jericho", 201510);
        let values = AccessLogsValues {
            last_seen: Some(1_445_000_000_000),
            hits: Some(7),
        };
        logs.put(&key, &values).unwrap();
        let raw = key.encode().unwrap();
        assert_eq!(region_index(&splits, &raw), region, "{user}");
        let row = logs.get(&key).unwrap().expect("row written");
        assert_eq!(row.values, values);
        assert_eq!(row.key.hash.as_bytes(), &raw[..5]);
        assert_eq!(
            (row.key.system_id.as_str(), row.key.period),
            ("jericho", 201510)
        );
    }
    assert_eq!(
        AccessLogsKey::new("dave", "jericho", 201510)
            .encode()
            .unwrap(),
        b"16108|jericho|201510"
    );
}

/// docs/sdks.md's ten-line example, as written there.
#[test]
fn the_docs_example_runs() -> Result<()> {
    let _g = serial();
    let (host, port) = target();
    let mut conn = Connection::open(&host, port, &sdk_rust_tests::options())?;
    let mut logs = AccessLogsTable::new(&mut conn);
    if logs.exists()? {
        logs.drop_table()?;
    }
    // From here on as in the docs.
    logs.create()?; // family t, split keys '1'..'f': 16 regions
    let key = AccessLogsKey::new("dave", "jericho", 201510);
    assert_eq!(key.encode()?, b"16108|jericho|201510"); // MD5("dave")[..5], user id dropped
    logs.put(
        &key,
        &AccessLogsValues {
            last_seen: Some(1_445_000_000_000),
            ..Default::default()
        },
    )?;
    logs.increment_hits(&key, 3)?; // counters: atomic, 8-byte longs
    let row = logs.get(&key)?.expect("the row"); // AccessLogsRow: row_key, key (decoded), values
    println!(
        "{} {} {:?}",
        row.key.hash, row.key.system_id, row.values.hits
    ); // 16108 jericho Some(3)
    for r in logs.scan(
        &AccessLogsKey::prefix().user_id("dave").range()?,
        ScanOptions::new().limit(10),
    ) {
        let r = r?;
        println!("{} {:?}", r.key.period, r.values.last_seen);
    }
    assert_eq!((row.key.hash.as_str(), row.values.hits), ("16108", Some(3)));
    Ok(())
}

#[test]
fn put_get_delete_typed_values() {
    let _g = serial();
    let mut conn = connect();
    let mut books: BooksTable = fresh(&mut conn);
    let key = BooksKey::new("978-0-13-468599-1");
    let values = BooksValues {
        title: Some("HBase 实战".into()),
        author: Some("Dimiduk".into()),
        date: Some(1_356_998_400),
        cover: Some(b"\x89PNG\r\n\x1a\n\x00\xff".to_vec()),
        file: Some((0..=255).collect()),
        pages: Some(-1),
        rating: Some(4.5),
        price: Some(39.99),
        in_print: Some(true),
        tags: Some(json!({"topics": ["hbase", "nosql"], "level": 2, "ok": null})),
        added: Some(-5),
    };
    books.put(&key, &values).unwrap();
    let row = books.get(&key).unwrap().expect("row");
    assert_eq!(row.values, values);
    assert_eq!(row.key.isbn, "978-0-13-468599-1");
    let update = BooksValues {
        in_print: Some(false),
        ..Default::default()
    };
    books.put(&key, &update).unwrap();
    let got = books.get(&key).unwrap().expect("row");
    assert_eq!(got.values.in_print, Some(false));
    assert_eq!(got.values.title.as_deref(), Some("HBase 实战"));
    books.delete(&key).unwrap();
    assert_eq!(books.get(&key).unwrap(), None);
}

#[test]
fn check_and_put() {
    let _g = serial();
    let mut conn = connect();
    let mut books: BooksTable = fresh(&mut conn);
    let key = BooksKey::new("b1");
    let title = |t: &str| BooksValues {
        title: Some(t.into()),
        ..Default::default()
    };
    let col = BooksColumns::TITLE;
    assert!(books
        .check_and_put(&key, col, None, &title("first"))
        .unwrap());
    assert!(!books
        .check_and_put(&key, col, None, &title("again"))
        .unwrap());
    assert!(!books
        .check_and_put(&key, col, Some(&"nope".into()), &title("x"))
        .unwrap());
    let second = BooksValues {
        pages: Some(3),
        ..title("second")
    };
    assert!(books
        .check_and_put(&key, col, Some(&"first".into()), &second)
        .unwrap());
    let row = books.get(&key).unwrap().expect("row");
    assert_eq!(
        (row.values.title.as_deref(), row.values.pages),
        (Some("second"), Some(3))
    );
}

#[test]
fn counters_are_exact_under_threads() {
    let _g = serial();
    let mut conn = connect();
    let _: CountersTable = fresh(&mut conn);
    let key = CountersKey::new("rk1");
    let (threads, per) = (8, 50);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut conn = connect();
                let mut t = CountersTable::new(&mut conn);
                for _ in 0..per {
                    t.increment_slots(&key, 1, 1).unwrap();
                    t.increment_slots(&key, 2, 100).unwrap();
                }
            });
        }
    });
    let mut table = CountersTable::new(&mut conn);
    let row = table.get(&key).unwrap().expect("row");
    let want = BTreeMap::from([(1, threads * per), (2, threads * per * 100)]);
    assert_eq!(row.values.slots, want);
    assert_eq!(table.increment_slots(&key, 1, 0).unwrap(), threads * per);
}

#[test]
fn social_usage_period_counters() {
    let _g = serial();
    let mut conn = connect();
    let mut social: SocialUsageTable = fresh(&mut conn);
    let key = SocialUsageKey::new("jericho_user");
    let ids = SocialUsageValues {
        fb_id: Some("fb123".into()),
        tw_id: Some("@tw".into()),
        ..Default::default()
    };
    social.put(&key, &ids).unwrap();
    for (period, n) in [(201510, 3), (201511, 5)] {
        for _ in 0..n {
            social.increment_fb_usage(&key, period, 1).unwrap();
            social.increment_fb_total(&key, 1).unwrap();
        }
    }
    assert_eq!(social.increment_tw_usage(&key, 201510, 9).unwrap(), 9);
    let v = social.get(&key).unwrap().expect("row").values;
    assert_eq!(
        (v.fb_id.as_deref(), v.tw_id.as_deref()),
        (Some("fb123"), Some("@tw"))
    );
    assert_eq!(v.fb_usage, BTreeMap::from([(201510, 3), (201511, 5)]));
    assert_eq!(v.fb_total, Some(8));
    assert_eq!(v.tw_usage, BTreeMap::from([(201510, 9)]));
    assert_eq!(v.tw_total, None);
}

#[test]
fn prefix_scans_in_key_order() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsByUserTable = fresh(&mut conn);
    let mut rows = Vec::new();
    for u in ["dave", "elton", "fred", "dav"] {
        for s in ["jericho", "anvil", "zeus"] {
            for p in [201512, 201510, 201511] {
                rows.push((u.to_string(), s.to_string(), p));
            }
        }
    }
    for (i, (u, s, p)) in rows.iter().enumerate() {
        let values = AccessLogsByUserValues {
            hits: Some(i as i64),
            ..Default::default()
        };
        logs.put(&AccessLogsByUserKey::new(u, s, *p), &values)
            .unwrap();
    }
    let dave = AccessLogsByUserKey::prefix()
        .user_id("dave")
        .range()
        .unwrap();
    let got: Vec<_> = all(logs.scan(&dave, ScanOptions::new()))
        .into_iter()
        .map(|r| (r.key.user_id, r.key.system_id, r.key.period))
        .collect();
    let mut want: Vec<_> = rows.iter().filter(|r| r.0 == "dave").cloned().collect();
    want.sort();
    assert_eq!(got, want, "a prefix is a whole component: no 'dav'");
    let zeus = AccessLogsByUserKey::prefix()
        .user_id("elton")
        .system_id("zeus")
        .range()
        .unwrap();
    let periods: Vec<i32> = all(logs.scan(&zeus, ScanOptions::new()))
        .iter()
        .map(|r| r.key.period)
        .collect();
    assert_eq!(periods, [201510, 201511, 201512]);
    let everything: Vec<Vec<u8>> = all(logs.scan(&AccessLogsByUserKey::all(), ScanOptions::new()))
        .into_iter()
        .map(|r| r.row_key)
        .collect();
    assert_eq!(everything.len(), rows.len());
    assert!(everything.windows(2).all(|w| w[0] < w[1]));
    let gap = AccessLogsByUserKey::prefix().system_id("zeus").range();
    assert!(matches!(gap, Err(Error::KeyEncoding(_))), "{gap:?}");
}

#[test]
fn range_scans_reversed_with_limit() {
    let _g = serial();
    let mut conn = connect();
    let mut logs: AccessLogsByUserTable = fresh(&mut conn);
    for u in ["a", "b", "c", "d", "e"] {
        for p in [201510, 201511] {
            let values = AccessLogsByUserValues {
                hits: Some(1),
                ..Default::default()
            };
            logs.put(&AccessLogsByUserKey::new(u, "s", p), &values)
                .unwrap();
        }
    }
    let prefix = |u: &str| AccessLogsByUserKey::prefix().user_id(u).range().unwrap();
    let rng = AccessLogsByUserKey::range(&prefix("b"), &prefix("d")).unwrap();
    let ids = |rows: Vec<AccessLogsByUserRow>| -> Vec<(String, i32)> {
        rows.into_iter()
            .map(|r| (r.key.user_id, r.key.period))
            .collect()
    };
    let fwd = ids(all(logs.scan(&rng, ScanOptions::new())));
    let want: Vec<(String, i32)> = [("b", 201510), ("b", 201511), ("c", 201510), ("c", 201511)]
        .iter()
        .map(|(u, p)| (u.to_string(), *p))
        .collect();
    assert_eq!(fwd, want);
    let back = ids(all(logs.scan(&rng, ScanOptions::new().reversed())));
    assert_eq!(back, fwd.iter().rev().cloned().collect::<Vec<_>>());
    let three = ids(all(logs.scan(&rng, ScanOptions::new().reversed().limit(3))));
    assert_eq!(three, back[..3]);
    let two = ids(all(
        logs.scan(&AccessLogsByUserKey::all(), ScanOptions::new().limit(2))
    ));
    assert_eq!(two, [("a".to_string(), 201510), ("a".to_string(), 201511)]);
    let e = ids(all(logs.scan(&prefix("e"), ScanOptions::new().reversed())));
    assert_eq!(e, [("e".to_string(), 201511), ("e".to_string(), 201510)]);
    assert!(all(logs.scan(&prefix("zz"), ScanOptions::new())).is_empty());
}

#[test]
fn salted_scans_merge_the_buckets_by_the_key_without_the_salt() {
    let _g = serial();
    let mut conn = connect();
    let mut events: EventsTable = fresh(&mut conn);
    let names: Vec<String> = (1..=40).map(|n| format!("foo{n:04}")).collect();
    for (i, n) in names.iter().enumerate() {
        let values = EventsValues {
            payload: Some(json!({"n": i})),
            at: Some(i as i64),
        };
        events.put(&EventsKey::new(n), &values).unwrap();
    }
    let rows = all(events.scan(&EventsKey::all(), ScanOptions::new()));
    let keys: Vec<Vec<u8>> = rows.iter().map(|r| r.row_key.clone()).collect();
    let event_names =
        |rows: Vec<EventsRow>| -> Vec<String> { rows.into_iter().map(|r| r.key.event).collect() };
    assert_eq!(
        event_names(rows.clone()),
        names,
        "the unsalted design's order, across every bucket"
    );
    let salts: std::collections::BTreeSet<u32> = rows.iter().map(|r| r.key.salt).collect();
    assert_eq!(salts, [0, 1, 2, 3].into());
    assert!(rows
        .iter()
        .all(|r| r.row_key[0] == b"abcd"[r.key.salt as usize]));
    let backward: Vec<String> = names.iter().rev().cloned().collect();
    let back = all(events.scan(&EventsKey::all(), ScanOptions::new().reversed()));
    assert_eq!(event_names(back), backward);
    let five = all(events.scan(&EventsKey::all(), ScanOptions::new().limit(5)));
    assert_eq!(event_names(five), names[..5]);
    let last = all(events.scan(&EventsKey::all(), ScanOptions::new().reversed().limit(3)));
    assert_eq!(event_names(last), backward[..3]);
    let range = EventsKey::prefix()
        .event_between("foo0007", "foo0012")
        .unwrap();
    assert_eq!(
        event_names(all(events.scan(&range, ScanOptions::new()))),
        names[6..12]
    );
    let by_bucket: Vec<Vec<u8>> =
        all(events.scan(&EventsKey::all(), ScanOptions::new().bucket_order()))
            .into_iter()
            .map(|r| r.row_key)
            .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(
        by_bucket, sorted,
        "bucket order: bucket a's rows, then b's, ..."
    );
    let one = all(events.scan(
        &EventsKey::prefix().event("foo0003").range().unwrap(),
        ScanOptions::new(),
    ));
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].values.payload, Some(json!({"n": 2})));
    let starts = events.region_starts().unwrap();
    let splits: Vec<&[u8]> = starts[1..].iter().map(Vec::as_slice).collect();
    for r in &rows {
        assert_eq!(region_index(&splits, &r.row_key), r.key.salt as usize);
    }
}

#[test]
fn binary_salted_keys_scan_by_device() {
    let _g = serial();
    let mut conn = connect();
    let mut t: DeviceEventsTable = fresh(&mut conn);
    for dev in ["d1", "d2", "d1x"] {
        for seq in [3i64, -1, 1 << 40, 0] {
            let key = DeviceEventsKey::new(dev, seq);
            let values = DeviceEventsValues {
                kind: Some(format!("{dev}:{seq}")),
                ..Default::default()
            };
            t.put(&key, &values).unwrap();
            t.increment_count(&key, seq.rem_euclid(7)).unwrap();
        }
    }
    let got = all(t.scan(
        &DeviceEventsKey::prefix().device("d1").range().unwrap(),
        ScanOptions::new(),
    ));
    let seqs: Vec<i64> = got.iter().map(|r| r.key.seq).collect();
    assert_eq!(
        seqs,
        [-1, 0, 3, 1 << 40],
        "in seq order across the 16 buckets"
    );
    assert!(got.iter().all(|r| r.key.device == "d1"));
    assert!(got
        .iter()
        .all(|r| r.values.count == Some(r.key.seq.rem_euclid(7))));
}

#[test]
fn reverse_timestamps_read_newest_first() {
    let _g = serial();
    let mut conn = connect();
    let mut metrics: MetricsTable = fresh(&mut conn);
    for ts in [1000, 3000, 2000] {
        let values = MetricsValues {
            value: Some(ts as f64 / 10.0),
            unit: Some("%".into()),
        };
        metrics
            .put(&MetricsKey::new("cpu", "host|1", ts), &values)
            .unwrap();
    }
    let other = MetricsValues {
        value: Some(1.0),
        ..Default::default()
    };
    metrics
        .put(&MetricsKey::new("cpu", "host|2", 5000), &other)
        .unwrap();
    let host1 = MetricsKey::prefix()
        .metric("cpu")
        .host("host|1")
        .range()
        .unwrap();
    let got: Vec<i64> = all(metrics.scan(&host1, ScanOptions::new()))
        .iter()
        .map(|r| r.key.ts)
        .collect();
    assert_eq!(got, [3000, 2000, 1000]);
    let mut sensors: SensorReadingsTable = fresh(&mut conn);
    for ts in [10, 30, 20] {
        let values = SensorReadingsValues {
            celsius: Some(ts as f32 + 0.5),
            ok: Some(ts != 20),
        };
        sensors
            .put(&SensorReadingsKey::new(-7, ts), &values)
            .unwrap();
    }
    let rows = all(sensors.scan(
        &SensorReadingsKey::prefix().sensor(-7).range().unwrap(),
        ScanOptions::new().limit(2),
    ));
    let got: Vec<_> = rows
        .iter()
        .map(|r| (r.key.ts, r.values.celsius, r.values.ok))
        .collect();
    assert_eq!(
        got,
        [(30, Some(30.5), Some(true)), (20, Some(20.5), Some(false))]
    );
    assert!(matches!(
        MetricsKey::new("cpu", "h", -1).encode(),
        Err(Error::KeyEncoding(_))
    ));
}

#[test]
fn desc_components_sort_highest_first() {
    let _g = serial();
    let mut conn = connect();
    let mut board: LeaderboardTable = fresh(&mut conn);
    for (name, score) in [("ann", 10), ("bob", 300), ("cy", -5), ("dee", 300)] {
        let values = LeaderboardValues {
            player: Some(json!({ "name": name })),
        };
        board
            .put(&LeaderboardKey::new("chess", score, name), &values)
            .unwrap();
    }
    board
        .put(
            &LeaderboardKey::new("go", 1, "zed"),
            &LeaderboardValues::default(),
        )
        .unwrap();
    let chess = LeaderboardKey::prefix().game("chess").range().unwrap();
    let got: Vec<(i64, String)> = all(board.scan(&chess, ScanOptions::new()))
        .into_iter()
        .map(|r| (r.key.score, r.key.name))
        .collect();
    let want = [(300, "bob"), (300, "dee"), (10, "ann"), (-5, "cy")];
    assert_eq!(got, want.map(|(s, n)| (s, n.to_string())));
}

#[test]
fn cloud_drive_directories_and_files() {
    let _g = serial();
    let mut conn = connect();
    let fid = sdk_rust_tests::unhex("9f1c2a7e00ff4b1d8a6b0c3d4e5f6071").unwrap();
    let mut files: DriveFilesTable = fresh(&mut conn);
    let file = DriveFilesValues {
        content: Some(b"%PDF".to_vec()),
        creator: Some("alice".into()),
        size: Some(4),
        file_type: Some("pdf".into()),
    };
    files.put(&DriveFilesKey::new(fid.clone()), &file).unwrap();
    assert!(matches!(
        DriveFilesKey::new(b"short".to_vec()).encode(),
        Err(Error::KeyEncoding(_))
    ));
    let mut dirs: DriveDirectoriesTable = fresh(&mut conn);
    let children = BTreeMap::from([
        ("d_photos".to_string(), String::new()),
        ("f_cv.pdf".to_string(), sdk_rust_tests::hex(&fid)),
    ]);
    let home = DriveDirectoriesValues {
        children: children.clone(),
        creator: Some("alice".into()),
    };
    dirs.put(&DriveDirectoriesKey::new("/home/alice"), &home)
        .unwrap();
    let odd = DriveDirectoriesValues {
        creator: Some("alice".into()),
        ..Default::default()
    };
    dirs.put(&DriveDirectoriesKey::new("/home/alice|odd"), &odd)
        .unwrap();
    let row = dirs
        .get(&DriveDirectoriesKey::new("/home/alice"))
        .unwrap()
        .expect("dir");
    assert_eq!(row.values.children, children);
    let paths: Vec<String> = all(dirs.scan(&DriveDirectoriesKey::all(), ScanOptions::new()))
        .into_iter()
        .map(|r| r.key.path)
        .collect();
    assert_eq!(paths, ["/home/alice", "/home/alice|odd"]);
    let id = sdk_rust_tests::unhex(&row.values.children["f_cv.pdf"]).unwrap();
    let mut files = DriveFilesTable::new(&mut conn);
    let f = files.get(&DriveFilesKey::new(id)).unwrap().expect("file");
    assert_eq!((f.values.size, &f.key.file_id), (Some(4), &fid));
}

#[test]
fn reversed_domains_in_their_own_namespace() {
    let _g = serial();
    let mut conn = connect();
    let mut pages: WebPagesTable = fresh(&mut conn); // namespace "crawl", created with the table
    assert_eq!(web_pages::DEFINITION.full_name(), b"crawl:web-pages");
    for (host, path) in [
        ("www.example.com", "/"),
        ("api.example.com", "/v1|x"),
        ("www.example.org", "/"),
    ] {
        let values = WebPagesValues {
            html: Some(b"<html>".to_vec()),
            fetched: Some(1),
        };
        pages.put(&WebPagesKey::new(host, path), &values).unwrap();
    }
    let www = WebPagesKey::prefix()
        .domain("www.example.com")
        .range()
        .unwrap();
    let got: Vec<_> = all(pages.scan(&www, ScanOptions::new()))
        .into_iter()
        .map(|r| (r.key.domain, r.key.path))
        .collect();
    assert_eq!(got, [("www.example.com".to_string(), "/".to_string())]);
    let everything: Vec<Vec<u8>> = all(pages.scan(&WebPagesKey::all(), ScanOptions::new()))
        .into_iter()
        .map(|r| r.row_key)
        .collect();
    assert_eq!(
        everything,
        [
            &b"com.example.api|/v1\\|x"[..],
            b"com.example.www|/",
            b"org.example.www|/"
        ]
    );
}

#[test]
fn every_binary_component_type_round_trips_through_the_server() {
    let _g = serial();
    let mut conn = connect();
    let mut t: AllTypesTable = fresh(&mut conn);
    let keys = [
        AllTypesKey::new(
            "a\0b",
            b"\x00\xff".to_vec(),
            i32::MIN,
            i64::MAX,
            f32::NEG_INFINITY,
            -0.0,
            -1,
        ),
        AllTypesKey::new("", Vec::new(), 0, i64::MIN, 1.5, f64::NAN, 1i64 << 62),
        AllTypesKey::new("日本", b"z".to_vec(), i32::MAX, 0, -0.0, 1e300, 0),
    ];
    for (i, k) in keys.iter().enumerate() {
        let values = AllTypesValues {
            note: Some(i.to_string()),
        };
        t.put(k, &values).unwrap();
    }
    let rows = all(t.scan(&AllTypesKey::all(), ScanOptions::new()));
    let mut want: Vec<Vec<u8>> = keys.iter().map(|k| k.encode().unwrap()).collect();
    want.sort();
    assert_eq!(
        rows.iter().map(|r| r.row_key.clone()).collect::<Vec<_>>(),
        want
    );
    for r in rows {
        let k = &keys[r.values.note.as_deref().unwrap().parse::<usize>().unwrap()];
        assert_eq!(r.row_key, k.encode().unwrap());
        assert_eq!(
            (&r.key.s, &r.key.b, r.key.i, r.key.l, r.key.t),
            (&k.s, &k.b, k.i, k.l, k.t)
        );
        assert_eq!(
            (r.key.f.to_bits(), r.key.d.is_nan()),
            (k.f.to_bits(), k.d.is_nan())
        );
    }
}

#[test]
fn fixed_layout_with_a_kept_hash() {
    let _g = serial();
    let mut conn = connect();
    let mut t: FixedOrdersTable = fresh(&mut conn);
    for order_no in [5, 7, 6] {
        let values = FixedOrdersValues {
            total: Some(order_no as f64 * 1.5),
        };
        t.put(&FixedOrdersKey::new("eu", order_no, 4321), &values)
            .unwrap();
    }
    let key = FixedOrdersKey::new("eu", 7, 4321);
    let raw = key.encode().unwrap();
    assert_eq!(raw.len(), 2 + 8 + 10 + 6);
    let row = t.get(&key).unwrap().expect("row");
    assert_eq!(row.values.total, Some(10.5));
    assert_eq!(row.key.hash, raw[..2]);
    assert_eq!(
        (row.key.region.as_str(), row.key.order_no, row.key.account),
        ("eu", 7, 4321)
    );
    let orders: Vec<i64> = all(t.scan(&FixedOrdersKey::all(), ScanOptions::new()))
        .iter()
        .map(|r| r.key.order_no)
        .collect();
    assert_eq!(
        orders,
        [7, 6, 5],
        "one hash (same account); orders descending"
    );
    assert!(matches!(
        FixedOrdersKey::new("eu", -1, 1).encode(),
        Err(Error::KeyEncoding(_))
    ));
}

#[test]
fn framed_transport_and_typed_errors() {
    let _g = serial();
    let (host, port) = target();
    let mut conn = connect();
    let _: CountersTable = fresh(&mut conn);
    // redbase serves both transports on one port; HBase's gateway one, chosen at its start
    // (the oracle's is buffered: REDBASE_SDK_FRAMED=0).
    if std::env::var("REDBASE_SDK_FRAMED").as_deref() != Ok("0") {
        let options = ConnectOptions {
            transport: Transport::Framed,
            ..sdk_rust_tests::options()
        };
        let mut framed = Connection::open(&host, port, &options).unwrap();
        let mut t = CountersTable::new(&mut framed);
        assert_eq!(
            t.increment_slots(&CountersKey::new("framed"), 7, 2)
                .unwrap(),
            2
        );
        let row = t.get(&CountersKey::new("framed")).unwrap().expect("row");
        assert_eq!(row.values.slots, BTreeMap::from([(7, 2)]));
    }
    // A table the server does not have: the server's TIOError as a typed error.
    let mut missing = LeaderboardTable::new(&mut conn);
    if missing.exists().unwrap() {
        missing.drop_table().unwrap();
    }
    let err = missing.get(&LeaderboardKey::new("g", 1, "n")).unwrap_err();
    assert!(matches!(err, Error::Server { .. }), "{err:?}");
    // Nothing listens on the port of a closed listener.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let err = Connection::connect("127.0.0.1", closed.port()).unwrap_err();
    assert!(matches!(err, Error::Transport(_)), "{err:?}");
}

/// A key built from `Default` strings (a forgotten component) is refused with the variant of its
/// own, naming the component; a component the schema lets be empty encodes.
#[test]
fn empty_key_components_are_refused_unless_allowed() {
    let refused = AccessLogsKey::new("", "jericho", 201501).encode();
    assert!(
        matches!(
            refused,
            Err(Error::EmptyKeyComponent {
                key: "access_logs",
                component: "user_id"
            })
        ),
        "{refused:?}"
    );
    let root = WebPagesKey::new("www.example.com", "").encode().unwrap();
    assert_eq!(root, b"com.example.www|");
}
