//! The ACL decisions of [`Access`], checked for a caller set the way the Thrift server sets
//! it ([`caller::scope`]), with HBase's message shapes.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;

use super::*;
use crate::engine::{Acl, AclScope, Actions, Grant};
use crate::gateway::caller::{scope, Caller};

fn as_user<R>(user: Option<&str>, f: impl FnOnce() -> R) -> R {
    let peer: SocketAddr = "127.0.0.1:5".parse().unwrap();
    let mut c = Caller::anonymous(peer);
    c.user = user.map(str::to_string);
    scope(c, f)
}

fn grant(user: &str, scope: AclScope, actions: &str) -> Grant {
    Grant {
        user: user.into(),
        scope,
        actions: Actions::parse(actions).unwrap(),
    }
}

fn table(name: &str) -> AclScope {
    AclScope::Table(TableName::parse(name).unwrap())
}

fn secured(grants: Vec<Grant>) -> (Access, Arc<Acl>) {
    let acl = Arc::new(Acl::in_memory(grants));
    let supers = BTreeSet::from(["root".to_string()]);
    (Access::secured(false, supers, acl.clone()), acl)
}

fn denied(a: &Access, user: Option<&str>, need: Need<'_>) -> String {
    as_user(user, || a.check(need))
        .expect_err("should be denied")
        .to_string()
}

fn allowed(a: &Access, user: Option<&str>, need: Need<'_>) -> bool {
    as_user(user, || a.check(need)).is_ok()
}

#[test]
fn read_only_refuses_every_change_with_hbases_message() {
    let ro = Access::new(true);
    for need in [
        Need::Write("t"),
        Need::CheckAndWrite("t"),
        Need::AlterTable("t"),
        Need::CreateTable("t"),
        Need::AlterNamespace("ns"),
        Need::Grant(&AclScope::Global),
        Need::ClearSlowLog,
        Need::Cluster,
    ] {
        let d = ro.check(need).unwrap_err();
        assert_eq!(d.to_string(), READ_ONLY, "{need:?}");
        assert_eq!(d.kind(), ErrorKind::Io { retryable: false });
    }
    for need in [
        Need::Nothing,
        Need::Read("t"),
        Need::Describe("t"),
        Need::DescribeNamespace("ns"),
        Need::ReadSlowLog,
    ] {
        assert_eq!(ro.check(need), Ok(()), "{need:?}");
    }
    assert_eq!(Access::default().check(Need::Write("t")), Ok(()));
    // Read-only holds for superusers too: it is about the server, not the caller.
    let (sec, _) = secured(vec![]);
    let ro = Access::secured(true, BTreeSet::from(["root".into()]), Acl::default().into());
    assert!(allowed(&sec, Some("root"), Need::Write("t")));
    assert_eq!(denied(&ro, Some("root"), Need::Write("t")), READ_ONLY);
}

#[test]
fn auth_off_allows_everyone() {
    let open = Access::new(false);
    assert!(allowed(&open, None, Need::AlterNamespace("ns")));
    assert!(allowed(&open, Some("bob"), Need::Grant(&AclScope::Global)));
    assert!(as_user(None, || open.shows_table("t")));
    assert_eq!(as_user(Some("bob"), || open.owner()), None);
}

#[test]
fn table_grants_give_exactly_their_actions_with_hbase_messages() {
    let (a, _) = secured(vec![grant("bob", table("t1"), "R")]);
    let bob = Some("bob");
    assert!(allowed(&a, bob, Need::Read("t1")));
    assert!(allowed(&a, bob, Need::Read("default:t1")));
    assert_eq!(
        denied(&a, bob, Need::Read("t2")),
        "org.apache.hadoop.hbase.security.AccessDeniedException: \
         Insufficient permissions for user 'bob' (table=t2, action=READ)"
    );
    assert_eq!(
        denied(&a, bob, Need::Write("t1")),
        "org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions \
         (user=bob, scope=default:t1, params=[table=default:t1],action=WRITE)"
    );
    // check-and-mutate needs both; the first missing one is named.
    assert!(denied(&a, bob, Need::CheckAndWrite("t1")).ends_with(",action=WRITE)"));
    // Administration takes A or C; HBase names the last it tried.
    assert!(denied(&a, bob, Need::AlterTable("t1")).ends_with(",action=CREATE)"));
    assert!(!allowed(&a, Some("eve"), Need::Read("t1")));
}

#[test]
fn create_or_admin_on_a_table_administers_it() {
    let (a, _) = secured(vec![
        grant("bob", table("ns1:t"), "C"),
        grant("ann", table("ns1:t"), "A"),
    ]);
    for u in ["bob", "ann"] {
        assert!(allowed(&a, Some(u), Need::AlterTable("ns1:t")), "{u}");
        assert!(allowed(&a, Some(u), Need::Describe("ns1:t")), "{u}");
        assert!(!allowed(&a, Some(u), Need::Read("ns1:t")), "{u}");
    }
}

#[test]
fn namespace_and_global_grants_cover_tables() {
    let (a, _) = secured(vec![
        grant("bob", AclScope::Namespace("ns1".into()), "RW"),
        grant("ops", AclScope::Global, "A"),
    ]);
    assert!(allowed(&a, Some("bob"), Need::Write("ns1:any")));
    assert!(allowed(&a, Some("bob"), Need::CheckAndWrite("ns1:any")));
    assert!(!allowed(&a, Some("bob"), Need::Read("ns2:t")));
    assert!(!allowed(&a, Some("bob"), Need::Read("t")));
    assert!(allowed(&a, Some("ops"), Need::AlterTable("ns2:t")));
    assert!(allowed(&a, Some("ops"), Need::AlterNamespace("ns9")));
    assert!(allowed(&a, Some("ops"), Need::Grant(&table("ns1:t"))));
    assert!(!allowed(&a, Some("ops"), Need::Read("ns2:t")));
}

