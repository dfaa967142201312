"""Fixtures for the filter-language suite: one real redbase server (both gateways on free
loopback ports) for the whole session, a filled table, and the two clients."""

import pytest

from f_util import Server, fill


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("filters") / "data").start()
    yield srv
    code = srv.stop()
    assert code == 0, f"redbase exited with {code} after SIGTERM:\n{srv.log_tail()}"


@pytest.fixture(scope="session")
def table_name(server):
    """The filled table (created once; tests only read it)."""
    conn = server.happybase()
    fill(conn, "filtered")
    conn.close()
    return "filtered"


@pytest.fixture
def hb(server):
    c = server.happybase()
    yield c
    c.close()


@pytest.fixture
def t2(server):
    c = server.thrift2()
    yield c
    c.close()
