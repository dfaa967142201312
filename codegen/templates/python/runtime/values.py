"""Cell value encodings, identical to Java HBase's `Bytes` (docs/schema.md, "Value encodings"),
and the typed column descriptors generated table modules are built from."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, Generic, List, Optional, Sequence, Tuple, TypeVar, Union

if TYPE_CHECKING:
    from .filters import Filter

Json = Union[None, bool, int, float, str, List["Json"], Dict[str, "Json"]]

T = TypeVar("T")
P = TypeVar("P")


class ValueEncodingError(ValueError):
    """A value that does not fit its column type, or cell bytes that are not of that type."""


def _width(b: bytes, n: int, what: str) -> bytes:
    if len(b) != n:
        raise ValueEncodingError(f"a {what} value is {n} bytes, got {len(b)}")
    return b


def _int_range(v: int, bits: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not -(1 << (bits - 1)) <= v < 1 << (bits - 1):
        raise ValueEncodingError(f"{v!r} is not an i{bits}")
    return v


def _is(v: object, kind: type, what: str) -> None:
    if not isinstance(v, kind) or (kind is not bool and isinstance(v, bool)):
        raise ValueEncodingError(f"{v!r} is not a {what}")


def enc_string(v: str) -> bytes:
    _is(v, str, "string")
    return v.encode()


def dec_string(b: bytes) -> str:
    try:
        return b.decode()
    except UnicodeDecodeError:
        raise ValueEncodingError("not UTF-8") from None


def enc_bytes(v: bytes) -> bytes:
    if not isinstance(v, (bytes, bytearray, memoryview)):
        raise ValueEncodingError(f"{v!r} is not bytes")
    return bytes(v)


def dec_bytes(b: bytes) -> bytes:
    return b


def enc_i32(v: int) -> bytes:
    return struct.pack(">i", _int_range(v, 32))


def dec_i32(b: bytes) -> int:
    return int(struct.unpack(">i", _width(b, 4, "i32"))[0])


def enc_i64(v: int) -> bytes:
    return struct.pack(">q", _int_range(v, 64))


def dec_i64(b: bytes) -> int:
    return int(struct.unpack(">q", _width(b, 8, "i64"))[0])


def enc_f32(v: float) -> bytes:
    try:
        return struct.pack(">f", v)
    except (OverflowError, struct.error):
        raise ValueEncodingError(f"{v!r} does not fit f32") from None


def dec_f32(b: bytes) -> float:
    return float(struct.unpack(">f", _width(b, 4, "f32"))[0])


def enc_f64(v: float) -> bytes:
    try:
        return struct.pack(">d", v)
    except (OverflowError, struct.error):
        raise ValueEncodingError(f"{v!r} is not a float") from None


def dec_f64(b: bytes) -> float:
    return float(struct.unpack(">d", _width(b, 8, "f64"))[0])


def enc_bool(v: bool) -> bytes:
    _is(v, bool, "bool")
    return b"\xff" if v else b"\x00"


def dec_bool(b: bytes) -> bool:
    return _width(b, 1, "bool")[0] != 0


def enc_json(v: Json) -> bytes:
    try:
        text = json.dumps(v, separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False)
    except ValueError as e:
        raise ValueEncodingError(f"not JSON: {e}") from None
    return text.encode()


def dec_json(b: bytes) -> Json:
    try:
        value: Json = json.loads(b.decode())
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueEncodingError(f"not JSON: {e}") from None
    return value


# timestamp-ms and counter are longs.
enc_timestamp_ms = enc_counter = enc_i64
dec_timestamp_ms = dec_counter = dec_i64

CODECS: Dict[str, Tuple[Callable[..., bytes], Callable[[bytes], object]]] = {
    "string": (enc_string, dec_string),
    "bytes": (enc_bytes, dec_bytes),
    "i32": (enc_i32, dec_i32),
    "i64": (enc_i64, dec_i64),
    "f32": (enc_f32, dec_f32),
    "f64": (enc_f64, dec_f64),
    "bool": (enc_bool, dec_bool),
    "json": (enc_json, dec_json),
    "timestamp-ms": (enc_timestamp_ms, dec_timestamp_ms),
    "counter": (enc_counter, dec_counter),
}


@dataclass(frozen=True)
class Column(Generic[T]):
    """One fixed-qualifier column and its value codec."""

    field: str
    family: bytes
    qualifier: bytes
    type: str
    encode: Callable[[T], bytes]
    decode: Callable[[bytes], T]

    def _cmp(self, op: str, value: T) -> Filter:
        from .filters import Filter

        return Filter.value(self, op, value)

    def eq(self, value: T) -> Filter:
        """A filter: rows whose cell equals `value` (bytes of the column's codec)."""
        return self._cmp("eq", value)

    def ne(self, value: T) -> Filter:
        return self._cmp("ne", value)

    def lt(self, value: T) -> Filter:
        """A filter: rows whose cell sorts below `value`'s bytes (unsigned byte order)."""
        return self._cmp("lt", value)

    def le(self, value: T) -> Filter:
        return self._cmp("le", value)

    def gt(self, value: T) -> Filter:
        return self._cmp("gt", value)

    def ge(self, value: T) -> Filter:
        return self._cmp("ge", value)


def part_text_str(part: str) -> str:
    return part


def part_parse_str(text: str) -> Optional[str]:
    return text


def part_text_int(width: Optional[int], bits: int) -> Callable[[int], str]:
    """Decimal, zero-padded to `width` (which needs a non-negative part)."""

    def text(part: int) -> str:
        _int_range(part, bits)
        if width is None:
            return str(part)
        t = str(part).zfill(width)
        if part < 0 or len(t) > width:
            raise ValueEncodingError(f"{part} does not fit {width} zero-padded digits")
        return t

    return text


def part_parse_int(width: Optional[int], bits: int) -> Callable[[str], Optional[int]]:
    def parse(text: str) -> Optional[int]:
        digits = text[1:] if text.startswith("-") and width is None else text
        if not digits or not digits.isascii() or not digits.isdigit():
            return None
        if width is not None and len(text) != width:
            return None
        n = int(text)
        return n if -(1 << (bits - 1)) <= n < 1 << (bits - 1) else None

    return parse


@dataclass(frozen=True)
class PatternColumn(Generic[P, T]):
    """Cells whose qualifier is `prefix{part}suffix`, read as a map from part to value."""

    field: str
    family: bytes
    prefix: bytes
    suffix: bytes
    type: str
    part_type: str
    part_text: Callable[[P], str]
    part_parse: Callable[[str], Optional[P]]
    encode: Callable[[T], bytes]
    decode: Callable[[bytes], T]

    def qualifier(self, part: P) -> bytes:
        return self.prefix + self.part_text(part).encode() + self.suffix

    def of(self, part: P) -> Column[T]:
        """The one column of this pattern for `part` (e.g. to increment it in a batch)."""
        return Column(f"{self.field}[{part!r}]", self.family, self.qualifier(part), self.type, self.encode, self.decode)

    def parse(self, qualifier: bytes) -> Optional[P]:
        """The part of a qualifier of this pattern, or None if it is not one."""
        if not qualifier.startswith(self.prefix) or not qualifier.endswith(self.suffix):
            return None
        if len(qualifier) < len(self.prefix) + len(self.suffix):
            return None
        inner = qualifier[len(self.prefix) : len(qualifier) - len(self.suffix)]
        try:
            return self.part_parse(inner.decode())
        except UnicodeDecodeError:
            return None


def column_specs(columns: Optional[Sequence[object]]) -> Optional[List[Union[Tuple[bytes, bytes], bytes]]]:
    """What a read's `columns=` selects: (family, qualifier) for a typed column, the family for
    a pattern column or a family name (str or bytes)."""
    if columns is None:
        return None
    out: List[Union[Tuple[bytes, bytes], bytes]] = []
    for c in columns:
        if isinstance(c, Column):
            out.append((c.family, c.qualifier))
        elif isinstance(c, PatternColumn):
            out.append(c.family)
        elif isinstance(c, str):
            out.append(c.encode())
        elif isinstance(c, bytes):
            out.append(c)
        else:
            raise TypeError(f"columns takes typed columns or family names, not {c!r}")
    if not out:
        raise ValueError("columns is empty: give None to read every column")
    return out
