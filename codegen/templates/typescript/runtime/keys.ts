/**
 * Row-key encodings, byte for byte as docs/schema.md ("Row-key encodings") defines them and as
 * every redbase SDK produces them. Generated table modules describe their key with a `KeySpec`.
 */

import { createHash } from "node:crypto";

/** A key component's value: string, bytes, i32/f32/f64 as number, i64/timestamp-ms as bigint. */
export type KeyValue = string | Uint8Array | number | bigint;

const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;
const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;
const UTF8 = new TextDecoder("utf-8", { fatal: true });

const CHARSETS: Record<string, RegExp> = {
  alnum: /^[0-9A-Za-z]$/,
  word: /^[0-9A-Za-z_]$/,
  hex: /^[0-9a-f]$/,
  digits: /^[0-9]$/,
};

/** A value the key's rules refuse, or bytes that are not a key of this table. */
export class KeyEncodingError extends Error {
  override name = "KeyEncodingError";
}

export type ComponentType = "string" | "bytes" | "i32" | "i64" | "f32" | "f64" | "timestamp-ms";

/** One key component as the schema declares it. */
export interface Component {
  readonly name: string;
  readonly type: ComponentType;
  readonly width?: number;
  readonly charset: string;
  readonly escape: boolean;
  readonly desc: boolean;
  readonly reverse?: "chars" | "segments";
  readonly reverseTimestamp: boolean;
  /** An empty string or byte array is a value, not a forgotten field. */
  readonly allowEmpty: boolean;
  readonly kept: boolean;
}

export interface HashSpec {
  /** Indexes of the hashed components, in hash order. */
  readonly components: readonly number[];
  readonly form: "hex_chars" | "bytes";
  readonly n: number;
  readonly keep: boolean;
}

export interface SaltSpec {
  readonly buckets: number;
  readonly form: "byte" | "char";
  readonly alphabet: string;
}

/** What a key's bytes hold: salt bucket, hash prefix, kept components by schema name. */
export interface Decoded {
  readonly salt: number | null;
  readonly hash: string | Buffer | null;
  readonly components: Readonly<Record<string, KeyValue>>;
}

/** Whether a charset (`any`, `alnum`, `word`, `hex`, `digits`) holds the character `ch`. */
export function charsetHolds(charset: string, ch: string): boolean {
  return charset === "any" || (CHARSETS[charset]?.test(ch) ?? true);
}

function reversed(how: string, s: string): string {
  return how === "chars" ? Array.from(s).reverse().join("") : s.split(".").reverse().join(".");
}

function isInt(c: Component): boolean {
  return c.type === "i32" || c.type === "i64" || c.type === "timestamp-ms";
}

function checkType(c: Component, v: KeyValue): void {
  const ok =
    c.type === "string"
      ? typeof v === "string"
      : c.type === "bytes"
        ? v instanceof Uint8Array
        : c.type === "i32" || c.type === "f32" || c.type === "f64"
          ? typeof v === "number"
          : typeof v === "bigint";
  if (!ok) throw new KeyEncodingError(`component ${c.name}: ${String(v)} is not a ${c.type}`);
  if (c.type === "i32" && (!Number.isInteger(v) || (v as number) < I32_MIN || (v as number) > I32_MAX)) {
    throw new KeyEncodingError(`component ${c.name}: ${String(v)} is out of i32 range`);
  }
  if (typeof v === "bigint") {
    if (v < I64_MIN || v > I64_MAX) throw new KeyEncodingError(`component ${c.name}: ${v} is out of ${c.type} range`);
    if (c.reverseTimestamp && v < 0n) throw new KeyEncodingError(`component ${c.name}: a reverse timestamp must be >= 0`);
  }
  if (c.type === "f32" && Number.isFinite(v) && !Number.isFinite(Math.fround(v as number))) {
    throw new KeyEncodingError(`component ${c.name}: ${String(v)} does not fit f32`);
  }
  if (typeof v === "string" && c.charset !== "any") {
    const re = CHARSETS[c.charset];
    for (const ch of v) {
      if (!re?.test(ch)) throw new KeyEncodingError(`component ${c.name}: ${JSON.stringify(ch)} is outside charset ${c.charset}`);
    }
  }
}

function escaped(b: Uint8Array): Buffer {
  const out: number[] = [];
  for (const x of b) {
    out.push(x);
    if (x === 0) out.push(0xff);
  }
  out.push(0, 0);
  return Buffer.from(out);
}

function invert(b: Buffer): Buffer {
  return Buffer.from(b.map((x) => 255 - x));
}

