//! Table DDL: `create`, `alter`, `describe`/`desc`, `list`, `exists`, `enable`, `disable`,
//! `is_enabled`, `is_disabled`, `drop`, `truncate`, `truncate_preserve`, with the HBase
//! shell's messages and return values.

use crate::generated::hbase2::TTHBaseServiceSyncClient as _;
use std::collections::BTreeMap;

use super::args::{
    arity, bytes, bytes_list, int, show_table, table_name, text, CmdError, CmdResult, Opts,
};
use super::describe::{
    apply, empty_family, family_from_hash, family_text, typed_only, FAMILY_KEYS,
};
use super::format::ruby_list;
use super::parser::{Command, Kind, Value};
use super::splits::split_keys;
use super::Session;
use crate::generated::hbase2::{TDurability, TTableDescriptor, TTableName};

/// Table settings `create` and `alter` accept as table attributes.
const TABLE_KEYS: &[&str] = &[
    "MAX_FILESIZE",
    "MEMSTORE_FLUSHSIZE",
    "READONLY",
    "DURABILITY",
    "REGION_REPLICATION",
    "COMPACTION_ENABLED",
    "NORMALIZATION_ENABLED",
    "OWNER",
    "METADATA",
    "CONFIGURATION",
];
const CREATE_KEYS: &[&str] = &["SPLITS", "NUMREGIONS", "SPLITALGO"];

fn durability(v: &Value) -> Result<TDurability, CmdError> {
    let s = text(v, "DURABILITY")?.to_ascii_uppercase();
    Ok(match s.as_str() {
        "USE_DEFAULT" => TDurability::USE_DEFAULT,
        "SKIP_WAL" => TDurability::SKIP_WAL,
        "ASYNC_WAL" => TDurability::ASYNC_WAL,
        "SYNC_WAL" => TDurability::SYNC_WAL,
        "FSYNC_WAL" => TDurability::FSYNC_WAL,
        _ => return Err(CmdError::at(v.pos, format!("unknown DURABILITY '{s}'"))),
    })
}

/// Applies table attributes (`MAX_FILESIZE => ...`) to a descriptor.
fn table_attrs(desc: &mut TTableDescriptor, key: &str, v: &Value) -> CmdResult {
    if key == "DURABILITY" {
        desc.durability = Some(durability(v)?);
        return Ok(());
    }
    let attrs = desc.attributes.get_or_insert_with(BTreeMap::new);
    if key == "METADATA" || key == "CONFIGURATION" {
        let Kind::Hash(pairs) = &v.kind else {
            return Err(CmdError::at(v.pos, format!("{key} must be a hash")));
        };
        for (k, val) in pairs {
            attrs.insert(bytes(k, key)?, bytes(val, key)?);
        }
        return Ok(());
    }
    let value = match &v.kind {
        Kind::Bool(b) => b.to_string().into_bytes(),
        _ => bytes(v, key)?,
    };
    attrs.insert(key.as_bytes().to_vec(), value);
    Ok(())
}

