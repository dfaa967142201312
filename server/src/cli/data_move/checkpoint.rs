//! `redbase copy --checkpoint FILE`: per source region, the row to resume at, rewritten after
//! every chunk the destination acknowledged. The file is JSON, replaced atomically (written
//! beside it, then renamed), so a copy killed at any point leaves the previous state whole.
//! It records the arguments that decide which cells are copied; a run with other arguments is
//! refused instead of silently mixing two different copies.
//!
//! Resuming re-copies the resume row itself (a chunk can end inside a wide row): harmless,
//! since every cell is written with its own timestamp and so stored the same again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::format::{b64, unb64};
use super::sink::Mark;

const FORMAT: &str = "redbase-copy-checkpoint";
const VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checkpoint {
    pub format: String,
    pub version: u32,
    /// The arguments that select what is copied (`--from`, `--table`, `--families`, ...).
    pub arguments: BTreeMap<String, String>,
    /// The source's regions when the copy started, clipped to the row range.
    pub regions: Vec<RegionState>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegionState {
    /// Start row (inclusive), base64; empty: the table's start.
    pub start: String,
    /// Stop row (exclusive), base64; empty: the table's end.
    pub stop: String,
    /// The row to restart at (inclusive), base64: the last row of the last written chunk.
    #[serde(default)]
    pub resume: Option<String>,
    pub done: bool,
    /// Rows and cells written so far.
    pub rows: u64,
    pub cells: u64,
}

/// One region's range and where its copy starts.
#[derive(Debug, Clone)]
pub struct Region {
    pub index: usize,
    pub start: Vec<u8>,
    pub stop: Vec<u8>,
    pub resume: Option<Vec<u8>>,
}

impl Checkpoint {
    pub fn new(arguments: BTreeMap<String, String>, ranges: &[(Vec<u8>, Vec<u8>)]) -> Checkpoint {
        Checkpoint {
            format: FORMAT.into(),
            version: VERSION,
            arguments,
            regions: ranges
                .iter()
                .map(|(s, e)| RegionState {
                    start: b64(s),
                    stop: b64(e),
                    resume: None,
                    done: false,
                    rows: 0,
                    cells: 0,
                })
                .collect(),
        }
    }

    /// Reads a checkpoint and checks it belongs to a copy with these arguments.
    pub fn load(path: &Path, arguments: &BTreeMap<String, String>) -> Result<Checkpoint, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the checkpoint {}: {e}", path.display()))?;
        let c: Checkpoint = serde_json::from_str(&text).map_err(|e| {
            format!(
                "{} is not a copy checkpoint ({e}); give another --checkpoint or delete it",
                path.display()
            )
        })?;
        if c.format != FORMAT || c.version != VERSION {
            return Err(format!(
                "{} is not a version {VERSION} {FORMAT} file",
                path.display()
            ));
        }
        let mut differ = Vec::new();
        let keys: std::collections::BTreeSet<&String> =
            c.arguments.keys().chain(arguments.keys()).collect();
        for k in keys {
            let (was, now) = (c.arguments.get(k), arguments.get(k));
            if was != now {
                differ.push(format!(
                    "{k}: {} then, {} now",
                    was.map_or("(none)", String::as_str),
                    now.map_or("(none)", String::as_str)
                ));
            }
        }
        if !differ.is_empty() {
            return Err(format!(
                "the checkpoint {} belongs to a copy with other arguments ({}); rerun with the \
                 same arguments to resume it, or delete it (or give another --checkpoint) to \
                 start over",
                path.display(),
                differ.join("; ")
            ));
        }
        for r in &c.regions {
            unb64("a checkpoint region start", &r.start)?;
            unb64("a checkpoint region stop", &r.stop)?;
            if let Some(x) = &r.resume {
                unb64("a checkpoint resume row", x)?;
            }
        }
        Ok(c)
    }

    /// The regions still to copy, each from its resume row.
    pub fn pending(&self) -> Vec<Region> {
        self.regions
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.done)
            .map(|(index, r)| Region {
                index,
                start: unb64("", &r.start).unwrap_or_default(),
                stop: unb64("", &r.stop).unwrap_or_default(),
                resume: r.resume.as_ref().and_then(|x| unb64("", x).ok()),
            })
            .collect()
    }

    /// Every region's range, in order (what verification compares).
    pub fn ranges(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.regions
            .iter()
            .map(|r| {
                (
                    unb64("", &r.start).unwrap_or_default(),
                    unb64("", &r.stop).unwrap_or_default(),
                )
            })
            .collect()
    }

    pub fn totals(&self) -> (usize, u64, u64) {
        let done = self.regions.iter().filter(|r| r.done).count();
        let rows = self.regions.iter().map(|r| r.rows).sum();
        let cells = self.regions.iter().map(|r| r.cells).sum();
        (done, rows, cells)
    }
}

/// The checkpoint shared by the workers, saved after each acknowledged chunk when a file was
/// given (otherwise only kept for the summary).
pub struct Store {
    path: Option<PathBuf>,
    state: Mutex<Checkpoint>,
}

impl Store {
    pub fn new(path: Option<PathBuf>, state: Checkpoint) -> Result<Store, String> {
        let store = Store {
            path,
            state: Mutex::new(state),
        };
        store.save_locked(&store.snapshot())?;
        Ok(store)
    }

    pub fn snapshot(&self) -> Checkpoint {
        match self.state.lock() {
            Ok(s) => s.clone(),
            Err(p) => p.into_inner().clone(),
        }
    }

    /// A chunk of region `mark.unit` was written: record where to resume and save.
    pub fn record(&self, mark: &Mark) -> Result<(), String> {
        let mut state = match self.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        };
        let Some(r) = state.regions.get_mut(mark.unit) else {
            return Err(format!("no region {} in the checkpoint", mark.unit));
        };
        r.rows += mark.rows;
        r.cells += mark.cells;
        if mark.done {
            r.done = true;
            r.resume = None;
        } else if !mark.row.is_empty() {
            r.resume = Some(b64(&mark.row));
        }
        self.save_locked(&state)
    }

    fn save_locked(&self, state: &Checkpoint) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let text = serde_json::to_string_pretty(state)
            .map_err(|e| format!("cannot encode the checkpoint: {e}"))?;
        let mut tmp = path.as_os_str().to_os_string();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| format!("cannot write the checkpoint {}: {e}", path.display()))
    }
}
