//! `redbase import --csv`: CSV/TSV fields to cells, as HBase's ImportTsv does, except that the
//! row key is not a field of the file but is built from key-component fields by the schema
//! file's key design, with the SDKs' reference codec (`redbase_codegen::keys`). So a table
//! whose keys carry an MD5 prefix, a salt or reversed fields loads from plain text with the
//! same bytes every SDK would read and write. Values of schema columns are encoded by their
//! declared type (`redbase_codegen::cells`), as the SDKs store them.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use redbase_codegen::model::{FamilySettings, Qualifier, ScalarType, Table};
use redbase_codegen::Value;

use super::descriptor::{full_name, table_name};
use super::import::{open_sink, Acked, ImportArgs, Pending};
use super::progress;
use crate::generated::hbase2::{
    TBloomFilterType, TColumnFamilyDescriptor, TColumnValue, TCompressionAlgorithm,
    TDataBlockEncoding, TDurability, TKeepDeletedCells, TPut, TTableDescriptor,
};

/// What one field of a record is.
#[derive(Debug, Clone)]
enum Field {
    /// The key component at this index of the key design.
    Key(usize),
    /// A typed schema column.
    Column {
        family: Vec<u8>,
        qualifier: Vec<u8>,
        ty: ScalarType,
    },
    /// `family:qualifier` not in the schema: the field's text as the value's bytes.
    Raw {
        family: Vec<u8>,
        qualifier: Vec<u8>,
    },
    /// HBase's `HBASE_TS_KEY`: the timestamp (ms) of the record's cells.
    Timestamp,
    Skip,
}

pub fn run(args: &ImportArgs, path: &Path) -> Result<(), String> {
    let started = Instant::now();
    let (Some(schema), Some(wanted)) = (&args.schema, &args.table) else {
        return Err("--csv needs --schema and --table".into());
    };
    let model =
        redbase_codegen::load(std::slice::from_ref(schema), None).map_err(|e| format!("{e}"))?;
    let table = model
        .tables
        .iter()
        .find(|t| {
            t.id == *wanted || t.name == *wanted || full_name(&t.namespace, &t.name) == *wanted
        })
        .ok_or_else(|| {
            let names: Vec<_> = model.tables.iter().map(|t| t.name.as_str()).collect();
            format!(
                "{} has no table {wanted:?} (it has: {})",
                schema.display(),
                names.join(", ")
            )
        })?;
    let delimiter = match args.delimiter.as_str() {
        "\\t" | "tab" | "\t" => b'\t',
        d if d.len() == 1 => d.as_bytes()[0],
        d => {
            return Err(format!(
                "--delimiter {d:?} must be one byte, `\\t` or `tab`"
            ))
        }
    };
    let file =
        std::fs::File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(std::io::BufReader::with_capacity(256 * 1024, file));
    let mut records = reader.records();
    let (names, from_header) = if args.columns.is_empty() {
        match records.next() {
            Some(Ok(r)) => (r.iter().map(|s| s.trim().to_string()).collect(), true),
            Some(Err(e)) => return Err(format!("{}:1: {e}", path.display())),
            None => {
                return Err(format!(
                    "{}:1: the file is empty (no header line)",
                    path.display()
                ))
            }
        }
    } else {
        (args.columns.clone(), false)
    };
    let fields = resolve(table, &names).map_err(|e| {
        if from_header {
            format!("{}:1: {e}", path.display())
        } else {
            format!("--columns: {e}")
        }
    })?;
    let target = full_name(&table.namespace, &table.name);
    let mut sink = open_sink(args)?;
    let exists = sink.table_exists(&target)?;
    if args.no_create && !exists {
        return Err(format!("table {target} does not exist (--no-create)"));
    }
    if !exists {
        sink.create_table(descriptor(table, &target), table.splits.clone())
            .map_err(|e| format!("cannot create table {target}: {e}"))?;
    }
    let acked = Acked::default();
    let mut sink = acked.writer(sink);
    let bar = progress::bar(args.quiet);
    bar.set_message(target.clone());
    let mut pending = Pending::new(target.clone(), args.chunk);
    let (mut rows, mut cells, mut errors) = (0u64, 0u64, 0u64);
    let mut outcome = Ok(());
    for record in records {
        let parsed = match record {
            Ok(r) => {
                let line = r.position().map_or(0, |p| p.line());
                to_put(table, &fields, &r, args.durability.thrift())
                    .map_err(|(col, e)| format!("{}:{line}:{col}: {e}", path.display()))
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                Err(format!("{}:{line}: {e}", path.display()))
            }
        };
        match parsed {
            Ok(put) => {
                rows += 1;
                cells += put.column_values.len() as u64;
                bar.inc(1);
                if let Err(e) = pending.add(&mut sink, put) {
                    outcome = Err(format!("cannot write: {e}"));
                    break;
                }
            }
            Err(e) => {
                errors += 1;
                eprintln!("{e}");
                if errors > args.max_errors {
                    outcome = Err(format!(
                        "too many bad lines: {errors} (--max-errors {})",
                        args.max_errors
                    ));
                    break;
                }
            }
        }
    }
    bar.finish_and_clear();
    let flushed = pending.flush(&mut sink).and(sink.finish());
    let outcome = outcome.and(flushed);
    let elapsed = started.elapsed();
    let summary = format!(
        "{} in {:.1} s ({} cells/s); {errors} bad line(s) skipped",
        acked.summary(outcome.is_ok(), (rows, cells), "rows", &target),
        elapsed.as_secs_f64(),
        progress::rate(acked.cells(), elapsed)
    );
    match outcome {
        Ok(()) => {
            println!("imported {summary}");
            Ok(())
        }
        Err(e) => Err(format!("{e}\n(before stopping, imported {summary})")),
    }
}

