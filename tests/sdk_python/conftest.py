"""Fixtures for the Python SDK suite: the generated SDK (sdks/python, on PYTHONPATH) against a
real Thrift2 gateway.

By default one `redbase serve` (Thrift2 only, free loopback port, fresh data directory) runs for
the whole session and must exit 0 on SIGTERM. With REDBASE_SDK_TARGET=host:port the tests use
that gateway instead (e.g. Apache HBase's, `tests/oracle/hbase.sh start` → 127.0.0.1:19091);
REDBASE_SDK_TRANSPORT=framed switches the transport.
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redbase_proc import RedbaseProcess  # noqa: E402

from redbase_examples import Connection  # noqa: E402


@pytest.fixture(scope="session")
def target(tmp_path_factory):
    """(host, port) of the Thrift2 gateway under test."""
    given = os.environ.get("REDBASE_SDK_TARGET")
    if given:
        host, _, port = given.rpartition(":")
        yield host, int(port)
        return
    proc = RedbaseProcess(tmp_path_factory.mktemp("sdk") / "data", gateways=("thrift2",)).start()
    yield proc.host, proc.ports["thrift2"]
    proc.stop_and_check()


@pytest.fixture(scope="session")
def connect(target):
    """A factory of new connections (one per thread: connections are not thread-safe)."""
    opened = []

    def make():
        c = Connection(*target, transport=os.environ.get("REDBASE_SDK_TRANSPORT", "buffered"))
        opened.append(c)
        return c

    yield make
    for c in opened:
        c.close()


@pytest.fixture(scope="session")
def conn(connect):
    return connect()


#: Every table the suite makes is named with this prefix (`py_access-logs`), so the suite can
#: share one HBase with other languages' suites running at the same time.
PREFIX = os.environ.get("REDBASE_SDK_TABLE_PREFIX", "py_")


@pytest.fixture(scope="session")
def named():
    """`named(TableClass, conn)`: the suite's copy of a table (the schema's name, prefixed)."""

    def make(table_class, conn):
        return table_class(conn, name=PREFIX + table_class.definition.name)

    return make


@pytest.fixture
def fresh(conn, named):
    """`fresh(TableClass)`: the table dropped if it exists, created from its schema, dropped
    again after the test."""
    made = []

    def make(table_class):
        t = named(table_class, conn)
        if t.exists():
            t.drop()
        t.create()
        made.append(t)
        return t

    yield make
    for t in made:
        t.drop()


class CallCounter:
    """Counts the Thrift2 calls a connection makes, by method name, by wrapping its generated
    client (the calls still go to the real server)."""

    def __init__(self, conn):
        self.conn = conn
        self.calls = {}
        self._inner = conn.client

    def __getattr__(self, name):
        method = getattr(self._inner, name)
        if not callable(method):
            return method

        def call(*args):
            self.calls[name] = self.calls.get(name, 0) + 1
            return method(*args)

        return call

    def __enter__(self):
        self.conn.client = self
        return self

    def __exit__(self, *exc):
        self.conn.client = self._inner


@pytest.fixture
def counting():
    """`with counting(conn) as c: ...; c.calls["putMultiple"]`."""
    return CallCounter
