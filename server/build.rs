//! Compiles server/proto/ into Rust types: the serialized filters of Thrift2 `filterBytes`
//! (package `redbase.hbase`) and HBase's native RPC messages (`proto/native/`, package
//! `redbase.native`), which reuse the filter and comparator messages.
//!
//! prost-build generates the types; protox parses the .proto files in pure Rust, so building
//! needs no system `protoc` (the container and CI images have none).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = [
        "proto/filter.proto",
        "proto/native/rpc.proto",
        "proto/native/hbase.proto",
        "proto/native/cell.proto",
        "proto/native/client.proto",
        "proto/native/master.proto",
        "proto/native/registry.proto",
        "proto/native/zookeeper.proto",
        "proto/native/cluster.proto",
        "proto/native/access.proto",
    ];
    let descriptors = protox::compile(files, ["proto"])?;
    // `bytes` fields as `bytes::Bytes`: a nested filter is then a slice of its parent's buffer,
    // not a copy at every level, and a cell's value a slice of the request.
    prost_build::Config::new()
        .bytes(["."])
        .compile_fds(descriptors)?;
    for f in files
        .iter()
        .chain(&["proto/comparator.proto", "proto/shared.proto"])
    {
        println!("cargo:rerun-if-changed={f}");
    }
    Ok(())
}
