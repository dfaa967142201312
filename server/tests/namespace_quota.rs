//! Namespace quotas with `quota_enabled` (HBase's `hbase.quota.enabled`): a namespace's
//! `hbase.namespace.quota.maxtables` and `maxregions` refuse the tables and splits that would
//! pass them, with the words HBase 2.6.1 answers (observed on the oracle with the switch on).

mod common;

use std::time::{Duration, Instant};

use common::*;
use redbase::engine::*;

fn open(dir: &std::path::Path, quota_enabled: bool) -> Engine {
    let config = EngineConfig {
        quota_enabled,
        region_split_limit: 0,
        region_max_size: 16 * 1024,
        ..Default::default()
    };
    Engine::open(dir, config).unwrap()
}

fn namespace(e: &Engine, name: &str, quotas: &[(&str, &str)]) {
    let mut ns = NamespaceDescriptor::new(name);
    for (k, v) in quotas {
        ns.configuration.insert(k.to_string(), v.to_string());
    }
    if e.get_namespace(name).is_ok() {
        e.modify_namespace(ns).unwrap();
    } else {
        e.create_namespace(ns).unwrap();
    }
}

fn drop_table(e: &Engine, name: &str) {
    e.disable_table(name).unwrap();
    e.delete_table(name).unwrap();
}

fn refusal(r: Result<(), TableError>) -> String {
    let err = r.unwrap_err();
    assert!(matches!(err, TableError::QuotaExceeded(_)), "{err}");
    assert!(!err.kind().retryable(), "{err}");
    err.to_string()
}

#[test]
fn tables_past_a_namespace_quota_are_refused_in_hbase_words() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), true);
    namespace(&e, "qa", &[(NS_MAX_TABLES, "2"), (NS_MAX_REGIONS, "5")]);
    pre_split(&e, "qa:a", 1).unwrap();
    pre_split(&e, "qa:b", 3).unwrap();
    // Tables are counted first, whatever the regions.
    let msg = refusal(pre_split(&e, "qa:c", 1));
    assert_eq!(
        msg,
        "The table qa:c cannot be created as it would exceed maximum number of tables allowed  \
         in the namespace.  The total number of tables permitted is 2"
    );
    assert!(e.regions("qa:c").is_err(), "nothing of the table was made");
    // A dropped table frees its slot; now the regions: 3 held, 5 allowed.
    drop_table(&e, "qa:a");
    assert_eq!(
        refusal(pre_split(&e, "qa:c", 4)),
        "The table qa:c is not allowed to have 4 regions. The total number of regions permitted \
         is only 5, while current region count is 3. This may be transient, please retry later \
         if there are any ongoing split operations in the namespace."
    );
    pre_split(&e, "qa:c", 2).unwrap();
    assert_eq!(e.quota_refused(), 2);

    // Lowering a quota below what the namespace holds is allowed and takes nothing away;
    // truncating keeps the regions; only growth stops.
    namespace(&e, "qa", &[(NS_MAX_TABLES, "1"), (NS_MAX_REGIONS, "2")]);
    e.disable_table("qa:b").unwrap();
    e.truncate_table("qa:b", true).unwrap();
    assert_eq!(e.regions("qa:b").unwrap().len(), 3);
    assert!(refusal(pre_split(&e, "qa:d", 1)).contains("tables permitted is 1"));

    // Other namespaces, the default one included, are not limited.
    pre_split(&e, "big", 6).unwrap();
    namespace(&e, "qb", &[(NS_MAX_REGIONS, "3")]);
    assert!(refusal(pre_split(&e, "qb:x", 4)).contains("while current region count is 0."));
    pre_split(&e, "qb:x", 3).unwrap();
    assert!(refusal(pre_split(&e, "qb:y", 1))
        .starts_with("The table qb:y is not allowed to have 1 regions."));
    assert_eq!(e.quota_refused(), 5);
    // An empty value counts as unset.
    namespace(&e, "qb", &[(NS_MAX_REGIONS, "")]);
    pre_split(&e, "qb:y", 1).unwrap();
}

#[test]
fn without_the_switch_quotas_are_kept_but_not_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), false);
    namespace(&e, "qa", &[(NS_MAX_TABLES, "1"), (NS_MAX_REGIONS, "1")]);
    pre_split(&e, "qa:a", 3).unwrap();
    pre_split(&e, "qa:b", 1).unwrap();
    put(&e, "qa:a", "001-x", "f:q", 1, "v");
    e.split_region("qa:a", b"001-x", Some(b"001-y")).unwrap();
    assert_eq!(e.quota_refused(), 0);

    // Turned on at the next start: what is there stays and opens; growth stops.
    e.close();
    drop(e);
    let e = open(dir.path(), true);
    assert_eq!(e.regions("qa:a").unwrap().len(), 4);
    assert!(refusal(pre_split(&e, "qa:c", 1)).contains("tables permitted is 1"));
}

#[test]
fn splits_stop_at_a_namespace_region_quota() {
    let dir = tempfile::tempdir().unwrap();
    let e = open(dir.path(), true);
    namespace(&e, "qs", &[(NS_MAX_REGIONS, "3")]);
    pre_split(&e, "qs:t", 2).unwrap();
    put(&e, "qs:t", "001-a", "f:q", 1, "v");
    put(&e, "qs:t", "001-b", "f:q", 1, "v");
    // By hand: one split fits, the next does not.
    e.split_region("qs:t", b"001-a", Some(b"001-b")).unwrap();
    let err = e.split_region("qs:t", b"000", Some(b"000-m")).unwrap_err();
    assert!(matches!(err, TableError::QuotaExceeded(_)), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("namespace qs") && msg.contains("hbase.namespace.quota.maxregions = 3"),
        "{msg}"
    );
    assert_eq!(e.regions("qs:t").unwrap().len(), 3);

    // By size: about 300 KB into 16 KiB regions asks for many splits; none is made.
    let refused = e.quota_refused();
    for i in 0..600u32 {
        let row = format!("{:03}-{i}", (i * 7919) % 3);
        put(&e, "qs:t", &row, "f:q", 1, &"v".repeat(500));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while (e.quota_refused() == refused || e.splits_queued() > 0) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(e.quota_refused() > refused, "a size split was refused");
    assert_eq!(e.splits_queued(), 0);
    assert_eq!(e.regions("qs:t").unwrap().len(), 3);
    assert_eq!(scan_rows(&e, "qs:t", Scan::new()).len(), 602);

    // Raising the quota lets the next size split through.
    namespace(&e, "qs", &[(NS_MAX_REGIONS, "10")]);
    put(&e, "qs:t", "001-z", "f:q", 1, &"v".repeat(500));
    let deadline = Instant::now() + Duration::from_secs(30);
    while e.regions("qs:t").unwrap().len() == 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(e.regions("qs:t").unwrap().len() > 3, "a split followed");
}
