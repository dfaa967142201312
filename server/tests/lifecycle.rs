//! Namespaces and the table lifecycle; metadata survives restarts.

mod common;

use std::collections::BTreeMap;

use common::*;
use md5::Digest;
use redbase::engine::*;

fn reopen(dir: &tempfile::TempDir, e: Engine) -> Engine {
    e.close();
    drop(e);
    Engine::open(dir.path(), EngineConfig::default()).unwrap()
}

#[test]
fn namespaces() {
    let (dir, e) = engine();
    let names = |e: &Engine| {
        e.list_namespaces()
            .into_iter()
            .map(|n| n.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&e), vec!["default", "hbase"]);
    let mut ns = NamespaceDescriptor::new("logs");
    ns.configuration.insert("owner".into(), "ops".into());
    e.create_namespace(ns.clone()).unwrap();
    assert_eq!(
        e.create_namespace(ns.clone()),
        Err(NamespaceError::Exists("logs".into()))
    );
    ns.configuration.insert("tier".into(), "gold".into());
    e.modify_namespace(ns.clone()).unwrap();
    table(&e, "logs:access", vec![FamilyDescriptor::new(b"t")]);
    assert_eq!(
        e.delete_namespace("logs"),
        Err(NamespaceError::NotEmpty {
            name: "logs".into(),
            tables: 1
        })
    );
    assert_eq!(
        e.delete_namespace("default"),
        Err(NamespaceError::Reserved("default".into()))
    );
    let e = reopen(&dir, e);
    assert_eq!(e.get_namespace("logs").unwrap(), ns);
    assert_eq!(e.list_tables()[0].to_string(), "logs:access");
    e.disable_table("logs:access").unwrap();
    e.delete_table("logs:access").unwrap();
    e.delete_namespace("logs").unwrap();
    assert_eq!(
        e.get_namespace("logs"),
        Err(NamespaceError::NotFound("logs".into()))
    );
    let e = reopen(&dir, e);
    assert_eq!(names(&e), vec!["default", "hbase"]);
}