pub fn create(s: &mut Session, cmd: &Command) -> CmdResult {
    let Some((first, rest)) = cmd.args.split_first() else {
        return Err(CmdError::usage(
            "create needs a table name and at least one column family",
        ));
    };
    let name = table_name(first)?;
    let mut desc = TTableDescriptor {
        table_name: name.clone(),
        columns: Some(Vec::new()),
        attributes: None,
        durability: None,
    };
    let mut splits: Vec<Vec<u8>> = Vec::new();
    let mut families = Vec::new();
    for arg in rest {
        match &arg.kind {
            Kind::Str(_) => families.push(empty_family(bytes(arg, "a family name")?)),
            Kind::Hash(pairs)
                if pairs
                    .iter()
                    .any(|(k, _)| k.kind == Kind::Str(b"NAME".to_vec())) =>
            {
                families.push(family_from_hash(arg)?)
            }
            Kind::Hash(_) => {
                let allowed: Vec<&str> = TABLE_KEYS.iter().chain(CREATE_KEYS).copied().collect();
                let opts = Opts::new(arg, &allowed, "create")?;
                if let Some(v) = opts.get("SPLITS") {
                    splits = bytes_list(v, "SPLITS")?;
                }
                match (opts.get("NUMREGIONS"), opts.get("SPLITALGO")) {
                    (Some(n), Some(a)) => {
                        let n = int(n, "NUMREGIONS")?;
                        splits = split_keys(&text(a, "SPLITALGO")?, n)
                            .map_err(|e| CmdError::at(a.pos, e))?;
                    }
                    (Some(v), None) | (None, Some(v)) => {
                        return Err(CmdError::at(v.pos, "NUMREGIONS and SPLITALGO go together"))
                    }
                    (None, None) => {}
                }
                for (k, v) in opts.keys() {
                    if TABLE_KEYS.contains(&k) {
                        table_attrs(&mut desc, k, v)?;
                    }
                }
            }
            _ => {
                return Err(CmdError::at(
                    arg.pos,
                    "create takes family names, family hashes and option hashes",
                ))
            }
        }
    }
    if families.is_empty() {
        return Err(CmdError::usage(
            "Table must have at least one column family",
        ));
    }
    desc.columns = Some(families);
    s.call(|c| c.create_table(desc, splits))?;
    let shown = show_table(&name);
    if s.out.json {
        s.out.json(serde_json::json!({"created": shown}));
    } else {
        s.out.line(&format!("Created table {shown}"));
    }
    s.ret = Some(format!("Hbase::Table - {shown}"));
    Ok(())
}

/// The number of regions, for alter's progress lines.
fn region_count(s: &mut Session, name: &TTableName) -> usize {
    let t = show_table(name).into_bytes();
    s.call(|c| c.get_all_region_locations(t))
        .map(|l| l.len())
        .unwrap_or(1)
}

pub fn alter(s: &mut Session, cmd: &Command) -> CmdResult {
    let Some((first, rest)) = cmd.args.split_first() else {
        return Err(CmdError::usage(
            "alter needs a table name and at least one change",
        ));
    };
    if rest.is_empty() {
        return Err(CmdError::usage("alter needs at least one change"));
    }
    let name = table_name(first)?;
    for arg in rest {
        let current = s.call(|c| c.get_table_descriptor(name.clone()))?;
        match &arg.kind {
            Kind::Str(_) => {
                let fam = empty_family(bytes(arg, "a family name")?);
                add_or_modify(s, &name, &current, fam, None)?;
            }
            Kind::Hash(pairs) => {
                let key = |k: &str| {
                    pairs
                        .iter()
                        .any(|(p, _)| p.kind == Kind::Str(k.as_bytes().to_vec()))
                };
                if key("delete") {
                    let opts = Opts::new(arg, &["delete"], "alter")?;
                    let fam = opts
                        .get("delete")
                        .map(|v| bytes(v, "the family to delete"))
                        .transpose()?;
                    let fam = fam.unwrap_or_default();
                    s.call(|c| c.delete_column_family(name.clone(), fam))?;
                } else if key("NAME") {
                    let opts = Opts::new(arg, FAMILY_KEYS, "alter")?;
                    let fam_name = bytes(opts.get("NAME").unwrap_or(arg), "NAME")?;
                    let method = opts.get("METHOD").map(|m| text(m, "METHOD")).transpose()?;
                    if method.as_deref() == Some("delete") {
                        s.call(|c| c.delete_column_family(name.clone(), fam_name))?;
                    } else {
                        let existing = current
                            .columns
                            .iter()
                            .flatten()
                            .find(|f| f.name == fam_name);
                        let mut fam = existing
                            .map(typed_only)
                            .unwrap_or_else(|| empty_family(fam_name));
                        apply(&mut fam, &opts)?;
                        add_or_modify(s, &name, &current, fam, Some(existing.is_some()))?;
                    }
                } else {
                    let mut allowed = TABLE_KEYS.to_vec();
                    allowed.push("METHOD");
                    let opts = Opts::new(arg, &allowed, "alter")?;
                    // The whole descriptor goes back, its families as the server described them.
                    let columns = current.columns.iter().flatten().map(typed_only).collect();
                    let mut desc = TTableDescriptor {
                        columns: Some(columns),
                        ..current.clone()
                    };
                    // A durability the table never set stays unset (HBase shows it only once set).
                    let set =
                        |k: &[u8]| desc.attributes.as_ref().is_some_and(|a| a.contains_key(k));
                    if !set(b"DURABILITY") {
                        desc.durability = None;
                    }
                    for (k, v) in opts.keys() {
                        if k != "METHOD" {
                            table_attrs(&mut desc, k, v)?;
                        }
                    }
                    s.call(|c| c.modify_table(desc))?;
                }
            }
            _ => return Err(CmdError::at(arg.pos, "alter takes family names and hashes")),
        }
        let n = region_count(s, &name);
        s.out.text("Updating all regions with the new schema...");
        s.out.text(&format!("{n}/{n} regions updated."));
        s.out.text("Done.");
    }
    Ok(())
}

