"""Readiness probe for the HBase oracle: one real call on each Thrift gateway.

Usage: python3 ping.py HOST THRIFT1_PORT THRIFT2_PORT
Calls Hbase.getTableNames on the Thrift1 port and THBaseService.listNamespaces on the Thrift2
port (buffered transport, binary protocol: the gateways' defaults), with clients generated from
this repository's idl/. Exit 0 and print both answers when both answer, exit 1 otherwise.
"""

import sys
from pathlib import Path

import thriftpy2
from thriftpy2.rpc import make_client

IDL = Path(__file__).resolve().parents[2] / "idl"


def main() -> int:
    host, p1, p2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    hbase1 = thriftpy2.load(str(IDL / "hbase1.thrift"), module_name="oracle_ping_hbase1_thrift")
    hbase2 = thriftpy2.load(str(IDL / "hbase2.thrift"), module_name="oracle_ping_hbase2_thrift")
    try:
        c1 = make_client(hbase1.Hbase, host, p1, timeout=20_000)
        try:
            tables = c1.getTableNames()
        finally:
            c1.close()
        c2 = make_client(hbase2.THBaseService, host, p2, timeout=20_000)
        try:
            namespaces = c2.listNamespaces()
        finally:
            c2.close()
    except Exception as e:  # not up yet: connection refused, timeout, or an IOError from HBase
        print(f"not ready: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"thrift1 getTableNames -> {tables!r}; thrift2 listNamespaces -> {namespaces!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
