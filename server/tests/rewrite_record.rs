//! The keys written while a split copies a region: the copy replays the ones it can no longer
//! overwrite as it goes (so a sequential load into the region keeps the record small however
//! long the copy takes), the record has a bound at which writers wait, and a writer that waits
//! too long is refused with a retryable error. No acknowledged write is lost either way.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use redbase::engine::error::ErrorKind;
use redbase::engine::*;

/// Rows `r00000`.. of one 1,200-byte cell each (about 14 MiB for 12,000 rows): a copy commits
/// every few MiB when its record fills.
fn region_of(rows: u32, config: EngineConfig) -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            region_max_size: 0,
            ..config
        },
    )
    .unwrap();
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    for chunk in (0..rows).collect::<Vec<u32>>().chunks(1000) {
        let batch = chunk
            .iter()
            .map(|i| row_put(&format!("r{i:05}"), b"q", format!("{i:06}-").repeat(200)))
            .collect();
        assert!(e.mutate_rows("t", batch).iter().all(|r| r.is_ok()));
    }
    (dir, e)
}

fn row_put(row: &str, qualifier: &[u8], value: String) -> RowMutation {
    RowMutation::new(row.as_bytes()).with(Op::Put {
        family: b"f".to_vec(),
        qualifier: qualifier.to_vec(),
        timestamp: None,
        value: value.into_bytes(),
    })
}

/// Samples the keys rewrites hold while `running`, returning the most seen.
fn watch_held(e: &Engine, running: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    let e = e.clone();
    std::thread::spawn(move || {
        let mut peak = 0;
        while running.load(Ordering::Acquire) {
            peak = peak.max(e.record_pressure().held_keys);
            std::thread::sleep(Duration::from_micros(200));
        }
        peak
    })
}

/// A writer appending rows after the region's last row while it splits: the copy never reaches
/// those keys, so it replays them between its commits instead of holding them to the end (the
/// scale run shows what that does to memory under a bulk load), and the record stays within
/// its bound.
#[test]
fn a_sequential_load_during_a_split_is_replayed_while_the_copy_runs() {
    const MAX: usize = 400;
    let (_dir, e) = region_of(
        24_000,
        EngineConfig {
            max_recorded_keys: MAX,
            ..Default::default()
        },
    );
    let splitting = Arc::new(AtomicBool::new(true));
    let written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (e, splitting, written) = (e.clone(), splitting.clone(), written.clone());
        std::thread::spawn(move || {
            let mut i = 0u32;
            while splitting.load(Ordering::Acquire) || i < 200 {
                let batch = (i..i + 10)
                    .map(|j| row_put(&format!("s{j:06}"), b"q", format!("{j}")))
                    .collect();
                assert!(e.mutate_rows("t", batch).iter().all(|r| r.is_ok()));
                i += 10;
                written.fetch_add(10, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(5));
            }
            i
        })
    };
    let peak = watch_held(&e, splitting.clone());
    std::thread::sleep(Duration::from_millis(20));
    let before = written.load(Ordering::Relaxed);
    e.split_region("t", b"r", Some(b"r12000")).unwrap();
    let during = written.load(Ordering::Relaxed) - before;
    splitting.store(false, Ordering::Release);
    let rows = writer.join().unwrap();
    let peak = peak.join().unwrap();

    let report = *e.split_reports().last().unwrap();
    assert!(during > 0, "the writer went on during the split");
    assert!(
        report.drained_keys > 0,
        "keys written after the snapshot's last row are replayed during the copy: {report:?}"
    );
    assert!(
        peak <= MAX + 10,
        "the record stayed within its bound: peak {peak}"
    );
    assert_eq!(e.regions("t").unwrap().len(), 2);
    for j in 0..rows {
        let row = format!("s{j:06}");
        assert_eq!(
            values(&e, "t", &row, ReadOptions::default()),
            vec![format!("{j}")],
            "{row}"
        );
    }
}

