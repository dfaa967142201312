"""Row-key encodings, byte for byte as docs/schema.md ("Row-key encodings") defines them and as
every redbase SDK produces them. Generated table modules describe their key with a `KeySpec`."""

from __future__ import annotations

import hashlib
import math
import struct
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

KeyValue = Union[str, bytes, int, float]

_I64_MAX = (1 << 63) - 1
_CHARSETS = {
    "alnum": frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    "word": frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"),
    "hex": frozenset("0123456789abcdef"),
    "digits": frozenset("0123456789"),
}


class KeyEncodingError(ValueError):
    """A value the key's rules refuse, or bytes that are not a key of this table."""


@dataclass(frozen=True)
class Component:
    name: str
    type: str
    width: Optional[int] = None
    charset: str = "any"
    escape: bool = False
    desc: bool = False
    reverse: Optional[str] = None
    reverse_timestamp: bool = False
    allow_empty: bool = False
    kept: bool = True


@dataclass(frozen=True)
class HashSpec:
    components: Tuple[int, ...]
    form: str
    n: int
    keep: bool


@dataclass(frozen=True)
class SaltSpec:
    buckets: int
    form: str
    alphabet: str = ""


@dataclass(frozen=True)
class StartsWith:
    """A string component given as every value starting with `prefix` (a typed starts-with):
    `scan(path=StartsWith("/home/alice/"))` is the subtree under that directory, whatever the
    key's escaping. As a bound it must be the last component given."""

    prefix: str


@dataclass(frozen=True)
class Decoded:
    """What a key's bytes hold: salt bucket, hash prefix, kept components by name."""

    salt: Optional[int]
    hash: Union[str, bytes, None]
    components: Dict[str, KeyValue]


def _reversed(how: str, s: str) -> str:
    return s[::-1] if how == "chars" else ".".join(reversed(s.split(".")))


def _check_type(c: Component, v: KeyValue) -> None:
    number = isinstance(v, (int, float)) and not isinstance(v, bool)
    ok = {
        "string": isinstance(v, str),
        "bytes": isinstance(v, bytes),
        "f32": number,
        "f64": number,
    }.get(c.type, isinstance(v, int) and not isinstance(v, bool))
    if not ok:
        raise KeyEncodingError(f"component {c.name}: {v!r} is not a {c.type}")
    if isinstance(v, int) and not isinstance(v, bool) and c.type not in ("f32", "f64"):
        lo, hi = (-(1 << 31), (1 << 31) - 1) if c.type == "i32" else (-(1 << 63), _I64_MAX)
        if not lo <= v <= hi:
            raise KeyEncodingError(f"component {c.name}: {v} is out of {c.type} range")
        if c.reverse_timestamp and v < 0:
            raise KeyEncodingError(f"component {c.name}: a reverse timestamp must be >= 0")
    if isinstance(v, str) and c.charset != "any":
        bad = [ch for ch in v if ch not in _CHARSETS[c.charset]]
        if bad:
            raise KeyEncodingError(f"component {c.name}: {bad[0]!r} is outside charset {c.charset}")


def _escaped(b: bytes) -> bytes:
    return b.replace(b"\x00", b"\x00\xff") + b"\x00\x00"


def _float_bits(c: Component, v: float) -> bytes:
    try:
        return _sortable_float(c, float(v))
    except (OverflowError, struct.error):
        raise KeyEncodingError(f"component {c.name}: {v!r} does not fit {c.type}") from None


def _sortable_float(c: Component, v: float) -> bytes:
    if c.type == "f32":
        bits = 0x7FC00000 if math.isnan(v) else struct.unpack(">I", struct.pack(">f", v))[0]
        bits = (~bits & 0xFFFFFFFF) if bits >> 31 else bits ^ (1 << 31)
        return struct.pack(">I", bits)
    bits = 0x7FF8000000000000 if math.isnan(v) else struct.unpack(">Q", struct.pack(">d", v))[0]
    bits = (~bits & 0xFFFFFFFFFFFFFFFF) if bits >> 63 else bits ^ (1 << 63)
    return struct.pack(">Q", bits)


