//! Access control through the real call path.
//!
//! - Over a real server on loopback: read-only mode refuses every change of both services
//!   (one valid call of every method, the fuzz seeds), and grant/revoke are stored, dropped
//!   with their table or namespace, and survive a restart on the same data directory.
//! - Through each service's processor with a caller set as the Thrift server sets it (callers
//!   cannot prove a user over the wire yet): every method a user without grants may not call
//!   is refused, superusers and a global grant pass, listings are filtered, scanners belong to
//!   their opener.

#[allow(dead_code)]
#[path = "fuzz/calls.rs"]
mod calls;
mod common;
#[allow(dead_code)]
#[path = "fuzz/corpus.rs"]
mod corpus;

use std::collections::BTreeSet;
use std::io::Write;
use std::net::{SocketAddr, TcpStream};

use common::acl::*;
use common::server::TestServer;
use redbase::engine::{
    AclScope, Actions, Engine, EngineConfig, FamilyDescriptor, Grant, NamespaceDescriptor, Op,
    RowMutation, TableDescriptor, TableName,
};
use redbase::gateway::access::rule_of;
use redbase::gateway::caller::{self, Caller};
use redbase::gateway::{Access, Advertised, Rule};
use redbase::generated::hbase1::THbaseSyncClient;
use redbase::generated::hbase2::{self as h2, TTHBaseServiceSyncClient};
use redbase::scanners::ScannerLimits;
use redbase::server::Config;
use redbase::slowlog::SlowLogConfig;
use redbase::thrift::frame::Protocol;
use redbase::thrift::Service;
use redbase::{thrift1, thrift2};
use thrift::protocol::{TBinaryInputProtocol, TInputProtocol, TMessageType, TType};

/// What a reply says: its message type, the ids of its result's fields, every string in it.
#[derive(Debug)]
struct Reply {
    kind: TMessageType,
    fields: Vec<i16>,
    strings: Vec<String>,
}

impl Reply {
    fn mentions(&self, s: &str) -> bool {
        self.strings.iter().any(|x| x.contains(s))
    }
}

fn read_value(p: &mut dyn TInputProtocol, ty: TType, out: &mut Vec<String>) {
    match ty {
        TType::Struct => {
            p.read_struct_begin().unwrap();
            loop {
                let f = p.read_field_begin().unwrap();
                if f.field_type == TType::Stop {
                    break;
                }
                read_value(p, f.field_type, out);
                p.read_field_end().unwrap();
            }
            p.read_struct_end().unwrap();
        }
        TType::String => out.push(String::from_utf8_lossy(&p.read_bytes().unwrap()).into()),
        TType::List => {
            let l = p.read_list_begin().unwrap();
            for _ in 0..l.size {
                read_value(p, l.element_type, out);
            }
            p.read_list_end().unwrap();
        }
        TType::Set => {
            let l = p.read_set_begin().unwrap();
            for _ in 0..l.size {
                read_value(p, l.element_type, out);
            }
            p.read_set_end().unwrap();
        }
        TType::Map => {
            let m = p.read_map_begin().unwrap();
            for _ in 0..m.size {
                read_value(p, m.key_type.unwrap(), out);
                read_value(p, m.value_type.unwrap(), out);
            }
            p.read_map_end().unwrap();
        }
        other => p.skip(other).unwrap(),
    }
}

fn read_reply(p: &mut dyn TInputProtocol) -> Reply {
    let m = p.read_message_begin().unwrap();
    let mut reply = Reply {
        kind: m.message_type,
        fields: Vec::new(),
        strings: Vec::new(),
    };
    p.read_struct_begin().unwrap();
    loop {
        let f = p.read_field_begin().unwrap();
        if f.field_type == TType::Stop {
            break;
        }
        reply.fields.push(f.id.unwrap_or(-1));
        read_value(p, f.field_type, &mut reply.strings);
        p.read_field_end().unwrap();
    }
    reply
}