/// Writers overwriting rows the copy has not reached yet: those keys cannot be replayed until
/// it passes them, so the record fills; writers then wait at the bound instead of growing it,
/// and every acknowledged write is there after the split.
#[test]
fn writers_wait_at_the_record_bound_and_lose_nothing() {
    // Small, so that a copy done quickly (a loaded machine gives the writers few turns while
    // it runs) still sees the record fill.
    const MAX: usize = 30;
    let (_dir, e) = region_of(
        12_000,
        EngineConfig {
            max_recorded_keys: MAX,
            ..Default::default()
        },
    );
    let splitting = Arc::new(AtomicBool::new(true));
    let acked = Arc::new(Mutex::new(BTreeMap::new()));
    let writers: Vec<_> = (0..4u32)
        .map(|w| {
            let (e, splitting, acked) = (e.clone(), splitting.clone(), acked.clone());
            std::thread::spawn(move || {
                let mut n = 0u32;
                while splitting.load(Ordering::Acquire) {
                    // The region's last thousand rows: ahead of the copy until its very end.
                    let i = 11_000 + (n * 7919 + w * 3001) % 1_000;
                    let row = format!("r{i:05}");
                    let value = format!("w{w}-{n}");
                    let m = row_put(&row, format!("w{w}").as_bytes(), value.clone());
                    e.mutate_rows("t", vec![m])
                        .into_iter()
                        .for_each(|r| r.unwrap());
                    acked.lock().unwrap().insert((row, w), value);
                    n += 1;
                }
            })
        })
        .collect();
    let peak = watch_held(&e, splitting.clone());
    std::thread::sleep(Duration::from_millis(20));
    e.split_region("t", b"r", Some(b"r06000")).unwrap();
    splitting.store(false, Ordering::Release);
    for w in writers {
        w.join().unwrap();
    }
    let peak = peak.join().unwrap();
    let pressure = e.record_pressure();
    assert!(
        pressure.waits > 0,
        "writers outpacing the copy were held at the bound: {pressure:?}, {} acknowledged, {:?}",
        acked.lock().unwrap().len(),
        e.split_reports().last()
    );
    assert_eq!(pressure.refused, 0);
    assert_eq!(
        pressure.held_keys, 0,
        "nothing is held once the split is done"
    );
    // Four writers may each have one write in flight past the bound.
    assert!(peak <= MAX + 4, "peak {peak} over the bound {MAX}");
    for ((row, w), value) in acked.lock().unwrap().iter() {
        let got = cells(&e, "t", row, ReadOptions::default());
        assert!(
            got.iter()
                .any(|(col, _, v)| col == &format!("f:w{w}") && v == value),
            "{row} lost writer {w}'s last acknowledged value {value}: {got:?}"
        );
    }
}

/// A writer held at the bound longer than the busy wait is refused with a retryable error
/// naming the region and the bound, and what it was refused is not written.
#[test]
fn a_write_held_past_the_busy_wait_is_refused_and_retryable() {
    let (_dir, e) = region_of(
        12_000,
        EngineConfig {
            max_recorded_keys: 20,
            write_busy_wait: Duration::from_millis(5),
            ..Default::default()
        },
    );
    let splitting = Arc::new(AtomicBool::new(true));
    let writer = {
        let (e, splitting) = (e.clone(), splitting.clone());
        std::thread::spawn(move || {
            let (mut refused, mut acked) = (None, Vec::new());
            let mut n = 0u32;
            while splitting.load(Ordering::Acquire) {
                // New columns in the region's last row sort before its last key: the copy
                // reaches them only at its very end.
                let q = format!("a{n:06}");
                match e
                    .mutate_rows("t", vec![row_put("r11999", q.as_bytes(), q.clone())])
                    .remove(0)
                {
                    Ok(()) => acked.push(q),
                    Err(err) => refused = Some((q, err)),
                }
                n += 1;
            }
            (refused, acked)
        })
    };
    std::thread::sleep(Duration::from_millis(20));
    e.split_region("t", b"r", Some(b"r06000")).unwrap();
    splitting.store(false, Ordering::Release);
    let (refused, acked) = writer.join().unwrap();
    let (q, err) = refused.expect("a write was refused at the bound");
    assert!(
        matches!(err, MutateError::RegionTooBusy { max: 20, .. }),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::Io { retryable: true });
    let text = err.to_string();
    assert!(
        text.contains("too busy") && text.contains("bound is 20") && text.contains("retry"),
        "{text}"
    );
    assert!(e.record_pressure().refused > 0);
    let got = cells(&e, "t", "r11999", ReadOptions::default());
    for a in &acked {
        assert!(got
            .iter()
            .any(|(col, _, v)| col == &format!("f:{a}") && v == a));
    }
    assert!(
        !got.iter().any(|(col, _, _)| col == &format!("f:{q}")),
        "the refused write {q} is not there"
    );
}

