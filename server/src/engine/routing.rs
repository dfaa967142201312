//! Finding where a request goes: a table that can serve (or why it cannot: missing, disabled,
//! offline), the region that holds a row, and a table's regions in key order.

use std::borrow::Cow;
use std::sync::Arc;

use super::region::Region;
use super::{Engine, MutateError, ReadError, TableDescriptor, TableName, TableState};

impl Engine {
    /// The table's state if it can serve data, or the reason it cannot.
    pub(crate) fn serving(&self, table: &str) -> Result<Arc<TableState>, ServeError> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        // The name as given is almost always the canonical one; parse only when it is not.
        let (key, t) = match state.tables.get(table) {
            Some(t) => (Cow::Borrowed(table), t),
            None => {
                let key = TableName::parse(table)
                    .map(|n| n.to_string())
                    .map_err(|_| ServeError::NotFound(table.to_string()))?;
                let t = state
                    .tables
                    .get(&key)
                    .ok_or_else(|| ServeError::NotFound(key.clone()))?;
                (Cow::Owned(key), t)
            }
        };
        if let Some(reason) = &t.offline {
            return Err(ServeError::Offline(key.into_owned(), reason.clone()));
        }
        if !t.enabled {
            return Err(ServeError::Disabled(key.into_owned()));
        }
        Ok(Arc::clone(t))
    }

    pub(crate) fn region_for(
        &self,
        table: &str,
        row: &[u8],
    ) -> Result<(Arc<TableDescriptor>, Arc<Region>), ServeError> {
        let t = self.serving(table)?;
        let region = t
            .regions
            .range::<[u8], _>((std::ops::Bound::Unbounded, std::ops::Bound::Included(row)))
            .next_back()
            .map(|(_, r)| r.clone())
            .ok_or_else(|| {
                ServeError::Offline(table.to_string(), "no region covers the row".into())
            })?;
        Ok((t.desc.clone(), region))
    }

    /// Every open region of every table, as of now.
    pub(crate) fn all_regions(&self) -> Vec<Arc<Region>> {
        let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
        state
            .tables
            .values()
            .flat_map(|t| t.regions.values().cloned())
            .collect()
    }
}

/// Why a table cannot serve a data request right now.
#[derive(Debug, Clone)]
pub(crate) enum ServeError {
    NotFound(String),
    Disabled(String),
    Offline(String, String),
}

impl From<ServeError> for MutateError {
    fn from(e: ServeError) -> MutateError {
        match e {
            ServeError::NotFound(t) => MutateError::TableNotFound(t),
            ServeError::Disabled(t) => MutateError::TableDisabled(t),
            ServeError::Offline(table, reason) => MutateError::TableOffline { table, reason },
        }
    }
}

impl From<ServeError> for ReadError {
    fn from(e: ServeError) -> ReadError {
        match e {
            ServeError::NotFound(t) => ReadError::TableNotFound(t),
            ServeError::Disabled(t) => ReadError::TableDisabled(t),
            ServeError::Offline(table, reason) => ReadError::TableOffline { table, reason },
        }
    }
}