/// Field names to what they are, checking every key component has a field.
fn resolve(table: &Table, names: &[String]) -> Result<Vec<Field>, String> {
    let mut fields = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let col = i + 1;
        let f = if name == "-" {
            Field::Skip
        } else if name == "HBASE_TS_KEY" {
            Field::Timestamp
        } else if let Some(k) = table.key.components.iter().position(|c| c.name == *name) {
            Field::Key(k)
        } else {
            column(table, name).map_err(|e| format!("field {col} ({name:?}): {e}"))?
        };
        fields.push(f);
    }
    for (k, c) in table.key.components.iter().enumerate() {
        if !fields.iter().any(|f| matches!(f, Field::Key(x) if *x == k)) {
            return Err(format!(
                "no field for key component {:?} (the key of {} needs {})",
                c.name,
                table.name,
                table
                    .key
                    .components
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Ok(fields)
}

/// A schema column (`field` or `family:field`) or a raw `family:qualifier`.
fn column(table: &Table, name: &str) -> Result<Field, String> {
    let (family, field) = match name.split_once(':') {
        Some((f, q)) => (Some(f), q),
        None => (None, name),
    };
    let matches: Vec<_> = table
        .families
        .iter()
        .filter(|f| family.is_none_or(|n| n == f.name))
        .flat_map(|f| f.columns.iter().map(move |c| (f, c)))
        .filter(|(_, c)| c.field == field)
        .collect();
    match matches.as_slice() {
        [(f, c)] => match &c.qualifier {
            Qualifier::Fixed { qualifier } => Ok(Field::Column {
                family: f.name.as_bytes().to_vec(),
                qualifier: qualifier.as_bytes().to_vec(),
                ty: c.ty,
            }),
            Qualifier::Pattern { .. } => Err(format!(
                "column {field:?} is a pattern column; name its cells as family:qualifier"
            )),
        },
        [] => match family {
            Some(fam) if table.families.iter().any(|f| f.name == fam) => Ok(Field::Raw {
                family: fam.as_bytes().to_vec(),
                qualifier: field.as_bytes().to_vec(),
            }),
            _ => Err(format!(
                "not a key component, a column of the schema, family:qualifier of a family of \
                 {}, HBASE_TS_KEY or -",
                table.name
            )),
        },
        _ => Err(format!(
            "column {field:?} is in several families; write family:{field}"
        )),
    }
}

/// Text to a value of the type: numbers in decimal, bools `true`/`false`, bytes in hex.
fn parse_value(ty: ScalarType, text: &str) -> Result<Value, String> {
    let bad = || format!("{text:?} is not a {}", ty.name());
    Ok(match ty {
        ScalarType::String => Value::Str(text.to_string()),
        ScalarType::Bytes => Value::Bytes(
            redbase_codegen::hex::decode(text)
                .ok_or_else(|| format!("{text:?} is not hex (bytes fields are written in hex)"))?,
        ),
        ScalarType::I32 | ScalarType::I64 | ScalarType::TimestampMs | ScalarType::Counter => {
            let i: i64 = text.trim().parse().map_err(|_| bad())?;
            if ty == ScalarType::I32 && i32::try_from(i).is_err() {
                return Err(format!("{i} is out of the i32 range"));
            }
            Value::Int(i)
        }
        ScalarType::F32 => Value::F32(text.trim().parse().map_err(|_| bad())?),
        ScalarType::F64 => Value::F64(text.trim().parse().map_err(|_| bad())?),
        ScalarType::Bool => match text.trim() {
            "true" | "TRUE" | "True" | "1" => Value::Bool(true),
            "false" | "FALSE" | "False" | "0" => Value::Bool(false),
            _ => return Err(bad()),
        },
        ScalarType::Json => {
            Value::Json(serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?)
        }
    })
}

/// One record as a put; errors carry the 1-based field number.
fn to_put(
    table: &Table,
    fields: &[Field],
    r: &csv::StringRecord,
    durability: TDurability,
) -> Result<TPut, (usize, String)> {
    if r.len() != fields.len() {
        return Err((
            r.len().min(fields.len()) + 1,
            format!("{} fields, expected {}", r.len(), fields.len()),
        ));
    }
    let mut key_values: Vec<Option<Value>> = vec![None; table.key.components.len()];
    let mut timestamp = None;
    let mut values = Vec::new();
    for (i, (field, text)) in fields.iter().zip(r.iter()).enumerate() {
        let col = i + 1;
        match field {
            Field::Skip => {}
            Field::Timestamp => {
                let ts: i64 = text
                    .trim()
                    .parse()
                    .map_err(|_| (col, format!("HBASE_TS_KEY {text:?} is not a number")))?;
                if ts < 0 {
                    return Err((col, format!("HBASE_TS_KEY {ts} is negative")));
                }
                timestamp = Some(ts);
            }
            Field::Key(k) => {
                let c = &table.key.components[*k];
                let v = parse_value(c.ty, text).map_err(|e| (col, format!("{}: {e}", c.name)))?;
                key_values[*k] = Some(v);
            }
            // An empty field writes no cell (a missing value, as in a sparse row).
            _ if text.is_empty() => {}
            Field::Column {
                family,
                qualifier,
                ty,
            } => {
                let v = parse_value(*ty, text).map_err(|e| (col, e))?;
                let bytes = redbase_codegen::cells::encode_value(*ty, &v)
                    .map_err(|e| (col, e.to_string()))?;
                values.push((family.clone(), qualifier.clone(), bytes));
            }
            Field::Raw { family, qualifier } => {
                values.push((family.clone(), qualifier.clone(), text.as_bytes().to_vec()));
            }
        }
    }
    let key_values: Vec<Value> = key_values.into_iter().flatten().collect();
    let key = redbase_codegen::keys::encode_key(&table.key, &key_values).map_err(|e| {
        let col = match &e {
            redbase_codegen::EncodeError::Invalid { component, .. } => fields
                .iter()
                .position(
                    |f| matches!(f, Field::Key(k) if table.key.components[*k].name == *component),
                )
                .map_or(1, |p| p + 1),
            _ => 1,
        };
        (col, format!("row key: {e}"))
    })?;
    if values.is_empty() {
        return Err((1, "the record has no cell values".into()));
    }
    let values = values
        .into_iter()
        .map(|(f, q, v)| TColumnValue::new(f, q, v, timestamp, None, None))
        .collect();
    Ok(TPut::new(key, values, None, None, durability, None))
}

/// The table as the schema declares it: families with their settings (unset ones keep the
/// server's defaults).
fn descriptor(table: &Table, target: &str) -> TTableDescriptor {
    let families = table
        .families
        .iter()
        .map(|f| family(f.name.as_bytes().to_vec(), &f.settings))
        .collect::<Vec<_>>();
    TTableDescriptor::new(table_name(target), families, None, None)
}

fn family(name: Vec<u8>, s: &FamilySettings) -> TColumnFamilyDescriptor {
    let configuration: BTreeMap<String, String> = s.configuration.iter().cloned().collect();
    let pick = |v: &Option<String>, table: &[(&str, i32)]| {
        v.as_deref()
            .and_then(|n| table.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)))
            .map(|(_, x)| *x)
    };
    TColumnFamilyDescriptor {
        name,
        attributes: None,
        configuration: (!configuration.is_empty()).then_some(configuration),
        block_size: s.block_size,
        bloomn_filter_type: pick(
            &s.bloom_filter,
            &[
                ("NONE", 0),
                ("ROW", 1),
                ("ROWCOL", 2),
                ("ROWPREFIX_FIXED_LENGTH", 3),
            ],
        )
        .map(TBloomFilterType),
        compression_type: pick(
            &s.compression,
            &[
                ("LZO", 0),
                ("GZ", 1),
                ("NONE", 2),
                ("SNAPPY", 3),
                ("LZ4", 4),
                ("BZIP2", 5),
                ("ZSTD", 6),
            ],
        )
        .map(TCompressionAlgorithm),
        dfs_replication: s.dfs_replication,
        data_block_encoding: pick(
            &s.data_block_encoding,
            &[
                ("NONE", 0),
                ("PREFIX", 2),
                ("DIFF", 3),
                ("FAST_DIFF", 4),
                ("ROW_INDEX_V1", 7),
            ],
        )
        .map(TDataBlockEncoding),
        keep_deleted_cells: pick(
            &s.keep_deleted_cells,
            &[("FALSE", 0), ("TRUE", 1), ("TTL", 2)],
        )
        .map(TKeepDeletedCells),
        max_versions: s.max_versions,
        min_versions: s.min_versions,
        scope: s.scope,
        time_to_live: s.ttl_seconds,
        block_cache_enabled: s.block_cache,
        cache_blooms_on_write: None,
        cache_data_on_write: None,
        cache_indexes_on_write: None,
        compress_tags: None,
        evict_blocks_on_close: None,
        in_memory: s.in_memory,
    }
}