fn add_or_modify(
    s: &mut Session,
    name: &TTableName,
    current: &TTableDescriptor,
    fam: crate::generated::hbase2::TColumnFamilyDescriptor,
    exists: Option<bool>,
) -> CmdResult {
    let exists =
        exists.unwrap_or_else(|| current.columns.iter().flatten().any(|f| f.name == fam.name));
    if exists {
        s.call(|c| c.modify_column_family(name.clone(), fam))
    } else {
        s.call(|c| c.add_column_family(name.clone(), fam))
    }
}

pub fn describe(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, &cmd.name)?;
    let name = table_name(&cmd.args[0])?;
    let desc = s.call(|c| c.get_table_descriptor(name.clone()))?;
    let enabled = s.call(|c| c.is_table_enabled(name.clone()))?;
    let shown = show_table(&name);
    let families: Vec<String> = desc.columns.iter().flatten().map(family_text).collect();
    if s.out.json {
        let fams: Vec<serde_json::Value> = desc
            .columns
            .iter()
            .flatten()
            .map(|f| {
                let attrs: BTreeMap<String, String> = f
                    .attributes
                    .iter()
                    .flatten()
                    .map(|(k, v)| {
                        (
                            String::from_utf8_lossy(k).into(),
                            String::from_utf8_lossy(v).into(),
                        )
                    })
                    .collect();
                serde_json::json!({"name": String::from_utf8_lossy(&f.name), "attributes": attrs})
            })
            .collect();
        s.out
            .json(serde_json::json!({"table": shown, "enabled": enabled, "families": fams}));
        return Ok(());
    }
    s.out.line(&format!(
        "Table {shown} is {}",
        if enabled { "ENABLED" } else { "DISABLED" }
    ));
    s.out.line(&table_line(&shown, &desc));
    s.out.line("COLUMN FAMILIES DESCRIPTION");
    for f in &families {
        s.out.line(f);
        s.out.line("");
    }
    s.out.line(&format!("{} row(s)", families.len()));
    s.out.line("Quota is disabled");
    Ok(())
}

/// Table keys HBase keeps for itself and `describe` leaves out.
const RESERVED: &[&str] = &["IS_META", "IS_ROOT", "SPLIT_POLICY_CLASS"];

/// `t`, or `t, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '1', METADATA => {'k' => 'v'}}}`: known
/// settings inline, free-form keys under METADATA, as HBase's table descriptor prints.
fn table_line(shown: &str, desc: &TTableDescriptor) -> String {
    let mut inline = Vec::new();
    let mut metadata = Vec::new();
    for (k, v) in desc.attributes.iter().flatten() {
        let (k, v) = (String::from_utf8_lossy(k), String::from_utf8_lossy(v));
        if RESERVED.contains(&k.as_ref()) {
            continue;
        }
        if TABLE_KEYS.contains(&k.as_ref()) {
            inline.push(format!("{k} => '{v}'"));
        } else {
            metadata.push(format!("'{k}' => '{v}'"));
        }
    }
    if !metadata.is_empty() {
        inline.push(format!("METADATA => {{{}}}", metadata.join(", ")));
    }
    if inline.is_empty() {
        shown.to_string()
    } else {
        format!("{shown}, {{TABLE_ATTRIBUTES => {{{}}}}}", inline.join(", "))
    }
}

