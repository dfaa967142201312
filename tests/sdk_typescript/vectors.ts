/**
 * The shared vectors (sdks/vectors/*.json, from the Rust reference) through the generated
 * TypeScript SDK, byte for byte. Prints one line per file for the cross-language matrix:
 *   VECTORS typescript <file> pass <n>   |   VECTORS typescript <file> FAIL <n_failed>/<n>
 * and exits non-zero if any vector fails (the first failures are described on stderr).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk from "redbase_examples";

type JsonValue = sdk.Json;
type Obj = { [key: string]: JsonValue };

const VECTORS = join(__dirname, "..", "..", "..", "..", "sdks", "vectors");
const exported = sdk as unknown as Record<string, unknown>;

interface KeyClass {
  new (components: Record<string, sdk.KeyValue>): { encode(): Buffer };
  decode(row: Uint8Array): Record<string, unknown>;
  prefix(leading: Record<string, sdk.KeyValue>): sdk.KeyRange;
}

const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const upperCamel = (s: string): string => camel(s).replace(/^[a-z]/, (c) => c.toUpperCase());
const shouty = (s: string): string => s.toUpperCase();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

function spec(table: string): sdk.KeySpec {
  return exported[`${shouty(table)}_KEY`] as sdk.KeySpec;
}

function keyClass(table: string): KeyClass {
  return exported[`${upperCamel(table)}Key`] as KeyClass;
}

/** A vector's JSON value as the SDK's value of type `ty` (docs/schema.md, Test vectors). */
function fromJson(ty: string, j: JsonValue): unknown {
  switch (ty) {
    case "bytes":
      return Buffer.from(j as string, "hex");
    case "i64":
    case "timestamp-ms":
    case "counter":
      return BigInt(j as string);
    case "f32":
      return Buffer.from(j as string, "hex").readFloatBE(0);
    case "f64":
      return Buffer.from(j as string, "hex").readDoubleBE(0);
    default:
      return j;
  }
}

/** Equal as the vectors mean it: floats by their bits, bytes by content, JSON structurally. */
function same(ty: string, a: unknown, b: unknown): boolean {
  if (ty === "f32" || ty === "f64") {
    const bits = (v: unknown): string => {
      const buf = Buffer.alloc(ty === "f32" ? 4 : 8);
      if (ty === "f32") buf.writeFloatBE(v as number);
      else buf.writeDoubleBE(v as number);
      return buf.toString("hex");
    };
    return typeof a === "number" && typeof b === "number" && (bits(a) === bits(b) || (Number.isNaN(a) && Number.isNaN(b)));
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return hex(a) === hex(b);
  if (ty === "json") return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
  return typeof a === typeof b && a === b;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  }
  return v;
}

function components(table: string, given: Obj): Record<string, sdk.KeyValue> {
  const out: Record<string, sdk.KeyValue> = {};
  for (const c of spec(table).components) {
    if (c.name in given) out[camel(c.name)] = fromJson(c.type, given[c.name] as JsonValue) as sdk.KeyValue;
  }
  return out;
}

function check(cond: boolean, what: string): void {
  if (!cond) throw new Error(what);
}

function throwsKeyError(f: () => unknown): boolean {
  try {
    f();
    return false;
  } catch (e) {
    return e instanceof sdk.KeyEncodingError;
  }
}

function keyVector(v: Obj): void {
  const table = v["table"] as string;
  const cls = keyClass(table);
  const raw = new cls(components(table, v["components"] as Obj)).encode();
  check(hex(raw) === v["key_hex"], `encoded ${hex(raw)}, want ${String(v["key_hex"])}`);
  const parts = cls.decode(raw);
  const want = v["decoded"] as Obj;
  check(parts["salt"] === want["salt"], `salt ${String(parts["salt"])}, want ${String(want["salt"])}`);
  const hash = parts["hash"] instanceof Uint8Array ? hex(parts["hash"]) : parts["hash"];
  check(hash === want["hash"], `hash ${String(hash)}, want ${String(want["hash"])}`);
  const kept = spec(table).components.filter((c) => c.kept);
  const wantComponents = want["components"] as Obj;
  check(kept.length === Object.keys(wantComponents).length, "kept components differ");
  for (const c of kept) {
    const got = parts[camel(c.name)];
    check(same(c.type, got, fromJson(c.type, wantComponents[c.name] as JsonValue)), `component ${c.name}: got ${String(got)}`);
  }
  const splits = exported[`${shouty(table)}_SPLITS`] as Buffer[];
  check(sdk.regionIndex(splits, raw) === v["region"], `region ${sdk.regionIndex(splits, raw)}, want ${String(v["region"])}`);
}

