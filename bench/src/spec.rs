//! What every client needs to know about the work, and a connection of the gateway being
//! measured (either driver: `thrift1`, `thrift2`).

use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::Rng;
use thrift::protocol::{
    TBinaryInputProtocol, TBinaryOutputProtocol, TCompactInputProtocol, TCompactOutputProtocol,
    TInputProtocol, TOutputProtocol,
};
use thrift::transport::{
    TBufferedReadTransport, TBufferedWriteTransport, TFramedReadTransport, TFramedWriteTransport,
    TIoChannel, TReadTransport, TTcpChannel, TWriteTransport,
};

use crate::cli::{
    parse_mix, ClientArgs, DurabilityKind, OpKind, ProtocolKind, ServiceKind, T2Scan,
    TransportKind, Workload,
};
use crate::{thrift1, thrift2};

pub type InProt = Box<dyn TInputProtocol + Send>;
pub type OutProt = Box<dyn TOutputProtocol + Send>;

/// The key of preloaded row `i`: r00000000, r00000001, ...
pub fn row_key(i: u64) -> Vec<u8> {
    format!("r{i:08}").into_bytes()
}

/// The key of a new row a put writes (random, so puts spread over the key space).
pub fn new_row_key(rng: &mut SmallRng) -> Vec<u8> {
    format!("w{:016x}", rng.random::<u64>()).into_bytes()
}

/// One connection's protocol pair, for either generated client.
pub fn open_protocols(
    addr: SocketAddr,
    transport: TransportKind,
    protocol: ProtocolKind,
) -> Result<(InProt, OutProt), String> {
    let s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|e| format!("connect {addr}: {e}"))?;
    s.set_nodelay(true).map_err(|e| e.to_string())?;
    let (r, w) = TTcpChannel::with_stream(s)
        .split()
        .map_err(|e| e.to_string())?;
    let (r, w): (
        Box<dyn TReadTransport + Send>,
        Box<dyn TWriteTransport + Send>,
    ) = match transport {
        TransportKind::Buffered => (
            Box::new(TBufferedReadTransport::new(r)),
            Box::new(TBufferedWriteTransport::new(w)),
        ),
        TransportKind::Framed => (
            Box::new(TFramedReadTransport::new(r)),
            Box::new(TFramedWriteTransport::new(w)),
        ),
    };
    Ok(match protocol {
        ProtocolKind::Binary => (
            Box::new(TBinaryInputProtocol::new(r, true)),
            Box::new(TBinaryOutputProtocol::new(w, true)),
        ),
        ProtocolKind::Compact => (
            Box::new(TCompactInputProtocol::new(r)),
            Box::new(TCompactOutputProtocol::new(w)),
        ),
    })
}

/// A connection of the gateway being measured.
pub enum Session {
    T1(thrift1::Client),
    T2(thrift2::Client),
}

/// What every client needs to know about the work.
pub struct Spec {
    /// `Thrift1` or `Thrift2`, never `Both`.
    pub service: ServiceKind,
    pub t2_scan: T2Scan,
    pub table: Vec<u8>,
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub column: Vec<u8>,
    pub rows: u64,
    pub scan_rows: u32,
    pub value: Vec<u8>,
    pub mix: Vec<(OpKind, u32)>,
    pub transport: TransportKind,
    pub protocol: ProtocolKind,
    /// Thrift2 puts only: the durability measured puts carry (preloading never sets one).
    pub durability: Option<DurabilityKind>,
    /// Processes outside this one serving `--addr` (`--server-pids`), counted as the server.
    pub server_pids: Vec<u32>,
}

impl Spec {
    pub fn new(a: &ClientArgs, service: ServiceKind, t2_scan: T2Scan) -> Result<Spec, String> {
        if service == ServiceKind::Both {
            return Err("one Spec per service".into());
        }
        if a.rows <= a.scan_rows as u64 {
            return Err(format!(
                "--rows ({}) must exceed --scan-rows ({})",
                a.rows, a.scan_rows
            ));
        }
        if a.scan_rows == 0 || a.scan_rows > i32::MAX as u32 {
            return Err("--scan-rows must be positive".into());
        }
        Ok(Spec {
            service,
            t2_scan,
            table: a.table.as_bytes().to_vec(),
            family: b"f".to_vec(),
            qualifier: b"q".to_vec(),
            column: b"f:q".to_vec(),
            rows: a.rows,
            scan_rows: a.scan_rows,
            value: (0..a.value_size).map(|i| b'a' + (i % 26) as u8).collect(),
            mix: parse_mix(&a.mix)?,
            transport: a.transport,
            protocol: a.protocol,
            durability: None,
            server_pids: Vec::new(),
        })
    }

