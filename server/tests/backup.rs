//! Online backup and restore against real `redbase serve` processes on loopback ports:
//! `redbase backup --to DIR` during a write load (durable and ASYNC_WAL puts over Thrift2),
//! `redbase restore`, and a server started on the restored data dir; checksums; kill -9 of the
//! backup client and of the server mid-stream, then a rerun; one backup at a time.

#[path = "backup_support/mod.rs"]
mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use redbase::engine::{
    AclScope, Actions, Engine, EngineConfig, FamilyDescriptor, NamespaceDescriptor, Op,
    RowMutation, TableDescriptor, TableName,
};
use redbase::generated::hbase2 as h2;
use redbase::generated::hbase2::TTHBaseServiceSyncClient;
use support::{all_cells, fails, files, ok, restore, Server};

const WRITERS: usize = 4;
const LOAD: &str = "ns_a:load";
const PLAIN: &str = "plain";
const OFF: &str = "ns_b:off";

fn create(e: &Engine, name: &str, families: &[&[u8]], splits: &[Vec<u8>]) {
    let mut d = TableDescriptor::new(TableName::parse(name).unwrap());
    for f in families {
        d = d.with_family(FamilyDescriptor::new(f).max_versions(3));
    }
    e.create_table(d, splits).unwrap();
}

/// Namespaces, a pre-split table, a plain one, a disabled one with a row, and grants.
fn schema(dir: &Path) -> String {
    let e = Engine::open(dir, EngineConfig::default()).unwrap();
    e.create_namespace(NamespaceDescriptor::new("ns_a"))
        .unwrap();
    e.create_namespace(NamespaceDescriptor::new("ns_b"))
        .unwrap();
    create(
        &e,
        LOAD,
        &[b"f"],
        &[b"g".to_vec(), b"n".to_vec(), b"t".to_vec()],
    );
    create(&e, PLAIN, &[b"f"], &[]);
    create(&e, OFF, &[b"x"], &[]);
    let m = RowMutation::new(b"kept").with(Op::put(b"x", b"q", b"in a disabled table"));
    e.mutate_rows(OFF, vec![m])
        .into_iter()
        .for_each(|r| r.unwrap());
    e.disable_table(OFF).unwrap();
    let load = TableName::parse(LOAD).unwrap();
    e.grant(
        "alice",
        AclScope::Table(load),
        Actions::parse("RW").unwrap(),
    )
    .unwrap();
    e.grant("bob", AclScope::Namespace("ns_b".into()), Actions::ALL)
        .unwrap();
    let id = e.cluster_id().to_string();
    e.close();
    id
}

fn row_key(w: usize, seq: u64) -> Vec<u8> {
    let lead = b'a' + ((seq * 7 + w as u64 * 3) % 26) as u8;
    let mut k = vec![lead];
    k.extend_from_slice(format!("{w}-{seq:08}").as_bytes());
    k
}

fn parse_key(k: &[u8]) -> (usize, u64) {
    let s = std::str::from_utf8(&k[1..]).unwrap();
    let (w, seq) = s.split_once('-').unwrap();
    (w.parse().unwrap(), seq.parse().unwrap())
}

/// Writer `w`'s put number `seq`: three cells of one row (a row is all-or-nothing), every
/// other one ASYNC_WAL, a third of them into the plain table.
fn put(c: &mut support::Client, w: usize, seq: u64) {
    let table = if seq % 3 == 0 { PLAIN } else { LOAD };
    let value = format!("{w}:{seq}").into_bytes();
    let cells = ["a", "b", "c"]
        .iter()
        .map(|q| {
            h2::TColumnValue::new(
                b"f".to_vec(),
                q.as_bytes().to_vec(),
                value.clone(),
                None,
                None,
                None,
            )
        })
        .collect();
    let durability = (seq % 2 == 0).then_some(h2::TDurability::ASYNC_WAL);
    let p = h2::TPut::new(row_key(w, seq), cells, None, None, durability, None);
    c.put(table.as_bytes().to_vec(), p).unwrap();
}

fn scan_all(c: &mut support::Client, table: &str) -> Vec<h2::TResult> {
    let scan = h2::TScan {
        start_row: None,
        stop_row: None,
        columns: None,
        caching: None,
        max_versions: None,
        filter_string: None,
        batch_size: None,
        attributes: None,
        col_fam_time_range_map: None,
        limit: None,
        filter_bytes: None,
        ..Default::default()
    };
    c.get_scanner_results(table.as_bytes().to_vec(), scan, 10_000_000)
        .unwrap()
}

