//! Extracts the quick start of the generated README (sdks/rust/README.md: the first rust block
//! under "## Quick start") into `$OUT_DIR/readme_quick_start.rs`, so `tests/readme.rs` compiles
//! and runs the README's own code; only the address it dials becomes the gateway under test.

use std::path::{Path, PathBuf};

const DIAL: &str = "Connection::connect(\"127.0.0.1\", 9091)";

fn main() {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdks/rust/README.md");
    println!("cargo:rerun-if-changed={}", readme.display());
    let text = std::fs::read_to_string(&readme).expect("sdks/rust/README.md");
    let at = text
        .find("\n## Quick start\n")
        .expect("the README has a Quick start section");
    let block = text[at..]
        .split("```rust\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a rust block under Quick start");
    assert_eq!(
        block.matches(DIAL).count(),
        1,
        "the README's quick start dials redbase's Thrift2 port once"
    );
    let code = block.replacen(
        DIAL,
        "Connection::connect(&sdk_rust_tests::target().0, sdk_rust_tests::target().1)",
        1,
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("readme_quick_start.rs"), code).expect("write the quick start");
}
