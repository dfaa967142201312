//! Fuzz targets that run as ordinary tests: bounded, deterministic (fixed proptest seeds), a
//! few seconds each, so `cargo test --workspace` runs them on every change.
//!
//! - `walker_*`: the frame walker (`redbase::thrift::frame`) on arbitrary bytes and mutated
//!   valid messages;
//! - `decode_*`: `process_message` with both services' real processors over a real engine,
//!   both protocols, arbitrary and mutated-valid messages;
//! - `wire_*`: the same bytes framed and as HTTP bodies through a real server on loopback;
//! - `filter_*`: the filter-string parser and Thrift2 filterBytes decoding;
//! - `schema_*`: the SDK generator's schema loader;
//! - `native_*`: HBase's native RPC through a real server on loopback, mutated connection
//!   openings from `tests/fuzz_corpus/native/` (fuzz/native.rs).
//!
//! Mutations start from the seed corpus in `tests/fuzz_corpus/` (one message per hex file,
//! the known crashers among them; every file is replayed). Run longer with
//! `PROPTEST_CASES=100000 cargo test --release -p redbase --test fuzz`, other cases with
//! `FUZZ_SEED=<n>`; docs/reliability.md has the details and the long hostile run.

#[path = "fuzz/calls.rs"]
mod calls;
#[path = "fuzz/corpus.rs"]
mod corpus;
#[path = "fuzz/decode.rs"]
mod decode;
#[path = "fuzz/filters.rs"]
mod filters;
#[path = "fuzz/native.rs"]
mod native;
#[path = "native_support/mod.rs"]
mod native_support;
#[path = "fuzz/runner.rs"]
mod runner;
#[path = "fuzz/schema.rs"]
mod schema;
#[path = "fuzz/walker.rs"]
mod walker;
#[path = "fuzz/wire.rs"]
mod wire;

use corpus::Proto;

/// The valid-call part of the corpus is what the generated clients write today: a change to
/// the IDL or the clients shows here. `FUZZ_WRITE_CORPUS=1 cargo test -p redbase --test fuzz
/// corpus_of_valid_calls_is_current` rewrites it instead.
#[test]
fn corpus_of_valid_calls_is_current() {
    let write = std::env::var_os("FUZZ_WRITE_CORPUS").is_some();
    let dir = corpus::dir();
    if write {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let mut stale = Vec::new();
    for proto in [Proto::Binary, Proto::Compact] {
        for (service, list) in [(1, calls::thrift1(proto)), (2, calls::thrift2(proto))] {
            for (name, m) in list {
                let file = dir.join(format!("t{service}-buffered-{}-{name}.hex", proto.name()));
                let mut text = format!(
                    "# A valid Thrift{service} {name} call ({}), as the generated client writes it.\n",
                    proto.name()
                );
                for line in m.chunks(32) {
                    text.push_str(&corpus::hex(line));
                    text.push('\n');
                }
                if write {
                    std::fs::write(file, text).unwrap();
                } else if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
                    stale.push(file.display().to_string());
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "corpus files differ from what the generated clients write (rerun with FUZZ_WRITE_CORPUS=1): {stale:?}"
    );
}

/// The native corpus is what `fuzz/native.rs`'s `seeds` writes (`FUZZ_WRITE_CORPUS=1`
/// rewrites it).
#[test]
fn native_corpus_is_current() {
    native::corpus_is_current();
}

#[test]
fn native_mutated_openings_are_answered_or_closed() {
    native::mutated_openings_are_answered_or_closed();
}
