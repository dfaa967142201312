"""Fixtures for the Thrift2 suite: the real redbase binary and real Thrift clients.

Nothing here builds the server: `REDBASE_BIN` names the binary (default `target/debug/redbase`
under the repository root). Each test module gets its own server (both gateways, free loopback
ports, fresh data directory); a module passes extra flags through a module-level `REDBASE_ARGS`
list. Tests that need a server of their own (restarts, other flags) use the `redbase` factory.
Every server is stopped with SIGTERM and must exit 0.
"""

import pytest

from t2_util import COMBO_IDS, COMBOS, Server, server_fixtures

server, redbase, table_name = server_fixtures(Server, "t2_")


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