function floatBits(c: Component, v: number): Buffer {
  if (c.type === "f32") {
    const b = Buffer.alloc(4);
    b.writeFloatBE(v); // NaN is written as the canonical 7fc00000
    let bits = Number.isNaN(v) ? 0x7fc00000 : b.readUInt32BE(0);
    bits = bits >>> 31 ? ~bits >>> 0 : (bits ^ 0x80000000) >>> 0;
    b.writeUInt32BE(bits);
    return b;
  }
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  let bits = Number.isNaN(v) ? 0x7ff8000000000000n : b.readBigUInt64BE(0);
  bits = bits >> 63n ? BigInt.asUintN(64, ~bits) : bits ^ (1n << 63n);
  b.writeBigUInt64BE(bits);
  return b;
}

function toBig(c: Component, v: KeyValue): bigint {
  const i = BigInt(v as number | bigint);
  return c.reverseTimestamp ? I64_MAX - i : i;
}

function binaryField(c: Component, v: KeyValue): Buffer {
  let out: Buffer;
  if (typeof v === "string") {
    out = escaped(Buffer.from(c.reverse ? reversed(c.reverse, v) : v, "utf8"));
  } else if (v instanceof Uint8Array) {
    out = escaped(v);
  } else if (c.type === "f32" || c.type === "f64") {
    out = floatBits(c, v as number);
  } else if (c.type === "i32") {
    out = Buffer.alloc(4);
    out.writeUInt32BE(((v as number) ^ 0x80000000) >>> 0);
  } else {
    out = Buffer.alloc(8);
    out.writeBigUInt64BE(BigInt.asUintN(64, toBig(c, v)) ^ (1n << 63n));
  }
  return c.desc ? invert(out) : out;
}

function textField(c: Component, v: KeyValue, sep: string | null): Buffer {
  if (typeof v === "string") {
    let s = c.reverse ? reversed(c.reverse, v) : v;
    if (sep !== null) {
      if (c.escape) s = Array.from(s, (ch) => (ch === sep || ch === "\\" ? "\\" + ch : ch)).join("");
      return Buffer.from(s, "utf8");
    }
    const b = Buffer.from(s, "utf8");
    const w = c.width ?? 0;
    if (b.includes(0) || b.length > w) {
      throw new KeyEncodingError(`component ${c.name}: needs at most ${w} UTF-8 bytes and no 0x00`);
    }
    return Buffer.concat([b, Buffer.alloc(w - b.length)]);
  }
  if (v instanceof Uint8Array) {
    if (sep !== null) return Buffer.from(Buffer.from(v).toString("hex"), "ascii");
    if (v.length !== c.width) {
      throw new KeyEncodingError(`component ${c.name}: needs exactly ${c.width} bytes, got ${v.length}`);
    }
    return Buffer.from(v);
  }
  if (!isInt(c)) throw new KeyEncodingError(`component ${c.name}: floats need the binary layout`);
  const i = toBig(c, v);
  if (c.width === undefined) return Buffer.from(i.toString(), "ascii");
  const limit = 10n ** BigInt(c.width);
  if (i < 0n || i >= limit) {
    throw new KeyEncodingError(`component ${c.name}: ${i} does not fit ${c.width} zero-padded digits`);
  }
  const t = (c.desc ? limit - 1n - i : i).toString().padStart(c.width, "0");
  return Buffer.from(c.reverse ? reversed(c.reverse, t) : t, "ascii");
}

/**
 * A string component given as every value starting with `startsWith` (a typed starts-with):
 * `scan({ path: { startsWith: "/home/alice/" } })` is the subtree under that directory, whatever
 * the key's escaping. As a bound it must be the last component given.
 */
export interface StartsWith {
  readonly startsWith: string;
}

/** Whether a bound is a starts-with (`{ startsWith: "..." }`). */
export function isStartsWith(v: unknown): v is StartsWith {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && "startsWith" in v;
}

/**
 * The bytes that start the field of every string starting with `p` in this layout: the field's
 * encoding without what ends it. Escaping maps each character (separated: the separator and
 * `\`) or byte (binary: 0x00) on its own, so encoding `p` whole never cuts an escape in half.
 */
export function stringPrefix(layout: string, sep: string, c: Component, p: string): Buffer {
  if (typeof p !== "string") throw new KeyEncodingError(`component ${c.name}: a starts-with takes a string, not ${String(p)}`);
  checkType(c, p);
  if (layout === "separated") return textField(c, p, sep);
  const b = Buffer.from(p, "utf8");
  if (layout === "fixed") {
    const w = c.width ?? 0;
    if (b.includes(0) || b.length > w) throw new KeyEncodingError(`component ${c.name}: needs at most ${w} UTF-8 bytes and no 0x00`);
    return b;
  }
  const out = escaped(b).subarray(0, -2);
  return c.desc ? invert(out) : Buffer.from(out);
}

