"""HBase REST's protobuf messages decoded field by field for tests/oracle/rest_diff.py, so two
answers compare as messages (field names and values) rather than as bytes: a difference says
which field differs, and fields whose order on the wire is free do not count.

SCHEMAS describes each message as HBase's REST .proto files number its fields: name ->
{number: (field name, kind, repeated)}, where kind is "bytes", "string", "int", "bool",
"double", "float" or another message's name. Unknown fields decode as "#<number>" with their
raw value, so a field one side adds shows up as a difference.
"""

import struct

SCHEMAS = {
    "Cell": {1: ("row", "bytes", False), 2: ("column", "bytes", False),
             3: ("timestamp", "int", False), 4: ("data", "bytes", False)},
    "Row": {1: ("key", "bytes", False), 2: ("values", "Cell", True)},
    "CellSet": {1: ("rows", "Row", True)},
    "Attribute": {1: ("name", "string", False), 2: ("value", "string", False)},
    "ColumnSchema": {1: ("name", "string", False), 2: ("attrs", "Attribute", True),
                     3: ("ttl", "int", False), 4: ("maxVersions", "int", False),
                     5: ("compression", "string", False)},
    "TableSchema": {1: ("name", "string", False), 2: ("attrs", "Attribute", True),
                    3: ("columns", "ColumnSchema", True), 4: ("inMemory", "bool", False),
                    5: ("readOnly", "bool", False)},
    "Namespaces": {1: ("namespace", "string", True)},
    "Property": {1: ("key", "string", False), 2: ("value", "string", False)},
    "NamespaceProperties": {1: ("props", "Property", True)},
    "TableList": {1: ("name", "string", True)},
    "Region": {1: ("name", "string", False), 2: ("startKey", "bytes", False),
               3: ("endKey", "bytes", False), 4: ("id", "int", False),
               5: ("location", "string", False)},
    "TableInfo": {1: ("name", "string", False), 2: ("regions", "Region", True)},
    "StatusRegion": {1: ("name", "bytes", False), 2: ("stores", "int", False),
                     3: ("storefiles", "int", False), 4: ("storefileSizeMB", "int", False),
                     5: ("memStoreSizeMB", "int", False), 6: ("storefileIndexSizeKB", "int", False),
                     7: ("readRequestsCount", "int", False), 8: ("writeRequestsCount", "int", False),
                     9: ("rootIndexSizeKB", "int", False), 10: ("totalStaticIndexSizeKB", "int", False),
                     11: ("totalStaticBloomSizeKB", "int", False), 12: ("totalCompactingKVs", "int", False),
                     13: ("currentCompactedKVs", "int", False)},
    "Node": {1: ("name", "string", False), 2: ("startCode", "int", False),
             3: ("requests", "int", False), 4: ("heapSizeMB", "int", False),
             5: ("maxHeapSizeMB", "int", False), 6: ("regions", "StatusRegion", True)},
    "StorageClusterStatus": {1: ("liveNodes", "Node", True), 2: ("deadNodes", "string", True),
                             3: ("regions", "int", False), 4: ("requests", "int", False),
                             5: ("averageLoad", "double", False)},
    "Version": {1: ("restVersion", "string", False), 2: ("jvmVersion", "string", False),
                3: ("osVersion", "string", False), 4: ("serverVersion", "string", False),
                5: ("jerseyVersion", "string", False), 6: ("version", "string", False),
                7: ("revision", "string", False)},
    "Scanner": {1: ("startRow", "bytes", False), 2: ("endRow", "bytes", False),
                3: ("columns", "bytes", True), 4: ("batch", "int", False),
                5: ("startTime", "int", False), 6: ("endTime", "int", False),
                7: ("maxVersions", "int", False), 8: ("filter", "string", False),
                9: ("caching", "int", False), 10: ("labels", "string", True),
                11: ("cacheBlocks", "bool", False), 12: ("limit", "int", False)},
}


class DecodeError(ValueError):
    pass


def _varint(b, i):
    n = shift = 0
    while True:
        if i >= len(b):
            raise DecodeError("truncated varint")
        c = b[i]
        i += 1
        n |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return n, i
        if shift > 70:
            raise DecodeError("varint too long")


def _signed(n):
    return n - (1 << 64) if n >= 1 << 63 else n


def decode(message, b):
    """`b` as `message` (a SCHEMAS name): a dict of field name -> value (lists for repeated
    fields; bytes as hex text so the result is JSON)."""
    schema = SCHEMAS[message]
    out = {}
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            raw, i = _varint(b, i)
        elif wire == 1:
            raw, i = b[i:i + 8], i + 8
        elif wire == 2:
            n, i = _varint(b, i)
            raw, i = b[i:i + n], i + n
            if i > len(b):
                raise DecodeError("truncated field")
        elif wire == 5:
            raw, i = b[i:i + 4], i + 4
        else:
            raise DecodeError(f"wire type {wire}")
        name, kind, repeated = schema.get(number, (f"#{number}", "raw", True))
        if kind == "int":
            value = _signed(raw)
        elif kind == "bool":
            value = bool(raw)
        elif kind == "double":
            value = struct.unpack("<d", raw)[0]
        elif kind == "float":
            value = struct.unpack("<f", raw)[0]
        elif kind == "string":
            value = raw.decode("utf-8", "replace")
        elif kind == "bytes":
            value = raw.decode("utf-8", "backslashreplace")
        elif kind == "raw":
            value = raw.hex() if isinstance(raw, bytes) else raw
        else:
            value = decode(kind, raw)
        if repeated:
            out.setdefault(name, []).append(value)
        else:
            out[name] = value
    return out


def decode_stream(message, b):
    """A stateless scan's protobuf answer: messages each after its length as 2 big-endian
    bytes."""
    out = []
    i = 0
    while i < len(b):
        if i + 2 > len(b):
            raise DecodeError("truncated chunk length")
        n = int.from_bytes(b[i:i + 2], "big")
        out.append(decode(message, b[i + 2:i + 2 + n]))
        i += 2 + n
    return out


def encode(message, value):
    """The inverse for request bodies: a dict as `message`."""
    schema = SCHEMAS[message]
    by_name = {name: (number, kind) for number, (name, kind, _) in schema.items()}

    def varint(n):
        n &= (1 << 64) - 1
        out = b""
        while True:
            byte = n & 0x7F
            n >>= 7
            if n:
                out += bytes([byte | 0x80])
            else:
                return out + bytes([byte])

    out = b""
    for name, v in value.items():
        number, kind = by_name[name]
        for item in v if isinstance(v, list) else [v]:
            if kind in ("int", "bool"):
                out += varint(number << 3) + varint(int(item))
            elif kind == "double":
                out += varint(number << 3 | 1) + struct.pack("<d", item)
            elif kind in ("string", "bytes"):
                raw = item.encode() if isinstance(item, str) else item
                out += varint(number << 3 | 2) + varint(len(raw)) + raw
            else:
                raw = encode(kind, item)
                out += varint(number << 3 | 2) + varint(len(raw)) + raw
    return out
