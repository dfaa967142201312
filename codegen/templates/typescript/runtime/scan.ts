/**
 * Scans over Thrift2 scanners: one scanner per key range (one per salt bucket on salted tables),
 * read lazily in round trips of `caching` rows and merged by the key without its salt, so a
 * salted table reads in its unsalted design's order (docs/schema.md, "Salted scans"). Partial
 * rows (HBase splits a row into several results when `batchSize` caps the cells per result)
 * are joined back into one row.
 */

import * as THBaseService from "../../thrift/THBaseService";
import * as tt from "../../thrift/hbase2_types";
import { Connection, RawRow, StoredCell } from "./connection";

/** What one scan asks the server for, ready for TScan (the typed layer fills it in). */
export interface ScanRequest {
  readonly ranges: readonly (readonly [start: Buffer, stop: Buffer | null])[];
  readonly reversed: boolean;
  readonly limit?: number;
  /** Bytes of salt at the start of every key (0 unsalted): the merge compares what follows. */
  readonly saltWidth: number;
  /** One bucket after the other (the last first when reversed) instead of merged. */
  readonly bucketOrder?: boolean;
  /** Rows per round trip (TScan.caching and getScannerRows' count). */
  readonly caching: number;
  /** Cells per result (TScan.batchSize); partial results are joined into rows. */
  readonly batchSize?: number;
  readonly columns?: tt.TColumn[];
  readonly filter?: Buffer;
  readonly maxVersions?: number;
  readonly timeRange?: tt.TTimeRange;
  /** Drops cells the selection did not ask for (pattern columns select whole families). */
  readonly cells: (r: tt.TResult) => StoredCell[];
}

/** Rows of every range, merged (see `pick`), at most `limit`. */
export async function* scanRows(conn: Connection, table: Buffer, req: ScanRequest): AsyncGenerator<RawRow, void, undefined> {
  const { limit } = req;
  if (limit !== undefined && limit <= 0) return;
  const scans = req.ranges.map(([start, stop]) => rangeScan(conn, table, req, start, stop));
  let n = 0;
  try {
    for await (const row of merge(scans, req)) {
      yield row;
      if (limit !== undefined && ++n >= limit) return;
    }
  } finally {
    await Promise.all(scans.map((s) => s.return(undefined)));
  }
}

/** One range's scanner, read lazily in round trips of `caching` rows. */
async function* rangeScan(conn: Connection, table: Buffer, req: ScanRequest, start: Buffer, stop: Buffer | null): AsyncGenerator<RawRow, void, undefined> {
  const c: THBaseService.Client = conn.client;
  const caching = Math.max(1, Math.min(req.caching, req.limit ?? req.caching));
  const common = {
    caching,
    batchSize: req.batchSize,
    columns: req.columns,
    filterString: req.filter,
    maxVersions: req.maxVersions,
    timeRange: req.timeRange,
  };
  // Reversed: the scanner's start row is the upper bound (inclusive) and its stop row the
  // lower bound (exclusive); the bounds are trimmed to [start, stop) here.
  const scan = req.reversed
    ? new tt.TScan({
        ...common,
        startRow: stop ?? undefined,
        stopRow: start.length > 0 ? start.subarray(0, start.length - 1) : undefined,
        reversed: true,
      })
    : new tt.TScan({ ...common, startRow: start.length > 0 ? start : undefined, stopRow: stop ?? undefined });
  const id = await conn.call<number>((cb) => c.openScanner(table, scan, cb));
  let pending: { row: Buffer; cells: StoredCell[] } | null = null;
  try {
    read: for (;;) {
      const results = await conn.call<tt.TResult[]>((cb) => c.getScannerRows(id, caching, cb));
      if (results.length === 0) break;
      for (const r of results) {
        const row = Buffer.from(r.row ?? Buffer.alloc(0));
        if (stop !== null && Buffer.compare(row, stop) >= 0) continue;
        if (Buffer.compare(row, start) < 0) {
          if (req.reversed) break read;
          continue;
        }
        if (pending !== null && pending.row.equals(row)) {
          pending.cells.push(...req.cells(r));
          continue;
        }
        if (pending !== null) yield pending;
        pending = { row, cells: req.cells(r) };
      }
    }
    if (pending !== null) yield pending;
  } finally {
    await conn.call<void>((cb) => c.closeScanner(id, cb)).catch(() => undefined);
  }
}

