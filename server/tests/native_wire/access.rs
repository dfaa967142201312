//! Callers and grants: TLS client certificates as callers with an auth file, `--require-tls`,
//! and Grant, Revoke, GetUserPermissions, HasUserPermissions and MergeTableRegions through
//! MasterService.

use std::io::Write;

use bytes::Bytes;
use prost::Message;
use redbase::native::pb;
use redbase::server::Config;

use crate::native_support::*;
use crate::security;

/// A native connection over TLS presenting `client`'s certificate (none: no client auth).
fn tls_conn(
    addr: std::net::SocketAddr,
    ca: &str,
    client: Option<&security::Leaf>,
    service: &str,
) -> Box<dyn security::Stream> {
    let mut s = security::tls(addr, ca, client);
    s.write_all(&connection_header(service, false)).unwrap();
    s
}

fn tls_call(s: &mut dyn security::Stream, id: u32, method: &str, param: &[u8]) -> Response {
    s.write_all(&call_frame(id, method, param, &[])).unwrap();
    let r = read_response(s);
    assert_eq!(r.header.call_id, Some(id));
    r
}

/// The exception class of a connection's first answer.
fn first_exception(s: &mut dyn security::Stream) -> Option<String> {
    read_response(s).exception_class()
}

#[test]
fn with_an_auth_file_callers_come_from_client_certificates() {
    use redbase::engine::{AclScope, Actions, TableName};
    use redbase::security::{hash_token, Auth, LimiterConfig, Security, Tls, TlsFiles, Users};
    let dir = tempfile::tempdir().unwrap();
    let ca = security::Ca::new("native test CA");
    let server_leaf = ca.leaf("localhost");
    let (alice, carol) = (ca.leaf("alice"), ca.leaf("carol"));
    let tls = Tls::load(TlsFiles {
        cert: security::write(dir.path(), "server.crt", &server_leaf.cert),
        key: security::write(dir.path(), "server.key", &server_leaf.key),
        client_ca: Some(security::write(dir.path(), "ca.crt", &ca.pem)),
        require_client_cert: false,
    })
    .unwrap();
    let text = format!(
        "[users.alice]\ntokens = [\"{}\"]\nsuperuser = true\n[users.carol]\ntokens = [\"{}\"]\n",
        hash_token("alice-token-0123456789"),
        hash_token("carol-token-0123456789")
    );
    let users = Users::parse(&text, std::path::Path::new("users.toml")).unwrap();
    let config = Config {
        security: Security {
            tls: Some(tls.clone()),
            auth: Some(std::sync::Arc::new(Auth::new(
                users,
                LimiterConfig::default(),
            ))),
            ..Security::default()
        },
        ..Config::default()
    };
    let (server, _) = Server::start_with(config, false);
    let addr = server.addr;
    // SIMPLE (plaintext, or TLS without a certificate) is refused on every service.
    for service in [
        "ClientService",
        "MasterService",
        "ClientMetaService",
        "AdminService",
    ] {
        assert_eq!(
            refused(addr, &connection_header(service, true)).as_deref(),
            Some("org.apache.hadoop.hbase.security.AccessDeniedException"),
            "{service}"
        );
        let mut anon = tls_conn(addr, &ca.pem, None, service);
        assert_eq!(
            first_exception(&mut *anon).as_deref(),
            Some("org.apache.hadoop.hbase.security.AccessDeniedException")
        );
    }
    // The registry preamble tells only the cluster id, to anyone (as HBase's does).
    let mut s = stream(addr);
    s.write_all(b"Regist").unwrap();
    assert_eq!(read_response(&mut s).header.call_id, Some(u32::MAX));

    // alice (a superuser by her certificate's name) creates a table and writes to it.
    let mut master = tls_conn(addr, &ca.pem, Some(&alice), "MasterService");
    let create = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table_name("secret")),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let r = tls_call(&mut *master, 1, "CreateTable", &create.encode_to_vec());
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let name = server.engine.regions("secret").unwrap()[0].meta.clone();
    let region_name = Bytes::from(redbase::native::regions::name_of(&name));
    let mut client = tls_conn(addr, &ca.pem, Some(&alice), "ClientService");
    let put = pb::MutateRequest {
        region: region(region_name.clone()),
        mutation: put("r", "v"),
        ..Default::default()
    };
    let r = tls_call(&mut *client, 1, "Mutate", &put.encode_to_vec());
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let scan = pb::ScanRequest {
        region: Some(region(region_name.clone())),
        scan: Some(pb::Scan::default()),
        number_of_rows: Some(0),
        ..Default::default()
    };
    let r = tls_call(&mut *client, 2, "Scan", &scan.encode_to_vec());
    let alices_scanner = pb::ScanResponse::decode(r.message).unwrap().scanner_id;

    // carol has no grant: her certificate gets her in, the ACL keeps her out.
    let mut carols = tls_conn(addr, &ca.pem, Some(&carol), "ClientService");
    let get = pb::GetRequest {
        region: region(region_name.clone()),
        get: pb::Get {
            row: Bytes::from_static(b"r"),
            ..Default::default()
        },
    };
    let r = tls_call(&mut *carols, 1, "Get", &get.encode_to_vec());
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    assert!(format!("{:?}", r.header.exception).contains("carol"));
    let mut carols_master = tls_conn(addr, &ca.pem, Some(&carol), "MasterService");
    let r = tls_call(
        &mut *carols_master,
        1,
        "SetBalancerRunning",
        &pb::SwitchRequest {
            on: false,
            synchronous: None,
        }
        .encode_to_vec(),
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    // With a read grant she reads, but she cannot go on with alice's scanner.
    server
        .engine
        .grant(
            "carol",
            AclScope::Table(TableName::parse("secret").unwrap()),
            Actions::parse("R").unwrap(),
        )
        .unwrap();
    let r = tls_call(&mut *carols, 2, "Get", &get.encode_to_vec());
    let got = pb::GetResponse::decode(r.message).unwrap();
    assert_eq!(got.result.unwrap().cell.len(), 1);
    let next = pb::ScanRequest {
        scanner_id: alices_scanner,
        number_of_rows: Some(10),
        next_call_seq: Some(0),
        ..Default::default()
    };
    let r = tls_call(&mut *carols, 3, "Scan", &next.encode_to_vec());
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.UnknownScannerException")
    );
    let r = tls_call(&mut *client, 3, "Scan", &next.encode_to_vec());
    assert_eq!(
        pb::ScanResponse::decode(r.message).unwrap().results.len(),
        1
    );
    // A write needs W.
    let r = tls_call(&mut *carols, 4, "Mutate", &put.encode_to_vec());
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
}

