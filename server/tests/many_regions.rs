//! 10,000 regions in one process, as HBase serves thousands per region server: regions hold no
//! threads of their own (their commits share the engine's pool), so the thread count stays
//! flat however many regions a table is pre-split into. Split keys per table are capped.

mod common;

use common::*;
use redbase::engine::*;

fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .unwrap()
        .trim()
        .trim_end_matches(" kB")
        .parse()
        .unwrap()
}

#[test]
fn ten_thousand_regions_with_a_flat_thread_count() {
    let (dir, e) = engine();
    let before = threads();
    let rss_before = rss_kib();
    let splits: Vec<Vec<u8>> = (1..10_000)
        .map(|i| format!("{i:05}").into_bytes())
        .collect();
    let d = TableDescriptor::new(TableName::parse("wide").unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    let started = std::time::Instant::now();
    e.create_table(d, &splits).unwrap();
    eprintln!("created 10,000 regions in {:?}", started.elapsed());
    assert_eq!(e.regions("wide").unwrap().len(), 10_000);
    // One write into every region, from a few writers at once.
    std::thread::scope(|s| {
        for w in 0..4 {
            let e = &e;
            s.spawn(move || {
                for i in (w..10_000).step_by(4) {
                    put(e, "wide", &format!("{i:05}-row"), "f:q", 1, &i.to_string());
                }
            });
        }
    });
    let during = threads();
    let (live, cap) = e.commit_threads();
    eprintln!(
        "threads before {before}, after writes {during} (committers {live} of {cap}), \
         RSS {rss_before} -> {} KiB",
        rss_kib()
    );
    assert!(live <= cap);
    assert!(
        during <= before + cap + 2,
        "threads grew from {before} to {during} for 10,000 regions"
    );
    let rows = scan_rows(&e, "wide", Scan::new());
    assert_eq!(rows.len(), 10_000);
    assert_eq!(rows[9_999], "09999-row");
    // They all come back after a restart, still without a thread each.
    e.close();
    drop(e);
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    assert_eq!(e.regions("wide").unwrap().len(), 10_000);
    assert_eq!(
        values(&e, "wide", "05000-row", ReadOptions::default()),
        vec!["5000"]
    );
    assert!(threads() <= before + 16 + 2);
}

#[test]
fn split_keys_per_table_are_capped() {
    let (_d, e) = engine();
    let splits: Vec<Vec<u8>> = (0..=MAX_SPLIT_KEYS)
        .map(|i| format!("{i:06}").into_bytes())
        .collect();
    let d = TableDescriptor::new(TableName::parse("toowide").unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    let err = e.create_table(d, &splits).unwrap_err();
    assert!(
        err.to_string().contains("10001 split keys") && err.to_string().contains("10000"),
        "{err}"
    );
    assert!(e.regions("toowide").is_err(), "nothing was created");
}

#[test]
fn an_engine_reopens_at_once_after_writes_on_the_shared_committers() {
    // The committer pool's workers hold a region while they send replies; closing must wait
    // for them, or reopening the data directory finds the region files still open.
    let dir = tempfile::tempdir().unwrap();
    let splits: Vec<Vec<u8>> = (1..8).map(|i| vec![b'0' + i]).collect();
    for cycle in 0..60 {
        let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        if cycle == 0 {
            let d = TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(FamilyDescriptor::new(b"f"));
            e.create_table(d, &splits).unwrap();
        }
        std::thread::scope(|s| {
            for w in 0..4 {
                let e = &e;
                s.spawn(move || {
                    for i in 0..8 {
                        let row = format!("{}-{cycle}-{w}-{i}", (i * 3 + w) % 9);
                        put(e, "t", &row, "f:q", 1, "v");
                    }
                });
            }
        });
        assert!(e.offline_tables().is_empty(), "cycle {cycle}");
        e.close();
        drop(e);
    }
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    assert!(e.offline_tables().is_empty());
    assert_eq!(scan_rows(&e, "t", Scan::new()).len(), 60 * 32);
}

/// Regions come from one bound (`max_regions`): a table that would pass it is refused before
/// any file is made, splits by hand or by size stop there, dropping a table frees room, and
/// regions already on disk open whatever the bound.
#[test]
fn the_region_bound_refuses_tables_and_splits_past_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = EngineConfig {
        max_regions: 10,
        region_split_limit: 0,
        region_max_size: 16 * 1024,
        ..Default::default()
    };
    let e = Engine::open(dir.path(), config.clone()).unwrap();
    pre_split(&e, "a", 8).unwrap();
    assert_eq!(e.region_count(), 8);

    let err = pre_split(&e, "b", 3).unwrap_err();
    assert!(
        matches!(
            err,
            TableError::TooManyRegions {
                adding: 3,
                held: 8,
                limit: 10,
                ..
            }
        ),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains("creating table b ") && msg.contains("--max-regions"),
        "{msg}"
    );
    assert!(!err.kind().retryable(), "retrying cannot help: {msg}");
    assert!(e.regions("b").is_err(), "nothing of the table was created");
    assert!(
        !dir.path().join("tables/default/b").exists(),
        "no directory or file was made"
    );
    assert_eq!(e.regions_refused(), 1);

    pre_split(&e, "b", 2).unwrap();
    assert_eq!(e.region_count(), 10);
    // A split asked for by hand would make an eleventh.
    put(&e, "b", "500", "f:q", 1, "v");
    put(&e, "b", "700", "f:q", 1, "v");
    let err = e.split_region("b", b"500", Some(b"600")).unwrap_err();
    assert!(matches!(err, TableError::TooManyRegions { .. }), "{err}");
    // Truncating keeps the count: allowed.
    e.disable_table("b").unwrap();
    e.truncate_table("b", true).unwrap();
    assert_eq!(e.region_count(), 10);
    // Splits the regions' size asks for stop at the bound too: about 300 KB into 16 KiB regions.
    // Counted from before the writes: the split thread may refuse the last one before they end.
    let refused = e.regions_refused();
    for i in 0..600u32 {
        let row = format!("{:03}-{i}", (i * 7919) % 600 / 100);
        put(&e, "a", &row, "f:q", 1, &"v".repeat(500));
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while e.regions_refused() == refused && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        e.regions_refused() > refused,
        "a size-triggered split was refused"
    );
    assert_eq!(e.region_count(), 10);
    assert_eq!(scan_rows(&e, "a", Scan::new()).len(), 600);

    // Once the refused splits are done: they would take the room the drop frees, as they should.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while e.splits_queued() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(e.splits_queued(), 0);

    // Dropping a table gives its regions back.
    e.disable_table("b").unwrap();
    e.delete_table("b").unwrap();
    pre_split(&e, "c", 2).unwrap();
    assert_eq!(e.region_count(), 10);

    // A smaller bound after a restart: the regions on disk all open, and nothing more is made.
    e.close();
    drop(e);
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            max_regions: 4,
            ..config
        },
    )
    .unwrap();
    assert_eq!(e.region_count(), 10);
    assert_eq!(scan_rows(&e, "a", Scan::new()).len(), 600);
    assert!(matches!(
        pre_split(&e, "d", 1),
        Err(TableError::TooManyRegions {
            adding: 1,
            held: 10,
            limit: 4,
            ..
        })
    ));
}
