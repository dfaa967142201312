//! `manifest.json`, the last file of a backup: what the backup holds and each file's size and
//! SHA-256. It is written last (by rename), so a directory without one is never taken for a
//! backup.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::engine::BackupError;

pub const MANIFEST: &str = "manifest.json";
pub const FORMAT: u32 = 1;
pub const KIND: &str = "redbase-backup";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The layout of this directory and of its dump files; restore refuses other versions.
    pub format: u32,
    pub kind: String,
    /// The `redbase` version that took the backup.
    pub server_version: String,
    pub cluster_id: String,
    pub point: Point,
    /// Every table in the backup.
    pub tables: Vec<String>,
    pub files: Vec<FileEntry>,
}

/// The instant the backup holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Point {
    /// When the point was taken, ms since the epoch (the server's clock).
    pub taken_at_ms: i64,
    /// How long writers were held to take it, µs.
    pub pause_us: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The dump file, relative to the backup directory.
    pub path: String,
    /// Where restore puts the redb file it loads from the dump, relative to the data dir.
    pub restore_to: String,
    /// "catalog" or "region".
    pub kind: String,
    /// The region's table (None for the catalog).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// Entries (keys) in the dump.
    pub entries: u64,
    pub size: u64,
    pub sha256: String,
}

pub const KIND_CATALOG: &str = "catalog";
pub const KIND_REGION: &str = "region";

/// `rel` under `base`, refusing anything that could leave it (absolute, `..`, `.`, empty
/// components, backslashes).
pub fn safe_join(base: &Path, rel: &str) -> Result<PathBuf, BackupError> {
    let unsafe_path = || BackupError::UnsafePath {
        path: rel.to_string(),
    };
    if rel.is_empty() || rel.contains('\\') || rel.contains('\0') {
        return Err(unsafe_path());
    }
    let mut out = base.to_path_buf();
    for part in rel.split('/') {
        let mut c = Path::new(part).components();
        match (c.next(), c.next()) {
            (Some(Component::Normal(p)), None) => out.push(p),
            _ => return Err(unsafe_path()),
        }
    }
    Ok(out)
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A file's size and SHA-256, read in 1 MiB pieces.
pub fn file_digest(path: &Path) -> Result<(u64, String), BackupError> {
    let mut f = std::fs::File::open(path).map_err(|e| BackupError::io(path, e))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = f.read(&mut buf).map_err(|e| BackupError::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        size += n as u64;
    }
    Ok((size, hex(&h.finalize())))
}

impl Manifest {
    /// Reads and checks `dir/manifest.json`: format, kind, one catalog, safe and distinct paths.
    pub fn load(dir: &Path) -> Result<Manifest, BackupError> {
        let file = dir.join(MANIFEST);
        let text = match std::fs::read(&file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BackupError::NotABackup {
                    dir: dir.to_path_buf(),
                    reason: format!(
                        "it has no {MANIFEST} (an interrupted `redbase backup` leaves none; \
                         run `redbase backup --to {}` again)",
                        dir.display()
                    ),
                })
            }
            Err(e) => return Err(BackupError::io(&file, e)),
        };
        let bad = |m: String| BackupError::Manifest {
            file: file.clone(),
            message: m,
        };
        let m: Manifest = serde_json::from_slice(&text).map_err(|e| bad(e.to_string()))?;
        if m.kind != KIND {
            return Err(bad(format!("kind {:?}, expected {KIND:?}", m.kind)));
        }
        if m.format != FORMAT {
            return Err(bad(format!(
                "format version {}, this redbase reads {FORMAT}",
                m.format
            )));
        }
        let catalogs = m.files.iter().filter(|f| f.kind == KIND_CATALOG).count();
        if catalogs != 1 {
            return Err(bad(format!("{catalogs} catalog files, expected 1")));
        }
        let mut seen = std::collections::HashSet::new();
        for f in &m.files {
            if f.kind != KIND_CATALOG && f.kind != KIND_REGION {
                return Err(bad(format!("{}: unknown kind {:?}", f.path, f.kind)));
            }
            safe_join(dir, &f.path)?;
            safe_join(dir, &f.restore_to)?;
            if f.path == MANIFEST
                || !seen.insert(f.path.clone())
                || !seen.insert(f.restore_to.clone())
            {
                return Err(bad(format!("{}: a path appears twice", f.path)));
            }
        }
        Ok(m)
    }

    /// Checks every file's size and SHA-256 against the manifest; the error names the first
    /// file that differs.
    pub fn verify(&self, dir: &Path) -> Result<u64, BackupError> {
        let mut total = 0;
        for f in &self.files {
            let path = safe_join(dir, &f.path)?;
            let (size, sha) = file_digest(&path)?;
            if size != f.size {
                return Err(BackupError::Size {
                    file: path,
                    expected: f.size,
                    found: size,
                });
            }
            if sha != f.sha256 {
                return Err(BackupError::Checksum {
                    file: path,
                    expected: f.sha256.clone(),
                    found: sha,
                });
            }
            total += size;
        }
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        let base = Path::new("/b");
        assert_eq!(
            safe_join(base, "tables/ns/t/1.redb").unwrap(),
            Path::new("/b/tables/ns/t/1.redb")
        );
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "./a",
            "a\\b",
            "a/.",
        ] {
            assert!(safe_join(base, bad).is_err(), "{bad:?}");
        }
    }
}
