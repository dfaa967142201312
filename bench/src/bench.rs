//! The `bench` subcommand: redbase and the null server take turns in rounds over every workload
//! and connection count; one markdown table of throughput, latency, ratio and CPU per cell.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::cli::{BenchArgs, Preload, ServiceKind, T2Scan, Workload};
use crate::cpu::{clock_ticks, loadavg};
use crate::null;
use crate::phase::run_phase;
use crate::servers::{loopback, start_redbase};
use crate::spec::Spec;
use crate::stats::Sample;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Redbase,
    Null,
}

struct Cell {
    workload: Workload,
    conns: usize,
    redbase: Sample,
    null: Sample,
    /// Per round: (redbase ops/s, null ops/s).
    rounds: Vec<(f64, f64)>,
}

pub fn bench(a: BenchArgs) -> Result<bool, String> {
    if a.connections.is_empty() || a.connections.contains(&0) {
        return Err("--connections needs positive counts".into());
    }
    if a.rounds == 0 || a.secs.is_nan() || a.secs <= 0.0 {
        return Err("--rounds and --secs must be positive".into());
    }
    if a.service != ServiceKind::Both {
        return bench_one(&a, a.service).map(|v| v != Some(false));
    }
    if a.addr.is_some() {
        return Err("--addr is one gateway's address: use --service thrift1 or thrift2".into());
    }
    let mut verdicts = Vec::new();
    for s in [ServiceKind::Thrift1, ServiceKind::Thrift2] {
        println!("## {}", s.name());
        println!();
        verdicts.push((s, bench_one(&a, s)?));
        println!();
    }
    for (s, v) in &verdicts {
        println!(
            "{}: gets at 16 connections >= {:.0}% of the null server: {}",
            s.name(),
            a.target * 100.0,
            match v {
                Some(true) => "pass",
                Some(false) => "FAIL",
                None => "not measured",
            }
        );
    }
    Ok(verdicts.iter().all(|v| v.1 != Some(false)))
}