/// Sends one whole binary message on a fresh connection and reads the reply.
fn call(addr: SocketAddr, message: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(message).unwrap();
    let mut p = TBinaryInputProtocol::new(s, true);
    read_reply(&mut p)
}

/// The method a seed call is for (`get-filterBytes` is a `get`).
fn method(name: &str) -> &str {
    name.split('-').next().unwrap_or(name)
}

type Rules = &'static [(&'static str, Rule)];
type Seeds = Vec<(&'static str, Vec<u8>)>;

fn services() -> [(u8, Seeds, Rules); 2] {
    [
        (1, calls::thrift1(corpus::Proto::Binary), thrift1::METHODS),
        (2, calls::thrift2(corpus::Proto::Binary), thrift2::METHODS),
    ]
}

#[test]
fn read_only_refuses_every_change_on_both_services() {
    let server = TestServer::start(Config {
        read_only: true,
        ..Config::default()
    });
    let mut refused = BTreeSet::new();
    for (service, calls, rules) in services() {
        let addr = if service == 1 {
            server.thrift1
        } else {
            server.thrift2
        };
        for (name, message) in calls {
            let rule = rule_of(rules, method(name)).unwrap_or_else(|| panic!("{name}: no rule"));
            let reply = call(addr, &message);
            if rule.changes() {
                assert_eq!(
                    reply.kind,
                    TMessageType::Reply,
                    "t{service} {name}: {reply:?}"
                );
                assert_eq!(reply.fields, [1], "t{service} {name}: the declared IOError");
                assert_eq!(reply.strings, [READ_ONLY], "t{service} {name}");
                refused.insert(format!("t{service} {}", method(name)));
            } else {
                assert!(!reply.mentions(READ_ONLY), "t{service} {name}: {reply:?}");
            }
        }
    }
    // Not only writes: DDL, namespaces, compaction, grants and the slow log too.
    for m in [
        "t1 createTable",
        "t1 deleteTable",
        "t1 disableTable",
        "t1 compact",
        "t1 majorCompact",
        "t1 grant",
        "t2 createTable",
        "t2 truncateTable",
        "t2 modifyColumnFamily",
        "t2 createNamespace",
        "t2 deleteNamespace",
        "t2 clearSlowLogResponses",
        "t2 grant",
        "t2 revoke",
        "t2 put",
        "t1 mutateRow",
    ] {
        assert!(refused.contains(m), "{m} was not refused");
    }
    // The typed clients read the same: a non-retryable IOError with HBase's message.
    let mut c2 = client2(server.thrift2);
    assert_eq!(
        io_error(c2.delete_namespace("ns".into())),
        (READ_ONLY.to_string(), false)
    );
    assert_eq!(
        io_error(c2.clear_slow_log_responses(BTreeSet::new())),
        (READ_ONLY.to_string(), false)
    );
    let mut c1 = client1(server.thrift1);
    assert_eq!(
        io_error(c1.major_compact(b"t".to_vec())),
        (READ_ONLY.to_string(), false)
    );
    assert_eq!(
        io_error(c1.grant(entity1("bob", On::Table("t"), "R"))),
        (READ_ONLY.to_string(), false)
    );
    // Even a grant that is wrong in itself: nothing is looked at on a read-only server.
    assert_eq!(
        io_error(c2.revoke(entity2("", On::Namespace("nope"), "??"))),
        (READ_ONLY.to_string(), false)
    );
    // Reads go on.
    assert_eq!(c2.list_namespaces().unwrap(), ["default", "hbase"]);
}

fn prepare(dir: &std::path::Path) {
    let e = Engine::open(dir, EngineConfig::default()).unwrap();
    e.create_namespace(NamespaceDescriptor::new("ns1")).unwrap();
    for t in ["ns1:t", "t2"] {
        let d = TableDescriptor::new(TableName::parse(t).unwrap())
            .with_family(FamilyDescriptor::new(b"f"));
        e.create_table(d, &[]).unwrap();
    }
    e.close();
}

fn stored(dir: &std::path::Path) -> Vec<(String, String, String)> {
    let e = Engine::open(dir, EngineConfig::default()).unwrap();
    let out = e
        .grants()
        .into_iter()
        .map(|g: Grant| (g.scope.to_string(), g.user, g.actions.to_string()))
        .collect();
    e.close();
    out
}

fn row(a: &str, b: &str, c: &str) -> (String, String, String) {
    (a.into(), b.into(), c.into())
}

#[test]
fn grants_are_stored_dropped_with_their_scope_and_survive_restarts() {
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    {
        let server = TestServer::start_in(dir.path(), Config::default());
        let mut c2 = client2(server.thrift2);
        assert!(c2.grant(entity2("bob", On::Table("ns1:t"), "RW")).unwrap());
        assert!(c2
            .grant(entity2("carol", On::Namespace("ns1"), "a"))
            .unwrap());
        assert!(c2.revoke(entity2("bob", On::Table("ns1:t"), "W")).unwrap());
        // Revoking what was never held changes nothing.
        assert!(c2.revoke(entity2("eve", On::Table("t2"), "R")).unwrap());
        let mut c1 = client1(server.thrift1);
        assert!(c1.grant(entity1("dave", On::Table("t2"), "RX")).unwrap());
        assert!(c1
            .grant(entity1("erin", On::Table("default:t2"), "C"))
            .unwrap());
        assert!(c1.revoke(entity1("erin", On::Table("t2"), "C")).unwrap());
    }
    assert_eq!(
        stored(dir.path()),
        [
            row("@ns1", "carol", "A"),
            row("default:t2", "dave", "RX"),
            row("ns1:t", "bob", "R"),
        ]
    );
    {
        let server = TestServer::start_in(dir.path(), Config::default());
        let mut c2 = client2(server.thrift2);
        let ns1_t = h2::TTableName {
            ns: Some(b"ns1".to_vec()),
            qualifier: b"t".to_vec(),
        };
        c2.disable_table(ns1_t.clone()).unwrap();
        c2.delete_table(ns1_t).unwrap();
        c2.delete_namespace("ns1".into()).unwrap();
    }
    assert_eq!(stored(dir.path()), [row("default:t2", "dave", "RX")]);
}

#[test]
fn bad_grants_get_clear_errors() {
    let server = TestServer::start(Config::default());
    let mut c2 = client2(server.thrift2);
    let mut c1 = client1(server.thrift1);
    let cases: Vec<(h2::TAccessControlEntity, &str)> = vec![
        (
            entity2("", On::Namespace("default"), "R"),
            "a grant needs a user name; the user name is empty",
        ),
        (
            entity2("bob", On::Namespace("default"), "RZ"),
            "unknown action 'Z' in \"RZ\": actions are letters of R (read), W (write), X (exec), C (create), A (admin)",
        ),
        (
            entity2("bob", On::Namespace("default"), ""),
            "no actions given: name one or more of R (read), W (write), X (exec), C (create), A (admin)",
        ),
        (
            h2::TAccessControlEntity {
                scope: h2::TPermissionScope(7),
                ..entity2("bob", On::Namespace("default"), "R")
            },
            "unknown permission scope 7: TABLE (0) or NAMESPACE (1)",
        ),
        (
            h2::TAccessControlEntity {
                table_name: None,
                ..entity2("bob", On::Table("t"), "R")
            },
            "a TABLE grant needs tableName",
        ),
        (
            entity2("bob", On::Table("nope"), "R"),
            "table nope does not exist",
        ),
        (
            entity2("bob", On::Namespace("nope"), "R"),
            "namespace nope does not exist",
        ),
    ];
    for (e, message) in cases {
        assert_eq!(
            io_error(c2.grant(e.clone())),
            (message.to_string(), false),
            "{e:?}"
        );
        assert_eq!(io_error(c2.revoke(e)).0, message);
    }
    let (message, retry) = io_error(c1.grant(entity1("bob", On::Table("bad name"), "R")));
    assert!(message.contains("bad name") && !retry, "{message}");
    assert_eq!(
        io_error(c1.revoke(entity1(" ", On::Table("t"), "R"))).0,
        "a grant needs a user name; the user name is empty"
    );
    // The server is still fine.
    assert_eq!(c2.list_namespaces().unwrap(), ["default", "hbase"]);
}

/// Both services over one engine with authentication on ("root" a superuser), as the Thrift
/// server runs them, minus the socket.
struct Secured {
    t1: thrift1::Thrift1,
    t2: thrift2::Thrift2,
    engine: Engine,
    _dir: tempfile::TempDir,
}

impl Secured {
    fn new() -> Secured {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineConfig::default()).unwrap();
        let d = TableDescriptor::new(TableName::parse("t").unwrap())
            .with_family(FamilyDescriptor::new(calls::FAMILY));
        engine.create_table(d, &[]).unwrap();
        engine
            .mutate_row(
                "t",
                RowMutation::new(b"r").with(Op::put_at(b"f", b"q", 1, b"v")),
            )
            .unwrap();
        let access = Access::secured(false, BTreeSet::from(["root".into()]), engine.acl());
        let advertised = Advertised {
            host: "localhost".into(),
            port: 9090,
        };
        let t1 = thrift1::Thrift1::new(thrift1::Handler::new(
            engine.clone(),
            ScannerLimits::default(),
            advertised.clone(),
            access.clone(),
        ));
        let t2 = thrift2::Thrift2::new(thrift2::Handler::new(
            engine.clone(),
            ScannerLimits::default(),
            advertised,
            access,
            SlowLogConfig::default(),
        ));
        Secured {
            t1,
            t2,
            engine,
            _dir: dir,
        }
    }

    fn call(&self, user: Option<&str>, service: u8, message: &[u8]) -> Reply {
        let mut who = Caller::anonymous("127.0.0.1:7".parse().unwrap());
        who.user = user.map(str::to_string);
        let protocol = Protocol::Binary { strict: true };
        let reply = caller::scope(who.clone(), || {
            if service == 1 {
                self.t1.process_from(message, protocol, &who)
            } else {
                self.t2.process_from(message, protocol, &who)
            }
        });
        read_reply(&mut TBinaryInputProtocol::new(&reply[..], true))
    }

    fn as_user<R>(&self, user: &str, f: impl FnOnce() -> R) -> R {
        let mut who = Caller::anonymous("127.0.0.1:7".parse().unwrap());
        who.user = Some(user.into());
        caller::scope(who, f)
    }
}

