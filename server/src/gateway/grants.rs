//! Grant and revoke as both gateways take them (HBase 3's `TAccessControlEntity`: a user, a
//! scope kind, action letters, a table or namespace name): checking the request, then the
//! caller's right to make it, then the change in the engine's catalog.

use thiserror::Error;

use super::access::{Access, Denied};
use super::errors::{Classified, ErrorKind};
use crate::engine::{AclError, AclScope, Actions, Engine, TableError, TableName};

/// The scope kinds of the wire's `TPermissionScope` (TABLE = 0, NAMESPACE = 1); any other
/// number is refused with a clear error, never read as one of them.
pub fn scope_kind(wire: i32) -> Result<ScopeKind, AclError> {
    match wire {
        0 => Ok(ScopeKind::Table),
        1 => Ok(ScopeKind::Namespace),
        n => Err(AclError::BadScope(format!(
            "unknown permission scope {n}: TABLE (0) or NAMESPACE (1)"
        ))),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Table,
    Namespace,
}

/// One grant or revoke request as the wire carries it.
#[derive(Debug, Clone)]
pub struct AclRequest<'a> {
    pub user: &'a str,
    pub scope: i32,
    pub actions: &'a str,
    pub table: Option<&'a str>,
    pub namespace: Option<&'a str>,
}

/// Why a grant or revoke failed: refused, or invalid.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GrantError {
    #[error(transparent)]
    Denied(#[from] Denied),
    #[error(transparent)]
    Acl(#[from] AclError),
}

/// Both are non-retryable IOErrors on the wire, except storage trouble (retryable).
impl Classified for GrantError {
    fn kind(&self) -> ErrorKind {
        match self {
            GrantError::Denied(d) => d.kind(),
            GrantError::Acl(e) => e.kind(),
        }
    }
}

impl AclRequest<'_> {
    /// The user, scope and actions named, each checked.
    pub fn parse(&self) -> Result<(String, AclScope, Actions), AclError> {
        if self.user.trim().is_empty() {
            return Err(AclError::EmptyUser);
        }
        let actions = Actions::parse(self.actions)?;
        let scope =
            match scope_kind(self.scope)? {
                ScopeKind::Table => {
                    let name = self.table.filter(|t| !t.is_empty()).ok_or_else(|| {
                        AclError::BadScope("a TABLE grant needs tableName".into())
                    })?;
                    AclScope::Table(TableName::parse(name).map_err(TableError::from)?)
                }
                ScopeKind::Namespace => {
                    let ns = self.namespace.filter(|n| !n.is_empty()).ok_or_else(|| {
                        AclError::BadScope("a NAMESPACE grant needs nsName".into())
                    })?;
                    AclScope::Namespace(ns.to_string())
                }
            };
        Ok((self.user.to_string(), scope, actions))
    }
}

/// Grants (or, with `revoke`, revokes) what `req` names, if the caller may.
pub fn apply(
    engine: &Engine,
    access: &Access,
    req: &AclRequest<'_>,
    revoke: bool,
) -> Result<(), GrantError> {
    access.check_writable()?;
    let (user, scope, actions) = req.parse()?;
    access.check_grant(&scope, &user)?;
    if revoke {
        engine.revoke(&user, scope, actions)?;
    } else {
        engine.grant(&user, scope, actions)?;
    }
    Ok(())
}

/// After a table is created with authentication on, its creator holds every permission on
/// it, as HBase records a table's owner. A failure here leaves the table and is logged: the
/// creator can be granted by an administrator.
pub fn grant_owner(engine: &Engine, access: &Access, table: &str) {
    let (Some(owner), Ok(t)) = (access.owner(), TableName::parse(table)) else {
        return;
    };
    if let Err(e) = engine.grant(&owner, AclScope::Table(t), Actions::ALL) {
        tracing::warn!(table, owner, error = %e, "could not grant the table's creator its permissions");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req<'a>(user: &'a str, scope: i32, actions: &'a str) -> AclRequest<'a> {
        AclRequest {
            user,
            scope,
            actions,
            table: Some("ns1:t"),
            namespace: Some("ns1"),
        }
    }

    #[test]
    fn bad_requests_get_clear_typed_errors() {
        assert_eq!(req("", 0, "R").parse(), Err(AclError::EmptyUser));
        assert_eq!(req("  ", 0, "R").parse(), Err(AclError::EmptyUser));
        assert_eq!(req("bob", 0, "").parse(), Err(AclError::NoActions));
        let e = req("bob", 0, "RQ").parse().unwrap_err();
        assert!(matches!(e, AclError::BadAction { letter: 'Q', .. }), "{e}");
        let e = req("bob", 7, "R").parse().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown permission scope 7: TABLE (0) or NAMESPACE (1)"
        );
        let mut r = req("bob", 0, "R");
        r.table = None;
        assert!(r
            .parse()
            .unwrap_err()
            .to_string()
            .contains("needs tableName"));
        r.table = Some("bad name!");
        assert_eq!(r.parse().unwrap_err().kind(), ErrorKind::IllegalArgument);
        let mut r = req("bob", 1, "R");
        r.namespace = Some("");
        assert!(r.parse().unwrap_err().to_string().contains("needs nsName"));
        for e in [AclError::EmptyUser, AclError::NoActions] {
            assert_eq!(GrantError::from(e).kind(), ErrorKind::IllegalArgument);
        }
    }

    #[test]
    fn good_requests_parse() {
        let (u, s, a) = req("bob", 0, "rw").parse().unwrap();
        assert_eq!((u.as_str(), a.to_string().as_str()), ("bob", "RW"));
        assert_eq!(s, AclScope::Table(TableName::parse("ns1:t").unwrap()));
        let (_, s, _) = req("bob", 1, "A").parse().unwrap();
        assert_eq!(s, AclScope::Namespace("ns1".into()));
    }
}
