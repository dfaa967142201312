"""Namespace quotas with the quota switch on, redbase against HBase, call by call.

The differential scenarios run HBase with `hbase.quota.enabled` off (its default), so this
check is separate: start the oracle with ORACLE_QUOTA=1 (tests/oracle/hbase.sh), then

    python3 tests/oracle/quota_compare.py --hbase 127.0.0.1:PORT [--redbase 127.0.0.1:PORT]

Without --redbase it starts `redbase serve --quota-enabled` itself (REDBASE_BIN, or the debug
build), as tests/oracle/run.sh does after restarting its oracle with the switch on.

It runs the same Thrift2 calls on both (tables and regions past a namespace's quotas, a table
dropped to make room, a quota lowered below usage, a truncate, another namespace, the default
one), compares each answer (ok, or the TIOError's message and canRetry) and removes what it made.
Exits 1 on any difference.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

IDL = Path(__file__).resolve().parents[2] / "idl"
sys.path.insert(0, str(IDL.parent / "tests"))
from redbase_proc import RedbaseProcess  # noqa: E402
h2 = thriftpy2.load(str(IDL / "hbase2.thrift"), module_name="quota_compare_hbase2_thrift")
TABLES = "hbase.namespace.quota.maxtables"
REGIONS = "hbase.namespace.quota.maxregions"


def ns(name, props):
    return h2.TNamespaceDescriptor(name=name, configuration=props)


def tn(namespace, q):
    return h2.TTableName(ns=namespace.encode(), qualifier=q.encode())


def td(namespace, q):
    return h2.TTableDescriptor(
        tableName=tn(namespace, q), columns=[h2.TColumnFamilyDescriptor(name=b"f")]
    )


def splits(n):
    return [str(i).encode() for i in range(1, n)]


STEPS = [
    ("createNamespace", ns("rbq_a", {TABLES: "2", REGIONS: "5"})),
    ("createTable", td("rbq_a", "a"), splits(1)),
    ("createTable", td("rbq_a", "b"), splits(3)),
    ("createTable", td("rbq_a", "c"), splits(1)),
    ("createTable", td("rbq_a", "c"), splits(4)),
    ("disableTable", tn("rbq_a", "a")),
    ("deleteTable", tn("rbq_a", "a")),
    ("createTable", td("rbq_a", "c"), splits(4)),
    ("createTable", td("rbq_a", "c"), splits(3)),
    ("createTable", td("rbq_a", "c"), splits(2)),
    ("modifyNamespace", ns("rbq_a", {TABLES: "1", REGIONS: "2"})),
    ("disableTable", tn("rbq_a", "b")),
    ("truncateTable", tn("rbq_a", "b"), True),
    ("createTable", td("rbq_a", "d"), splits(1)),
    ("createNamespace", ns("rbq_b", {REGIONS: "3"})),
    ("createTable", td("rbq_b", "x"), splits(4)),
    ("createTable", td("rbq_b", "x"), splits(3)),
    ("createTable", td("rbq_b", "y"), splits(1)),
    ("modifyNamespace", ns("rbq_b", {REGIONS: ""})),
    ("createTable", td("rbq_b", "y"), splits(1)),
    ("createTable", td("default", "rbq_plain"), splits(6)),
]

CLEANUP = [
    ("rbq_a", ["b", "c"]),
    ("rbq_b", ["x", "y"]),
    ("default", ["rbq_plain"]),
]


def client(addr):
    host, port = addr.rsplit(":", 1)
    return make_client(
        h2.THBaseService,
        host,
        int(port),
        trans_factory=TBufferedTransportFactory(),
        proto_factory=TBinaryProtocolFactory(),
        timeout=60_000,
    )


def answer(c, name, args):
    try:
        getattr(c, name)(*args)
        return "ok"
    except h2.TIOError as e:
        return f"TIOError canRetry={e.canRetry} {e.message}"


def clean(c):
    for namespace, tables in CLEANUP:
        for t in tables:
            for call in ("disableTable", "deleteTable"):
                answer(c, call, (tn(namespace, t),))
    for namespace in ("rbq_a", "rbq_b"):
        answer(c, "deleteNamespace", (namespace,))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--redbase", help="redbase's Thrift2 host:port [a new --quota-enabled server]")
    p.add_argument("--hbase", required=True, help="HBase's Thrift2 host:port (quotas on)")
    a = p.parse_args()
    server = None
    tmp = tempfile.TemporaryDirectory(prefix="redbase-quota-")
    if a.redbase is None:
        server = RedbaseProcess(
            Path(tmp.name) / "data", ["--quota-enabled"], gateways=("thrift2",)
        ).start()
        a.redbase = f"{server.host}:{server.ports['thrift2']}"
    ours, theirs = client(a.redbase), client(a.hbase)
    differences = 0
    try:
        for name, *args in STEPS:
            got, want = answer(ours, name, args), answer(theirs, name, args)
            same = got == want
            differences += not same
            print(f"{'same' if same else 'DIFFERENT'}  {name}: {want}")
            if not same:
                print(f"           redbase: {got}")
    finally:
        clean(ours)
        clean(theirs)
        ours.close()
        theirs.close()
        if server is not None:
            code = server.stop()
            if code != 0:
                print(f"quota_compare: redbase exited with {code}")
                differences += 1
        tmp.cleanup()
    print(f"quota_compare: {len(STEPS)} calls, {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
