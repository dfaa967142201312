# 100,000 rows x 10 cells (a:q0, a:q1 x 4 versions; b:\x00\xff x 2), binary keys and values,
# as server/tests/data_move.rs seeds its table, in the export format (uncompressed),
# for the export/import figures in docs/benchmarks.md. Usage: python3 server/benches/data_move_gen.py OUT.jsonl
import base64, json, sys, zlib
b = lambda x: base64.b64encode(x).decode()
fam = lambda n, v: {"name": b(n), "max_versions": v}
hdr = {"format": "redbase-export", "version": 1, "source": "gen.py", "created_ms": 0,
       "options": {"max_versions": 2147483647, "time_range": None, "families": []},
       "tables": [{"namespace": "default", "name": "bench", "families": [fam(b"a", 5), fam(b"b", 3)],
                   "splits": [b(b"\x40"), b(b"\x80\x00"), b(b"\xc0\xff\x01")]}]}
out = open(sys.argv[1], "wb")
crc = 0
def w(line):
    global crc
    data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
    crc = zlib.crc32(data, crc)
    out.write(data)
w(hdr)
rows = 100_000
for i in range(rows):
    key = ((i * 2654435761) % 2**32).to_bytes(4, "big") + bytes([0, 255, i % 7])
    cells = []
    for q in (b"q0", b"q1"):
        for v in (3, 2, 1, 0):
            val = bytes(((i * 31 + k * 7 + v) % 256) for k in range(8 + (i + v) % 16))
            cells.append({"f": b(b"a"), "q": b(q), "ts": 1000 + v * 10, "type": "put", "v": b(val)})
    for v in (1, 0):
        cells.append({"f": b(b"b"), "q": b(b"\x00\xff"), "ts": 5000 + v, "type": "put",
                      "v": b(bytes([0, 255, v, (i >> 8) % 256, i % 256]))})
    w({"t": 0, "row": b(key), "cells": cells})
out.write((json.dumps({"end": {"lines": rows, "cells": rows * 10, "tables": [{"lines": rows, "cells": rows * 10}],
                                "crc32": "%08x" % crc}}, separators=(",", ":")) + "\n").encode())
