//! Compiles server/proto/ (the serialized filters of Thrift2 `filterBytes`) into Rust types.
//!
//! prost-build generates the types; protox parses the .proto files in pure Rust, so building
//! needs no system `protoc` (the container and CI images have none).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = ["proto/filter.proto"];
    let descriptors = protox::compile(files, ["proto"])?;
    // `bytes` fields as `bytes::Bytes`: a nested filter is then a slice of its parent's buffer,
    // not a copy at every level.
    prost_build::Config::new()
        .bytes(["."])
        .compile_fds(descriptors)?;
    for f in [
        "proto/filter.proto",
        "proto/comparator.proto",
        "proto/shared.proto",
    ] {
        println!("cargo:rerun-if-changed={f}");
    }
    Ok(())
}
