"""/metrics through two independent parsers (the Prometheus text parser and the OpenMetrics
parser of the `prometheus-client` package), with exact counts checked against the calls this
test made through real happybase and Thrift2 clients."""

import random
import socket
import struct

import pytest
from prometheus_client.openmetrics.parser import (
    text_string_to_metric_families as parse_openmetrics,
)
from prometheus_client.parser import text_string_to_metric_families as parse_prometheus

from ops_util import create_table, hbase2, wait_until


def scrape(server):
    """{sample name: [(labels, value)]} from /metrics, checked by both parsers alike."""
    code, ctype, text = server.get("/metrics")
    assert code == 200, text
    assert ctype.startswith("application/openmetrics-text"), ctype
    assert text.endswith("# EOF\n")
    samples = {}
    for family in parse_prometheus(text):
        for s in family.samples:
            samples.setdefault(s.name, []).append((s.labels, s.value))
    strict = {}
    for family in parse_openmetrics(text):
        for s in family.samples:
            strict.setdefault(s.name, []).append((s.labels, s.value))
    assert strict == samples, "the two parsers disagree"
    return samples


def value(samples, name, **labels):
    """The value of the one sample `name` whose labels include `labels` (None if absent)."""
    found = [v for l, v in samples.get(name, []) if all(l.get(k) == w for k, w in labels.items())]
    assert len(found) <= 1, f"{name}{labels} matches {len(found)} samples"
    return found[0] if found else None


def unknown_method_call(host, port):
    """Sends a strict-binary call of a method no HBase service has; returns the reply bytes."""
    name = b"noSuchMethod"
    msg = struct.pack(">I", 0x80010001) + struct.pack(">i", len(name)) + name
    msg += struct.pack(">i", 7) + b"\x00"  # seqid, then an empty argument struct
    with socket.create_connection((host, port), timeout=10) as s:
        s.sendall(msg)
        return s.recv(65536)


def test_requests_by_method_and_outcome_with_latency(redbase):
    srv = redbase()
    conn = srv.happybase()
    conn.create_table("m", {"f": {}})
    table = conn.table("m")
    for i in range(7):
        table.put(f"r{i}".encode(), {b"f:a": b"x"})
    for i in range(3):
        assert table.row(f"r{i}".encode()) == {b"f:a": b"x"}
    with pytest.raises(Exception):
        conn.create_table("m", {"f": {}})  # AlreadyExists: a declared exception
    reply = unknown_method_call(srv.host, srv.ports["thrift2"])
    assert reply[:4] == struct.pack(">I", 0x80010003), "an application exception comes back"
    conn.close()

    m = scrape(srv)
    req = "redbase_requests_total"
    assert value(m, req, gateway="thrift1", method="mutateRows", outcome="ok") == 7
    assert value(m, req, gateway="thrift1", method="getRowWithColumns", outcome="ok") == 3
    assert value(m, req, gateway="thrift1", method="createTable", outcome="ok") == 1
    assert value(m, req, gateway="thrift1", method="createTable", outcome="error") == 1
    assert value(m, req, gateway="thrift2", method="unknown", outcome="exception") == 1
    assert value(m, req, gateway="thrift1", method="mutateRows", outcome="error") is None

    hist = "redbase_request_duration_seconds"
    assert value(m, hist + "_count", gateway="thrift1", method="mutateRows") == 7
    assert value(m, hist + "_count", gateway="thrift1", method="createTable") == 2
    assert value(m, hist + "_sum", gateway="thrift1", method="mutateRows") > 0
    buckets = sorted(
        (float(l["le"]), v)
        for l, v in m[hist + "_bucket"]
        if l["gateway"] == "thrift1" and l["method"] == "mutateRows"
    )
    counts = [v for _, v in buckets]
    assert counts == sorted(counts), "cumulative buckets never decrease"
    assert buckets[-1] == (float("inf"), 7)


def test_connections_and_scanners_are_counted_while_open(redbase, table_name):
    srv = redbase()
    c2 = srv.client2()
    create_table(c2, table_name)
    t = table_name.encode()
    c2.put(t, hbase2.TPut(row=b"r", columnValues=[hbase2.TColumnValue(b"f", b"a", b"v")]))
    scanner = c2.openScanner(t, hbase2.TScan())
    m = scrape(srv)
    assert value(m, "redbase_open_connections", gateway="thrift2") == 1
    assert value(m, "redbase_open_connections", gateway="thrift1") == 0
    assert value(m, "redbase_open_scanners", gateway="thrift2") == 1
    assert value(m, "redbase_open_scanners", gateway="thrift1") == 0
    c2.closeScanner(scanner)
    assert value(scrape(srv), "redbase_open_scanners", gateway="thrift2") == 0
    c2.close()
    closed = wait_until(
        lambda: value(scrape(srv), "redbase_open_connections", gateway="thrift2") == 0
    )
    assert closed, "the connection gauge falls back when the client leaves"


