//! Opening and closing the engine: loading the catalog and opening every table's regions (a
//! table whose files cannot be opened stays offline, never dropped), starting and stopping the
//! split thread and the background flush, and what every region is built with.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use super::catalog::{self, Catalog};
use super::commit_pool::CommitPool;
use super::region::{self, Region, RegionHooks};
use super::{
    acl, background_drain, backup, cache, cell, maintenance, recorder, recovery, rewrite, Engine,
    EngineConfig, Inner, NamespaceDescriptor, OpenError, RegionMeta, State, StorageError,
    TableName, TableState,
};

impl Engine {
    /// Opens (or creates) the engine in `dir`. A table whose region files are missing or
    /// unreadable is kept offline, named in [`Engine::offline_tables`], never dropped.
    pub fn open(dir: impl AsRef<Path>, config: EngineConfig) -> Result<Engine, OpenError> {
        let dir = dir.as_ref().to_path_buf();
        let tables = dir.join("tables");
        std::fs::create_dir_all(&tables).map_err(|e| {
            OpenError::not_writable_from(&tables, &e).unwrap_or_else(|| OpenError::DataDir {
                dir: dir.clone(),
                message: e.to_string(),
            })
        })?;
        let (catalog, mut loaded) = Catalog::open(&dir)?;
        let (split_tx, split_rx) = std::sync::mpsc::channel();
        let commit_pool = CommitPool::new(config.commit_threads);
        let cache = cache::CacheBudget::new(config.cache_size);
        let health = Arc::new(recovery::Health::default());
        health.buffers.limit.store(
            config.write_buffer_bytes(),
            std::sync::atomic::Ordering::Relaxed,
        );
        let inner = Arc::new(Inner {
            dir: dir.clone(),
            config,
            catalog,
            acl: Arc::new(acl::Acl::load(std::mem::take(&mut loaded.grants))),
            state: RwLock::new(State::default()),
            ddl: Mutex::new(()),
            cluster_id: loaded.cluster_id.clone(),
            last_region_id: AtomicU64::new(0),
            split_tx: Mutex::new(Some(split_tx)),
            split_pending: Arc::new(Mutex::new(HashSet::new())),
            split_pauses: Mutex::new(std::collections::VecDeque::new()),
            times: maintenance::MaintenanceTimes::default(),
            splits: AtomicU64::new(0),
            tail_splits: AtomicU64::new(0),
            splits_at_limit: AtomicU64::new(0),
            regions_refused: AtomicU64::new(0),
            quota_refused: AtomicU64::new(0),
            compactions: AtomicU64::new(0),
            record_stats: Arc::default(),
            commits: Arc::new(AtomicU64::new(0)),
            awaited_writes: AtomicU64::new(0),
            maintenance: Mutex::new(None),
            flusher: Mutex::new(None),
            commit_pool,
            drain_pool: CommitPool::named(
                background_drain::DRAIN_THREAD,
                background_drain::MAX_DRAIN_THREADS,
            ),
            cache,
            closing: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            health,
            backups: backup::BackupStats::default(),
        });
        let engine = Engine { inner };
        engine.load(loaded)?;
        let weak: Weak<Inner> = Arc::downgrade(&engine.inner);
        let handle = std::thread::Builder::new()
            .name("region-splitter".into())
            .spawn(move || maintenance::split_loop(weak, split_rx))
            .map_err(|e| OpenError::DataDir {
                dir: dir.clone(),
                message: format!("cannot start the split thread: {e}"),
            })?;
        *engine
            .inner
            .maintenance
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some(handle);
        let weak: Weak<Inner> = Arc::downgrade(&engine.inner);
        let every = engine
            .inner
            .config
            .async_flush
            .max(Duration::from_millis(1));
        let (stop_tx, stop_rx) = std::sync::mpsc::channel();
        let handle = std::thread::Builder::new()
            .name("async-flush".into())
            .spawn(move || {
                region::flush_loop(every, stop_rx, || {
                    let inner = weak.upgrade()?;
                    let state = inner.state.read().unwrap_or_else(|p| p.into_inner());
                    Some(
                        state
                            .tables
                            .values()
                            .flat_map(|t| t.regions.values().map(Arc::downgrade))
                            .collect(),
                    )
                })
            })
            .map_err(|e| OpenError::DataDir {
                dir: dir.clone(),
                message: format!("cannot start the async flush thread: {e}"),
            })?;
        *engine
            .inner
            .flusher
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = Some((stop_tx, handle));
        Ok(engine)
    }

    fn load(&self, loaded: catalog::Loaded) -> Result<(), OpenError> {
        let mut state = State::default();
        for ns in ["default", "hbase"] {
            state
                .namespaces
                .insert(ns.to_string(), NamespaceDescriptor::new(ns));
        }
        state.namespaces.extend(loaded.namespaces);
        let mut max_id = 0;
        for (name, rec) in loaded.tables {
            let metas = loaded.regions.get(&name).cloned().unwrap_or_default();
            let dir = self.table_dir(&rec.descriptor.name);
            let mut regions = BTreeMap::new();
            let mut offline = None;
            for meta in metas {
                max_id = max_id.max(meta.id);
                match Region::open(&dir, meta.clone(), self.region_hooks()) {
                    Ok(r) => {
                        regions.insert(meta.start.clone(), Arc::new(r));
                    }
                    Err(e) => {
                        tracing::error!(table = %name, error = %e, "region unavailable; table kept offline");
                        offline = Some(e.to_string());
                    }
                }
            }
            if regions.is_empty() && offline.is_none() {
                offline = Some("the catalog lists no region for this table".into());
            }
            if offline.is_some() {
                regions.clear();
            } else {
                remove_orphans(&dir, &regions);
            }
            state.tables.insert(
                name,
                Arc::new(TableState {
                    desc: Arc::new(rec.descriptor),
                    enabled: rec.enabled,
                    regions,
                    offline,
                }),
            );
        }
        self.inner.last_region_id.store(max_id, Ordering::SeqCst);
        *self.inner.state.write().unwrap_or_else(|p| p.into_inner()) = state;
        Ok(())
    }

