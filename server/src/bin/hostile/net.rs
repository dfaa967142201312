//! Connections shared by every target: connecting with the run's timeouts, and telling a
//! close or a timeout from other errors.

use std::io::{ErrorKind, Read};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::{add, Run};

pub fn is_close(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::UnexpectedEof
            | ErrorKind::ConnectionReset
            | ErrorKind::ConnectionAborted
            | ErrorKind::BrokenPipe
    )
}

pub fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

/// After a message the server must drop: it closes within the timeout (whatever it says first).
pub fn await_close(s: &mut TcpStream) -> bool {
    let _ = s.shutdown(Shutdown::Write);
    let mut chunk = [0u8; 4096];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if is_close(&e) => return true,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

pub fn connect(run: &Run, addr: SocketAddr) -> Option<TcpStream> {
    let started = Instant::now();
    loop {
        match TcpStream::connect_timeout(&addr, Duration::from_secs(10)) {
            Ok(s) => {
                let t = Duration::from_secs(run.cli.reply_timeout_secs);
                let _ = s.set_read_timeout(Some(t));
                let _ = s.set_write_timeout(Some(t));
                let _ = s.set_nodelay(true);
                return Some(s);
            }
            Err(e) => {
                add(&run.counts.connect_errors);
                if started.elapsed() > Duration::from_secs(30) {
                    eprintln!("cannot connect to {addr} for 30 s ({e}): the server is down");
                    run.stop.store(true, Ordering::Relaxed);
                    return None;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
    }
}

/// `redbase_open_connections` per gateway, read from the server's /metrics (empty when it
/// cannot be read).
pub fn open_connections(http: SocketAddr) -> Vec<(String, f64)> {
    let Ok(mut s) = TcpStream::connect_timeout(&http, Duration::from_secs(5)) else {
        return Vec::new();
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let request = b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    if std::io::Write::write_all(&mut s, request).is_err() {
        return Vec::new();
    }
    let mut text = String::new();
    let _ = s.read_to_string(&mut text);
    text.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("redbase_open_connections{")?;
            let gateway = rest.split("gateway=\"").nth(1)?.split('"').next()?;
            let value = l.rsplit(' ').next()?.parse().ok()?;
            Some((gateway.to_string(), value))
        })
        .collect()
}
