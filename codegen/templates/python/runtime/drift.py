"""Schema drift at start-up: `Table.ensure()` makes the live table match its schema where that
is safe and fails clearly where it is not, by the rules `redbase schema diff|apply` follows
(docs/schema.md, "Schema drift"). A family setting differs when the schema sets it and the live
value is another; VERSIONS, MIN_VERSIONS, TTL, KEEP_DELETED_CELLS and COMPRESSION left unset
mean HBase's defaults and are compared with them. ensure() creates a missing table (namespace,
families, split keys), adds missing families and modifies differing settings; a live family the
schema lacks (deleting it would delete data) and other split points (a gateway cannot re-split
a table) are a SchemaDriftError listing every such difference."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from .._thrift.hbase2 import ttypes as tt

#: TTL FOREVER: HBase's time to live of a family without one.
FOREVER = (1 << 31) - 1


class SchemaDriftError(RuntimeError):
    """The live table differs from its schema in a way ensure() will not fix; `drifts` lists
    each difference in the words of `redbase schema diff`."""

    def __init__(self, table: str, drifts: List[str]) -> None:
        self.drifts = drifts
        super().__init__(
            f"{table} differs from its schema: " + "; ".join(drifts)
            + " (redbase schema apply --allow-drop deletes extra families; split points are fixed when a table is created)"
        )


def _name(kind: Any, value: Optional[int]) -> Optional[str]:
    return None if value is None else str(kind._VALUES_TO_NAMES.get(value, f"#{value}"))


def _ttl(v: Optional[int]) -> Optional[str]:
    return None if v is None else ("FOREVER" if v == FOREVER else str(v))


def family_drift(want: Any, have: Any) -> List[Tuple[str, str, str]]:
    """(setting, schema value, live value) of each setting of FamilyDef `want` that the live
    TColumnFamilyDescriptor `have` does not have."""
    out: List[Tuple[str, str, str]] = []

    def cmp(name: str, w: Optional[str], h: Optional[str], default: Optional[str]) -> None:
        w = w if w is not None else default
        if w is None:
            return
        h = h if h is not None else default
        if h is not None and h != w:
            out.append((name, w, h))

    def num(v: Optional[int]) -> Optional[str]:
        return None if v is None else str(v)

    def flag(v: Optional[bool]) -> Optional[str]:
        return None if v is None else str(bool(v)).lower()

    cmp("VERSIONS", num(want.max_versions), num(have.maxVersions), "1")
    cmp("MIN_VERSIONS", num(want.min_versions), num(have.minVersions), "0")
    cmp("TTL", _ttl(want.ttl_seconds), _ttl(have.timeToLive), "FOREVER")
    cmp("KEEP_DELETED_CELLS", want.keep_deleted_cells, _name(tt.TKeepDeletedCells, have.keepDeletedCells), "FALSE")
    cmp("COMPRESSION", want.compression, _name(tt.TCompressionAlgorithm, have.compressionType), "NONE")
    cmp("IN_MEMORY", flag(want.in_memory), flag(have.inMemory), None)
    cmp("BLOCKCACHE", flag(want.block_cache), flag(have.blockCacheEnabled), None)
    cmp("BLOCKSIZE", num(want.block_size), num(have.blockSize), None)
    cmp("BLOOMFILTER", want.bloom_filter, _name(tt.TBloomFilterType, have.bloomnFilterType), None)
    cmp("DATA_BLOCK_ENCODING", want.data_block_encoding, _name(tt.TDataBlockEncoding, have.dataBlockEncoding), None)
    cmp("REPLICATION_SCOPE", num(want.scope), num(have.scope), None)
    cmp("DFS_REPLICATION", num(want.dfs_replication), num(have.dfsReplication), None)
    live_conf = dict(have.configuration or {})
    for k, v in want.configuration:
        if live_conf.get(k) != v:
            out.append((f"CONFIGURATION {k}", v, live_conf.get(k, "unset")))
    return out


def overlaid(want: Any, have: Any) -> Any:
    """The live descriptor `have` with FamilyDef `want`'s settings (and the five defaults)."""
    def enum(kind: Any, name: str) -> int:
        return int(kind._NAMES_TO_VALUES[name])

    have.attributes = None  # a copy of the typed fields; they are what is set here
    have.maxVersions = want.max_versions if want.max_versions is not None else 1
    have.minVersions = want.min_versions if want.min_versions is not None else 0
    have.timeToLive = want.ttl_seconds if want.ttl_seconds is not None else FOREVER
    have.keepDeletedCells = enum(tt.TKeepDeletedCells, want.keep_deleted_cells or "FALSE")
    have.compressionType = enum(tt.TCompressionAlgorithm, want.compression or "NONE")
    if want.in_memory is not None:
        have.inMemory = want.in_memory
    if want.block_cache is not None:
        have.blockCacheEnabled = want.block_cache
    if want.block_size is not None:
        have.blockSize = want.block_size
    if want.bloom_filter is not None:
        have.bloomnFilterType = enum(tt.TBloomFilterType, want.bloom_filter)
    if want.data_block_encoding is not None:
        have.dataBlockEncoding = enum(tt.TDataBlockEncoding, want.data_block_encoding)
    if want.scope is not None:
        have.scope = want.scope
    if want.dfs_replication is not None:
        have.dfsReplication = want.dfs_replication
    if want.configuration:
        have.configuration = {**(have.configuration or {}), **dict(want.configuration)}
    return have


def splits_shown(keys: List[bytes]) -> str:
    def one(k: bytes) -> str:
        return "'" + "".join(chr(b) if 0x21 <= b <= 0x7E and b not in (0x27, 0x5C) else f"\\x{b:02X}" for b in k) + "'"

    return "[" + ", ".join(one(k) for k in keys) + "]"
