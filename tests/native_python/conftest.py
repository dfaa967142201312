"""Fixtures of the hbase-driver suite: one redbase per test module (stopped with SIGTERM, which
must exit 0), a driver Client bootstrapped through redbase's ZooKeeper responder, and a fresh
table per test."""

import itertools
import re

import pytest
from hbasedriver.client.client import Client
from hbasedriver.common.table_name import TableName
from hbasedriver.operations.column_family_builder import ColumnFamilyDescriptorBuilder

from native_py_util import NativeServer


@pytest.fixture(scope="module")
def server(request, tmp_path_factory):
    base = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
    srv = NativeServer(base / "data").start()
    yield srv
    srv.stop_and_check()


@pytest.fixture(scope="module")
def client(server):
    c = Client(server.driver_config())
    yield c
    c.close()


_names = itertools.count()


@pytest.fixture
def table(request, client):
    """A table `hd<n>_<test>` with families cf and cf2, and its driver Table."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", request.node.name)[:40]
    name = f"hd{next(_names)}_{base}".encode()
    splits = getattr(request, "param", None)
    with client.get_admin() as admin:
        admin.create_table(
            TableName.value_of(b"default", name),
            [ColumnFamilyDescriptorBuilder(b"cf").build(), ColumnFamilyDescriptorBuilder(b"cf2").build()],
            split_keys=splits,
        )
    t = client.get_table(b"default", name)
    yield name, t
    t.close()
