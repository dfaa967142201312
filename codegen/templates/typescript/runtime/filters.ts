/**
 * Typed scan filters rendered to HBase's filter language (the bytes sent as TScan.filterString),
 * so the same filter runs on redbase and on a real HBase cluster. The rendering is fixed and
 * shared by every redbase SDK (sdks/vectors/filters.json checks it byte for byte).
 */

/** A filter that cannot be rendered: no operands, a pattern column, a bad page size. */
export class FilterError extends Error {
  override name = "FilterError";
}

/** Comparison operators of a value filter, as HBase's filter language spells them. */
export type CompareOp = "=" | "!=" | "<" | "<=" | ">" | ">=";

const OPS: readonly CompareOp[] = ["=", "!=", "<", "<=", ">", ">="];

/** What a value filter needs of a column: its cell coordinates and codec. */
export interface ComparableColumn<T> {
  readonly field: string;
  readonly family: Buffer;
  readonly qualifier: Buffer;
  readonly codec: { encode(value: T): Buffer };
}

/** A quoted literal: the bytes as they are, each `'` doubled. */
function literal(bytes: Uint8Array): Buffer {
  const out: number[] = [0x27];
  for (const b of bytes) {
    out.push(b);
    if (b === 0x27) out.push(0x27);
  }
  out.push(0x27);
  return Buffer.from(out);
}

const text = (s: string): Buffer => Buffer.from(s, "utf8");

/** A non-negative i64 as decimal text (`what` names it in errors). */
function nonNegative(n: bigint | number, what: string): string {
  const v = typeof n === "bigint" ? n : typeof n === "number" && Number.isSafeInteger(n) ? BigInt(n) : null;
  if (v === null || v > (1n << 63n) - 1n) throw new FilterError(`${what} must be an integer from 0 to 2^63-1, not ${String(n)}`);
  if (v < 0n) throw new FilterError(`${what} must not be negative, got ${String(n)}`);
  return v.toString();
}

/** One filter, immutable; combine with `Filter.all` / `Filter.any` (or `.and` / `.or`). */
export class Filter {
  private constructor(
    /** The filter in HBase's filter language, exactly as sent. */
    readonly bytes: Buffer,
  ) {}

  /** Filter text from raw bytes, for filters this builder has no method for. */
  static raw(bytes: Uint8Array | string): Filter {
    return new Filter(typeof bytes === "string" ? text(bytes) : Buffer.from(bytes));
  }

  /**
   * Rows whose `column` compares to `operand` as `op` says, the operand encoded with the
   * column's codec (HBase compares the bytes). Rows without the cell are left out.
   */
  static value<T>(column: ComparableColumn<T>, op: CompareOp, operand: T): Filter {
    if (!(column.qualifier instanceof Buffer)) {
      throw new FilterError(`${column.field} is a pattern column: value filters take plain columns only`);
    }
    if (!OPS.includes(op)) throw new FilterError(`unknown comparison ${String(op)}: use one of ${OPS.join(" ")}`);
    let operandBytes: Buffer;
    try {
      operandBytes = column.codec.encode(operand);
    } catch (e) {
      throw new FilterError(`${column.field}: the operand ${String(operand)} does not fit the column (${(e as Error).message})`);
    }
    return new Filter(
      Buffer.concat([
        text("SingleColumnValueFilter("),
        literal(column.family),
        text(", "),
        literal(column.qualifier),
        text(`, ${op}, `),
        literal(Buffer.concat([text("binary:"), operandBytes])),
        text(", true, true)"),
      ]),
    );
  }

  /** Rows whose key starts with `prefix` (tables render their typed prefix through this). */
  static prefix(prefix: Uint8Array): Filter {
    return new Filter(Buffer.concat([text("PrefixFilter("), literal(prefix), text(")")]));
  }

  /** At most `n` rows per region scanner (HBase's PageFilter). */
  static page(n: number | bigint): Filter {
    return new Filter(text(`PageFilter(${nonNegative(n, "a page size")})`));
  }

  /** Keys only: every cell's value comes back empty. */
  static keyOnly(): Filter {
    return new Filter(text("KeyOnlyFilter()"));
  }

  /** The first cell of each row only (cheap row counting). */
  static firstKeyOnly(): Filter {
    return new Filter(text("FirstKeyOnlyFilter()"));
  }

  /** Only cells with one of these timestamps. */
  static timestamps(timestamps: readonly (bigint | number)[]): Filter {
    if (timestamps.length === 0) throw new FilterError("a timestamps filter needs at least one timestamp");
    return new Filter(text(`TimestampsFilter(${timestamps.map((t) => nonNegative(t, "a timestamp")).join(", ")})`));
  }

  /** Only cells whose qualifier starts with `prefix`. */
  static columnPrefix(prefix: Uint8Array | string): Filter {
    const bytes = typeof prefix === "string" ? text(prefix) : prefix;
    return new Filter(Buffer.concat([text("ColumnPrefixFilter("), literal(bytes), text(")")]));
  }

  /** Rows every filter passes: `(A) AND (B)`; one filter is itself. */
  static all(...filters: readonly Filter[]): Filter {
    return Filter.combine(" AND ", filters, "all");
  }

  /** Rows any filter passes: `(A) OR (B)`; one filter is itself. */
  static any(...filters: readonly Filter[]): Filter {
    return Filter.combine(" OR ", filters, "any");
  }

  and(...others: readonly Filter[]): Filter {
    return Filter.all(this, ...others);
  }

  or(...others: readonly Filter[]): Filter {
    return Filter.any(this, ...others);
  }

  private static combine(joiner: string, filters: readonly Filter[], what: string): Filter {
    if (filters.length === 0) throw new FilterError(`${what}() needs at least one filter`);
    for (const f of filters) {
      if (!(f instanceof Filter)) throw new FilterError(`${what}() takes Filter values, not ${String(f)}`);
    }
    if (filters.length === 1) return filters[0] as Filter;
    const parts: Buffer[] = [];
    filters.forEach((f, i) => {
      if (i > 0) parts.push(text(joiner));
      parts.push(text("("), f.bytes, text(")"));
    });
    return new Filter(Buffer.concat(parts));
  }

  /** The filter text, bytes outside UTF-8 replaced (for logs; `bytes` is what is sent). */
  toString(): string {
    return this.bytes.toString("utf8");
  }
}
