"""Shared helpers for the Thrift1 suite: the server process and client factories."""

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory, TFramedTransportFactory

import happybase

REPO = Path(__file__).resolve().parents[2]
IDL = REPO / "idl" / "hbase1.thrift"

# The Thrift1 IDL of this repository, as a thriftpy2 module (structs, exceptions, service).
hbase1 = thriftpy2.load(str(IDL), module_name="redbase_hbase1_thrift")

# Socket timeout for every client, in milliseconds: a hung server fails a test, never the run.
CLIENT_TIMEOUT_MS = 10_000

# The four happybase transport x protocol combinations.
COMBOS = [
    ("buffered", "binary"),
    ("buffered", "compact"),
    ("framed", "binary"),
    ("framed", "compact"),
]
COMBO_IDS = [f"{t}-{p}" for t, p in COMBOS]


def server_binary() -> Path:
    path = Path(os.environ.get("REDBASE_BIN", REPO / "target" / "debug" / "redbase"))
    if not path.is_absolute():
        path = REPO / path
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One running `redbase serve` process."""

    def __init__(self, data_dir: Path, args=(), port=None):
        self.data_dir = Path(data_dir)
        self.args = list(args)
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.proc = None
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}.log"

    def start(self, timeout=30.0):
        binary = server_binary()
        if not binary.exists():
            raise RuntimeError(
                f"redbase binary not found at {binary}: build it (cargo build -p redbase) "
                "or set REDBASE_BIN"
            )
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        # The port was free a moment ago; if someone took it since, try another.
        for attempt in range(5):
            if self._launch(binary, timeout):
                return self
            self.port = free_port()
        raise RuntimeError(f"redbase could not bind a port:\n{self.log_tail()}")

    def _launch(self, binary, timeout) -> bool:
        """Starts the process; True once the port accepts, False if the bind failed."""
        cmd = [
            str(binary),
            "serve",
            "--data-dir",
            str(self.data_dir),
            "--thrift1-addr",
            f"{self.host}:{self.port}",
            # This suite exercises Thrift1 only; the Thrift2 gateway stays off so parallel
            # servers never compete for its default port.
            "--gateways",
            "thrift1",
            "--advertised-host",
            "localhost",
            *self.args,
        ]
        self._log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.setdefault("RUST_LOG", "info")
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                self._log.close()
                if "cannot bind" in self.log_tail():
                    return False
                raise RuntimeError(
                    f"redbase exited with {self.proc.returncode} while starting:\n{self.log_tail()}"
                )
            try:
                socket.create_connection((self.host, self.port), timeout=0.5).close()
                return True
            except OSError:
                if time.monotonic() > deadline:
                    self.proc.kill()
                    self.proc.wait()
                    self._log.close()
                    raise RuntimeError(f"redbase did not listen on {self.port}:\n{self.log_tail()}")
                time.sleep(0.02)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, timeout=30.0, sig=signal.SIGTERM):
        """Signals (SIGTERM) and waits. Returns the exit code, or None if the process did not
        exit within `timeout` (it is then killed)."""
        if self.proc is None:
            return 0
        code = self.proc.poll()
        if code is None:
            self.proc.send_signal(sig)
            try:
                code = self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                code = None
        self._log.close()
        return code

    def stop_and_check(self):
        code = self.stop()
        assert code is not None, f"redbase did not exit after SIGTERM:\n{self.log_tail()}"
        assert code == 0, f"redbase exited with {code} after SIGTERM:\n{self.log_tail()}"

    def log_tail(self, n=40) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join(lines[-n:])

    # Clients -----------------------------------------------------------------------------

    def happybase(self, transport="buffered", protocol="binary", **kwargs):
        return happybase.Connection(
            self.host,
            self.port,
            timeout=CLIENT_TIMEOUT_MS,
            transport=transport,
            protocol=protocol,
            **kwargs,
        )

    def client(self, transport="buffered", protocol="binary", strict=True):
        """A thriftpy2 client generated from idl/hbase1.thrift."""
        if protocol == "binary":
            if strict:
                proto = TBinaryProtocolFactory()
            else:
                # The pure-Python protocol honours strict_write=False (old-style headers).
                from thriftpy2.protocol.binary import TBinaryProtocolFactory as PyBinary

                proto = PyBinary(strict_read=False, strict_write=False)
        else:
            proto = TCompactProtocolFactory()
        trans = TFramedTransportFactory() if transport == "framed" else TBufferedTransportFactory()
        return make_client(
            hbase1.Hbase,
            self.host,
            self.port,
            proto_factory=proto,
            trans_factory=trans,
            timeout=CLIENT_TIMEOUT_MS,
        )


# happybase's own generated module (loaded by `import happybase`): the exceptions it raises.
import Hbase_thrift as hb_thrift  # noqa: E402

HB_IOError = hb_thrift.IOError
HB_IllegalArgument = hb_thrift.IllegalArgument
HB_AlreadyExists = hb_thrift.AlreadyExists

# HBase's "forever" TTL as getColumnDescriptors reports it (Integer.MAX_VALUE).
TTL_FOREVER = 2**31 - 1


def i64(n: int) -> bytes:
    """A counter value as HBase stores it: 8-byte big-endian signed (Bytes.toBytes(long))."""
    return n.to_bytes(8, "big", signed=True)


def wait_until(predicate, timeout=10.0, interval=0.05):
    """Polls `predicate` until it returns a truthy value (returned) or `timeout` passes (None)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(interval)


def now_ms() -> int:
    return int(time.time() * 1000)


# Hand-made Thrift messages ------------------------------------------------------------------

import struct  # noqa: E402

from thriftpy2.protocol.binary import TBinaryProtocol as PyBinaryProtocol  # noqa: E402
from thriftpy2.protocol.compact import TCompactProtocol as PyCompactProtocol  # noqa: E402
from thriftpy2.thrift import TClient  # noqa: E402
from thriftpy2.transport.memory import TMemoryBuffer as PyMemoryBuffer  # noqa: E402


def _protocol(buf, protocol, strict):
    if protocol == "compact":
        return PyCompactProtocol(buf)
    return PyBinaryProtocol(buf, strict_read=False, strict_write=strict)


def encode_call(api, protocol="binary", strict=True, service=None, **kwargs) -> bytes:
    """The bytes of one call message (no transport framing)."""
    buf = PyMemoryBuffer()
    TClient(service or hbase1.Hbase, _protocol(buf, protocol, strict))._send(api, **kwargs)
    return buf.getvalue()


def decode_reply(api, data, protocol="binary", service=None):
    """Decodes a reply message: returns the result or raises the declared exception."""
    buf = PyMemoryBuffer(data)
    return TClient(service or hbase1.Hbase, _protocol(buf, protocol, False))._recv(api)


def frame(body: bytes) -> bytes:
    return struct.pack(">i", len(body)) + body


def raw_connect(server, timeout=5.0) -> socket.socket:
    return socket.create_connection((server.host, server.port), timeout=timeout)


def read_until_closed(sock, timeout=5.0) -> tuple:
    """Reads until the peer closes. Returns (closed, data); closed is False on timeout."""
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            return False, data
        except (ConnectionResetError, BrokenPipeError):
            return True, data
        if not chunk:
            return True, data
        data += chunk
    return False, data


def read_exactly(sock, n, timeout=5.0) -> bytes:
    sock.settimeout(timeout)
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {n} bytes")
        data += chunk
    return data
