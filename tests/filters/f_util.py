"""Helpers for the filter-language suite: one redbase process serving both gateways, and the
clients (happybase on Thrift1, a thriftpy2 client generated from idl/hbase2.thrift on Thrift2)."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

import happybase

REPO = Path(__file__).resolve().parents[2]

# A module name of its own, so this suite can share a pytest process with the others.
hbase2 = thriftpy2.load(str(REPO / "idl" / "hbase2.thrift"), module_name="redbase_filters_hbase2_thrift")

# Socket timeout for every client, in milliseconds: a hung server fails a test, never the run.
CLIENT_TIMEOUT_MS = 10_000


def server_binary() -> Path:
    path = Path(os.environ.get("REDBASE_BIN", REPO / "target" / "debug" / "redbase"))
    return path if path.is_absolute() else REPO / path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `redbase serve` process with Thrift1 and Thrift2 on free loopback ports."""

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.host = "127.0.0.1"
        self.port1 = self.port2 = None
        self.proc = None
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}.log"
        self._log = None

    def start(self, timeout=30.0):
        binary = server_binary()
        if not binary.exists():
            raise RuntimeError(f"redbase binary not found at {binary}: cargo build -p redbase")
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        # The ports were free a moment ago; if someone took one since, try others.
        for _ in range(5):
            self.port1, self.port2 = free_port(), free_port()
            if self.port1 != self.port2 and self._launch(binary, timeout):
                return self
        raise RuntimeError(f"redbase could not bind its ports:\n{self.log_tail()}")

    def _launch(self, binary, timeout) -> bool:
        cmd = [
            str(binary),
            "serve",
            "--data-dir",
            str(self.data_dir),
            "--thrift1-addr",
            f"{self.host}:{self.port1}",
            "--thrift2-addr",
            f"{self.host}:{self.port2}",
            "--advertised-host",
            "localhost",
        ]
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        pending = [self.port1, self.port2]
        while pending:
            if self.proc.poll() is not None:
                self._log.close()
                if "cannot bind" in self.log_tail():
                    return False
                raise RuntimeError(f"redbase exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                socket.create_connection((self.host, pending[0]), timeout=0.5).close()
                pending.pop(0)
            except OSError:
                if time.monotonic() > deadline:
                    self.proc.kill()
                    self.proc.wait()
                    self._log.close()
                    raise RuntimeError(f"redbase did not listen:\n{self.log_tail()}")
                time.sleep(0.02)
        return True

    def stop(self, timeout=30.0):
        """SIGTERM and wait; the exit code, or None if it had to be killed."""
        if self.proc is None:
            return 0
        code = self.proc.poll()
        if code is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                code = None
        if self._log and not self._log.closed:
            self._log.close()
        return code

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, n=40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no log)"

    def happybase(self):
        return happybase.Connection(self.host, self.port1, timeout=CLIENT_TIMEOUT_MS)

    def thrift2(self):
        return make_client(
            hbase2.THBaseService,
            self.host,
            self.port2,
            proto_factory=TBinaryProtocolFactory(),
            trans_factory=TBufferedTransportFactory(),
            timeout=CLIENT_TIMEOUT_MS,
        )


# The table every test reads: rows a1 a2 b1 b2 c1 in families f and g (3 versions each).
ROWS = [
    (b"a1", {b"f:a": b"1", b"f:b": b"2", b"g:c": b"3"}, 1),
    (b"a2", {b"f:a": b"old", b"f:b": b"z"}, 1),
    (b"a2", {b"f:a": b"new"}, 2),
    (b"b1", {b"f:a": b"1"}, 1),
    (b"b1", {b"g:d": b"hello"}, 5),
    (b"b2", {b"g:c": b"World"}, 3),
    (b"c1", {b"f:x": b"abc", b"f:y": b"abd", b"f:z": b"xyz"}, 1),
]


def fill(conn, name):
    conn.create_table(name, {"f": dict(max_versions=3), "g": dict(max_versions=3)})
    table = conn.table(name)
    for row, data, ts in ROWS:
        table.put(row, data, timestamp=ts)
    return table
