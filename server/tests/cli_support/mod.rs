//! Running the real `redbase` binary from tests: the command, a free loopback port, and its
//! output read as the tests check it. Shared by `move_support` and `backup_support`.
#![allow(dead_code)]

use std::process::{Command, Output};

pub fn redbase() -> Command {
    Command::new(env!("CARGO_BIN_EXE_redbase"))
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Asserts exit status 0 and returns stdout.
pub fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "status {:?}\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Asserts exit status 1 and returns stderr.
pub fn fails(out: Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stderr)
}