/// One gateway, redbase vs its null server: the verdict on the target, if measured.
fn bench_one(a: &BenchArgs, service: ServiceKind) -> Result<Option<bool>, String> {
    let mut spec = Spec::new(&a.client, service, a.thrift2_scan)?;
    if let Some(d) = a.durability {
        if service != ServiceKind::Thrift2 {
            return Err(format!(
                "--durability {d:?} needs --service thrift2: Thrift1's mutateRow cannot carry one"
            ));
        }
        spec.durability = Some(d);
    }
    if !a.server_pids.is_empty() && a.addr.is_none() {
        return Err(
            "--server-pids needs --addr (the server in this process is counted anyway)".into(),
        );
    }
    spec.server_pids = a.server_pids.clone();
    let spec = Arc::new(spec);
    let ticks = clock_ticks();
    let cores = thread::available_parallelism().map_or(0, |n| n.get());
    let load_before = loadavg();

    let dir;
    let mut redbase_srv = None;
    let redbase_addr = match &a.addr {
        Some(addr) => loopback(addr)?,
        None => {
            dir = tempfile::Builder::new()
                .prefix("redbase-loadgen-data-")
                .tempdir()
                .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
            let s = start_redbase(dir.path(), service)?;
            let addr = s.addr;
            redbase_srv = Some(s);
            addr
        }
    };
    let mut null_srv = if a.no_null || a.preload == Preload::Only {
        None
    } else {
        Some(null::start(&spec)?)
    };
    let null_addr = null_srv.as_ref().map(|s| s.addr);

    println!(
        "loadgen: {} gateway: redbase at {redbase_addr}{}, null server at {}; transport {:?}, protocol {:?}{}",
        service.name(),
        if a.addr.is_some() {
            " (external)"
        } else {
            " (in-process)"
        },
        null_addr.map_or("-".to_string(), |x| x.to_string()),
        spec.transport,
        spec.protocol,
        match (service, a.thrift2_scan) {
            (ServiceKind::Thrift2, T2Scan::Scanner) =>
                "; scans: openScanner + getScannerRows + closeScanner",
            (ServiceKind::Thrift2, T2Scan::Results) => "; scans: getScannerResults",
            _ => "",
        }
    );
    println!(
        "loadgen: {} rows of {} B, scans of {} rows, mix {:?}; {} s per side and cell in {} rounds; {} cores; load average {}",
        spec.rows, spec.value.len(), spec.scan_rows, a.client.mix, a.secs, a.rounds, cores, load_before
    );
    let t = Instant::now();
    if a.preload == Preload::Skip {
        spec.check_loaded(redbase_addr)?;
        println!("loadgen: not preloading (--preload skip): the table holds its rows");
    } else {
        spec.prepare(redbase_addr)?;
        println!(
            "loadgen: preloaded {} rows in {:.2} s",
            spec.rows,
            t.elapsed().as_secs_f64()
        );
    }
    if a.preload == Preload::Only {
        return Ok(None);
    }
    if let Some(d) = spec.durability {
        println!("loadgen: measured puts carry durability {d:?} (TDurability)");
    }

    let mut cells: Vec<Cell> = Vec::new();
    for &w in &a.workloads {
        for &c in &a.connections {
            cells.push(Cell {
                workload: w,
                conns: c,
                redbase: Sample::default(),
                null: Sample::default(),
                rounds: Vec::new(),
            });
        }
    }
    let sides = |first_redbase: bool| -> Vec<Side> {
        let mut v = Vec::new();
        if first_redbase {
            v.push(Side::Redbase);
        }
        if null_addr.is_some() {
            v.push(Side::Null);
        }
        if !first_redbase {
            v.push(Side::Redbase);
        }
        v
    };
    let addr_of = |s: Side| match s {
        Side::Redbase => redbase_addr,
        Side::Null => null_addr.expect("null server"),
    };

    if a.warmup_secs > 0.0 {
        let d = Duration::from_secs_f64(a.warmup_secs);
        for cell in &cells {
            for s in sides(true) {
                let _ = run_phase(
                    addr_of(s),
                    &spec,
                    cell.workload,
                    cell.conns,
                    d,
                    rand::random(),
                );
            }
        }
    }
    let per_round = Duration::from_secs_f64(a.secs / a.rounds as f64);
    let started = Instant::now();
    let mut failed = false;
    for round in 0..a.rounds {
        for (i, cell) in cells.iter_mut().enumerate() {
            let mut rates = (0.0, 0.0);
            for s in sides((round + i) % 2 == 0) {
                let sample = run_phase(
                    addr_of(s),
                    &spec,
                    cell.workload,
                    cell.conns,
                    per_round,
                    rand::random(),
                );
                if let Some(e) = &sample.first_error {
                    if !failed {
                        eprintln!(
                            "loadgen: {} at {} connections against {}: {} errors, first: {e}",
                            cell.workload.name(),
                            cell.conns,
                            if s == Side::Redbase {
                                "redbase"
                            } else {
                                "null"
                            },
                            sample.errors
                        );
                    }
                    failed = true;
                }
                match s {
                    Side::Redbase => {
                        rates.0 = sample.rate();
                        cell.redbase.add(sample);
                    }
                    Side::Null => {
                        rates.1 = sample.rate();
                        cell.null.add(sample);
                    }
                }
            }
            cell.rounds.push(rates);
        }
        eprintln!(
            "loadgen: round {}/{} done ({:.1} s, load average {})",
            round + 1,
            a.rounds,
            started.elapsed().as_secs_f64(),
            loadavg()
        );
    }
    let load_after = loadavg();
    if let Some(s) = null_srv.as_mut() {
        s.stop();
    }
    if let Some(mut s) = redbase_srv.take() {
        s.stop();
    }

    // The report.
    println!();
    let verdict = print_table(&cells, a, ticks, null_addr.is_some());
    println!();
    println!(
        "load average before {load_before}, after {load_after}; {cores} cores; CPU from /proc/self/task (clock tick {:.0} Hz)",
        ticks
    );
    // Thrift1's line is as it always was; Thrift2's names the gateway.
    let which = if service == ServiceKind::Thrift2 {
        "Thrift2 "
    } else {
        ""
    };
    match verdict {
        Some(true) => println!(
            "target: {which}gets at 16 connections >= {:.0}% of the null server: pass",
            a.target * 100.0
        ),
        Some(false) => println!(
            "target: {which}gets at 16 connections >= {:.0}% of the null server: FAIL",
            a.target * 100.0
        ),
        None => println!(
            "target: not measured (needs the get workload at 16 connections and the null server)"
        ),
    }
    if failed {
        return Err("some operations failed (see above)".into());
    }
    Ok(verdict)
}

