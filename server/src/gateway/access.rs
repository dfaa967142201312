//! Whether a call may run: the one question both gateways ask before they touch anything.
//! Two things answer it: read-only mode (no change of any kind), and, when authentication is
//! on, HBase's ACL model (superusers may do everything; anyone else needs a grant covering the
//! call's [`Need`]; an anonymous caller is refused). See docs/acl.md.

use std::collections::BTreeSet;
use std::sync::Arc;

use thiserror::Error;

use super::caller;
use super::errors::{Classified, ErrorKind};
use crate::engine::{Acl, AclScope, Permission, TableName};

/// The class HBase clients see in a denial, ahead of its message.
pub const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";

/// What read-only mode answers every change with (HBase's own words).
pub const READ_ONLY: &str = "Thrift Server is in Read-only mode.";

/// What a call needs, with the table or namespace it names (as the client sent it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need<'a> {
    /// Nothing: what HBase lets anyone read (cluster id, server type, region locations read
    /// from hbase:meta, whether a table exists or is enabled).
    Nothing,
    /// R on the table: gets, exists, scanner opens.
    Read(&'a str),
    /// W on the table: puts, deletes, increments, appends, row mutations.
    Write(&'a str),
    /// R and W on the table: check-and-put, check-and-delete, check-and-mutate.
    CheckAndWrite(&'a str),
    /// A or C on the table, without changing it: its descriptor.
    Describe(&'a str),
    /// A or C on the table: enable, disable, delete, truncate, modify, families, compaction.
    AlterTable(&'a str),
    /// A or C on the new table's namespace: createTable.
    CreateTable(&'a str),
    /// A globally: create, modify and delete namespaces.
    AlterNamespace(&'a str),
    /// A on the namespace: its descriptor.
    DescribeNamespace(&'a str),
    /// A at the scope granted or revoked (or a scope covering it).
    Grant(&'a AclScope),
    /// A globally: the slow log names other callers' addresses and tables.
    ReadSlowLog,
    /// A globally: clearing the slow log.
    ClearSlowLog,
    /// A globally: the cluster's switches (balancer, normalizer, catalog janitor) and runs.
    Cluster,
}

/// The kind of a [`Need`], without its target: what each method's entry in a gateway's
/// method table says (`thrift1::METHODS`, `thrift2::METHODS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    Nothing,
    Read,
    Write,
    CheckAndWrite,
    Describe,
    AlterTable,
    CreateTable,
    AlterNamespace,
    DescribeNamespace,
    Grant,
    ReadSlowLog,
    ClearSlowLog,
    Cluster,
    /// Scanner calls after the open: only the caller who opened the scanner.
    ScannerOwner,
    /// Listings: the answer leaves out what the caller may not see.
    Filtered,
}

impl Need<'_> {
    pub fn rule(&self) -> Rule {
        match self {
            Need::Nothing => Rule::Nothing,
            Need::Read(_) => Rule::Read,
            Need::Write(_) => Rule::Write,
            Need::CheckAndWrite(_) => Rule::CheckAndWrite,
            Need::Describe(_) => Rule::Describe,
            Need::AlterTable(_) => Rule::AlterTable,
            Need::CreateTable(_) => Rule::CreateTable,
            Need::AlterNamespace(_) => Rule::AlterNamespace,
            Need::DescribeNamespace(_) => Rule::DescribeNamespace,
            Need::Grant(_) => Rule::Grant,
            Need::ReadSlowLog => Rule::ReadSlowLog,
            Need::ClearSlowLog => Rule::ClearSlowLog,
            Need::Cluster => Rule::Cluster,
        }
    }
}

impl Rule {
    /// Whether a call of this kind changes anything: what read-only mode refuses.
    pub fn changes(self) -> bool {
        matches!(
            self,
            Rule::Write
                | Rule::CheckAndWrite
                | Rule::AlterTable
                | Rule::CreateTable
                | Rule::AlterNamespace
                | Rule::Grant
                | Rule::ClearSlowLog
                | Rule::Cluster
        )
    }
}

/// A refused call; its message is what the client reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct Denied(String);

impl Denied {
    fn acl(message: String) -> Denied {
        Denied(format!("{ACCESS_DENIED}: {message}"))
    }
}

/// HBase refuses with a DoNotRetryIOException (AccessDeniedException is one): the gateways
/// send a non-retryable IOError.
impl Classified for Denied {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Io { retryable: false }
    }
}

/// Whether a user is a superuser, asked at each check: the auth file's list can change while
/// the server runs (it reloads on SIGHUP).
pub type Superusers = Arc<dyn Fn(&str) -> bool + Send + Sync>;

struct Secured {
    superusers: Superusers,
    acl: Arc<Acl>,
}

impl std::fmt::Debug for Secured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secured").field("acl", &self.acl).finish()
    }
}

impl Secured {
    fn is_superuser(&self, user: &str) -> bool {
        (self.superusers)(user)
    }
}

/// What callers of one gateway may do; cheap to clone, shared by both gateways.
#[derive(Debug, Clone, Default)]
pub struct Access {
    read_only: bool,
    secured: Option<Arc<Secured>>,
}

/// Who the checks run for: the proved user, or `None` for an anonymous caller.
fn current_user() -> Option<String> {
    caller::current()
        .and_then(|c| c.user)
        .filter(|u| !u.is_empty())
}

/// The ACL scope of a table named by a client; `None` when the name is not a table name (the
/// engine then refuses the call with its own clear error).
fn table_scope(name: &str) -> Option<TableName> {
    TableName::parse(name).ok()
}

/// HBase prints a table with its namespace in its context strings (`default:t`).
fn full(t: &TableName) -> String {
    format!("{}:{}", t.namespace, t.qualifier)
}

impl Access {
    /// Authentication off: everyone may do everything read-only mode allows. `read_only`
    /// refuses every change (data, tables, namespaces, compactions, grants, the slow log).
    pub fn new(read_only: bool) -> Access {
        Access {
            read_only,
            secured: None,
        }
    }

    /// Authentication on: `superusers` may do everything; any other user needs a grant in
    /// `acl` (the engine's, `Engine::acl()`) covering the call; an anonymous caller is refused
    /// everything but what needs nothing.
    pub fn secured(read_only: bool, superusers: BTreeSet<String>, acl: Arc<Acl>) -> Access {
        Access::secured_by(read_only, Arc::new(move |u| superusers.contains(u)), acl)
    }

    /// As [`Access::secured`], asking `superusers` at each check (a list that may change).
    pub fn secured_by(read_only: bool, superusers: Superusers, acl: Arc<Acl>) -> Access {
        Access {
            read_only,
            secured: Some(Arc::new(Secured { superusers, acl })),
        }
    }

    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Ok unless read-only mode is on: asked first by changes whose request is checked before
    /// their `Need` is known, so a read-only server answers them the same way whatever they carry.
    pub fn check_writable(&self) -> Result<(), Denied> {
        if self.read_only {
            return Err(Denied(READ_ONLY.into()));
        }
        Ok(())
    }

    /// Ok when the current caller may make a call needing `need`.
    pub fn check(&self, need: Need<'_>) -> Result<(), Denied> {
        if self.read_only && need.rule().changes() {
            return Err(Denied(READ_ONLY.into()));
        }
        let Some(sec) = &self.secured else {
            return Ok(());
        };
        if need == Need::Nothing {
            return Ok(());
        }
        let user = current_user();
        if let Some(u) = &user {
            if sec.is_superuser(u) {
                return Ok(());
            }
        }
        sec.decide(user.as_deref(), need)
    }

    /// Whether the current caller may do what only superusers may (an online backup reads
    /// every table and grant); true without authentication.
    pub fn is_superuser(&self) -> bool {
        match &self.secured {
            None => true,
            Some(sec) => current_user().is_some_and(|u| sec.is_superuser(&u)),
        }
    }

    /// Whether the current caller may see an item of a listing (read-only mode hides nothing).
    pub fn shows(&self, need: Need<'_>) -> bool {
        let Some(sec) = &self.secured else {
            return true;
        };
        match current_user() {
            Some(u) if sec.is_superuser(&u) => true,
            user => sec.decide(user.as_deref(), need).is_ok(),
        }
    }

    /// Whether the current caller may see a table in a name listing: any permission on it, as
    /// HBase's listTableNames filters.
    pub fn shows_table(&self, table: &str) -> bool {
        let Some(sec) = &self.secured else {
            return true;
        };
        match (current_user(), table_scope(table)) {
            (Some(u), _) if sec.is_superuser(&u) => true,
            (Some(u), Some(t)) => sec.acl.any_on_table(&u, &t),
            _ => false,
        }
    }

    /// With authentication on, the proved user of the current call: who owns the scanners it
    /// opens and the tables it creates (HBase grants a table's creator every permission on it).
    pub fn owner(&self) -> Option<String> {
        self.secured.as_ref().and_then(|_| current_user())
    }

    /// Ok when the current caller may grant or revoke `target`'s permissions at `scope`: A
    /// there, and never a superuser's (their power does not come from grants).
    pub fn check_grant(&self, scope: &AclScope, target: &str) -> Result<(), Denied> {
        self.check(Need::Grant(scope))?;
        match &self.secured {
            Some(sec) if sec.is_superuser(target) => Err(Denied::acl(
                "Granting or revoking superusers's or supergroups's permissions is not allowed"
                    .into(),
            )),
            _ => Ok(()),
        }
    }

    /// Ok when the current caller holds A at `scope` (or a scope covering it), read-only mode
    /// or not: who may list or ask about other users' grants there (HBase's getUserPermissions
    /// and hasUserPermissions).
    pub fn check_admin_at(&self, scope: &AclScope) -> Result<(), Denied> {
        let Some(sec) = &self.secured else {
            return Ok(());
        };
        let user = current_user();
        if user.as_deref().is_some_and(|u| sec.is_superuser(u)) {
            return Ok(());
        }
        sec.decide(user.as_deref(), Need::Grant(scope))
    }

    /// Whether `user` holds `p` at `scope`: a superuser always, anyone without authentication.
    pub fn user_permits(&self, user: &str, scope: &AclScope, p: Permission) -> bool {
        match &self.secured {
            None => true,
            Some(sec) => sec.is_superuser(user) || sec.acl.permits(user, scope, p),
        }
    }

    /// Ok when the current caller may use a scanner opened by `owner` (HBase's scanner owner
    /// check; `None` owner: opened with authentication off or anonymously).
    pub fn check_scanner_owner(&self, owner: Option<&str>) -> Result<(), Denied> {
        if self.secured.is_none() {
            return Ok(());
        }
        let user = current_user();
        match owner {
            Some(o) if user.as_deref() != Some(o) => Err(Denied::acl(format!(
                "User '{}' is not the scanner owner!",
                user.as_deref().unwrap_or("null")
            ))),
            _ => Ok(()),
        }
    }
}

impl Secured {
    fn permits(&self, user: Option<&str>, scope: &AclScope, p: Permission) -> bool {
        user.is_some_and(|u| self.acl.permits(u, scope, p))
    }

    /// The decision for a non-superuser, with HBase's message shapes: "for user 'u' (...)"
    /// for reads and global checks, the context string "(user=u, scope=..., ...)" for the rest.
    fn decide(&self, user: Option<&str>, need: Need<'_>) -> Result<(), Denied> {
        let short = user.unwrap_or("null");
        let ctx = user.unwrap_or("UNKNOWN");
        let global = |p: Permission| -> Result<(), Denied> {
            if self.permits(user, &AclScope::Global, p) {
                Ok(())
            } else {
                Err(Denied::acl(format!(
                    "Insufficient permissions for user '{short}' (global, action={p})"
                )))
            }
        };
        let on_table = |name: &str, perms: &[Permission], all: bool| -> Result<(), Denied> {
            let Some(t) = table_scope(name) else {
                return if user.is_some() {
                    Ok(())
                } else {
                    Err(Denied::acl(format!(
                        "Insufficient permissions (user={ctx}, scope={name}, params=[table={name}],action={})",
                        perms.last().copied().unwrap_or(Permission::Read)
                    )))
                };
            };
            let scope = AclScope::Table(t.clone());
            let missing: Vec<Permission> = perms
                .iter()
                .copied()
                .filter(|p| !self.permits(user, &scope, *p))
                .collect();
            let denied = if all {
                missing.first().copied()
            } else if missing.len() == perms.len() {
                missing.last().copied()
            } else {
                None
            };
            match denied {
                None => Ok(()),
                Some(Permission::Read) if perms == [Permission::Read] => Err(Denied::acl(
                    format!("Insufficient permissions for user '{short}' (table={t}, action=READ)"),
                )),
                Some(p) => Err(Denied::acl(format!(
                    "Insufficient permissions (user={ctx}, scope={f}, params=[table={f}],action={p})",
                    f = full(&t)
                ))),
            }
        };
        let on_namespace = |ns: &str, table: Option<&str>, perms: &[Permission]| {
            let scope = AclScope::Namespace(ns.to_string());
            if perms.iter().any(|p| self.permits(user, &scope, *p)) {
                return Ok(());
            }
            let p = perms.last().copied().unwrap_or(Permission::Admin);
            let params = match table {
                Some(t) => format!("namespace={ns},table={t}"),
                None => format!("namespace={ns}"),
            };
            Err(Denied::acl(format!(
                "Insufficient permissions (user={ctx}, scope={ns}, params=[{params}],action={p})"
            )))
        };
        use Permission::*;
        match need {
            Need::Nothing => Ok(()),
            Need::Read(t) => on_table(t, &[Read], true),
            Need::Write(t) => on_table(t, &[Write], true),
            Need::CheckAndWrite(t) => on_table(t, &[Read, Write], true),
            Need::Describe(t) | Need::AlterTable(t) => on_table(t, &[Admin, Create], false),
            Need::CreateTable(name) => match table_scope(name) {
                Some(t) => on_namespace(&t.namespace, Some(&full(&t)), &[Admin, Create]),
                None if user.is_some() => Ok(()),
                None => global(Create),
            },
            Need::AlterNamespace(_) | Need::ReadSlowLog | Need::ClearSlowLog | Need::Cluster => {
                global(Admin)
            }
            Need::DescribeNamespace(ns) => on_namespace(ns, None, &[Admin]),
            Need::Grant(scope) => match scope {
                AclScope::Global => global(Admin),
                AclScope::Namespace(ns) => on_namespace(ns, None, &[Admin]),
                AclScope::Table(t) => on_table(&full(t), &[Admin], true),
            },
        }
    }
}

/// The wire names of a service's methods, read from its generated processor (each method is
/// one `"name" => {` arm there): what the method tables of both gateways are checked against.
pub fn service_methods(generated: &str) -> Vec<String> {
    generated
        .lines()
        .filter_map(|l| {
            let name = l.strip_prefix("      \"")?.strip_suffix("\" => {")?;
            name.chars()
                .all(|c| c.is_ascii_alphanumeric())
                .then(|| name.to_string())
        })
        .collect()
}

/// Panics unless `table` lists every method of the generated service once and nothing else,
/// and the service has `count` methods (a test of each gateway's method table).
#[cfg(test)]
pub fn assert_classified(generated: &str, table: &[(&str, Rule)], count: usize) {
    let names = service_methods(generated);
    assert_eq!(names.len(), count);
    let listed: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
    let mut sorted = listed.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), listed.len(), "a method is listed twice");
    for n in &names {
        assert!(listed.contains(&n.as_str()), "{n} has no access rule");
    }
    for n in &listed {
        assert!(names.iter().any(|m| m == n), "{n} is not a method");
    }
}

/// The rule of `method` in a method table; `None` for a name not in it.
pub fn rule_of(table: &[(&str, Rule)], method: &str) -> Option<Rule> {
    table.iter().find(|(n, _)| *n == method).map(|(_, r)| *r)
}

#[cfg(test)]
#[path = "access_tests.rs"]
mod tests;
