"""Real regions (size-triggered splits), restarts on the same data directory, graceful shutdown."""

import hashlib
import re
import signal
import threading
import time

from t1_util import COMBOS, hbase1, raw_connect, read_until_closed, wait_until

ColumnDescriptor = hbase1.ColumnDescriptor
Mutation = hbase1.Mutation
BatchMutation = hbase1.BatchMutation

ROWS = 400


def fill(srv, name):
    c = srv.client()
    t = name.encode()
    try:
        c.createTable(t, [ColumnDescriptor(name=b"f:"), ColumnDescriptor(name=b"g:")])
        for start in range(0, ROWS, 50):
            c.mutateRows(
                t,
                [
                    BatchMutation(
                        row=b"row%04d" % i,
                        mutations=[
                            Mutation(column=b"f:v", value=b"%04d" % i + b"x" * 1000),
                            Mutation(column=b"g:n", value=b"%d" % i),
                        ],
                    )
                    for i in range(start, start + 50)
                ],
                {},
            )
    finally:
        c.close()
    return t


def region_list(client, t):
    return client.getTableRegions(t)


def settled_regions(client, t, quiet=0.6, timeout=20):
    """The region list once it has stopped changing for `quiet` seconds."""
    last, since = None, None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = [(r.startKey, r.endKey, r.id) for r in client.getTableRegions(t)]
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
        time.sleep(0.1)
    return sorted(client.getTableRegions(t), key=lambda r: r.startKey)


def test_table_splits_into_real_regions(redbase, table_name):
    srv = redbase(["--region-max-size", "32768"])
    t = fill(srv, table_name)
    c = srv.client()
    try:
        regions = wait_until(lambda: (lambda r: r if len(r) >= 2 else None)(region_list(c, t)), timeout=30)
        assert regions, f"no split after writing {ROWS} rows of 1 KiB into 32 KiB regions"
        # Let splits in progress finish before comparing region lists.
        regions = settled_regions(c, t)
        regions = sorted(regions, key=lambda r: r.startKey)
        assert regions[0].startKey == b""
        assert regions[-1].endKey == b""
        for a, b in zip(regions, regions[1:]):
            assert a.endKey == b.startKey and a.startKey < a.endKey
        assert len({r.id for r in regions}) == len(regions)
        for r in regions:
            assert r.name.startswith(t + b"," + r.startKey + b"," + str(r.id).encode() + b".")
            assert (r.version, r.serverName, r.port) == (1, b"localhost", srv.port)

        # getRegionInfo finds the region holding a row from its catalog search key.
        for r in regions:
            row = r.startKey or b"row0000"
            info = c.getRegionInfo(t + b"," + row + b",99999999999999")
            assert (info.startKey, info.endKey, info.name) == (r.startKey, r.endKey, r.name)
        last = regions[-1]
        info = c.getRegionInfo(t + b",zzzz,99999999999999")
        assert info.name == last.name

        # Region names work for compactions.
        c.compact(regions[0].name)
        c.majorCompact(regions[-1].name)

        # Every row is still there, across region boundaries, in order and in reverse.
        hb = srv.happybase()
        try:
            table = hb.table(table_name)
            assert [
                (r["start_key"], r["end_key"], r["name"]) for r in table.regions()
            ] == [(r.startKey, r.endKey, r.name) for r in region_list(c, t)]
            keys = [k for k, _ in table.scan(columns=[b"g"], batch_size=37)]
            expected = [b"row%04d" % i for i in range(ROWS)]
            missing = sorted(set(expected) - set(keys))
            assert not missing, f"{len(missing)} acknowledged rows missing after splits: {missing[:10]}"
            assert keys == expected
            assert [k for k, _ in table.scan(columns=[b"g"], reverse=True)] == keys[::-1]
            boundary = regions[1].startKey
            i = keys.index(boundary)
            got = table.rows([keys[i - 1], boundary, b"nope", keys[-1]], columns=[b"g:n"])
            assert [k for k, _ in got] == [keys[i - 1], boundary, keys[-1]]
            around = table.scan(row_start=keys[i - 2], row_stop=keys[i + 2], columns=[b"g"])
            assert [k for k, _ in around] == keys[i - 2:i + 2]
            assert table.row(b"row0399", columns=[b"f:v"])[b"f:v"].startswith(b"0399x")
        finally:
            hb.close()
    finally:
        c.close()

    # After a restart on the same data the same regions and rows are there.
    data_dir = srv.data_dir
    srv.stop_and_check()
    srv2 = redbase(["--region-max-size", "0"], data_dir=data_dir)
    c = srv2.client()
    try:
        after = sorted(region_list(c, t), key=lambda r: r.startKey)
        assert len(after) >= len(regions)
        assert after[0].startKey == b"" and after[-1].endKey == b""
        got = c.getRows(t, [b"row0000", b"row0200", b"row0399"], {})
        assert [r.row for r in got] == [b"row0000", b"row0200", b"row0399"]
        sid = c.scannerOpenWithScan(t, hbase1.TScan(columns=[b"g:n"]), {})
        n = 0
        while True:
            batch = c.scannerGetList(sid, 100)
            if not batch:
                break
            n += len(batch)
        c.scannerClose(sid)
        assert n == ROWS
    finally:
        c.close()


