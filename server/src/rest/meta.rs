//! The models about the cluster and its tables: `Version`, `ClusterVersion`, `ClusterStatus`,
//! `TableList`, `TableSchema` (with its `ColumnSchema`s), `TableInfo` (regions), `Namespaces`
//! and `NamespaceProperties`, each in JSON, XML and HBase's plain-text form, and the two that
//! clients send (schemas, namespace properties) read back from JSON and XML.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::model::{b64, list, opt_str};
use super::xml::Element;

/// The HBase release whose REST API this is, reported as the cluster version.
pub const HBASE_VERSION: &str = "2.6.1";

/// The version of HBase's REST protocol its `/version` reports (HBase's `RESTServlet`).
pub const REST_VERSION: &str = "0.0.3";

/// `/version`: the REST server's versions (HBase 2.6's seven fields). Where HBase names its
/// JVM and web server, redbase names itself; the OS is written as Java writes it.
pub struct VersionM {
    pub rest: String,
    pub jvm: String,
    pub os: String,
    pub server: String,
    pub jersey: String,
    pub version: String,
    pub revision: String,
}

/// The OS as Java's `os.name os.version os.arch` ("Linux 6.1.0 amd64").
fn java_os() -> String {
    let name = match std::env::consts::OS {
        "linux" => "Linux".to_string(),
        "macos" => "Mac OS X".to_string(),
        "windows" => "Windows".to_string(),
        other => other.to_string(),
    };
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "i386",
        other => other,
    };
    [name, release, arch.to_string()]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl VersionM {
    pub fn ours() -> VersionM {
        VersionM {
            rest: REST_VERSION.into(),
            jvm: format!("redbase {} (Rust, no JVM)", env!("CARGO_PKG_VERSION")),
            os: java_os(),
            server: format!("redbase/{}", env!("CARGO_PKG_VERSION")),
            // HBase's shaded Jersey reports no version either.
            jersey: String::new(),
            version: HBASE_VERSION.into(),
            revision: format!("redbase-{}", env!("CARGO_PKG_VERSION")),
        }
    }
    pub fn to_json(&self) -> Value {
        json!({"Server": self.server, "Jersey": self.jersey, "Version": self.version,
               "Revision": self.revision, "REST": self.rest, "JVM": self.jvm, "OS": self.os})
    }
    pub fn to_xml(&self) -> Element {
        Element::new("Version")
            .attr("JVM", &self.jvm)
            .attr("Jersey", &self.jersey)
            .attr("OS", &self.os)
            .attr("REST", &self.rest)
            .attr("Revision", &self.revision)
            .attr("Server", &self.server)
            .attr("Version", &self.version)
    }
    pub fn to_text(&self) -> String {
        format!(
            "rest {} [JVM: {}] [OS: {}] [Server: {}] [Jersey: {}] [Version: {}] [Revision: {}]\n",
            self.rest, self.jvm, self.os, self.server, self.jersey, self.version, self.revision
        )
    }
}

/// `/version/cluster`.
pub fn cluster_version_json() -> Value {
    json!({ "Version": HBASE_VERSION })
}
pub fn cluster_version_xml() -> Element {
    Element::new("ClusterVersion").attr("Version", HBASE_VERSION)
}

/// Table names, as `/`, `/namespaces/{ns}/tables` list them.
pub struct TableListM(pub Vec<String>);

impl TableListM {
    pub fn to_json(&self) -> Value {
        let t: Vec<Value> = self.0.iter().map(|n| json!({ "name": n })).collect();
        json!({ "table": t })
    }
    pub fn to_xml(&self) -> Element {
        self.0.iter().fold(Element::new("TableList"), |e, n| {
            e.child(Element::new("table").attr("name", n))
        })
    }
    pub fn to_text(&self) -> String {
        self.0.iter().map(|n| format!("{n}\n")).collect()
    }
}

/// `/namespaces`.
pub struct NamespacesM(pub Vec<String>);

impl NamespacesM {
    pub fn to_json(&self) -> Value {
        json!({ "Namespace": self.0 })
    }
    pub fn to_xml(&self) -> Element {
        self.0.iter().fold(Element::new("Namespaces"), |e, n| {
            e.child(Element::new("Namespace").text(n.clone()))
        })
    }
    pub fn to_text(&self) -> String {
        self.0.iter().map(|n| format!("{n}\n")).collect()
    }
}