    pub fn config(&self) -> &EngineConfig {
        &self.inner.config
    }

    pub fn data_dir(&self) -> &Path {
        &self.inner.dir
    }

    /// A stable id for this data directory (HBase's cluster id).
    pub fn cluster_id(&self) -> &str {
        &self.inner.cluster_id
    }

    /// Tables that could not be opened at start-up, with the reason (naming the file).
    pub fn offline_tables(&self) -> Vec<(String, String)> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state
            .tables
            .iter()
            .filter_map(|(n, t)| t.offline.clone().map(|r| (n.clone(), r)))
            .collect()
    }

    /// Stops every region's committer after the writes already sent are committed.
    pub fn close(&self) {
        self.inner.closing.store(true, Ordering::Release);
        // Stop the split thread first; a split in progress sees `closing` and gives up.
        if let Some(tx) = self
            .inner
            .split_tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = tx.send((String::new(), maintenance::STOP));
        }
        if let Some(h) = self
            .inner
            .maintenance
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        // Then the background flush: closing each region commits it durably anyway.
        if let Some((stop, h)) = self
            .inner
            .flusher
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            let _ = stop.send(());
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
        for r in self.all_regions() {
            r.close();
        }
    }

    /// Makes every acknowledged non-durable write durable in its region's file now, as the
    /// background flush does every [`EngineConfig::async_flush`]; the first region that cannot
    /// be flushed says why (the others are still flushed).
    pub fn flush_all(&self) -> Result<(), StorageError> {
        let mut first = Ok(());
        for r in self.all_regions() {
            if let Err(e) = r.flush() {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }

    pub(crate) fn table_dir(&self, name: &TableName) -> PathBuf {
        self.inner
            .dir
            .join("tables")
            .join(&name.namespace)
            .join(&name.qualifier)
    }

    /// A fresh region id: creation time in ms, made unique.
    pub(crate) fn new_region_id(&self) -> u64 {
        let now = cell::now_ms() as u64;
        let mut cur = self.inner.last_region_id.load(Ordering::SeqCst);
        loop {
            let next = now.max(cur + 1);
            match self.inner.last_region_id.compare_exchange(
                cur,
                next,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => return next,
                Err(c) => cur = c,
            }
        }
    }

    /// What every region of this engine is built with.
    pub(crate) fn region_hooks(&self) -> RegionHooks {
        RegionHooks {
            on_commit: self.on_large(),
            pool: self.inner.commit_pool.clone(),
            drainer: self.inner.drain_pool.clone(),
            health: self.inner.health.clone(),
            faults: self.inner.config.storage_faults.clone(),
            cache: self.inner.cache.clone(),
            catch_up_free_rounds: self.inner.config.catch_up_free_rounds,
            stop: self.inner.closing.clone(),
            record: recorder::RecordLimits {
                max_keys: self.inner.config.max_recorded_keys.max(1),
                busy_wait: self.inner.config.write_busy_wait,
                block_size: self.inner.config.region_block_size(),
                size_wait: self.inner.config.region_block_wait,
            },
            record_stats: self.inner.record_stats.clone(),
        }
    }

    pub(crate) fn on_large(&self) -> rewrite::OnLarge {
        let max = self.inner.config.region_max_size;
        let tx = self
            .inner
            .split_tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let pending = self.inner.split_pending.clone();
        let commits = self.inner.commits.clone();
        let tx = Mutex::new(tx);
        Arc::new(move |meta: &RegionMeta, size: u64, appending: bool| {
            commits.fetch_add(1, Ordering::Relaxed);
            // A region taking appends splits at half the size, at its tail: its lower part
            // then holds what a middle split's halves would, and nothing is copied.
            let limit = if appending { max / 2 } else { max };
            if max == 0 || size <= limit {
                return;
            }
            let mut p = pending.lock().unwrap_or_else(|p| p.into_inner());
            if p.insert(meta.id) {
                if let Some(tx) = tx.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                    let _ = tx.send((meta.table.clone(), meta.id));
                }
            }
        })
    }
}

/// Deletes region files a crash left behind (a split or compaction that never reached the
/// catalog).
fn remove_orphans(dir: &Path, regions: &BTreeMap<Vec<u8>, Arc<Region>>) {
    let known: HashSet<&str> = regions.values().map(|r| r.meta.file.as_str()).collect();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".redb") && !known.contains(name.as_str()) {
                tracing::info!(file = %e.path().display(), "removing orphan region file");
                let _ = std::fs::remove_file(e.path());
            }
            // The redo log of a region file the catalog does not name (one replaced by a split
            // or a major compaction that crashed before deleting it).
            if let Some(region) = name
                .strip_suffix(".log")
                .or_else(|| name.strip_suffix(".log2"))
            {
                if region.ends_with(".redb") && !known.contains(region) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }
}
