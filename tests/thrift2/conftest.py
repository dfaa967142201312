"""Fixtures for the Thrift2 suite: the real redbase binary and real Thrift clients.

Nothing here builds the server: `REDBASE_BIN` names the binary (default `target/debug/redbase`
under the repository root). Each test module gets its own server (both gateways, free loopback
ports, fresh data directory); a module passes extra flags through a module-level `REDBASE_ARGS`
list. Tests that need a server of their own (restarts, other flags) use the `redbase` factory.
Every server is stopped with SIGTERM and must exit 0.
"""

import itertools
import re

import pytest

from t2_util import COMBO_IDS, COMBOS, Server


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    """A fresh server per test module (flags from the module's REDBASE_ARGS)."""
    args = getattr(request.module, "REDBASE_ARGS", [])
    base = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
    srv = Server(base / "data", args).start()
    yield srv
    srv.stop_and_check()


@pytest.fixture
def redbase(tmp_path):
    """Factory for servers of a test's own: redbase(args=(), data_dir=None) -> started Server.
    Servers still running at the end of the test are stopped and must exit 0."""
    started = []

    def start(args=(), data_dir=None):
        srv = Server(data_dir or (tmp_path / f"data{len(started)}"), args).start()
        started.append(srv)
        return srv

    yield start
    failures = []
    for srv in started:
        if srv.proc is not None and srv.proc.returncode is None:
            code = srv.stop()
            if code != 0:
                what = "did not exit" if code is None else f"exited with {code}"
                failures.append(f"redbase {what} after SIGTERM:\n{srv.log_tail()}")
    assert not failures, "\n".join(failures)


_names = itertools.count()


@pytest.fixture
def table_name(request):
    """A table name unique within the session, readable in server logs."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", request.node.name)[:60]
    return f"t2_{next(_names)}_{base}"


@pytest.fixture(params=COMBOS, ids=COMBO_IDS)
def combo(request):
    return request.param


@pytest.fixture
def client(server):
    """A Thrift2 client over buffered transport and binary protocol."""
    c = server.client()
    yield c
    c.close()


@pytest.fixture
def combo_client(server, combo):
    """A Thrift2 client over one transport x protocol combination."""
    c = server.client(*combo)
    yield c
    c.close()