/// `/namespaces/{ns}`: the namespace's configuration.
#[derive(Debug, Default)]
pub struct NamespacePropsM(pub BTreeMap<String, String>);

impl NamespacePropsM {
    pub fn to_json(&self) -> Value {
        if self.0.is_empty() {
            return json!({ "properties": null });
        }
        json!({ "properties": self.0 })
    }
    pub fn to_xml(&self) -> Element {
        let mut root = Element::new("NamespaceProperties");
        if !self.0.is_empty() {
            let props = self.0.iter().fold(Element::new("properties"), |e, (k, v)| {
                e.child(
                    Element::new("entry")
                        .child(Element::new("key").text(k.clone()))
                        .child(Element::new("value").text(v.clone())),
                )
            });
            root = root.child(props);
        }
        root
    }
    pub fn to_text(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{{{k}={v}}}\n"))
            .collect()
    }
    pub fn from_json(v: &Value) -> Result<NamespacePropsM, String> {
        let o = v
            .as_object()
            .ok_or("NamespaceProperties must be a JSON object")?;
        let mut m = BTreeMap::new();
        if let Some(p) = o.get("properties").filter(|p| !p.is_null()) {
            let p = p.as_object().ok_or("properties must be a JSON object")?;
            for (k, v) in p {
                let v = v
                    .as_str()
                    .ok_or_else(|| format!("property {k} must be a string"))?;
                m.insert(k.clone(), v.to_string());
            }
        }
        Ok(NamespacePropsM(m))
    }
    pub fn from_xml(e: &Element) -> Result<NamespacePropsM, String> {
        let mut m = BTreeMap::new();
        for p in e.all("properties") {
            for entry in p.all("entry") {
                let k = entry
                    .first("key")
                    .map(|k| k.text.clone())
                    .unwrap_or_default();
                let v = entry
                    .first("value")
                    .map(|v| v.text.clone())
                    .unwrap_or_default();
                m.insert(k, v);
            }
        }
        Ok(NamespacePropsM(m))
    }
}

/// A family as `ColumnSchema`: its name and HBase's values map, every value a string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnSchemaM {
    pub name: String,
    pub attrs: BTreeMap<String, String>,
}

/// A table as `TableSchema`: its name, table values, and families.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableSchemaM {
    pub name: String,
    pub attrs: BTreeMap<String, String>,
    pub columns: Vec<ColumnSchemaM>,
}

/// Keys the REST models print as attributes but that no descriptor stores.
const DERIVED: [&str; 3] = ["IS_META", "IS_ROOT", "READONLY"];

fn attrs_of(o: &Map<String, Value>) -> Result<BTreeMap<String, String>, String> {
    let mut m = BTreeMap::new();
    for (k, v) in o {
        if k == "name" || k == "ColumnSchema" || DERIVED.contains(&k.as_str()) {
            continue;
        }
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => {
                return Err(format!(
                    "schema attribute {k} must be a string, not {other}"
                ))
            }
        };
        m.insert(k.clone(), s);
    }
    Ok(m)
}

