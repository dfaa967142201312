//! Namespace and table administration. Every change is one catalog commit; in-memory state
//! follows only after the commit succeeded.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::engine::meta::acl::AclScope;
use crate::engine::meta::catalog::{Change, TableRecord};
use crate::engine::model::error::{NamespaceError, TableError};
use crate::engine::model::region_info::RegionMeta;
use crate::engine::model::schema::{
    validate_namespace_name, FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName,
    SYSTEM_TABLES,
};
use crate::engine::regions::region::Region;
use crate::engine::{Engine, TableState};

/// The most split keys one `create_table` takes (10,001 regions): each region is a file, so a
/// client must not be able to ask for millions.
pub const MAX_SPLIT_KEYS: usize = 10_000;

impl Engine {
    fn lock_ddl(&self) -> std::sync::MutexGuard<'_, ()> {
        self.inner.ddl.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn create_namespace(&self, ns: NamespaceDescriptor) -> Result<(), NamespaceError> {
        validate_namespace_name(&ns.name)?;
        let _ddl = self.lock_ddl();
        let mut state = self.inner.state.write().unwrap_or_else(|p| p.into_inner());
        if state.namespaces.contains_key(&ns.name) {
            return Err(NamespaceError::Exists(ns.name));
        }
        ns.validate_quotas()?;
        self.inner
            .catalog
            .commit(&[Change::PutNamespace(ns.clone())])?;
        state.namespaces.insert(ns.name.clone(), ns);
        Ok(())
    }

    pub fn modify_namespace(&self, ns: NamespaceDescriptor) -> Result<(), NamespaceError> {
        let _ddl = self.lock_ddl();
        let mut state = self.inner.state.write().unwrap_or_else(|p| p.into_inner());
        if !state.namespaces.contains_key(&ns.name) {
            return Err(NamespaceError::NotFound(ns.name));
        }
        ns.validate_quotas()?;
        self.inner
            .catalog
            .commit(&[Change::PutNamespace(ns.clone())])?;
        state.namespaces.insert(ns.name.clone(), ns);
        Ok(())
    }

    pub fn delete_namespace(&self, name: &str) -> Result<(), NamespaceError> {
        if name == "default" || name == "hbase" {
            return Err(NamespaceError::Reserved(name.to_string()));
        }
        let _ddl = self.lock_ddl();
        let mut state = self.inner.state.write().unwrap_or_else(|p| p.into_inner());
        if !state.namespaces.contains_key(name) {
            return Err(NamespaceError::NotFound(name.to_string()));
        }
        let tables = state
            .tables
            .values()
            .filter(|t| t.desc.name.namespace == name)
            .count();
        if tables > 0 {
            return Err(NamespaceError::NotEmpty {
                name: name.to_string(),
                tables,
            });
        }
        let mut changes = vec![Change::DeleteNamespace(name.to_string())];
        changes.extend(self.drop_grants(&AclScope::Namespace(name.to_string())));
        self.inner.catalog.commit(&changes)?;
        self.forget_grants(&changes);
        state.namespaces.remove(name);
        Ok(())
    }

