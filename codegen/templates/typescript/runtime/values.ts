/**
 * Cell value encodings, identical to Java HBase's `Bytes` (docs/schema.md, "Value encodings"),
 * and the typed column descriptors generated table modules are built from.
 */

import { timestampOf } from "./connection";
import { Filter } from "./filters";

/** A JSON value as `JSON.parse` returns it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A value that does not fit its column type, or cell bytes that are not of that type. */
export class ValueEncodingError extends Error {
  override name = "ValueEncodingError";
}

/** How one column type turns into cell bytes and back. */
export interface Codec<T> {
  encode(value: T): Buffer;
  decode(bytes: Uint8Array): T;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

function width(b: Uint8Array, n: number, what: string): Buffer {
  if (b.length !== n) throw new ValueEncodingError(`a ${what} value is ${n} bytes, got ${b.length}`);
  return Buffer.from(b.buffer, b.byteOffset, b.length);
}

function utf8(b: Uint8Array): string {
  try {
    return UTF8.decode(b);
  } catch {
    throw new ValueEncodingError("not UTF-8");
  }
}

function checkI32(v: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) {
    throw new ValueEncodingError(`${String(v)} is not an i32`);
  }
  return v;
}

function checkI64(v: bigint): bigint {
  if (typeof v !== "bigint" || v < I64_MIN || v > I64_MAX) throw new ValueEncodingError(`${String(v)} is not an i64`);
  return v;
}

/** Compares strings by Unicode code point, as Rust's and Python's sorted JSON keys are ordered. */
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0) as number);
  const y = Array.from(b, (c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

/** Compact JSON with object keys sorted: the same text in every SDK. */
function canonical(v: Json): string {
  if (v === null) return "null";
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new ValueEncodingError(`not JSON: ${v}`);
    return JSON.stringify(v);
  }
  if (typeof v === "string" || typeof v === "boolean") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (typeof v === "object") {
    const keys = Object.keys(v).sort(byCodePoint);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k] as Json)}`).join(",")}}`;
  }
  throw new ValueEncodingError(`not JSON: ${typeof v}`);
}

/** Refuses a value of another JavaScript type than the column's. */
function typed<T>(v: T, ok: boolean, what: string): T {
  if (!ok) throw new ValueEncodingError(`${typeof v === "string" ? JSON.stringify(v) : String(v)} (${typeof v}) is not a ${what} value`);
  return v;
}

export const string: Codec<string> = {
  encode: (v) => Buffer.from(typed(v, typeof v === "string", "string"), "utf8"),
  decode: utf8,
};

export const bytes: Codec<Uint8Array> = {
  encode: (v) => Buffer.from(typed(v, v instanceof Uint8Array, "bytes")),
  decode: (b) => Buffer.from(b),
};

export const i32: Codec<number> = {
  encode: (v) => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(checkI32(v));
    return b;
  },
  decode: (b) => width(b, 4, "i32").readInt32BE(0),
};

export const i64: Codec<bigint> = {
  encode: (v) => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(checkI64(v));
    return b;
  },
  decode: (b) => width(b, 8, "i64").readBigInt64BE(0),
};

/** A number that fits the float type: f32 refuses finite values that would round to infinity. */
function checkFloat(v: number, bits: 32 | 64): number {
  if (typeof v !== "number") throw new ValueEncodingError(`${String(v)} is not an f${bits}`);
  if (bits === 32 && Number.isFinite(v) && !Number.isFinite(Math.fround(v))) {
    throw new ValueEncodingError(`${v} does not fit f32`);
  }
  return v;
}

export const f32: Codec<number> = {
  encode: (v) => {
    const b = Buffer.alloc(4);
    b.writeFloatBE(checkFloat(v, 32));
    return b;
  },
  decode: (b) => width(b, 4, "f32").readFloatBE(0),
};

export const f64: Codec<number> = {
  encode: (v) => {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(checkFloat(v, 64));
    return b;
  },
  decode: (b) => width(b, 8, "f64").readDoubleBE(0),
};