impl TableSchemaM {
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("name".into(), json!(self.name));
        for (k, v) in &self.attrs {
            o.insert(k.clone(), json!(v));
        }
        o.insert("IS_META".into(), json!(self.is_meta().to_string()));
        let cols: Vec<Value> = self
            .columns
            .iter()
            .map(|c| {
                let mut co = Map::new();
                co.insert("name".into(), json!(c.name));
                for (k, v) in &c.attrs {
                    co.insert(k.clone(), json!(v));
                }
                Value::Object(co)
            })
            .collect();
        o.insert("ColumnSchema".into(), Value::Array(cols));
        Value::Object(o)
    }

    fn is_meta(&self) -> bool {
        self.name == "hbase:meta"
    }

    pub fn to_xml(&self) -> Element {
        let mut e = Element::new("TableSchema").attr("name", &self.name);
        for (k, v) in &self.attrs {
            e = e.attr(k, v);
        }
        e = e.attr("IS_META", self.is_meta().to_string());
        for c in &self.columns {
            let mut ce = Element::new("ColumnSchema").attr("name", &c.name);
            for (k, v) in &c.attrs {
                ce = ce.attr(k, v);
            }
            e = e.child(ce);
        }
        e
    }

    /// HBase's `TableSchemaModel.toString`: `{ NAME=> 't', ..., COLUMNS => [ { NAME => 'cf', ... } ] }`.
    pub fn to_text(&self) -> String {
        let mut s = format!("{{ NAME=> '{}', IS_META => '{}'", self.name, self.is_meta());
        for (k, v) in &self.attrs {
            s.push_str(&format!(", {k} => '{v}'"));
        }
        s.push_str(", COLUMNS => [ ");
        let cols: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                let mut cs = format!("{{ NAME => '{}'", c.name);
                for (k, v) in &c.attrs {
                    cs.push_str(&format!(", {k} => '{v}'"));
                }
                cs.push_str(" }");
                cs
            })
            .collect();
        s.push_str(&cols.join(", "));
        s.push_str(" ] }");
        s
    }

    pub fn from_json(v: &Value) -> Result<TableSchemaM, String> {
        let o = v.as_object().ok_or("a TableSchema must be a JSON object")?;
        let mut m = TableSchemaM {
            name: opt_str(o, "name")?.unwrap_or_default().to_string(),
            attrs: attrs_of(o)?,
            columns: Vec::new(),
        };
        for c in list(o, "ColumnSchema")? {
            let co = c
                .as_object()
                .ok_or("each ColumnSchema must be a JSON object")?;
            let name = opt_str(co, "name")?.ok_or("a ColumnSchema needs a name")?;
            m.columns.push(ColumnSchemaM {
                name: name.to_string(),
                attrs: attrs_of(co)?,
            });
        }
        Ok(m)
    }

    pub fn from_xml(e: &Element) -> Result<TableSchemaM, String> {
        if e.name != "TableSchema" {
            return Err(format!(
                "expected a <TableSchema> document, not <{}>",
                e.name
            ));
        }
        let pick = |el: &Element| -> BTreeMap<String, String> {
            el.attrs
                .iter()
                .filter(|(k, _)| k != "name" && !DERIVED.contains(&k.as_str()))
                .cloned()
                .collect()
        };
        let mut m = TableSchemaM {
            name: e.get("name").unwrap_or_default().to_string(),
            attrs: pick(e),
            columns: Vec::new(),
        };
        for c in e.all("ColumnSchema") {
            let name = c.get("name").ok_or("a ColumnSchema needs a name")?;
            m.columns.push(ColumnSchemaM {
                name: name.to_string(),
                attrs: pick(c),
            });
        }
        Ok(m)
    }
}

/// One region of `/{table}/regions`.
pub struct RegionM {
    pub id: u64,
    pub name: String,
    pub start: Vec<u8>,
    pub end: Vec<u8>,
    pub location: String,
}

/// `/{table}/regions`: HBase's `TableInfo`.
pub struct TableInfoM {
    pub name: String,
    pub regions: Vec<RegionM>,
}

impl TableInfoM {
    pub fn to_json(&self) -> Value {
        let regions: Vec<Value> = self
            .regions
            .iter()
            .map(|r| {
                json!({"id": r.id, "name": r.name, "startKey": b64(&r.start),
                       "endKey": b64(&r.end), "location": r.location})
            })
            .collect();
        json!({ "name": self.name, "Region": regions })
    }
    pub fn to_xml(&self) -> Element {
        self.regions.iter().fold(
            Element::new("TableInfo").attr("name", &self.name),
            |e, r| {
                e.child(
                    Element::new("Region")
                        .attr("endKey", b64(&r.end))
                        .attr("id", r.id.to_string())
                        .attr("location", &r.location)
                        .attr("name", &r.name)
                        .attr("startKey", b64(&r.start)),
                )
            },
        )
    }
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for r in &self.regions {
            s.push_str(&format!(
                "{} [\n  id={}\n  startKey='{}'\n  endKey='{}'\n  location='{}'\n]\n",
                r.name,
                r.id,
                String::from_utf8_lossy(&r.start),
                String::from_utf8_lossy(&r.end),
                r.location
            ));
        }
        s
    }
}

/// One region in `/status/cluster`, in HBase's units. A region is one file holding all its
/// families, with no memstore or HFile indexes, so those figures are 0.
pub struct StatusRegionM {
    pub name: Vec<u8>,
    pub stores: usize,
    pub store_files: usize,
    pub store_file_size_mb: u64,
    pub read_requests: u64,
    pub write_requests: u64,
}

/// `/status/cluster`: one live node (this server) and its regions. `heap_mb` is the
/// process's resident memory, `max_heap_mb` its configured memory budget (both MB).
pub struct ClusterStatusM {
    pub node: String,
    pub start_code: i64,
    pub requests: u64,
    pub heap_mb: u64,
    pub max_heap_mb: u64,
    pub regions: Vec<StatusRegionM>,
}

