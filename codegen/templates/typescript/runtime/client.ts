/**
 * The Thrift2 plumbing under every generated table client: table creation from the schema,
 * key ranges, read options (versions, time ranges, column selection) and row-level calls in
 * bytes. Salted scans fan out one scanner per bucket and merge them in key order (scan.ts);
 * batches and the buffered writer are in batch.ts and writer.ts.
 */

import * as THBaseService from "../../thrift/THBaseService";
import * as tt from "../../thrift/hbase2_types";
import { ChunkOptions, DeleteRow, IncrementRow, PutRow, deleteMany, deleteOf, incrementMany, putMany, putOf } from "./batch";
import { Cell, Connection, RawRow, StoredCell, ThriftError, Timestamp, bigintOf, int64, timestampOf } from "./connection";
import { Filter } from "./filters";
import { bounds as keyBounds, prefixRanges } from "./bounds";
import { KeySpec, KeyValue, StartsWith } from "./keys";
import { SchemaDriftError, familyDrift, overlaid, splitsShown } from "./drift";
import { scanRows } from "./scan";
import { BufferedWriter, WriterOptions } from "./writer";

export { Connection, ThriftError } from "./connection";
export type { Cell, ConnectOptions, RawRow, StoredCell, Timestamp } from "./connection";

/** A column family's descriptor attributes (undefined leaves HBase's default). */
export interface FamilyDef {
  readonly name: Buffer;
  readonly maxVersions?: number;
  readonly minVersions?: number;
  readonly ttlSeconds?: number;
  readonly keepDeletedCells?: keyof typeof tt.TKeepDeletedCells;
  readonly inMemory?: boolean;
  readonly blockCache?: boolean;
  readonly blockSize?: number;
  readonly bloomFilter?: keyof typeof tt.TBloomFilterType;
  readonly compression?: keyof typeof tt.TCompressionAlgorithm;
  readonly dataBlockEncoding?: keyof typeof tt.TDataBlockEncoding;
  readonly scope?: number;
  readonly dfsReplication?: number;
  readonly configuration?: readonly (readonly [string, string])[];
}

/** The descriptor a family is created with. */
export function descriptor(f: FamilyDef): tt.TColumnFamilyDescriptor {
  return new tt.TColumnFamilyDescriptor({
    name: f.name,
    configuration: f.configuration?.length ? Object.fromEntries(f.configuration) : undefined,
    blockSize: f.blockSize,
    bloomnFilterType: f.bloomFilter === undefined ? undefined : tt.TBloomFilterType[f.bloomFilter],
    compressionType: f.compression === undefined ? undefined : tt.TCompressionAlgorithm[f.compression],
    dfsReplication: f.dfsReplication,
    dataBlockEncoding: f.dataBlockEncoding === undefined ? undefined : tt.TDataBlockEncoding[f.dataBlockEncoding],
    keepDeletedCells: f.keepDeletedCells === undefined ? undefined : tt.TKeepDeletedCells[f.keepDeletedCells],
    maxVersions: f.maxVersions,
    minVersions: f.minVersions,
    scope: f.scope,
    timeToLive: f.ttlSeconds,
    blockCacheEnabled: f.blockCache,
    inMemory: f.inMemory,
  });
}

/** A table as its schema declares it: name, families, split keys, key design. */
export interface TableDef {
  readonly namespace: string;
  readonly name: string;
  readonly families: readonly FamilyDef[];
  readonly splits: readonly Buffer[];
  readonly key: KeySpec;
}

/** Another name and/or namespace for a table's design: one schema for several copies
 * (staging, per tenant, per test run). */
export interface TableOptions {
  readonly name?: string;
  readonly namespace?: string;
}

/** `def` under the name and namespace of `options` (each defaults to the schema's). */
export function renamed(def: TableDef, options: TableOptions = {}): TableDef {
  for (const [what, v] of [["name", options.name], ["namespace", options.namespace]] as const) {
    if (v !== undefined && (typeof v !== "string" || v.length === 0)) throw new TypeError(`a table ${what} must be a non-empty string, not ${String(v)}`);
  }
  if (options.name === undefined && options.namespace === undefined) return def;
  return { ...def, name: options.name ?? def.name, namespace: options.namespace ?? def.namespace };
}

