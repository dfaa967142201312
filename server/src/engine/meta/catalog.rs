//! The catalog: `meta.redb` in the data directory, holding namespaces, table descriptors, the
//! region list and the access control grants. Every DDL change and every region switch (split, compaction, truncate) is one
//! durable commit here, so after a crash the catalog names exactly one consistent set of regions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};

use super::acl::{AclScope, Grant};
use crate::engine::model::error::{OpenError, StorageError};
use crate::engine::model::region_info::RegionMeta;
use crate::engine::model::schema::{NamespaceDescriptor, TableDescriptor};

const NAMESPACES: TableDefinition<&str, &[u8]> = TableDefinition::new("namespaces");
const TABLES: TableDefinition<&str, &[u8]> = TableDefinition::new("tables");
const REGIONS: TableDefinition<&str, &[u8]> = TableDefinition::new("regions");
const CLUSTER: TableDefinition<&str, &[u8]> = TableDefinition::new("cluster");
/// ACL grants, keyed by scope and user ([`Grant::key`]); an older catalog gets it at open.
const ACL: TableDefinition<&str, &[u8]> = TableDefinition::new("acl");

/// A table as the catalog keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableRecord {
    pub descriptor: TableDescriptor,
    pub enabled: bool,
}

/// One change to the catalog; a list of them commits atomically.
#[derive(Debug, Clone)]
pub enum Change {
    PutNamespace(NamespaceDescriptor),
    DeleteNamespace(String),
    PutTable(TableRecord),
    DeleteTable(String),
    PutRegion(RegionMeta),
    DeleteRegion { table: String, id: u64 },
    PutGrant(Grant),
    DeleteGrant { scope: AclScope, user: String },
}

/// Everything the catalog holds, as loaded at start-up.
#[derive(Debug, Default)]
pub struct Loaded {
    pub namespaces: BTreeMap<String, NamespaceDescriptor>,
    pub tables: BTreeMap<String, TableRecord>,
    pub regions: BTreeMap<String, Vec<RegionMeta>>,
    pub cluster_id: String,
    pub grants: Vec<Grant>,
}

pub struct Catalog {
    /// None after a reopen failed; [`Catalog::commit`] opens it again.
    db: Mutex<Option<Database>>,
    path: PathBuf,
}

fn region_key(table: &str, id: u64) -> String {
    format!("{table}\u{0}{id:020}")
}

impl Catalog {
    pub fn open(dir: &Path) -> Result<(Catalog, Loaded), OpenError> {
        let path = dir.join("meta.redb");
        let bad = |e: &dyn std::fmt::Display| OpenError::Catalog {
            file: path.clone(),
            message: e.to_string(),
        };
        let db = redb::Builder::new()
            .set_cache_size(crate::engine::store::cache::CATALOG_CACHE)
            .create(&path)
            .map_err(|e| match e {
                // Not damage: another process has the catalog open.
                redb::DatabaseError::DatabaseAlreadyOpen => OpenError::InUse {
                    dir: dir.to_path_buf(),
                },
                redb::DatabaseError::Storage(redb::StorageError::Io(io)) => {
                    OpenError::not_writable_from(&path, &io).unwrap_or_else(|| bad(&io))
                }
                e => bad(&e),
            })?;
        // Make sure every table exists and the cluster has an id.
        let txn = db.begin_write().map_err(|e| bad(&e))?;
        {
            txn.open_table(NAMESPACES).map_err(|e| bad(&e))?;
            txn.open_table(TABLES).map_err(|e| bad(&e))?;
            txn.open_table(REGIONS).map_err(|e| bad(&e))?;
            txn.open_table(ACL).map_err(|e| bad(&e))?;
            let mut c = txn.open_table(CLUSTER).map_err(|e| bad(&e))?;
            if c.get("id").map_err(|e| bad(&e))?.is_none() {
                let id = new_cluster_id();
                c.insert("id", id.as_bytes()).map_err(|e| bad(&e))?;
            }
        }
        txn.commit().map_err(|e| bad(&e))?;

        let mut loaded = Loaded::default();
        let txn = db.begin_read().map_err(|e| bad(&e))?;
        for item in txn
            .open_table(NAMESPACES)
            .map_err(|e| bad(&e))?
            .iter()
            .map_err(|e| bad(&e))?
        {
            let (k, v) = item.map_err(|e| bad(&e))?;
            let ns: NamespaceDescriptor = serde_json::from_slice(v.value())
                .map_err(|e| bad(&format!("namespace {}: {e}", k.value())))?;
            loaded.namespaces.insert(k.value().to_string(), ns);
        }
        for item in txn
            .open_table(TABLES)
            .map_err(|e| bad(&e))?
            .iter()
            .map_err(|e| bad(&e))?
        {
            let (k, v) = item.map_err(|e| bad(&e))?;
            let t: TableRecord = serde_json::from_slice(v.value())
                .map_err(|e| bad(&format!("table {}: {e}", k.value())))?;
            loaded.tables.insert(k.value().to_string(), t);
        }
        for item in txn
            .open_table(REGIONS)
            .map_err(|e| bad(&e))?
            .iter()
            .map_err(|e| bad(&e))?
        {
            let (k, v) = item.map_err(|e| bad(&e))?;
            let r: RegionMeta = serde_json::from_slice(v.value())
                .map_err(|e| bad(&format!("region {}: {e}", k.value())))?;
            loaded.regions.entry(r.table.clone()).or_default().push(r);
        }
        for item in txn
            .open_table(ACL)
            .map_err(|e| bad(&e))?
            .iter()
            .map_err(|e| bad(&e))?
        {
            let (k, v) = item.map_err(|e| bad(&e))?;
            let g: Grant = serde_json::from_slice(v.value())
                .map_err(|e| bad(&format!("grant {:?}: {e}", k.value())))?;
            loaded.grants.push(g);
        }
        for regions in loaded.regions.values_mut() {
            regions.sort_by(|a, b| a.start.cmp(&b.start));
        }
        loaded.cluster_id = txn
            .open_table(CLUSTER)
            .map_err(|e| bad(&e))?
            .get("id")
            .map_err(|e| bad(&e))?
            .map(|v| String::from_utf8_lossy(v.value()).into_owned())
            .unwrap_or_default();
        drop(txn);
        let catalog = Catalog {
            db: Mutex::new(Some(db)),
            path,
        };
        Ok((catalog, loaded))
    }