#[test]
fn backup_during_writes_restores_every_acknowledged_write_across_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, bk, restored) = (
        tmp.path().join("d"),
        tmp.path().join("bk"),
        tmp.path().join("r"),
    );
    let cluster_id = schema(&data);
    let server = Server::start(&data);

    let stop = Arc::new(AtomicBool::new(false));
    let counts: Arc<Vec<AtomicUsize>> =
        Arc::new((0..WRITERS).map(|_| AtomicUsize::new(0)).collect());
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let mut c = server.client();
            let (stop, counts) = (stop.clone(), counts.clone());
            std::thread::spawn(move || {
                let mut acks = Vec::new();
                let mut seq = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    put(&mut c, w, seq);
                    acks.push(Instant::now());
                    counts[w].fetch_add(1, Ordering::Relaxed);
                    seq += 1;
                }
                acks
            })
        })
        .collect();
    while counts.iter().any(|c| c.load(Ordering::Relaxed) < 100) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let requested = Instant::now();
    let out = ok(server.backup(&bk));
    let completed = Instant::now();
    println!("{out}");
    assert!(out.contains("backup of 3 tables (6 regions)"), "{out}");
    // Writes go on after the backup, so the restore must leave them out.
    let after = counts
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .sum::<usize>();
    while counts
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .sum::<usize>()
        < after + 50
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    stop.store(true, Ordering::Relaxed);
    let acks: Vec<Vec<Instant>> = writers.into_iter().map(|t| t.join().unwrap()).collect();
    let metrics = server.metrics();
    assert!(
        metrics.contains("redbase_backup_pause_seconds_count 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("redbase_backups_completed_total 1"),
        "{metrics}"
    );
    server.stop();

    let out = ok(restore(&bk, &restored));
    println!("{out}");
    assert!(out.contains("restored 3 tables (6 regions"), "{out}");
    assert!(
        !files(&restored).iter().any(|f| f.ends_with(".log")),
        "{:?}",
        files(&restored)
    );

    let server = Server::start(&restored);
    let mut c = server.client();
    let mut present: BTreeMap<usize, BTreeSet<u64>> = BTreeMap::new();
    for table in [LOAD, PLAIN] {
        for r in scan_all(&mut c, table) {
            let (w, seq) = parse_key(r.row.as_deref().unwrap());
            let want = format!("{w}:{seq}").into_bytes();
            let cells: Vec<(Vec<u8>, Vec<u8>)> = r
                .column_values
                .iter()
                .map(|cv| (cv.qualifier.clone(), cv.value.clone()))
                .collect();
            assert_eq!(
                cells,
                ["a", "b", "c"]
                    .iter()
                    .map(|q| (q.as_bytes().to_vec(), want.clone()))
                    .collect::<Vec<_>>(),
                "row {w}:{seq} in {table} is torn"
            );
            assert!(present.entry(w).or_default().insert(seq));
        }
    }
    for (w, acks) in acks.iter().enumerate() {
        let before = acks.iter().filter(|t| **t < requested).count() as u64;
        let during = acks.iter().filter(|t| **t < completed).count() as u64;
        let seqs = present.remove(&w).unwrap_or_default();
        let n = seqs.len() as u64;
        assert!(
            seqs.iter().copied().eq(0..n),
            "writer {w}: the restored puts are not a prefix (a gap): {:?}",
            seqs.iter().zip(0..).find(|(s, i)| **s != *i)
        );
        assert!(
            n >= before,
            "writer {w}: {before} puts acknowledged before the backup began, {n} restored"
        );
        // At most one put was in flight at the point; none acknowledged after the backup.
        assert!(
            n <= during + 1,
            "writer {w}: {n} restored, {during} acknowledged by the end"
        );
        println!("writer {w}: {before} acknowledged before the request, {n} in the backup, {during} by its end, {} in all", acks.len());
    }
    let regions = c
        .get_all_region_locations(LOAD.as_bytes().to_vec())
        .unwrap();
    assert_eq!(regions.len(), 4);
    let off = h2::TTableName::new(Some(b"ns_b".to_vec()), b"off".to_vec());
    assert!(!c.is_table_enabled(off).unwrap());
    drop(c);
    server.stop();

    let e = Engine::open(&restored, EngineConfig::default()).unwrap();
    assert_eq!(e.cluster_id(), cluster_id);
    let users: BTreeSet<String> = e.grants().into_iter().map(|g| g.user).collect();
    assert_eq!(
        users,
        BTreeSet::from(["alice".to_string(), "bob".to_string()])
    );
    let ns: BTreeSet<String> = e.list_namespaces().into_iter().map(|n| n.name).collect();
    assert!(ns.contains("ns_a") && ns.contains("ns_b"), "{ns:?}");
    e.enable_table(OFF).unwrap();
    let got = e.get(OFF, redbase::engine::Get::new(b"kept")).unwrap();
    assert!(got.is_some(), "the disabled table's row was not restored");
    e.close();
}