/** `ns:name` as Thrift2 calls take it (just `name` in the default namespace). */
export function fullName(t: TableDef): Buffer {
  return Buffer.from(t.namespace === "default" ? t.name : `${t.namespace}:${t.name}`, "utf8");
}

export { nextPrefix } from "./bounds";

/** Row ranges, one per salt bucket (one for unsalted tables): start inclusive, stop exclusive
 * (null: to the end). */
export class KeyRange {
  constructor(readonly ranges: readonly (readonly [start: Buffer, stop: Buffer | null])[]) {}

  /**
   * Rows whose leading components equal `leading` (a whole key: that row alone, not the
   * longer keys it is a byte prefix of).
   */
  static prefix(spec: KeySpec, leading: readonly KeyValue[]): KeyRange {
    return new KeyRange(prefixRanges(spec, leading));
  }

  /** From `start`'s first key (inclusive) up to `stop`'s first key (exclusive). */
  static between(start: KeyRange, stop: KeyRange): KeyRange {
    if (start.ranges.length !== stop.ranges.length) throw new RangeError("ranges of different tables");
    return new KeyRange(start.ranges.map((a, i) => [a[0], stop.ranges[i]?.[0] ?? null] as const));
  }

  /**
   * Rows whose leading components equal the values given and, optionally, whose next
   * component lies in a `[low, high]` pair (inclusive at both ends, in value order). Refused
   * where the key's byte order is not the component's value order (hashed, reversed, escaped,
   * and in a separated key text followed by others or a number without a width) and when low
   * is above high (runtime/bounds.ts). `values` holds one entry per component in key order
   * (undefined: not given).
   */
  static bounds(spec: KeySpec, values: readonly (KeyValue | readonly [KeyValue, KeyValue] | StartsWith | undefined)[]): KeyRange {
    return new KeyRange(keyBounds(spec, values));
  }
}

/** A cell or family a read selects; `matches` narrows a family to a pattern's qualifiers. */
export interface ColumnRef {
  readonly family: Buffer;
  readonly qualifier?: Buffer;
  readonly matches?: (qualifier: Buffer) => boolean;
}

/** What a get or scan reads: cell versions, a time range, the columns. */
export interface ReadOptions {
  /** Up to this many versions per column (TGet/TScan maxVersions; default 1). */
  readonly versions?: number;
  /** Cells with min <= timestamp < max (ms), as HBase's time ranges. */
  readonly timeRange?: readonly [min: Timestamp, max: Timestamp];
  /** Cells written at exactly this timestamp. */
  readonly at?: Timestamp;
  /** Only these columns (default: every column). */
  readonly columns?: readonly ColumnRef[];
}

/** What a scan reads and how: ReadOptions plus filter, order, limit and round-trip sizes. */
export interface RawScanOptions extends ReadOptions {
  readonly filter?: Filter;
  /** Descending key order. */
  readonly reversed?: boolean;
  /** At most this many rows. */
  readonly limit?: number;
  /** Rows per round trip (TScan.caching; default 256). */
  readonly caching?: number;
  /** Cells per result (TScan.batchSize); partial results are joined back into rows. */
  readonly batchSize?: number;
  /**
   * Salted tables: read one bucket after the other (the last first when reversed), each in key
   * order, instead of merging the buckets by the key without its salt. One scanner is open at
   * a time; rows are not in the unsalted design's order.
   */
  readonly bucketOrder?: boolean;
}

