"""Raw Thrift calls that show exactly which fields a server put on the wire.

A thriftpy2 client fills in IDL defaults for absent optional fields (TResult.stale = false, ...),
so it cannot tell "absent" from "sent". `Wire.call` serialises the request with thriftpy2 (binary
protocol, buffered transport: the gateways' defaults) but decodes the reply generically, and
`render` prints only the fields that were on the wire, named from the IDL.
"""

import socket
import struct

from thriftpy2.protocol.binary import TBinaryProtocol
from thriftpy2.thrift import TMessageType, TType
from thriftpy2.transport import TMemoryBuffer

T_BINARY = 18  # thriftpy2's spec code for `binary` (STRING on the wire)


class Reader:
    def __init__(self, f):
        self.f = f

    def _n(self, n):
        b = self.f.read(n)
        if len(b) != n:
            raise EOFError("connection closed mid-reply")
        return b

    def i8(self):
        return struct.unpack("!b", self._n(1))[0]

    def i16(self):
        return struct.unpack("!h", self._n(2))[0]

    def i32(self):
        return struct.unpack("!i", self._n(4))[0]

    def i64(self):
        return struct.unpack("!q", self._n(8))[0]

    def value(self, t):
        if t == TType.BOOL:
            return self.i8() != 0
        if t == TType.BYTE:
            return self.i8()
        if t == TType.DOUBLE:
            return struct.unpack("!d", self._n(8))[0]
        if t == TType.I16:
            return self.i16()
        if t == TType.I32:
            return self.i32()
        if t == TType.I64:
            return self.i64()
        if t == TType.STRING:
            return self._n(self.i32())
        if t == TType.STRUCT:
            return self.struct()
        if t == TType.MAP:
            kt, vt, n = self.i8(), self.i8(), self.i32()
            return ("map", kt, vt, [(self.value(kt), self.value(vt)) for _ in range(n)])
        if t in (TType.LIST, TType.SET):
            et, n = self.i8(), self.i32()
            return ("list", et, [self.value(et) for _ in range(n)])
        raise ValueError(f"unknown thrift type {t}")

    def struct(self):
        fields = []
        while True:
            t = self.i8()
            if t == TType.STOP:
                return ("struct", fields)
            fid = self.i16()
            fields.append((fid, t, self.value(t)))

    def message(self):
        v = self.i32()
        if v >= 0:
            raise ValueError("old-style (unversioned) message; expected strict binary protocol")
        mtype = v & 0xFF
        name = self._n(self.i32()).decode()
        seqid = self.i32()
        return mtype, name, seqid, self.struct()


def _split(spec_arg):
    """A spec argument is either a bare type code or (type code, struct class / nested spec)."""
    if isinstance(spec_arg, tuple):
        return spec_arg[0], spec_arg[1]
    return spec_arg, None


LONG = 200  # strings longer than this are shown as their first line and their size


def _render_value(v, spec_t, spec_arg):
    if isinstance(v, tuple) and v and v[0] == "struct":
        return render_struct(v, spec_arg)
    if isinstance(v, tuple) and v and v[0] == "list":
        et, ea = _split(spec_arg)
        return "[" + ", ".join(_render_value(x, et, ea) for x in v[2]) + "]"
    if isinstance(v, tuple) and v and v[0] == "map":
        (kt, ka), (vt, va) = _split(spec_arg[0]) if spec_arg else (None, None), \
            _split(spec_arg[1]) if spec_arg else (None, None)
        return "{" + ", ".join(
            f"{_render_value(k, kt, ka)}: {_render_value(x, vt, va)}" for k, x in v[3]) + "}"
    if isinstance(v, bytes):
        shown = v.decode("utf-8", "replace") if spec_t == TType.STRING else v
        if len(v) > LONG:
            lines = v.count(b"\n") + 1
            first = shown.split("\n" if isinstance(shown, str) else b"\n")[0][:300]
            return f"{first!r}...[{len(v)} bytes, {lines} lines]"
        return repr(shown)
    return repr(v)


def render_struct(s, cls):
    spec = getattr(cls, "thrift_spec", {}) if cls is not None else {}
    parts = []
    for fid, t, v in s[1]:
        entry = spec.get(fid)
        if entry is None:
            parts.append(f"#{fid}={_render_value(v, None, None)}")
            continue
        name = entry[1]
        arg = entry[2] if len(entry) == 4 else None
        parts.append(f"{name}={_render_value(v, entry[0], arg)}")
    return (cls.__name__ if cls is not None else "struct") + "{" + ", ".join(parts) + "}"


class Wire:
    """One buffered binary-protocol connection to a Thrift server."""

    def __init__(self, host, port, timeout=60):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.reader = Reader(self.sock.makefile("rb"))
        self.seq = 0

    def close(self):
        self.sock.close()

    def call(self, service, method, **kwargs):
        """Returns ("ok", rendered success | None) or ("raises", rendered exception)."""
        self.seq += 1
        buf = TMemoryBuffer()
        proto = TBinaryProtocol(buf)
        proto.write_message_begin(method, TMessageType.CALL, self.seq)
        proto.write_struct(getattr(service, method + "_args")(**kwargs))
        proto.write_message_end()
        self.sock.sendall(buf.getvalue())
        mtype, name, seqid, body = self.reader.message()
        if mtype == TMessageType.EXCEPTION:
            fields = {fid: v for fid, _, v in body[1]}
            return ("raises", f"TApplicationException(type={fields.get(2)}, message={fields.get(1)!r})")
        result_cls = getattr(service, method + "_result")
        spec = result_cls.thrift_spec
        if not body[1]:
            return ("ok", None)
        fid, t, v = body[1][0]
        entry = spec[fid]
        arg = entry[2] if len(entry) == 4 else None
        rendered = _render_value(v, entry[0], arg)
        return ("ok", rendered) if fid == 0 else ("raises", rendered)
