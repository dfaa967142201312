/**
 * Scans over Thrift2 scanners: one scanner per key range (one per salt bucket on salted tables),
 * read lazily in round trips of `caching` rows and merged in key order. Partial rows (HBase
 * splits a row into several results when `batchSize` caps the cells per result) are joined
 * back into one row.
 */

import * as THBaseService from "../../thrift/THBaseService";
import * as tt from "../../thrift/hbase2_types";
import { Connection, RawRow, StoredCell } from "./connection";

/** What one scan asks the server for, ready for TScan (the typed layer fills it in). */
export interface ScanRequest {
  readonly ranges: readonly (readonly [start: Buffer, stop: Buffer | null])[];
  readonly reversed: boolean;
  readonly limit?: number;
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

/** Rows of every range, in key order (descending if reversed), at most `limit`. */
export async function* scanRows(conn: Connection, table: Buffer, req: ScanRequest): AsyncGenerator<RawRow, void, undefined> {
  const { limit } = req;
  if (limit !== undefined && limit <= 0) return;
  const scans = req.ranges.map(([start, stop]) => rangeScan(conn, table, req, start, stop));
  let n = 0;
  try {
    for await (const row of merge(scans, req.reversed)) {
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

/** Merges sorted row streams into one, in key order (descending if reversed). */
async function* merge(scans: AsyncGenerator<RawRow, void, undefined>[], reversed: boolean): AsyncGenerator<RawRow, void, undefined> {
  if (scans.length === 1) {
    yield* scans[0] as AsyncGenerator<RawRow, void, undefined>;
    return;
  }
  const heads = await Promise.all(scans.map((s) => s.next()));
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i] as IteratorResult<RawRow, void>;
      if (h.done) continue;
      const b = heads[best]?.value as RawRow | undefined;
      if (best < 0 || (b !== undefined && Buffer.compare(h.value.row, b.row) * (reversed ? -1 : 1) < 0)) best = i;
    }
    if (best < 0) return;
    const chosen = heads[best] as IteratorYieldResult<RawRow>;
    yield chosen.value;
    heads[best] = await (scans[best] as AsyncGenerator<RawRow, void, undefined>).next();
  }
}