/// `region_of`'s region reopened with splits by size on: 2 MiB regions blocking at
/// `factor` x 2 MiB, so the first write sets off a split of the 14 MiB region.
fn splitting_region(factor: u64, block_wait: Duration) -> (tempfile::TempDir, Engine) {
    let (dir, e) = region_of(12_000, EngineConfig::default());
    e.close();
    drop(e);
    let e = Engine::open(
        dir.path(),
        EngineConfig {
            region_max_size: 2 * 1024 * 1024,
            region_block_factor: factor,
            region_block_wait: block_wait,
            ..Default::default()
        },
    )
    .unwrap();
    (dir, e)
}

/// Appends rows after the region's last one (where a sequential load writes) until `done`
/// says stop, returning the rows acknowledged and the first refusal.
fn append_until(
    e: &Engine,
    done: impl Fn(&Engine, u32) -> bool,
) -> (Vec<String>, Option<(Vec<String>, MutateError)>) {
    let mut acked = Vec::new();
    let mut n = 0u32;
    while !done(e, n) {
        let rows: Vec<String> = (n..n + 10).map(|j| format!("s{j:06}")).collect();
        let batch = rows.iter().map(|r| row_put(r, b"q", r.clone())).collect();
        let results = e.mutate_rows("t", batch);
        if let Some(Err(err)) = results.iter().find(|r| r.is_err()) {
            let failed = rows
                .iter()
                .zip(&results)
                .filter(|(_, r)| r.is_err())
                .map(|(row, _)| row.clone())
                .collect();
            return (acked, Some((failed, err.clone())));
        }
        acked.extend(rows);
        n += 10;
    }
    (acked, None)
}

/// A load into a region far over its split size, while the split runs, is held until the
/// split ends instead of growing the region further (HBase blocks updates to a region over its
/// blocking memstore size); nothing is refused within the wait and nothing acknowledged is lost.
#[test]
fn writers_to_a_region_over_its_blocking_size_wait_for_its_split() {
    let (_dir, e) = splitting_region(2, Duration::from_secs(60));
    assert_eq!(e.record_pressure().block_size, 4 * 1024 * 1024);
    let started = std::time::Instant::now();
    let (acked, refused) = append_until(&e, |e, _| {
        let settled = e.regions("t").unwrap().len() >= 4 && e.record_pressure().held_keys == 0;
        (settled && e.record_pressure().size_waits > 0)
            || started.elapsed() > Duration::from_secs(60)
    });
    assert!(refused.is_none(), "{refused:?}");
    let p = e.record_pressure();
    assert!(
        p.size_waits > 0 && p.size_waited > Duration::ZERO,
        "writes to the 14 MiB region (blocking at 4 MiB) were held while it split: {p:?}"
    );
    assert_eq!(p.size_refused, 0);
    assert!(e.regions("t").unwrap().len() >= 4, "the region split");
    for row in &acked {
        assert_eq!(
            values(&e, "t", row, ReadOptions::default()),
            vec![row.clone()],
            "{row}"
        );
    }
}

/// With a short wait, a write held at the blocking size is refused with a retryable error that
/// names the region, its size and the blocking size, and what was refused is not written.
#[test]
fn a_write_held_at_the_blocking_size_past_its_wait_is_refused_and_retryable() {
    let (_dir, e) = splitting_region(2, Duration::from_millis(1));
    let started = std::time::Instant::now();
    let (acked, refused) = append_until(&e, |_, _| started.elapsed() > Duration::from_secs(60));
    let (failed, err) = refused.expect("a write was refused at the blocking size");
    assert!(
        matches!(err, MutateError::RegionOverBlockingSize { limit, .. } if limit == 4 * 1024 * 1024),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::Io { retryable: true });
    let text = err.to_string();
    assert!(
        text.contains("too busy")
            && text.contains("blocking size of 4194304 bytes")
            && text.contains("retry"),
        "{text}"
    );
    assert!(e.record_pressure().size_refused > 0);
    for row in &acked {
        assert_eq!(
            values(&e, "t", row, ReadOptions::default()),
            vec![row.clone()]
        );
    }
    for row in &failed {
        assert!(
            values(&e, "t", row, ReadOptions::default()).is_empty(),
            "the refused row {row} is not there"
        );
    }
}
