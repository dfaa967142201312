"""The docs/sdks.md example, checked by mypy --strict (run.sh) and run by test_e2e.py: seed
000's hashed access-logs table through the generated SDK."""

from typing import List

from redbase_examples import AccessLogsKey, AccessLogsTable, AccessLogsValues, Connection


def main(conn: Connection) -> List[str]:
    logs = AccessLogsTable(conn)  # "access-logs": 16 regions split on '1'..'f'
    for user in ("dave", "elton", "fred"):
        key = AccessLogsKey(user_id=user, system_id="jericho", period=201510)
        logs.put(key, AccessLogsValues(last_seen=1_445_000_000_000))
        logs.increment_hits(key, 3)
    row = logs.get(AccessLogsKey("dave", "jericho", 201510))
    assert row is not None and row.row_key == b"16108|jericho|201510"
    hits: int = row.values.hits or 0
    assert hits >= 3
    return [r.key.system_id for r in logs.scan(AccessLogsKey.prefix(user_id="dave"))]


if __name__ == "__main__":
    import sys

    with Connection(sys.argv[1], int(sys.argv[2])) as c:
        print(main(c))