function prefixVector(v: Obj): void {
  const table = v["table"] as string;
  const cls = keyClass(table);
  const given = components(table, v["components"] as Obj);
  if (v["error"] === true) {
    check(throwsKeyError(() => cls.prefix(given)), "the prefix should be refused");
    return;
  }
  const starts = cls.prefix(given).ranges.map(([start]) => hex(start));
  check(JSON.stringify(starts) === JSON.stringify(v["prefixes_hex"]), `prefixes ${starts.join(",")}`);
}

function errorVector(v: Obj): void {
  const table = v["table"] as string;
  const cls = keyClass(table);
  check(throwsKeyError(() => new cls(components(table, v["components"] as Obj)).encode()), "encoding should fail");
  const want = v["component"];
  if (typeof want === "string") {
    // The error names the component the reference refused.
    let message = "";
    try {
      new cls(components(table, v["components"] as Obj)).encode();
    } catch (e) {
      message = (e as Error).message;
    }
    check(message.includes(`component ${want}:`), `error ${JSON.stringify(message)} does not name ${want}`);
  }
}

function valueVector(v: Obj): void {
  const ty = v["type"] as keyof typeof sdk.values.CODECS;
  const codec = sdk.values.CODECS[ty] as sdk.Codec<unknown>;
  const value = fromJson(ty, v["value"] as JsonValue);
  const raw = codec.encode(value);
  check(hex(raw) === v["hex"], `encoded ${hex(raw)}, want ${String(v["hex"])}`);
  check(same(ty, codec.decode(Buffer.from(v["hex"] as string, "hex")), value), "decoded value differs");
}

function qualifierVector(v: Obj): void {
  const table = v["table"] as string;
  const columns = exported[`${upperCamel(table)}Columns`] as Record<string, sdk.PatternColumn<unknown, unknown>>;
  const col = columns[camel(v["field"] as string)] as sdk.PatternColumn<unknown, unknown>;
  const q = col.qualifier(v["part"]);
  check(hex(q) === v["qualifier_hex"], `qualifier ${hex(q)}, want ${String(v["qualifier_hex"])}`);
  check(col.parse(q) === v["part"], `parsed ${String(col.parse(q))}`);
}

const OPS: Record<string, sdk.CompareOp> = { eq: "=", ne: "!=", lt: "<", le: "<=", gt: ">", ge: ">=" };

/** A value vector's operand as the column's TypeScript value, or the JSON as it is when it
 * is not of the column's form (the builder must refuse it). */
function operand(ty: string, j: JsonValue): unknown {
  try {
    return fromJson(ty, j);
  } catch {
    return j;
  }
}

/** A filters.json filter through the builder: the table's typed columns and key. */
function buildFilter(table: string, f: Obj): sdk.Filter {
  const [kind, arg] = Object.entries(f)[0] as [string, JsonValue];
  switch (kind) {
    case "value": {
      const v = arg as Obj;
      const columns = exported[`${upperCamel(table)}Columns`] as Record<string, sdk.Column<unknown>>;
      const column = columns[camel(v["column"] as string)];
      if (column === undefined) throw new Error(`no column ${String(v["column"])}`);
      return sdk.Filter.value(column, OPS[v["op"] as string] as sdk.CompareOp, operand(column.type, v["operand"] as JsonValue));
    }
    case "prefix": {
      const cls = exported[`${upperCamel(table)}Key`] as { prefixFilter(c: Record<string, sdk.KeyValue | sdk.StartsWith>): sdk.Filter };
      const given: Record<string, sdk.KeyValue | sdk.StartsWith> = {};
      for (const c of spec(table).components) {
        const j = (arg as Obj)[c.name];
        if (j === undefined) continue;
        const sw = j !== null && typeof j === "object" && !Array.isArray(j) ? (j as Obj)["starts_with"] : undefined;
        given[camel(c.name)] = typeof sw === "string" ? { startsWith: sw } : (fromJson(c.type, j) as sdk.KeyValue);
      }
      return cls.prefixFilter(given);
    }
    case "page":
      return sdk.Filter.page(arg as number);
    case "key_only":
      return sdk.Filter.keyOnly();
    case "first_key_only":
      return sdk.Filter.firstKeyOnly();
    case "timestamps":
      return sdk.Filter.timestamps(arg as number[]);
    case "column_prefix":
      return sdk.Filter.columnPrefix(Buffer.from(arg as string, "hex"));
    case "all":
      return sdk.Filter.all(...(arg as Obj[]).map((g) => buildFilter(table, g)));
    case "any":
      return sdk.Filter.any(...(arg as Obj[]).map((g) => buildFilter(table, g)));
    default:
      throw new Error(`unknown filter kind ${kind}`);
  }
}