/** How a scan orders the rows of its buckets' scanners. */
interface MergeOrder {
  readonly saltWidth: number;
  readonly reversed: boolean;
  readonly bucketOrder?: boolean;
}

/**
 * The bucket whose head row comes next (-1: none left; `undefined` heads are done buckets):
 * the smallest key after its first `saltWidth` bytes, ties to the lower bucket; reversed, the
 * largest, ties to the higher bucket (exactly the reverse order). With `bucketOrder`, the
 * first bucket not done (the last first when reversed).
 */
function pick(heads: readonly (Buffer | undefined)[], o: MergeOrder): number {
  const n = heads.length;
  if (o.bucketOrder) {
    for (let k = 0; k < n; k++) {
      const i = o.reversed ? n - 1 - k : k;
      if (heads[i] !== undefined) return i;
    }
    return -1;
  }
  let best = -1;
  for (let i = 0; i < n; i++) {
    const h = heads[i];
    if (h === undefined) continue;
    if (best >= 0) {
      const c = Buffer.compare(h.subarray(o.saltWidth), (heads[best] as Buffer).subarray(o.saltWidth));
      if (o.reversed ? c < 0 : c >= 0) continue;
    }
    best = i;
  }
  return best;
}

/**
 * The order a scan yields rows in, over rows already read: `buckets[i]` holds bucket i's rows
 * as its scanner returns them (ascending, or descending when reversed). Scans pick rows the
 * same way; the shared vectors (sdks/vectors/merge.json) check it.
 */
export function mergeRows(buckets: readonly (readonly Buffer[])[], order: MergeOrder & { readonly limit?: number }): Buffer[] {
  const pos = buckets.map(() => 0);
  const out: Buffer[] = [];
  while (order.limit === undefined || out.length < order.limit) {
    const i = pick(buckets.map((b, j) => b[pos[j] as number]), order);
    if (i < 0) break;
    out.push((buckets[i] as readonly Buffer[])[(pos[i] as number)++] as Buffer);
  }
  return out;
}

/**
 * Merges the buckets' row streams (see `pick`). A stream's first row is fetched only when it
 * is needed, so in bucket order one scanner is open at a time.
 */
async function* merge(scans: AsyncGenerator<RawRow, void, undefined>[], order: MergeOrder): AsyncGenerator<RawRow, void, undefined> {
  if (scans.length === 1) {
    yield* scans[0] as AsyncGenerator<RawRow, void, undefined>;
    return;
  }
  const heads: (RawRow | undefined)[] = scans.map(() => undefined);
  const done = scans.map(() => false);
  const fill = async (i: number): Promise<void> => {
    if (heads[i] !== undefined || done[i]) return;
    const r = await (scans[i] as AsyncGenerator<RawRow, void, undefined>).next();
    if (r.done) done[i] = true;
    else heads[i] = r.value;
  };
  for (;;) {
    if (order.bucketOrder) {
      // Only the current bucket: the next one is opened once this one is done.
      const n = scans.length;
      for (let k = 0; k < n; k++) {
        const i = order.reversed ? n - 1 - k : k;
        await fill(i);
        if (heads[i] !== undefined) break;
      }
    } else {
      await Promise.all(scans.map((_, i) => fill(i)));
    }
    const best = pick(heads.map((h) => h?.row), order);
    if (best < 0) return;
    yield heads[best] as RawRow;
    heads[best] = undefined;
  }
}
