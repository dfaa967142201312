//! Moving data in and out of tables as files (docs/operations.md, "Moving data"):
//! `redbase export` writes tables to a versioned export file (docs/export-format.md) over
//! Thrift2 scans, `redbase import` reads one back (or a CSV/TSV file mapped through a schema's
//! key design) through Thrift2 or straight into an offline data directory, and `redbase copy`
//! moves a table between two Thrift2 servers region by region, resumably. Over Thrift2 so the
//! other side can be redbase or a real HBase gateway.
//!
//! Map: [`format`] and [`descriptor`] are the export file (header with descriptors and split
//! points, row lines, a trailer with counts and CRC-32); [`scan`] is what export, copy and
//! verification read; [`export`], [`import`] (with [`csv`] through a schema's key design) and
//! [`sink`] (Thrift2 `putMultiple` or the engine offline, on a writer thread) move the rows;
//! [`copy`] runs a copy with [`copy_region`] workers on a [`workers`] pool, resumable from a
//! [`checkpoint`] and checked by [`verify`]; [`client`] and [`progress`] are the connection
//! and the progress bar.

mod checkpoint;
mod client;
mod copy;
mod copy_region;
#[cfg(feature = "codegen")]
mod csv;
pub mod descriptor;
mod export;
pub mod format;
mod import;
mod progress;
mod scan;
mod sink;
mod verify;
mod workers;

use std::process::ExitCode;

pub use copy::CopyArgs;
pub use export::ExportArgs;
pub use import::ImportArgs;

/// `redbase export`: 0 when the file is complete, 1 on any error (no file is left).
pub fn export(args: ExportArgs) -> ExitCode {
    match export::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("redbase export: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `redbase copy`: 0 when every region was copied (and, with --verify, found equal), 1 on an
/// error or a difference.
pub fn copy(args: CopyArgs) -> ExitCode {
    match copy::run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("redbase copy: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `redbase import`: 0 when every line was imported or skipped within --max-errors, 1 otherwise.
pub fn import(args: ImportArgs) -> ExitCode {
    let result = match (&args.input, &args.csv) {
        (Some(path), _) => import::run(&args, path),
        (None, Some(path)) => import_csv(&args, path),
        (None, None) => Err("give --in FILE or --csv FILE".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("redbase import: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "codegen")]
fn import_csv(args: &ImportArgs, path: &std::path::Path) -> Result<(), String> {
    csv::run(args, path)
}

/// The CSV importer builds keys with the SDK generator's codec, left out of this build.
#[cfg(not(feature = "codegen"))]
fn import_csv(_args: &ImportArgs, _path: &std::path::Path) -> Result<(), String> {
    Err(
        "--csv needs the `codegen` feature (the schema loader and key codec), which this \
         binary was built without; rebuild with default features"
            .into(),
    )
}
