"""The bound on regions through the binary: `--max-regions`, the open-file limit raised at
start, the metrics, and the error a client sees when a table would pass the bound."""

import resource

import pytest

from ops_util import create_table, hbase2
from test_metrics import scrape, value


def test_a_table_past_max_regions_is_refused_with_a_clear_error(redbase, table_name):
    srv = redbase(args=["--max-regions", "4"])
    c2 = srv.client2()
    create_table(c2, table_name, splits=["b", "c", "d"])  # 4 regions
    with pytest.raises(hbase2.TIOError) as err:
        create_table(c2, table_name + "_more", splits=["m"])
    msg = err.value.message
    assert "would add 2 region(s) to the 4 this server holds" in msg, msg
    assert "--max-regions" in msg, msg
    assert err.value.canRetry is False, "waiting does not help: the bound is a setting"
    other = hbase2.TTableName(qualifier=(table_name + "_more").encode())
    assert not c2.tableExists(other), "nothing of the refused table exists"
    m = scrape(srv)
    assert value(m, "redbase_max_regions") == 4
    assert value(m, "redbase_regions_held") == 4
    assert value(m, "redbase_regions_refused_total") == 1
    # Room comes back when a table goes.
    t = hbase2.TTableName(qualifier=table_name.encode())
    c2.disableTable(t)
    c2.deleteTable(t)
    create_table(c2, table_name + "_more", splits=["m"])
    assert value(scrape(srv), "redbase_regions_held") == 2


def max_open_files(pid):
    with open(f"/proc/{pid}/limits") as f:
        line = next(l for l in f if l.startswith("Max open files"))
    soft, hard = line.split()[3:5]
    return soft, hard


def test_the_open_file_limit_is_raised_and_bounds_the_default(redbase):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = min(soft, 1024)
    # The server inherits a low soft limit, and raises it to the hard one.
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        srv = redbase()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    got_soft, got_hard = max_open_files(srv.proc.pid)
    assert got_soft == got_hard, (got_soft, got_hard)
    bound = value(scrape(srv), "redbase_max_regions")
    if got_hard != "unlimited":
        # A descriptor for each of 1,024 connections, 256 kept, two per region.
        assert 16 <= bound <= max(16, (int(got_hard) - 1024 - 256) // 2), bound
    assert bound <= 10_000
    with open(srv.log_path) as f:
        log = f.read()
    assert "region bound" in log and f"max_regions={int(bound)}" in log, log[-2000:]


def test_namespace_quotas_with_quota_enabled(redbase, table_name):
    """`--quota-enabled`, as HBase's hbase.quota.enabled: a namespace's table and region quotas
    refuse tables with HBase 2.6.1's messages (the same text on both gateways; HBase's Thrift1
    adds the exception class and a stack trace), not retryable, and the refusals are counted."""
    srv = redbase(args=["--quota-enabled"])
    c2 = srv.client2()
    ns = table_name + "_ns"
    c2.createNamespace(
        hbase2.TNamespaceDescriptor(
            name=ns,
            configuration={
                "hbase.namespace.quota.maxtables": "2",
                "hbase.namespace.quota.maxregions": "3",
            },
        )
    )

    def create(name, splits=()):
        c2.createTable(
            hbase2.TTableDescriptor(
                tableName=hbase2.TTableName(ns=ns.encode(), qualifier=name.encode()),
                columns=[hbase2.TColumnFamilyDescriptor(name=b"f")],
            ),
            [s.encode() for s in splits] or None,
        )

    create("a", ["m"])
    with pytest.raises(hbase2.TIOError) as err:
        create("b", ["c", "m"])
    assert err.value.message == (
        f"The table {ns}:b is not allowed to have 3 regions. The total number of regions "
        "permitted is only 3, while current region count is 2. This may be transient, please "
        "retry later if there are any ongoing split operations in the namespace."
    )
    assert err.value.canRetry is False
    create("b")
    conn = srv.happybase()
    try:
        with pytest.raises(Exception) as err1:
            conn.create_table(f"{ns}:c", {"f": {}})
    finally:
        conn.close()
    assert err1.value.message == (
        f"The table {ns}:c cannot be created as it would exceed maximum number of tables "
        "allowed  in the namespace.  The total number of tables permitted is 2"
    ).encode()
    assert value(scrape(srv), "redbase_namespace_quota_refused_total") == 2
