//! The REST resources about the cluster, namespaces and tables: `/` (table list),
//! `/version`, `/version/cluster`, `/status/cluster`, `/namespaces[/{ns}[/tables]]`,
//! `/{table}/schema` (GET; PUT creates or replaces, POST adds or changes families, DELETE),
//! `/{table}/regions` and `/{table}/exists`, with HBase's status codes.

use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::Response;

use super::media::{Media, MODELS, MODELS_TEXT};
use super::meta::*;
use super::model::CellSet;
use super::xml::{self, Element};
use super::{body, empty, not_allowed, Req, Rest, RestError, RestResult};
use crate::engine::error::NamespaceError;
use crate::engine::{
    FamilyDescriptor, NamespaceDescriptor, TableDescriptor, TableName, SYSTEM_TABLES,
};
use crate::gateway::Need;

/// The answer in `media` from whichever form the model has for it.
pub fn answer(
    media: Media,
    json: impl FnOnce() -> serde_json::Value,
    xml_doc: impl FnOnce() -> Element,
    text: impl FnOnce() -> String,
    pb: impl FnOnce() -> Vec<u8>,
) -> Response {
    let bytes = match media {
        Media::Json => json().to_string().into_bytes(),
        Media::Xml => xml::write(&xml_doc()),
        Media::Text => text().into_bytes(),
        Media::Protobuf | Media::ProtobufIetf | Media::Binary => pb(),
    };
    body(StatusCode::OK, media, bytes)
}

/// A cell set in `media` (rows, scans, multi-gets).
pub fn cell_set(media: Media, set: &CellSet) -> Response {
    if media == Media::Json {
        return body(StatusCode::OK, media, set.to_json_text().into_bytes());
    }
    answer(
        media,
        || set.to_json(),
        || set.to_xml(),
        String::new,
        || set.to_pb(),
    )
}

fn get_only(r: &Req) -> Result<(), RestError> {
    if r.method == Method::GET || r.method == Method::HEAD {
        Ok(())
    } else {
        Err(not_allowed())
    }
}

/// Reads a request body of one of the model types in its `Content-Type`.
pub fn read_body<T>(
    r: &Req,
    json: impl FnOnce(&serde_json::Value) -> Result<T, String>,
    xml_doc: impl FnOnce(&Element) -> Result<T, String>,
    pb: impl FnOnce(&[u8]) -> Result<T, String>,
) -> Result<T, RestError> {
    match r.content()? {
        Media::Json => {
            let v: serde_json::Value = serde_json::from_slice(&r.body)
                .map_err(|e| RestError::bad(format!("malformed JSON: {e}")))?;
            json(&v).map_err(RestError::bad)
        }
        Media::Xml => {
            // XML 1.0 has no NUL or other C0 control characters (but tab, CR, LF): HBase's
            // parser refuses a document holding one with 400.
            if let Some(at) = r
                .body
                .iter()
                .position(|b| *b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
            {
                return Err(RestError::bad(format!(
                    "the XML body holds the character 0x{:02x} at byte {at}, which XML does not allow",
                    r.body[at]
                )));
            }
            xml_doc(&xml::parse(&r.body).map_err(RestError::bad)?).map_err(RestError::bad)
        }
        Media::Protobuf | Media::ProtobufIetf => pb(&r.body).map_err(RestError::bad),
        Media::Text | Media::Binary => Err(RestError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type\r\nthis resource reads text/xml, application/json or application/x-protobuf\r\n",
        )),
    }
}

/// `/`: the tables the caller may see (user tables only, as HBase lists them).
pub fn table_list(rest: &Rest, r: &Req) -> RestResult {
    get_only(r)?;
    let media = r.accept(&MODELS_TEXT)?;
    let names: Vec<String> = rest
        .engine
        .list_tables()
        .into_iter()
        .filter(|t| t.namespace != "hbase")
        .map(|t| t.to_string())
        .filter(|n| rest.access.shows_table(n))
        .collect();
    let m = TableListM(names);
    Ok(answer(
        media,
        || m.to_json(),
        || m.to_xml(),
        || m.to_text(),
        || super::protobuf::table_list(&m.0),
    ))
}

pub fn version(r: &Req) -> RestResult {
    get_only(r)?;
    let media = r.accept(&MODELS_TEXT)?;
    let v = VersionM::ours();
    Ok(answer(
        media,
        || v.to_json(),
        || v.to_xml(),
        || v.to_text(),
        || super::protobuf::version(&v),
    ))
}

