//! Schema drift: how a live table (as a Thrift2 gateway describes it, redbase's or HBase's)
//! differs from its schema. `redbase schema diff` prints these, `redbase schema apply` fixes the
//! ones it can, and every SDK's `ensure()` applies the same rules at start-up (docs/schema.md,
//! "Schema drift").
//!
//! The rules: a table or family the schema has and the live table lacks is missing; a live
//! family the schema lacks is extra. A family setting differs when the schema sets it and the
//! live value is another; five settings the schema may leave unset are compared with HBase's
//! default, since leaving them unset means that default (VERSIONS 1, MIN_VERSIONS 0, TTL
//! FOREVER, KEEP_DELETED_CELLS FALSE, COMPRESSION NONE); the others only when set. A live value
//! the gateway does not report counts as its default. The split points differ when the live
//! region start keys are not the schema's split keys.

use std::fmt;

use crate::model::{FamilySettings, Table};

/// TTL FOREVER: HBase's `HConstants.FOREVER`, the time to live of a family without one.
pub const FOREVER: i32 = i32::MAX;

/// A live table as the gateway describes it.
#[derive(Debug, Clone, Default)]
pub struct LiveTable {
    /// Families with every setting the gateway reported (enum settings by Thrift2 name).
    pub families: Vec<(String, FamilySettings)>,
    /// The region start keys after the first, ascending.
    pub splits: Vec<Vec<u8>>,
}

/// One difference between a schema's table and the live one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    MissingTable,
    MissingFamily(String),
    ExtraFamily(String),
    /// A family setting (HBase shell name: `VERSIONS`, `TTL`, ...) with the schema's value and
    /// the live one, as the shell writes them.
    Setting {
        family: String,
        setting: String,
        schema: String,
        live: String,
    },
    Splits {
        schema: Vec<Vec<u8>>,
        live: Vec<Vec<u8>>,
    },
}

/// What `apply` does about a drift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fix {
    CreateTable,
    AddFamily,
    ModifyFamily,
    /// Only with `--allow-drop`: it deletes the family's data.
    DropFamily,
    /// Nothing a gateway offers: split points are fixed when a table is created.
    None,
}

impl Drift {
    pub fn fix(&self) -> Fix {
        match self {
            Drift::MissingTable => Fix::CreateTable,
            Drift::MissingFamily(_) => Fix::AddFamily,
            Drift::Setting { .. } => Fix::ModifyFamily,
            Drift::ExtraFamily(_) => Fix::DropFamily,
            Drift::Splits { .. } => Fix::None,
        }
    }
}

impl fmt::Display for Drift {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Drift::MissingTable => {
                write!(f, "missing table (the schema has it, the gateway does not)")
            }
            Drift::MissingFamily(name) => write!(f, "missing family {name}"),
            Drift::ExtraFamily(name) => write!(f, "extra family {name} (not in the schema)"),
            Drift::Setting {
                family,
                setting,
                schema,
                live,
            } => write!(
                f,
                "family {family}: {setting} is {live}, the schema says {schema}"
            ),
            Drift::Splits { schema, live } => write!(
                f,
                "split points are {}, the schema says {}",
                shown(live),
                shown(schema)
            ),
        }
    }
}

/// Split keys as the HBase shell shows them: `['1', '2', "\x00"]`.
fn shown(keys: &[Vec<u8>]) -> String {
    let one = |k: &Vec<u8>| {
        let mut s = String::from("'");
        for &b in k {
            if b.is_ascii_graphic() && b != b'\'' && b != b'\\' {
                s.push(b as char);
            } else {
                s.push_str(&format!("\\x{b:02X}"));
            }
        }
        s.push('\'');
        s
    };
    format!("[{}]", keys.iter().map(one).collect::<Vec<_>>().join(", "))
}

/// How table `t` of the schema differs from `live` (`None`: the gateway has no such table).
pub fn diff(t: &Table, live: Option<&LiveTable>) -> Vec<Drift> {
    let Some(live) = live else {
        return vec![Drift::MissingTable];
    };
    let mut out = Vec::new();
    for f in &t.families {
        match live.families.iter().find(|(n, _)| *n == f.name) {
            None => out.push(Drift::MissingFamily(f.name.clone())),
            Some((_, have)) => {
                for (setting, schema, live) in settings(&f.settings, have) {
                    out.push(Drift::Setting {
                        family: f.name.clone(),
                        setting,
                        schema,
                        live,
                    });
                }
            }
        }
    }
    for (name, _) in &live.families {
        if !t.families.iter().any(|f| &f.name == name) {
            out.push(Drift::ExtraFamily(name.clone()));
        }
    }
    if t.splits != live.splits {
        out.push(Drift::Splits {
            schema: t.splits.clone(),
            live: live.splits.clone(),
        });
    }
    out
}

