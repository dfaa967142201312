"""Probes (/healthz, /readyz, `redbase healthcheck`) and the two log formats, on the real
binary."""

import json
import os
import re
import subprocess

from ops_util import free_port, server_binary


def healthcheck(*args, env=None):
    return subprocess.run(
        [str(server_binary()), "healthcheck", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )


def test_probes_answer_while_serving(server):
    assert server.get("/healthz")[0::2] == (200, "ok\n")
    assert server.get("/readyz")[0::2] == (200, "ready\n")
    assert server.get("/no-such-page")[0] == 404


def test_healthcheck_command_exit_codes(server):
    ok = healthcheck("--http-addr", f"127.0.0.1:{server.http_port}")
    assert ok.returncode == 0, ok.stderr
    # The container passes the listen address through REDBASE_HTTP_ADDR, often a wildcard.
    env = dict(os.environ, REDBASE_HTTP_ADDR=f"0.0.0.0:{server.http_port}")
    assert healthcheck(env=env).returncode == 0
    down = healthcheck("--http-addr", f"127.0.0.1:{free_port()}")
    assert down.returncode == 1
    assert "unhealthy" in down.stderr and "cannot connect" in down.stderr
    # A malformed address is refused when the command line is parsed (clap's usage error, 2),
    # saying what it expects; one that parses but is no IP address is a failed probe (1).
    bad = healthcheck("--http-addr", "not-an-address")
    assert bad.returncode == 2 and "expected HOST:PORT" in bad.stderr, bad.stderr
    named = healthcheck("--http-addr", "not-an-address:8080")
    assert named.returncode == 1 and "not an address" in named.stderr, named.stderr


def test_json_logs_are_one_object_per_line(redbase):
    srv = redbase(args=["--log-format", "json"])
    srv.happybase().tables()
    assert srv.get("/healthz")[0] == 200
    srv.stop_and_check()
    lines = [l for l in srv.log_path.read_text().splitlines() if l.strip()]
    assert len(lines) >= 4
    records = [json.loads(l) for l in lines]
    for r in records:
        assert {"timestamp", "level", "target", "message"} <= r.keys(), r
    messages = [r["message"] for r in records]
    assert "engine open" in messages
    assert any(m.startswith("HTTP listener") for m in messages), messages
    # The listener's address is printed as an address, not a Rust Option.
    listening = [r for r in records if r["message"] == "gateway listening"]
    assert {r["gateway"] for r in listening} == {"thrift1", "thrift2"}, listening
    assert all(re.fullmatch(r"127\.0\.0\.1:\d+", r["addr"]) for r in listening), listening
    # Per-connection lines are debug: at the default level a client leaves no line behind.
    assert not any(r["message"] == "connection opened" for r in records)


def test_text_logs_are_plain_when_not_a_terminal(redbase):
    srv = redbase()
    srv.stop_and_check()
    text = srv.log_path.read_text()
    assert "engine open" in text
    assert "\x1b[" not in text, "no colour codes in a log file"
    assert not text.lstrip().startswith("{")
    assert re.search(r"^\S+Z\s+INFO\s+redbase", text, re.M)


def test_sigterm_right_after_start_is_a_clean_stop(redbase):
    # The signal handlers are installed before any port is bound, so a SIGTERM the moment the
    # ports accept (an orchestrator changing its mind) is a clean stop, not a kill.
    for _ in range(5):
        srv = redbase()
        srv.stop_and_check()