export const bool: Codec<boolean> = {
  encode: (v) => Buffer.from([typed(v, typeof v === "boolean", "bool") ? 0xff : 0x00]),
  decode: (b) => width(b, 1, "bool")[0] !== 0,
};

export const json: Codec<Json> = {
  encode: (v) => Buffer.from(canonical(v), "utf8"),
  decode: (b) => {
    const text = utf8(b);
    try {
      return JSON.parse(text) as Json;
    } catch (e) {
      throw new ValueEncodingError(`not JSON: ${(e as Error).message}`);
    }
  },
};

/** timestamp-ms and counter are longs. */
export const timestampMs: Codec<bigint> = i64;
export const counter: Codec<bigint> = i64;

/** Every codec by schema type name. */
export const CODECS = {
  string,
  bytes,
  i32,
  i64,
  f32,
  f64,
  bool,
  json,
  "timestamp-ms": timestampMs,
  counter,
} as const;

/** One fixed-qualifier column and its value codec. */
export class Column<T> {
  constructor(
    /** The schema's field name. */
    readonly field: string,
    readonly family: Buffer,
    readonly qualifier: Buffer,
    /** The schema's value type (`counter`, `timestamp-ms`, ...). */
    readonly type: string,
    readonly codec: Codec<T>,
  ) {}

  /** Rows whose cell equals `v` (HBase compares the encoded bytes). */
  eq(v: T): Filter {
    return Filter.value(this, "=", v);
  }

  ne(v: T): Filter {
    return Filter.value(this, "!=", v);
  }

  /** Rows whose cell's bytes sort below `v`'s (numeric order for non-negative numbers). */
  lt(v: T): Filter {
    return Filter.value(this, "<", v);
  }

  le(v: T): Filter {
    return Filter.value(this, "<=", v);
  }

  gt(v: T): Filter {
    return Filter.value(this, ">", v);
  }

  ge(v: T): Filter {
    return Filter.value(this, ">=", v);
  }
}

/** How a pattern column's part is written in, and read from, its qualifier. */
export interface PartCodec<P> {
  text(part: P): string;
  /** The part a qualifier's text holds, or undefined if it holds none. */
  parse(text: string): P | undefined;
}

export const stringPart: PartCodec<string> = { text: (p) => p, parse: (t) => t };

function intText(v: bigint, digits: number | undefined): string {
  if (digits === undefined) return v.toString();
  const t = v.toString().padStart(digits, "0");
  if (v < 0n || t.length > digits) throw new ValueEncodingError(`${v} does not fit ${digits} zero-padded digits`);
  return t;
}

function intParse(text: string, digits: number | undefined): bigint | undefined {
  const re = digits === undefined ? /^-?[0-9]+$/ : /^[0-9]+$/;
  if (!re.test(text) || (digits !== undefined && text.length !== digits)) return undefined;
  return BigInt(text);
}

/** i32 parts, decimal, zero-padded to `digits` (which needs a non-negative part). */
export function i32Part(digits?: number): PartCodec<number> {
  return {
    text: (p) => intText(BigInt(checkI32(p)), digits),
    parse: (t) => {
      const n = intParse(t, digits);
      return n !== undefined && n >= -(2n ** 31n) && n < 2n ** 31n ? Number(n) : undefined;
    },
  };
}

/** i64 parts, decimal, zero-padded to `digits` (which needs a non-negative part). */
export function i64Part(digits?: number): PartCodec<bigint> {
  return {
    text: (p) => intText(checkI64(p), digits),
    parse: (t) => {
      const n = intParse(t, digits);
      return n !== undefined && n >= I64_MIN && n <= I64_MAX ? n : undefined;
    },
  };
}

/** Cells whose qualifier is `prefix{part}suffix`, read as a map from part to value. */
export class PatternColumn<P, T> {
  constructor(
    readonly field: string,
    readonly family: Buffer,
    readonly prefix: Buffer,
    readonly suffix: Buffer,
    readonly type: string,
    /** The part's schema type: `string`, `i32` or `i64`. */
    readonly partType: string,
    readonly part: PartCodec<P>,
    readonly codec: Codec<T>,
  ) {}