function positiveInt(n: number | undefined, what: string): number | undefined {
  if (n === undefined) return undefined;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer, not ${String(n)}`);
  return n;
}

/** The request fields of a read: columns, versions, time range, and the cells to keep. */
function readParts(o: ReadOptions): {
  columns?: tt.TColumn[];
  maxVersions?: number;
  timeRange?: tt.TTimeRange;
  cells: (r: tt.TResult) => StoredCell[];
} {
  const maxVersions = positiveInt(o.versions, "versions");
  let timeRange: tt.TTimeRange | undefined;
  if (o.at !== undefined && o.timeRange !== undefined) throw new RangeError("give at or timeRange, not both");
  if (o.at !== undefined) {
    const at = timestampOf(o.at, "at");
    timeRange = new tt.TTimeRange({ minStamp: int64(at), maxStamp: int64(at + 1n) });
  } else if (o.timeRange !== undefined) {
    if (!Array.isArray(o.timeRange) || o.timeRange.length !== 2) throw new RangeError("timeRange is a [min, max) pair");
    const min = timestampOf(o.timeRange[0], "timeRange's min");
    const max = timestampOf(o.timeRange[1], "timeRange's max");
    if (max < min) throw new RangeError(`timeRange's max ${max} is below its min ${min}`);
    timeRange = new tt.TTimeRange({ minStamp: int64(min), maxStamp: int64(max) });
  }
  const refs = o.columns;
  if (refs === undefined) return { maxVersions, timeRange, cells: (r) => storedCells(r) };
  if (refs.length === 0) throw new RangeError("columns: select at least one column or family");
  // A whole family covers its columns; a pattern asks for its family and is narrowed here.
  const families = new Set(refs.filter((r) => r.qualifier === undefined).map((r) => r.family.toString("hex")));
  const columns: tt.TColumn[] = [];
  const seen = new Set<string>();
  for (const r of refs) {
    const f = r.family.toString("hex");
    if (r.qualifier !== undefined && families.has(f)) continue;
    const id = r.qualifier === undefined ? f : `${f}:${r.qualifier.toString("hex")}`;
    if (seen.has(id)) continue;
    seen.add(id);
    columns.push(new tt.TColumn({ family: r.family, qualifier: r.qualifier }));
  }
  const keep = (c: StoredCell): boolean =>
    refs.some((r) => r.family.equals(c.family) && (r.qualifier === undefined ? (r.matches?.(c.qualifier) ?? true) : r.qualifier.equals(c.qualifier)));
  return { columns, maxVersions, timeRange, cells: (r) => storedCells(r).filter(keep) };
}

/** The cells of a result, with their timestamps, in the server's order. */
export function storedCells(r: tt.TResult): StoredCell[] {
  return (r.columnValues ?? []).map((c) => ({
    family: Buffer.from(c.family),
    qualifier: Buffer.from(c.qualifier),
    value: Buffer.from(c.value),
    timestamp: c.timestamp === undefined || c.timestamp === null ? 0n : bigintOf(c.timestamp),
  }));
}

/** Per column, its newest cell (a row's current values), ordered by family, then qualifier. */
export function newestCells(cells: readonly StoredCell[]): StoredCell[] {
  const newest = new Map<string, StoredCell>();
  for (const c of cells) {
    const id = `${c.family.toString("hex")}:${c.qualifier.toString("hex")}`;
    const prev = newest.get(id);
    if (prev === undefined || c.timestamp > prev.timestamp) newest.set(id, c);
  }
  return [...newest.values()].sort((a, b) => Buffer.compare(a.family, b.family) || Buffer.compare(a.qualifier, b.qualifier));
}

/** Every cell, ordered by family, then qualifier, then newest first. */
export function cellsByVersion(cells: readonly StoredCell[]): StoredCell[] {
  return [...cells].sort(
    (a, b) => Buffer.compare(a.family, b.family) || Buffer.compare(a.qualifier, b.qualifier) || (a.timestamp > b.timestamp ? -1 : a.timestamp < b.timestamp ? 1 : 0),
  );
}

/** A write's timestamp option, checked. */
function writeTimestamp(t: Timestamp | undefined): bigint | undefined {
  return t === undefined ? undefined : timestampOf(t);
}

/** Row-level Thrift2 calls in bytes for one table; generated clients type them. */
export class TableClient {
  readonly name: Buffer;
  private readonly tableName: tt.TTableName;

  constructor(
    readonly conn: Connection,
    readonly table: TableDef,
  ) {
    this.name = fullName(table);
    this.tableName = new tt.TTableName({
      ns: Buffer.from(table.namespace, "utf8"),
      qualifier: Buffer.from(table.name, "utf8"),
    });
  }

  private get c(): THBaseService.Client {
    return this.conn.client;
  }

  /** Creates the table with its families and split keys, and its namespace if missing. */
  async create(): Promise<void> {
    const ns = this.table.namespace;
    if (ns !== "default") {
      const known = await this.conn.call<tt.TNamespaceDescriptor[]>((cb) => this.c.listNamespaceDescriptors(cb));
      if (!known.some((d) => d.name === ns)) {
        const desc = new tt.TNamespaceDescriptor({ name: ns });
        await this.conn.call<void>((cb) => this.c.createNamespace(desc, cb));
      }
    }
    const desc = new tt.TTableDescriptor({ tableName: this.tableName, columns: this.table.families.map(descriptor) });
    const splits = this.table.splits.length > 0 ? [...this.table.splits] : (null as unknown as Buffer[]);
    await this.conn.call<void>((cb) => this.c.createTable(desc, splits, cb));
  }

