"""HBase's ACL model end to end: users prove who they are with SASL PLAIN (Apache Thrift's
Python library with thrift_sasl over pure-sasl, the Thrift2 client generated from
idl/hbase2.thrift by the Apache Thrift compiler), a superuser grants and revokes with Thrift2's
grant/revoke, and every call is answered as the grants say: allowed, or refused with HBase's
AccessDeniedException message in a TIOError. The status API lists only readable tables."""

import base64
import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from thrift.protocol import TBinaryProtocol
from thrift.transport import TSocket

from conftest import free_port
from thrift_util import get_table_names, sasl

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "codegen" / "thrift" / "python"))
from hbase2 import THBaseService  # noqa: E402
from hbase2.ttypes import (  # noqa: E402
    TAccessControlEntity,
    TColumnFamilyDescriptor,
    TColumnValue,
    TGet,
    TIOError,
    TNamespaceDescriptor,
    TPermissionScope,
    TPut,
    TTableDescriptor,
    TTableName,
)

PASSWORDS = {"alice": "alice secret 1", "bob": "bob secret 2", "carol": "carol secret 3"}
DENIED = "org.apache.hadoop.hbase.security.AccessDeniedException: "


class AclServer:
    """A plaintext redbase with an auth file (alice a superuser; bob and carol not) that
    accepts SASL PLAIN without TLS (--allow-plaintext-auth), as on a trusted loopback."""

    def __init__(self, d: Path):
        self.dir = d
        binary = __import__("os").environ.get("REDBASE_BIN", "target/debug/redbase")
        self.hashes = {
            user: subprocess.run([binary, "hash-password"], input=password.encode(), check=True,
                                 capture_output=True).stdout.decode().strip()
            for user, password in PASSWORDS.items()
        }
        self.write_users({"alice"})
        self.t1, self.t2, self.http = free_port(), free_port(), free_port()
        self.log_path = d / "redbase.log"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [binary, "serve", "--data-dir", str(d / "data"),
             "--thrift1-addr", f"127.0.0.1:{self.t1}", "--thrift2-addr", f"127.0.0.1:{self.t2}",
             "--http-addr", f"127.0.0.1:{self.http}", "--auth-file", str(d / "users.toml"),
             "--allow-plaintext-auth", "--auth-max-failures", "1000"],
            stdout=self.log, stderr=subprocess.STDOUT)
        import socket
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.t2), timeout=0.5).close()
                socket.create_connection(("127.0.0.1", self.http), timeout=0.5).close()
                return
            except OSError:
                assert self.proc.poll() is None, self.log_path.read_text()
                time.sleep(0.1)
        raise RuntimeError("redbase did not start: " + self.log_path.read_text())

    def write_users(self, superusers):
        (self.dir / "users.toml").write_text("\n".join(
            f'[users.{u}]\npassword = "{h}"\n' + ("superuser = true\n" if u in superusers else "")
            for u, h in self.hashes.items()))

    def client(self, user):
        transport = sasl(TSocket.TSocket("127.0.0.1", self.t2), user, PASSWORDS[user])
        transport.open()
        return THBaseService.Client(TBinaryProtocol.TBinaryProtocol(transport)), transport

    def status_tables(self, user):
        req = urllib.request.Request(f"http://127.0.0.1:{self.http}/api/status")
        token = base64.b64encode(f"{user}:{PASSWORDS[user]}".encode()).decode()
        req.add_header("Authorization", f"Basic {token}")
        with urllib.request.urlopen(req, timeout=10) as r:
            return sorted(t["name"] for t in json.load(r)["tables"])

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(30) == 0, self.log_path.read_text()
        self.log.close()


@pytest.fixture(scope="module")
def acl_server(tmp_path_factory):
    s = AclServer(tmp_path_factory.mktemp("acl"))
    yield s
    s.stop()
    text = s.log_path.read_text()
    assert not any(p in text for p in PASSWORDS.values()), "a password reached the log"


@pytest.fixture(scope="module")
def clients(acl_server):
    opened = {u: acl_server.client(u) for u in PASSWORDS}
    yield {u: c for u, (c, _) in opened.items()}
    for _, t in opened.values():
        t.close()


def entity(user, actions, table=None, ns=None):
    scope = TPermissionScope.TABLE if table else TPermissionScope.NAMESPACE
    return TAccessControlEntity(username=user, scope=scope, actions=actions, tableName=table, nsName=ns)


def table_desc(name):
    return TTableDescriptor(tableName=TTableName(ns=b"default", qualifier=name.encode()),
                            columns=[TColumnFamilyDescriptor(name=b"f")])


def put(row, value):
    return TPut(row=row, columnValues=[TColumnValue(family=b"f", qualifier=b"q", value=value)])