  qualifier(part: P): Buffer {
    return Buffer.concat([this.prefix, Buffer.from(this.part.text(part), "utf8"), this.suffix]);
  }

  /** The part of a qualifier of this pattern, or undefined if it is not one. */
  parse(qualifier: Uint8Array): P | undefined {
    const q = Buffer.from(qualifier.buffer, qualifier.byteOffset, qualifier.length);
    if (q.length < this.prefix.length + this.suffix.length) return undefined;
    if (!q.subarray(0, this.prefix.length).equals(this.prefix)) return undefined;
    if (!q.subarray(q.length - this.suffix.length).equals(this.suffix)) return undefined;
    try {
      return this.part.parse(UTF8.decode(q.subarray(this.prefix.length, q.length - this.suffix.length)));
    } catch {
      return undefined;
    }
  }
}

/**
 * A pattern column's cells as writes take them: a Map from part to value, or a plain object
 * whose keys are the parts' text (`{ 201510: 3n }` for an i32 part).
 */
export type PatternInput<P, T> = ReadonlyMap<P, T> | { readonly [part: string]: T };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (typeof v !== "object") return `a ${typeof v}`;
  const name = (Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name === undefined ? "an object" : `a ${name}`;
}

/**
 * A pattern column's entries in part order, so the cells written are always the same. Checked
 * at the boundary, naming the column: a Map, or a plain object whose keys are parts of the
 * column's part type (decimal integers for i32 and i64 parts).
 */
export function sortedEntries<P extends string | number | bigint, T>(
  m: PatternInput<P, T> | undefined,
  column: { readonly field: string; readonly partType: string },
): [P, T][] {
  if (m === undefined) return [];
  let entries: [P, T][];
  if (m instanceof Map) {
    entries = [...(m as ReadonlyMap<P, T>).entries()];
  } else if (isPlainObject(m)) {
    entries = Object.entries(m).map(([k, v]) => [partOf<P>(k, column), v as T]);
  } else {
    throw new TypeError(
      `${column.field}: a pattern column takes a Map or a plain object from ${column.partType} part to value, not ${describe(m)}`,
    );
  }
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A plain object's key as a part of the column's part type. */
function partOf<P>(key: string, column: { readonly field: string; readonly partType: string }): P {
  if (column.partType === "string") return key as P;
  if (!/^-?[0-9]+$/.test(key)) {
    throw new TypeError(`${column.field}: the part ${JSON.stringify(key)} is not an ${column.partType} (the column's parts are integers)`);
  }
  if (column.partType === "i32") {
    const n = Number(key);
    if (n < -(2 ** 31) || n > 2 ** 31 - 1) throw new TypeError(`${column.field}: the part ${key} is out of i32 range`);
    return n as P;
  }
  return BigInt(key) as P;
}

/** One version of a cell: its timestamp (ms) and typed value. */
export interface Version<T> {
  readonly timestamp: bigint;
  readonly value: T;
}

/** A counter increment's amount, checked to fit an i64. */
export function amount(v: bigint): bigint {
  return checkI64(v);
}

/** A write's timestamp, checked: an integer from 0 to 2^63-1 ms. */
export function timestamp(t: bigint | number): bigint {
  return timestampOf(t);
}

/** Types whose encoded value may be empty (an empty string, empty bytes). */
const EMPTY_OK = new Set(["string", "bytes"]);

/**
 * Whether an empty cell at (family, qualifier) is a value of its column: false for types whose
 * encoding is never empty (a key-only scan returns such cells), true for cells of no column.
 */
export function mayBeEmpty(family: Buffer, qualifier: Buffer, columns: Readonly<Record<string, Column<unknown> | PatternColumn<unknown, unknown>>>): boolean {
  for (const c of Object.values(columns)) {
    if (!c.family.equals(family)) continue;
    const matches = c instanceof Column ? c.qualifier.equals(qualifier) : c.parse(qualifier) !== undefined;
    if (matches) return EMPTY_OK.has(c.type);
  }
  return true;
}