function filterVector(v: Obj): void {
  const table = v["table"] as string;
  const want = v["error"];
  if (typeof want === "string") {
    let error: unknown = null;
    try {
      buildFilter(table, v["filter"] as Obj);
    } catch (e) {
      error = e;
    }
    check(error instanceof sdk.FilterError || error instanceof sdk.KeyEncodingError, `want a FilterError or KeyEncodingError, got ${String(error)}`);
    check((error as Error).message.includes(want), `error ${JSON.stringify((error as Error).message)} does not say ${JSON.stringify(want)}`);
    return;
  }
  const got = hex(buildFilter(table, v["filter"] as Obj).bytes);
  check(got === v["bytes"], `rendered ${got}, want ${String(v["bytes"])}`);
}

/**
 * A bounds.json case through the table's `Key.bounds`: components given by value, the last
 * optionally as `{low, high}`; the ranges byte for byte, or a KeyEncodingError whose message
 * holds the case's `error`.
 */
function boundsVector(v: Obj): void {
  const table = v["table"] as string;
  const types = new Map(spec(table).components.map((c) => [c.name, c.type] as const));
  const bounds: Record<string, unknown> = {};
  for (const [name, value] of v["given"] as [string, JsonValue][]) {
    const ty = types.get(name);
    if (ty === undefined) throw new Error(`no component ${name}`);
    const pair = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Obj) : null;
    if (pair !== null && "starts_with" in pair) bounds[camel(name)] = { startsWith: pair["starts_with"] };
    else bounds[camel(name)] = pair === null ? fromJson(ty, value) : [fromJson(ty, pair["low"] as JsonValue), fromJson(ty, pair["high"] as JsonValue)];
  }
  const cls = exported[`${upperCamel(table)}Key`] as { bounds(b: Record<string, unknown>): sdk.KeyRange };
  const want = v["error"];
  if (typeof want === "string") {
    let error: unknown = null;
    try {
      cls.bounds(bounds);
    } catch (e) {
      error = e;
    }
    check(error instanceof sdk.KeyEncodingError, `want a KeyEncodingError, got ${String(error)}`);
    check((error as Error).message.includes(want), `error ${JSON.stringify((error as Error).message)} does not say ${JSON.stringify(want)}`);
    return;
  }
  const got = cls.bounds(bounds).ranges.map(([start, stop]) => [hex(start), stop === null ? null : hex(stop)]);
  check(JSON.stringify(got) === JSON.stringify(v["ranges"]), `ranges ${JSON.stringify(got)}, want ${JSON.stringify(v["ranges"])}`);
}

/**
 * A merge.json case through `mergeRows`, the order every scan picks its buckets' rows in: each
 * bucket's rows as its scanner returns them, merged with the table's salt width.
 */
function mergeVector(v: Obj): void {
  const table = v["table"] as string;
  const saltWidth = spec(table).saltWidth();
  check(saltWidth === v["salt_width"], `salt width ${saltWidth}, want ${String(v["salt_width"])}`);
  const buckets = (v["buckets"] as string[][]).map((rows) => rows.map((h) => Buffer.from(h, "hex")));
  const limit = v["limit"] === null ? undefined : (v["limit"] as number);
  const got = sdk.mergeRows(buckets, { saltWidth, reversed: v["reversed"] === true, bucketOrder: v["bucket_order"] === true, limit }).map(hex);
  check(JSON.stringify(got) === JSON.stringify(v["rows"]), `rows ${JSON.stringify(got)}, want ${JSON.stringify(v["rows"])}`);
}

/** Runs every vector of one file; returns whether all passed. */
function runFile(file: string, groups: [string, ((v: Obj) => void)][]): boolean {
  const data = JSON.parse(readFileSync(join(VECTORS, file), "utf8")) as Obj;
  let total = 0;
  let failed = 0;
  for (const [group, run] of groups) {
    for (const [i, v] of (data[group] as Obj[]).entries()) {
      total++;
      try {
        run(v);
      } catch (e) {
        failed++;
        if (failed <= 20) console.error(`${file} ${group}[${i}] (${String(v["table"] ?? v["type"])}${v["name"] === undefined ? "" : `: ${String(v["name"])}`}): ${(e as Error).message}`);
      }
    }
  }
  console.log(failed === 0 ? `VECTORS typescript ${file} pass ${total}` : `VECTORS typescript ${file} FAIL ${failed}/${total}`);
  return failed === 0 && total > 0;
}

const keysOk = runFile("keys.json", [
  ["keys", keyVector],
  ["prefixes", prefixVector],
  ["errors", errorVector],
]);
const valuesOk = runFile("values.json", [
  ["values", valueVector],
  ["qualifiers", qualifierVector],
]);
const filtersOk = runFile("filters.json", [["cases", filterVector]]);
const boundsOk = runFile("bounds.json", [["cases", boundsVector]]);
const mergeOk = runFile("merge.json", [["cases", mergeVector]]);
process.exitCode = keysOk && valuesOk && filtersOk && boundsOk && mergeOk ? 0 : 1;