def _binary(c: Component, v: KeyValue) -> bytes:
    if isinstance(v, str):
        out = _escaped((_reversed(c.reverse, v) if c.reverse else v).encode())
    elif isinstance(v, bytes):
        out = _escaped(v)
    elif isinstance(v, float) or c.type in ("f32", "f64"):
        out = _float_bits(c, v)
    else:
        i = _I64_MAX - v if c.reverse_timestamp else v
        if c.type == "i32":
            out = struct.pack(">I", (i & 0xFFFFFFFF) ^ 0x80000000)
        else:
            out = struct.pack(">Q", (i & 0xFFFFFFFFFFFFFFFF) ^ (1 << 63))
    return bytes(255 - x for x in out) if c.desc else out


def _text(c: Component, v: KeyValue, sep: Optional[str]) -> bytes:
    if isinstance(v, str):
        s = _reversed(c.reverse, v) if c.reverse else v
        if sep is not None:
            if c.escape:
                s = "".join("\\" + ch if ch in (sep, "\\") else ch for ch in s)
            return s.encode()
        b = s.encode()
        w = c.width or 0
        if b"\x00" in b or len(b) > w:
            raise KeyEncodingError(f"component {c.name}: needs at most {w} UTF-8 bytes and no 0x00")
        return b.ljust(w, b"\x00")
    if isinstance(v, bytes):
        if sep is not None:
            return v.hex().encode()
        if len(v) != c.width:
            raise KeyEncodingError(f"component {c.name}: needs exactly {c.width} bytes, got {len(v)}")
        return v
    if isinstance(v, float) or c.type in ("f32", "f64"):
        raise KeyEncodingError(f"component {c.name}: floats need the binary layout")
    i = _I64_MAX - v if c.reverse_timestamp else v
    if c.width is None:
        return str(i).encode()
    limit = 10**c.width
    if not 0 <= i < limit:
        raise KeyEncodingError(f"component {c.name}: {i} does not fit {c.width} zero-padded digits")
    t = str(limit - 1 - i if c.desc else i).zfill(c.width)
    return (_reversed(c.reverse, t) if c.reverse else t).encode()


def _unreverse_ts(c: Component, stored: int) -> int:
    if stored < 0:
        raise KeyEncodingError(f"component {c.name}: not a reverse timestamp")
    return _I64_MAX - stored


def _decode_text(c: Component, b: bytes, sep: Optional[str]) -> KeyValue:
    try:
        if c.type == "string":
            s = (b if sep is not None else b.rstrip(b"\x00")).decode()
            if c.escape:
                out, i = [], 0
                while i < len(s):
                    if s[i] == "\\":
                        i += 1
                        if i == len(s):
                            raise KeyEncodingError(f"component {c.name}: dangling escape")
                    out.append(s[i])
                    i += 1
                s = "".join(out)
            return _reversed(c.reverse, s) if c.reverse else s
        if c.type == "bytes":
            return bytes.fromhex(b.decode()) if sep is not None else b
        s = b.decode()
    except (UnicodeDecodeError, ValueError) as e:
        if isinstance(e, KeyEncodingError):
            raise
        raise KeyEncodingError(f"component {c.name}: {e}") from None
    s = _reversed(c.reverse, s) if c.reverse else s
    digits = s[1:] if s.startswith("-") else s
    if not digits or not digits.isascii() or not digits.isdigit():
        raise KeyEncodingError(f"component {c.name}: not a number")
    if c.width is not None and (len(s) != c.width or s.startswith("-")):
        raise KeyEncodingError(f"component {c.name}: not {c.width} digits")
    n = int(s)
    if c.desc and c.width is not None:
        n = 10**c.width - 1 - n
    if c.reverse_timestamp:
        n = _unreverse_ts(c, n)
    lo, hi = (-(1 << 31), (1 << 31) - 1) if c.type == "i32" else (-(1 << 63), _I64_MAX)
    if not lo <= n <= hi:
        raise KeyEncodingError(f"component {c.name}: out of {c.type} range")
    return n