    /// A client of the measured gateway.
    pub fn session(&self, addr: SocketAddr) -> Result<Session, String> {
        Ok(match self.service {
            ServiceKind::Thrift2 => Session::T2(thrift2::connect(self, addr)?),
            _ => Session::T1(thrift1::connect(self, addr)?),
        })
    }

    /// One operation on the measured gateway.
    pub fn op(&self, c: &mut Session, kind: OpKind, rng: &mut SmallRng) -> Result<(), String> {
        match c {
            Session::T1(c) => thrift1::op(self, c, kind, rng),
            Session::T2(c) => thrift2::op(self, c, kind, rng),
        }
    }

    /// Creates the table (if missing) and loads the rows gets and scans read, through the
    /// measured gateway.
    pub fn prepare(&self, addr: SocketAddr) -> Result<(), String> {
        match self.service {
            ServiceKind::Thrift2 => thrift2::prepare(self, addr),
            _ => thrift1::prepare(self, addr),
        }
    }

    /// `--preload skip`: checks that an earlier run loaded the rows (the last one exists).
    pub fn check_loaded(&self, addr: SocketAddr) -> Result<(), String> {
        let mut s = self.session(addr)?;
        let last = row_key(self.rows - 1);
        let r = match &mut s {
            Session::T1(c) => thrift1::has_row(self, c, last.clone()),
            Session::T2(c) => thrift2::has_row(self, c, last.clone()),
        };
        match r {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!(
                "--preload skip: row {} is missing; load the table first (--preload only)",
                String::from_utf8_lossy(&last)
            )),
            Err(e) => Err(format!("--preload skip: {e}")),
        }
    }

    pub fn pick(&self, workload: Workload, rng: &mut SmallRng) -> OpKind {
        match workload {
            Workload::Get => OpKind::Get,
            Workload::Getrow => OpKind::GetRow,
            Workload::Put => OpKind::Put,
            Workload::Scan => OpKind::Scan,
            Workload::Mix => {
                let total: u64 = self.mix.iter().map(|m| m.1 as u64).sum();
                let mut x = rng.random_range(0..total);
                for &(k, w) in &self.mix {
                    if x < w as u64 {
                        return k;
                    }
                    x -= w as u64;
                }
                self.mix[0].0
            }
        }
    }
}

/// A `Spec` from loadgen's flags, for tests.
#[cfg(test)]
pub fn spec_of(service: ServiceKind, flags: &[&str]) -> Spec {
    use clap::Parser;
    let cli =
        crate::cli::Cli::try_parse_from(std::iter::once("loadgen").chain(flags.iter().copied()))
            .expect("flags parse");
    Spec::new(&cli.bench.client, service, cli.bench.thrift2_scan).expect("a valid spec")
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn the_mix_picks_every_weighted_kind_and_nothing_else() {
        let spec = spec_of(ServiceKind::Thrift1, &["--mix", "get=1,scan=1"]);
        let mut rng = SmallRng::seed_from_u64(7);
        let picks: Vec<OpKind> = (0..200)
            .map(|_| spec.pick(Workload::Mix, &mut rng))
            .collect();
        assert!(picks.contains(&OpKind::Get));
        assert!(picks.contains(&OpKind::Scan));
        assert!(picks
            .iter()
            .all(|k| matches!(k, OpKind::Get | OpKind::Scan)));
        assert_eq!(spec.pick(Workload::Put, &mut rng), OpKind::Put);
    }

    #[test]
    fn rows_must_outnumber_a_scan() {
        let cli = <crate::cli::Cli as clap::Parser>::try_parse_from([
            "loadgen",
            "--rows",
            "10",
            "--scan-rows",
            "10",
        ])
        .unwrap();
        assert!(Spec::new(&cli.bench.client, ServiceKind::Thrift1, T2Scan::Scanner).is_err());
        assert!(Spec::new(&cli.bench.client, ServiceKind::Both, T2Scan::Scanner).is_err());
        assert_eq!(row_key(42), b"r00000042");
    }
}
