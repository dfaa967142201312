//! `redbase backup --to DIR`: the client of `POST /api/backup`. It writes each file of the
//! stream as `<file>.partial`, checks its size and SHA-256 against what the server computed,
//! syncs it and renames it into place; `manifest.json` comes last, the same way. Until then DIR
//! holds a marker file, so a run that was interrupted (kill -9, a dropped connection, the
//! server stopping) is recognised by the next run into DIR, which starts it over: a backup
//! belongs to one point, so files of an older point are never mixed in.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use sha2::{Digest, Sha256};

use super::BackupArgs;
use crate::backup::manifest::{hex, safe_join, Manifest, MANIFEST};
use crate::backup::stream::{
    Decoder, FileEnd, TAG_DATA, TAG_END, TAG_ERROR, TAG_FILE, TAG_MANIFEST,
};
use crate::engine::BackupError;

/// Present in DIR while a backup is being written into it.
pub const MARKER: &str = ".redbase-backup-incomplete";

/// Runs the backup; returns the summary line.
pub fn run(args: &BackupArgs) -> Result<String, BackupError> {
    let dir = &args.to;
    let restarted = check(dir)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| BackupError::io(dir, format!("cannot start the runtime: {e}")))?;
    let started = Instant::now();
    let (m, bytes) = rt.block_on(fetch(args, dir, restarted))?;
    let regions = m.files.len() - 1;
    Ok(format!(
        "{}backup of {} tables ({regions} regions) written to {}: {} files, {bytes} bytes in {:.1} s; \
         point {} ms since the epoch, writers paused {:.3} ms",
        if restarted {
            "an interrupted backup was started over; "
        } else {
            ""
        },
        m.tables.len(),
        dir.display(),
        m.files.len() + 1,
        started.elapsed().as_secs_f64(),
        m.point.taken_at_ms,
        m.point.pause_us as f64 / 1000.0,
    ))
}

/// Checks that DIR may receive a backup, changing nothing: missing, empty, or an interrupted
/// backup (its marker, and only files a backup writes). Returns whether it holds one.
fn check(dir: &Path) -> Result<bool, BackupError> {
    let not_empty = |what: String| BackupError::NotEmpty {
        dir: dir.to_path_buf(),
        what,
    };
    if !dir.exists() {
        return Ok(false);
    }
    if dir.join(MANIFEST).exists() {
        return Err(not_empty(format!(
            "it holds a complete backup already ({MANIFEST}); choose a new directory"
        )));
    }
    let names = names(dir)?;
    if names.is_empty() {
        return Ok(false);
    }
    if !names.iter().any(|n| n == MARKER) {
        return Err(not_empty(
            "its files are not an interrupted redbase backup; choose an empty directory".into(),
        ));
    }
    let ours =
        |n: &str| n == MARKER || n == "tables" || n.ends_with(".dump") || n.ends_with(".partial");
    if let Some(other) = names.iter().find(|n| !ours(n)) {
        return Err(not_empty(format!(
            "{other:?} is not part of an interrupted backup; remove it or choose another directory"
        )));
    }
    Ok(true)
}

fn names(dir: &Path) -> Result<Vec<String>, BackupError> {
    std::fs::read_dir(dir)
        .map_err(|e| BackupError::io(dir, e))?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()
        .map_err(|e| BackupError::io(dir, e))
}

/// Once the server has begun the backup: creates DIR, clears the interrupted backup [`check`]
/// found in it, and writes the marker.
fn start(dir: &Path, restarted: bool) -> Result<(), BackupError> {
    std::fs::create_dir_all(dir).map_err(|e| BackupError::io(dir, e))?;
    if restarted {
        for n in names(dir)? {
            let p = dir.join(&n);
            let removed = if n == "tables" {
                std::fs::remove_dir_all(&p)
            } else if n == MARKER {
                Ok(())
            } else {
                std::fs::remove_file(&p)
            };
            removed.map_err(|e| BackupError::io(&p, e))?;
        }
    }
    let marker = dir.join(MARKER);
    std::fs::write(
        &marker,
        "a redbase backup is being written here, or was interrupted: \
         run `redbase backup --to` this directory again\n",
    )
    .map_err(|e| BackupError::io(&marker, e))
}