#[test]
fn require_tls_refuses_plaintext_native_connections() {
    use redbase::security::{Security, Tls, TlsFiles};
    let dir = tempfile::tempdir().unwrap();
    let ca = security::Ca::new("native test CA");
    let leaf = ca.leaf("localhost");
    let tls = Tls::load(TlsFiles {
        cert: security::write(dir.path(), "server.crt", &leaf.cert),
        key: security::write(dir.path(), "server.key", &leaf.key),
        client_ca: None,
        require_client_cert: false,
    })
    .unwrap();
    let config = Config {
        security: Security {
            tls: Some(tls),
            require_tls: true,
            ..Security::default()
        },
        ..Config::default()
    };
    let (server, _) = Server::start_with(config, false);
    assert_eq!(
        refused(server.addr, &connection_header("ClientMetaService", false)).as_deref(),
        Some("org.apache.hadoop.hbase.ipc.FatalConnectionException")
    );
    assert_eq!(
        refused(server.addr, b"Regist").as_deref(),
        Some("org.apache.hadoop.hbase.ipc.FatalConnectionException")
    );
    // Without an auth file a TLS connection runs anonymously, as plaintext would.
    let mut meta = tls_conn(server.addr, &ca.pem, None, "ClientMetaService");
    let r = tls_call(
        &mut *meta,
        1,
        "GetClusterId",
        &pb::GetClusterIdRequest {}.encode_to_vec(),
    );
    let id = pb::GetClusterIdResponse::decode(r.message).unwrap();
    assert_eq!(id.cluster_id.as_deref(), Some(server.engine.cluster_id()));
}

/// A server with TLS and an auth file: alice is a superuser, carol and dave plain users.
fn secured_server() -> (Server, security::Ca, tempfile::TempDir) {
    use redbase::security::{hash_token, Auth, LimiterConfig, Security, Tls, TlsFiles, Users};
    let dir = tempfile::tempdir().unwrap();
    let ca = security::Ca::new("native acl CA");
    let leaf = ca.leaf("localhost");
    let tls = Tls::load(TlsFiles {
        cert: security::write(dir.path(), "server.crt", &leaf.cert),
        key: security::write(dir.path(), "server.key", &leaf.key),
        client_ca: Some(security::write(dir.path(), "ca.crt", &ca.pem)),
        require_client_cert: false,
    })
    .unwrap();
    let mut text = format!(
        "[users.alice]\ntokens = [\"{}\"]\nsuperuser = true\n",
        hash_token("alice-token-0123456789")
    );
    for u in ["carol", "dave"] {
        text += &format!(
            "[users.{u}]\ntokens = [\"{}\"]\n",
            hash_token(&format!("{u}-token-0123456789"))
        );
    }
    let users = Users::parse(&text, std::path::Path::new("users.toml")).unwrap();
    let config = Config {
        security: Security {
            tls: Some(tls),
            auth: Some(std::sync::Arc::new(Auth::new(
                users,
                LimiterConfig::default(),
            ))),
            ..Security::default()
        },
        ..Config::default()
    };
    (Server::start_with(config, false).0, ca, dir)
}

