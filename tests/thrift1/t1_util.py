"""Shared helpers for the Thrift1 suite: the server process and client factories."""

import socket
import time
from pathlib import Path

import thriftpy2
from thriftpy2.protocol import TBinaryProtocolFactory, TCompactProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory, TFramedTransportFactory

import happybase

import sys

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redbase_proc import (  # noqa: E402
    RedbaseProcess,
    free_port,
    server_binary,
    server_fixtures,
    wait_until,
)

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


class Server(RedbaseProcess):
    """One running `redbase serve` with the Thrift1 gateway only."""

    def __init__(self, data_dir: Path, args=(), port=None):
        super().__init__(
            data_dir, args, gateways=("thrift1",), ports={"thrift1": port} if port else None
        )

    @property
    def port(self) -> int:
        return self.ports["thrift1"]

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
