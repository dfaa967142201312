//! Access control in MasterService (HBase 2.6 moved it there from the AccessController
//! endpoint): `Grant`, `Revoke`, `GetUserPermissions` and `HasUserPermissions`, over the same
//! grants the Thrift gateways and the shell change (the engine's catalog). A grant is global,
//! on a namespace or on a table; redbase's grants have no family or qualifier, so a
//! permission naming one is refused rather than widened to the whole table. Who may change
//! or list grants is HBase's rule: A at the scope (a superuser's grants cannot be changed).
//! Without `--auth-file` the grants are kept all the same (they take effect once
//! authentication is on), as the other gateways keep them.
//!
//! `MergeTableRegions` is answered here too: the engine splits regions but never merges them,
//! so it is refused with a DoNotRetryIOException saying so.

use prost::Message;

use crate::engine::{AclError, AclScope, Actions, Grant, Permission, TableName};

use super::errors::{class, NativeError};
use super::pb;
use super::pb::permission::{Action, Type};
use super::regions;
use super::Native;

type Reply = Result<Vec<u8>, NativeError>;

/// The MasterService methods answered here.
pub const METHODS: [&str; 5] = [
    "Grant",
    "Revoke",
    "GetUserPermissions",
    "HasUserPermissions",
    "MergeTableRegions",
];

fn decode<M: Message + Default>(param: &[u8], what: &str) -> Result<M, NativeError> {
    M::decode(param).map_err(|e| NativeError::bad_request(format!("cannot decode {what}: {e}")))
}

impl From<AclError> for NativeError {
    fn from(e: AclError) -> NativeError {
        match e {
            AclError::Table(t) => t.into(),
            AclError::Namespace(n) => n.into(),
            AclError::Storage(s) => NativeError::retry(class::IO, s.to_string()),
            other => NativeError::bad_request(other.to_string()),
        }
    }
}

/// `None` for a method not answered here.
pub fn call(ctx: &Native, method: &str, param: &[u8]) -> Option<Reply> {
    Some(match method {
        "Grant" => grant(ctx, param),
        "Revoke" => revoke(ctx, param),
        "GetUserPermissions" => get_user_permissions(ctx, param),
        "HasUserPermissions" => has_user_permissions(ctx, param),
        "MergeTableRegions" => {
            // Decoded first, so a request that is not one is told so.
            decode::<pb::MergeTableRegionsRequest>(param, "MergeTableRegionsRequest").and_then(
                |_| {
                    Err(NativeError::bad_request(
                        "java.lang.UnsupportedOperationException: redbase does not offer \
                         MasterService.MergeTableRegions: its regions split but never merge \
                         (docs/compatibility.md)",
                    ))
                },
            )
        }
        _ => return None,
    })
}

fn utf8(bytes: &[u8], what: &str) -> Result<String, NativeError> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| NativeError::bad_request(format!("the {what} is not UTF-8")))
}

fn actions(wire: &[i32]) -> Result<Actions, NativeError> {
    let mut perms = Vec::with_capacity(wire.len());
    for a in wire {
        perms.push(match Action::try_from(*a) {
            Ok(Action::Read) => Permission::Read,
            Ok(Action::Write) => Permission::Write,
            Ok(Action::Exec) => Permission::Exec,
            Ok(Action::Create) => Permission::Create,
            Ok(Action::Admin) => Permission::Admin,
            Err(_) => {
                return Err(NativeError::bad_request(format!(
                    "unknown permission action {a}: READ (0), WRITE (1), EXEC (2), CREATE (3) \
                     or ADMIN (4)"
                )))
            }
        });
    }
    Ok(Actions::of(&perms))
}

fn actions_pb(actions: Actions) -> Vec<i32> {
    [
        (Permission::Read, Action::Read),
        (Permission::Write, Action::Write),
        (Permission::Exec, Action::Exec),
        (Permission::Create, Action::Create),
        (Permission::Admin, Action::Admin),
    ]
    .into_iter()
    .filter(|(p, _)| actions.contains(*p))
    .map(|(_, a)| a as i32)
    .collect()
}

