//! `redbase codegen`: typed client SDKs from table schema files (docs/schema.md). The work is
//! in the `redbase-codegen` crate; this is its command line.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
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