pub fn list(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 0, 1, "list")?;
    let regex = match cmd.args.first() {
        Some(v) => text(v, "the regex")?,
        None => ".*".into(),
    };
    let names = s.call(|c| c.get_table_names_by_pattern(regex, false))?;
    let mut shown: Vec<String> = names.iter().map(show_table).collect();
    shown.sort();
    s.known_tables = shown.clone();
    if s.out.json {
        for t in &shown {
            s.out.json(serde_json::json!({"table": t}));
        }
        return Ok(());
    }
    s.out.line("TABLE");
    for t in &shown {
        s.out.line(t);
    }
    s.out.line(&format!("{} row(s)", shown.len()));
    s.ret = Some(ruby_list(&shown));
    Ok(())
}

/// Commands that answer yes or no print it, then `=> true` after the timing line.
fn answer(s: &mut Session, line: Option<String>, value: bool) -> CmdResult {
    if s.out.json {
        s.out.json(serde_json::json!({"result": value}));
        return Ok(());
    }
    s.out.line(&line.unwrap_or_else(|| value.to_string()));
    s.ret = Some(value.to_string());
    Ok(())
}

pub fn exists(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "exists")?;
    let name = table_name(&cmd.args[0])?;
    let yes = s.call(|c| c.table_exists(name.clone()))?;
    let shown = show_table(&name);
    let line = format!(
        "Table {shown} {}",
        if yes { "does exist" } else { "does not exist" }
    );
    answer(s, Some(line), yes)
}

fn simple(
    s: &mut Session,
    cmd: &Command,
    f: fn(&mut super::client::Client, TTableName) -> thrift::Result<()>,
) -> CmdResult {
    arity(&cmd.args, 1, 1, &cmd.name)?;
    let name = table_name(&cmd.args[0])?;
    s.call(|c| f(c, name))
}

pub fn enable(s: &mut Session, cmd: &Command) -> CmdResult {
    simple(s, cmd, |c, t| c.enable_table(t))
}

pub fn disable(s: &mut Session, cmd: &Command) -> CmdResult {
    simple(s, cmd, |c, t| c.disable_table(t))
}

/// As HBase's shell, `drop` checks first that the table is disabled (its message, whatever
/// the server would answer to deleting an enabled table).
pub fn drop(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "drop")?;
    let name = table_name(&cmd.args[0])?;
    if s.call(|c| c.is_table_enabled(name.clone()))? {
        return Err(CmdError::usage(format!(
            "Table {} is enabled. Disable it first.",
            super::args::show_table(&name)
        )));
    }
    s.call(|c| c.delete_table(name))
}

pub fn is_enabled(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "is_enabled")?;
    let name = table_name(&cmd.args[0])?;
    let v = s.call(|c| c.is_table_enabled(name))?;
    answer(s, None, v)
}

pub fn is_disabled(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "is_disabled")?;
    let name = table_name(&cmd.args[0])?;
    let v = s.call(|c| c.is_table_disabled(name))?;
    answer(s, None, v)
}

fn truncate_with(s: &mut Session, cmd: &Command, preserve: bool) -> CmdResult {
    arity(&cmd.args, 1, 1, &cmd.name)?;
    let name = table_name(&cmd.args[0])?;
    let shown = show_table(&name);
    s.out.text(&format!(
        "Truncating '{shown}' table (it may take a while):"
    ));
    if s.call(|c| c.is_table_enabled(name.clone()))? {
        s.out.text("Disabling table...");
        s.call(|c| c.disable_table(name.clone()))?;
    }
    s.out.text(&format!(
        "Truncating table{}...",
        if preserve { " (preserving splits)" } else { "" }
    ));
    s.call(|c| c.truncate_table(name, preserve))
}

pub fn truncate(s: &mut Session, cmd: &Command) -> CmdResult {
    truncate_with(s, cmd, false)
}

pub fn truncate_preserve(s: &mut Session, cmd: &Command) -> CmdResult {
    truncate_with(s, cmd, true)
}
