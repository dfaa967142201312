/**
 * Schema drift at start-up: `Table.ensure()` makes the live table match its schema where that
 * is safe and fails clearly where it is not, by the rules `redbase schema diff|apply` follows
 * (docs/schema.md, "Schema drift"). A family setting differs when the schema sets it and the
 * live value is another; VERSIONS, MIN_VERSIONS, TTL, KEEP_DELETED_CELLS and COMPRESSION left
 * unset mean HBase's defaults and are compared with them.
 */

import * as tt from "../../thrift/hbase2_types";
import type { FamilyDef } from "./client";

/** TTL FOREVER: HBase's time to live of a family without one. */
export const FOREVER = 2 ** 31 - 1;

/**
 * The live table differs from its schema in a way `ensure()` will not fix: a family the schema
 * lacks (deleting it would delete data) or other split points (a gateway cannot re-split a
 * table). `drifts` lists each, in the words of `redbase schema diff`.
 */
export class SchemaDriftError extends Error {
  constructor(
    readonly table: string,
    readonly drifts: readonly string[],
  ) {
    super(
      `${table} differs from its schema: ${drifts.join("; ")} (redbase schema apply --allow-drop deletes extra families; ` +
        "split points are fixed when a table is created)",
    );
    this.name = "SchemaDriftError";
  }
}

/** An enum value's Thrift2 name (the generated enums are plain name → number objects). */
function nameOf(kind: object, value: number | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return Object.entries(kind).find(([, v]) => v === value)?.[0] ?? `#${value}`;
}

const num = (v: number | undefined | null): string | undefined => (v === undefined || v === null ? undefined : String(v));
const flag = (v: boolean | undefined | null): string | undefined => (v === undefined || v === null ? undefined : String(v));
const ttl = (v: number | undefined | null): string | undefined => (v === undefined || v === null ? undefined : v === FOREVER ? "FOREVER" : String(v));

/** Each setting (shell name, schema value, live value) of `f` the live family lacks. */
export function familyDrift(f: FamilyDef, have: tt.TColumnFamilyDescriptor): [string, string, string][] {
  const out: [string, string, string][] = [];
  const cmp = (name: string, want: string | undefined, live: string | undefined, def?: string): void => {
    const w = want ?? def;
    if (w === undefined) return;
    const h = live ?? def;
    if (h !== undefined && h !== w) out.push([name, w, h]);
  };
  cmp("VERSIONS", num(f.maxVersions), num(have.maxVersions), "1");
  cmp("MIN_VERSIONS", num(f.minVersions), num(have.minVersions), "0");
  cmp("TTL", ttl(f.ttlSeconds), ttl(have.timeToLive), "FOREVER");
  cmp("KEEP_DELETED_CELLS", f.keepDeletedCells, nameOf(tt.TKeepDeletedCells, have.keepDeletedCells), "FALSE");
  cmp("COMPRESSION", f.compression, nameOf(tt.TCompressionAlgorithm, have.compressionType), "NONE");
  cmp("IN_MEMORY", flag(f.inMemory), flag(have.inMemory));
  cmp("BLOCKCACHE", flag(f.blockCache), flag(have.blockCacheEnabled));
  cmp("BLOCKSIZE", num(f.blockSize), num(have.blockSize));
  cmp("BLOOMFILTER", f.bloomFilter, nameOf(tt.TBloomFilterType, have.bloomnFilterType));
  cmp("DATA_BLOCK_ENCODING", f.dataBlockEncoding, nameOf(tt.TDataBlockEncoding, have.dataBlockEncoding));
  cmp("REPLICATION_SCOPE", num(f.scope), num(have.scope));
  cmp("DFS_REPLICATION", num(f.dfsReplication), num(have.dfsReplication));
  const conf = (have.configuration ?? {}) as Record<string, string>;
  for (const [k, v] of f.configuration ?? []) {
    if (conf[k] !== v) out.push([`CONFIGURATION ${k}`, v, conf[k] ?? "unset"]);
  }
  return out;
}

/** The live descriptor with `f`'s settings over it (and the five defaults when `f` leaves them unset). */
export function overlaid(f: FamilyDef, have: tt.TColumnFamilyDescriptor): tt.TColumnFamilyDescriptor {
  const d = new tt.TColumnFamilyDescriptor({ ...have, attributes: undefined }); // attributes copy the typed fields
  d.maxVersions = f.maxVersions ?? 1;
  d.minVersions = f.minVersions ?? 0;
  d.timeToLive = f.ttlSeconds ?? FOREVER;
  d.keepDeletedCells = tt.TKeepDeletedCells[f.keepDeletedCells ?? "FALSE"];
  d.compressionType = tt.TCompressionAlgorithm[f.compression ?? "NONE"];
  if (f.inMemory !== undefined) d.inMemory = f.inMemory;
  if (f.blockCache !== undefined) d.blockCacheEnabled = f.blockCache;
  if (f.blockSize !== undefined) d.blockSize = f.blockSize;
  if (f.bloomFilter !== undefined) d.bloomnFilterType = tt.TBloomFilterType[f.bloomFilter];
  if (f.dataBlockEncoding !== undefined) d.dataBlockEncoding = tt.TDataBlockEncoding[f.dataBlockEncoding];
  if (f.scope !== undefined) d.scope = f.scope;
  if (f.dfsReplication !== undefined) d.dfsReplication = f.dfsReplication;
  if (f.configuration?.length) d.configuration = { ...((have.configuration ?? {}) as Record<string, string>), ...Object.fromEntries(f.configuration) };
  return d;
}

/** Split keys as the HBase shell shows them: `['1', '2', '\x00']`. */
export function splitsShown(keys: readonly Buffer[]): string {
  const one = (k: Buffer): string =>
    "'" + Array.from(k, (b) => (b > 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase().padStart(2, "0")}`)).join("") + "'";
  return `[${keys.map(one).join(", ")}]`;
}
