//! `zookeeper.znode.parent`: the znode HBase's nodes hang under. It is `/hbase` unless the
//! clients were set up otherwise (Ambari's clusters use `/hbase-unsecure` or `/hbase-secure`;
//! any path is possible). HBase appends `/` and a node's name to it as given, and ZooKeeper
//! refuses a path that is not absolute and clean, so the parent is checked with ZooKeeper's
//! rules for a path when the command line is read: a parent no client could ask for is an
//! error at start, not a responder that silently answers NONODE.

use std::fmt;

use super::znodes::PARENT;

/// A checked parent: absolute, not the root, no empty, `.` or `..` names, no trailing `/`, no
/// character ZooKeeper refuses, not in ZooKeeper's own `/zookeeper` subtree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZnodeParent(String);

impl Default for ZnodeParent {
    fn default() -> Self {
        ZnodeParent(PARENT.to_string())
    }
}

impl fmt::Display for ZnodeParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for ZnodeParent {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ZnodeParent::parse(s)
    }
}

/// A character ZooKeeper's path check refuses: NUL and the C0 and C1 controls, DEL, the
/// private-use area, U+FFF0 to U+FFFF, and (Java strings being UTF-16, which ZooKeeper checks
/// unit by unit) anything outside the Basic Multilingual Plane, which needs surrogates.
fn refused(c: char) -> bool {
    matches!(u32::from(c), 0..=0x1f | 0x7f..=0x9f | 0xe000..=0xf8ff | 0xfff0..)
}

impl ZnodeParent {
    /// Checks `s` as a parent, saying what is wrong and how a good one looks.
    pub fn parse(s: &str) -> Result<ZnodeParent, String> {
        let bad = |why: String| {
            Err(format!(
                "expected a ZooKeeper path such as /hbase, /hbase-unsecure or /apps/hbase (the \
                 clients' zookeeper.znode.parent), got {s:?}: {why}"
            ))
        };
        if s.is_empty() {
            return bad("it is empty".into());
        }
        if !s.starts_with('/') {
            return bad(format!("it must start with / (did you mean /{s}?)"));
        }
        if s == "/" {
            return bad(
                "the root cannot be the parent: HBase's nodes need a znode of their own".into(),
            );
        }
        if s.ends_with('/') {
            return bad(format!(
                "it must not end with / (did you mean {}?)",
                s.trim_end_matches('/')
            ));
        }
        if let Some((at, c)) = s.char_indices().find(|&(_, c)| refused(c)) {
            return bad(format!(
                "the character U+{:04X} at byte {at} is not allowed in a ZooKeeper path \
                 (control characters, private-use characters and characters past U+FFEF are not)",
                u32::from(c)
            ));
        }
        for name in s[1..].split('/') {
            match name {
                "" => return bad("it has an empty name (two / in a row)".into()),
                "." | ".." => {
                    return bad(format!(
                        "{name:?} is not allowed as a name: ZooKeeper paths are never relative"
                    ))
                }
                _ => {}
            }
        }
        if s == "/zookeeper" || s.starts_with("/zookeeper/") {
            return bad("/zookeeper is ZooKeeper's own subtree".into());
        }
        Ok(ZnodeParent(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path of `name` under the parent, joined as HBase's ZNodePaths joins it.
    pub fn join(&self, name: &str) -> String {
        format!("{}/{name}", self.0)
    }

    /// The znodes between the root and the parent, outermost first (`/apps` for
    /// `/apps/hbase`; none for `/hbase`): they exist too, so a client can walk down to it.
    pub fn ancestors(&self) -> impl Iterator<Item = &str> {
        self.0
            .match_indices('/')
            .skip(1)
            .map(move |(at, _)| &self.0[..at])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_zookeeper_accepts_are_taken() {
        for ok in [
            "/hbase",
            "/hbase-unsecure",
            "/hbase-secure",
            "/apps/hbase/data",
            "/a.b",
            "/...",
            "/.x",
            "/with space",
            "/ünïcode",
        ] {
            assert_eq!(ZnodeParent::parse(ok).unwrap().as_str(), ok);
        }
        assert_eq!(ZnodeParent::default().as_str(), "/hbase");
        assert_eq!(
            "/apps/hbase".parse::<ZnodeParent>().unwrap().join("rs"),
            "/apps/hbase/rs"
        );
    }

    #[test]
    fn parents_zookeeper_refuses_say_why() {
        for (bad, why) in [
            ("", "it is empty"),
            ("hbase", "did you mean /hbase?"),
            ("/", "the root cannot be the parent"),
            ("/hbase/", "did you mean /hbase?"),
            ("/hbase//x", "empty name"),
            ("/a/./b", "\".\" is not allowed"),
            ("/a/..", "\"..\" is not allowed"),
            ("/hb\0ase", "U+0000 at byte 3"),
            ("/hb\nase", "U+000A"),
            ("/hb\u{7f}", "U+007F"),
            ("/hb\u{e000}", "U+E000"),
            ("/hb\u{fff0}", "U+FFF0"),
            ("/hb\u{1f600}", "U+1F600"),
            ("/zookeeper", "ZooKeeper's own"),
            ("/zookeeper/hbase", "ZooKeeper's own"),
        ] {
            let e = ZnodeParent::parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
            assert!(e.contains("expected a ZooKeeper path"), "{bad:?}: {e}");
        }
        assert!(ZnodeParent::parse("/zookeeperish").is_ok());
    }

    #[test]
    fn ancestors_lead_down_to_the_parent() {
        let p = ZnodeParent::parse("/a/b/c").unwrap();
        assert_eq!(p.ancestors().collect::<Vec<_>>(), vec!["/a", "/a/b"]);
        assert_eq!(ZnodeParent::default().ancestors().count(), 0);
    }
}