/// A small backup of `rows` rows written in-process, taken by a real server.
fn small_backup(tmp: &Path) -> std::path::PathBuf {
    let data = tmp.join("d");
    schema(&data);
    let server = Server::start(&data);
    let mut c = server.client();
    for seq in 0..30 {
        put(&mut c, 0, seq);
    }
    drop(c);
    let bk = tmp.join("bk");
    ok(server.backup(&bk));
    server.stop();
    bk
}

#[test]
fn restore_verifies_every_checksum_and_refuses_a_damaged_or_partial_backup() {
    let tmp = tempfile::tempdir().unwrap();
    let bk = small_backup(tmp.path());
    // A region dump with one byte changed.
    let region = files(&bk)
        .into_iter()
        .find(|f| f.starts_with("tables/ns_a/load/"))
        .unwrap();
    let path = bk.join(&region);
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&path, &bytes).unwrap();
    let target = tmp.path().join("r1");
    let err = fails(restore(&bk, &target));
    assert!(
        err.contains("checksum mismatch") && err.contains(&region),
        "{err}"
    );
    assert!(files(&target).is_empty(), "{:?}", files(&target));
    // Cut short: named too.
    bytes[mid] ^= 0x55;
    std::fs::write(&path, &bytes[..mid]).unwrap();
    let err = fails(restore(&bk, &target));
    assert!(
        err.contains("size mismatch") && err.contains(&region),
        "{err}"
    );
    std::fs::write(&path, &bytes).unwrap();
    // A target that is not empty.
    std::fs::create_dir_all(tmp.path().join("busy")).unwrap();
    std::fs::write(tmp.path().join("busy/x"), b"x").unwrap();
    let err = fails(restore(&bk, &tmp.path().join("busy")));
    assert!(err.contains("is not empty"), "{err}");
    // Without its manifest a directory is not a backup.
    std::fs::rename(bk.join("manifest.json"), tmp.path().join("m.json")).unwrap();
    let err = fails(restore(&bk, &target));
    assert!(
        err.contains("is not a complete backup") && err.contains("manifest.json"),
        "{err}"
    );
    std::fs::rename(tmp.path().join("m.json"), bk.join("manifest.json")).unwrap();
    ok(restore(&bk, &target));
}

/// About 48 MiB in two tables, so a backup streams long enough to be interrupted.
fn big_schema(dir: &Path) {
    let e = Engine::open(dir, EngineConfig::default()).unwrap();
    create(&e, "big1", &[b"f"], &[vec![0x80]]);
    create(&e, "big2", &[b"f"], &[]);
    let value = vec![0xabu8; 64 * 1024];
    for (table, rows) in [("big1", 512u32), ("big2", 256)] {
        for chunk in (0..rows).collect::<Vec<_>>().chunks(32) {
            let batch = chunk
                .iter()
                .map(|i| {
                    let key = i.wrapping_mul(2_654_435_761).to_be_bytes();
                    RowMutation::new(&key).with(Op::put(b"f", b"v", &value))
                })
                .collect();
            e.mutate_rows(table, batch)
                .into_iter()
                .for_each(|r| r.unwrap());
        }
    }
    e.close();
}

