//! HBase's access control lists: who holds which permissions (Read, Write, eXec, Create, Admin)
//! at which scope (global, a namespace, a table). The grants live in the catalog (`meta.redb`),
//! so they survive restarts; this module holds their in-memory table, which every access check
//! reads, and the parsing of HBase's action strings ("RW", "RWXCA").

use std::collections::BTreeMap;
use std::fmt;
use std::sync::RwLock;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::engine::model::error::{ErrorKind, NamespaceError, StorageError, TableError};
use crate::engine::model::schema::TableName;

/// One of HBase's five permissions, in HBase's order and with its letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Permission {
    Read,
    Write,
    Exec,
    Create,
    Admin,
}

impl Permission {
    pub const ALL: [Permission; 5] = [
        Permission::Read,
        Permission::Write,
        Permission::Exec,
        Permission::Create,
        Permission::Admin,
    ];

    /// The letter HBase's shell and the Thrift grant calls use.
    pub fn code(self) -> char {
        match self {
            Permission::Read => 'R',
            Permission::Write => 'W',
            Permission::Exec => 'X',
            Permission::Create => 'C',
            Permission::Admin => 'A',
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// HBase's name of the action, as its denial messages print it (`action=READ`).
impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Permission::Read => "READ",
            Permission::Write => "WRITE",
            Permission::Exec => "EXEC",
            Permission::Create => "CREATE",
            Permission::Admin => "ADMIN",
        })
    }
}

/// A set of permissions; stored as its letters ("RWXCA") so the catalog stays readable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Actions(u8);

impl Actions {
    pub const ALL: Actions = Actions(0b1_1111);

    pub fn of(perms: &[Permission]) -> Actions {
        Actions(perms.iter().fold(0, |acc, p| acc | p.bit()))
    }

    /// Parses HBase's action letters. Each letter is one of R, W, X, C, A (lower case is taken
    /// too); anything else, or no letter at all, is refused rather than ignored, so a typo never
    /// grants less (or more) than the operator meant.
    pub fn parse(s: &str) -> Result<Actions, AclError> {
        let mut out = 0u8;
        for c in s.chars() {
            let p = Permission::ALL
                .into_iter()
                .find(|p| p.code() == c.to_ascii_uppercase())
                .ok_or_else(|| AclError::BadAction {
                    actions: s.to_string(),
                    letter: c,
                })?;
            out |= p.bit();
        }
        if out == 0 {
            return Err(AclError::NoActions);
        }
        Ok(Actions(out))
    }

    pub fn contains(self, p: Permission) -> bool {
        self.0 & p.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn without(self, other: Actions) -> Actions {
        Actions(self.0 & !other.0)
    }

    pub fn with(self, other: Actions) -> Actions {
        Actions(self.0 | other.0)
    }
}

impl fmt::Display for Actions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in Permission::ALL.into_iter().filter(|p| self.contains(*p)) {
            write!(f, "{}", p.code())?;
        }
        Ok(())
    }
}

impl From<Actions> for String {
    fn from(a: Actions) -> String {
        a.to_string()
    }
}

impl TryFrom<String> for Actions {
    type Error = AclError;
    fn try_from(s: String) -> Result<Actions, AclError> {
        Actions::parse(&s)
    }
}

/// Where a grant applies. A global grant covers every namespace and table, a namespace grant
/// every table in it, as in HBase.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum AclScope {
    Global,
    Namespace(String),
    Table(TableName),
}

impl fmt::Display for AclScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AclScope::Global => f.write_str("GLOBAL"),
            AclScope::Namespace(ns) => write!(f, "@{ns}"),
            AclScope::Table(t) => write!(f, "{}:{}", t.namespace, t.qualifier),
        }
    }
}

/// One user's permissions at one scope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    pub user: String,
    pub scope: AclScope,
    pub actions: Actions,
}

impl Grant {
    /// The catalog key: scope then user, so one user's grant at one scope is one entry.
    pub fn key(scope: &AclScope, user: &str) -> String {
        format!("{scope}\u{0}{user}")
    }
}

/// Why a grant or revoke was refused.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum AclError {
    #[error("a grant needs a user name; the user name is empty")]
    EmptyUser,
    #[error("no actions given: name one or more of R (read), W (write), X (exec), C (create), A (admin)")]
    NoActions,
    #[error("unknown action {letter:?} in {actions:?}: actions are letters of R (read), W (write), X (exec), C (create), A (admin)")]
    BadAction { actions: String, letter: char },
    #[error("{0}")]
    BadScope(String),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Namespace(#[from] NamespaceError),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

impl AclError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            AclError::EmptyUser
            | AclError::NoActions
            | AclError::BadAction { .. }
            | AclError::BadScope(_) => ErrorKind::IllegalArgument,
            AclError::Table(e) => e.kind(),
            AclError::Namespace(e) => e.kind(),
            AclError::Storage(_) => ErrorKind::Io { retryable: true },
        }
    }
}

