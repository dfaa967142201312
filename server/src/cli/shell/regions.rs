//! Region commands: `get_splits`, `list_regions`, `locate_region`, from Thrift2's region
//! locations. Region names are built as HBase builds them (`table,startkey,id.encoded.`, the
//! encoded part the MD5 of the rest in hex), since Thrift2 returns only their parts.

use crate::generated::hbase2::TTHBaseServiceSyncClient as _;
use md5::{Digest, Md5};

use super::args::{arity, bytes, show_table, table_name, CmdResult};
use super::format::{json_bytes, ruby_list, to_string_binary};
use super::parser::Command;
use super::Session;
use crate::generated::hbase2::{THRegionInfo, THRegionLocation};

/// HBase's region name and its encoded form.
fn region_name(r: &THRegionInfo) -> (String, String) {
    let mut name = r.table_name.clone();
    name.push(b',');
    name.extend_from_slice(r.start_key.as_deref().unwrap_or_default());
    name.push(b',');
    name.extend_from_slice(r.region_id.to_string().as_bytes());
    let encoded: String = Md5::digest(&name)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (format!("{}.{encoded}.", to_string_binary(&name)), encoded)
}

fn server(l: &THRegionLocation) -> String {
    let s = &l.server_name;
    match (s.port, s.start_code) {
        (Some(p), Some(c)) => format!("{},{p},{c}", s.host_name),
        (Some(p), None) => format!("{}:{p}", s.host_name),
        _ => s.host_name.clone(),
    }
}

fn locations(
    s: &mut Session,
    cmd: &Command,
) -> Result<Vec<THRegionLocation>, super::args::CmdError> {
    let name = show_table(&table_name(&cmd.args[0])?).into_bytes();
    let mut locs = s.call(|c| c.get_all_region_locations(name))?;
    locs.sort_by(|a, b| a.region_info.start_key.cmp(&b.region_info.start_key));
    Ok(locs)
}

pub fn get_splits(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "get_splits")?;
    let locs = locations(s, cmd)?;
    let keys: Vec<Vec<u8>> = locs
        .iter()
        .filter_map(|l| l.region_info.start_key.clone())
        .filter(|k| !k.is_empty())
        .collect();
    if s.out.json {
        let k: Vec<_> = keys.iter().map(|k| json_bytes(k)).collect();
        s.out.json(serde_json::json!({"splits": k}));
        return Ok(());
    }
    s.out
        .line(&format!("Total number of splits = {}", keys.len() + 1));
    let shown: Vec<String> = keys.iter().map(|k| to_string_binary(k)).collect();
    for k in &shown {
        s.out.line(k);
    }
    s.ret = Some(ruby_list(&shown));
    Ok(())
}

pub fn list_regions(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 1, 1, "list_regions")?;
    let locs = locations(s, cmd)?;
    let rows: Vec<[String; 4]> = locs
        .iter()
        .map(|l| {
            let r = &l.region_info;
            [
                server(l),
                region_name(r).0,
                to_string_binary(r.start_key.as_deref().unwrap_or_default()),
                to_string_binary(r.end_key.as_deref().unwrap_or_default()),
            ]
        })
        .collect();
    if s.out.json {
        for r in &rows {
            s.out.json(serde_json::json!({"server": r[0], "region": r[1], "start_key": r[2], "end_key": r[3]}));
        }
        return Ok(());
    }
    let head = ["SERVER_NAME", "REGION_NAME", "START_KEY", "END_KEY"];
    let widths: Vec<usize> = (0..4)
        .map(|i| {
            rows.iter()
                .map(|r| r[i].len())
                .chain([head[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: [&str; 4]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect();
        format!(" {} |", parts.join(" | "))
    };
    s.out.line(&line(head));
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    s.out
        .line(&line([&dashes[0], &dashes[1], &dashes[2], &dashes[3]]));
    for r in &rows {
        s.out.line(&line([&r[0], &r[1], &r[2], &r[3]]));
    }
    s.out.line(&format!(" {} rows", rows.len()));
    Ok(())
}

pub fn locate_region(s: &mut Session, cmd: &Command) -> CmdResult {
    arity(&cmd.args, 2, 2, "locate_region")?;
    let name = show_table(&table_name(&cmd.args[0])?).into_bytes();
    let row = bytes(&cmd.args[1], "the row")?;
    let l = s.call(|c| c.get_region_location(name, row, false))?;
    let r = &l.region_info;
    let (full, encoded) = region_name(r);
    let start = to_string_binary(r.start_key.as_deref().unwrap_or_default());
    let end = to_string_binary(r.end_key.as_deref().unwrap_or_default());
    let host = match l.server_name.port {
        Some(p) => format!("{}:{p}", l.server_name.host_name),
        None => l.server_name.host_name.clone(),
    };
    if s.out.json {
        s.out.json(serde_json::json!({"host": host, "region": full, "encoded": encoded, "start_key": start, "end_key": end}));
        return Ok(());
    }
    s.out.header("HOST", "REGION");
    s.out.row(
        &host,
        &format!(
            "{{ENCODED => {encoded}, NAME => '{full}', STARTKEY => '{start}', ENDKEY => '{end}'}}"
        ),
    );
    s.out.line("1 row(s)");
    Ok(())
}
