/**
 * The Thrift2 plumbing under every generated table client: a connection to redbase or HBase's
 * Thrift2 gateway (Apache `thrift` runtime, binary protocol, buffered or framed transport),
 * table creation from the schema, and row-level calls in bytes. Salted scans fan out one
 * scanner per bucket and merge them in key order.
 */

import * as thrift from "thrift";
import Int64 = require("node-int64");
import * as THBaseService from "../../thrift/THBaseService";
import * as tt from "../../thrift/hbase2_types";
import { KeySpec, KeyValue } from "./keys";

/** (family, qualifier, value) of one cell to write. */
export type Cell = readonly [family: Buffer, qualifier: Buffer, value: Buffer];

/** A row's cells read back, as `family:qualifier` (hex) → cell. */
export type Cells = Map<string, { family: Buffer; qualifier: Buffer; value: Buffer }>;

/** An error the server reported (TIOError, TIllegalArgument) or a transport failure. */
export class ThriftError extends Error {
  override name = "ThriftError";
}

function wrap(e: unknown): ThriftError {
  if (e instanceof ThriftError) return e;
  const message = (e as { message?: unknown } | null)?.message;
  return new ThriftError(typeof message === "string" && message ? message : String(e));
}

export interface ConnectOptions {
  /** `buffered` (redbase's and HBase's default) or `framed` (`hbase thrift2 -f`). */
  transport?: "buffered" | "framed";
  /** A call with no answer for this long fails and closes the connection (default 30 s). */
  timeoutMs?: number;
}

/**
 * One Thrift2 connection. Calls may overlap (the client matches answers by sequence id), but
 * the server answers them one at a time: open several connections for parallel work.
 */
export class Connection {
  private readonly pending = new Set<(e: ThriftError) => void>();
  private closed: ThriftError | null = null;

  private constructor(
    private readonly conn: thrift.Connection,
    /** The Thrift compiler's client for THBaseService. */
    readonly client: THBaseService.Client,
  ) {
    const fail = (e: ThriftError): void => {
      this.closed ??= e;
      for (const reject of this.pending) reject(e);
      this.pending.clear();
    };
    conn.on("error", (e: unknown) => fail(wrap(e)));
    conn.on("close", () => fail(new ThriftError("connection closed")));
    conn.on("timeout", () => {
      if (this.pending.size > 0) {
        fail(new ThriftError("call timed out"));
        conn.destroy();
      }
    });
  }

  /** Connects; resolves once the socket is open. */
  static open(host = "127.0.0.1", port = 9091, options: ConnectOptions = {}): Promise<Connection> {
    const transport = options.transport ?? "buffered";
    if (transport !== "buffered" && transport !== "framed") {
      return Promise.reject(new RangeError(`transport must be "buffered" or "framed", not ${String(transport)}`));
    }
    return new Promise((resolve, reject) => {
      const conn = thrift.createConnection(host, port, {
        transport: transport === "framed" ? thrift.TFramedTransport : thrift.TBufferedTransport,
        protocol: thrift.TBinaryProtocol,
        timeout: options.timeoutMs ?? 30_000,
      });
      const failed = (e: unknown): void => reject(wrap(e));
      conn.once("error", failed);
      conn.once("connect", () => {
        conn.removeListener("error", failed);
        resolve(new Connection(conn, thrift.createClient(THBaseService, conn)));
      });
    });
  }

  /** Runs one call in the compiler's callback style as a Promise. */
  call<T>(send: (callback: (error: unknown, result: T) => void) => void): Promise<T> {
    if (this.closed) return Promise.reject(this.closed);
    return new Promise<T>((resolve, reject) => {
      const abort = (e: ThriftError): void => reject(e);
      this.pending.add(abort);
      try {
        send((error, result) => {
          this.pending.delete(abort);
          if (error) reject(wrap(error));
          else resolve(result);
        });
      } catch (e) {
        this.pending.delete(abort);
        reject(wrap(e));
      }
    });
  }

  close(): void {
    this.closed ??= new ThriftError("connection closed");
    this.conn.end();
  }
}

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

