//! Support shared by the Rust SDK's vector runner, end-to-end tests and xlang tool: the vector
//! JSON forms of docs/schema.md ("Test vectors") for keys and values, and dispatch from a
//! table id to the generated table type.

use redbase_examples::runtime::keys::{HashPrefix, KeyType};
use redbase_examples::runtime::values::{ColumnInfo, ColumnKind, PartType, ValueType};
use redbase_examples::{CellValue, KeyValue};
use serde_json::{json, Value as Json};

/// Calls `$f::<Table>($args)` for the generated table type of table id `$id`; an unknown id
/// is an `Err(String)`.
#[macro_export]
macro_rules! with_table {
    ($id:expr, $f:ident ( $($arg:expr),* )) => {{
        use redbase_examples::*;
        match $id {
            "access_logs" => $f::<AccessLogsTable<'_>>($($arg),*),
            "access_logs_by_period" => $f::<AccessLogsByPeriodTable<'_>>($($arg),*),
            "access_logs_by_system" => $f::<AccessLogsBySystemTable<'_>>($($arg),*),
            "access_logs_by_user" => $f::<AccessLogsByUserTable<'_>>($($arg),*),
            "all_types" => $f::<AllTypesTable<'_>>($($arg),*),
            "books" => $f::<BooksTable<'_>>($($arg),*),
            "counters" => $f::<CountersTable<'_>>($($arg),*),
            "device_events" => $f::<DeviceEventsTable<'_>>($($arg),*),
            "drive_directories" => $f::<DriveDirectoriesTable<'_>>($($arg),*),
            "drive_files" => $f::<DriveFilesTable<'_>>($($arg),*),
            "events" => $f::<EventsTable<'_>>($($arg),*),
            "fixed_orders" => $f::<FixedOrdersTable<'_>>($($arg),*),
            "leaderboard" => $f::<LeaderboardTable<'_>>($($arg),*),
            "metrics" => $f::<MetricsTable<'_>>($($arg),*),
            "sensor_readings" => $f::<SensorReadingsTable<'_>>($($arg),*),
            "social_usage" => $f::<SocialUsageTable<'_>>($($arg),*),
            "tsdb" => $f::<TsdbTable<'_>>($($arg),*),
            "web_pages" => $f::<WebPagesTable<'_>>($($arg),*),
            other => Err(format!("no generated table {other:?}")),
        }
    }};
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn unhex(s: &str) -> Result<Vec<u8>, String> {
    redbase_examples::runtime::keys::unhex(s.as_bytes()).ok_or_else(|| format!("not hex: {s:?}"))
}

fn int(j: &Json) -> Result<i64, String> {
    match j {
        Json::Number(n) => n.as_i64().ok_or_else(|| format!("not an i64: {n}")),
        Json::String(s) => s.parse().map_err(|_| format!("not an i64: {s:?}")),
        other => Err(format!("not an integer: {other}")),
    }
}

fn bits<const N: usize>(j: &Json) -> Result<[u8; N], String> {
    let b = unhex(j.as_str().ok_or("float bits must be a hex string")?)?;
    b.try_into()
        .map_err(|_| format!("{N} bytes of float bits expected"))
}

fn text(j: &Json) -> Result<String, String> {
    j.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("not a string: {j}"))
}

/// A key component's vector JSON as its value.
pub fn key_value(ty: KeyType, j: &Json) -> Result<KeyValue, String> {
    Ok(match ty {
        KeyType::String => KeyValue::Str(text(j)?),
        KeyType::Bytes => KeyValue::Bytes(unhex(&text(j)?)?),
        KeyType::I32 | KeyType::I64 | KeyType::TimestampMs => KeyValue::Int(int(j)?),
        KeyType::F32 => KeyValue::F32(f32::from_bits(u32::from_be_bytes(bits(j)?))),
        KeyType::F64 => KeyValue::F64(f64::from_bits(u64::from_be_bytes(bits(j)?))),
    })
}

/// A key component's value in the vector JSON form (floats by their bits).
pub fn key_json(ty: KeyType, v: &KeyValue) -> Json {
    match v {
        KeyValue::Str(s) => json!(s),
        KeyValue::Bytes(b) => json!(hex(b)),
        KeyValue::Int(i) if ty == KeyType::I32 => json!(i),
        KeyValue::Int(i) => json!(i.to_string()),
        KeyValue::F32(f) => json!(hex(&f.to_bits().to_be_bytes())),
        KeyValue::F64(f) => json!(hex(&f.to_bits().to_be_bytes())),
    }
}

/// A decoded hash prefix in the vector form: the characters, or hex of the raw bytes.
pub fn hash_json(h: &Option<HashPrefix>) -> Json {
    match h {
        None => Json::Null,
        Some(HashPrefix::Hex(s)) => json!(s),
        Some(HashPrefix::Bytes(b)) => json!(hex(b)),
    }
}

