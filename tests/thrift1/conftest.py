"""Fixtures for the Thrift1 suite: the real redbase binary, real happybase and thriftpy2 clients.

Nothing here builds the server: `REDBASE_BIN` names the binary (default
`target/debug/redbase` under the repository root). Each test module gets its own server on a free
loopback port with a fresh data directory; a module can pass extra flags through a module-level
`REDBASE_ARGS` list. Tests that need a server of their own (restarts, small regions, short
leases) use the `redbase` factory. Every server is stopped with SIGTERM and must exit 0.
"""

import pytest

from t1_util import COMBO_IDS, COMBOS, Server, server_fixtures

server, redbase, table_name = server_fixtures(Server, "t")


@pytest.fixture(params=COMBOS, ids=COMBO_IDS)
def combo(request):
    return request.param


@pytest.fixture
def conn(server, combo):
    """A happybase Connection over one transport x protocol combination."""
    transport, protocol = combo
    c = server.happybase(transport, protocol)
    yield c
    c.close()


@pytest.fixture
def client(server):
    """A raw Thrift1 client (buffered transport, strict binary protocol)."""
    c = server.client()
    yield c
    c.close()


@pytest.fixture
def admin(server):
    """A happybase connection for setting up tables (buffered, binary)."""
    c = server.happybase()
    yield c
    c.close()