fn table_permission(table: &str, actions: &[pb::permission::Action]) -> pb::Permission {
    pb::Permission {
        r#type: pb::permission::Type::Table as i32,
        table_permission: Some(pb::TablePermission {
            table_name: Some(table_name(table)),
            action: actions.iter().map(|a| *a as i32).collect(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn grant_request(user: &str, permission: pb::Permission, merge: bool) -> Vec<u8> {
    pb::GrantRequest {
        user_permission: pb::UserPermission {
            user: Bytes::from(user.to_string()),
            permission,
        },
        merge_existing_permissions: Some(merge),
    }
    .encode_to_vec()
}

#[test]
fn grants_through_master_service_follow_hbases_rules() {
    use pb::permission::Action::{Admin, Read, Write};
    let (server, ca, _dir) = secured_server();
    let addr = server.addr;
    let alice = ca.leaf("alice");
    let carol = ca.leaf("carol");
    let mut admin = tls_conn(addr, &ca.pem, Some(&alice), "MasterService");
    let create = pb::CreateTableRequest {
        table_schema: pb::TableSchema {
            table_name: Some(table_name("g")),
            column_families: vec![pb::ColumnFamilySchema {
                name: Bytes::from_static(b"f"),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    };
    let r = tls_call(&mut *admin, 1, "CreateTable", &create.encode_to_vec());
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);

    // alice (a superuser) grants carol R, then W merged into it.
    let r = tls_call(
        &mut *admin,
        2,
        "Grant",
        &grant_request("carol", table_permission("g", &[Read]), false),
    );
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let r = tls_call(
        &mut *admin,
        3,
        "Grant",
        &grant_request("carol", table_permission("g", &[Write]), true),
    );
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let table = redbase::engine::AclScope::Table(redbase::engine::TableName::parse("g").unwrap());
    let carols: Vec<_> = server
        .engine
        .grants()
        .into_iter()
        .filter(|g| g.user == "carol")
        .collect();
    assert_eq!(carols.len(), 1);
    assert_eq!(
        (carols[0].scope.clone(), carols[0].actions.to_string()),
        (table, "RW".into())
    );

    // The listing at the table's scope, for one user.
    let list = pb::GetUserPermissionsRequest {
        r#type: Some(pb::permission::Type::Table as i32),
        table_name: Some(table_name("g")),
        user_name: Some(Bytes::from_static(b"carol")),
        ..Default::default()
    };
    let r = tls_call(&mut *admin, 4, "GetUserPermissions", &list.encode_to_vec());
    let got = pb::GetUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(got.user_permission.len(), 1);
    let tp = got.user_permission[0]
        .permission
        .table_permission
        .clone()
        .unwrap();
    assert_eq!(tp.action, vec![Read as i32, Write as i32]);
    assert_eq!(tp.table_name, Some(table_name("g")));

    // carol: no A on the table, so she may neither grant nor list; she may ask about herself.
    let mut carols = tls_conn(addr, &ca.pem, Some(&carol), "MasterService");
    let r = tls_call(
        &mut *carols,
        1,
        "Grant",
        &grant_request("dave", table_permission("g", &[Read]), false),
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    let r = tls_call(&mut *carols, 2, "GetUserPermissions", &list.encode_to_vec());
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    let ask = |user: Option<&str>| pb::HasUserPermissionsRequest {
        user_name: user.map(|u| Bytes::from(u.to_string())),
        permission: vec![
            table_permission("g", &[Read]),
            table_permission("g", &[Read, Write]),
            table_permission("g", &[Admin]),
        ],
    };
    let r = tls_call(
        &mut *carols,
        3,
        "HasUserPermissions",
        &ask(None).encode_to_vec(),
    );
    let has = pb::HasUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(has.has_user_permission, vec![true, true, false]);
    let r = tls_call(
        &mut *carols,
        4,
        "HasUserPermissions",
        &ask(Some("dave")).encode_to_vec(),
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );
    // alice asks about dave (nothing) and about herself (a superuser: everything).
    let r = tls_call(
        &mut *admin,
        5,
        "HasUserPermissions",
        &ask(Some("dave")).encode_to_vec(),
    );
    let has = pb::HasUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(has.has_user_permission, vec![false, false, false]);
    let r = tls_call(
        &mut *admin,
        6,
        "HasUserPermissions",
        &ask(None).encode_to_vec(),
    );
    let has = pb::HasUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(has.has_user_permission, vec![true, true, true]);

    // Revoke W: R remains; a superuser's grants cannot be changed.
    let revoke = pb::RevokeRequest {
        user_permission: pb::UserPermission {
            user: Bytes::from_static(b"carol"),
            permission: table_permission("g", &[Write]),
        },
    };
    let r = tls_call(&mut *admin, 7, "Revoke", &revoke.encode_to_vec());
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let r = tls_call(
        &mut *carols,
        5,
        "HasUserPermissions",
        &ask(None).encode_to_vec(),
    );
    let has = pb::HasUserPermissionsResponse::decode(r.message).unwrap();
    assert_eq!(has.has_user_permission, vec![true, false, false]);
    let r = tls_call(
        &mut *admin,
        8,
        "Grant",
        &grant_request("alice", table_permission("g", &[Read]), false),
    );
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.security.AccessDeniedException")
    );

    // What redbase's grants cannot hold, and what is not one, is refused naming why.
    let mut column = table_permission("g", &[Read]);
    column.table_permission.as_mut().unwrap().family = Some(Bytes::from_static(b"f"));
    let bad_action = pb::Permission {
        r#type: pb::permission::Type::Global as i32,
        global_permission: Some(pb::GlobalPermission { action: vec![9] }),
        ..Default::default()
    };
    let missing = table_permission("nope", &[Read]);
    for (i, (p, class, says)) in [
        (
            column,
            "DoNotRetryIOException",
            "column family or qualifier",
        ),
        (
            bad_action,
            "DoNotRetryIOException",
            "unknown permission action 9",
        ),
        (missing, "TableNotFoundException", "nope"),
    ]
    .into_iter()
    .enumerate()
    {
        let r = tls_call(
            &mut *admin,
            20 + i as u32,
            "Grant",
            &grant_request("carol", p, false),
        );
        let e = r.header.exception.unwrap();
        assert!(
            e.exception_class_name.as_deref().unwrap().ends_with(class),
            "{e:?}"
        );
        assert!(format!("{e:?}").contains(says), "{e:?}");
    }
    // Merges: the engine never merges regions, and says so.
    let merge = pb::MergeTableRegionsRequest::default();
    let r = tls_call(&mut *admin, 30, "MergeTableRegions", &merge.encode_to_vec());
    let e = r.header.exception.unwrap();
    assert_eq!(
        e.exception_class_name.as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    assert!(format!("{e:?}").contains("MergeTableRegions"), "{e:?}");
}

#[test]
fn grants_without_authentication_are_kept_and_listed() {
    use pb::permission::Action::{Admin, Read};
    let server = Server::start(1 << 20);
    let mut master = Conn::open(server.addr, "MasterService", false);
    let ns = pb::Permission {
        r#type: pb::permission::Type::Namespace as i32,
        namespace_permission: Some(pb::NamespacePermission {
            namespace_name: Some(Bytes::from_static(b"default")),
            action: vec![Read as i32, Admin as i32],
        }),
        ..Default::default()
    };
    let r = master.call_raw("Grant", &grant_request("erin", ns, false), &[]);
    assert!(r.header.exception.is_none(), "{:?}", r.header.exception);
    let list: pb::GetUserPermissionsResponse = master.call(
        "GetUserPermissions",
        &pb::GetUserPermissionsRequest {
            r#type: Some(pb::permission::Type::Namespace as i32),
            namespace_name: Some(Bytes::from_static(b"default")),
            ..Default::default()
        },
    );
    assert_eq!(list.user_permission.len(), 1);
    assert_eq!(list.user_permission[0].user, Bytes::from_static(b"erin"));
    let np = list.user_permission[0]
        .permission
        .namespace_permission
        .clone()
        .unwrap();
    assert_eq!(np.action, vec![Read as i32, Admin as i32]);
    // The global listing holds no namespace grant.
    let global: pb::GetUserPermissionsResponse = master.call(
        "GetUserPermissions",
        &pb::GetUserPermissionsRequest::default(),
    );
    assert!(global.user_permission.is_empty());
    // A parameter that is not a GrantRequest: DoNotRetryIOException, the connection goes on.
    let r = master.call_raw("Grant", b"\xff\xff\xff", &[]);
    assert_eq!(
        r.exception_class().as_deref(),
        Some("org.apache.hadoop.hbase.DoNotRetryIOException")
    );
    let _: pb::IsMasterRunningResponse =
        master.call("IsMasterRunning", &pb::IsMasterRunningRequest {});
}