  exists(): Promise<boolean> {
    return this.conn.call<boolean>((cb) => this.c.tableExists(this.tableName, cb));
  }

  /**
   * Makes the live table match the schema (runtime/drift.ts): creates it if missing, adds
   * missing families and sets differing family settings; resolves to what it changed. A family
   * the schema lacks, or other split points, reject with one SchemaDriftError listing them.
   */
  async ensure(): Promise<string[]> {
    const t = this.table;
    const shown = `${t.namespace}:${t.name}`;
    if (!(await this.exists())) {
      await this.create();
      return [`${shown}: created the table with its families and split keys`];
    }
    const desc = await this.conn.call<tt.TTableDescriptor>((cb) => this.c.getTableDescriptor(this.tableName, cb));
    const live = new Map((desc.columns ?? []).map((c) => [Buffer.from(c.name).toString("utf8"), c] as const));
    const changed: string[] = [];
    for (const f of t.families) {
      const family = f.name.toString("utf8");
      const have = live.get(family);
      if (have === undefined) {
        const d = descriptor(f);
        await this.conn.call<void>((cb) => this.c.addColumnFamily(this.tableName, d, cb));
        changed.push(`${shown}: added family ${family}`);
        continue;
      }
      const diffs = familyDrift(f, have);
      if (diffs.length === 0) continue;
      const d = overlaid(f, have);
      await this.conn.call<void>((cb) => this.c.modifyColumnFamily(this.tableName, d, cb));
      for (const [setting, want, was] of diffs) changed.push(`${shown}: family ${family}: ${setting} was ${was}, set to ${want}`);
    }
    const refused = [...live.keys()]
      .filter((n) => !t.families.some((f) => f.name.toString("utf8") === n))
      .sort()
      .map((n) => `extra family ${n} (not in the schema)`);
    const splits = (await this.regionStarts()).filter((s) => s.length > 0);
    if (splits.length !== t.splits.length || splits.some((s, i) => !s.equals(t.splits[i] as Buffer))) {
      refused.push(`split points are ${splitsShown(splits)}, the schema says ${splitsShown(t.splits)}`);
    }
    if (refused.length > 0) throw new SchemaDriftError(shown, refused);
    return changed;
  }

  /** Disables and deletes the table. */
  async drop(): Promise<void> {
    if (await this.conn.call<boolean>((cb) => this.c.isTableEnabled(this.tableName, cb))) {
      await this.conn.call<void>((cb) => this.c.disableTable(this.tableName, cb));
    }
    await this.conn.call<void>((cb) => this.c.deleteTable(this.tableName, cb));
  }

  /** Start keys of the table's regions, ascending (the first is empty). */
  async regionStarts(): Promise<Buffer[]> {
    const locs = await this.conn.call<tt.THRegionLocation[]>((cb) => this.c.getAllRegionLocations(this.name, cb));
    return locs.map((l) => Buffer.from(l.regionInfo.startKey ?? Buffer.alloc(0))).sort(Buffer.compare);
  }

  /** The row's cells (undefined: no cell matched). */
  async get(row: Buffer, options: ReadOptions = {}): Promise<RawRow | undefined> {
    const { cells, ...parts } = readParts(options);
    const r = await this.conn.call<tt.TResult>((cb) => this.c.get(this.name, new tt.TGet({ row, ...parts }), cb));
    const got = cells(r);
    return got.length > 0 ? { row, cells: got } : undefined;
  }

  async put(row: Buffer, cells: readonly Cell[], timestamp?: Timestamp): Promise<void> {
    if (cells.length === 0) return;
    const put = putOf({ row, cells, timestamp: writeTimestamp(timestamp) });
    await this.conn.call<void>((cb) => this.c.put(this.name, put, cb));
  }

  /** Deletes the row, or the given columns / families; with a timestamp, the versions <= it. */
  async delete(row: Buffer, columns: DeleteRow["columns"] = [], timestamp?: Timestamp): Promise<void> {
    const del = deleteOf({ row, columns, timestamp: writeTimestamp(timestamp) });
    await this.conn.call<void>((cb) => this.c.deleteSingle(this.name, del, cb));
  }

