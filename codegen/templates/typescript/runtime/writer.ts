/**
 * A buffered writer: puts, deletes and increments collected in memory and sent in batches when
 * the buffer reaches its row or byte bound, when `flushIntervalMs` has passed since the first
 * buffered write (a timer, even if no further call comes), on `flush()` and on `close()`.
 * One flush runs at a time. Writes to one row keep their order; increments of the same
 * (row, counter) buffered together are summed into one. A put or increment of a row whose
 * delete (at the server's clock) was acknowledged less than `DELETE_SETTLE_MS` before waits out
 * the rest of it.
 */

import { BatchError, ChunkOptions, DeleteRow, IncrementRow, PutRow, deleteMany, incrementMany, putBytes, putMany } from "./batch";
import { Connection } from "./connection";

/**
 * How long a writer lets pass after the server acknowledged a row's delete before it sends a
 * put or increment of that row. The server stamps both with its clock's millisecond and a
 * delete marker hides every cell at or before its own stamp (HBase's rule), so a put landing
 * in the delete's millisecond would vanish. One millisecond suffices on a steady clock; two
 * leave room for a clock being slewed.
 */
export const DELETE_SETTLE_MS = 2;

/** Bounds of a buffered writer. */
export interface WriterOptions {
  /** Flush when this many writes are buffered (default 1,000). */
  readonly maxRows?: number;
  /** Flush when the buffered cells reach this many bytes (default 4 MiB). */
  readonly maxBytes?: number;
  /** Flush this long after the first buffered write (default 1,000 ms; 0: only by size). */
  readonly flushIntervalMs?: number;
}

type Segment =
  | { kind: "put"; rows: PutRow[]; keys: Set<string> }
  | { kind: "delete"; rows: DeleteRow[]; keys: Set<string> }
  | { kind: "increment"; rows: Map<string, { row: Buffer; counters: Map<string, [Buffer, Buffer, bigint]> }>; keys: Set<string> };

/** Writes a segment sends: its puts or deletes, or its rows of (summed) increments. */
function size(s: Segment): number {
  return s.kind === "increment" ? s.rows.size : s.rows.length;
}

function bound(n: number | undefined, fallback: number, what: string, zero = false): number {
  if (n === undefined) return fallback;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0 || (n === 0 && !zero)) {
    throw new RangeError(`${what} must be a ${zero ? "non-negative" : "positive"} integer, not ${String(n)}`);
  }
  return n;
}

/** The writes of one buffered writer, in bytes; generated tables wrap it with typed methods. */
export class BufferedWriter {
  private segments: Segment[] = [];
  private rows = 0;
  private bytes = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private closed = false;
  /** Rows (hex) of recent deletes stamped by the server: when they were acknowledged. */
  private deleted = new Map<string, number>();
  private readonly maxRows: number;
  private readonly maxBytes: number;
  private readonly interval: number;

  constructor(
    private readonly conn: Connection,
    private readonly table: Buffer,
    options: WriterOptions = {},
    private readonly chunk: ChunkOptions = {},
  ) {
    this.maxRows = bound(options.maxRows, 1000, "maxRows");
    this.maxBytes = bound(options.maxBytes, 4 * 1024 * 1024, "maxBytes");
    this.interval = bound(options.flushIntervalMs, 1000, "flushIntervalMs", true);
  }

  /** Buffers a put. */
  put(p: PutRow): Promise<void> {
    return this.add("put", p.row, putBytes(p), (s) => (s as Extract<Segment, { kind: "put" }>).rows.push(p));
  }

  /** Buffers a delete. */
  delete(d: DeleteRow): Promise<void> {
    return this.add("delete", d.row, d.row.length, (s) => (s as Extract<Segment, { kind: "delete" }>).rows.push(d));
  }

  /** Buffers increments of one row; amounts for a (row, counter) already buffered are summed. */
  increment(inc: IncrementRow): Promise<void> {
    const size = inc.counters.reduce((n, [f, q]) => n + inc.row.length + f.length + q.length + 8, 0);
    return this.add("increment", inc.row, size, (s) => {
      const rows = (s as Extract<Segment, { kind: "increment" }>).rows;
      const key = inc.row.toString("hex");
      let entry = rows.get(key);
      if (entry === undefined) {
        entry = { row: inc.row, counters: new Map() };
        rows.set(key, entry);
      }
      for (const [family, qualifier, amount] of inc.counters) {
        const k = `${family.toString("hex")}:${qualifier.toString("hex")}`;
        const prev = entry.counters.get(k);
        entry.counters.set(k, [family, qualifier, (prev?.[2] ?? 0n) + amount]);
      }
    });
  }