pub fn cluster_version(r: &Req) -> RestResult {
    get_only(r)?;
    // HBase has no protobuf form of the cluster version (406).
    let media = r.accept(&[Media::Text, Media::Xml, Media::Json])?;
    Ok(answer(
        media,
        cluster_version_json,
        cluster_version_xml,
        || HBASE_VERSION.to_string(),
        Vec::new,
    ))
}

const MB: u64 = 1024 * 1024;

/// The process's resident memory (Linux's `VmRSS`), what HBase's `heapSizeMB` (the JVM heap in
/// use) stands for here; None where /proc has no such line.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .ok()?;
    Some(kb * 1024)
}

/// `/status/cluster`: this server as HBase's one live node. Heap sizes are the process's
/// resident memory and its configured memory budget (`--cache-size`), in MB.
pub fn cluster_status(rest: &Rest, r: &Req) -> RestResult {
    get_only(r)?;
    let media = r.accept(&MODELS_TEXT)?;
    let mut regions = Vec::new();
    let mut requests = 0;
    for t in rest.engine.list_tables() {
        let name = t.to_string();
        let Ok(rs) = rest.engine.regions(&name) else {
            continue;
        };
        let stores = rest
            .engine
            .describe_table(&name)
            .map(|d| d.families.len())
            .unwrap_or(0);
        for info in rs {
            requests += info.reads + info.writes;
            regions.push(StatusRegionM {
                name: info.name.clone().into_bytes(),
                stores,
                // A region's families all live in its one file.
                store_files: 1,
                store_file_size_mb: info.size / MB,
                read_requests: info.reads,
                write_requests: info.writes,
            });
        }
    }
    let m = ClusterStatusM {
        node: rest.config.location.clone(),
        start_code: rest.start_code,
        requests,
        heap_mb: resident_bytes().unwrap_or(0) / MB,
        max_heap_mb: rest.engine.cache_budget() as u64 / MB,
        regions,
    };
    Ok(answer(
        media,
        || m.to_json(),
        || m.to_xml(),
        || m.to_text(),
        || m.to_pb(),
    ))
}

/// `/namespaces`, `/namespaces/{ns}` and `/namespaces/{ns}/tables`.
pub fn namespaces(rest: &Rest, r: &Req, path: &[&str]) -> RestResult {
    match path {
        [] => {
            get_only(r)?;
            let media = r.accept(&MODELS_TEXT)?;
            let m = NamespacesM(
                rest.engine
                    .list_namespaces()
                    .into_iter()
                    .map(|n| n.name)
                    .collect(),
            );
            Ok(answer(
                media,
                || m.to_json(),
                || m.to_xml(),
                || m.to_text(),
                || super::protobuf::namespaces(&m.0),
            ))
        }
        [ns] => namespace(rest, r, &super::table_name(ns)?),
        // HBase serves `/namespaces/{ns}/tables` with the namespace's own resource: only GET
        // lists tables; PUT, POST and DELETE act on the namespace itself.
        [ns, "tables"] if r.method != Method::GET && r.method != Method::HEAD => {
            namespace(rest, r, &super::table_name(ns)?)
        }
        [ns, "tables"] => {
            let ns = super::table_name(ns)?;
            let media = r.accept(&MODELS_TEXT)?;
            rest.engine
                .get_namespace(&ns)
                .map_err(|e| RestError::from_engine(&e, NS_NOT_FOUND))?;
            // Only the tables the caller may see, as the Thrift gateways' listings filter them.
            let m = TableListM(
                rest.engine
                    .list_tables()
                    .into_iter()
                    .filter(|t| t.namespace == ns && rest.access.shows_table(&t.to_string()))
                    .map(|t| t.qualifier)
                    .collect(),
            );
            Ok(answer(
                media,
                || m.to_json(),
                || m.to_xml(),
                || m.to_text(),
                || super::protobuf::table_list(&m.0),
            ))
        }
        _ => Err(RestError::not_found()),
    }
}

const NS_NOT_FOUND: &str = "org.apache.hadoop.hbase.NamespaceNotFoundException";
const TABLE_NOT_FOUND: &str = "org.apache.hadoop.hbase.TableNotFoundException";
const IO: &str = "java.io.IOException";
const CONSTRAINT: &str = "org.apache.hadoop.hbase.constraint.ConstraintException";

/// HBase's 503 for what its master refuses with a ConstraintException (an IOException, so
/// HBase's REST server answers "Unavailable" with it), in HBase's words: the class is named
/// twice, as the client's copy of the master's exception prints it.
fn constraint(message: &str) -> RestError {
    RestError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("Unavailable\r\n{CONSTRAINT}: {CONSTRAINT}: {message}\r\n"),
    )
}

