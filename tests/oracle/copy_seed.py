"""The seed tables for tests/oracle/copy.sh, written into DIR:

- access-v1.csv, access-v2.csv: the access-logs table (sdks/schemas/access_logs.toml: key
  {md5(user_id)[:5]}|{system_id}|{period}, pre-split at 1..f) for `redbase import --csv`, the
  same keys twice with different timestamps and values, so every cell has two versions;
- seed.hb: a `redbase shell` script creating social-usage (families fb and tw, one column per
  period, two versions of tw:t), counters (`incr`) and books (binary cover and file bytes),
  every put with an explicit timestamp.

Usage: python3 tests/oracle/copy_seed.py DIR [USERS]
"""

import random
import sys
from pathlib import Path


def ruby_bytes(b: bytes) -> str:
    """A double-quoted shell string holding exactly these bytes."""
    out = []
    for x in b:
        c = chr(x)
        if 0x20 <= x < 0x7F and c not in '"\\#':
            out.append(c)
        else:
            out.append(f"\\x{x:02x}")
    return '"' + "".join(out) + '"'


def main() -> int:
    out = Path(sys.argv[1])
    users = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    rng = random.Random(20)
    systems = ["jericho", "web_01", "mobile", "api"]
    header = "user_id,system_id,period,hits,last_seen,HBASE_TS_KEY\n"
    for version, ts in ((1, 1_700_000_000_000), (2, 1_700_000_500_000)):
        lines = [header]
        for u in range(users):
            for s in systems[: 1 + u % len(systems)]:
                for period in (201510, 201511):
                    hits = rng.randrange(1, 10_000) * version
                    lines.append(f"user{u},{s},{period},{hits},{ts - u},{ts + u}\n")
        (out / f"access-v{version}.csv").write_text("".join(lines))

    hb = []
    hb.append("create 'social-usage', {NAME => 'fb'}, {NAME => 'tw', VERSIONS => 2}")
    for u in range(users // 4):
        row = f"user{u}"
        ts = 1_600_000_000_000 + u
        hb.append(f"put 'social-usage', '{row}', 'fb:id', 'fb{u}', {ts}")
        hb.append(f"put 'social-usage', '{row}', 'tw:id', '@u{u}', {ts}")
        total = 0
        for m in range(1, 1 + u % 6):
            n = rng.randrange(0, 500)
            total += n
            q = f"2015{m:02d}"
            hb.append(
                f"put 'social-usage', '{row}', 'fb:{q}', {ruby_bytes(n.to_bytes(8, 'big'))}, {ts}"
            )
        hb.append(
            f"put 'social-usage', '{row}', 'fb:t', {ruby_bytes(total.to_bytes(8, 'big'))}, {ts}"
        )
        for v in (1, 2):
            hb.append(
                f"put 'social-usage', '{row}', 'tw:t', {ruby_bytes((total * v).to_bytes(8, 'big'))}, {ts + v}"
            )

    hb.append("create 'counters', 'c'")
    for r in range(20):
        hb.append(f"incr 'counters', 'rk{r}', 'c:1'")
        hb.append(f"incr 'counters', 'rk{r}', 'c:2', {100 + r}")

    hb.append(
        "create 'books', {NAME => 'b', BLOOMFILTER => 'ROW'}, {SPLITS => ['978-1', '978-3']}"
    )
    for i in range(60):
        isbn = f"978-{i % 5}-{1000 + i}"
        ts = 1_650_000_000_000 + i * 1000
        cover = b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(64))
        pdf = b"%PDF-1.4\n" + bytes(rng.randrange(256) for _ in range(256))
        hb.append(f"put 'books', '{isbn}', 'b:t', 'Title {i}', {ts}")
        hb.append(f"put 'books', '{isbn}', 'b:a', 'Author {i % 7}', {ts}")
        hb.append(
            f"put 'books', '{isbn}', 'b:d', {ruby_bytes((1_400_000_000 + i).to_bytes(8, 'big'))}, {ts}"
        )
        hb.append(f"put 'books', '{isbn}', 'b:c', {ruby_bytes(cover)}, {ts}")
        hb.append(f"put 'books', '{isbn}', 'b:f', {ruby_bytes(pdf)}, {ts}")
    (out / "seed.hb").write_text("\n".join(hb) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