def test_regions_sizes_reads_writes_commits_and_compactions(redbase, table_name):
    srv = redbase()
    c2 = srv.client2()
    create_table(c2, table_name, splits=["b", "c", "d"])
    t = table_name.encode()
    before = scrape(srv)
    for i in range(5):
        c2.put(t, hbase2.TPut(row=f"b{i}".encode(), columnValues=[hbase2.TColumnValue(b"f", b"a", b"v")]))
    c2.put(t, hbase2.TPut(row=b"c0", columnValues=[hbase2.TColumnValue(b"f", b"a", b"v")]))
    # One call carrying ten rows for one region: ten row writes, one commit.
    c2.putMultiple(t, [hbase2.TPut(row=f"c{i}".encode(),
                                   columnValues=[hbase2.TColumnValue(b"f", b"a", b"v")])
                       for i in range(1, 11)])
    for i in range(4):
        assert c2.get(t, hbase2.TGet(row=f"b{i}".encode())).row == f"b{i}".encode()
    c2.close()

    by_start = {r["start_key"]: r["encoded_name"] for r in srv.status()["tables"][0]["regions"]}
    assert sorted(by_start) == ["", "b", "c", "d"]
    m = scrape(srv)
    assert value(m, "redbase_tables") == 1
    assert value(m, "redbase_regions", table=table_name) == 4
    hot, warm, cold = by_start["b"], by_start["c"], by_start["d"]
    assert value(m, "redbase_region_writes_total", table=table_name, region=hot) == 5
    assert value(m, "redbase_region_writes_total", table=table_name, region=warm) == 11
    assert value(m, "redbase_region_commits_total", table=table_name, region=warm) == 2
    assert value(m, "redbase_region_writes_total", table=table_name, region=cold) == 0
    assert value(m, "redbase_region_reads_total", table=table_name, region=hot) == 4
    assert value(m, "redbase_region_reads_total", table=table_name, region=cold) == 0
    assert value(m, "redbase_region_commits_total", table=table_name, region=hot) == 5
    assert value(m, "redbase_region_size_bytes", table=table_name, region=hot) > 0
    assert value(m, "redbase_region_size_bytes", table=table_name, region=cold) == 0
    assert value(m, "redbase_region_write_bytes_total", table=table_name, region=hot) > 0
    assert value(m, "redbase_region_read_bytes_total", table=table_name, region=hot) > 0
    # Sequential calls commit one by one.
    assert value(m, "redbase_commits_total") - value(before, "redbase_commits_total") == 7
    # Each region also carries its start key (HBase's toStringBinary), so a query can name
    # the part of the table it holds without the status page's mapping.
    assert value(m, "redbase_region_writes_total", table=table_name, start_key="b") == 5
    assert value(m, "redbase_region_writes_total", table=table_name, start_key="") == 0
    assert value(m, "redbase_region_size_bytes", table=table_name, region=hot, start_key="b") > 0

    conn = srv.happybase()
    conn.compact_table(table_name, major=True)
    conn.close()
    m2 = scrape(srv)
    assert value(m2, "redbase_compactions_total") == value(m, "redbase_compactions_total") + 1


