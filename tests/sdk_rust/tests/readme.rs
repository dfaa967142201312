//! The generated README's quick start (sdks/rust/README.md), compiled from the README itself by
//! build.rs (not copied here) and run against the gateway under test (REDBASE_SDK_TARGET). The
//! test harness has its own entry point, so the README's `main` is an ordinary function here.

include!(concat!(env!("OUT_DIR"), "/readme_quick_start.rs"));

#[test]
fn the_readme_quick_start_runs() {
    main().expect("the README's quick start");
}
