//! The HTTP listener's flags (`redbase serve --http-max-connections ...`): its bounds on
//! connections, request bodies and connection lifetime (docs/reliability.md).

use std::time::Duration;

use redbase::http::limits::{self, ListenerLimits};

#[derive(clap::Args, Debug)]
pub struct HttpArgs {
    /// Connections the HTTP listener serves at once. At the cap a new connection takes the slot
    /// of the one waiting longest for a request; when all are busy, a new one may only ask
    /// /healthz, /readyz or /metrics (16 more connections are kept for that).
    #[arg(long, env = "REDBASE_HTTP_MAX_CONNECTIONS", default_value_t = limits::MAX_CONNECTIONS as u64, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    http_max_connections: u64,
    /// Seconds an HTTP request body may pause between bytes; past it the request is answered
    /// 408 and the connection closed.
    #[arg(long, env = "REDBASE_HTTP_BODY_TIMEOUT_SECS", default_value_t = limits::BODY_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=3600))]
    http_body_timeout_secs: u64,
    /// Bytes per second an HTTP request body must average once it has been arriving for
    /// --http-body-timeout-secs (0 = no minimum); slower ones are answered 408. Past
    /// --http-max-lifetime-secs, a request must move as much to keep its connection.
    #[arg(long, env = "REDBASE_HTTP_BODY_MIN_RATE", default_value_t = limits::BODY_MIN_RATE, value_name = "SIZE", value_parser = redbase::flag_values::size)]
    http_body_min_rate: u64,
    /// Seconds an HTTP connection takes new requests; then the request in flight may finish
    /// while it makes progress, and is cut after 10 s without.
    #[arg(long, env = "REDBASE_HTTP_MAX_LIFETIME_SECS", default_value_t = limits::MAX_LIFETIME.as_secs(), value_parser = clap::value_parser!(u64).range(1..))]
    http_max_lifetime_secs: u64,
}

impl HttpArgs {
    pub fn limits(&self) -> ListenerLimits {
        ListenerLimits {
            max_connections: self.http_max_connections as usize,
            body_timeout: Duration::from_secs(self.http_body_timeout_secs),
            body_min_rate: self.http_body_min_rate,
            max_lifetime: Duration::from_secs(self.http_max_lifetime_secs),
            ..ListenerLimits::default()
        }
    }
}