def _decode_binary(c: Component, b: bytes, pos: int) -> Tuple[KeyValue, int]:
    def take(n: int) -> bytes:
        chunk = b[pos : pos + n]
        if len(chunk) != n:
            raise KeyEncodingError(f"key too short for component {c.name}")
        return bytes(255 - x for x in chunk) if c.desc else chunk

    if c.type in ("string", "bytes"):
        out = bytearray()
        i = pos
        while True:
            if i >= len(b):
                raise KeyEncodingError(f"key too short for component {c.name}")
            x = 255 - b[i] if c.desc else b[i]
            if x == 0:
                if i + 1 >= len(b):
                    raise KeyEncodingError(f"key too short for component {c.name}")
                y = 255 - b[i + 1] if c.desc else b[i + 1]
                if y == 0:
                    break
                if y != 0xFF:
                    raise KeyEncodingError(f"bad escape in component {c.name}")
                out.append(0)
                i += 2
            else:
                out.append(x)
                i += 1
        if c.type == "bytes":
            return bytes(out), i + 2
        try:
            s = bytes(out).decode()
        except UnicodeDecodeError:
            raise KeyEncodingError(f"component {c.name} is not UTF-8") from None
        return (_reversed(c.reverse, s) if c.reverse else s), i + 2
    if c.type == "i32":
        u = struct.unpack(">I", take(4))[0] ^ 0x80000000
        return (u - (1 << 32) if u >> 31 else u), pos + 4
    if c.type in ("f32", "f64"):
        n, fmt, ufmt, top = (4, ">f", ">I", 31) if c.type == "f32" else (8, ">d", ">Q", 63)
        u = struct.unpack(ufmt, take(n))[0]
        mask = (1 << (top + 1)) - 1
        bits = u ^ (1 << top) if u >> top else ~u & mask
        value: float = struct.unpack(fmt, struct.pack(ufmt, bits))[0]
        return value, pos + n
    u = struct.unpack(">Q", take(8))[0] ^ (1 << 63)
    i = u - (1 << 64) if u >> 63 else u
    return (_unreverse_ts(c, i) if c.reverse_timestamp else i), pos + 8


def _split_unescaped(b: bytes, sep: int) -> List[bytes]:
    fields, start, i = [], 0, 0
    while i < len(b):
        if b[i] == 0x5C:
            i += 2
            continue
        if b[i] == sep:
            fields.append(b[start:i])
            start = i + 1
        i += 1
    fields.append(b[start:])
    return fields


