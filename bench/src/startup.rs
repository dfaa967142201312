//! The `startup` subcommand: runs the real `redbase serve` binary on a fresh data directory and
//! measures exec to the first accepted connection and the first answered call, the idle RSS
//! after start-up and after some load, the exit on SIGTERM; then once more on that data.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use crate::cli::{ServiceKind, StartupArgs, T2Scan, Workload};
use crate::cpu::loadavg;
use crate::phase::run_phase;
use crate::servers::{free_port, loopback};
use crate::spec::Spec;
use crate::thrift1;
use redbase::generated::hbase1::THbaseSyncClient;

/// VmRSS and VmHWM of a process, in KiB.
fn rss_kib(pid: u32) -> Result<(u64, u64), String> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    let field = |name: &str| {
        s.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok((field("VmRSS:"), field("VmHWM:")))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

struct Child {
    child: std::process::Child,
    t0: Instant,
}

impl Child {
    /// Runs `bin serve` with Thrift1 on `addr`; every other gateway the binary has (Thrift2)
    /// is kept on, as by default, but on a free loopback port.
    fn spawn(
        bin: &Path,
        data: &Path,
        log: &Path,
        addr: SocketAddr,
        thrift2: bool,
    ) -> Result<Child, String> {
        let log = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
        let mut cmd = Command::new(bin);
        cmd.arg("serve")
            .arg("--data-dir")
            .arg(data)
            .arg("--thrift1-addr")
            .arg(addr.to_string())
            // The operations listener stays on, as by default, off the shared port 8080.
            .arg("--http-addr")
            .arg("127.0.0.1:0");
        if thrift2 {
            cmd.arg("--thrift2-addr")
                .arg(format!("127.0.0.1:{}", free_port()?));
        }
        let t0 = Instant::now();
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        Ok(Child { child, t0 })
    }

    /// Polls until a Thrift call is answered: (time to the first accepted TCP connection, time
    /// to the first answer), both from exec.
    fn wait_ready(
        &mut self,
        spec: &Spec,
        addr: SocketAddr,
    ) -> Result<(Duration, Duration), String> {
        let mut connected = None;
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Err(format!("redbase exited during start-up: {st}"));
            }
            if self.t0.elapsed() > Duration::from_secs(30) {
                return Err("redbase did not answer within 30 s".into());
            }
            if let Ok(mut c) = thrift1::connect(spec, addr) {
                connected.get_or_insert_with(|| self.t0.elapsed());
                if c.get_table_names().is_ok() {
                    let answered = self.t0.elapsed();
                    return Ok((connected.unwrap_or(answered), answered));
                }
            }
            thread::sleep(Duration::from_micros(200));
        }
    }

    /// SIGTERM, then waits: (time to exit, exit code).
    fn terminate(mut self) -> Result<(Duration, Option<i32>), String> {
        let pid = self.child.id();
        let t = Instant::now();
        let st = Command::new("kill")
            .arg("-TERM")
            .arg(pid.to_string())
            .status()
            .map_err(|e| format!("kill: {e}"))?;
        if !st.success() {
            return Err(format!("kill -TERM {pid} failed"));
        }
        loop {
            if let Some(st) = self.child.try_wait().map_err(|e| e.to_string())? {
                return Ok((t.elapsed(), st.code()));
            }
            if t.elapsed() > Duration::from_secs(60) {
                let _ = self.child.kill();
                let _ = self.child.wait();
                return Err("redbase did not exit within 60 s of SIGTERM".into());
            }
            thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

struct StartupRun {
    connect: Duration,
    answer: Duration,
    rss_start: u64,
    load_rate: f64,
    load_p99: f64,
    rss_loaded: u64,
    hwm: u64,
    stop: Duration,
    code: Option<i32>,
    re_connect: Duration,
    re_answer: Duration,
    re_rss: u64,
    re_stop: Duration,
    re_code: Option<i32>,
}

fn startup_run(
    a: &StartupArgs,
    spec: &Arc<Spec>,
    bin: &Path,
    thrift2: bool,
) -> Result<StartupRun, String> {
    let tmp = tempfile::Builder::new()
        .prefix("redbase-loadgen-startup-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let data = tmp.path().join("data");
    let settle = Duration::from_secs_f64(a.settle_secs);

    let addr = loopback(&format!("127.0.0.1:{}", free_port()?))?;
    let mut child = Child::spawn(bin, &data, &tmp.path().join("server.log"), addr, thrift2)?;
    let pid = child.child.id();
    let (connect, answer) = child.wait_ready(spec, addr)?;
    thread::sleep(settle);
    let (rss_start, _) = rss_kib(pid)?;
    spec.prepare(addr)?;
    let load = run_phase(
        addr,
        spec,
        Workload::Mix,
        a.load_connections,
        Duration::from_secs_f64(a.load_secs),
        rand::random(),
    );
    if let Some(e) = &load.first_error {
        return Err(format!("load failed: {e}"));
    }
    thread::sleep(settle);
    let (rss_loaded, hwm) = rss_kib(pid)?;
    let (stop, code) = child.terminate()?;

    // Once more on the data just written.
    let addr = loopback(&format!("127.0.0.1:{}", free_port()?))?;
    let mut child = Child::spawn(bin, &data, &tmp.path().join("server2.log"), addr, thrift2)?;
    let pid = child.child.id();
    let (re_connect, re_answer) = child.wait_ready(spec, addr)?;
    thread::sleep(settle);
    let (re_rss, _) = rss_kib(pid)?;
    let (re_stop, re_code) = child.terminate()?;
    Ok(StartupRun {
        connect,
        answer,
        rss_start,
        load_rate: load.rate(),
        load_p99: load.pct(99.0),
        rss_loaded,
        hwm,
        stop,
        code,
        re_connect,
        re_answer,
        re_rss,
        re_stop,
        re_code,
    })
}

pub fn startup(a: StartupArgs) -> Result<bool, String> {
    let spec = Arc::new(Spec::new(&a.client, ServiceKind::Thrift1, T2Scan::Scanner)?);
    let bin = match &a.bin {
        Some(b) => b.clone(),
        None => std::env::current_exe()
            .map_err(|e| e.to_string())?
            .with_file_name("redbase"),
    };
    let meta = std::fs::metadata(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    let age = meta
        .modified()
        .ok()
        .and_then(|m| SystemTime::now().duration_since(m).ok())
        .map_or("?".to_string(), |d| format!("{:.0} s", d.as_secs_f64()));
    // Newer binaries also serve Thrift2 (by default on 0.0.0.0:9091): keep it on loopback.
    let help = Command::new(&bin)
        .args(["serve", "--help"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
    let thrift2 = String::from_utf8_lossy(&help.stdout).contains("--thrift2-addr");
    println!(
        "startup: {} (built {age} ago{}); {} runs; load: mix {:?}, {} connections, {} s; load average {}",
        bin.display(),
        if thrift2 {
            "; Thrift2 gateway on too, on a loopback port"
        } else {
            ""
        },
        a.runs,
        a.client.mix,
        a.load_connections,
        a.load_secs,
        loadavg()
    );
    println!();
    println!("| run | exec → TCP accept ms | exec → first answer ms | idle RSS after start-up MiB | load ops/s (p99 ms) | idle RSS after load MiB | peak RSS MiB | SIGTERM → exit ms | exit code | restart on that data: first answer ms | idle RSS MiB | exit code |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut all_ok = true;
    let mut answers = Vec::new();
    let mut re_answers = Vec::new();
    for run in 1..=a.runs {
        let r = startup_run(&a, &spec, &bin, thrift2)?;
        let ok = r.code == Some(0) && r.re_code == Some(0);
        all_ok &= ok;
        answers.push(ms(r.answer));
        re_answers.push(ms(r.re_answer));
        let code = |c: Option<i32>| c.map_or("signal".to_string(), |c| c.to_string());
        println!(
            "| {run} | {:.1} | {:.1} | {:.1} | {:.0} ({:.2}) | {:.1} | {:.1} | {:.1} | {} | {:.1} (TCP {:.1}) | {:.1} | {} (SIGTERM → exit {:.1} ms) |",
            ms(r.connect),
            ms(r.answer),
            mib(r.rss_start),
            r.load_rate,
            r.load_p99,
            mib(r.rss_loaded),
            mib(r.hwm),
            ms(r.stop),
            code(r.code),
            ms(r.re_answer),
            ms(r.re_connect),
            mib(r.re_rss),
            code(r.re_code),
            ms(r.re_stop),
        );
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    println!();
    println!(
        "exec → first answer: median {:.1} ms fresh, {:.1} ms on existing data; exit status on SIGTERM: {}; load average {}",
        median(&mut answers),
        median(&mut re_answers),
        if all_ok { "0 every time" } else { "NOT always 0" },
        loadavg()
    );
    Ok(all_ok)
}