async fn fetch(
    args: &BackupArgs,
    dir: &Path,
    restarted: bool,
) -> Result<(Manifest, u64), BackupError> {
    let addr = args.http_addr.clone();
    let connect = |e: &dyn std::fmt::Display| BackupError::Connect {
        addr: addr.clone(),
        message: e.to_string(),
    };
    let security = args.auth.resolve(&addr).map_err(|e| connect(&e))?;
    let (mut sender, driver) = crate::cli::connect::http::connect(&addr, &security)
        .await
        .map_err(|e| connect(&e))?;
    let mut req = hyper::Request::post("/api/backup")
        .header(hyper::header::HOST, addr.as_str())
        .header(hyper::header::USER_AGENT, "redbase-backup");
    if let Some(value) = crate::cli::connect::http::authorization(&security) {
        req = req.header(hyper::header::AUTHORIZATION, value);
    }
    let req = req.body(Empty::<Bytes>::new()).map_err(|e| connect(&e))?;
    let resp = sender.send_request(req).await.map_err(|e| connect(&e))?;
    let status = resp.status();
    let mut body = resp.into_body();
    if status != hyper::StatusCode::OK {
        let mut text = Vec::new();
        while let Some(Ok(f)) = body.frame().await {
            if let Ok(d) = f.into_data() {
                text.extend_from_slice(&d);
            }
            if text.len() > 64 * 1024 {
                break;
            }
        }
        driver.abort();
        return Err(BackupError::Refused {
            status: status.as_u16(),
            message: crate::cli::connect::with_hint(String::from_utf8_lossy(&text).trim()),
        });
    }
    // DIR changes only once the server has begun the backup: a refusal leaves it as it was.
    if let Err(e) = start(dir, restarted) {
        driver.abort();
        return Err(e);
    }
    let mut dec = Decoder::default();
    let mut out = DirWriter {
        dir: dir.to_path_buf(),
        current: None,
        done: Vec::new(),
        bytes: 0,
        bar: progress_bar(args.quiet),
    };
    let result = async {
        while let Some(f) = body.frame().await {
            let f = f.map_err(|e| BackupError::Stream {
                message: e.to_string(),
            })?;
            let Ok(data) = f.into_data() else { continue };
            dec.push(&data);
            while let Some((tag, payload)) = dec.next_frame()? {
                if let Some(m) = out.frame(tag, payload)? {
                    return Ok((m, out.bytes));
                }
            }
        }
        Err(BackupError::Stream {
            message: format!(
                "it ended before the manifest (the server stopped or the connection broke); {} has no {MANIFEST}: run the backup again",
                dir.display()
            ),
        })
    }
    .await;
    driver.abort();
    result
}

/// A file being received.
struct Receiving {
    path: PathBuf,
    partial: PathBuf,
    file: BufWriter<File>,
    hash: Sha256,
    size: u64,
}

/// Writes the stream's files into the backup directory.
struct DirWriter {
    dir: PathBuf,
    current: Option<Receiving>,
    /// (path, size, sha256) of every file received whole.
    done: Vec<(String, u64, String)>,
    bytes: u64,
    bar: indicatif::ProgressBar,
}

/// Bytes received, files done and the rate on standard error, drawn only when standard output
/// is a terminal and not `--quiet` (a script gets the summary line alone).
fn progress_bar(quiet: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if quiet || !std::io::stdout().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} backup: {binary_bytes} ({binary_bytes_per_sec}), {msg}, {elapsed}",
    ) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

fn broken(m: impl Into<String>) -> BackupError {
    BackupError::Stream { message: m.into() }
}

