//! The command table: every command's name, group, help text and handler. `help`, tab
//! completion and dispatch all read this one table, so a command cannot exist without help.

use crate::generated::hbase2::TTHBaseServiceSyncClient as _;
use std::time::Instant;

use super::args::{CmdError, CmdResult};
use super::parser::Command;
use super::{ddl, dml, general, namespace, regions, scan, Session};

pub type Handler = fn(&mut Session, &Command) -> CmdResult;

pub struct Spec {
    pub name: &'static str,
    pub group: &'static str,
    /// One line for `help`'s list.
    pub summary: &'static str,
    /// Examples shown by `help 'name'`.
    pub usage: &'static str,
    pub run: Handler,
}

pub const GROUPS: &[&str] = &["general", "ddl", "namespace", "dml", "regions"];

macro_rules! spec {
    ($name:literal, $group:literal, $run:path, $summary:literal, $usage:literal) => {
        Spec {
            name: $name,
            group: $group,
            run: $run,
            summary: $summary,
            usage: $usage,
        }
    };
}

pub static COMMANDS: &[Spec] = &[
    spec!("status", "general", general::status, "Servers and regions the gateway reports.",
        "  status\n  status 'summary'"),
    spec!("version", "general", general::version, "This shell's version and the server it talks to.",
        "  version"),
    spec!("whoami", "general", general::whoami, "The user this shell runs as.", "  whoami"),
    spec!("help", "general", general::help, "Commands, or one command's usage.",
        "  help\n  help 'scan'\n  help 'ddl'"),
    spec!("create", "ddl", ddl::create, "Create a table with families, split keys or a split algorithm.",
        "  create 't1', 'f1', 'f2'\n  create 't1', {NAME => 'f1', VERSIONS => 5, TTL => 86400}\n  create 'ns1:t1', 'f1', SPLITS => ['10', '20', '30']\n  create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}"),
    spec!("alter", "ddl", ddl::alter, "Add, change or delete families; change table attributes.",
        "  alter 't1', NAME => 'f1', VERSIONS => 5\n  alter 't1', 'f2'\n  alter 't1', NAME => 'f1', METHOD => 'delete'\n  alter 't1', 'delete' => 'f1'\n  alter 't1', MAX_FILESIZE => '134217728'"),
    spec!("describe", "ddl", ddl::describe, "A table's state, attributes and families.", "  describe 't1'"),
    spec!("desc", "ddl", ddl::describe, "Same as describe.", "  desc 't1'"),
    spec!("list", "ddl", ddl::list, "Tables, optionally those whose names match a regex.",
        "  list\n  list 'abc.*'\n  list 'ns:abc.*'"),
    spec!("exists", "ddl", ddl::exists, "Whether a table exists.", "  exists 't1'"),
    spec!("enable", "ddl", ddl::enable, "Enable a table.", "  enable 't1'"),
    spec!("disable", "ddl", ddl::disable, "Disable a table.", "  disable 't1'"),
    spec!("is_enabled", "ddl", ddl::is_enabled, "Whether a table is enabled.", "  is_enabled 't1'"),
    spec!("is_disabled", "ddl", ddl::is_disabled, "Whether a table is disabled.", "  is_disabled 't1'"),
    spec!("drop", "ddl", ddl::drop, "Delete a disabled table.", "  drop 't1'"),
    spec!("truncate", "ddl", ddl::truncate, "Disable, empty and re-create a table (one region).",
        "  truncate 't1'"),
    spec!("truncate_preserve", "ddl", ddl::truncate_preserve, "Empty a table, keeping its region boundaries.",
        "  truncate_preserve 't1'"),
    spec!("create_namespace", "namespace", namespace::create, "Create a namespace, optionally with properties.",
        "  create_namespace 'ns1'\n  create_namespace 'ns1', {'PROPERTY_NAME' => 'PROPERTY_VALUE'}"),
    spec!("describe_namespace", "namespace", namespace::describe, "A namespace and its properties.",
        "  describe_namespace 'ns1'"),
    spec!("list_namespace", "namespace", namespace::list, "Namespaces, optionally matching a regex.",
        "  list_namespace\n  list_namespace 'ns.*'"),
    spec!("list_namespace_tables", "namespace", namespace::tables, "The tables of a namespace.",
        "  list_namespace_tables 'ns1'"),
    spec!("alter_namespace", "namespace", namespace::alter, "Set or unset a namespace property.",
        "  alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}\n  alter_namespace 'ns1', {METHOD => 'unset', NAME => 'PROPERTY_NAME'}"),
    spec!("drop_namespace", "namespace", namespace::drop, "Delete an empty namespace.", "  drop_namespace 'ns1'"),
    spec!("put", "dml", dml::put, "Write one cell.",
        "  put 't1', 'r1', 'f1:c1', 'value'\n  put 't1', 'r1', 'f1:c1', 'value', 1446726973017"),
    spec!("get", "dml", dml::get, "Read one row.",
        "  get 't1', 'r1'\n  get 't1', 'r1', 'f1:c1', 'f1:c2'\n  get 't1', 'r1', {COLUMN => ['f1:c1'], VERSIONS => 3}\n  get 't1', 'r1', {TIMERANGE => [1, 2000000000000], FILTER => \"ValueFilter(=, 'binary:v')\"}\n  get 't1', 'r1', {TIMESTAMP => 1446726973017}"),
    spec!("scan", "dml", scan::scan, "Read rows in key order (Ctrl-C stops a long scan).",
        "  scan 't1'\n  scan 't1', {STARTROW => 'a', STOPROW => 'b', LIMIT => 10}\n  scan 't1', {ROWPREFIXFILTER => 'user1', COLUMNS => ['f1:c1'], REVERSED => true}\n  scan 't1', {FILTER => \"PrefixFilter('r') AND KeyOnlyFilter()\", VERSIONS => 3, RAW => true}"),
    spec!("count", "dml", scan::count, "Count a table's rows.",
        "  count 't1'\n  count 't1', INTERVAL => 100000, CACHE => 1000"),
    spec!("delete", "dml", dml::delete, "Delete the versions of one cell (up to a timestamp).",
        "  delete 't1', 'r1', 'f1:c1'\n  delete 't1', 'r1', 'f1:c1', 1446726973017"),
    spec!("deleteall", "dml", dml::deleteall, "Delete a row, or a family or column of it.",
        "  deleteall 't1', 'r1'\n  deleteall 't1', 'r1', 'f1'\n  deleteall 't1', 'r1', 'f1:c1', 1446726973017"),
    spec!("incr", "dml", dml::incr, "Add to a counter cell (8-byte big-endian).",
        "  incr 'counters', 'rk1', 'c:1'\n  incr 'counters', 'rk1', 'c:2', 100"),
    spec!("get_counter", "dml", dml::get_counter, "Read a counter cell.", "  get_counter 'counters', 'rk1', 'c:1'"),
    spec!("append", "dml", dml::append, "Append bytes to a cell.", "  append 't1', 'r1', 'f1:c1', 'more'"),
    spec!("get_splits", "regions", regions::get_splits, "A table's split keys.", "  get_splits 't1'"),
    spec!("list_regions", "regions", regions::list_regions, "A table's regions: server, name, keys.",
        "  list_regions 't1'"),
    spec!("locate_region", "regions", regions::locate_region, "The region that holds a row.",
        "  locate_region 't1', 'r1'"),
];