impl Drop for Secured {
    fn drop(&mut self) {
        self.engine.close();
    }
}

#[test]
fn every_method_refuses_a_user_without_grants() {
    let s = Secured::new();
    for user in [Some("bob"), None] {
        for (service, calls, rules) in services() {
            for (name, message) in &calls {
                let rule = rule_of(rules, method(name)).unwrap();
                let reply = s.call(user, service, message);
                let denied = reply.mentions(ACCESS_DENIED.trim_end_matches(": "));
                let expect = !matches!(rule, Rule::Nothing | Rule::Filtered | Rule::ScannerOwner);
                assert_eq!(denied, expect, "{user:?} t{service} {name}: {reply:?}");
                if denied {
                    assert_eq!(
                        reply.fields,
                        [1],
                        "{user:?} t{service} {name}: declared IOError"
                    );
                }
            }
        }
    }
}

#[test]
fn superusers_and_global_grants_pass_every_check() {
    let s = Secured::new();
    s.engine
        .grant("bob", AclScope::Global, Actions::ALL)
        .unwrap();
    for user in ["root", "bob"] {
        for (service, calls, _) in services() {
            for (name, message) in &calls {
                let reply = s.call(Some(user), service, message);
                assert!(
                    !reply.mentions("AccessDeniedException"),
                    "{user} t{service} {name}: {reply:?}"
                );
            }
        }
    }
}