function utf8(c: Component, b: Uint8Array): string {
  try {
    return UTF8.decode(b);
  } catch {
    throw new KeyEncodingError(`component ${c.name} is not UTF-8`);
  }
}

/** The integer a text field's digits hold, checked against the component's type. */
function intFromText(c: Component, text: string): KeyValue {
  const s = c.reverse ? reversed(c.reverse, text) : text;
  if (!/^-?[0-9]+$/.test(s)) throw new KeyEncodingError(`component ${c.name}: not a number`);
  if (c.width !== undefined && (s.length !== c.width || s.startsWith("-"))) {
    throw new KeyEncodingError(`component ${c.name}: not ${c.width} digits`);
  }
  let n = BigInt(s);
  if (c.desc && c.width !== undefined) n = 10n ** BigInt(c.width) - 1n - n;
  if (c.reverseTimestamp) {
    if (n < 0n) throw new KeyEncodingError(`component ${c.name}: not a reverse timestamp`);
    n = I64_MAX - n;
  }
  const [lo, hi] = c.type === "i32" ? [BigInt(I32_MIN), BigInt(I32_MAX)] : [I64_MIN, I64_MAX];
  if (n < lo || n > hi) throw new KeyEncodingError(`component ${c.name}: out of ${c.type} range`);
  return c.type === "i32" ? Number(n) : n;
}

function decodeText(c: Component, b: Buffer, sep: string | null): KeyValue {
  if (c.type === "string") {
    let s = utf8(c, sep !== null ? b : b.subarray(0, trimmedLength(b)));
    if (c.escape) {
      let out = "";
      for (let i = 0; i < s.length; i++) {
        if (s[i] === "\\") {
          i++;
          if (i === s.length) throw new KeyEncodingError(`component ${c.name}: dangling escape`);
        }
        out += s[i];
      }
      s = out;
    }
    return c.reverse ? reversed(c.reverse, s) : s;
  }
  if (c.type === "bytes") {
    if (sep === null) return Buffer.from(b);
    const text = b.toString("latin1");
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw new KeyEncodingError(`component ${c.name}: not hex`);
    return Buffer.from(text, "hex");
  }
  return intFromText(c, utf8(c, b));
}

function trimmedLength(b: Buffer): number {
  let n = b.length;
  while (n > 0 && b[n - 1] === 0) n--;
  return n;
}

function decodeBinary(c: Component, key: Buffer, pos: number): [KeyValue, number] {
  const byteAt = (i: number): number => {
    if (i >= key.length) throw new KeyEncodingError(`key too short for component ${c.name}`);
    const x = key[i] as number;
    return c.desc ? 255 - x : x;
  };
  const take = (n: number): Buffer => {
    const chunk = key.subarray(pos, pos + n);
    if (chunk.length !== n) throw new KeyEncodingError(`key too short for component ${c.name}`);
    return c.desc ? invert(chunk) : Buffer.from(chunk);
  };
  if (c.type === "string" || c.type === "bytes") {
    const out: number[] = [];
    let i = pos;
    for (;;) {
      const x = byteAt(i);
      if (x === 0) {
        const y = byteAt(i + 1);
        if (y === 0) break;
        if (y !== 0xff) throw new KeyEncodingError(`bad escape in component ${c.name}`);
        out.push(0);
        i += 2;
      } else {
        out.push(x);
        i += 1;
      }
    }
    const raw = Buffer.from(out);
    if (c.type === "bytes") return [raw, i + 2];
    const s = utf8(c, raw);
    return [c.reverse ? reversed(c.reverse, s) : s, i + 2];
  }
  if (c.type === "i32") {
    return [(take(4).readUInt32BE(0) ^ 0x80000000) | 0, pos + 4];
  }
  if (c.type === "f32") {
    const b = take(4);
    const u = b.readUInt32BE(0);
    b.writeUInt32BE(u >>> 31 ? (u ^ 0x80000000) >>> 0 : ~u >>> 0);
    return [b.readFloatBE(0), pos + 4];
  }
  const b = take(8);
  const u = b.readBigUInt64BE(0);
  if (c.type === "f64") {
    b.writeBigUInt64BE(u >> 63n ? u ^ (1n << 63n) : BigInt.asUintN(64, ~u));
    return [b.readDoubleBE(0), pos + 8];
  }
  const i = BigInt.asIntN(64, u ^ (1n << 63n));
  if (!c.reverseTimestamp) return [i, pos + 8];
  if (i < 0n) throw new KeyEncodingError(`component ${c.name}: not a reverse timestamp`);
  return [I64_MAX - i, pos + 8];
}