pub fn find(name: &str) -> Option<&'static Spec> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// Runs one parsed command: its output, then (text mode) the `Took` line. Errors print as
/// HBase's shell prints them, `ERROR: ...`, with a pointer to the command's help.
pub fn execute(session: &mut Session, cmd: &Command) -> CmdResult {
    let Some(spec) = find(&cmd.name) else {
        let hint = match nearest(&cmd.name).as_slice() {
            [] => String::new(),
            [one] => format!(": did you mean '{one}'?"),
            many => format!(": did you mean one of '{}'?", many.join("', '")),
        };
        let err = CmdError::failed(format!(
            "unknown command '{}' at {}{hint} (try 'help')",
            cmd.name, cmd.pos
        ));
        print_error(session, &err, None);
        return Err(err);
    };
    let started = Instant::now();
    session
        .interrupted
        .store(false, std::sync::atomic::Ordering::SeqCst);
    session.ret = None;
    let result = (spec.run)(session, cmd).map_err(|e| match spec.name {
        "create" => table_exists(session, cmd, e),
        _ => unknown_table(session, cmd, e),
    });
    match &result {
        Ok(()) => {}
        Err(e) => print_error(session, e, Some(spec.name)),
    }
    if spec.name != "help" && result.is_ok() {
        session.out.took(started);
        if let Some(r) = session.ret.take() {
            session.out.ret(&r);
        }
    }
    session.out.flush();
    result
}

