//! Where a client tool's password comes from: `--password-file`, else `REDBASE_PASSWORD`, else
//! a prompt with the terminal's echo off when standard input is a terminal. Never argv: a
//! command line is readable by every user of the machine (`ps`, `/proc/PID/cmdline`) and kept
//! in shell history.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

/// The environment variable a password may come from.
pub const ENV: &str = "REDBASE_PASSWORD";

/// What `--password` (or `--from-password`, `--to-password`) gets.
pub const REFUSED: &str = "--password is not accepted: a password on the command line is visible \
    to every user of this machine (ps, /proc) and stays in shell history; use --password-file \
    FILE, the REDBASE_PASSWORD environment variable, or leave both out to be asked on a terminal";

/// The password of `user` for connections to `addr`.
pub fn read(file: Option<&Path>, user: &str, addr: &str) -> Result<Vec<u8>, String> {
    if let Some(path) = file {
        return from_file(path);
    }
    if let Some(p) = std::env::var_os(ENV) {
        let p = p.into_encoded_bytes();
        if p.is_empty() {
            return Err(format!("{ENV} is set but empty"));
        }
        return Ok(p);
    }
    if std::io::stdin().is_terminal() {
        return prompt(&format!("Password for {user} at {addr}: "));
    }
    Err(format!(
        "user {user} needs a password: give --password-file FILE or set {ENV} (standard input is \
         not a terminal, so it cannot be asked for)"
    ))
}

/// The file's first line, without its line ending.
fn from_file(path: &Path) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read the password file {}: {e}", path.display()))?;
    warn_if_readable_by_others(path);
    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return Err(format!(
            "the password file {} is empty (the password is its first line)",
            path.display()
        ));
    }
    Ok(line.to_vec())
}

fn warn_if_readable_by_others(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(m) = std::fs::metadata(path) {
        let mode = m.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            eprintln!(
                "warning: the password file {} can be read by other users (mode {mode:03o}): chmod 600 it",
                path.display()
            );
        }
    }
}

/// Asks on standard error and reads standard input with echo off (restored however this ends).
fn prompt(text: &str) -> Result<Vec<u8>, String> {
    let stdin = std::io::stdin();
    let mut err = std::io::stderr();
    let _ = write!(err, "{text}");
    let _ = err.flush();
    let echo = EchoOff::new(&stdin);
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    drop(echo);
    let _ = writeln!(err);
    read.map_err(|e| format!("cannot read the password: {e}"))?;
    let p = line.trim_end_matches(['\n', '\r']);
    if p.is_empty() {
        return Err("no password given".into());
    }
    Ok(p.as_bytes().to_vec())
}

/// The terminal's settings before echo was turned off, put back on drop.
struct EchoOff<'a> {
    stdin: &'a std::io::Stdin,
    saved: Option<rustix::termios::Termios>,
}

impl<'a> EchoOff<'a> {
    fn new(stdin: &'a std::io::Stdin) -> EchoOff<'a> {
        use rustix::termios::{tcgetattr, tcsetattr, LocalModes, OptionalActions};
        let saved = tcgetattr(stdin).ok();
        if let Some(t) = &saved {
            let mut quiet = t.clone();
            quiet.local_modes.remove(LocalModes::ECHO);
            let _ = tcsetattr(stdin, OptionalActions::Now, &quiet);
        }
        EchoOff { stdin, saved }
    }
}

impl Drop for EchoOff<'_> {
    fn drop(&mut self) {
        if let Some(t) = &self.saved {
            let _ =
                rustix::termios::tcsetattr(self.stdin, rustix::termios::OptionalActions::Now, t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_file_gives_its_first_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pw");
        std::fs::write(&p, "s3cret pass\r\nignored\n").unwrap();
        assert_eq!(from_file(&p).unwrap(), b"s3cret pass");
        std::fs::write(&p, "\n").unwrap();
        assert!(from_file(&p).unwrap_err().contains("empty"));
        let e = from_file(&dir.path().join("missing")).unwrap_err();
        assert!(e.contains("cannot read the password file"), "{e}");
    }
}