  /** Sends everything buffered; resolves once it is written (rejects with the write's error). */
  async flush(): Promise<void> {
    this.raise();
    await this.startFlush();
    this.raise();
  }

  /** Flushes and closes; later writes are refused. Raises an earlier background failure. */
  async close(): Promise<void> {
    if (this.closed) {
      await this.flushing;
      this.raise();
      return;
    }
    this.closed = true;
    await this.startFlush();
    this.raise();
  }

  /** Writes waiting in the buffer. */
  get pending(): number {
    return this.rows;
  }

  private raise(): void {
    if (this.failure !== null) {
      const e = this.failure;
      this.failure = null;
      throw e;
    }
  }

  private async add(kind: Segment["kind"], row: Buffer, size: number, push: (s: Segment) => void): Promise<void> {
    if (this.closed) throw new Error("the writer is closed");
    this.raise();
    const key = row.toString("hex");
    // Join the newest segment of this kind unless a later segment touches the same row: then
    // this write must come after that one, in a segment of its own.
    let target: Segment | undefined;
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const s = this.segments[i] as Segment;
      if (s.kind === kind) {
        target = s;
        break;
      }
      if (s.keys.has(key)) break;
    }
    const segment: Segment = target ?? (kind === "increment" ? { kind, rows: new Map(), keys: new Set() } : { kind, rows: [], keys: new Set() });
    if (target === undefined) this.segments.push(segment);
    push(segment);
    segment.keys.add(key);
    this.rows++;
    this.bytes += size;
    if (this.rows >= this.maxRows || this.bytes >= this.maxBytes) {
      await this.startFlush();
      this.raise();
    } else if (this.timer === null && this.interval > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        // A failure here is kept and raised by the next call or by close().
        void this.startFlush();
      }, this.interval);
    }
  }

  /** Takes the buffer and queues its sending after any flush already running. */
  private startFlush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const segments = this.segments;
    this.segments = [];
    this.rows = 0;
    this.bytes = 0;
    this.flushing = this.flushing.then(async () => {
      // Failure indexes count through the writes of this flush, in the order they were sent.
      const total = segments.reduce((n, s) => n + size(s), 0);
      let offset = 0;
      try {
        for (const s of segments) {
          await this.send(s).catch((e: unknown) => {
            if (!(e instanceof BatchError)) throw e;
            throw new BatchError(
              e.failures.map((f) => ({ ...f, index: f.index + offset })),
              total,
            );
          });
          offset += size(s);
        }
      } catch (e) {
        // The first failure is kept until a call raises it; later flushes still send.
        this.failure ??= e;
      }
    });
    return this.flushing;
  }

  private async send(s: Segment): Promise<void> {
    if (s.kind !== "delete") await this.settle(s.keys);
    if (s.kind === "put") await putMany(this.conn, this.table, s.rows, this.chunk);
    else if (s.kind === "delete") {
      try {
        await deleteMany(this.conn, this.table, s.rows, this.chunk);
      } finally {
        const acked = performance.now();
        for (const d of s.rows) if (d.timestamp === undefined) this.deleted.set(d.row.toString("hex"), acked);
      }
    } else {
      const rows = [...s.rows.values()].map((r) => ({ row: r.row, counters: [...r.counters.values()] }));
      await incrementMany(this.conn, this.table, rows, () => [], this.chunk);
    }
  }

  /** Waits until `DELETE_SETTLE_MS` has passed since any of `keys` was last deleted. */
  private async settle(keys: Set<string>): Promise<void> {
    const now = performance.now();
    let until = now;
    for (const [key, at] of this.deleted) {
      if (now - at >= DELETE_SETTLE_MS) this.deleted.delete(key);
      else if (keys.has(key)) until = Math.max(until, at + DELETE_SETTLE_MS);
    }
    while (performance.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.ceil(until - performance.now()))));
    }
  }
}