/// Cell bytes for a value in its vector JSON form, through the SDK's `CellValue` codecs.
pub fn encode_value(ty: ValueType, j: &Json) -> Result<Vec<u8>, String> {
    let e = |r: redbase_examples::Result<Vec<u8>>| r.map_err(|e| e.to_string());
    match ty {
        ValueType::String => e(text(j)?.encode_cell()),
        ValueType::Bytes => e(unhex(&text(j)?)?.encode_cell()),
        ValueType::I32 => {
            let i = i32::try_from(int(j)?).map_err(|e| e.to_string())?;
            e(i.encode_cell())
        }
        ValueType::I64 | ValueType::TimestampMs | ValueType::Counter => e(int(j)?.encode_cell()),
        ValueType::F32 => e(f32::from_bits(u32::from_be_bytes(bits(j)?)).encode_cell()),
        ValueType::F64 => e(f64::from_bits(u64::from_be_bytes(bits(j)?)).encode_cell()),
        ValueType::Bool => e(j.as_bool().ok_or("not a bool")?.encode_cell()),
        ValueType::Json => e(j.encode_cell()),
    }
}

/// A cell's bytes decoded by the SDK's `CellValue` codecs, in the vector JSON form.
pub fn decode_value(ty: ValueType, raw: &[u8]) -> Result<Json, String> {
    fn d<T: CellValue>(raw: &[u8]) -> Result<T, String> {
        T::decode_cell(raw).map_err(|e| e.to_string())
    }
    Ok(match ty {
        ValueType::String => json!(d::<String>(raw)?),
        ValueType::Bytes => json!(hex(&d::<Vec<u8>>(raw)?)),
        ValueType::I32 => json!(d::<i32>(raw)?),
        ValueType::I64 | ValueType::TimestampMs | ValueType::Counter => {
            json!(d::<i64>(raw)?.to_string())
        }
        ValueType::F32 => json!(hex(&d::<f32>(raw)?.to_bits().to_be_bytes())),
        ValueType::F64 => json!(hex(&d::<f64>(raw)?.to_bits().to_be_bytes())),
        ValueType::Bool => json!(d::<bool>(raw)?),
        ValueType::Json => d::<Json>(raw)?,
    })
}

/// The type name docs/schema.md uses for a value type.
pub fn value_type(name: &str) -> Result<ValueType, String> {
    Ok(match name {
        "string" => ValueType::String,
        "bytes" => ValueType::Bytes,
        "i32" => ValueType::I32,
        "i64" => ValueType::I64,
        "f32" => ValueType::F32,
        "f64" => ValueType::F64,
        "bool" => ValueType::Bool,
        "json" => ValueType::Json,
        "timestamp-ms" => ValueType::TimestampMs,
        "counter" => ValueType::Counter,
        other => return Err(format!("unknown value type {other:?}")),
    })
}

/// A pattern column's qualifier for a part given as text (zero-padded as the column says).
pub fn pattern_qualifier(col: &ColumnInfo, part: &str) -> Result<Vec<u8>, String> {
    let ColumnKind::Pattern {
        prefix,
        suffix,
        part: part_type,
        width,
    } = col.kind
    else {
        return Err(format!("{} is not a pattern column", col.field));
    };
    let text = match part_type {
        PartType::String => part.to_string(),
        PartType::I32 | PartType::I64 => {
            let n: i64 = part.parse().map_err(|_| format!("part {part:?}"))?;
            match width {
                Some(w) => format!("{n:0w$}", w = w as usize),
                None => n.to_string(),
            }
        }
    };
    Ok([prefix, text.as_bytes(), suffix].concat())
}

/// The Thrift2 gateway under test, from `REDBASE_SDK_TARGET=host:port` (tests/sdk_rust/run.sh
/// starts `redbase serve` and sets it).
pub fn target() -> (String, u16) {
    let given = std::env::var("REDBASE_SDK_TARGET").unwrap_or_else(|_| {
        panic!(
            "REDBASE_SDK_TARGET=host:port is not set: run tests/sdk_rust/run.sh, which starts \
             redbase serve, or point it at a running Thrift2 gateway"
        )
    });
    let (host, port) = given
        .rsplit_once(':')
        .unwrap_or_else(|| panic!("REDBASE_SDK_TARGET={given:?} is not host:port"));
    (
        host.to_string(),
        port.parse().expect("REDBASE_SDK_TARGET port"),
    )
}

/// Connection options for the gateway under test: table names prefixed with
/// `REDBASE_SDK_TABLE_PREFIX` (the oracle run sets `rs_`, so this suite shares one HBase with
/// the other languages' suites).
pub fn options() -> redbase_examples::ConnectOptions {
    redbase_examples::ConnectOptions {
        table_prefix: std::env::var("REDBASE_SDK_TABLE_PREFIX").unwrap_or_default(),
        ..Default::default()
    }
}

/// A connection to the gateway under test ([`target`], [`options`]).
pub fn connect() -> redbase_examples::Connection {
    let (host, port) = target();
    redbase_examples::Connection::open(&host, port, &options())
        .expect("connect to the Thrift2 gateway")
}

/// Drops the table if it exists and creates it from its schema.
pub fn fresh<'c, T: redbase_examples::TypedTable<'c>>(
    conn: &'c mut redbase_examples::Connection,
) -> T {
    let mut t = T::new(conn);
    if t.exists().unwrap() {
        t.drop_table().unwrap();
    }
    t.create().unwrap();
    t
}

/// Every item of a scan, or the first error.
pub fn all<T>(rows: impl Iterator<Item = redbase_examples::Result<T>>) -> Vec<T> {
    rows.collect::<redbase_examples::Result<Vec<_>>>().unwrap()
}

/// The tests of one binary share table names: one at a time.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}
