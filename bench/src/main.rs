//! `loadgen`: a load generator for the Thrift1 and Thrift2 gateways.
//!
//! `loadgen [bench]` drives N client connections (one thread and one connection each) with
//! get / put / scan / mixed work against two servers started in this process on loopback: the
//! real redbase gateway (`redbase::server::run` over an engine in a temporary directory) and a
//! *null* server (the same `redbase::thrift::run` with a handler that returns canned replies).
//! Both sides take turns in short rounds, so the ratio of their throughputs shows how close
//! redbase gets to the RPC limit of this transport and protocol on a noisy machine. `--addr`
//! points the redbase side at an external server instead.
//!
//! `--service thrift1` (the default) measures the Thrift1 `Hbase` service with the generated
//! `HbaseSyncClient`; `--service thrift2` measures `THBaseService` with the generated
//! `THBaseServiceSyncClient`; `--service both` runs the one, then the other, each with its own
//! pair of servers.
//!
//! `loadgen startup --bin target/release/redbase` runs the real binary on a fresh data
//! directory and measures the time from exec to the first answered request, the idle RSS
//! before and after some load, and a clean exit on SIGTERM.
//!
//! `loadgen null-server --service thrift2 --listen 127.0.0.1:PORT [--sync-file F]` serves a null
//! server in a process of its own (for `tests/oracle/bench.sh`, which pins it beside the servers
//! it measures); with `--sync-file`, each durable put writes and syncs one record in F.
//!
//! `loadgen memory --bin target/release/redbase` measures the binary's peak RSS per REST body
//! size and format, with stalled uploads, and per open scanner with a large filter.
//!
//! The modules, in the order a run meets them:
//!
//! | module | what |
//! |---|---|
//! | `cli` | the command line: subcommands, flags, workloads, the `--mix` parser |
//! | `spec` | what every client needs to know about the work; a connection of either gateway |
//! | `thrift1`, `thrift2` | each gateway's driver: its operations, preloading, checks of replies |
//! | `servers` | servers on their own Tokio runtime: redbase in-process, loopback addresses |
//! | `null` | the null servers (canned replies) of both gateways |
//! | `phase` | one measuring phase: N client threads, one workload, one server |
//! | `stats` | a phase's counts and latency histogram (hdrhistogram), its percentiles |
//! | `cpu` | CPU time per thread group, load average, clock tick |
//! | `bench` | the `bench` subcommand: rounds, sides, the report table |
//! | `startup` | the `startup` subcommand: the real binary's start-up, RSS and exit |
//! | `memory` | the `memory` subcommand: peak RSS per REST body and per open scanner |

mod bench;
mod cli;
mod cpu;
mod memory;
mod null;
mod phase;
mod servers;
mod spec;
mod startup;
mod stats;
mod thrift1;
mod thrift2;

use std::process::ExitCode;

use clap::Parser;

use cli::{Cli, Cmd};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Some(Cmd::Startup(a)) => startup::startup(a),
        Some(Cmd::Bench(a)) => bench::bench(a),
        Some(Cmd::NullServer(a)) => null::serve(a),
        Some(Cmd::Memory(a)) => memory::memory(a),
        None => bench::bench(cli.bench),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        // A missed target is a result, not an error, but scripts can see it.
        Ok(false) => ExitCode::from(2),
        Err(e) => {
            eprintln!("loadgen: {e}");
            ExitCode::FAILURE
        }
    }
}
