//! Regions: size-triggered splits with reads and writes going on, counters, and scans that
//! cross region boundaries while they move.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use redbase::engine::*;

fn small_regions() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            region_max_size: 64 * 1024,
            ..Default::default()
        },
    )
    .unwrap();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    (dir, e)
}

/// An engine that splits only when asked (`config` with no size trigger) and its table "t"
/// with family "f" of `versions` versions.
fn manual_splits(config: EngineConfig, versions: i32) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            region_max_size: 0,
            ..config
        },
    )
    .unwrap();
    table(
        &e,
        "t",
        vec![FamilyDescriptor::new(b"f").max_versions(versions)],
    );
    (dir, e)
}

#[test]
fn regions_split_by_size_while_reads_and_writes_go_on() {
    let (dir, e) = small_regions();
    let stop = Arc::new(AtomicBool::new(false));
    // A reader that keeps scanning and checking order while regions split under it.
    let reader = {
        let e = e.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut scans = 0;
            while !stop.load(Ordering::Relaxed) {
                let rows: Vec<Vec<u8>> = e
                    .scan("t", Scan::new())
                    .unwrap()
                    .map(|r| r.unwrap().row().to_vec())
                    .collect();
                assert!(rows.windows(2).all(|w| w[0] < w[1]), "scan out of order");
                scans += 1;
            }
            scans
        })
    };
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let e = e.clone();
            std::thread::spawn(move || {
                for i in 0..300 {
                    let row = format!("{:04}-{w}", (i * 7919 + w * 13) % 10000);
                    e.mutate_row(
                        "t",
                        RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", &[b'v'; 200])),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    // Splits run in the background; wait for them to settle.
    let deadline = Instant::now() + Duration::from_secs(30);
    while e.regions("t").unwrap().iter().any(|r| r.size > 64 * 1024) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    assert!(reader.join().unwrap() > 0);
    let regions = e.regions("t").unwrap();
    assert!(
        regions.len() >= 4,
        "expected several splits, got {} regions",
        regions.len()
    );
    assert!(e.split_count() as usize >= regions.len() - 1);
    covers_key_space(&e, "t");
    assert_eq!(scan_rows(&e, "t", Scan::new()).len(), 1200);
    // Pauses were measured.
    assert_eq!(e.split_pauses().len() as u64, e.split_count());
    // The same regions and data after a restart.
    let names: Vec<String> = regions.iter().map(|r| r.name.clone()).collect();
    e.close();
    drop(e);
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let again: Vec<String> = e
        .regions("t")
        .unwrap()
        .iter()
        .map(|r| r.name.clone())
        .collect();
    assert_eq!(names, again);
    assert_eq!(scan_rows(&e, "t", Scan::new()).len(), 1200);
}

#[test]
fn writes_during_a_split_are_not_lost() {
    let (_dir, e) = manual_splits(EngineConfig::default(), 1);
    for i in 0..2000 {
        put(&e, "t", &format!("r{i:05}"), "f:q", 1, "base");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let e = e.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) || n < 50 {
                    let row = format!("w{w}-{n:05}");
                    e.mutate_row(
                        "t",
                        RowMutation::new(row.as_bytes()).with(Op::put(b"f", b"q", b"x")),
                    )
                    .unwrap();
                    // Overwrite and delete existing rows too, so the replay sees both.
                    let base = format!("r{:05}", (n * 37 + w * 101) % 2000);
                    if n % 2 == 0 {
                        put(&e, "t", &base, "f:q", 2, &format!("w{w}"));
                    } else {
                        mutate(&e, "t", &base, Op::DeleteRow { timestamp: Some(1) });
                    }
                    n += 1;
                }
                n
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(50));
    e.split_region("t", b"r01000", Some(b"r01000")).unwrap();
    e.split_region("t", b"w", None).unwrap();
    stop.store(true, Ordering::Relaxed);
    let counts: Vec<usize> = writers.into_iter().map(|w| w.join().unwrap()).collect();
    assert_eq!(e.regions("t").unwrap().len(), 3);
    for (w, n) in counts.iter().enumerate() {
        for i in 0..*n {
            let row = format!("w{w}-{i:05}");
            assert!(
                e.get("t", Get::new(row.as_bytes())).unwrap().is_some(),
                "lost {row}"
            );
        }
    }
    // Every base row shows what was done to it: a ts-2 put survives the ts-1 row deletes, the
    // ts-1 base value survives only if no delete reached the row.
    let mut put_rows = std::collections::HashSet::new();
    let mut deleted_rows = std::collections::HashSet::new();
    for (w, n) in counts.iter().enumerate() {
        for i in 0..*n {
            let base = (i * 37 + w * 101) % 2000;
            if i % 2 == 0 {
                put_rows.insert(base);
            } else {
                deleted_rows.insert(base);
            }
        }
    }
    for i in 0..2000 {
        let row = format!("r{i:05}");
        let got = values(&e, "t", &row, ReadOptions::default());
        if put_rows.contains(&i) {
            assert!(got.len() == 1 && got[0].starts_with('w'), "{row}: {got:?}");
        } else if deleted_rows.contains(&i) {
            assert!(got.is_empty(), "{row}: {got:?}");
        } else {
            assert_eq!(got, vec!["base"], "{row}");
        }
    }
    assert!(e.split_pauses().iter().all(|p| *p < Duration::from_secs(5)));
}

#[test]
fn regions_count_reads_writes_and_bytes() {
    let (_d, e) = engine();
    let d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    e.create_table(d, &[b"m".to_vec()]).unwrap();
    for i in 0..10 {
        put(&e, "t", &format!("a{i}"), "f:q", 1, "v");
    }
    put(&e, "t", "z", "f:q", 1, "v");
    for _ in 0..5 {
        e.get("t", Get::new(b"a1")).unwrap();
    }
    let r = e.regions("t").unwrap();
    assert_eq!((r[0].writes, r[1].writes), (10, 1));
    assert_eq!((r[0].reads, r[1].reads), (5, 0));
    assert!(r[0].write_bytes > r[1].write_bytes && r[0].size > r[1].size && r[0].read_bytes > 0);
    assert!(r[0].commits >= 1);
}

#[test]
fn a_scanner_survives_a_split_under_it() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for i in 0..1000 {
        put(&e, "t", &format!("r{i:04}"), "f:q", 1, "v");
    }
    let mut s = e.scan("t", Scan::new()).unwrap();
    let first = s.next_batch(300).unwrap();
    e.split_region("t", b"r0500", Some(b"r0500")).unwrap();
    e.compact("t", true).unwrap();
    let rest = s.next_batch(10_000).unwrap();
    let all: Vec<Vec<u8>> = first
        .into_iter()
        .chain(rest)
        .map(|r| r.row().to_vec())
        .collect();
    assert_eq!(all.len(), 1000);
    assert!(all.windows(2).all(|w| w[0] < w[1]));
}

/// Regression: a commit batch that began before a split started recording and committed after
/// its snapshot used to be lost. Many rounds of small regions and concurrent writers.
#[test]
fn acknowledged_writes_survive_size_triggered_splits() {
    for round in 0..6 {
        let dir = tempfile::tempdir().unwrap();
        let e = Engine::open(
            dir.path(),
            EngineConfig {
                region_max_size: 16 * 1024,
                ..Default::default()
            },
        )
        .unwrap();
        table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
        let writers: Vec<_> = (0..8)
            .map(|w| {
                let e = e.clone();
                std::thread::spawn(move || {
                    (0..150)
                        .map(|i| {
                            let row = format!("{:03}-{w}-{round}", (i * 37 + w * 11) % 1000);
                            e.mutate_row(
                                "t",
                                RowMutation::new(row.as_bytes())
                                    .with(Op::put(b"f", b"q", &[7; 100])),
                            )
                            .unwrap();
                            row
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let acked: Vec<String> = writers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        e.close();
        drop(e);
        let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        assert!(
            e.regions("t").unwrap().len() > 1,
            "round {round}: no split happened"
        );
        covers_key_space(&e, "t");
        for row in &acked {
            assert!(
                e.get("t", Get::new(row.as_bytes())).unwrap().is_some(),
                "round {round}: acknowledged row {row} lost"
            );
        }
    }
}

/// Splits and major compactions show in /metrics as histograms of their whole duration and of
/// the pause they held writes for.
#[test]
fn splits_and_compactions_report_durations_and_pauses_in_metrics() {
    let (_d, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for i in 0..200 {
        put(&e, "t", &format!("r{i:03}"), "f:q", 1, "v");
    }
    e.split_region("t", b"r100", Some(b"r100")).unwrap();
    e.compact("t", true).unwrap();
    let metrics =
        redbase::metrics::Metrics::new(e.clone(), Vec::new(), &redbase::thrift::Limits::default());
    let text = metrics.render().unwrap();
    let sample = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };
    assert_eq!(sample("redbase_split_duration_seconds_count"), 1.0);
    assert_eq!(sample("redbase_split_pause_seconds_count"), 1.0);
    // One major compaction of each of the two regions.
    assert_eq!(
        sample("redbase_major_compaction_duration_seconds_count"),
        2.0
    );
    assert_eq!(sample("redbase_major_compaction_pause_seconds_count"), 2.0);
    assert!(
        sample("redbase_split_pause_seconds_sum") <= sample("redbase_split_duration_seconds_sum")
    );
    assert_eq!(e.split_pauses().len(), 1);
}

/// Region files share one page cache budget: the parts given out stay within it (plus a small
/// floor per file) however many regions open, and come back when regions close.
#[test]
fn region_files_share_one_cache_budget() {
    let dir = tempfile::tempdir().unwrap();
    let budget = 16 << 20;
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            cache_size: budget,
            ..Default::default()
        },
    )
    .unwrap();
    let splits: Vec<Vec<u8>> = (1..40u8).map(|i| vec![i]).collect();
    let d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    e.create_table(d, &splits).unwrap();
    let (held, files) = e.cache_held();
    assert_eq!(files, 40);
    assert_eq!(e.cache_budget(), budget);
    assert!(
        held <= budget + files * redbase::engine::cache::MIN_SHARE,
        "{held} bytes held by {files} files"
    );
    // A split closes one file and opens two.
    put(&e, "t", "\u{5}a", "f:q", 1, "v");
    put(&e, "t", "\u{5}b", "f:q", 1, "v");
    e.split_region("t", b"\x05a", Some(b"\x05b")).unwrap();
    assert_eq!(e.cache_held().1, 41);
    e.disable_table("t").unwrap();
    e.delete_table("t").unwrap();
    assert_eq!(e.cache_held(), (0, 0));
}

/// Writers that outpace a split's catch-up (here: catch-up throttles at once, with no free
/// rounds) are held back in short slices until the backlog is small; the switch then replays
/// at most a slice's leftover, and every acknowledged row is in the new regions.
#[test]
fn a_split_throttles_writers_that_outpace_its_catch_up() {
    let (_dir, e) = manual_splits(
        EngineConfig {
            catch_up_free_rounds: 0,
            ..Default::default()
        },
        1,
    );
    let base: Vec<RowMutation> = (0..20_000)
        .map(|i| {
            RowMutation::new(format!("a{i:06}").as_bytes()).with(Op::put(b"f", b"q", &[7u8; 100]))
        })
        .collect();
    assert!(e.mutate_rows("t", base).iter().all(|r| r.is_ok()));
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let e = e.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut n = 0usize;
                // Bounded, so a catch-up that never converged could not fill the disk.
                while !stop.load(Ordering::Relaxed) && n < 400_000 {
                    // Bulk batches on both sides of the split point, as a bulk load sends.
                    let batch: Vec<RowMutation> = (n..n + 200)
                        .map(|i| {
                            let side = if i % 2 == 0 { 'a' } else { 'b' };
                            let mut m = RowMutation::new(format!("{side}{w}-{i:07}").as_bytes())
                                .with(Op::put(b"f", b"q", b"v"));
                            m.durability = Durability::AsyncWal;
                            m
                        })
                        .collect();
                    assert!(e.mutate_rows("t", batch).iter().all(|r| r.is_ok()));
                    n += 200;
                }
                n
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(20));
    e.split_region("t", b"a", Some(b"a010000")).unwrap();
    stop.store(true, Ordering::Relaxed);
    let counts: Vec<usize> = writers.into_iter().map(|w| w.join().unwrap()).collect();
    let report = e.split_reports()[0];
    assert!(
        report.throttled_slices > 0,
        "writes during the copy left a backlog, so catch-up throttled: {report:?}"
    );
    assert!(
        report.paused_keys <= 256,
        "the switch replays only what the last slice left: {report:?}"
    );
    assert_eq!(e.regions("t").unwrap().len(), 2);
    covers_key_space(&e, "t");
    for (w, n) in counts.iter().enumerate() {
        for i in 0..*n {
            let side = if i % 2 == 0 { 'a' } else { 'b' };
            let row = format!("{side}{w}-{i:07}");
            assert!(
                e.get("t", Get::new(row.as_bytes())).unwrap().is_some(),
                "lost {row}"
            );
        }
    }
    for i in (0..20_000).step_by(97) {
        let row = format!("a{i:06}");
        assert!(
            e.get("t", Get::new(row.as_bytes())).unwrap().is_some(),
            "lost {row}"
        );
    }
}

/// A region bigger than one copy transaction (32 MiB) splits in several commits; every row
/// keeps every version, whichever commit its cells fell in.
#[test]
fn a_split_copies_a_large_region_in_bounded_commits() {
    let (_dir, e) = large_region(3);
    e.split_region("t", b"r", Some(b"r06000")).unwrap();
    assert_eq!(e.regions("t").unwrap().len(), 2);
    covers_key_space(&e, "t");
    check_large_region(&e, 3);
}

/// Closing the engine while a large region splits does not wait for the copy: the split
/// gives up or finishes, and the reopened engine has every row either way.
#[test]
fn closing_during_a_split_loses_nothing() {
    let (dir, e) = large_region(1);
    let splitter = {
        let e = e.clone();
        std::thread::spawn(move || e.split_region("t", b"r", Some(b"r06000")).is_ok())
    };
    std::thread::sleep(Duration::from_millis(50));
    e.close();
    let split = splitter.join().unwrap();
    drop(e);
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    assert_eq!(e.regions("t").unwrap().len(), if split { 2 } else { 1 });
    covers_key_space(&e, "t");
    check_large_region(&e, 1);
}

/// 12,000 rows of `versions` 1,200-byte versions each: about 14 MiB per version.
fn large_region(versions: u32) -> (tempfile::TempDir, Engine) {
    let (dir, e) = manual_splits(EngineConfig::default(), 3);
    for v in 0..versions {
        for chunk in (0..12_000).collect::<Vec<u32>>().chunks(1000) {
            let rows = chunk
                .iter()
                .map(|i| {
                    let value = format!("{i:06}-{v}-").repeat(120).into_bytes();
                    RowMutation::new(format!("r{i:05}").as_bytes()).with(Op::Put {
                        family: b"f".to_vec(),
                        qualifier: b"q".to_vec(),
                        timestamp: Some(100 + v as i64),
                        value,
                    })
                })
                .collect();
            assert!(e.mutate_rows("t", rows).iter().all(|r| r.is_ok()));
        }
    }
    (dir, e)
}

fn check_large_region(e: &Engine, versions: u32) {
    for i in 0..12_000u32 {
        let row = format!("r{i:05}");
        let got = values(
            e,
            "t",
            &row,
            ReadOptions {
                max_versions: 3,
                ..Default::default()
            },
        );
        let want: Vec<String> = (0..versions)
            .rev()
            .map(|v| format!("{i:06}-{v}-").repeat(120))
            .collect();
        assert_eq!(got, want, "{row}");
    }
}

#[test]
fn size_splits_stop_at_the_region_split_limit() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            region_max_size: 16 * 1024,
            region_split_limit: 3,
            ..Default::default()
        },
    )
    .unwrap();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    // About 300 KB in scrambled order: twenty regions' worth at 16 KiB.
    for i in 0..600u32 {
        let row = format!("{:05}", (i * 7919) % 600);
        put(&e, "t", &row, "f:q", 1, &"v".repeat(500));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while e.splits_at_limit() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(e.splits_at_limit() > 0, "no split was refused at the limit");
    assert_eq!(
        e.region_count(),
        3,
        "size-triggered splits stop at the limit"
    );
    covers_key_space(&e, "t");
    assert_eq!(scan_rows(&e, "t", Scan::new()).len(), 600);
    // A split asked for by hand is not limited, as in HBase.
    e.split_region("t", b"00300", None).unwrap();
    assert_eq!(e.region_count(), 4);
    assert_eq!(scan_rows(&e, "t", Scan::new()).len(), 600);
}