    pub fn get_namespace(&self, name: &str) -> Result<NamespaceDescriptor, NamespaceError> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state
            .namespaces
            .get(name)
            .cloned()
            .ok_or_else(|| NamespaceError::NotFound(name.to_string()))
    }

    pub fn list_namespaces(&self) -> Vec<NamespaceDescriptor> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state.namespaces.values().cloned().collect()
    }

    /// Creates a table with one region per split key plus one; split keys must be non-empty
    /// and distinct (they are sorted, as HBase does).
    pub fn create_table(
        &self,
        mut desc: TableDescriptor,
        split_keys: &[Vec<u8>],
    ) -> Result<(), TableError> {
        desc.validate()?;
        // HBase's master records the store file tracker in every table it creates (a later
        // modifyTable replaces the map, dropping it, as HBase 2.6 does).
        desc.attributes
            .entry(b"hbase.store.file-tracker.impl".to_vec())
            .or_insert_with(|| b"DEFAULT".to_vec());
        if split_keys.len() > MAX_SPLIT_KEYS {
            return Err(TableError::InvalidSplitKeys(format!(
                "{} split keys: a table may be created with at most {MAX_SPLIT_KEYS}",
                split_keys.len()
            )));
        }
        let mut splits = split_keys.to_vec();
        splits.sort();
        if splits.iter().any(|k| k.is_empty()) {
            return Err(TableError::InvalidSplitKeys(
                "a split key must not be empty".into(),
            ));
        }
        if let Some(w) = splits.windows(2).find(|w| w[0] == w[1]) {
            return Err(TableError::InvalidSplitKeys(format!(
                "split key {:?} appears twice",
                String::from_utf8_lossy(&w[0])
            )));
        }
        let _ddl = self.lock_ddl();
        let key = desc.name.to_string();
        {
            let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
            if !state.namespaces.contains_key(&desc.name.namespace) {
                return Err(TableError::NamespaceNotFound(desc.name.namespace.clone()));
            }
            if state.tables.contains_key(&key) || SYSTEM_TABLES.contains(&key.as_str()) {
                return Err(TableError::Exists(key));
            }
        }
        self.room_for_regions(&format!("creating table {key}"), splits.len() + 1, 0)?;
        self.namespace_room_for_table(&desc.name, splits.len() + 1)?;
        let regions = self.create_regions(&desc.name, &splits)?;
        let mut changes = vec![Change::PutTable(TableRecord {
            descriptor: desc.clone(),
            enabled: true,
        })];
        changes.extend(regions.values().map(|r| Change::PutRegion(r.meta.clone())));
        if let Err(e) = self.inner.catalog.commit(&changes) {
            drop_regions(regions.into_values());
            // Empty now, unless files the catalog never named lie there.
            let _ = std::fs::remove_dir(self.table_dir(&desc.name));
            return Err(e.into());
        }
        let mut state = self.inner.state.write().unwrap_or_else(|p| p.into_inner());
        state.tables.insert(
            key,
            Arc::new(TableState {
                desc: Arc::new(desc),
                enabled: true,
                regions,
                offline: None,
            }),
        );
        Ok(())
    }

    fn create_regions(
        &self,
        name: &TableName,
        splits: &[Vec<u8>],
    ) -> Result<BTreeMap<Vec<u8>, Arc<Region>>, TableError> {
        let dir = self.table_dir(name);
        // A table made here takes its directory with it if it cannot be made.
        let new_dir = !dir.exists();
        std::fs::create_dir_all(&dir)
            .map_err(|e| crate::engine::model::error::StorageError::new(&dir, e))?;
        let undo = |regions: BTreeMap<Vec<u8>, Arc<Region>>| {
            drop_regions(regions.into_values());
            if new_dir {
                let _ = std::fs::remove_dir(&dir);
            }
        };
        let mut starts = vec![Vec::new()];
        starts.extend(splits.iter().cloned());
        let mut regions = BTreeMap::new();
        for (i, start) in starts.iter().enumerate() {
            let id = self.new_region_id();
            let meta = RegionMeta {
                table: name.to_string(),
                id,
                start: start.clone(),
                end: starts.get(i + 1).cloned().unwrap_or_default(),
                file: format!("{id}.redb"),
            };
            match Region::create(&dir, meta, self.region_hooks()) {
                Ok(r) => {
                    regions.insert(start.clone(), Arc::new(r));
                }
                Err(e) => {
                    undo(regions);
                    return Err(e.into());
                }
            }
        }
        Ok(regions)
    }

    fn table_key(name: &str) -> Result<String, TableError> {
        Ok(TableName::parse(name)?.to_string())
    }

    /// Runs `f` on the table's state under the DDL and state locks, committing what it returns.
    fn alter_table(
        &self,
        name: &str,
        f: impl FnOnce(&mut TableState) -> Result<Vec<Change>, TableError>,
    ) -> Result<(), TableError> {
        let key = Self::table_key(name)?;
        let _ddl = self.lock_ddl();
        let mut state = self.inner.state.write().unwrap_or_else(|p| p.into_inner());
        let current = state
            .tables
            .get(&key)
            .ok_or_else(|| TableError::NotFound(key.clone()))?;
        let mut next = (**current).clone();
        let changes = f(&mut next)?;
        self.inner.catalog.commit(&changes)?;
        state.tables.insert(key, Arc::new(next));
        Ok(())
    }

    pub fn enable_table(&self, name: &str) -> Result<(), TableError> {
        self.alter_table(name, |t| {
            if t.enabled {
                return Err(TableError::AlreadyEnabled(t.desc.name.to_string()));
            }
            t.enabled = true;
            Ok(vec![Change::PutTable(TableRecord::of(t))])
        })
    }

    pub fn disable_table(&self, name: &str) -> Result<(), TableError> {
        self.alter_table(name, |t| {
            if !t.enabled {
                return Err(TableError::AlreadyDisabled(t.desc.name.to_string()));
            }
            t.enabled = false;
            Ok(vec![Change::PutTable(TableRecord::of(t))])
        })
    }

    pub fn is_table_enabled(&self, name: &str) -> Result<bool, TableError> {
        let key = Self::table_key(name)?;
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state
            .tables
            .get(&key)
            .map(|t| t.enabled)
            .ok_or(TableError::NotFound(key))
    }

    pub fn table_exists(&self, name: &str) -> bool {
        let Ok(key) = Self::table_key(name) else {
            return false;
        };
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state.tables.contains_key(&key)
    }

    /// Every table, sorted by name.
    pub fn list_tables(&self) -> Vec<TableName> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        let mut v: Vec<TableName> = state.tables.values().map(|t| t.desc.name.clone()).collect();
        v.sort();
        v
    }

    pub fn describe_table(&self, name: &str) -> Result<TableDescriptor, TableError> {
        let key = Self::table_key(name)?;
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state
            .tables
            .get(&key)
            .map(|t| (*t.desc).clone())
            .ok_or(TableError::NotFound(key))
    }

    /// Deletes a disabled table and its files.
    pub fn delete_table(&self, name: &str) -> Result<(), TableError> {
        let key = Self::table_key(name)?;
        let _ddl = self.lock_ddl();
        let removed = {
            let mut state = self.inner.state.write().unwrap_or_else(|p| p.into_inner());
            let t = state
                .tables
                .get(&key)
                .ok_or_else(|| TableError::NotFound(key.clone()))?;
            if t.enabled && t.offline.is_none() {
                return Err(TableError::NotDisabled(key));
            }
            let mut changes = vec![Change::DeleteTable(key.clone())];
            changes.extend(t.regions.values().map(|r| Change::DeleteRegion {
                table: key.clone(),
                id: r.meta.id,
            }));
            changes.extend(self.drop_grants(&AclScope::Table(t.desc.name.clone())));
            self.inner.catalog.commit(&changes)?;
            self.forget_grants(&changes);
            state.tables.remove(&key).expect("checked above")
        };
        let dir = self.table_dir(&removed.desc.name);
        drop_regions(removed.regions.values().cloned());
        let _ = std::fs::remove_dir_all(dir);
        Ok(())
    }

    /// Empties a disabled table, keeping its region boundaries or not; it ends enabled, as in
    /// HBase.
    pub fn truncate_table(&self, name: &str, preserve_splits: bool) -> Result<(), TableError> {
        let key = Self::table_key(name)?;
        let _ddl = self.lock_ddl();
        let (desc, old) = {
            let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
            let t = state
                .tables
                .get(&key)
                .ok_or_else(|| TableError::NotFound(key.clone()))?;
            if t.enabled {
                return Err(TableError::NotDisabled(key));
            }
            (t.desc.clone(), t.regions.clone())
        };
        let splits: Vec<Vec<u8>> = if preserve_splits {
            old.keys().filter(|k| !k.is_empty()).cloned().collect()
        } else {
            Vec::new()
        };
        self.room_for_regions(
            &format!("truncating table {key}"),
            splits.len() + 1,
            old.len(),
        )?;
        let regions = self.create_regions(&desc.name, &splits)?;
        let mut changes: Vec<Change> = old
            .values()
            .map(|r| Change::DeleteRegion {
                table: key.clone(),
                id: r.meta.id,
            })
            .collect();
        changes.extend(regions.values().map(|r| Change::PutRegion(r.meta.clone())));
        let next = TableState {
            desc,
            enabled: true,
            regions,
            offline: None,
        };
        changes.push(Change::PutTable(TableRecord::of(&next)));
        if let Err(e) = self.inner.catalog.commit(&changes) {
            drop_regions(next.regions.into_values());
            return Err(e.into());
        }
        self.inner
            .state
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .tables
            .insert(key, Arc::new(next));
        drop_regions(old.into_values());
        Ok(())
    }

    pub fn add_family(&self, name: &str, family: FamilyDescriptor) -> Result<(), TableError> {
        family.validate()?;
        self.alter_table(name, |t| {
            if t.desc.families.contains_key(&family.name) {
                return Err(TableError::FamilyExists {
                    table: t.desc.name.to_string(),
                    family: family.name_str(),
                });
            }
            let mut d = (*t.desc).clone();
            d.families.insert(family.name.clone(), family);
            t.desc = Arc::new(d);
            Ok(vec![Change::PutTable(TableRecord::of(t))])
        })
    }

    pub fn modify_family(&self, name: &str, family: FamilyDescriptor) -> Result<(), TableError> {
        family.validate()?;
        self.alter_table(name, |t| {
            if !t.desc.families.contains_key(&family.name) {
                return Err(TableError::FamilyNotFound {
                    table: t.desc.name.to_string(),
                    family: family.name_str(),
                });
            }
            let mut d = (*t.desc).clone();
            d.families.insert(family.name.clone(), family);
            t.desc = Arc::new(d);
            Ok(vec![Change::PutTable(TableRecord::of(t))])
        })
    }

    /// Removes a family; its cells become unreachable at once and are dropped by the next major
    /// compaction.
    pub fn delete_family(&self, name: &str, family: &[u8]) -> Result<(), TableError> {
        let mut regions = Vec::new();
        self.alter_table(name, |t| {
            regions = t.regions.values().cloned().collect();
            if !t.desc.families.contains_key(family) {
                return Err(TableError::FamilyNotFound {
                    table: t.desc.name.to_string(),
                    family: String::from_utf8_lossy(family).into_owned(),
                });
            }
            if t.desc.families.len() == 1 {
                return Err(TableError::LastFamily(t.desc.name.to_string()));
            }
            let mut d = (*t.desc).clone();
            d.families.remove(family);
            t.desc = Arc::new(d);
            Ok(vec![Change::PutTable(TableRecord::of(t))])
        })?;
        for r in regions {
            r.drop_family(family)?;
        }
        Ok(())
    }

    /// Replaces a table's descriptor (families added, changed or removed as it says).
    pub fn modify_table(&self, desc: TableDescriptor) -> Result<(), TableError> {
        desc.validate()?;
        let name = desc.name.to_string();
        let mut dropped = Vec::new();
        let mut regions = Vec::new();
        self.alter_table(&name, |t| {
            dropped = t
                .desc
                .families
                .keys()
                .filter(|f| !desc.families.contains_key(*f))
                .cloned()
                .collect();
            regions = t.regions.values().cloned().collect();
            t.desc = Arc::new(desc);
            Ok(vec![Change::PutTable(TableRecord::of(t))])
        })?;
        for r in regions {
            for f in &dropped {
                r.drop_family(f)?;
            }
        }
        Ok(())
    }
}

fn drop_regions(regions: impl IntoIterator<Item = Arc<Region>>) {
    for r in regions {
        r.close();
        let path = r.path.clone();
        drop(r);
        let _ = std::fs::remove_file(&path);
        crate::engine::store::redo::remove_log(&path);
    }
}
