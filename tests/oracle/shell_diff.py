#!/usr/bin/env python3
"""Compares `redbase shell` output against redbase with the same script's output against HBase's
Thrift2 gateway (both already masked by tests/shell/mask.sed).

    shell_diff.py REDBASE_OUT HBASE_OUT ALLOW_JSON

Every difference is a hunk of difflib's opcodes: the lines redbase printed and the lines HBase's
gateway made the shell print instead. A hunk passes only if tests/oracle/shell-allow.json lists
exactly those lines with a reason; an allow entry that matches no hunk is an error too (the file
must not outlive the differences it explains). Exit status 0 when everything is explained."""

import difflib
import json
import sys


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    ours = open(sys.argv[1], encoding="utf-8").read().splitlines()
    theirs = open(sys.argv[2], encoding="utf-8").read().splitlines()
    allow = json.load(open(sys.argv[3], encoding="utf-8"))
    for entry in allow:
        for key in ("redbase", "hbase", "reason"):
            if key not in entry:
                print(f"shell_diff: allow entry without '{key}': {entry}", file=sys.stderr)
                return 2
    used = [0] * len(allow)
    unexplained = 0
    hunks = 0
    matcher = difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        hunks += 1
        a, b = ours[i1:i2], theirs[j1:j2]
        hit = next(
            (k for k, e in enumerate(allow) if e["redbase"] == a and e["hbase"] == b), None
        )
        if hit is not None:
            used[hit] += 1
            continue
        unexplained += 1
        print(f"--- unexplained difference at redbase line {i1 + 1}, HBase line {j1 + 1}")
        for line in ours[max(0, i1 - 3) : i1]:
            print(f"   {line}")
        for line in a:
            print(f" - {line}")
        for line in b:
            print(f" + {line}")
        for line in ours[i2 : i2 + 2]:
            print(f"   {line}")
        print("  (as an allow entry: " + json.dumps({"redbase": a, "hbase": b}) + ")")
    stale = [allow[k] for k, n in enumerate(used) if n == 0]
    for e in stale:
        print(f"--- allow entry matched no difference: {json.dumps(e)}")
    print(
        f"shell_diff: {len(ours)} lines from redbase, {len(theirs)} from HBase, {hunks} "
        f"difference(s), {hunks - unexplained} explained by {sys.argv[3]}, {unexplained} not, "
        f"{len(stale)} stale allow entr{'y' if len(stale) == 1 else 'ies'}"
    )
    return 1 if unexplained or stale else 0


if __name__ == "__main__":
    sys.exit(main())
