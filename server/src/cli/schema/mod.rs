//! `redbase schema diff | apply`: the schema files (docs/schema.md) against the live tables of
//! a Thrift2 gateway, redbase's or HBase's. `diff` lists what differs (missing or extra
//! families and tables, family settings, split points; the rules are
//! `redbase_codegen::drift`); `apply` makes the tables match: it creates missing tables (with
//! their namespace and split keys), adds missing families and modifies settings, but deletes a
//! family only with `--allow-drop` and never changes split points (a gateway cannot re-split a
//! table). Exit status: 0 when the tables match (after `apply`), 1 when drift remains, 2 when
//! the schema cannot be read or the gateway fails.

#[cfg(feature = "codegen")]
mod descriptors;

use std::path::PathBuf;
use std::process::ExitCode;

use crate::cli::connect::AuthArgs;
use crate::cli::shell::client::{Protocol, Transport};

#[derive(clap::Args, Debug)]
// Without the generator nothing reads the flags.
#[cfg_attr(not(feature = "codegen"), allow(dead_code))]
pub struct SchemaArgs {
    #[command(subcommand)]
    command: SchemaCommand,
}

#[derive(clap::Subcommand, Debug)]
#[cfg_attr(not(feature = "codegen"), allow(dead_code))]
enum SchemaCommand {
    /// List how the live tables differ from the schema files (exit 1 if they do).
    Diff(Target),
    /// Make the live tables match the schema files: create tables, add families, modify
    /// settings (never drops a family without --allow-drop; never changes split points).
    Apply {
        #[command(flatten)]
        target: Target,
        /// Also delete live families the schema does not have, with their data.
        #[arg(long)]
        allow_drop: bool,
    },
}

#[derive(clap::Args, Debug)]
#[cfg_attr(not(feature = "codegen"), allow(dead_code))]
struct Target {
    /// A schema file (TOML); repeat for several (one SDK's files).
    #[arg(long = "schema", value_name = "FILE", required = true)]
    schemas: Vec<PathBuf>,
    /// Only these tables (schema ids, e.g. access_logs); repeatable. Default: every table.
    #[arg(long = "table", value_name = "ID")]
    tables: Vec<String>,
    /// Put this in front of every table name (as the SDKs' table prefix does).
    #[arg(long, default_value = "")]
    table_prefix: String,
    /// The Thrift2 (`THBaseService`) server: redbase's `--thrift2-addr` or HBase's `hbase
    /// thrift2` gateway.
    #[arg(long = "thrift2", default_value = "127.0.0.1:9091")]
    thrift2: String,
    /// Thrift transport the server expects (HBase's default is buffered).
    #[arg(long, value_enum, default_value_t = Transport::Buffered)]
    transport: Transport,
    /// Thrift protocol the server expects (HBase's default is binary).
    #[arg(long, value_enum, default_value_t = Protocol::Binary)]
    protocol: Protocol,
    /// TLS and credentials (with --user the transport is SASL's, framed).
    #[command(flatten)]
    auth: AuthArgs,
}

#[cfg(not(feature = "codegen"))]
pub fn run(_: SchemaArgs) -> ExitCode {
    eprintln!(
        "redbase schema: this build has no schema support (it was built without the `codegen` \
         feature); build with default features"
    );
    ExitCode::from(2)
}

#[cfg(feature = "codegen")]
pub fn run(args: SchemaArgs) -> ExitCode {
    let (target, apply, allow_drop) = match args.command {
        SchemaCommand::Diff(t) => (t, false, false),
        SchemaCommand::Apply { target, allow_drop } => (target, true, allow_drop),
    };
    match run_on(&target, apply, allow_drop) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("redbase schema: {e}");
            ExitCode::from(2)
        }
    }
}