/** Splits on separator bytes not preceded by a backslash escape. */
function splitUnescaped(b: Buffer, sep: number): Buffer[] {
  const fields: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 0x5c) {
      i++;
      continue;
    }
    if (b[i] === sep) {
      fields.push(b.subarray(start, i));
      start = i + 1;
    }
  }
  fields.push(b.subarray(start));
  return fields;
}

/** One table's row-key design (generated from its schema). */
export class KeySpec {
  constructor(
    readonly layout: "separated" | "fixed" | "binary",
    readonly separator: string,
    readonly components: readonly Component[],
    readonly hash: HashSpec | null = null,
    readonly salt: SaltSpec | null = null,
    /** The table id, so errors name the key they refuse a value for. */
    readonly table: string = "",
  ) {}

  /** One component's bytes in this layout. */
  field(c: Component, v: KeyValue): Buffer {
    if ((typeof v === "string" || v instanceof Uint8Array) && v.length === 0 && !c.allowEmpty) {
      // An empty field is almost always a forgotten one, and a key like `d41d8||201501` would
      // silently stand for it: refused in the words of every redbase SDK.
      throw new KeyEncodingError(
        `component ${c.name}: must not be empty in the ${this.table} key (the schema does not set allow_empty)`,
      );
    }
    checkType(c, v);
    if (this.layout === "binary") return binaryField(c, v);
    return textField(c, v, this.layout === "separated" ? this.separator : null);
  }

  private join(parts: Buffer[]): Buffer {
    const sep = Buffer.from(this.separator, "ascii");
    const out: Buffer[] = [];
    parts.forEach((p, i) => {
      if (i > 0) out.push(sep);
      out.push(p);
    });
    return Buffer.concat(out);
  }

  private body(leading: readonly KeyValue[]): Buffer {
    const fields = leading.map((v, i) => this.field(this.components[i] as Component, v));
    const parts: Buffer[] = [];
    if (this.hash !== null) {
      const h = this.hash;
      const missing = h.components.find((i) => i >= fields.length);
      if (missing !== undefined) {
        const name = this.components[missing]?.name ?? String(missing);
        throw new KeyEncodingError(`component ${name}: must be given (the ${this.table} key's hash prefix is computed from it)`);
      }
      const digest = createHash("md5")
        .update(this.join(h.components.map((i) => fields[i] as Buffer)))
        .digest();
      parts.push(h.form === "hex_chars" ? Buffer.from(digest.toString("hex").slice(0, h.n), "ascii") : digest.subarray(0, h.n));
    }
    fields.forEach((f, i) => {
      if (this.components[i]?.kept) parts.push(f);
    });
    let out = this.join(parts);
    const more = this.components.slice(fields.length).some((c) => c.kept);
    if (more && parts.length > 0) out = Buffer.concat([out, Buffer.from(this.separator, "ascii")]);
    return out;
  }

  /**
   * Bytes the salt takes at the start of every key (0 unsalted): a salted scan merges its
   * buckets by the key after them.
   */
  saltWidth(): number {
    return this.salt === null ? 0 : this.saltField(0).length;
  }

  /** The salt as it starts a key: its byte or character, then the separator if any. */
  saltField(bucket: number): Buffer {
    if (this.salt === null) return Buffer.alloc(0);
    const head = this.salt.form === "byte" ? Buffer.from([bucket]) : Buffer.from(this.salt.alphabet[bucket] ?? "", "ascii");
    return Buffer.concat([head, Buffer.from(this.separator, "ascii")]);
  }

  /** The row key for one value per component, in declaration order. */
  encode(values: readonly KeyValue[]): Buffer {
    if (values.length !== this.components.length) {
      throw new KeyEncodingError(`${this.components.length} components expected, got ${values.length}`);
    }
    const body = this.body(values);
    if (this.salt === null) return body;
    return Buffer.concat([this.saltField(saltBucket(body, this.salt.buckets)), body]);
  }

  /** Prefixes of the keys whose leading components equal `leading`: one per salt bucket. */
  prefixes(leading: readonly KeyValue[]): Buffer[] {
    if (leading.length > this.components.length) throw new KeyEncodingError("more values than components");
    const body = leading.length > 0 ? this.body(leading) : Buffer.alloc(0);
    if (this.salt === null) return [body];
    return Array.from({ length: this.salt.buckets }, (_, b) => Buffer.concat([this.saltField(b), body]));
  }