/// Deleting a namespace, answered as HBase 2.6.1 answers each refusal.
fn delete_namespace(rest: &Rest, ns: &str) -> RestResult {
    match rest.engine.delete_namespace(ns) {
        Ok(()) => Ok(empty(StatusCode::OK)),
        Err(NamespaceError::NotFound(_)) => Err(RestError::new(
            StatusCode::NOT_FOUND,
            format!("Namespace '{ns}' does not exists.  Cannot drop namespace."),
        )),
        Err(NamespaceError::Reserved(_)) => Err(constraint(&format!(
            "Reserved namespace {ns} cannot be removed."
        ))),
        Err(NamespaceError::NotEmpty { tables, .. }) => Err(constraint(&format!(
            "Only empty namespaces can be removed. Namespace {ns} has {tables} tables"
        ))),
        Err(e) => Err(RestError::from_engine(&e, IO)),
    }
}

fn namespace(rest: &Rest, r: &Req, ns: &str) -> RestResult {
    match r.method {
        Method::GET | Method::HEAD => {
            rest.may(Need::DescribeNamespace(ns))?;
            let media = r.accept(&MODELS_TEXT)?;
            let d = rest
                .engine
                .get_namespace(ns)
                .map_err(|e| RestError::from_engine(&e, NS_NOT_FOUND))?;
            let m = NamespacePropsM(d.configuration);
            Ok(answer(
                media,
                || m.to_json(),
                || m.to_xml(),
                || m.to_text(),
                || m.to_pb(),
            ))
        }
        Method::PUT | Method::POST => {
            rest.may(Need::AlterNamespace(ns))?;
            let props = if r.body.is_empty() {
                NamespacePropsM::default()
            } else {
                read_body(
                    r,
                    NamespacePropsM::from_json,
                    NamespacePropsM::from_xml,
                    NamespacePropsM::from_pb,
                )?
            };
            let mut d = NamespaceDescriptor::new(ns);
            d.configuration = props.0;
            let exists = rest.engine.get_namespace(ns).is_ok();
            // HBase: POST creates only, PUT alters only; each refuses the other's case.
            if r.method == Method::POST && exists {
                return Err(RestError::new(
                    StatusCode::FORBIDDEN,
                    format!("Namespace '{ns}' already exists.  Use REST PUT to alter the existing namespace."),
                ));
            }
            if r.method == Method::PUT && !exists {
                return Err(RestError::new(
                    StatusCode::FORBIDDEN,
                    format!(
                        "Namespace '{ns}' does not exist. Use REST POST to create the namespace."
                    ),
                ));
            }
            let done = if exists {
                rest.engine.modify_namespace(d)
            } else {
                rest.engine.create_namespace(d)
            };
            done.map_err(|e| RestError::from_engine(&e, IO))?;
            // HBase answers an alteration with the request's URL as text, a creation with it
            // as the Location.
            let host = r
                .headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("localhost");
            let url = format!("http://{host}/{}", r.segments.join("/"));
            if exists {
                return Ok(body(StatusCode::OK, Media::Text, url.into_bytes()));
            }
            let mut resp = empty(StatusCode::CREATED);
            if let Ok(v) = HeaderValue::from_str(&url) {
                resp.headers_mut().insert(header::LOCATION, v);
            }
            Ok(resp)
        }
        Method::DELETE => {
            rest.may(Need::AlterNamespace(ns))?;
            delete_namespace(rest, ns)
        }
        _ => Err(not_allowed()),
    }
}