fn table_scope(name: Option<&pb::TableName>) -> Result<AclScope, NativeError> {
    let name = name
        .filter(|n| !n.qualifier.is_empty())
        .ok_or_else(|| NativeError::bad_request("a table permission names no table"))?;
    let table = regions::table_from_pb(name);
    TableName::parse(&table)
        .map(AclScope::Table)
        .map_err(|e| NativeError::bad_request(format!("bad table name {table:?}: {e}")))
}

fn no_column(family: Option<&[u8]>, qualifier: Option<&[u8]>) -> Result<(), NativeError> {
    if family.is_some_and(|f| !f.is_empty()) || qualifier.is_some_and(|q| !q.is_empty()) {
        return Err(NativeError::bad_request(
            "java.lang.UnsupportedOperationException: redbase's grants cover whole tables: a \
             permission on a column family or qualifier is not offered; grant on the table",
        ));
    }
    Ok(())
}

/// The scope and actions of one wire permission.
fn permission(p: &pb::Permission) -> Result<(AclScope, Actions), NativeError> {
    match Type::try_from(p.r#type) {
        Ok(Type::Global) => {
            let g = p.global_permission.as_ref();
            Ok((
                AclScope::Global,
                actions(g.map(|g| g.action.as_slice()).unwrap_or(&[]))?,
            ))
        }
        Ok(Type::Namespace) => {
            let n = p.namespace_permission.as_ref();
            let ns = utf8(
                n.and_then(|n| n.namespace_name.as_deref()).unwrap_or(&[]),
                "namespace name",
            )?;
            if ns.is_empty() {
                return Err(NativeError::bad_request(
                    "a namespace permission names no namespace",
                ));
            }
            Ok((
                AclScope::Namespace(ns),
                actions(n.map(|n| n.action.as_slice()).unwrap_or(&[]))?,
            ))
        }
        Ok(Type::Table) => {
            let t = p
                .table_permission
                .as_ref()
                .ok_or_else(|| NativeError::bad_request("a table permission names no table"))?;
            no_column(t.family.as_deref(), t.qualifier.as_deref())?;
            Ok((table_scope(t.table_name.as_ref())?, actions(&t.action)?))
        }
        Err(_) => Err(NativeError::bad_request(format!(
            "unknown permission type {}: Global (1), Namespace (2) or Table (3)",
            p.r#type
        ))),
    }
}

fn user_permission(up: &pb::UserPermission) -> Result<(String, AclScope, Actions), NativeError> {
    let user = utf8(&up.user, "user name")?;
    if user.trim().is_empty() {
        return Err(AclError::EmptyUser.into());
    }
    let (scope, actions) = permission(&up.permission)?;
    Ok((user, scope, actions))
}

fn grant(ctx: &Native, param: &[u8]) -> Reply {
    let req: pb::GrantRequest = decode(param, "GrantRequest")?;
    ctx.access.check_writable()?;
    let (user, scope, actions) = user_permission(&req.user_permission)?;
    if actions.is_empty() {
        return Err(AclError::NoActions.into());
    }
    ctx.access.check_grant(&scope, &user)?;
    if req.merge_existing_permissions.unwrap_or(false) {
        ctx.engine.grant_more(&user, scope, actions)?;
    } else {
        ctx.engine.grant(&user, scope, actions)?;
    }
    Ok(pb::GrantResponse {}.encode_to_vec())
}

fn revoke(ctx: &Native, param: &[u8]) -> Reply {
    let req: pb::RevokeRequest = decode(param, "RevokeRequest")?;
    ctx.access.check_writable()?;
    let (user, scope, actions) = user_permission(&req.user_permission)?;
    ctx.access.check_grant(&scope, &user)?;
    // HBase's revoke with no actions takes every action the user holds there.
    let actions = if actions.is_empty() {
        Actions::ALL
    } else {
        actions
    };
    ctx.engine.revoke(&user, scope, actions)?;
    Ok(pb::RevokeResponse {}.encode_to_vec())
}

