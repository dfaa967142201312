"""The docs/sdks.md example, checked by mypy --strict (run.sh) and run by test_e2e.py: seed
000's hashed access-logs table through the generated SDK, with batches, versions, filters and
range scans."""

from typing import List, Tuple

from redbase_examples import (
    AccessLogsColumns as Col,
    AccessLogsKey,
    AccessLogsTable,
    AccessLogsValues,
    Connection,
    Filter,
)


def main(logs: AccessLogsTable) -> Tuple[List[str], List[int], List[Tuple[int, int]]]:
    """`logs`: AccessLogsTable(conn), "access-logs", 16 regions split on '1'..'f' (the suite
    passes its own copy, AccessLogsTable(conn, name="py_access-logs"))."""
    key = AccessLogsKey(user_id="dave", system_id="jericho", period=201510)
    assert key.encode() == b"16108|jericho|201510"  # MD5("dave")[:5], the user id dropped

    # Batches: one putMultiple per 1,000 rows, one increment call per row.
    logs.put_many(
        (AccessLogsKey(user, "jericho", period), AccessLogsValues(last_seen=1_445_000_000_000))
        for user in ("dave", "elton", "fred")
        for period in range(201501, 201513)
    )
    logs.increment_many([(key, {Col.hits: 3}), (AccessLogsKey("elton", "jericho", 201510), {Col.hits: 1})])
    with logs.writer(flush_interval=1.0) as w:  # flushed by size, every second and on exit
        for period in range(201501, 201513):
            w.increment(AccessLogsKey("dave", "jericho", period), {Col.hits: 1})

    # Versions: the family keeps 3; every put may carry its own timestamp (ms).
    anvil = AccessLogsKey("dave", "anvil", 201510)
    for ts in (1_000, 2_000, 3_000):
        logs.put(anvil, AccessLogsValues(last_seen=ts * 10), timestamp=ts)
    row = logs.get(anvil, versions=3, columns=[Col.last_seen])
    assert row is not None and row.values.last_seen == 30_000
    versions = row.versions.last_seen  # [(3000, 30000), (2000, 20000), (1000, 10000)]

    # Range scans by key component, and a filter the server runs.
    q2 = logs.scan(user_id="dave", system_id="jericho", period=(201504, 201506))
    busy = logs.scan(user_id="dave", filter=Col.hits.ge(2) & Filter.column_prefix(b"h"))
    return [r.key.system_id for r in busy], [r.key.period for r in q2], versions


if __name__ == "__main__":
    import sys

    with Connection(sys.argv[1], int(sys.argv[2])) as c:
        print(main(AccessLogsTable(c)))
