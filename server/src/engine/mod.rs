//! The region engine: HBase's data model (namespaces, tables, regions, families, versions,
//! delete markers, TTL, counters, check-and-mutate) on redb. It knows nothing of Thrift.
//!
//! The engine is a house of rooms, each a folder whose `mod.rs` says what it owns and what it
//! may use. From the ground up:
//!
//! - `model`: the vocabulary every room speaks (cells and mutations, the key format,
//!   descriptors, a region's identity, errors).
//! - `reads`: what a read asks for and HBase's visibility rules.
//! - `store`: a region's files (the redb file and its recovery, the redo log, the write buffer,
//!   the read snapshot) and what region files share (cache budget, worker threads).
//! - `writes`: a region's write path (group commit, applying mutations).
//! - `regions`: a region's lifecycle and row reads, and its rewrites (splits, compactions).
//! - `meta`: the catalog file and the access control lists.
//! - `admin`, `data`, `backups`: the engine's operations, as `impl Engine` blocks (tables,
//!   namespaces, grants, splits; gets, scans, mutations; online backup).
//!
//! This root holds the [`Engine`] handle and its shared state, opening and closing it
//! (`lifecycle`), its settings (`config`), finding a row's region (`routing`) and what it
//! reports about itself (`figures`). Everything callers outside the engine name is
//! re-exported here, so the rooms are the engine's own business.
//!
//! A room uses only the rooms below it, and no module is in a cycle (`tests/module_graph.rs`).

mod admin;
mod backups;
mod config;
mod data;
mod figures;
mod lifecycle;
mod meta;
mod model;
mod reads;
mod region_lookup;
mod regions;
mod routing;
mod store;
mod writes;

pub use admin::{namespace_quota, region_bound};
pub use backups::{backup, backup_error, dump};
pub use data::scan;
pub use meta::{acl, catalog};
pub use model::{cell, error, family_values, keys, region_info, schema};
pub use reads::read;
pub use regions::{compaction, region};
pub use store::cache;
pub use writes::row_batch;

use admin::{ddl, maintenance};
use regions::rewrite;
use store::{background_drain, commit_pool, recovery};
use writes::recorder;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, RwLock};

pub use acl::{Acl, AclError, AclScope, Actions, Grant, Permission};
pub use backup::{BackupPoint, BackupStats, RegionSnapshot};
pub use backup_error::BackupError;
pub use cell::{
    write_timestamp, Cell, CellType, CellView, CompareOp, Condition, Durability, Op, RowBuilder,
    RowMutation, RowResult, LATEST_TIMESTAMP,
};
pub use compaction::CompactStats;
pub use config::EngineConfig;
pub use data::operations::{PendingWrite, Started};
pub use ddl::MAX_SPLIT_KEYS;
pub use error::{
    CompactError, ErrorKind, MutateError, NamespaceError, OpenError, ReadError, SchemaError,
    StorageError, TableError,
};
pub use figures::RecordPressure;
pub use maintenance::{MaintenanceTimes, SplitReport, RECENT_PAUSES};
pub use read::{CellVerdict, Filter, Get, ReadOptions, RowVerdict, Scan, TimeRange};
pub use recorder::RecordStats;
pub use recovery::{FailedRegion, StorageFaults};
pub use region_info::{RegionInfo, RegionMeta};
pub use row_batch::{BatchOutcome, RowBatch, RowCheck, RowOp};
pub use scan::Scanner;
pub use schema::{
    FamilyDescriptor, KeepDeletedCells, NamespaceDescriptor, TableDescriptor, TableName,
    MAX_NAME_COMPONENT, NS_MAX_REGIONS, NS_MAX_TABLES, SYSTEM_TABLES, TTL_FOREVER,
};

use catalog::{Catalog, TableRecord};
use commit_pool::CommitPool;
use region::Region;

/// The largest row key HBase accepts.
pub const MAX_ROW_LEN: usize = 32767;

/// A table as the engine holds it in memory.
#[derive(Clone)]
pub(crate) struct TableState {
    pub desc: Arc<TableDescriptor>,
    pub enabled: bool,
    /// Regions by start key; they cover the key space without gaps.
    pub regions: BTreeMap<Vec<u8>, Arc<Region>>,
    /// Set when a region file could not be opened: the table stays unusable, its files untouched.
    pub offline: Option<String>,
}

#[derive(Default)]
pub(crate) struct State {
    pub namespaces: BTreeMap<String, NamespaceDescriptor>,
    /// Each table's state is replaced whole on change, so readers clone an Arc, not a map.
    pub tables: BTreeMap<String, Arc<TableState>>,
}

pub(crate) struct Inner {
    pub dir: PathBuf,
    pub config: EngineConfig,
    pub catalog: Catalog,
    /// The access control grants, loaded from the catalog.
    pub acl: Arc<acl::Acl>,
    pub state: RwLock<State>,
    /// Serialises DDL with splits and compactions.
    pub ddl: Mutex<()>,
    pub cluster_id: String,
    last_region_id: AtomicU64,
    pub split_tx: Mutex<Option<Sender<(String, u64)>>>,
    pub split_pending: Arc<Mutex<HashSet<u64>>>,
    /// The last [`maintenance::RECENT_PAUSES`] split pauses, newest last.
    pub split_pauses: Mutex<std::collections::VecDeque<maintenance::SplitReport>>,
    pub times: maintenance::MaintenanceTimes,
    pub splits: AtomicU64,
    /// Of `splits`, those made at a region's tail ([`tail_split`](regions::tail_split)).
    pub tail_splits: AtomicU64,
    /// Size-triggered splits not made because the engine held `region_split_limit` regions.
    pub splits_at_limit: AtomicU64,
    /// Requests refused at `max_regions`.
    pub regions_refused: AtomicU64,
    /// Tables and splits a namespace quota refused.
    pub quota_refused: AtomicU64,
    pub compactions: AtomicU64,
    /// Successful region commits since the engine opened (each region's own count restarts
    /// when a split or major compaction replaces it; this one does not).
    pub commits: Arc<AtomicU64>,
    /// One-row writes queued for a task to await ([`Engine::start_mutate_row`]).
    pub awaited_writes: AtomicU64,
    maintenance: Mutex<Option<std::thread::JoinHandle<()>>>,
    /// The background flush of non-durable writes ([`region::flush_loop`]) and its stop switch.
    flusher: Mutex<Option<(Sender<()>, std::thread::JoinHandle<()>)>>,
    pub commit_pool: CommitPool,
    /// The threads write buffers drain on in the background.
    pub drain_pool: CommitPool,
    pub cache: Arc<cache::CacheBudget>,
    /// Set when [`Engine::close`] begins: writes then fail at once with `ShuttingDown`.
    pub closing: Arc<std::sync::atomic::AtomicBool>,
    /// Regions down after a storage I/O error, and the count of such errors.
    pub health: Arc<recovery::Health>,
    /// Writers held back at the bound on a rewrite's recorded keys.
    pub record_stats: Arc<recorder::RecordStats>,
    /// Online backups: one at a time, and their figures ([`backup`]).
    pub backups: backup::BackupStats,
}

/// A handle to an open engine; cheap to clone, shared by every connection.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("dir", &self.inner.dir)
            .finish()
    }
}

impl TableRecord {
    fn of(t: &TableState) -> TableRecord {
        TableRecord {
            descriptor: (*t.desc).clone(),
            enabled: t.enabled,
        }
    }
}