/// Commands whose first argument names an existing table.
const ON_A_TABLE: &[&str] = &[
    "alter",
    "describe",
    "desc",
    "enable",
    "disable",
    "is_enabled",
    "is_disabled",
    "drop",
    "truncate",
    "truncate_preserve",
    "put",
    "get",
    "scan",
    "count",
    "delete",
    "deleteall",
    "incr",
    "get_counter",
    "append",
    "get_splits",
    "list_regions",
    "locate_region",
];

/// A server error on a table that does not exist reads as HBase's shell says it, `Unknown
/// table t!`, whatever text the server gave (HBase's Thrift2 gateway answers only the table's
/// name, redbase a sentence): the shell asks whether the table exists, as HBase's shell
/// translates a TableNotFoundException.
fn unknown_table(session: &mut Session, cmd: &Command, e: CmdError) -> CmdError {
    if e.usage || !ON_A_TABLE.contains(&cmd.name.as_str()) {
        return e;
    }
    let Some(name) = cmd
        .args
        .first()
        .and_then(|v| super::args::table_name(v).ok())
    else {
        return e;
    };
    match session.call(|c| c.table_exists(name.clone())) {
        Ok(false) => CmdError::failed(format!("Unknown table {}!", super::args::show_table(&name))),
        _ => e,
    }
}

/// A `create` refused because the table is there reads as HBase's shell says it, `Table
/// already exists: t!`, whatever text the server gave: the shell asks, as HBase's translates a
/// TableExistsException.
fn table_exists(session: &mut Session, cmd: &Command, e: CmdError) -> CmdError {
    if e.usage {
        return e;
    }
    let Some((first, name)) = cmd
        .args
        .first()
        .and_then(|v| Some((v, super::args::table_name(v).ok()?)))
    else {
        return e;
    };
    match session.call(|c| c.table_exists(name.clone())) {
        Ok(true) => CmdError::failed(format!(
            "Table already exists: {}!",
            super::args::text(first, "a table name")
                .unwrap_or_else(|_| super::args::show_table(&name))
        )),
        _ => e,
    }
}

/// The commands a mistyped name most likely meant: those one edit away (two for longer
/// names; a swap of neighbours is one edit), or else those it begins, at most three.
pub fn nearest(word: &str) -> Vec<&'static str> {
    let most = if word.chars().count() >= 6 { 2 } else { 1 };
    let names = COMMANDS.iter().map(|c| c.name).chain(["exit", "quit"]);
    let mut close: Vec<(usize, &'static str)> = names
        .clone()
        .map(|n| (edit_distance(word, n), n))
        .filter(|(d, _)| *d <= most)
        .collect();
    close.sort();
    let best = close.first().map(|(d, _)| *d);
    let mut out: Vec<&'static str> = close
        .into_iter()
        .filter(|(d, _)| Some(*d) == best)
        .map(|(_, n)| n)
        .collect();
    if out.is_empty() && word.len() >= 3 {
        out = names.filter(|n| n.starts_with(word)).collect();
    }
    out.truncate(3);
    out
}

/// Edits (insert, delete, replace, swap of two neighbours) from `a` to `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

fn print_error(session: &mut Session, e: &CmdError, cmd: Option<&str>) {
    if session.out.json {
        session
            .out
            .json(serde_json::json!({"error": e.message, "command": cmd}));
        return;
    }
    session.out.line(&format!("ERROR: {}", e.message));
    if let (true, Some(c)) = (e.usage, cmd) {
        session.out.line("");
        session.out.line(&format!("For usage try 'help \"{c}\"'"));
    }
    session.out.line("");
}

#[cfg(test)]
mod tests {
    use super::nearest;

    #[test]
    fn a_mistyped_command_finds_the_one_meant() {
        assert_eq!(nearest("scna"), ["scan"]);
        assert_eq!(nearest("lsit"), ["list"]);
        assert_eq!(nearest("craete"), ["create"]);
        assert_eq!(nearest("describe_namspace"), ["describe_namespace"]);
        assert_eq!(nearest("gett"), ["get"]);
        assert_eq!(nearest("quti"), ["quit"]);
        assert_eq!(
            nearest("list_name"),
            ["list_namespace", "list_namespace_tables"]
        );
        assert!(nearest("frobnicate").is_empty());
        assert!(nearest("x").is_empty());
    }
}