    /// A read transaction on the catalog: a backup's view of it ([`crate::engine::backups::backup`]).
    pub(crate) fn begin_read(&self) -> Result<redb::ReadTransaction, StorageError> {
        let slot = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let db = slot
            .as_ref()
            .ok_or_else(|| StorageError::new(&self.path, "the catalog is not open"))?;
        db.begin_read()
            .map_err(|e| StorageError::new(&self.path, e))
    }

    /// Applies the changes in one durable transaction.
    ///
    /// After a storage I/O error (a full disk) redb refuses all work on the file until it is
    /// reopened; the commit that failed was never applied, so the next commit reopens the file
    /// (redb's recovery takes it back to the last commit) and goes on, without a restart.
    pub fn commit(&self, changes: &[Change]) -> Result<(), StorageError> {
        let err = |e: &dyn std::fmt::Display| StorageError::new(&self.path, e);
        let mut slot = self.db.lock().unwrap_or_else(|p| p.into_inner());
        let poisoned = slot.as_ref().is_some_and(|db| {
            matches!(
                db.try_begin_write(),
                Err(redb::TransactionError::Storage(
                    redb::StorageError::PreviousIo | redb::StorageError::Io(_)
                ))
            )
        });
        if poisoned || slot.is_none() {
            // Close the poisoned file first: redb holds a lock on it while it is open.
            *slot = None;
            let db = redb::Builder::new()
                .set_cache_size(crate::engine::store::cache::CATALOG_CACHE)
                .create(&self.path)
                .map_err(|e| {
                err(&format!(
                    "the catalog is unavailable after a storage I/O error and cannot be reopened yet ({e}): retry"
                ))
            })?;
            tracing::warn!(file = %self.path.display(), "catalog reopened after a storage I/O error");
            *slot = Some(db);
        }
        let Some(db) = slot.as_ref() else {
            return Err(err(&"the catalog is not open"));
        };
        let txn = db.begin_write().map_err(|e| err(&e))?;
        {
            let mut ns = txn.open_table(NAMESPACES).map_err(|e| err(&e))?;
            let mut tables = txn.open_table(TABLES).map_err(|e| err(&e))?;
            let mut regions = txn.open_table(REGIONS).map_err(|e| err(&e))?;
            let mut acl = txn.open_table(ACL).map_err(|e| err(&e))?;
            for c in changes {
                match c {
                    Change::PutNamespace(d) => {
                        let v = serde_json::to_vec(d).map_err(|e| err(&e))?;
                        ns.insert(d.name.as_str(), v.as_slice())
                            .map_err(|e| err(&e))?;
                    }
                    Change::DeleteNamespace(n) => {
                        ns.remove(n.as_str()).map_err(|e| err(&e))?;
                    }
                    Change::PutTable(t) => {
                        let v = serde_json::to_vec(t).map_err(|e| err(&e))?;
                        let name = t.descriptor.name.to_string();
                        tables
                            .insert(name.as_str(), v.as_slice())
                            .map_err(|e| err(&e))?;
                    }
                    Change::DeleteTable(n) => {
                        tables.remove(n.as_str()).map_err(|e| err(&e))?;
                    }
                    Change::PutRegion(r) => {
                        let v = serde_json::to_vec(r).map_err(|e| err(&e))?;
                        regions
                            .insert(region_key(&r.table, r.id).as_str(), v.as_slice())
                            .map_err(|e| err(&e))?;
                    }
                    Change::DeleteRegion { table, id } => {
                        regions
                            .remove(region_key(table, *id).as_str())
                            .map_err(|e| err(&e))?;
                    }
                    Change::PutGrant(g) => {
                        let v = serde_json::to_vec(g).map_err(|e| err(&e))?;
                        acl.insert(Grant::key(&g.scope, &g.user).as_str(), v.as_slice())
                            .map_err(|e| err(&e))?;
                    }
                    Change::DeleteGrant { scope, user } => {
                        acl.remove(Grant::key(scope, user).as_str())
                            .map_err(|e| err(&e))?;
                    }
                }
            }
        }
        txn.commit().map_err(|e| err(&e))?;
        Ok(())
    }
}

/// A random-enough cluster id, fixed at first start and kept in the catalog.
fn new_cluster_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.write_u32(std::process::id());
        out.push_str(&format!("{:016x}", h.finish()));
    }
    format!(
        "{}-{}-{}-{}-{}",
        &out[0..8],
        &out[8..12],
        &out[12..16],
        &out[16..20],
        &out[20..32]
    )
}