/// Waits until a region dump is being received into `bk`.
fn wait_for_partial(bk: &Path) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !files(bk)
        .iter()
        .any(|f| f.starts_with("tables/") && f.ends_with(".partial"))
    {
        assert!(
            Instant::now() < deadline,
            "the backup never started a region file"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn metric(server: &Server, line: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !server.metrics().contains(line) {
        assert!(Instant::now() < deadline, "no {line:?} in /metrics");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn kill_9_during_a_backup_leaves_no_backup_and_a_rerun_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, bk, bk2) = (
        tmp.path().join("d"),
        tmp.path().join("bk"),
        tmp.path().join("bk2"),
    );
    big_schema(&data);
    let server = Server::start(&data);

    // The client dies mid-stream.
    let mut child = server.backup_child(&bk);
    wait_for_partial(&bk);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !bk.join("manifest.json").exists(),
        "the backup finished before the kill"
    );
    let err = fails(restore(&bk, &tmp.path().join("r0")));
    assert!(err.contains("is not a complete backup"), "{err}");
    // The server is unharmed: it noticed, released the point, and serves writes.
    metric(&server, "redbase_backups_failed_total 1");
    let probe = h2::TColumnValue::new(
        b"f".to_vec(),
        b"p".to_vec(),
        b"probe".to_vec(),
        None,
        None,
        None,
    );
    let p = h2::TPut::new(
        b"probe".to_vec(),
        vec![probe],
        None,
        None,
        h2::TDurability::ASYNC_WAL,
        None,
    );
    server.client().put(b"big2".to_vec(), p).unwrap();
    let out = ok(server.backup(&bk));
    assert!(
        out.contains("an interrupted backup was started over"),
        "{out}"
    );
    assert!(
        !files(&bk)
            .iter()
            .any(|f| f.ends_with(".partial") || f.starts_with('.')),
        "{:?}",
        files(&bk)
    );

    // The server dies mid-stream.
    let child = server.backup_child(&bk2);
    wait_for_partial(&bk2);
    server.kill();
    let out = child.wait_with_output().unwrap();
    let err = support::text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("ended before the manifest") || err.contains("broken"),
        "{err}"
    );
    let err = fails(restore(&bk2, &tmp.path().join("r0")));
    assert!(err.contains("is not a complete backup"), "{err}");
    // The backup wrote nothing into the server's data dir.
    for f in files(&data) {
        assert!(
            f == "meta.redb"
                || (f.starts_with("tables/") && (f.ends_with(".redb") || f.contains(".redb.log"))),
            "{f}"
        );
    }
    let server = Server::start(&data);
    ok(server.backup(&bk2));
    server.stop();

    let original = all_cells(&data);
    assert_eq!(original.len(), 768 + 1);
    for (bk, r) in [(&bk, "r1"), (&bk2, "r2")] {
        let target = tmp.path().join(r);
        ok(restore(bk, &target));
        assert!(
            all_cells(&target) == original,
            "{r} differs from the original data"
        );
    }
}

#[test]
fn a_second_backup_while_one_runs_is_refused_as_busy() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("d");
    big_schema(&data);
    let server = Server::start(&data);
    // A client that asks for a backup and reads only the status line holds it running.
    let mut slow = TcpStream::connect(&server.http).unwrap();
    write!(
        slow,
        "POST /api/backup HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut head = [0u8; 12];
    slow.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    let err = fails(server.backup(&tmp.path().join("bk2")));
    assert!(
        err.contains("409") && err.contains("already running"),
        "{err}"
    );
    assert!(
        !tmp.path().join("bk2").exists(),
        "a refused backup created its directory"
    );
    drop(slow);
    // Once the server notices the first client is gone, a backup runs.
    let bk3 = tmp.path().join("bk3");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let out = server.backup(&bk3);
        if out.status.success() {
            break;
        }
        let err = support::text(&out.stderr);
        assert!(err.contains("already running"), "{err}");
        assert!(
            Instant::now() < deadline,
            "the first backup was never released"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    server.stop();
    let target = tmp.path().join("r");
    ok(restore(&bk3, &target));
    assert!(all_cells(&target) == all_cells(&data));
}

#[test]
fn only_a_superuser_may_take_a_backup_and_read_only_mode_allows_it() {
    use sha2::{Digest, Sha256};
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("d");
    schema(&data);
    let digest = |t: &str| {
        let d = Sha256::digest(t.as_bytes());
        let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    };
    let auth = tmp.path().join("users.toml");
    std::fs::write(
        &auth,
        format!(
            "[users.admin]\ntokens = [\"{}\"]\nsuperuser = true\n\n[users.bob]\ntokens = [\"{}\"]\n",
            digest("admin-token-0123456789"),
            digest("bob-token-0123456789")
        ),
    )
    .unwrap();
    let auth = auth.to_str().unwrap().to_string();
    let server = Server::start_with(
        &data,
        &[
            "--auth-file",
            &auth,
            "--allow-plaintext-auth",
            "--read-only",
        ],
    );
    let err = fails(server.backup_as(&tmp.path().join("b0"), None));
    assert!(err.contains("401"), "{err}");
    let err = fails(server.backup_as(&tmp.path().join("b1"), Some("bob-token-0123456789")));
    assert!(
        err.contains("403") && err.contains("only a superuser"),
        "{err}"
    );
    let bk = tmp.path().join("b2");
    ok(server.backup_as(&bk, Some("admin-token-0123456789")));
    server.stop();
    ok(restore(&bk, &tmp.path().join("r")));
}
