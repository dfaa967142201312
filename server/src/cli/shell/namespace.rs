//! Namespace commands: `create_namespace`, `describe_namespace`, `list_namespace`,
//! `list_namespace_tables`, `alter_namespace`, `drop_namespace`.

use crate::generated::hbase2::TTHBaseServiceSyncClient as _;
use std::collections::BTreeMap;

use super::args::{arity, show_table, text, CmdError, CmdResult};
use super::format::ruby_list;
use super::parser::{Command, Kind, Value};
use super::Session;
use crate::generated::hbase2::TNamespaceDescriptor;

fn properties(v: &Value) -> Result<Vec<(String, String, Value)>, CmdError> {
    let Kind::Hash(pairs) = &v.kind else {
        return Err(CmdError::at(v.pos, "namespace properties must be a hash"));
    };
    pairs
        .iter()
        .map(|(k, val)| {
            Ok((
                text(k, "a property name")?,
                text(val, "a property value")?,
                k.clone(),
            ))
        })
        .collect()
}

pub fn create(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 2, "create_namespace")?;
    let name = text(&cmd.args[0], "the namespace name")?;
    let mut conf = BTreeMap::new();
    if let Some(v) = cmd.args.get(1) {
        for (k, val, _) in properties(v)? {
            conf.insert(k, val);
        }
    }
    let desc = TNamespaceDescriptor {
        name,
        configuration: Some(conf),
    };
    s.call(|c| c.create_namespace(desc))
}

pub fn describe(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "describe_namespace")?;
    let name = text(&cmd.args[0], "the namespace name")?;
    let desc = s.call(|c| c.get_namespace_descriptor(name))?;
    let conf = desc.configuration.unwrap_or_default();
    if s.out.json {
        s.out
            .json(serde_json::json!({"namespace": desc.name, "properties": conf}));
        return Ok(());
    }
    let mut parts = vec![format!("NAME => '{}'", desc.name)];
    parts.extend(conf.iter().map(|(k, v)| format!("{k} => '{v}'")));
    s.out.line("DESCRIPTION");
    s.out.line(&format!("{{{}}}", parts.join(", ")));
    s.out.line("Quota is disabled");
    Ok(())
}

pub fn list(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 0, 1, "list_namespace")?;
    let re = match cmd.args.first() {
        Some(v) => {
            let pattern = text(v, "the regex")?;
            Some(
                regex::Regex::new(&format!("^(?:{pattern})$"))
                    .map_err(|e| CmdError::at(v.pos, format!("bad regex: {e}")))?,
            )
        }
        None => None,
    };
    let mut names = s.call(|c| c.list_namespaces())?;
    names.retain(|n| re.as_ref().is_none_or(|r| r.is_match(n)));
    names.sort();
    if s.out.json {
        for n in &names {
            s.out.json(serde_json::json!({"namespace": n}));
        }
        return Ok(());
    }
    s.out.line("NAMESPACE");
    for n in &names {
        s.out.line(n);
    }
    s.out.line(&format!("{} row(s)", names.len()));
    Ok(())
}

pub fn tables(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "list_namespace_tables")?;
    let name = text(&cmd.args[0], "the namespace name")?;
    let tables = s.call(|c| c.get_table_names_by_namespace(name))?;
    let mut shown: Vec<String> = tables
        .iter()
        .map(|t| String::from_utf8_lossy(&t.qualifier).into_owned())
        .collect();
    shown.sort();
    if s.out.json {
        for t in tables.iter().map(show_table) {
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

pub fn alter(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 2, 2, "alter_namespace")?;
    let name = text(&cmd.args[0], "the namespace name")?;
    let props = properties(&cmd.args[1])?;
    let method = props
        .iter()
        .find(|(k, _, _)| k == "METHOD")
        .map(|(_, v, _)| v.clone())
        .ok_or_else(|| {
            CmdError::at(
                cmd.args[1].pos,
                "alter_namespace needs METHOD => 'set' or 'unset'",
            )
        })?;
    let current = s.call(|c| c.get_namespace_descriptor(name.clone()))?;
    let mut conf = current.configuration.unwrap_or_default();
    match method.as_str() {
        "set" => {
            for (k, v, _) in props.into_iter().filter(|(k, _, _)| k != "METHOD") {
                conf.insert(k, v);
            }
        }
        "unset" => {
            let (_, key, _) = props.iter().find(|(k, _, _)| k == "NAME").ok_or_else(|| {
                CmdError::at(
                    cmd.args[1].pos,
                    "METHOD => 'unset' needs NAME => 'PROPERTY_NAME'",
                )
            })?;
            conf.remove(key);
        }
        other => {
            return Err(CmdError::at(
                cmd.args[1].pos,
                format!("unknown METHOD '{other}' (set, unset)"),
            ))
        }
    }
    s.call(|c| {
        c.modify_namespace(TNamespaceDescriptor {
            name,
            configuration: Some(conf),
        })
    })
}

pub fn drop(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "drop_namespace")?;
    let name = text(&cmd.args[0], "the namespace name")?;
    s.call(|c| c.delete_namespace(name))
}