  /** `leading()` with this key's component names, for errors that name what is missing. */
  leading<V>(values: readonly (V | undefined)[]): V[] {
    const hashed = this.hash?.components.map((i) => this.components[i]?.name ?? "") ?? [];
    return leading(values, this.components.map((c) => c.name), hashed);
  }

  /** Whether a key holding the first `n` components ends there (no kept component follows). */
  endsAfter(n: number): boolean {
    return !this.components.slice(n).some((c) => c.kept);
  }

  /** Salt, hash prefix and kept components of a key. */
  decode(row: Uint8Array): Decoded {
    const key = Buffer.from(row);
    const sep = Buffer.from(this.separator, "ascii");
    let pos = 0;
    const take = (n: number, what: string): Buffer => {
      const chunk = key.subarray(pos, pos + n);
      if (chunk.length !== n) throw new KeyEncodingError(`key too short for the ${what}`);
      pos += n;
      return chunk;
    };
    const expectSep = (): void => {
      if (sep.length > 0 && !take(1, "separator").equals(sep)) throw new KeyEncodingError("separator expected");
    };
    const kept = this.components.filter((c) => c.kept);
    let salt: number | null = null;
    if (this.salt !== null) {
      const b = take(1, "salt")[0] as number;
      salt = this.salt.form === "byte" ? b : this.salt.alphabet.indexOf(String.fromCharCode(b));
      if (salt < 0 || salt >= this.salt.buckets) throw new KeyEncodingError("salt bucket out of range");
      expectSep();
    }
    let hash: string | Buffer | null = null;
    if (this.hash !== null) {
      const raw = take(this.hash.n, "hash prefix");
      hash = this.hash.form === "hex_chars" ? raw.toString("latin1") : Buffer.from(raw);
      if (kept.length > 0) expectSep();
    }
    const components: Record<string, KeyValue> = {};
    if (this.layout === "separated") {
      const fields = splitUnescaped(key.subarray(pos), sep[0] as number);
      if (fields.length !== kept.length) {
        throw new KeyEncodingError(`${kept.length} fields expected after the prefixes, found ${fields.length}`);
      }
      kept.forEach((c, i) => {
        components[c.name] = decodeText(c, fields[i] as Buffer, this.separator);
      });
    } else {
      for (const c of kept) {
        if (this.layout === "fixed") {
          components[c.name] = decodeText(c, take(c.width ?? 0, c.name), null);
        } else {
          const [v, next] = decodeBinary(c, key, pos);
          components[c.name] = v;
          pos = next;
        }
      }
      if (pos !== key.length) throw new KeyEncodingError("trailing bytes after the last component");
    }
    return { salt, hash, components };
  }
}

/** First four bytes of MD5(body) as a big-endian u32, modulo the bucket count. */
export function saltBucket(body: Uint8Array, buckets: number): number {
  return createHash("md5").update(body).digest().readUInt32BE(0) % buckets;
}

/** The region a key falls in: how many split keys are <= it. */
export function regionIndex(splits: readonly Uint8Array[], key: Uint8Array): number {
  return splits.filter((s) => Buffer.compare(s, key) <= 0).length;
}

/**
 * The values up to the first undefined; a value after an undefined is an error naming the
 * missing component (`names`: the components in key order, `hashed`: those the hash prefix is
 * computed from).
 */
export function leading<V>(values: readonly (V | undefined)[], names: readonly string[] = [], hashed: readonly string[] = []): V[] {
  const out: V[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) {
      const later = values.findIndex((x, j) => j > i && x !== undefined);
      if (later >= 0) {
        const name = names[i] ?? `#${i}`;
        const why = hashed.includes(name) ? "the hash prefix is computed from it" : "prefix components are given in key order, without gaps";
        throw new KeyEncodingError(`component ${name}: must be given with ${names[later] ?? `#${later}`} (${why})`);
      }
      break;
    }
    out.push(v);
  }
  return out;
}

/** A decoded component as the type the generated code declares (checked, not cast). */
export function asString(v: KeyValue | undefined): string {
  if (typeof v !== "string") throw new KeyEncodingError(`${String(v)} is not a string`);
  return v;
}

export function asBytes(v: KeyValue | undefined): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new KeyEncodingError(`${String(v)} is not bytes`);
  return v;
}

export function asNumber(v: KeyValue | undefined): number {
  if (typeof v !== "number") throw new KeyEncodingError(`${String(v)} is not a number`);
  return v;
}

export function asBigint(v: KeyValue | undefined): bigint {
  if (typeof v !== "bigint") throw new KeyEncodingError(`${String(v)} is not a bigint`);
  return v;
}
