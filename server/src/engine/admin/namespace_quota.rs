//! HBase's namespace quotas, enforced when [`EngineConfig::quota_enabled`] is on (HBase's
//! `hbase.quota.enabled`, off by default in both). A namespace's
//! `hbase.namespace.quota.maxtables` caps its tables and `hbase.namespace.quota.maxregions`
//! its regions: a table that would pass either is refused with HBase's own words, and a split
//! that would pass the region quota is refused too. As in HBase, lowering a quota below what a
//! namespace holds is allowed (nothing is taken away; only growth stops), and truncating a
//! table is never refused. The values were checked when the namespace was created or
//! modified ([`NamespaceDescriptor::validate_quotas`]).
//!
//! [`EngineConfig::quota_enabled`]: crate::engine::EngineConfig::quota_enabled
//! [`NamespaceDescriptor::validate_quotas`]: crate::engine::model::schema::NamespaceDescriptor::validate_quotas

use std::sync::atomic::Ordering;

use crate::engine::model::error::TableError;
use crate::engine::model::schema::{NamespaceDescriptor, TableName, NS_MAX_REGIONS, NS_MAX_TABLES};
use crate::engine::{Engine, State};

/// A quota property's value, when it is set to a whole number above zero.
fn quota(ns: &NamespaceDescriptor, key: &str) -> Option<i64> {
    ns.configuration
        .get(key)
        .and_then(|v| v.parse::<i64>().ok())
        .filter(|n| *n > 0)
}

/// The namespace's tables and regions now.
fn usage(state: &State, namespace: &str) -> (usize, usize) {
    state
        .tables
        .values()
        .filter(|t| t.desc.name.namespace == namespace)
        .fold((0, 0), |(tables, regions), t| {
            (tables + 1, regions + t.regions.len())
        })
}

impl Engine {
    /// Whether namespace quotas are enforced.
    pub fn quota_enabled(&self) -> bool {
        self.inner.config.quota_enabled
    }

    /// Tables and splits refused by a namespace quota.
    pub fn quota_refused(&self) -> u64 {
        self.inner.quota_refused.load(Ordering::Relaxed)
    }

    /// Ok when a new table of `regions` regions fits its namespace's quotas (tables first, then
    /// regions, as HBase checks them). Callers hold the DDL lock.
    pub(super) fn namespace_room_for_table(
        &self,
        name: &TableName,
        regions: usize,
    ) -> Result<(), TableError> {
        if !self.quota_enabled() {
            return Ok(());
        }
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        let Some(ns) = state.namespaces.get(&name.namespace) else {
            return Ok(());
        };
        let (tables, held) = usage(&state, &name.namespace);
        let refusal = if let Some(max) = quota(ns, NS_MAX_TABLES).filter(|m| tables as i64 >= *m) {
            format!(
                "The table {name} cannot be created as it would exceed maximum number of tables \
                 allowed  in the namespace.  The total number of tables permitted is {max}"
            )
        } else if let Some(max) = quota(ns, NS_MAX_REGIONS).filter(|m| (held + regions) as i64 > *m)
        {
            format!(
                "The table {name} is not allowed to have {regions} regions. The total number of \
                 regions permitted is only {max}, while current region count is {held}. This \
                 may be transient, please retry later if there are any ongoing split \
                 operations in the namespace."
            )
        } else {
            return Ok(());
        };
        self.inner.quota_refused.fetch_add(1, Ordering::Relaxed);
        Err(TableError::QuotaExceeded(refusal))
    }

    /// Ok when one more region in `name`'s namespace stays within its region quota. Callers
    /// hold the DDL lock.
    pub(super) fn namespace_room_for_split(
        &self,
        name: &TableName,
        region: &str,
    ) -> Result<(), TableError> {
        if !self.quota_enabled() {
            return Ok(());
        }
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        let Some(max) = state
            .namespaces
            .get(&name.namespace)
            .and_then(|ns| quota(ns, NS_MAX_REGIONS))
        else {
            return Ok(());
        };
        let (_, held) = usage(&state, &name.namespace);
        if (held as i64) < max {
            return Ok(());
        }
        self.inner.quota_refused.fetch_add(1, Ordering::Relaxed);
        Err(TableError::QuotaExceeded(format!(
            "splitting region {region} would pass the quota of namespace {} ({NS_MAX_REGIONS} \
             = {max}; it holds {held} regions)",
            name.namespace
        )))
    }
}
