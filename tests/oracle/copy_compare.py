"""Compares tables cell by cell and their split points through Thrift2, on any servers.

Usage: python3 tests/oracle/copy_compare.py HOST:PORT/TABLE HOST:PORT/TABLE [...]

Every cell of every version (row, family, qualifier, timestamp, value) of the first table is
compared with each other table's, and the sorted region start keys too. Prints one line per
table and each difference found (the first 5); exit 0 when all are equal, 1 otherwise.
Independent of redbase's own code: thriftpy2 with the repository's idl/hbase2.thrift.
"""

import sys
from pathlib import Path

import thriftpy2
from thriftpy2.rpc import make_client

IDL = Path(__file__).resolve().parents[2] / "idl"
hbase2 = thriftpy2.load(str(IDL / "hbase2.thrift"), module_name="copy_compare_hbase2_thrift")


def read(side: str):
    addr, table = side.split("/", 1)
    host, port = addr.rsplit(":", 1)
    client = make_client(hbase2.THBaseService, host, int(port), timeout=120_000)
    try:
        t = table.encode()
        starts = sorted(
            loc.regionInfo.startKey or b"" for loc in client.getAllRegionLocations(t)
        )
        scan = hbase2.TScan(maxVersions=2**31 - 1, caching=1000)
        sid = client.openScanner(t, scan)
        cells = []
        try:
            while True:
                rows = client.getScannerRows(sid, 1000)
                if not rows:
                    break
                for r in rows:
                    for c in r.columnValues:
                        cells.append((r.row, c.family, c.qualifier, c.timestamp, c.value))
        finally:
            client.closeScanner(sid)
    finally:
        client.close()
    return starts, cells


def main() -> int:
    sides = sys.argv[1:]
    if len(sides) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    first_starts, first_cells = read(sides[0])
    rows = len({c[0] for c in first_cells})
    print(f"{sides[0]}: {rows} rows, {len(first_cells)} cells, {len(first_starts)} regions")
    status = 0
    for side in sides[1:]:
        starts, cells = read(side)
        problems = []
        if starts != first_starts:
            problems.append(f"split points differ: {starts!r} vs {first_starts!r}")
        if cells != first_cells:
            a, b = set(first_cells), set(cells)
            for c in sorted(a - b)[:5]:
                problems.append(f"missing {c!r}")
            for c in sorted(b - a)[:5]:
                problems.append(f"extra {c!r}")
            if not problems:
                problems.append("same cells in another order")
        verdict = "equal" if not problems else "DIFFERENT"
        print(f"{side}: {len(cells)} cells, {len(starts)} regions: {verdict}")
        for p in problems:
            print(f"  {p}")
        if problems:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
