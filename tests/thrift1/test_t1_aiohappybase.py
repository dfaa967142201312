"""aiohappybase (PyPI, the asyncio fork of happybase) against the real server, unmodified.

It speaks Thrift1 through thriftpy2's asyncio transports, so it reads replies differently
from happybase: every call below goes through its public API over buffered/framed x
binary/compact (the `combo` fixture). Expected values are what HBase 2.6 gives happybase.
"""

import asyncio

import aiohappybase
import pytest
from thriftpy2.thrift import TException


def run(server, combo, body):
    """Runs `body(conn)` on a fresh aiohappybase Connection in its own event loop."""
    transport, protocol = combo

    async def main():
        conn = aiohappybase.Connection(
            server.host, server.port, transport=transport, protocol=protocol, timeout=20_000
        )
        await conn.open()
        try:
            return await body(conn)
        finally:
            conn.close()

    return asyncio.run(main())


def test_tables_families_and_regions(server, combo, table_name):
    async def body(conn):
        await conn.create_table(table_name, {"cf": dict(max_versions=2), "cnt": {}})
        assert table_name.encode() in await conn.tables()
        assert await conn.is_table_enabled(table_name)
        t = conn.table(table_name)
        fams = await t.families()
        assert sorted(fams) == [b"cf", b"cnt"]
        assert fams[b"cf"]["max_versions"] == 2
        regions = await t.regions()
        assert len(regions) == 1
        assert (regions[0]["start_key"], regions[0]["end_key"]) == (b"", b"")
        await conn.disable_table(table_name)
        assert not await conn.is_table_enabled(table_name)
        await conn.delete_table(table_name)
        assert table_name.encode() not in await conn.tables()

    run(server, combo, body)


def test_rows_cells_versions_and_deletes(server, combo, table_name):
    async def body(conn):
        await conn.create_table(table_name, {"cf": dict(max_versions=3)})
        t = conn.table(table_name)
        await t.put(b"r1", {b"cf:a": b"old"}, timestamp=10)
        await t.put(b"r1", {b"cf:a": b"new", b"cf:b": b"2"})
        assert await t.row(b"r1") == {b"cf:a": b"new", b"cf:b": b"2"}
        assert await t.row(b"r1", columns=[b"cf:b"]) == {b"cf:b": b"2"}
        # The row as it was at timestamp 11 (exclusive): the old version only.
        assert await t.row(b"r1", timestamp=11) == {b"cf:a": b"old"}
        cells = await t.cells(b"r1", b"cf:a", versions=3, include_timestamp=True)
        assert [v for v, _ in cells] == [b"new", b"old"]
        assert cells[1][1] == 10
        assert await t.row(b"missing") == {}
        rows = await t.rows([b"r1", b"missing"])
        assert [k for k, _ in rows] == [b"r1"]

        await t.delete(b"r1", columns=[b"cf:b"])
        assert await t.row(b"r1") == {b"cf:a": b"new"}
        await t.delete(b"r1")
        assert await t.row(b"r1") == {}
        await conn.delete_table(table_name, disable=True)

    run(server, combo, body)


def test_batches_scans_and_filters(server, combo, table_name):
    async def body(conn):
        await conn.create_table(table_name, {"cf": {}})
        t = conn.table(table_name)
        async with t.batch(batch_size=3) as b:
            for i in range(10):
                await b.put(f"k{i:02d}".encode(), {b"cf:n": str(i).encode()})
            await b.delete(b"k05")
        keys = [k async for k, _ in t.scan()]
        assert keys == [f"k{i:02d}".encode() for i in range(10) if i != 5]
        assert [k async for k, _ in t.scan(row_start=b"k02", row_stop=b"k04")] == [b"k02", b"k03"]
        assert [k async for k, _ in t.scan(row_prefix=b"k0", limit=2)] == [b"k00", b"k01"]
        assert [k async for k, _ in t.scan(reverse=True, limit=2)] == [b"k09", b"k08"]
        got = [k async for k, _ in t.scan(filter=b"ValueFilter(=, 'binary:7')")]
        assert got == [b"k07"]
        # A scan fetched in small batches still sees every row once.
        assert len([k async for k, _ in t.scan(batch_size=2)]) == 9
        await conn.delete_table(table_name, disable=True)

    run(server, combo, body)


def test_counters_and_errors(server, combo, table_name):
    async def body(conn):
        await conn.create_table(table_name, {"c": {}})
        t = conn.table(table_name)
        assert await t.counter_inc(b"r", b"c:n", 5) == 5
        assert await t.counter_dec(b"r", b"c:n", 2) == 3
        assert await t.counter_get(b"r", b"c:n") == 3
        await t.counter_set(b"r", b"c:n", 40)
        assert await t.counter_inc(b"r", b"c:n") == 41
        # An unknown family is an IOError naming it; the connection stays usable.
        with pytest.raises(TException) as e:
            await t.put(b"r", {b"nofamily:q": b"v"})
        assert "nofamily" in str(e.value)
        assert await t.counter_get(b"r", b"c:n") == 41
        await conn.delete_table(table_name, disable=True)

    run(server, combo, body)