impl DirWriter {
    /// Handles one frame; returns the manifest once it has been written.
    fn frame(&mut self, tag: u8, payload: Vec<u8>) -> Result<Option<Manifest>, BackupError> {
        match tag {
            TAG_FILE => {
                if self.current.is_some() {
                    return Err(broken("a file began before the one before it ended"));
                }
                let rel = String::from_utf8(payload).map_err(|_| broken("a path is not UTF-8"))?;
                if !rel.ends_with(".dump") {
                    return Err(BackupError::UnsafePath { path: rel });
                }
                let path = safe_join(&self.dir, &rel)?;
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| BackupError::io(parent, e))?;
                }
                let partial = PathBuf::from(format!("{}.partial", path.display()));
                let file = File::create(&partial).map_err(|e| BackupError::io(&partial, e))?;
                self.current = Some(Receiving {
                    path,
                    partial,
                    file: BufWriter::with_capacity(1 << 20, file),
                    hash: Sha256::new(),
                    size: 0,
                });
                Ok(None)
            }
            TAG_DATA => {
                let r = self
                    .current
                    .as_mut()
                    .ok_or_else(|| broken("data outside a file"))?;
                r.file
                    .write_all(&payload)
                    .map_err(|e| BackupError::io(&r.partial, e))?;
                r.hash.update(&payload);
                r.size += payload.len() as u64;
                self.bar.inc(payload.len() as u64);
                Ok(None)
            }
            TAG_END => {
                let r = self
                    .current
                    .take()
                    .ok_or_else(|| broken("a file end outside a file"))?;
                let end: FileEnd = serde_json::from_slice(&payload)
                    .map_err(|e| broken(format!("a file end record: {e}")))?;
                let file = r
                    .file
                    .into_inner()
                    .map_err(|e| BackupError::io(&r.partial, e.error()))?;
                file.sync_all()
                    .map_err(|e| BackupError::io(&r.partial, e))?;
                let sha = hex(&r.hash.finalize());
                if r.size != end.size {
                    return Err(BackupError::Size {
                        file: r.partial,
                        expected: end.size,
                        found: r.size,
                    });
                }
                if sha != end.sha256 {
                    return Err(BackupError::Checksum {
                        file: r.partial,
                        expected: end.sha256,
                        found: sha,
                    });
                }
                std::fs::rename(&r.partial, &r.path).map_err(|e| BackupError::io(&r.path, e))?;
                let rel = r
                    .path
                    .strip_prefix(&self.dir)
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                self.bytes += r.size;
                self.done.push((rel, r.size, sha));
                self.bar.set_message(format!("{} files", self.done.len()));
                Ok(None)
            }
            TAG_MANIFEST => {
                self.bar.finish_and_clear();
                self.manifest(&payload).map(Some)
            }
            TAG_ERROR => Err(broken(format!(
                "the server failed: {}",
                String::from_utf8_lossy(&payload)
            ))),
            t => Err(broken(format!("unknown frame tag {t}"))),
        }
    }

    /// Checks the manifest against the files received, then writes it (last).
    fn manifest(&mut self, json: &[u8]) -> Result<Manifest, BackupError> {
        if self.current.is_some() {
            return Err(broken("the manifest came before the last file ended"));
        }
        let m: Manifest =
            serde_json::from_slice(json).map_err(|e| broken(format!("the manifest: {e}")))?;
        let listed: Vec<(String, u64, String)> = m
            .files
            .iter()
            .map(|f| (f.path.clone(), f.size, f.sha256.clone()))
            .collect();
        if listed != self.done {
            return Err(broken(
                "the manifest does not list exactly the files received",
            ));
        }
        let path = self.dir.join(MANIFEST);
        let partial = self.dir.join(format!("{MANIFEST}.partial"));
        let write = || -> std::io::Result<()> {
            let mut f = File::create(&partial)?;
            f.write_all(json)?;
            f.sync_all()?;
            std::fs::rename(&partial, &path)?;
            // The renames are durable once the directory is.
            File::open(&self.dir)?.sync_all()
        };
        write().map_err(|e| BackupError::io(&path, e))?;
        let marker = self.dir.join(MARKER);
        std::fs::remove_file(&marker).map_err(|e| BackupError::io(&marker, e))?;
        // What restore will read: the manifest as written must load.
        Manifest::load(&self.dir)
    }
}