#[test]
fn create_table_needs_admin_or_create_on_the_namespace() {
    let (a, _) = secured(vec![grant("bob", AclScope::Namespace("ns1".into()), "C")]);
    assert!(allowed(&a, Some("bob"), Need::CreateTable("ns1:t")));
    assert_eq!(
        denied(&a, Some("bob"), Need::CreateTable("t")),
        "org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions \
         (user=bob, scope=default, params=[namespace=default,table=default:t],action=CREATE)"
    );
}

#[test]
fn namespace_changes_need_global_admin() {
    let (a, _) = secured(vec![grant(
        "bob",
        AclScope::Namespace("ns1".into()),
        "RWXCA",
    )]);
    assert_eq!(
        denied(&a, Some("bob"), Need::AlterNamespace("ns1")),
        "org.apache.hadoop.hbase.security.AccessDeniedException: \
         Insufficient permissions for user 'bob' (global, action=ADMIN)"
    );
    assert!(allowed(&a, Some("bob"), Need::DescribeNamespace("ns1")));
    assert_eq!(
        denied(&a, Some("bob"), Need::DescribeNamespace("ns2")),
        "org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions \
         (user=bob, scope=ns2, params=[namespace=ns2],action=ADMIN)"
    );
    assert!(!allowed(&a, Some("bob"), Need::ClearSlowLog));
    assert!(!allowed(&a, Some("bob"), Need::ReadSlowLog));
}

#[test]
fn grant_needs_admin_at_the_scope_and_spares_superusers() {
    let (a, _) = secured(vec![grant("bob", table("t"), "A")]);
    let bob = Some("bob");
    assert!(as_user(bob, || a.check_grant(&table("t"), "eve")).is_ok());
    assert!(as_user(bob, || a.check_grant(&table("u"), "eve")).is_err());
    assert!(as_user(bob, || a
        .check_grant(&AclScope::Namespace("default".into()), "eve"))
    .is_err());
    let e = as_user(bob, || a.check_grant(&table("t"), "root")).unwrap_err();
    assert!(e.to_string().ends_with("permissions is not allowed"), "{e}");
}

#[test]
fn revoke_takes_effect_at_once() {
    let (a, acl) = secured(vec![grant("bob", table("t"), "RW")]);
    assert!(allowed(&a, Some("bob"), Need::Write("t")));
    acl.set(table("t"), "bob".into(), Actions::parse("R").unwrap());
    assert!(!allowed(&a, Some("bob"), Need::Write("t")));
    assert!(allowed(&a, Some("bob"), Need::Read("t")));
}

#[test]
fn superusers_may_do_everything() {
    let (a, _) = secured(vec![]);
    for need in [
        Need::Read("t"),
        Need::Write("ns:t"),
        Need::AlterNamespace("ns"),
        Need::Grant(&AclScope::Global),
        Need::ClearSlowLog,
        Need::Cluster,
    ] {
        assert!(allowed(&a, Some("root"), need), "{need:?}");
        assert!(!allowed(&a, Some("bob"), need), "{need:?}");
    }
    assert!(as_user(Some("root"), || a.shows_table("any")));
}

#[test]
fn anonymous_callers_are_refused_all_but_what_needs_nothing() {
    let (a, _) = secured(vec![grant("bob", AclScope::Global, "RWXCA")]);
    assert!(allowed(&a, None, Need::Nothing));
    assert_eq!(
        denied(&a, None, Need::Read("t")),
        "org.apache.hadoop.hbase.security.AccessDeniedException: \
         Insufficient permissions for user 'null' (table=t, action=READ)"
    );
    assert!(denied(&a, None, Need::Write("t")).contains("(user=UNKNOWN, "));
    assert!(denied(&a, None, Need::AlterNamespace("x")).contains("user 'null' (global"));
    // An empty user name is no user at all.
    assert!(!allowed(&a, Some(""), Need::Read("t")));
    // A bad table name still refuses the anonymous.
    assert!(!allowed(&a, None, Need::Write("bad name")));
    assert!(!as_user(None, || a.shows_table("t")));
}

#[test]
fn listings_show_tables_with_any_permission() {
    let (a, _) = secured(vec![
        grant("bob", table("t1"), "X"),
        grant("bob", table("t2"), "C"),
    ]);
    as_user(Some("bob"), || {
        assert!(a.shows_table("t1"));
        assert!(!a.shows_table("t3"));
        assert!(!a.shows(Need::Describe("t1")));
        assert!(a.shows(Need::Describe("t2")));
    });
}

#[test]
fn scanners_belong_to_their_opener() {
    let (a, _) = secured(vec![]);
    let owner = as_user(Some("bob"), || a.owner());
    assert_eq!(owner.as_deref(), Some("bob"));
    assert!(as_user(Some("bob"), || a.check_scanner_owner(owner.as_deref())).is_ok());
    let e = as_user(Some("eve"), || a.check_scanner_owner(owner.as_deref())).unwrap_err();
    assert_eq!(
        e.to_string(),
        "org.apache.hadoop.hbase.security.AccessDeniedException: \
         User 'eve' is not the scanner owner!"
    );
    assert!(Access::new(false).check_scanner_owner(Some("bob")).is_ok());
}