/// HBase's quota properties are checked when a namespace is created or modified: set and not
/// empty, each must be a whole number above zero; an empty one counts as unset. As in HBase
/// without `hbase.quota.enabled`, they are kept and not enforced.
#[test]
fn namespace_quota_properties_are_checked_as_hbase_checks_them() {
    let (_dir, e) = engine();
    let with = |k: &str, v: &str| {
        let mut ns = NamespaceDescriptor::new("q");
        ns.configuration.insert(k.into(), v.into());
        ns
    };
    for (k, v, says) in [
        (NS_MAX_REGIONS, "0", "must be above zero"),
        (NS_MAX_REGIONS, "-5", "must be above zero"),
        (NS_MAX_TABLES, "0", "must be above zero"),
        (NS_MAX_REGIONS, "ten", "not a whole number"),
        (NS_MAX_TABLES, " 3", "not a whole number"),
        (NS_MAX_TABLES, "99999999999999999999", "not a whole number"),
    ] {
        let err = e.create_namespace(with(k, v)).unwrap_err();
        assert!(
            matches!(err, NamespaceError::InvalidQuota { .. }),
            "{k}={v}: {err}"
        );
        assert!(
            err.to_string().contains(k) && err.to_string().contains(says),
            "{err}"
        );
        assert!(!err.kind().retryable(), "{err}");
        assert!(e.get_namespace("q").is_err(), "{k}={v} made no namespace");
    }
    e.create_namespace(with(NS_MAX_REGIONS, "")).unwrap();
    e.modify_namespace(with(NS_MAX_REGIONS, "+2")).unwrap();
    let err = e.modify_namespace(with(NS_MAX_TABLES, "0")).unwrap_err();
    assert!(matches!(err, NamespaceError::InvalidQuota { .. }), "{err}");
    assert_eq!(e.get_namespace("q").unwrap(), with(NS_MAX_REGIONS, "+2"));
    // Not enforced: three regions in a namespace whose quota says two.
    let splits = [b"b".to_vec(), b"c".to_vec()];
    let d = TableDescriptor::new(TableName::parse("q:t").unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    e.create_table(d, &splits).unwrap();
    assert_eq!(e.regions("q:t").unwrap().len(), 3);
}

fn full_family() -> FamilyDescriptor {
    let mut f = FamilyDescriptor::new(b"fb")
        .max_versions(5)
        .min_versions(1)
        .ttl(86_400)
        .keep_deleted(KeepDeletedCells::Ttl);
    f.compression = "SNAPPY".into();
    f.bloom_filter = "ROWCOL".into();
    f.block_size = 131072;
    f.in_memory = true;
    f.block_cache_enabled = false;
    f.data_block_encoding = "FAST_DIFF".into();
    f.scope = 1;
    f.attributes.insert(b"custom".to_vec(), vec![0, 255, 7]);
    f.configuration
        .insert("hbase.hstore.blockingStoreFiles".into(), "20".into());
    f
}

#[test]
fn descriptors_round_trip_exactly_and_survive_restart() {
    let (dir, e) = engine();
    let mut d = TableDescriptor::new(TableName::parse("social").unwrap())
        .with_family(full_family())
        .with_family(FamilyDescriptor::new(b"tw"));
    d.attributes.insert(b"OWNER".to_vec(), b"growth".to_vec());
    d.configuration.insert("split.policy".into(), "x".into());
    e.create_table(d.clone(), &[]).unwrap();
    // The one key creation adds, as HBase's master does.
    d.attributes.insert(
        b"hbase.store.file-tracker.impl".to_vec(),
        b"DEFAULT".to_vec(),
    );
    assert_eq!(e.describe_table("social").unwrap(), d);
    let e = reopen(&dir, e);
    assert_eq!(e.describe_table("social").unwrap(), d);
    assert_eq!(e.describe_table("default:social").unwrap(), d);
}

#[test]
fn create_with_split_keys_names_regions_like_hbase() {
    let (_dir, e) = engine();
    let splits: Vec<Vec<u8>> = "123456789abcdef".chars().map(|c| vec![c as u8]).collect();
    let d = TableDescriptor::new(TableName::parse("access-logs").unwrap())
        .with_family(FamilyDescriptor::new(b"t"));
    e.create_table(d, &splits).unwrap();
    let regions = e.regions("access-logs").unwrap();
    assert_eq!(regions.len(), 16);
    assert!(regions[0].meta.start.is_empty());
    assert_eq!(regions[15].meta.end, Vec::<u8>::new());
    for w in regions.windows(2) {
        assert_eq!(w[0].meta.end, w[1].meta.start);
    }
    // HBase's format: table,startKey,id.<md5 hex of "table,startKey,id">.
    let base = format!("access-logs,1,{}", regions[1].meta.id);
    let md5: String = md5::Md5::digest(base.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(regions[1].name, format!("{base}.{md5}."));
    // Rows land in the region their first hex character names.
    put(&e, "access-logs", "16108|jericho|201510", "t:v", 1, "x");
    let r = e.region_of("access-logs", b"16108|jericho|201510").unwrap();
    assert_eq!(r.meta.start, b"1");
    assert_eq!(r.writes, 1);
}

#[test]
fn enable_disable_truncate_delete() {
    let (dir, e) = engine();
    let d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    e.create_table(d, &[b"m".to_vec()]).unwrap();
    put(&e, "t", "a", "f:q", 1, "1");
    put(&e, "t", "z", "f:q", 1, "2");
    assert!(e.is_table_enabled("t").unwrap());
    assert_eq!(
        e.enable_table("t"),
        Err(TableError::AlreadyEnabled("t".into()))
    );
    assert_eq!(
        e.truncate_table("t", true),
        Err(TableError::NotDisabled("t".into()))
    );
    e.disable_table("t").unwrap();
    assert_eq!(
        e.disable_table("t"),
        Err(TableError::AlreadyDisabled("t".into()))
    );
    let e = reopen(&dir, e);
    assert!(
        !e.is_table_enabled("t").unwrap(),
        "disabled state survives restart"
    );
    e.truncate_table("t", true).unwrap();
    assert!(
        e.is_table_enabled("t").unwrap(),
        "truncate leaves the table enabled, as HBase does"
    );
    assert!(scan_rows(&e, "t", Scan::new()).is_empty());
    let starts: Vec<Vec<u8>> = e
        .regions("t")
        .unwrap()
        .into_iter()
        .map(|r| r.meta.start)
        .collect();
    assert_eq!(starts, vec![b"".to_vec(), b"m".to_vec()]);
    put(&e, "t", "a", "f:q", 1, "1");
    e.disable_table("t").unwrap();
    e.truncate_table("t", false).unwrap();
    assert_eq!(e.regions("t").unwrap().len(), 1);
    assert!(scan_rows(&e, "t", Scan::new()).is_empty());
    e.disable_table("t").unwrap();
    e.delete_table("t").unwrap();
    assert!(!e.table_exists("t"));
    assert!(
        !dir.path().join("tables/default/t").exists(),
        "files removed"
    );
    let e = reopen(&dir, e);
    assert!(!e.table_exists("t"));
    // A new table of the same name starts empty.
    table(&e, "t", vec![FamilyDescriptor::new(b"f")]);
    assert!(scan_rows(&e, "t", Scan::new()).is_empty());
}

#[test]
fn families_are_added_modified_and_removed() {
    let (dir, e) = engine();
    table(&e, "t", vec![FamilyDescriptor::new(b"a")]);
    e.add_family("t", FamilyDescriptor::new(b"b")).unwrap();
    assert!(matches!(
        e.add_family("t", FamilyDescriptor::new(b"b")),
        Err(TableError::FamilyExists { .. })
    ));
    put(&e, "t", "r", "b:q", 1, "v1");
    put(&e, "t", "r", "b:q", 2, "v2");
    e.modify_family("t", FamilyDescriptor::new(b"b").max_versions(3))
        .unwrap();
    assert_eq!(
        values(&e, "t", "r", ReadOptions::default().versions(3)),
        vec!["v2", "v1"]
    );
    assert!(matches!(
        e.modify_family("t", FamilyDescriptor::new(b"zz")),
        Err(TableError::FamilyNotFound { .. })
    ));
    e.delete_family("t", b"b").unwrap();
    assert!(matches!(
        e.delete_family("t", b"a"),
        Err(TableError::LastFamily(_))
    ));
    assert!(matches!(
        e.get("t", Get::with(b"r", ReadOptions::default().family(b"b"))),
        Err(ReadError::NoSuchFamily { .. })
    ));
    // Re-adding the family starts it empty: its cells went with it.
    e.add_family("t", FamilyDescriptor::new(b"b")).unwrap();
    assert!(e.get("t", Get::new(b"r")).unwrap().is_none());
    // modify_table replaces the whole descriptor.
    let mut d = e.describe_table("t").unwrap();
    d.families.remove(b"b".as_slice());
    d = d.with_family(FamilyDescriptor::new(b"c").max_versions(2));
    d.attributes.insert(b"k".to_vec(), b"v".to_vec());
    e.modify_table(d.clone()).unwrap();
    let e = reopen(&dir, e);
    assert_eq!(e.describe_table("t").unwrap(), d);
    let fams: BTreeMap<_, _> = d.families.clone();
    assert_eq!(
        fams.keys().cloned().collect::<Vec<_>>(),
        vec![b"a".to_vec(), b"c".to_vec()]
    );
}

#[test]
fn cluster_id_is_stable_across_restarts() {
    let (dir, e) = engine();
    let id = e.cluster_id().to_string();
    assert_eq!(id.len(), 36);
    let e = reopen(&dir, e);
    assert_eq!(e.cluster_id(), id);
}

/// A write after the engine began closing fails at once with `ShuttingDown`, not after a
/// second of retries and not as a region that is being replaced.
#[test]
fn writes_after_close_say_the_engine_is_shutting_down() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineConfig::default()).unwrap();
    let d = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(FamilyDescriptor::new(b"f"));
    e.create_table(d, &[]).unwrap();
    e.close();
    let err = e
        .mutate_row("t", RowMutation::new(b"r").with(Op::put(b"f", b"q", b"v")))
        .unwrap_err();
    assert_eq!(err, MutateError::ShuttingDown);
}