/// The settings that differ: (shell name, schema value, live value).
fn settings(want: &FamilySettings, have: &FamilySettings) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let mut cmp =
        |name: &str, want: Option<String>, have: Option<String>, default: Option<&str>| {
            let want = want.or_else(|| default.map(str::to_string));
            let Some(want) = want else {
                return;
            };
            let have = have.or_else(|| default.map(str::to_string));
            if let Some(have) = have {
                if have != want {
                    out.push((name.to_string(), want, have));
                }
            }
        };
    let num = |v: Option<i32>| v.map(|v| v.to_string());
    // The shell's spelling: FOREVER for no time to live.
    let ttl = |v: Option<i32>| {
        v.map(|v| {
            if v == FOREVER {
                "FOREVER".to_string()
            } else {
                v.to_string()
            }
        })
    };
    cmp(
        "VERSIONS",
        num(want.max_versions),
        num(have.max_versions),
        Some("1"),
    );
    cmp(
        "MIN_VERSIONS",
        num(want.min_versions),
        num(have.min_versions),
        Some("0"),
    );
    cmp(
        "TTL",
        ttl(want.ttl_seconds),
        ttl(have.ttl_seconds),
        Some("FOREVER"),
    );
    cmp(
        "KEEP_DELETED_CELLS",
        want.keep_deleted_cells.clone(),
        have.keep_deleted_cells.clone(),
        Some("FALSE"),
    );
    cmp(
        "COMPRESSION",
        want.compression.clone(),
        have.compression.clone(),
        Some("NONE"),
    );
    let flag = |v: Option<bool>| v.map(|b| b.to_string());
    cmp(
        "IN_MEMORY",
        flag(want.in_memory),
        flag(have.in_memory),
        None,
    );
    cmp(
        "BLOCKCACHE",
        flag(want.block_cache),
        flag(have.block_cache),
        None,
    );
    cmp(
        "BLOCKSIZE",
        num(want.block_size),
        num(have.block_size),
        None,
    );
    cmp(
        "BLOOMFILTER",
        want.bloom_filter.clone(),
        have.bloom_filter.clone(),
        None,
    );
    cmp(
        "DATA_BLOCK_ENCODING",
        want.data_block_encoding.clone(),
        have.data_block_encoding.clone(),
        None,
    );
    cmp("REPLICATION_SCOPE", num(want.scope), num(have.scope), None);
    cmp(
        "DFS_REPLICATION",
        want.dfs_replication.map(|v| v.to_string()),
        have.dfs_replication.map(|v| v.to_string()),
        None,
    );
    for (k, v) in &want.configuration {
        let live = have
            .configuration
            .iter()
            .find(|(lk, _)| lk == k)
            .map(|(_, lv)| lv.clone());
        let shown_live = live.clone().unwrap_or_else(|| "unset".into());
        if live.as_deref() != Some(v.as_str()) {
            out.push((format!("CONFIGURATION {k}"), v.clone(), shown_live));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load_sources;

    fn table(text: &str) -> Table {
        let m = load_sources(&[("t.toml".into(), text.to_string())], None).unwrap();
        m.tables.into_iter().next().unwrap()
    }

    const SCHEMA: &str = r#"
[tables.t.families.a]
max_versions = 3
ttl_seconds = 600
compression = "gz"
[tables.t.families.b]
[tables.t.key]
layout = "binary"
components = [{ name = "k", type = "string" }]
hash = { components = ["k"], hex_chars = 1 }
"#;

    fn live(a: FamilySettings, extra: bool) -> LiveTable {
        let mut families = vec![
            ("a".to_string(), a),
            ("b".to_string(), FamilySettings::default()),
        ];
        if extra {
            families.push(("x".to_string(), FamilySettings::default()));
        }
        LiveTable {
            families,
            splits: (1..16).map(|i| format!("{i:x}").into_bytes()).collect(),
        }
    }

    #[test]
    fn a_matching_table_has_no_drift_and_unset_defaults_count() {
        let t = table(SCHEMA);
        let a = FamilySettings {
            max_versions: Some(3),
            ttl_seconds: Some(600),
            compression: Some("GZ".into()),
            min_versions: Some(0),
            keep_deleted_cells: Some("FALSE".into()),
            block_size: Some(65536),
            ..Default::default()
        };
        assert_eq!(diff(&t, Some(&live(a, false))), []);
        assert_eq!(diff(&t, None), [Drift::MissingTable]);
    }

    #[test]
    fn every_kind_of_drift_is_named() {
        let t = table(SCHEMA);
        let a = FamilySettings {
            max_versions: Some(1),
            ttl_seconds: Some(FOREVER),
            compression: Some("GZ".into()),
            keep_deleted_cells: Some("TRUE".into()),
            ..Default::default()
        };
        let mut l = live(a, true);
        l.families.retain(|(n, _)| n != "b");
        l.splits.pop();
        let got: Vec<String> = diff(&t, Some(&l)).iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "family a: VERSIONS is 1, the schema says 3",
                "family a: TTL is FOREVER, the schema says 600",
                "family a: KEEP_DELETED_CELLS is TRUE, the schema says FALSE",
                "missing family b",
                "extra family x (not in the schema)",
                "split points are ['1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e'], the schema says ['1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f']",
            ]
        );
        let fixes: Vec<Fix> = diff(&t, Some(&l)).iter().map(Drift::fix).collect();
        assert!(fixes.contains(&Fix::DropFamily) && fixes.contains(&Fix::None));
    }
}
