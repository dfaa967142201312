//! Reading a command's arguments: strings, integers, option hashes, table names. Every
//! mismatch is an error that names the argument and where it was written.

use std::fmt;

use super::lexer::Pos;
use super::parser::{Kind, Value};
use crate::generated::hbase2::TTableName;

/// A command that failed: `usage` errors add the hint to `help 'command'`.
#[derive(Debug)]
pub struct CmdError {
    pub message: String,
    pub usage: bool,
}

impl CmdError {
    pub fn usage(message: impl Into<String>) -> Self {
        CmdError {
            message: message.into(),
            usage: true,
        }
    }
    pub fn failed(message: impl Into<String>) -> Self {
        CmdError {
            message: message.into(),
            usage: false,
        }
    }
    pub fn at(pos: Pos, message: impl fmt::Display) -> Self {
        CmdError::usage(format!("{message} (at {pos})"))
    }
}

pub type CmdResult = Result<(), CmdError>;

fn kind_name(k: &Kind) -> &'static str {
    match k {
        Kind::Str(_) => "a string",
        Kind::Int(_) => "an integer",
        Kind::Nil => "nil",
        Kind::Bool(_) => "a boolean",
        Kind::Array(_) => "an array",
        Kind::Hash(_) => "a hash",
    }
}

/// Bytes of a string (integers as their decimal text, as the HBase shell's `to_s`).
pub fn bytes(v: &Value, what: &str) -> Result<Vec<u8>, CmdError> {
    match &v.kind {
        Kind::Str(s) => Ok(s.clone()),
        Kind::Int(i) => Ok(i.to_string().into_bytes()),
        other => Err(CmdError::at(
            v.pos,
            format!("{what} must be a string, not {}", kind_name(other)),
        )),
    }
}

/// A string argument that must be text (table, namespace and family names, regexes, filters).
pub fn text(v: &Value, what: &str) -> Result<String, CmdError> {
    let b = bytes(v, what)?;
    String::from_utf8(b).map_err(|_| CmdError::at(v.pos, format!("{what} must be UTF-8 text")))
}

pub fn int(v: &Value, what: &str) -> Result<i64, CmdError> {
    match &v.kind {
        Kind::Int(i) => Ok(*i),
        // The HBase shell takes numbers as strings in many places (`VERSIONS => '3'`).
        Kind::Str(s) => std::str::from_utf8(s)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| CmdError::at(v.pos, format!("{what} must be an integer"))),
        other => Err(CmdError::at(
            v.pos,
            format!("{what} must be an integer, not {}", kind_name(other)),
        )),
    }
}

pub fn int32(v: &Value, what: &str) -> Result<i32, CmdError> {
    let i = int(v, what)?;
    i32::try_from(i).map_err(|_| CmdError::at(v.pos, format!("{what} {i} is out of range")))
}

pub fn boolean(v: &Value, what: &str) -> Result<bool, CmdError> {
    match &v.kind {
        Kind::Bool(b) => Ok(*b),
        Kind::Str(s) if s.eq_ignore_ascii_case(b"true") => Ok(true),
        Kind::Str(s) if s.eq_ignore_ascii_case(b"false") => Ok(false),
        other => Err(CmdError::at(
            v.pos,
            format!("{what} must be true or false, not {}", kind_name(other)),
        )),
    }
}

/// A string or an array of strings (`COLUMNS => 'f'` or `['f:a', 'f:b']`).
pub fn bytes_list(v: &Value, what: &str) -> Result<Vec<Vec<u8>>, CmdError> {
    match &v.kind {
        Kind::Array(items) => items.iter().map(|i| bytes(i, what)).collect(),
        _ => Ok(vec![bytes(v, what)?]),
    }
}

/// An option hash with the keys a command accepts; any other key is an error.
pub struct Opts<'a> {
    pairs: Vec<(String, &'a Value)>,
}

impl<'a> Opts<'a> {
    pub fn new(v: &'a Value, allowed: &[&str], cmd: &str) -> Result<Self, CmdError> {
        let Kind::Hash(pairs) = &v.kind else {
            return Err(CmdError::at(
                v.pos,
                format!(
                    "{cmd} expects a hash of options here, not {}",
                    kind_name(&v.kind)
                ),
            ));
        };
        let mut out = Vec::new();
        for (k, val) in pairs {
            let key = text(k, "an option name")?;
            if !allowed.contains(&key.as_str()) {
                return Err(CmdError::at(
                    k.pos,
                    format!(
                        "{cmd} does not take the option {key} (it takes {})",
                        allowed.join(", ")
                    ),
                ));
            }
            out.push((key, val));
        }
        Ok(Opts { pairs: out })
    }
    pub fn empty() -> Self {
        Opts { pairs: Vec::new() }
    }
    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.pairs
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
    }
    pub fn keys(&self) -> impl Iterator<Item = (&str, &'a Value)> + '_ {
        self.pairs.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

pub fn is_hash(v: &Value) -> bool {
    matches!(v.kind, Kind::Hash(_))
}

/// `ns:table` or `table` (namespace `default`).
pub fn table_name(v: &Value) -> Result<TTableName, CmdError> {
    let name = bytes(v, "the table name")?;
    if name.is_empty() {
        return Err(CmdError::at(v.pos, "the table name is empty"));
    }
    Ok(split_table_name(&name))
}

pub fn split_table_name(name: &[u8]) -> TTableName {
    match name.iter().position(|&b| b == b':') {
        Some(i) => TTableName {
            ns: Some(name[..i].to_vec()),
            qualifier: name[i + 1..].to_vec(),
        },
        None => TTableName {
            ns: None,
            qualifier: name.to_vec(),
        },
    }
}

/// A table name as the HBase shell prints it (`t` in the default namespace, `ns:t` otherwise).
pub fn show_table(t: &TTableName) -> String {
    let q = String::from_utf8_lossy(&t.qualifier);
    match &t.ns {
        Some(ns) if !ns.is_empty() && ns.as_slice() != b"default" => {
            format!("{}:{q}", String::from_utf8_lossy(ns))
        }
        _ => q.into_owned(),
    }
}

/// Exactly `min..=max` positional arguments (the trailing hash counts when present).
pub fn arity(args: &[Value], min: usize, max: usize, cmd: &str) -> CmdResult {
    if args.len() < min || args.len() > max {
        let want = if min == max {
            format!("{min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(CmdError::usage(format!(
            "wrong number of arguments for {cmd} ({} given, {want} expected)",
            args.len()
        )));
    }
    Ok(())
}

/// `family` or `family:qualifier`, as HBase's `KeyValue.parseColumn`.
pub fn split_column(c: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    match c.iter().position(|&b| b == b':') {
        Some(i) => (c[..i].to_vec(), Some(c[i + 1..].to_vec())),
        None => (c.to_vec(), None),
    }
}
