//! The znodes HBase 2.6's client reads at start, as HBase writes them, made once when the
//! responder starts (nothing in them changes while the server runs, which is why a watch never
//! needs to fire). Under the parent (`zookeeper.znode.parent`, `/hbase` by default; see
//! [`super::parent`]), each path joined as HBase joins it:
//!
//! - `hbaseid`: the cluster id (ZKConnectionRegistry.getClusterId),
//! - `master`: the active master (getActiveMaster, MasterAddressTracker),
//! - `meta-region-server`: where hbase:meta is served (getMetaRegionLocations lists the
//!   parent for children starting with that name, then reads each),
//! - `rs` and `rs/<host,port,startcode>`: the live region servers,
//! - `backup-masters` (none), `running` (the cluster is up), `table` (empty: table states live
//!   in hbase:meta since HBase 2).
//!
//! The parent's ancestors (`/apps` for `/apps/hbase`) are empty znodes, as ZooKeeper needs
//! every ancestor of a node to exist.
//!
//! Each value is HBase's serialization: the metadata header RecoverableZooKeeper prepends
//! (0xff, a 4-byte id length, the writer's id), then "PBUF" and the protobuf.

use std::collections::BTreeMap;

use bytes::Bytes;
use prost::Message;

use super::super::meta::ServerAddress;
use super::super::pb;
use super::parent::ZnodeParent;
use super::protocol::Stat;

/// The HBase version the region server node reports (the version redbase answers as).
const VERSION: &str = crate::rest::meta::HBASE_VERSION;

/// `zookeeper.znode.parent`'s default, served unless `--zookeeper-znode-parent` names another.
pub const PARENT: &str = "/hbase";

/// RegionState.State OPEN.
const OPEN: i32 = 3;

/// One znode.
#[derive(Debug, Clone)]
pub struct Znode {
    pub data: Bytes,
    /// Child names (not paths), sorted.
    pub children: Vec<String>,
    pub stat: Stat,
}

/// The whole tree this responder serves, by path.
#[derive(Debug, Clone)]
pub struct Tree {
    nodes: BTreeMap<String, Znode>,
}

/// What the tree describes.
pub struct ClusterFacts<'a> {
    /// Where HBase's nodes go.
    pub parent: &'a ZnodeParent,
    pub cluster_id: &'a str,
    /// The native RPC listener as clients reach it: master, hbase:meta and every region.
    pub server: &'a ServerAddress,
    /// The HTTP listener's port (HBase's info port), 0 when there is none.
    pub info_port: u16,
    /// The transaction id every znode was made at (the server's start, in ms).
    pub zxid: i64,
    /// The session said to own the ephemeral nodes (master and region server).
    pub owner: i64,
}

/// HBase's metadata header, then "PBUF", then `message`.
fn hbase_value(id: &[u8], message: &impl Message) -> Bytes {
    let body = message.encode_to_vec();
    let mut v = Vec::with_capacity(1 + 4 + id.len() + 4 + body.len());
    v.push(0xff);
    v.extend_from_slice(&(id.len() as u32).to_be_bytes());
    v.extend_from_slice(id);
    v.extend_from_slice(b"PBUF");
    v.extend_from_slice(&body);
    Bytes::from(v)
}