/// The grants in memory, read by every access check; changed only after the catalog commit
/// that records the change succeeded.
#[derive(Debug, Default)]
pub struct Acl {
    grants: RwLock<BTreeMap<(AclScope, String), Actions>>,
}

impl Acl {
    pub(crate) fn load(grants: impl IntoIterator<Item = Grant>) -> Acl {
        let acl = Acl::default();
        for g in grants {
            acl.set(g.scope, g.user, g.actions);
        }
        acl
    }

    /// A table of `grants` not tied to any catalog (nothing is stored): for checks in tests.
    pub fn in_memory(grants: impl IntoIterator<Item = Grant>) -> Acl {
        Acl::load(grants)
    }

    pub(crate) fn set(&self, scope: AclScope, user: String, actions: Actions) {
        let mut g = self.grants.write().unwrap_or_else(|p| p.into_inner());
        if actions.is_empty() {
            g.remove(&(scope, user));
        } else {
            g.insert((scope, user), actions);
        }
    }

    pub(crate) fn get(&self, scope: &AclScope, user: &str) -> Actions {
        let g = self.grants.read().unwrap_or_else(|p| p.into_inner());
        g.get(&(scope.clone(), user.to_string()))
            .copied()
            .unwrap_or_default()
    }

    /// Grants whose scope `f` selects, for dropping them with their table or namespace.
    pub(crate) fn matching(&self, f: impl Fn(&AclScope) -> bool) -> Vec<(AclScope, String)> {
        let g = self.grants.read().unwrap_or_else(|p| p.into_inner());
        g.keys().filter(|(s, _)| f(s)).cloned().collect()
    }

    /// Every grant, ordered by scope then user.
    pub fn list(&self) -> Vec<Grant> {
        let g = self.grants.read().unwrap_or_else(|p| p.into_inner());
        g.iter()
            .map(|((scope, user), actions)| Grant {
                user: user.clone(),
                scope: scope.clone(),
                actions: *actions,
            })
            .collect()
    }

    /// Whether `user` holds `p` at `scope` itself or at a scope covering it (the table's
    /// namespace, global).
    pub fn permits(&self, user: &str, scope: &AclScope, p: Permission) -> bool {
        let g = self.grants.read().unwrap_or_else(|p| p.into_inner());
        let has = |s: AclScope| g.get(&(s, user.to_string())).is_some_and(|a| a.contains(p));
        match scope {
            AclScope::Global => has(AclScope::Global),
            AclScope::Namespace(ns) => {
                has(AclScope::Global) || has(AclScope::Namespace(ns.clone()))
            }
            AclScope::Table(t) => {
                has(AclScope::Global)
                    || has(AclScope::Namespace(t.namespace.clone()))
                    || has(AclScope::Table(t.clone()))
            }
        }
    }

    /// Whether `user` holds any permission on the table (what HBase's table listings show).
    pub fn any_on_table(&self, user: &str, t: &TableName) -> bool {
        Permission::ALL
            .into_iter()
            .any(|p| self.permits(user, &AclScope::Table(t.clone()), p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_parse_and_print_in_hbase_order() {
        assert_eq!(Actions::parse("awr").unwrap().to_string(), "RWA");
        assert_eq!(Actions::parse("RWXCA").unwrap(), Actions::ALL);
        assert_eq!(Actions::parse(""), Err(AclError::NoActions));
        let e = Actions::parse("RZ").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::IllegalArgument);
        assert!(e.to_string().contains("unknown action 'Z'"), "{e}");
    }

    #[test]
    fn global_and_namespace_grants_cover_tables() {
        let t = TableName::parse("ns1:t").unwrap();
        let acl = Acl::in_memory([Grant {
            user: "bob".into(),
            scope: AclScope::Namespace("ns1".into()),
            actions: Actions::of(&[Permission::Read]),
        }]);
        assert!(acl.permits("bob", &AclScope::Table(t.clone()), Permission::Read));
        assert!(!acl.permits("bob", &AclScope::Table(t.clone()), Permission::Write));
        assert!(!acl.permits("bob", &AclScope::Global, Permission::Read));
        assert!(!acl.permits("eve", &AclScope::Table(t.clone()), Permission::Read));
        acl.set(AclScope::Global, "eve".into(), Actions::ALL);
        assert!(acl.permits("eve", &AclScope::Table(t), Permission::Admin));
        assert_eq!(acl.list().len(), 2);
    }
}
