/**
 * Batched writes: Thrift2 `putMultiple` / `deleteMultiple` in chunks bounded by rows and by
 * cell bytes, and one `increment` per row. When a chunk call fails its rows are retried one by
 * one, so the error names exactly the rows the server refused; rows that succeeded stay
 * written.
 */

import * as THBaseService from "../../thrift/THBaseService";
import * as tt from "../../thrift/hbase2_types";
import { Cell, Connection, StoredCell, ThriftError, int64 } from "./connection";

/** One row a batch could not write: its index in the input, its key and the server's message. */
export interface RowFailure {
  readonly index: number;
  readonly row: Buffer;
  readonly message: string;
}

/** Some rows of a batch failed; every other row was written. */
export class BatchError extends Error {
  override name = "BatchError";

  constructor(
    /** Every failed row, in input order. */
    readonly failures: readonly RowFailure[],
    /** How many rows the batch had. */
    readonly total: number,
  ) {
    const shown = failures.slice(0, 3).map((f) => `#${f.index} (${printable(f.row)}): ${f.message}`);
    const more = failures.length > shown.length ? `; and ${failures.length - shown.length} more` : "";
    super(`${failures.length} of ${total} rows failed: ${shown.join("; ")}${more}`);
  }
}

/** A row key for messages: printable ASCII as is, other bytes as \xNN. */
export function printable(row: Uint8Array): string {
  return Array.from(row, (b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`)).join("");
}

/** How a batch is cut into calls. */
export interface ChunkOptions {
  /** Rows per call (default 1,000). */
  readonly chunkRows?: number;
  /** Cell bytes (keys, qualifiers, values) per call (default 4 MiB); a bigger row goes alone. */
  readonly chunkBytes?: number;
}

export const DEFAULT_CHUNK_ROWS = 1000;
export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;

function positive(n: number | undefined, fallback: number, what: string): number {
  if (n === undefined) return fallback;
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${what} must be a positive integer, not ${String(n)}`);
  return n;
}

/** A put ready to send: key, cells and optional timestamp. */
export interface PutRow {
  readonly row: Buffer;
  readonly cells: readonly Cell[];
  readonly timestamp?: bigint;
}

/** A delete ready to send: key, optional columns (family, qualifier?) and timestamp. */
export interface DeleteRow {
  readonly row: Buffer;
  readonly columns?: readonly (readonly [family: Buffer, qualifier?: Buffer])[];
  readonly timestamp?: bigint;
}

export function putOf(p: PutRow): tt.TPut {
  return new tt.TPut({
    row: p.row,
    columnValues: p.cells.map(([family, qualifier, value]) => new tt.TColumnValue({ family, qualifier, value })),
    timestamp: p.timestamp === undefined ? undefined : int64(p.timestamp),
  });
}

export function deleteOf(d: DeleteRow): tt.TDelete {
  const columns = d.columns?.length ? d.columns.map(([family, qualifier]) => new tt.TColumn({ family, qualifier })) : undefined;
  return new tt.TDelete({ row: d.row, columns, timestamp: d.timestamp === undefined ? undefined : int64(d.timestamp) });
}

export function putBytes(p: PutRow): number {
  return p.cells.reduce((n, [f, q, v]) => n + p.row.length + f.length + q.length + v.length, 0) || p.row.length;
}

/** Cuts `items` into runs of at most `rows` items and `bytes` bytes (a bigger item goes alone). */
function chunks<T>(items: readonly T[], size: (item: T) => number, options: ChunkOptions): T[][] {
  const maxRows = positive(options.chunkRows, DEFAULT_CHUNK_ROWS, "chunkRows");
  const maxBytes = positive(options.chunkBytes, DEFAULT_CHUNK_BYTES, "chunkBytes");
  const out: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const n = size(item);
    if (current.length > 0 && (current.length >= maxRows || bytes + n > maxBytes)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Sends `items` in chunks with `many`; a failed chunk is retried row by row with `one`.
 * Throws one BatchError listing every row that failed, by its index in the caller's input.
 */
async function chunked<T extends { row: Buffer }>(
  items: readonly (readonly [index: number, item: T])[],
  total: number,
  size: (item: T) => number,
  options: ChunkOptions,
  many: (chunk: T[]) => Promise<unknown>,
  one: (item: T) => Promise<unknown>,
): Promise<void> {
  const failures: RowFailure[] = [];
  for (const chunk of chunks(items, ([, item]) => size(item), options)) {
    try {
      await many(chunk.map(([, item]) => item));
    } catch (e) {
      if (!(e instanceof ThriftError)) throw e;
      // One call per row, pipelined on the connection, to learn which rows the server refuses.
      const results = await Promise.allSettled(chunk.map(([, item]) => one(item)));
      results.forEach((r, i) => {
        const [index, item] = chunk[i] as readonly [number, T];
        if (r.status === "rejected") failures.push({ index, row: item.row, message: message(r.reason) });
      });
    }
  }
  if (failures.length > 0) throw new BatchError(failures, total);
}

/** Puts every row (rows without cells send nothing); see `chunked` for errors. */
export async function putMany(conn: Connection, table: Buffer, rows: readonly PutRow[], options: ChunkOptions = {}): Promise<void> {
  const c: THBaseService.Client = conn.client;
  const items = rows.map((r, i) => [i, r] as const).filter(([, r]) => r.cells.length > 0);
  await chunked(
    items,
    rows.length,
    putBytes,
    options,
    (chunk) => conn.call<void>((cb) => c.putMultiple(table, chunk.map(putOf), cb)),
    (item) => conn.call<void>((cb) => c.put(table, putOf(item), cb)),
  );
}

export async function deleteMany(conn: Connection, table: Buffer, rows: readonly DeleteRow[], options: ChunkOptions = {}): Promise<void> {
  const c: THBaseService.Client = conn.client;
  await chunked(
    rows.map((r, i) => [i, r] as const),
    rows.length,
    (d) => d.row.length,
    options,
    (chunk) => conn.call<tt.TDelete[]>((cb) => c.deleteMultiple(table, chunk.map(deleteOf), cb)),
    (item) => conn.call<void>((cb) => c.deleteSingle(table, deleteOf(item), cb)),
  );
}

/** Counters of one row to add to: (family, qualifier, amount). */
export interface IncrementRow {
  readonly row: Buffer;
  readonly counters: readonly (readonly [family: Buffer, qualifier: Buffer, amount: bigint])[];
}

/** Reads the cells of an increment's result. */
export type ResultCells = (r: tt.TResult) => StoredCell[];

/**
 * One `increment` per row (Thrift2 has no multi-row increment), pipelined in windows of
 * `chunkRows`; returns each row's counters after the increment. A BatchError lists the rows
 * that failed and carries the results of the others.
 */
export async function incrementMany(
  conn: Connection,
  table: Buffer,
  rows: readonly IncrementRow[],
  cells: ResultCells,
  options: ChunkOptions = {},
): Promise<StoredCell[][]> {
  const c: THBaseService.Client = conn.client;
  const window = positive(options.chunkRows, DEFAULT_CHUNK_ROWS, "chunkRows");
  const results: StoredCell[][] = rows.map(() => []);
  const failures: RowFailure[] = [];
  for (let first = 0; first < rows.length; first += window) {
    const part = rows.slice(first, first + window);
    const settled = await Promise.allSettled(
      part.map((r) => {
        if (r.counters.length === 0) return Promise.resolve([]);
        const inc = new tt.TIncrement({
          row: r.row,
          columns: r.counters.map(([family, qualifier, amount]) => new tt.TColumnIncrement({ family, qualifier, amount: int64(amount) })),
        });
        return conn.call<tt.TResult>((cb) => c.increment(table, inc, cb)).then(cells);
      }),
    );
    settled.forEach((s, i) => {
      if (s.status === "fulfilled") results[first + i] = s.value;
      else failures.push({ index: first + i, row: (part[i] as IncrementRow).row, message: message(s.reason) });
    });
  }
  if (failures.length > 0) throw new IncrementBatchError(failures, rows.length, results);
  return results;
}

/** Some increments of a batch failed; `results` holds the counters of the rows that did not. */
export class IncrementBatchError<R = StoredCell[]> extends BatchError {
  override name = "IncrementBatchError";

  constructor(
    failures: readonly RowFailure[],
    total: number,
    /** Per input row: its counters after the increment (empty for the rows that failed). */
    readonly results: readonly R[],
  ) {
    super(failures, total);
  }
}