@dataclass(frozen=True)
class KeySpec:
    """One table's row-key design (generated from its schema)."""

    layout: str
    separator: str
    components: Tuple[Component, ...]
    hash: Optional[HashSpec] = None
    salt: Optional[SaltSpec] = None
    table: str = ""
    """The table id, so errors name the key they refuse a value for."""

    def field(self, c: Component, v: KeyValue) -> bytes:
        """One component's bytes in this layout."""
        if isinstance(v, (str, bytes)) and not v and not c.allow_empty:
            # An empty field is almost always a forgotten one, and a key like `d41d8||201501`
            # would silently stand for it: refused in the words of every redbase SDK.
            raise KeyEncodingError(
                f"component {c.name}: must not be empty in the {self.table} key"
                " (the schema does not set allow_empty)"
            )
        _check_type(c, v)
        if self.layout == "binary":
            return _binary(c, v)
        return _text(c, v, self.separator if self.layout == "separated" else None)

    def _join(self, parts: Sequence[bytes]) -> bytes:
        return self.separator.encode().join(parts)

    def _body(self, leading: Sequence[KeyValue]) -> bytes:
        fields = [self.field(c, v) for c, v in zip(self.components, leading)]
        parts: List[bytes] = []
        if self.hash is not None:
            h = self.hash
            missing = [i for i in h.components if i >= len(fields)]
            if missing:
                name = self.components[missing[0]].name
                raise KeyEncodingError(
                    f"component {name} must be given: the {self.table} key's hash prefix is computed from it"
                )
            digest = hashlib.md5(self._join([fields[i] for i in h.components])).digest()
            parts.append(digest.hex()[: h.n].encode() if h.form == "hex_chars" else digest[: h.n])
        parts += [f for c, f in zip(self.components, fields) if c.kept]
        out = self._join(parts)
        more = any(c.kept for c in self.components[len(fields) :])
        if more and parts:
            out += self.separator.encode()
        return out

    def salt_field(self, bucket: int) -> bytes:
        """The salt as it starts a key: its byte or character, then the separator if any."""
        if self.salt is None:
            return b""
        s = self.salt
        head = bytes([bucket]) if s.form == "byte" else s.alphabet[bucket].encode()
        return head + self.separator.encode()

    def salt_width(self) -> int:
        """How many bytes the salt takes at the start of every key (0 unsalted): a salted scan
        merges its buckets by the key after them."""
        return len(self.salt_field(0)) if self.salt is not None else 0

    def encode(self, values: Sequence[KeyValue]) -> bytes:
        """The row key for one value per component, in declaration order."""
        if len(values) != len(self.components):
            raise KeyEncodingError(f"{len(self.components)} components expected, got {len(values)}")
        body = self._body(values)
        if self.salt is None:
            return body
        return self.salt_field(salt_bucket(body, self.salt.buckets)) + body

    def prefixes(self, leading: Sequence[KeyValue]) -> List[bytes]:
        """Prefixes of the keys whose leading components equal `leading`: one per salt bucket."""
        if len(leading) > len(self.components):
            raise KeyEncodingError("more values than components")
        body = self._body(leading) if leading else b""
        if self.salt is None:
            return [body]
        return [self.salt_field(b) + body for b in range(self.salt.buckets)]

    def leading(self, values: Sequence[Optional[KeyValue]]) -> List[KeyValue]:
        """The values up to the first None; a value after a None names the missing component."""
        out: List[KeyValue] = []
        for i, v in enumerate(values):
            if v is None:
                later = [self.components[j].name for j in range(i + 1, len(values)) if values[j] is not None]
                if later:
                    raise KeyEncodingError(self._missing(i, later[0]))
                break
            out.append(v)
        return out

    def _missing(self, i: int, given: str) -> str:
        name = self.components[i].name
        if self.hash is not None and i in self.hash.components:
            return (
                f"component {name} must be given: the {self.table} key's hash prefix is computed"
                f" from it (and {given} follows it in the key)"
            )
        return f"component {name} must be given: {given} follows it in the {self.table} key"

    def ends_after(self, n: int) -> bool:
        """Whether a key holding the first `n` components ends there (no kept component follows)."""
        return not any(c.kept for c in self.components[n:])

    def prefix_ranges(self, leading: Sequence[KeyValue]) -> List[Tuple[bytes, Optional[bytes]]]:
        """Start (inclusive) and stop (exclusive) rows of the keys whose leading components
        equal `leading`, one pair per salt bucket. When they make a whole key the stop is that
        key plus 0x00: in a separated key `...|k` is a prefix of `...|k0`, another value."""
        whole = bool(leading) and self.ends_after(len(leading))
        return [(p, p + b"\x00" if whole else _after(p)) for p in self.prefixes(leading)]

    def check_ordered(self, i: int) -> None:
        """Refuses a range on component `i` where the key's byte order is not its value order:
        start and stop rows could then only select the wrong rows."""
        c = self.components[i]
        key = f"the {self.table} key"
        if self.hash is not None and i in self.hash.components:
            raise KeyEncodingError(
                f"component {c.name} is hashed in {key}: rows are not in its order,"
                " so it takes one value, not a range"
            )
        if c.reverse:
            raise KeyEncodingError(
                f"component {c.name}: {key} stores it reversed ({c.reverse}), so rows are not in its"
                " value order: give it one value, not a range"
            )
        if self.layout != "separated":
            return
        sep = self.separator
        if c.type in ("string", "bytes") and not self.ends_after(i + 1):
            raise KeyEncodingError(
                f"component {c.name}: {key} is separated and more components follow it, so rows are"
                f" not in its value order ('k0{sep}' sorts before 'k{sep}'): a range works on the last"
                " component or on a number with a width"
            )
        if c.type == "string" and c.escape and (c.charset == "any" or sep in _CHARSETS[c.charset]):
            raise KeyEncodingError(
                f"component {c.name}: {key} escapes '{sep}' and '\\' in it, so rows are not in its"
                f" value order ('a\\{sep}' sorts before 'a]'): give it one value, not a range"
            )
        if c.type not in ("string", "bytes") and c.width is None:
            raise KeyEncodingError(
                f"component {c.name}: {key} is separated and writes it without a width, so rows are"
                " not in its value order ('10' sorts before '9'): give it one value, not a range"
            )

    def check_starts_with(self, i: int) -> None:
        """Refuses a starts-with on component `i` unless its stored bytes start with the bytes
        of every prefix of its value: a string, neither hashed nor reversed."""
        c = self.components[i]
        key = f"the {self.table} key"
        if c.type != "string":
            raise KeyEncodingError(
                f"component {c.name}: a starts-with applies to string components, and {key} has it as {c.type}"
            )
        if self.hash is not None and i in self.hash.components:
            raise KeyEncodingError(
                f"component {c.name} is hashed in {key}: its hash is computed from the whole value,"
                " so it takes one value, not a starts-with"
            )
        if c.reverse:
            raise KeyEncodingError(
                f"component {c.name}: {key} stores it reversed ({c.reverse}), so values starting alike"
                " do not share a key prefix: give it one value, not a starts-with"
            )

    def string_prefix(self, c: Component, p: str) -> bytes:
        """The bytes that start the field of every string starting with `p`: the field's
        encoding without what ends it. Escaping maps each character (separated: `\\` and the
        separator) or byte (binary: 0x00) on its own, so encoding `p` whole never cuts an
        escape in half."""
        if not isinstance(p, str):
            raise KeyEncodingError(f"component {c.name}: a starts-with takes a string, not {p!r}")
        _check_type(c, p)
        if self.layout == "separated":
            return _text(c, p, self.separator)
        b = p.encode()
        if self.layout == "fixed":
            if b"\x00" in b or len(b) > (c.width or 0):
                raise KeyEncodingError(f"component {c.name}: needs at most {c.width} UTF-8 bytes and no 0x00")
            return b
        out = b.replace(b"\x00", b"\x00\xff")
        return bytes(255 - x for x in out) if c.desc else out

    def _starts_with_ranges(
        self, fixed: Sequence[KeyValue], at: int, prefix: str
    ) -> List[Tuple[bytes, Optional[bytes]]]:
        c = self.components[at]
        if self.hash is not None:
            later = [i for i in self.hash.components if i >= len(fixed)]
            if later:
                raise KeyEncodingError(
                    f"component {self.components[later[0]].name}: must be given: the {self.table} key's"
                    " hash prefix is computed from it"
                )
        tail = self.string_prefix(c, prefix)
        out: List[Tuple[bytes, Optional[bytes]]] = []
        for p in self.prefixes(fixed):
            start = p + tail
            out.append((start, _after(start)))
        return out

    def bounds(
        self, values: Sequence[Union[KeyValue, Tuple[KeyValue, KeyValue], StartsWith, None]]
    ) -> List[Tuple[bytes, Optional[bytes]]]:
        """Start (inclusive) and stop (exclusive) rows, one pair per salt bucket, for leading
        components given by value and then optionally one given as a (low, high) pair,
        inclusive at both ends in value order, or as a `StartsWith` (strings). A range is
        refused where the key's byte order is not the component's value order
        (`check_ordered`), a starts-with where values starting alike do not share a key prefix
        (`check_starts_with`)."""
        fixed: List[KeyValue] = []
        pair: Optional[Tuple[KeyValue, KeyValue]] = None
        for i, v in enumerate(values):
            if v is None:
                later = [self.components[j].name for j in range(i + 1, len(values)) if values[j] is not None]
                if later:
                    raise KeyEncodingError(self._missing(i, later[0]))
                break
            if isinstance(v, StartsWith):
                name = self.components[i].name
                later = [self.components[j].name for j in range(i + 1, len(values)) if values[j] is not None]
                if later:
                    raise KeyEncodingError(
                        f"component {later[0]}: only the last component given may be a starts-with ({name} is one)"
                    )
                self.check_starts_with(i)
                return self._starts_with_ranges(fixed, i, v.prefix)
            if isinstance(v, tuple):
                name = self.components[i].name
                if len(v) != 2:
                    raise KeyEncodingError(f"component {name}: a range is a (low, high) pair")
                later = [self.components[j].name for j in range(i + 1, len(values)) if values[j] is not None]
                if later:
                    raise KeyEncodingError(
                        f"component {later[0]}: only the last component given may be a range ({name} is one)"
                    )
                self.check_ordered(i)
                pair = (v[0], v[1])
                break
            fixed.append(v)
        if pair is None:
            return self.prefix_ranges(fixed)
        lows = self.prefixes([*fixed, pair[0]])
        highs = self.prefixes([*fixed, pair[1]])
        at = len(fixed)
        if _above(pair[0], pair[1]):
            raise KeyEncodingError(
                f"component {self.components[at].name}: the range's low {pair[0]!r} is above its high {pair[1]!r}"
            )
        whole = self.ends_after(at + 1)
        out: List[Tuple[bytes, Optional[bytes]]] = []
        for lo, hi in zip(lows, highs):
            lo, hi = min(lo, hi), max(lo, hi)  # a desc or reverse-timestamp component stores high values first
            # The last component: keys up to `hi` itself (a longer value is a greater one).
            # Otherwise every key under `hi`'s prefix, which ends with a separator or a
            # terminator, or has a fixed width.
            out.append((lo, hi + b"\x00" if whole else _after(hi)))
        return out

    def decode(self, key: bytes) -> Decoded:
        """Salt, hash prefix and kept components of a key."""
        sep = self.separator.encode()
        pos = 0

        def take(n: int, what: str) -> bytes:
            nonlocal pos
            chunk = key[pos : pos + n]
            if len(chunk) != n:
                raise KeyEncodingError(f"key too short for the {what}")
            pos += n
            return chunk

        def expect_sep() -> None:
            if sep and take(1, "separator") != sep:
                raise KeyEncodingError("separator expected")

        kept = [c for c in self.components if c.kept]
        salt: Optional[int] = None
        if self.salt is not None:
            b = take(1, "salt")[0]
            salt = b if self.salt.form == "byte" else self.salt.alphabet.find(chr(b))
            if not 0 <= salt < self.salt.buckets:
                raise KeyEncodingError("salt bucket out of range")
            expect_sep()
        hash_: Union[str, bytes, None] = None
        if self.hash is not None:
            raw = take(self.hash.n, "hash prefix")
            hash_ = raw.decode("ascii", "replace") if self.hash.form == "hex_chars" else raw
            if kept:
                expect_sep()
        comps: Dict[str, KeyValue] = {}
        rest = key[pos:]
        if self.layout == "separated":
            fields = _split_unescaped(rest, sep[0])
            if len(fields) != len(kept):
                raise KeyEncodingError(f"{len(kept)} fields expected after the prefixes, found {len(fields)}")
            for c, f in zip(kept, fields):
                comps[c.name] = _decode_text(c, f, self.separator)
        elif self.layout == "fixed":
            for c in kept:
                comps[c.name] = _decode_text(c, take(c.width or 0, c.name), None)
            if pos != len(key):
                raise KeyEncodingError("trailing bytes after the last component")
        else:
            for c in kept:
                comps[c.name], pos = _decode_binary(c, key, pos)
            if pos != len(key):
                raise KeyEncodingError("trailing bytes after the last component")
        return Decoded(salt, hash_, comps)