fn permission_pb(g: &Grant) -> pb::UserPermission {
    let actions = actions_pb(g.actions);
    let permission = match &g.scope {
        AclScope::Global => pb::Permission {
            r#type: Type::Global as i32,
            global_permission: Some(pb::GlobalPermission { action: actions }),
            ..Default::default()
        },
        AclScope::Namespace(ns) => pb::Permission {
            r#type: Type::Namespace as i32,
            namespace_permission: Some(pb::NamespacePermission {
                namespace_name: Some(ns.clone().into_bytes().into()),
                action: actions,
            }),
            ..Default::default()
        },
        AclScope::Table(t) => pb::Permission {
            r#type: Type::Table as i32,
            table_permission: Some(pb::TablePermission {
                table_name: Some(regions::table_name_pb(&t.to_string())),
                family: None,
                qualifier: None,
                action: actions,
            }),
            ..Default::default()
        },
    };
    pb::UserPermission {
        user: g.user.clone().into_bytes().into(),
        permission,
    }
}

/// The grants at exactly the scope asked (as HBase lists them: a table's, a namespace's, or
/// the global ones), of one user when a name is given. Needs A there.
fn get_user_permissions(ctx: &Native, param: &[u8]) -> Reply {
    let req: pb::GetUserPermissionsRequest = decode(param, "GetUserPermissionsRequest")?;
    let user = req
        .user_name
        .as_deref()
        .map(|u| utf8(u, "user name"))
        .transpose()?
        .filter(|u| !u.is_empty());
    let scope = match req.r#type.map(Type::try_from) {
        Some(Ok(Type::Table)) => {
            no_column(
                req.column_family.as_deref(),
                req.column_qualifier.as_deref(),
            )?;
            table_scope(req.table_name.as_ref())?
        }
        Some(Ok(Type::Namespace)) => {
            let ns = utf8(
                req.namespace_name.as_deref().unwrap_or(&[]),
                "namespace name",
            )?;
            if ns.is_empty() {
                return Err(NativeError::bad_request(
                    "a namespace listing names no namespace",
                ));
            }
            AclScope::Namespace(ns)
        }
        Some(Ok(Type::Global)) | None => AclScope::Global,
        Some(Err(_)) => {
            return Err(NativeError::bad_request(format!(
                "unknown permission type {}: Global (1), Namespace (2) or Table (3)",
                req.r#type.unwrap_or_default()
            )))
        }
    };
    ctx.access.check_admin_at(&scope)?;
    let user_permission = ctx
        .engine
        .grants()
        .iter()
        .filter(|g| g.scope == scope && user.as_ref().is_none_or(|u| *u == g.user))
        .map(permission_pb)
        .collect();
    Ok(pb::GetUserPermissionsResponse { user_permission }.encode_to_vec())
}

/// For each permission asked, whether the user (the caller when none is named) holds every
/// action of it there. Asking about another user needs A at each permission's scope.
fn has_user_permissions(ctx: &Native, param: &[u8]) -> Reply {
    let req: pb::HasUserPermissionsRequest = decode(param, "HasUserPermissionsRequest")?;
    let caller = ctx.access.owner();
    let named = req
        .user_name
        .as_deref()
        .map(|u| utf8(u, "user name"))
        .transpose()?
        .filter(|u| !u.is_empty());
    let user = named.clone().or_else(|| caller.clone());
    let mut answers = Vec::with_capacity(req.permission.len());
    for p in &req.permission {
        let (scope, actions) = permission(p)?;
        if named.is_some() && named != caller {
            ctx.access.check_admin_at(&scope)?;
        }
        let held = Permission::ALL
            .into_iter()
            .filter(|a| actions.contains(*a))
            .all(|a| match &user {
                Some(u) => ctx.access.user_permits(u, &scope, a),
                // No user: authentication is off, and everyone may do everything.
                None => true,
            });
        answers.push(held);
    }
    Ok(pb::HasUserPermissionsResponse {
        has_user_permission: answers,
    }
    .encode_to_vec())
}