/// The region fields HBase reports that are always 0 here, in HBase's JSON order after the
/// counted ones.
const ZERO_REGION_FIELDS: [&str; 6] = [
    "storefileIndexSizeKB",
    "rootIndexSizeKB",
    "totalStaticIndexSizeKB",
    "totalStaticBloomSizeKB",
    "totalCompactingKVs",
    "currentCompactedKVs",
];

impl ClusterStatusM {
    pub fn average_load(&self) -> f64 {
        self.regions.len() as f64
    }
    pub fn to_json(&self) -> Value {
        let regions: Vec<Value> = self
            .regions
            .iter()
            .map(|r| {
                let mut o = Map::new();
                o.insert("name".into(), json!(b64(&r.name)));
                o.insert("stores".into(), json!(r.stores));
                o.insert("storefiles".into(), json!(r.store_files));
                o.insert("storefileSizeMB".into(), json!(r.store_file_size_mb));
                o.insert("storefileIndexSizeKB".into(), json!(0));
                o.insert("readRequestsCount".into(), json!(r.read_requests));
                o.insert("writeRequestsCount".into(), json!(r.write_requests));
                for k in &ZERO_REGION_FIELDS[1..] {
                    o.insert((*k).into(), json!(0));
                }
                o.insert("memStoreSizeMB".into(), json!(0));
                Value::Object(o)
            })
            .collect();
        json!({
            "LiveNodes": [{"name": self.node, "startCode": self.start_code,
                           "requests": self.requests, "heapSizeMB": self.heap_mb,
                           "maxHeapSizeMB": self.max_heap_mb, "Region": regions}],
            "DeadNodes": [],
            "regions": self.regions.len(),
            "requests": self.requests,
            "averageLoad": self.average_load(),
        })
    }
    pub fn to_xml(&self) -> Element {
        let node = self.regions.iter().fold(
            Element::new("Node")
                .attr("heapSizeMB", self.heap_mb.to_string())
                .attr("maxHeapSizeMB", self.max_heap_mb.to_string())
                .attr("name", &self.node)
                .attr("requests", self.requests.to_string())
                .attr("startCode", self.start_code.to_string()),
            |n, r| {
                n.child(
                    Element::new("Region")
                        .attr("currentCompactedKVs", "0")
                        .attr("memStoreSizeMB", "0")
                        .attr("name", b64(&r.name))
                        .attr("readRequestsCount", r.read_requests.to_string())
                        .attr("rootIndexSizeKB", "0")
                        .attr("storefileIndexSizeKB", "0")
                        .attr("storefileSizeMB", r.store_file_size_mb.to_string())
                        .attr("storefiles", r.store_files.to_string())
                        .attr("stores", r.stores.to_string())
                        .attr("totalCompactingKVs", "0")
                        .attr("totalStaticBloomSizeKB", "0")
                        .attr("totalStaticIndexSizeKB", "0")
                        .attr("writeRequestsCount", r.write_requests.to_string()),
                )
            },
        );
        Element::new("ClusterStatus")
            .attr("averageLoad", format!("{:?}", self.average_load()))
            .attr("regions", self.regions.len().to_string())
            .attr("requests", self.requests.to_string())
            .child(Element::new("DeadNodes"))
            .child(Element::new("LiveNodes").child(node))
    }
    /// HBase's `StorageClusterStatusModel.toString` (its "storefiless" spelling included).
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "1 live servers, 0 dead servers, {:.4} average load\n\n1 live servers\n    {} {}\n        requests={}, regions={}\n        heapSizeMB={}\n        maxHeapSizeMB={}\n\n",
            self.average_load(),
            self.node,
            self.start_code,
            self.requests,
            self.regions.len(),
            self.heap_mb,
            self.max_heap_mb,
        );
        for r in &self.regions {
            s.push_str(&format!(
                "        {}\n            stores={}\n            storefiless={}\n            storefileSizeMB={}\n            memstoreSizeMB=0\n            storefileIndexSizeKB=0\n            readRequestsCount={}\n            writeRequestsCount={}\n",
                String::from_utf8_lossy(&r.name),
                r.stores,
                r.store_files,
                r.store_file_size_mb,
                r.read_requests,
                r.write_requests
            ));
            for k in &ZERO_REGION_FIELDS[1..] {
                s.push_str(&format!("            {k}=0\n"));
            }
        }
        s.push('\n');
        s
    }
}