def _after(prefix: bytes) -> Optional[bytes]:
    """The smallest key after every key starting with `prefix` (None: no such key)."""
    b = bytearray(prefix)
    while b and b[-1] == 0xFF:
        b.pop()
    if not b:
        return None
    b[-1] += 1
    return bytes(b)


def _above(a: KeyValue, b: KeyValue) -> bool:
    """Whether `a` is above `b` in value order (a code point order for strings, as UTF-8 sorts)."""
    if isinstance(a, str) and isinstance(b, str):
        return a > b
    if isinstance(a, bytes) and isinstance(b, bytes):
        return a > b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a > b
    return False  # mixed types: encoding has refused them already


def salt_bucket(body: bytes, buckets: int) -> int:
    """First four bytes of MD5(body) as a big-endian u32, modulo the bucket count."""
    return int(struct.unpack(">I", hashlib.md5(body).digest()[:4])[0]) % buckets


def region_index(splits: Sequence[bytes], key: bytes) -> int:
    """The region a key falls in: how many split keys are <= it."""
    return sum(1 for s in splits if s <= key)


def leading(values: Sequence[Optional[KeyValue]]) -> List[KeyValue]:
    """The values up to the first None; a value after a None is an error (KeySpec.leading
    names the missing component)."""
    out: List[KeyValue] = []
    for i, v in enumerate(values):
        if v is None:
            if any(x is not None for x in values[i:]):
                raise KeyEncodingError("prefix components must be given in order, without gaps")
            break
        out.append(v)
    return out


def as_string(v: KeyValue) -> str:
    if not isinstance(v, str):
        raise KeyEncodingError(f"{v!r} is not a string")
    return v


def as_bytes(v: KeyValue) -> bytes:
    if not isinstance(v, bytes):
        raise KeyEncodingError(f"{v!r} is not bytes")
    return v


def as_int(v: KeyValue) -> int:
    if not isinstance(v, int):
        raise KeyEncodingError(f"{v!r} is not an integer")
    return v


def as_float(v: KeyValue) -> float:
    if not isinstance(v, float):
        raise KeyEncodingError(f"{v!r} is not a float")
    return v
