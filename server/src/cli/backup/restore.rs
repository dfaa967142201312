//! `redbase restore --from DIR --data-dir NEW`: checks the manifest and every file's size and
//! SHA-256 (naming the first that differs), refuses a NEW that is not empty, loads each dump
//! into a new redb file where the manifest says (the catalog as `meta.redb`, each region under
//! `tables/<namespace>/<table>/`), then opens NEW as the server would and checks that every
//! table of the backup serves. No redo log is needed: the dumps hold every write of the point,
//! and each file's last commit is durable.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::time::Instant;

use crate::backup::manifest::{safe_join, Manifest};
use crate::engine::dump::load_dump;
use crate::engine::{BackupError, Engine, EngineConfig};

/// Restores; returns the summary line.
pub fn run(from: &Path, to: &Path) -> Result<String, BackupError> {
    let started = Instant::now();
    let m = Manifest::load(from)?;
    let bytes = m.verify(from)?;
    prepare(to)?;
    let loaded = load_all(&m, from, to).and_then(|entries| check_opens(&m, to).map(|_| entries));
    let entries = match loaded {
        Ok(n) => n,
        Err(e) => {
            // NEW was empty: what is in it now is this run's, half done.
            clear(to);
            return Err(e);
        }
    };
    Ok(format!(
        "restored {} tables ({} regions, {entries} entries) from {} ({bytes} bytes, every checksum verified) into {} in {:.1} s; \
         point {} ms since the epoch",
        m.tables.len(),
        m.files.len() - 1,
        from.display(),
        to.display(),
        started.elapsed().as_secs_f64(),
        m.point.taken_at_ms,
    ))
}

/// NEW must be missing or an empty directory.
fn prepare(to: &Path) -> Result<(), BackupError> {
    if to.exists() {
        let mut entries = std::fs::read_dir(to).map_err(|e| BackupError::io(to, e))?;
        if let Some(first) = entries.next() {
            let name = first
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .unwrap_or_default();
            return Err(BackupError::NotEmpty {
                dir: to.to_path_buf(),
                what: format!(
                    "it holds {name:?}; restore writes only into a new or empty data directory"
                ),
            });
        }
    }
    std::fs::create_dir_all(to).map_err(|e| BackupError::io(to, e))
}

fn load_all(m: &Manifest, from: &Path, to: &Path) -> Result<u64, BackupError> {
    let mut total = 0;
    for f in &m.files {
        let src = safe_join(from, &f.path)?;
        let dest = safe_join(to, &f.restore_to)?;
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| BackupError::io(parent, e))?;
        }
        let file = File::open(&src).map_err(|e| BackupError::io(&src, e))?;
        let n = load_dump(&mut BufReader::with_capacity(1 << 20, file), &dest, &src)?;
        if n != f.entries {
            return Err(BackupError::Dump {
                file: src,
                message: format!("{n} entries, the manifest says {}", f.entries),
            });
        }
        total += n;
    }
    Ok(total)
}

/// Opens NEW as `redbase serve` would: every table of the backup must be there and online.
fn check_opens(m: &Manifest, to: &Path) -> Result<(), BackupError> {
    let engine = Engine::open(to, EngineConfig::default())
        .map_err(|e| BackupError::io(to, format!("the restored data dir does not open: {e}")))?;
    let offline = engine.offline_tables();
    let tables: BTreeSet<String> = engine.list_tables().iter().map(|t| t.to_string()).collect();
    engine.close();
    if let Some((t, why)) = offline.first() {
        return Err(BackupError::io(
            to,
            format!("the restored table {t} does not open: {why}"),
        ));
    }
    let expected: BTreeSet<String> = m.tables.iter().cloned().collect();
    if let Some(missing) = expected.difference(&tables).next() {
        return Err(BackupError::io(
            to,
            format!("the restored catalog lacks table {missing}"),
        ));
    }
    Ok(())
}

/// Empties NEW after a failed restore (it was empty before).
fn clear(to: &Path) {
    if let Ok(rd) = std::fs::read_dir(to) {
        for e in rd.flatten() {
            let p = e.path();
            let _ = if p.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
        }
    }
}