def test_splits_are_counted(redbase, table_name):
    # Regions of 200 kB: a region must have taken 64 rows before its writes count as appends.
    srv = redbase(args=["--region-max-size", "200000"])
    conn = srv.happybase()
    conn.create_table(table_name, {"f": {}})
    table = conn.table(table_name)
    assert value(scrape(srv), "redbase_splits_total") == 0
    with table.batch(batch_size=50) as b:
        for i in range(1000):
            b.put(f"row{i:05d}".encode(), {b"f:a": b"v" * 500})
    split = wait_until(lambda: value(scrape(srv), "redbase_splits_total") >= 2, timeout=30)
    assert split, "a region past --region-max-size splits and the split is counted"
    assert value(scrape(srv), "redbase_regions", table=table_name) >= 3
    # Rows in ascending order append at the region's end: every split is at its tail.
    m = scrape(srv)
    assert value(m, "redbase_splits_at_tail_total") == value(m, "redbase_splits_total")

    # The same rows in a scrambled order split at the middle row: the tail count stays.
    conn.create_table(table_name + "_scrambled", {"f": {}})
    scrambled = conn.table(table_name + "_scrambled")
    order = list(range(1000))
    random.Random(7).shuffle(order)  # a stride would ascend within narrow ranges of rows
    with scrambled.batch(batch_size=50) as b:
        for i in order:
            b.put(f"row{i:05d}".encode(), {b"f:a": b"v" * 500})
    more = wait_until(
        lambda: value(scrape(srv), "redbase_splits_total") > value(m, "redbase_splits_total"),
        timeout=30,
    )
    conn.close()
    assert more, "the scrambled table split too"
    assert value(scrape(srv), "redbase_splits_at_tail_total") == value(m, "redbase_splits_at_tail_total")


def test_size_splits_stop_at_the_region_split_limit(redbase, table_name):
    srv = redbase(args=["--region-max-size", "20000", "--region-split-limit", "2"])
    conn = srv.happybase()
    conn.create_table(table_name, {"f": {}})
    table = conn.table(table_name)
    assert value(scrape(srv), "redbase_region_split_limit") == 2
    with table.batch(batch_size=50) as b:
        for i in range(400):
            b.put(f"row{(i * 173) % 400:05d}".encode(), {b"f:a": b"v" * 500})
    skipped = wait_until(
        lambda: value(scrape(srv), "redbase_splits_skipped_at_limit_total") >= 1, timeout=30
    )
    # The refused splits leave the queue: nothing waits for a split that cannot be made.
    drained = wait_until(lambda: value(scrape(srv), "redbase_splits_queued") == 0, timeout=30)
    m = scrape(srv)
    conn.close()
    assert skipped, "a split past the limit is counted as skipped"
    assert drained, "the split queue empties"
    assert value(m, "redbase_regions", table=table_name) == 2


def test_write_buffer_drains_and_their_threads_are_reported(redbase, table_name):
    # A 1 MB engine-wide write buffer: past half of it, the buffer drains in the background.
    srv = redbase(args=["--write-buffer-size", "1000000"])
    conn = srv.happybase()
    conn.create_table(table_name, {"f": {}})
    table = conn.table(table_name)
    m = scrape(srv)
    assert value(m, "redbase_write_buffer_background_drains_total") == 0
    assert value(m, "redbase_write_buffer_drain_threads") == 0, "no thread before any drain"
    assert value(m, "redbase_write_buffer_drain_threads_max") == 2
    assert value(m, "redbase_write_buffer_drains_queued") == 0
    with table.batch(batch_size=100) as b:
        for i in range(4000):
            b.put(f"row{i:05d}".encode(), {b"f:a": b"v" * 500})
    drained = wait_until(
        lambda: value(scrape(srv), "redbase_write_buffer_background_drains_total") >= 1, timeout=30
    )
    m = scrape(srv)
    conn.close()
    assert drained, "2 MB of puts through a 1 MB buffer drain in the background"
    assert value(m, "redbase_write_buffer_background_drain_seconds_count") >= 1
    assert 0 <= value(m, "redbase_write_buffer_drain_threads") <= 2
    assert 0 <= value(m, "redbase_write_buffer_drains_queued") <= 1, "one region: one queued drain"
    assert value(m, "redbase_write_buffer_bytes") <= 1_000_000 + 100 * 600


def test_region_start_key_labels_are_bounded(redbase, table_name):
    """A start key of any length and bytes becomes a label of at most 48 characters in
    toStringBinary form, cut before an escape rather than through it."""
    srv = redbase()
    c2 = srv.client2()
    long_key = b"\x00\xff" + b"k" * 300
    desc = hbase2.TTableDescriptor(
        tableName=hbase2.TTableName(qualifier=table_name.encode()),
        columns=[hbase2.TColumnFamilyDescriptor(name=b"f")],
    )
    c2.createTable(desc, [long_key])
    c2.close()
    m = scrape(srv)
    starts = sorted(l["start_key"] for l, _ in m["redbase_region_size_bytes"]
                    if l.get("table") == table_name)
    label = "\\x00\\xFF" + "k" * (48 - 3 - 8) + "..."
    assert starts == ["", label], starts
    assert len(label) == 48