/// The report's table, a row per cell: the verdict on the target (gets at 16 connections
/// against the null server), if measured.
fn print_table(cells: &[Cell], a: &BenchArgs, ticks: f64, has_null: bool) -> Option<bool> {
    let external = a.addr.is_some();
    let has_server_pids = !a.server_pids.is_empty();
    println!(
        "| workload | conns | redbase ops/s | redbase p50 / p99 ms | null ops/s | null p50 / p99 ms | ratio (per-round range) | server CPU us/op redbase / null | client CPU us/op redbase / null | target | result |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|---:|---:|---|---|");
    let us_per_op = |ticks_used: u64, ops: u64| {
        if ops == 0 {
            f64::NAN
        } else {
            ticks_used as f64 / ticks * 1e6 / ops as f64
        }
    };
    let mut verdict: Option<bool> = None;
    for cell in cells {
        let r = &cell.redbase;
        let (r50, r99) = (r.pct(50.0), r.pct(99.0));
        let r_rate = r.rate();
        let r_srv = if external && !has_server_pids {
            "-".to_string()
        } else {
            format!("{:.0}", us_per_op(r.cpu.other, r.ops))
        };
        let r_cli = us_per_op(r.cpu.client, r.ops);
        let (n_rate, n_lat, ratio, range, srv, cli) = if has_null {
            let n = &cell.null;
            let (n50, n99) = (n.pct(50.0), n.pct(99.0));
            let n_rate = n.rate();
            let ratio = r_rate / n_rate;
            let per: Vec<f64> = cell
                .rounds
                .iter()
                .filter(|x| x.1 > 0.0)
                .map(|x| x.0 / x.1)
                .collect();
            let lo = per.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = per.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (
                format!("{n_rate:.0}"),
                format!("{n50:.3} / {n99:.3}"),
                Some(ratio),
                format!("{ratio:.2} ({lo:.2}–{hi:.2})"),
                format!("{r_srv} / {:.0}", us_per_op(n.cpu.null, n.ops)),
                format!("{r_cli:.0} / {:.0}", us_per_op(n.cpu.client, n.ops)),
            )
        } else {
            (
                "-".into(),
                "-".into(),
                None,
                "-".into(),
                r_srv,
                format!("{r_cli:.0}"),
            )
        };
        let is_target = cell.workload == Workload::Get && cell.conns == 16;
        let (target, result) = match (is_target, ratio) {
            (true, Some(x)) => {
                let pass = x >= a.target;
                verdict = Some(pass);
                (
                    format!(">= {:.0}% of null", a.target * 100.0),
                    if pass { "pass" } else { "FAIL" }.to_string(),
                )
            }
            _ => ("-".into(), "-".into()),
        };
        println!(
            "| {} | {} | {r_rate:.0} | {r50:.3} / {r99:.3} | {n_rate} | {n_lat} | {range} | {srv} | {cli} | {target} | {result} |",
            cell.workload.name(),
            cell.conns,
        );
    }
    verdict
}