/// HBase's ServerName as text: `host,port,startcode`.
pub fn server_name(s: &ServerAddress) -> String {
    format!("{},{},{}", s.host, s.port, s.start_code)
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Milliseconds since the epoch as an ISO 8601 UTC time (ClusterUp's start date is only shown).
fn iso_time(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

impl Tree {
    pub fn hbase(f: &ClusterFacts<'_>) -> Tree {
        let id = format!("{}@{}", std::process::id(), f.server.host).into_bytes();
        let sn = f.server.pb();
        let rs = server_name(f.server);
        let at = |name: &str| f.parent.join(name);
        let mut values: Vec<(String, Bytes, bool)> = vec![
            ("/".into(), Bytes::new(), false),
            ("/zookeeper".into(), Bytes::new(), false),
            (f.parent.to_string(), Bytes::new(), false),
            (
                at("hbaseid"),
                hbase_value(
                    &id,
                    &pb::ClusterIdZnode {
                        cluster_id: f.cluster_id.to_string(),
                    },
                ),
                false,
            ),
            (
                at("master"),
                hbase_value(
                    &id,
                    &pb::MasterZnode {
                        master: sn.clone(),
                        rpc_version: Some(0),
                        info_port: Some(u32::from(f.info_port)),
                    },
                ),
                true,
            ),
            (
                at("meta-region-server"),
                hbase_value(
                    &id,
                    &pb::MetaRegionServerZnode {
                        server: sn,
                        rpc_version: Some(0),
                        state: Some(OPEN),
                    },
                ),
                false,
            ),
            (at("backup-masters"), Bytes::new(), false),
            (at("rs"), Bytes::new(), false),
            (
                at(&format!("rs/{rs}")),
                hbase_value(
                    &id,
                    &pb::RegionServerInfoZnode {
                        info_port: Some(i32::from(f.info_port)),
                        version_info: Some(pb::VersionInfo {
                            version: Some(VERSION.into()),
                            url: Some("https://github.com/redbase".into()),
                            revision: Some(env!("CARGO_PKG_VERSION").into()),
                            user: Some("redbase".into()),
                            date: Some(iso_time(f.zxid)),
                            src_checksum: Some(String::new()),
                            version_major: Some(2),
                            version_minor: Some(6),
                        }),
                    },
                ),
                true,
            ),
            (
                at("running"),
                hbase_value(
                    &id,
                    &pb::ClusterUpZnode {
                        start_date: iso_time(f.zxid),
                    },
                ),
                false,
            ),
            (at("table"), Bytes::new(), false),
        ];
        values.extend(
            f.parent
                .ancestors()
                .map(|a| (a.to_string(), Bytes::new(), false)),
        );
        values.sort_by(|a, b| a.0.cmp(&b.0));
        let mut nodes: BTreeMap<String, Znode> = BTreeMap::new();
        for (path, data, ephemeral) in values {
            let stat = Stat {
                czxid: f.zxid,
                mzxid: f.zxid,
                ctime: f.zxid,
                mtime: f.zxid,
                ephemeral_owner: if ephemeral { f.owner } else { 0 },
                data_length: data.len() as i32,
                pzxid: f.zxid,
                ..Stat::default()
            };
            nodes.insert(
                path,
                Znode {
                    data,
                    children: Vec::new(),
                    stat,
                },
            );
        }
        let paths: Vec<String> = nodes.keys().cloned().collect();
        for path in paths {
            if let Some((parent, name)) = split(&path) {
                if let Some(p) = nodes.get_mut(parent) {
                    p.children.push(name.to_string());
                    p.stat.num_children += 1;
                    p.stat.cversion += 1;
                }
            }
        }
        Tree { nodes }
    }

    pub fn get(&self, path: &str) -> Option<&Znode> {
        self.nodes.get(path)
    }

    /// Every node under `path` (not counting it), as getAllChildrenNumber answers.
    pub fn descendants(&self, path: &str) -> usize {
        let prefix = if path == "/" {
            "/".to_string()
        } else {
            format!("{path}/")
        };
        self.nodes
            .keys()
            .filter(|k| k.as_str() != "/" && k.starts_with(&prefix))
            .count()
    }
}

/// A path's parent and last name; None for the root.
fn split(path: &str) -> Option<(&str, &str)> {
    if path == "/" {
        return None;
    }
    let at = path.rfind('/')?;
    Some((if at == 0 { "/" } else { &path[..at] }, &path[at + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unwrap_value(v: &[u8]) -> &[u8] {
        assert_eq!(v[0], 0xff);
        let id = u32::from_be_bytes(v[1..5].try_into().unwrap()) as usize;
        let rest = &v[5 + id..];
        assert_eq!(&rest[..4], b"PBUF");
        &rest[4..]
    }

    #[test]
    fn the_tree_holds_what_hbase_writes() {
        let server = ServerAddress {
            host: "db.example".into(),
            port: 16020,
            start_code: 42,
        };
        let t = Tree::hbase(&ClusterFacts {
            parent: &ZnodeParent::default(),
            cluster_id: "abc",
            server: &server,
            info_port: 8080,
            zxid: 1_700_000_000_000,
            owner: 7,
        });
        let root = t.get("/hbase").unwrap();
        assert!(root.children.contains(&"meta-region-server".to_string()));
        assert_eq!(root.stat.num_children as usize, root.children.len());
        let id = pb::ClusterIdZnode::decode(unwrap_value(&t.get("/hbase/hbaseid").unwrap().data))
            .unwrap();
        assert_eq!(id.cluster_id, "abc");
        let m =
            pb::MasterZnode::decode(unwrap_value(&t.get("/hbase/master").unwrap().data)).unwrap();
        assert_eq!(m.master.port, Some(16020));
        assert_eq!(t.get("/hbase/master").unwrap().stat.ephemeral_owner, 7);
        assert_eq!(
            t.get("/hbase/rs").unwrap().children,
            vec!["db.example,16020,42".to_string()]
        );
        assert_eq!(t.get("/").unwrap().children, vec!["hbase", "zookeeper"]);
        assert_eq!(t.descendants("/hbase/rs"), 1);
        assert!(t.get("/hbase/nope").is_none());
        assert_eq!(iso_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_time(951_782_400_000), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn a_nested_parent_holds_every_node_and_its_ancestors_lead_to_it() {
        let server = ServerAddress {
            host: "h".into(),
            port: 1,
            start_code: 2,
        };
        let parent = ZnodeParent::parse("/apps/hbase-unsecure").unwrap();
        let t = Tree::hbase(&ClusterFacts {
            parent: &parent,
            cluster_id: "abc",
            server: &server,
            info_port: 0,
            zxid: 1,
            owner: 7,
        });
        assert_eq!(t.get("/").unwrap().children, vec!["apps", "zookeeper"]);
        let apps = t.get("/apps").unwrap();
        assert_eq!(apps.children, vec!["hbase-unsecure"]);
        assert_eq!(apps.stat.num_children, 1);
        assert!(apps.data.is_empty());
        let base = t.get("/apps/hbase-unsecure").unwrap();
        for name in [
            "backup-masters",
            "hbaseid",
            "master",
            "meta-region-server",
            "rs",
            "running",
            "table",
        ] {
            assert!(base.children.iter().any(|c| c == name), "{name}");
            assert!(t.get(&parent.join(name)).is_some(), "{name}");
        }
        assert_eq!(
            t.get("/apps/hbase-unsecure/rs").unwrap().children,
            vec!["h,1,2"]
        );
        assert!(t.get("/apps/hbase-unsecure/rs/h,1,2").is_some());
        assert!(t.get("/hbase").is_none());
        assert!(t.get("/hbase/master").is_none());
        assert_eq!(t.descendants("/apps"), 9);
    }
}