/// Diffs (and with `apply`, fixes) every selected table; true when they all match at the end.
#[cfg(feature = "codegen")]
fn run_on(target: &Target, apply: bool, allow_drop: bool) -> Result<bool, String> {
    use crate::cli::shell::client::{connect, describe_error};
    use crate::generated::hbase2::TTHBaseServiceSyncClient;
    use redbase_codegen::drift::{self, Fix};

    let model = redbase_codegen::load(&target.schemas, None).map_err(|e| e.to_string())?;
    for id in &target.tables {
        if !model.tables.iter().any(|t| &t.id == id) {
            let known: Vec<&str> = model.tables.iter().map(|t| t.id.as_str()).collect();
            return Err(format!(
                "--table {id}: no such table in the schema (it has {})",
                known.join(", ")
            ));
        }
    }
    let security = target.auth.resolve(&target.thrift2)?;
    let mut c = connect(
        &target.thrift2,
        &security,
        target.transport,
        target.protocol,
    )?;
    let call = |what: &str, e: thrift::Error| format!("{what}: {}", describe_error(&e));
    let mut matches = true;
    for t in &model.tables {
        if !target.tables.is_empty() && !target.tables.contains(&t.id) {
            continue;
        }
        let name = descriptors::table_name(t, &target.table_prefix);
        let shown = format!("{}:{}{}", t.namespace, target.table_prefix, t.name);
        let live = read_live(&mut c, &name).map_err(|e| call(&shown, e))?;
        let drifts = drift::diff(t, live.as_ref().map(|(l, _)| l));
        if drifts.is_empty() {
            println!("{shown}: matches the schema");
            continue;
        }
        for d in &drifts {
            println!("{shown}: {d}");
        }
        if !apply {
            matches = false;
            continue;
        }
        let mut left = Vec::new();
        let mut modified = std::collections::BTreeSet::new();
        for d in &drifts {
            let fixed = match (d.fix(), d) {
                (Fix::CreateTable, _) => {
                    create_namespace(&mut c, &t.namespace).map_err(|e| call(&shown, e))?;
                    c.create_table(
                        descriptors::table_descriptor(t, &target.table_prefix),
                        t.splits.clone(),
                    )
                    .map_err(|e| call(&format!("{shown}: create"), e))?;
                    "created the table with its families and split keys".to_string()
                }
                (Fix::AddFamily, drift::Drift::MissingFamily(f)) => {
                    let family = t
                        .families
                        .iter()
                        .find(|x| &x.name == f)
                        .ok_or("no family")?;
                    c.add_column_family(name.clone(), descriptors::family_descriptor(family, None))
                        .map_err(|e| call(&format!("{shown}: add family {f}"), e))?;
                    format!("added family {f}")
                }
                (Fix::ModifyFamily, drift::Drift::Setting { family: f, .. }) => {
                    if !modified.insert(f.clone()) {
                        continue; // one modify per family sets all its settings
                    }
                    let family = t
                        .families
                        .iter()
                        .find(|x| &x.name == f)
                        .ok_or("no family")?;
                    let base = live.as_ref().and_then(|(_, d)| {
                        d.columns
                            .iter()
                            .flatten()
                            .find(|c| c.name == f.as_bytes())
                            .cloned()
                    });
                    c.modify_column_family(
                        name.clone(),
                        descriptors::family_descriptor(family, base.as_ref()),
                    )
                    .map_err(|e| call(&format!("{shown}: modify family {f}"), e))?;
                    format!("modified family {f}'s settings")
                }
                (Fix::DropFamily, drift::Drift::ExtraFamily(f)) if allow_drop => {
                    c.delete_column_family(name.clone(), f.as_bytes().to_vec())
                        .map_err(|e| call(&format!("{shown}: delete family {f}"), e))?;
                    format!("deleted family {f} and its data (--allow-drop)")
                }
                (Fix::DropFamily, d) => {
                    left.push(format!(
                        "{d}: not deleted (pass --allow-drop to delete it and its data)"
                    ));
                    continue;
                }
                (_, d) => {
                    left.push(format!(
                        "{d}: not changed (a gateway cannot re-split a table; its split points are \
                         fixed when it is created)"
                    ));
                    continue;
                }
            };
            println!("{shown}: {fixed}");
        }
        for l in &left {
            println!("{shown}: {l}");
        }
        // What the gateway reports now must match, but for what was left as it was.
        let after = read_live(&mut c, &name).map_err(|e| call(&shown, e))?;
        let remaining = drift::diff(t, after.as_ref().map(|(l, _)| l));
        let unexpected: Vec<_> = remaining
            .iter()
            .filter(|d| {
                matches!(
                    d.fix(),
                    Fix::CreateTable | Fix::AddFamily | Fix::ModifyFamily
                )
            })
            .collect();
        for d in &unexpected {
            println!("{shown}: still differs after apply: {d}");
        }
        if !remaining.is_empty() {
            matches = false;
        }
    }
    Ok(matches)
}

/// The live table (and its descriptor) or `None` when the gateway has no such table.
#[cfg(feature = "codegen")]
fn read_live(
    c: &mut crate::cli::shell::client::Client,
    name: &crate::generated::hbase2::TTableName,
) -> thrift::Result<
    Option<(
        redbase_codegen::drift::LiveTable,
        crate::generated::hbase2::TTableDescriptor,
    )>,
> {
    use crate::generated::hbase2::TTHBaseServiceSyncClient;
    if !c.table_exists(name.clone())? {
        return Ok(None);
    }
    let desc = c.get_table_descriptor(name.clone())?;
    let mut full = name.qualifier.clone();
    if let Some(ns) = name.ns.as_ref().filter(|ns| ns.as_slice() != b"default") {
        full = [ns.as_slice(), b":", &name.qualifier].concat();
    }
    let starts = c
        .get_all_region_locations(full)?
        .into_iter()
        .map(|l| l.region_info.start_key.unwrap_or_default())
        .collect();
    Ok(Some((descriptors::live_table(&desc, starts), desc)))
}

/// Creates namespace `ns` unless it is `default` or exists.
#[cfg(feature = "codegen")]
fn create_namespace(c: &mut crate::cli::shell::client::Client, ns: &str) -> thrift::Result<()> {
    use crate::generated::hbase2::{TNamespaceDescriptor, TTHBaseServiceSyncClient};
    if ns == "default" || c.get_namespace_descriptor(ns.to_string()).is_ok() {
        return Ok(());
    }
    c.create_namespace(TNamespaceDescriptor {
        name: ns.to_string(),
        configuration: None,
    })
}