def denied(call, *fragments):
    with pytest.raises(TIOError) as e:
        call()
    message = e.value.message
    assert message.startswith(DENIED), message
    for f in fragments:
        assert f in message, message
    assert not e.value.canRetry
    return message


def test_grants_decide_every_call(clients):
    alice, bob, carol = clients["alice"], clients["bob"], clients["carol"]
    alice.createTable(table_desc("acl_t"), None)
    alice.put(b"acl_t", put(b"r1", b"v1"))

    # No grant: reads and writes are refused with HBase's message naming user and action.
    denied(lambda: bob.get(b"acl_t", TGet(row=b"r1")), "bob", "READ")
    denied(lambda: bob.put(b"acl_t", put(b"r2", b"x")), "bob", "WRITE")

    # R on the table: reads work, writes still refused.
    assert alice.grant(entity("bob", "R", table="acl_t")) is True
    assert bob.get(b"acl_t", TGet(row=b"r1")).columnValues[0].value == b"v1"
    denied(lambda: bob.put(b"acl_t", put(b"r2", b"x")), "bob", "WRITE")

    # W too: the put lands.
    alice.grant(entity("bob", "W", table="acl_t"))
    bob.put(b"acl_t", put(b"r2", b"from bob"))
    assert alice.get(b"acl_t", TGet(row=b"r2")).columnValues[0].value == b"from bob"

    # Only A at the scope may grant; bob has R and W.
    denied(lambda: bob.grant(entity("carol", "R", table="acl_t")), "bob", "ADMIN")
    # DDL needs A or C on the table.
    denied(lambda: bob.disableTable(TTableName(ns=b"default", qualifier=b"acl_t")), "bob")

    # Revoking R refuses reads again; the remaining W still writes.
    assert alice.revoke(entity("bob", "R", table="acl_t")) is True
    denied(lambda: bob.get(b"acl_t", TGet(row=b"r1")), "bob", "READ")
    bob.put(b"acl_t", put(b"r3", b"still writes"))

    # carol with nothing cannot read; namespace admin is global-A only.
    denied(lambda: carol.get(b"acl_t", TGet(row=b"r1")), "carol", "READ")
    denied(lambda: carol.createNamespace(TNamespaceDescriptor(name="carol_ns")), "carol", "ADMIN")


def test_create_on_a_namespace_makes_the_creator_owner(clients):
    alice, bob, carol = clients["alice"], clients["bob"], clients["carol"]
    denied(lambda: carol.createTable(table_desc("carol_t"), None), "carol", "CREATE")
    alice.grant(entity("carol", "C", ns="default"))
    carol.createTable(table_desc("carol_t"), None)
    # The creator may use its table, as HBase grants a table's owner every permission.
    carol.put(b"carol_t", put(b"r", b"mine"))
    assert carol.get(b"carol_t", TGet(row=b"r")).columnValues[0].value == b"mine"
    denied(lambda: bob.get(b"carol_t", TGet(row=b"r")), "bob", "READ")


def test_listings_and_status_show_only_what_the_caller_may_see(acl_server, clients):
    # bob holds grants on acl_t only (carol has C on the whole default namespace by now).
    alice, bob = clients["alice"], clients["bob"]
    alice.createTable(table_desc("secret_t"), None)
    alice.grant(entity("bob", "R", table="acl_t"))
    names = {t.qualifier.decode() for t in bob.getTableNamesByPattern(None, True)}
    assert names == {"acl_t"}, names
    assert "secret_t" in {t.qualifier.decode() for t in alice.getTableNamesByPattern(None, True)}
    # Thrift1 lists the same way, for the same proved user.
    t1 = sasl(TSocket.TSocket("127.0.0.1", acl_server.t1), "bob", PASSWORDS["bob"])
    t1.open()
    try:
        listed = set(get_table_names(t1))
    finally:
        t1.close()
    assert listed == {b"acl_t"}, listed
    # The status API shows region boundaries (real row keys): only readable tables.
    assert {"acl_t", "carol_t", "secret_t"} <= set(acl_server.status_tables("alice"))
    assert acl_server.status_tables("bob") == ["acl_t"]


def test_status_needs_an_identity(acl_server):
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(f"http://127.0.0.1:{acl_server.http}/api/status", timeout=10)
    assert e.value.code == 401


def test_superusers_follow_the_auth_file_on_sighup(acl_server, clients):
    bob = clients["bob"]
    denied(lambda: bob.get(b"secret_t", TGet(row=b"r")), "bob", "READ")
    acl_server.write_users({"alice", "bob"})
    acl_server.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 10
    while "auth file reloaded" not in acl_server.log_path.read_text():
        assert time.time() < deadline, acl_server.log_path.read_text()
        time.sleep(0.05)
    # The same connection, now a superuser's: no grant needed.
    assert bob.get(b"secret_t", TGet(row=b"r")).columnValues == []
    bob.put(b"secret_t", put(b"r", b"bob is root"))