function descriptor(f: FamilyDef): tt.TColumnFamilyDescriptor {
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

/** `ns:name` as Thrift2 calls take it (just `name` in the default namespace). */
export function fullName(t: TableDef): Buffer {
  return Buffer.from(t.namespace === "default" ? t.name : `${t.namespace}:${t.name}`, "utf8");
}

/** The smallest key after every key starting with `prefix` (null: no such key). */
export function nextPrefix(prefix: Uint8Array): Buffer | null {
  let n = prefix.length;
  while (n > 0 && prefix[n - 1] === 0xff) n--;
  if (n === 0) return null;
  const b = Buffer.from(prefix.subarray(0, n));
  b[n - 1] = (b[n - 1] as number) + 1;
  return b;
}

/** Row ranges, one per salt bucket (one for unsalted tables): start inclusive, stop exclusive
 * (null: to the end). */
export class KeyRange {
  constructor(readonly ranges: readonly (readonly [start: Buffer, stop: Buffer | null])[]) {}

  static prefix(spec: KeySpec, leading: readonly KeyValue[]): KeyRange {
    return new KeyRange(spec.prefixes(leading).map((p) => [p, nextPrefix(p)] as const));
  }

  /** From `start`'s first key (inclusive) up to `stop`'s first key (exclusive). */
  static between(start: KeyRange, stop: KeyRange): KeyRange {
    if (start.ranges.length !== stop.ranges.length) throw new RangeError("ranges of different tables");
    return new KeyRange(start.ranges.map((a, i) => [a[0], stop.ranges[i]?.[0] ?? null] as const));
  }
}

export interface ScanOptions {
  /** Descending key order. */
  reversed?: boolean;
  /** At most this many rows. */
  limit?: number;
  /** Rows per round trip (default 256). */
  batch?: number;
}

function cellsOf(r: tt.TResult): Cells {
  const out: Cells = new Map();
  for (const c of r.columnValues ?? []) {
    const family = Buffer.from(c.family);
    const qualifier = Buffer.from(c.qualifier);
    out.set(`${family.toString("hex")}:${qualifier.toString("hex")}`, { family, qualifier, value: Buffer.from(c.value) });
  }
  return out;
}

/** A row's cells ordered by family, then qualifier (bytewise). */
export function sortedCells(cells: Cells): { family: Buffer; qualifier: Buffer; value: Buffer }[] {
  return [...cells.values()].sort((a, b) => Buffer.compare(a.family, b.family) || Buffer.compare(a.qualifier, b.qualifier));
}

function i64(v: bigint): Int64 {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return new Int64(b);
}

type Row = [row: Buffer, cells: Cells];

/** Row-level Thrift2 calls in bytes for one table; generated clients type them. */
export class TableClient {
  private readonly name: Buffer;
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

  async get(row: Buffer): Promise<Cells | undefined> {
    const r = await this.conn.call<tt.TResult>((cb) => this.c.get(this.name, new tt.TGet({ row }), cb));
    const cells = cellsOf(r);
    return cells.size > 0 ? cells : undefined;
  }

  async put(row: Buffer, cells: readonly Cell[]): Promise<void> {
    if (cells.length === 0) return;
    await this.conn.call<void>((cb) => this.c.put(this.name, putOf(row, cells), cb));
  }

  /** Deletes the row, or every version of the given columns. */
  async delete(row: Buffer, columns: readonly (readonly [Buffer, Buffer])[] = []): Promise<void> {
    const cols = columns.length > 0 ? columns.map(([family, qualifier]) => new tt.TColumn({ family, qualifier })) : undefined;
    await this.conn.call<void>((cb) => this.c.deleteSingle(this.name, new tt.TDelete({ row, columns: cols }), cb));
  }

  /** Atomically adds `amount` to a counter cell; returns the new value. */
  async increment(row: Buffer, family: Buffer, qualifier: Buffer, amount: bigint): Promise<bigint> {
    const inc = new tt.TIncrement({ row, columns: [new tt.TColumnIncrement({ family, qualifier, amount: i64(amount) })] });
    const r = await this.conn.call<tt.TResult>((cb) => this.c.increment(this.name, inc, cb));
    for (const c of r.columnValues ?? []) {
      if (family.equals(c.family) && qualifier.equals(c.qualifier) && c.value.length === 8) {
        return Buffer.from(c.value).readBigInt64BE(0);
      }
    }
    throw new ThriftError("the increment returned no value");
  }

  /** Puts `cells` if the cell holds `expected` (null: if it is absent); true if it did. */
  checkAndPut(row: Buffer, family: Buffer, qualifier: Buffer, expected: Buffer | null, cells: readonly Cell[]): Promise<boolean> {
    const value = expected as Buffer; // null is sent as an absent value: "the cell must not exist"
    return this.conn.call<boolean>((cb) => this.c.checkAndPut(this.name, row, family, qualifier, value, putOf(row, cells), cb));
  }

  /** Rows in `keys`, in key order (descending if reversed): one scanner per range, merged. */
  async *scan(keys: KeyRange, options: ScanOptions = {}): AsyncGenerator<Row, void, undefined> {
    const { reversed = false, limit } = options;
    if (limit !== undefined && limit <= 0) return;
    const size = Math.max(1, Math.min(options.batch ?? 256, limit ?? 256));
    const scans = keys.ranges.map(([start, stop]) => this.rangeScan(start, stop, reversed, size));
    let n = 0;
    try {
      for await (const row of merge(scans, reversed)) {
        yield row;
        if (limit !== undefined && ++n >= limit) return;
      }
    } finally {
      await Promise.all(scans.map((s) => s.return(undefined)));
    }
  }

  /** One range's scanner, read lazily in batches. */
  private async *rangeScan(start: Buffer, stop: Buffer | null, reversed: boolean, batch: number): AsyncGenerator<Row, void, undefined> {
    // Reversed: the scanner's start row is the upper bound (inclusive) and its stop row the
    // lower bound (exclusive); the bounds are trimmed to [start, stop) here.
    const scan = reversed
      ? new tt.TScan({
          startRow: stop ?? undefined,
          stopRow: start.length > 0 ? start.subarray(0, start.length - 1) : undefined,
          reversed: true,
          caching: batch,
        })
      : new tt.TScan({ startRow: start.length > 0 ? start : undefined, stopRow: stop ?? undefined, caching: batch });
    const id = await this.conn.call<number>((cb) => this.c.openScanner(this.name, scan, cb));
    try {
      for (;;) {
        const rows = await this.conn.call<tt.TResult[]>((cb) => this.c.getScannerRows(id, batch, cb));
        if (rows.length === 0) return;
        for (const r of rows) {
          const row = Buffer.from(r.row ?? Buffer.alloc(0));
          if (stop !== null && Buffer.compare(row, stop) >= 0) continue;
          if (Buffer.compare(row, start) < 0) {
            if (reversed) return;
            continue;
          }
          yield [row, cellsOf(r)];
        }
      }
    } finally {
      await this.conn.call<void>((cb) => this.c.closeScanner(id, cb)).catch(() => undefined);
    }
  }
}

/** Merges sorted row streams into one, in key order (descending if reversed). */
async function* merge(scans: AsyncGenerator<Row, void, undefined>[], reversed: boolean): AsyncGenerator<Row, void, undefined> {
  if (scans.length === 1) {
    yield* scans[0] as AsyncGenerator<Row, void, undefined>;
    return;
  }
  const heads = await Promise.all(scans.map((s) => s.next()));
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i] as IteratorResult<Row, void>;
      if (h.done) continue;
      const b = heads[best]?.value as Row | undefined;
      if (best < 0 || (b !== undefined && Buffer.compare(h.value[0], b[0]) * (reversed ? -1 : 1) < 0)) best = i;
    }
    if (best < 0) return;
    const chosen = heads[best] as IteratorYieldResult<Row>;
    yield chosen.value;
    heads[best] = await (scans[best] as AsyncGenerator<Row, void, undefined>).next();
  }
}

function putOf(row: Buffer, cells: readonly Cell[]): tt.TPut {
  return new tt.TPut({
    row,
    columnValues: cells.map(([family, qualifier, value]) => new tt.TColumnValue({ family, qualifier, value })),
  });
}
