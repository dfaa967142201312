"""node-hbase (tests/rest/node_hbase.test.js under `node --test`) against a real redbase."""

import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_node_hbase(server):
    env = dict(os.environ, REST_PORT=str(server.http_port))
    r = subprocess.run(
        ["node", "--test", "node_hbase.test.js"],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