def test_acknowledged_writes_survive_region_splits(redbase, table_name):
    """Every put the server acknowledged is there afterwards, however many splits ran meanwhile.

    Several rounds, each a fresh table written by 4 threads (happybase, mixed transports and
    protocols) while 16 KiB regions split again and again."""
    srv = redbase(["--region-max-size", "16384"])
    rounds, threads_n, per_thread = 10, 4, 60
    report = []
    for rnd in range(rounds):
        name = f"{table_name}_{rnd}"
        hb = srv.happybase()
        hb.create_table(name, {"f": {}, "g": {}})
        hb.close()
        errors = []

        def work(k):
            try:
                conn = srv.happybase(*COMBOS[k])
                table = conn.table(name)
                for i in range(per_thread):
                    table.put(b"%03d-%d" % (i, k), {b"f:v": b"y" * 500, b"g:k": b"%d" % k})
                    if i % 10 == 0:
                        table.counter_inc(b"~counter", b"g:n")
                conn.close()
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(threads_n)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
        assert errors == []
        hb = srv.happybase("framed", "compact")
        try:
            table = hb.table(name)
            found = {k for k, _ in table.scan(row_stop=b"~", columns=[b"g:k"])}
            expected = {b"%03d-%d" % (i, k) for i in range(per_thread) for k in range(threads_n)}
            counter = table.counter_get(b"~counter", b"g:n")
            regions = len(table.regions())
        finally:
            hb.close()
        lost = sorted(expected - found)
        if lost or counter != threads_n * per_thread // 10:
            report.append(f"round {rnd}: {len(lost)} of {len(expected)} acknowledged rows lost "
                          f"(e.g. {lost[:3]}), counter {counter}, {regions} regions")
    assert not report, "\n".join(report)


def test_cluster_id_is_stable_across_restarts(redbase, tmp_path, table_name):
    data = tmp_path / "cluster"
    srv = redbase([], data_dir=data)
    c = srv.client()
    cid = c.getClusterId()
    t = table_name.encode()
    c.createTable(t, [ColumnDescriptor(name=b"f:")])
    c.mutateRow(t, b"r", [Mutation(column=b"f:a", value=b"kept")], {})
    c.close()
    assert cid
    srv.stop_and_check()

    srv = redbase([], data_dir=data)
    c = srv.client()
    try:
        assert c.getClusterId() == cid
        assert c.get(t, b"r", b"f:a", {})[0].value == b"kept"
    finally:
        c.close()
    srv.stop_and_check()

    other = redbase([], data_dir=tmp_path / "another")
    c = other.client()
    try:
        assert c.getClusterId() != cid
    finally:
        c.close()


def test_graceful_shutdown_with_busy_clients(redbase, table_name):
    srv = redbase([])
    c = srv.client()
    t = table_name.encode()
    c.createTable(t, [ColumnDescriptor(name=b"f:")])
    for i in range(20):
        c.mutateRow(t, b"r%02d" % i, [Mutation(column=b"f:a", value=b"%d" % i)], {})
    sid = c.scannerOpen(t, b"", [], {})
    assert len(c.scannerGetList(sid, 5)) == 5
    idle = raw_connect(srv)
    partial = raw_connect(srv)
    partial.sendall(b"\x80\x01\x00\x01\x00\x00\x00\x0dgetTab")
    hb = srv.happybase("framed", "compact")
    hb.table(table_name).put(b"last", {b"f:a": b"acknowledged"})
    try:
        srv.stop_and_check()
        closed, _ = read_until_closed(idle, timeout=2)
        assert closed
    finally:
        idle.close()
        partial.close()
        c.close()
        hb.close()
    # Everything acknowledged before SIGTERM survives.
    srv2 = redbase([], data_dir=srv.data_dir)
    c = srv2.client()
    try:
        assert c.get(t, b"last", b"f:a", {})[0].value == b"acknowledged"
        assert len(c.getRows(t, [b"r%02d" % i for i in range(20)], {})) == 20
    finally:
        c.close()


def test_region_names_have_the_hbase_format(client, table_name):
    """HBase region names are "<table>,<startKey>,<regionId>.<encodedName>." where the encoded
    name is the MD5 hex digest of "<table>,<startKey>,<regionId>"; clients and tools parse it."""
    t = table_name.encode()
    client.createTable(t, [ColumnDescriptor(name=b"f:")])
    [r] = client.getTableRegions(t)
    prefix = t + b",," + str(r.id).encode()
    encoded = hashlib.md5(prefix).hexdigest().encode()
    assert re.fullmatch(rb"[^,]+,[^,]*,\d+\.[0-9a-f]{32}\.", r.name), r.name
    assert r.name == prefix + b"." + encoded + b"."


def test_sigint_also_shuts_down_cleanly(redbase):
    srv = redbase([])
    c = srv.client()
    assert c.getThriftServerType() == hbase1.TThriftServerType.ONE
    c.close()
    code = srv.stop(sig=signal.SIGINT)
    assert code == 0, srv.log_tail()