  /** Atomically adds `amount` to a counter cell; returns the new value. */
  async increment(row: Buffer, family: Buffer, qualifier: Buffer, amount: bigint): Promise<bigint> {
    for (const c of await this.incrementRow(row, [[family, qualifier, amount]])) {
      if (family.equals(c.family) && qualifier.equals(c.qualifier) && c.value.length === 8) return c.value.readBigInt64BE(0);
    }
    throw new ThriftError("the increment returned no value");
  }

  /** Atomically adds to several counters of one row; returns their cells after the increment. */
  async incrementRow(row: Buffer, counters: IncrementRow["counters"]): Promise<StoredCell[]> {
    const inc = new tt.TIncrement({
      row,
      columns: counters.map(([family, qualifier, amount]) => new tt.TColumnIncrement({ family, qualifier, amount: int64(amount) })),
    });
    return storedCells(await this.conn.call<tt.TResult>((cb) => this.c.increment(this.name, inc, cb)));
  }

  /** Puts `cells` if the cell holds `expected` (null: if it is absent); true if it did. */
  checkAndPut(row: Buffer, family: Buffer, qualifier: Buffer, expected: Buffer | null, cells: readonly Cell[]): Promise<boolean> {
    const value = expected as Buffer; // null is sent as an absent value: "the cell must not exist"
    return this.conn.call<boolean>((cb) => this.c.checkAndPut(this.name, row, family, qualifier, value, putOf({ row, cells }), cb));
  }

  /** Puts and deletes of one row, applied atomically (Thrift2 mutateRow). */
  async mutateRow(row: Buffer, put: readonly Cell[], remove: DeleteRow["columns"], timestamp?: Timestamp): Promise<void> {
    const ts = writeTimestamp(timestamp);
    const mutations: tt.TMutation[] = [];
    if (put.length > 0) mutations.push(new tt.TMutation({ put: putOf({ row, cells: put, timestamp: ts }) }));
    if (remove !== undefined && remove.length > 0) mutations.push(new tt.TMutation({ deleteSingle: deleteOf({ row, columns: remove, timestamp: ts }) }));
    if (mutations.length === 0) return;
    await this.conn.call<void>((cb) => this.c.mutateRow(this.name, new tt.TRowMutations({ row, mutations }), cb));
  }

  putMany(rows: readonly PutRow[], options?: ChunkOptions): Promise<void> {
    return putMany(this.conn, this.name, rows, options);
  }

  deleteMany(rows: readonly DeleteRow[], options?: ChunkOptions): Promise<void> {
    return deleteMany(this.conn, this.name, rows, options);
  }

  /** Each row's counters after the increment, in input order. */
  incrementMany(rows: readonly IncrementRow[], options?: ChunkOptions): Promise<StoredCell[][]> {
    return incrementMany(this.conn, this.name, rows, storedCells, options);
  }

  writer(options?: WriterOptions, chunk?: ChunkOptions): BufferedWriter {
    return new BufferedWriter(this.conn, this.name, options, chunk);
  }

  /**
   * Rows in `keys`: one scanner per range (per salt bucket), merged by the key without its salt
   * (descending if reversed), or one bucket after the other with `bucketOrder`.
   */
  scan(keys: KeyRange, options: RawScanOptions = {}): AsyncGenerator<RawRow, void, undefined> {
    const { cells, ...parts } = readParts(options);
    const limit = options.limit;
    if (limit !== undefined && (typeof limit !== "number" || !Number.isSafeInteger(limit) || limit < 0)) {
      throw new RangeError(`limit must be a non-negative integer, not ${String(limit)}`);
    }
    if (options.filter !== undefined && !(options.filter instanceof Filter)) throw new TypeError("filter must be a Filter");
    return scanRows(this.conn, this.name, {
      ranges: keys.ranges,
      reversed: options.reversed ?? false,
      limit,
      saltWidth: this.table.key.saltWidth(),
      bucketOrder: options.bucketOrder ?? false,
      caching: positiveInt(options.caching, "caching") ?? 256,
      batchSize: positiveInt(options.batchSize, "batchSize"),
      filter: options.filter?.bytes,
      cells,
      ...parts,
    });
  }
}