fn schema_of(d: &TableDescriptor) -> TableSchemaM {
    TableSchemaM {
        name: d.name.to_string(),
        attrs: d
            .attributes
            .iter()
            .map(|(k, v)| {
                (
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                )
            })
            .collect(),
        columns: d
            .families
            .values()
            .map(|f| ColumnSchemaM {
                name: f.name_str(),
                attrs: f
                    .values_map()
                    .into_iter()
                    .map(|(k, v)| {
                        (
                            String::from_utf8_lossy(&k).into_owned(),
                            String::from_utf8_lossy(&v).into_owned(),
                        )
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn family_of(c: &ColumnSchemaM) -> Result<FamilyDescriptor, RestError> {
    let mut f = FamilyDescriptor::new(c.name.as_bytes());
    let values = c
        .attrs
        .iter()
        .map(|(k, v)| (k.clone().into_bytes(), v.clone().into_bytes()))
        .collect();
    f.apply_values(&values).map_err(RestError::bad)?;
    Ok(f)
}

/// `/{table}/schema`.
pub fn table_schema(rest: &Rest, r: &Req, table: &str) -> RestResult {
    match r.method {
        Method::GET | Method::HEAD => {
            rest.may(Need::Describe(table))?;
            let media = r.accept(&MODELS_TEXT)?;
            let d = rest
                .engine
                .describe_table(table)
                .map_err(|e| RestError::from_engine(&e, TABLE_NOT_FOUND))?;
            let m = schema_of(&d);
            Ok(answer(
                media,
                || m.to_json(),
                || m.to_xml(),
                || m.to_text(),
                || m.to_pb(),
            ))
        }
        Method::PUT | Method::POST => {
            let m = read_body(
                r,
                TableSchemaM::from_json,
                TableSchemaM::from_xml,
                TableSchemaM::from_pb,
            )?;
            let name = TableName::parse(table)
                .map_err(|e| RestError::bad(format!("java.lang.IllegalArgumentException: {e}")))?;
            if SYSTEM_TABLES.contains(&table) {
                // HBase finds its system table there and alters it: disabling it first is
                // refused for hbase:meta. redbase's catalog is no table: both are refused so.
                rest.may(Need::AlterTable(table))?;
                return Err(constraint(&format!("Cannot disable {table}")));
            }
            let exists = rest.engine.table_exists(table);
            if !exists {
                rest.may(Need::CreateTable(table))?;
            } else {
                rest.may(Need::AlterTable(table))?;
            }
            let mut d = TableDescriptor::new(name);
            for (k, v) in &m.attrs {
                d.attributes
                    .insert(k.clone().into_bytes(), v.clone().into_bytes());
            }
            for c in &m.columns {
                let f = family_of(c)?;
                d.families.insert(f.name.clone(), f);
            }
            let io = |e: crate::engine::TableError| RestError::from_engine(&e, IO);
            if !exists {
                rest.engine.create_table(d, &[]).map_err(|e| {
                    if e.kind() == crate::engine::ErrorKind::AlreadyExists {
                        RestError::new(StatusCode::NOT_MODIFIED, "Not modified\r\n")
                    } else {
                        io(e)
                    }
                })?;
                let mut resp = empty(StatusCode::CREATED);
                if let Ok(v) = HeaderValue::from_str(&format!("/{table}/schema")) {
                    resp.headers_mut().insert(header::LOCATION, v);
                }
                return Ok(resp);
            }
            if r.method == Method::PUT {
                // PUT replaces the descriptor (HBase: disable, modify, enable).
                rest.engine.modify_table(d).map_err(io)?;
                let mut resp = empty(StatusCode::CREATED);
                if let Ok(v) = HeaderValue::from_str(&format!("/{table}/schema")) {
                    resp.headers_mut().insert(header::LOCATION, v);
                }
                return Ok(resp);
            }
            // POST: each family added or changed; the others stay.
            let current = rest.engine.describe_table(table).map_err(io)?;
            for (name, f) in d.families {
                if current.families.contains_key(&name) {
                    rest.engine.modify_family(table, f).map_err(io)?;
                } else {
                    rest.engine.add_family(table, f).map_err(io)?;
                }
            }
            Ok(empty(StatusCode::OK))
        }
        Method::DELETE => {
            rest.may(Need::AlterTable(table))?;
            if rest.engine.is_table_enabled(table).unwrap_or(false) {
                let _ = rest.engine.disable_table(table);
            }
            rest.engine
                .delete_table(table)
                .map_err(|e| RestError::from_engine(&e, TABLE_NOT_FOUND))?;
            Ok(empty(StatusCode::OK))
        }
        _ => Err(not_allowed()),
    }
}

/// `/{table}/regions`.
pub fn regions(rest: &Rest, r: &Req, table: &str) -> RestResult {
    get_only(r)?;
    rest.may(Need::Read(table))?;
    let media = r.accept(&MODELS_TEXT)?;
    let regions = rest
        .engine
        .regions(table)
        .map_err(|e| RestError::from_engine(&e, TABLE_NOT_FOUND))?;
    let m = TableInfoM {
        name: table.to_string(),
        regions: regions
            .into_iter()
            .map(|i| RegionM {
                id: i.meta.id,
                name: i.name.clone(),
                start: i.meta.start.clone(),
                end: i.meta.end.clone(),
                location: rest.config.location.clone(),
            })
            .collect(),
    };
    Ok(answer(
        media,
        || m.to_json(),
        || m.to_xml(),
        || m.to_text(),
        || m.to_pb(),
    ))
}

/// `/{table}/exists`: 200 when the table exists, 404 otherwise.
pub fn exists(rest: &Rest, r: &Req, table: &str) -> RestResult {
    get_only(r)?;
    let _ = r.accept(&MODELS)?;
    if rest.engine.table_exists(table) {
        Ok(empty(StatusCode::OK))
    } else {
        Err(RestError::not_found())
    }
}