#[test]
fn listings_are_filtered_and_scanners_belong_to_their_opener() {
    let s = Secured::new();
    let h2 = s.t2.handler.clone();
    let h1 = s.t1.handler.clone();
    use redbase::generated::hbase1::HbaseSyncHandler;
    use redbase::generated::hbase2::THBaseServiceSyncHandler;
    let names = |u: &str| {
        s.as_user(u, || {
            h2.handle_get_table_names_by_pattern(String::new(), false)
                .unwrap()
                .len()
        })
    };
    assert_eq!(names("root"), 1);
    assert_eq!(names("bob"), 0);
    s.engine
        .grant(
            "bob",
            AclScope::Table(TableName::parse("t").unwrap()),
            Actions::parse("R").unwrap(),
        )
        .unwrap();
    assert_eq!(names("bob"), 1);
    assert_eq!(
        s.as_user("bob", || h1.handle_get_table_names().unwrap()),
        [b"t".to_vec()]
    );
    // Describing takes A or C; a read grant shows the name only.
    assert!(s
        .as_user("bob", || h2
            .handle_get_table_descriptors_by_namespace("default".into()))
        .unwrap()
        .is_empty());
    let scan = tscan();
    let id = s
        .as_user("bob", || h2.handle_open_scanner(b"t".to_vec(), scan))
        .unwrap();
    assert_denied(
        s.as_user("eve", || h2.handle_get_scanner_rows(id, 1)),
        "User 'eve' is not the scanner owner!",
    );
    assert_denied(
        s.as_user("eve", || h2.handle_close_scanner(id)),
        "User 'eve' is not the scanner owner!",
    );
    assert_eq!(
        s.as_user("bob", || h2.handle_get_scanner_rows(id, 5))
            .unwrap()
            .len(),
        1
    );
    // A table's creator holds every permission on it, as HBase's owner does.
    s.engine
        .grant(
            "bob",
            AclScope::Namespace("default".into()),
            Actions::parse("C").unwrap(),
        )
        .unwrap();
    s.as_user("bob", || {
        h1.handle_create_table(
            b"mine".to_vec(),
            vec![redbase::generated::hbase1::ColumnDescriptor {
                name: Some(b"f:".to_vec()),
                max_versions: None,
                compression: None,
                in_memory: None,
                bloom_filter_type: None,
                bloom_filter_vector_size: None,
                bloom_filter_nb_hashes: None,
                block_cache_enabled: None,
                time_to_live: None,
            }],
        )
    })
    .unwrap();
    let owner = s
        .engine
        .grants()
        .into_iter()
        .find(|g| g.scope == AclScope::Table(TableName::parse("mine").unwrap()))
        .unwrap();
    assert_eq!((owner.user.as_str(), owner.actions), ("bob", Actions::ALL));
    // And anyone else is refused with HBase's message.
    assert_denied(
        s.as_user("eve", || h1.handle_disable_table(b"mine".to_vec())),
        "Insufficient permissions (user=eve, scope=default:mine, params=[table=default:mine],action=CREATE)",
    );
    assert_denied(
        s.as_user("eve", || h2.handle_exists(b"t".to_vec(), h2_get())),
        "Insufficient permissions for user 'eve' (table=t, action=READ)",
    );
}

fn h2_get() -> h2::TGet {
    h2::TGet {
        row: b"r".to_vec(),
        columns: None,
        timestamp: None,
        time_range: None,
        max_versions: None,
        filter_string: None,
        attributes: None,
        authorizations: None,
        consistency: None,
        target_replica_id: None,
        cache_blocks: None,
        store_limit: None,
        store_offset: None,
        existence_only: None,
        filter_bytes: None,
    }
}
