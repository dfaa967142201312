"""Fixtures for the operations suite (health, readiness, metrics, logs, status page): a real
`redbase serve` per test module on free loopback ports, stopped with SIGTERM (must exit 0)."""

from ops_util import Server, server_fixtures

server, redbase, table_name = server_fixtures(Server, "ops_")
