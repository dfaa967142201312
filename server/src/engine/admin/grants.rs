//! Granting and revoking permissions: each change is one catalog commit, made under the DDL
//! lock so a grant never names a table or namespace that a concurrent delete is removing; the
//! in-memory [`Acl`] follows only after the commit succeeded.

use std::sync::Arc;

use crate::engine::meta::acl::{Acl, AclError, AclScope, Actions, Grant};
use crate::engine::meta::catalog::Change;
use crate::engine::model::error::{NamespaceError, TableError};
use crate::engine::Engine;

impl Engine {
    /// The grants every access check reads; shared, so checks see changes at once.
    pub fn acl(&self) -> Arc<Acl> {
        self.inner.acl.clone()
    }

    /// Every grant, ordered by scope then user.
    pub fn grants(&self) -> Vec<Grant> {
        self.inner.acl.list()
    }

    /// Gives `user` exactly `actions` at `scope`, replacing what they held there (HBase's grant
    /// without merging). The namespace or table must exist.
    pub fn grant(&self, user: &str, scope: AclScope, actions: Actions) -> Result<(), AclError> {
        self.change_grant(user, scope, |_| actions)
    }

    /// Adds `actions` to what `user` holds at `scope` (HBase's grant merging existing
    /// permissions); read and change under the one lock grant changes take.
    pub fn grant_more(
        &self,
        user: &str,
        scope: AclScope,
        actions: Actions,
    ) -> Result<(), AclError> {
        self.change_grant(user, scope, |held| held.with(actions))
    }

    /// Takes `actions` from what `user` holds at `scope`; the grant goes when nothing remains.
    /// Revoking what was never granted changes nothing and is not an error, as in HBase.
    pub fn revoke(&self, user: &str, scope: AclScope, actions: Actions) -> Result<(), AclError> {
        self.change_grant(user, scope, |held| held.without(actions))
    }

    fn change_grant(
        &self,
        user: &str,
        scope: AclScope,
        next: impl FnOnce(Actions) -> Actions,
    ) -> Result<(), AclError> {
        if user.trim().is_empty() {
            return Err(AclError::EmptyUser);
        }
        let _ddl = self.inner.ddl.lock().unwrap_or_else(|p| p.into_inner());
        {
            let state = self.inner.state.read().unwrap_or_else(|p| p.into_inner());
            match &scope {
                AclScope::Global => {}
                AclScope::Namespace(ns) => {
                    if !state.namespaces.contains_key(ns) {
                        return Err(NamespaceError::NotFound(ns.clone()).into());
                    }
                }
                AclScope::Table(t) => {
                    if !state.tables.contains_key(&t.to_string()) {
                        return Err(TableError::NotFound(t.to_string()).into());
                    }
                }
            }
        }
        let held = self.inner.acl.get(&scope, user);
        let actions = next(held);
        if actions == held {
            return Ok(());
        }
        let change = if actions.is_empty() {
            Change::DeleteGrant {
                scope: scope.clone(),
                user: user.to_string(),
            }
        } else {
            Change::PutGrant(Grant {
                user: user.to_string(),
                scope: scope.clone(),
                actions,
            })
        };
        self.inner.catalog.commit(&[change])?;
        self.inner.acl.set(scope, user.to_string(), actions);
        Ok(())
    }

    /// The catalog changes that drop every grant at one of `scopes`' (a deleted table's or
    /// namespace's), as HBase's AccessController does when they are deleted.
    pub(crate) fn drop_grants(&self, scope: &AclScope) -> Vec<Change> {
        self.inner
            .acl
            .matching(|s| s == scope)
            .into_iter()
            .map(|(scope, user)| Change::DeleteGrant { scope, user })
            .collect()
    }

    /// Forgets the grants `changes` dropped, after their commit.
    pub(crate) fn forget_grants(&self, changes: &[Change]) {
        for c in changes {
            if let Change::DeleteGrant { scope, user } = c {
                self.inner
                    .acl
                    .set(scope.clone(), user.clone(), Actions::default());
            }
        }
    }
}
