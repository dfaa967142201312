//! `redbase codegen`: typed client SDKs from table schema files (docs/schema.md). The work is
//! in the `redbase-codegen` crate; this is its command line. A build without the `codegen`
//! feature (`--no-default-features`) keeps the command and its flags but only says so.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
// Without the generator nothing reads the flags.
#[cfg_attr(not(feature = "codegen"), allow(dead_code))]
pub struct CodegenArgs {
    /// A schema file (TOML); repeat to build one SDK from several.
    #[arg(long = "schema", value_name = "FILE")]
    schemas: Vec<PathBuf>,
    /// Target language: python, go, typescript, rust, java.
    #[arg(long)]
    lang: Option<String>,
    /// Where the SDK goes; only files whose content changed are written.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Package name, overriding the schemas' `package`.
    #[arg(long)]
    package: Option<String>,
    /// Regenerate everything under sdks/ (every language and the test vectors) from
    /// sdks/schemas/*.toml.
    #[arg(long, conflicts_with_all = ["schemas", "lang", "out", "package"])]
    all: bool,
    /// The repository root for --all.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Write nothing; exit 1 listing the files that would change.
    #[arg(long)]
    check: bool,
}

#[cfg(feature = "codegen")]
pub fn run(args: CodegenArgs) -> ExitCode {
    let opts = redbase_codegen::Options {
        schemas: args.schemas,
        lang: args.lang,
        out: args.out,
        package: args.package,
        all: args.all,
        root: args.root,
        check: args.check,
    };
    match redbase_codegen::run(&opts) {
        Ok(changed) if opts.check && !changed.is_empty() => {
            for p in &changed {
                eprintln!("would change: {}", p.display());
            }
            ExitCode::FAILURE
        }
        Ok(changed) => {
            for p in &changed {
                println!("{}", p.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("redbase codegen: {e}");
            ExitCode::from(2)
        }
    }
}

/// A build without the generator: says so, exit status 2.
#[cfg(not(feature = "codegen"))]
pub fn run(_args: CodegenArgs) -> ExitCode {
    eprintln!(
        "redbase codegen: this redbase binary was built without the `codegen` feature \
         (cargo build --no-default-features); rebuild it with default features \
         (cargo build -p redbase, or cargo install --path server) to generate SDKs"
    );
    ExitCode::from(2)
}
