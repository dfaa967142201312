//! General commands: `status`, `version`, `whoami`, `help`. Thrift2 shows no masters or
//! server load, so `status` counts the servers and regions the gateway's region locations
//! name.

use crate::generated::hbase2::TTHBaseServiceSyncClient as _;
use std::collections::BTreeSet;

use super::args::{arity, text, CmdError, CmdResult};
use super::commands::{find, COMMANDS, GROUPS};
use super::parser::Command;
use super::Session;

pub fn status(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 0, 1, "status")?;
    if let Some(v) = cmd.args.first() {
        let kind = text(v, "the status format")?;
        if !["summary", "simple", "detailed"].contains(&kind.as_str()) {
            return Err(CmdError::at(
                v.pos,
                format!("unknown status format '{kind}' (summary, simple, detailed)"),
            ));
        }
    }
    let tables = s.call(|c| c.get_table_names_by_pattern(".*".into(), false))?;
    let mut servers = BTreeSet::new();
    let mut regions = 0usize;
    for t in &tables {
        let name = super::args::show_table(t).into_bytes();
        let locs = s.call(|c| c.get_all_region_locations(name))?;
        regions += locs.len();
        for l in locs {
            servers.insert((l.server_name.host_name, l.server_name.port));
        }
    }
    let n = servers.len().max(1);
    if s.out.json {
        s.out.json(serde_json::json!({"servers": servers.len(), "tables": tables.len(), "regions": regions}));
    } else {
        s.out.line(&format!(
            "{} servers, 0 dead, {:.4} average load ({} regions of {} tables through the Thrift2 gateway at {})",
            servers.len(),
            regions as f64 / n as f64,
            regions,
            tables.len(),
            s.addr()
        ));
    }
    Ok(())
}

pub fn version(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 0, 0, "version")?;
    let kind = s.call(|c| c.get_thrift_server_type())?;
    let id = s.call(|c| c.get_cluster_id())?;
    let server = if kind.0 == 2 { "Thrift2" } else { "Thrift1" };
    if s.out.json {
        s.out.json(serde_json::json!({"shell": env!("CARGO_PKG_VERSION"), "server_type": server, "cluster_id": id}));
    } else {
        s.out.line(&format!(
            "redbase shell {} (HBase 2.6 shell commands), {server} server at {}, cluster id {id}",
            env!("CARGO_PKG_VERSION"),
            s.addr()
        ));
    }
    Ok(())
}

pub fn whoami(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 0, 0, "whoami")?;
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .ok()
        .or_else(user_from_passwd)
        .unwrap_or_else(|| "unknown".into());
    if s.out.json {
        s.out
            .json(serde_json::json!({"user": user, "auth": "SIMPLE"}));
    } else {
        s.out.line(&format!("{user} (auth:SIMPLE)"));
    }
    Ok(())
}

pub fn help(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 0, 1, "help")?;
    if let Some(v) = cmd.args.first() {
        let name = text(v, "a command or group name")?;
        if let Some(spec) = find(&name) {
            s.out.line(&format!("{}: {}", spec.name, spec.summary));
            s.out.line("Examples:");
            s.out.line(spec.usage);
            return Ok(());
        }
        if GROUPS.contains(&name.as_str()) {
            s.out.line(&format!("Command group: {name}"));
            for c in COMMANDS.iter().filter(|c| c.group == name) {
                s.out.line(&format!("  {:<22} {}", c.name, c.summary));
            }
            return Ok(());
        }
        return Err(CmdError::at(
            v.pos,
            format!("no command or group named '{name}'"),
        ));
    }
    s.out
        .line("redbase shell: the HBase shell's commands over Thrift2.");
    s.out
        .line("Type 'help \"COMMAND\"' for a command's usage, 'help \"GROUP\"' for a group.");
    s.out.line("");
    for g in GROUPS {
        let names: Vec<&str> = COMMANDS
            .iter()
            .filter(|c| c.group == *g)
            .map(|c| c.name)
            .collect();
        s.out.line(&format!("  Group name: {g}"));
        s.out.line(&format!("  Commands: {}", names.join(", ")));
        s.out.line("");
    }
    s.out.line(
        "Values: 'single' or \"double\" quoted strings (\"\\x00\" escapes in double quotes),",
    );
    s.out
        .line("integers, nil, true, false, [arrays] and {KEY => value} hashes. Commands end at a");
    s.out
        .line("newline or ';'; an open quote or bracket continues on the next line.");
    Ok(())
}

/// The name /etc/passwd gives the owner of this process (whose /proc entry it owns), for
/// when USER and LOGNAME are unset (containers, CI).
fn user_from_passwd() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").ok()?.uid();
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let mut f = l.split(':');
        let name = f.next()?;
        let id: u32 = f.nth(1)?.parse().ok()?;
        (id == uid).then(|| name.to_string())
    })
}
