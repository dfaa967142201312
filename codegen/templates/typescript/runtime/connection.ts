/**
 * One Thrift2 connection (Apache `thrift` runtime, binary protocol, buffered or framed
 * transport) and the conversions every call shares: timestamps as bigint, cells read back with
 * their timestamps, the typed errors of the wire.
 */

import * as thrift from "thrift";
import Int64 = require("node-int64");
import * as THBaseService from "../../thrift/THBaseService";

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

/** A cell timestamp in ms since the epoch; `number` is accepted where it is an exact integer. */
export type Timestamp = bigint | number;

const I64_MAX = (1n << 63n) - 1n;

/** A timestamp as a checked bigint: an integer from 0 to 2^63-1 (`what` names it in errors). */
export function timestampOf(t: Timestamp, what = "timestamp"): bigint {
  const v = typeof t === "bigint" ? t : typeof t === "number" && Number.isSafeInteger(t) ? BigInt(t) : null;
  if (v === null || v < 0n || v > I64_MAX) {
    throw new RangeError(`${what} must be an integer from 0 to 2^63-1 (ms since the epoch), not ${String(t)}`);
  }
  return v;
}

/** A bigint as Thrift's i64. */
export function int64(v: bigint): Int64 {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt.asIntN(64, v));
  return new Int64(b);
}

/** Thrift's i64 as a bigint. */
export function bigintOf(v: Int64): bigint {
  return v.buffer.readBigInt64BE(v.offset);
}

/** (family, qualifier, value) of one cell to write. */
export type Cell = readonly [family: Buffer, qualifier: Buffer, value: Buffer];

/** One cell read back, with the timestamp the server stored it at. */
export interface StoredCell {
  readonly family: Buffer;
  readonly qualifier: Buffer;
  readonly value: Buffer;
  readonly timestamp: bigint;
}

/** A row read back: its key and every cell returned (per column, newest first). */
export interface RawRow {
  readonly row: Buffer;
  readonly cells: readonly StoredCell[];
}
