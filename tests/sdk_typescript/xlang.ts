/**
 * The TypeScript side of the cross-language test (tests/xlang/README.md), through the generated
 * SDK only:
 *
 *   tests/sdk_typescript/xlang.sh write HOST PORT           # (re)create the tables, write dataset.json
 *   tests/sdk_typescript/xlang.sh dump HOST PORT            # print every table's rows as JSON
 *   tests/sdk_typescript/xlang.sh write-versions HOST PORT  # timestamped puts of `versions`
 *   tests/sdk_typescript/xlang.sh dump-versions HOST PORT   # every version (get, versions: 3)
 *   tests/sdk_typescript/xlang.sh write-batch HOST PORT     # putMany, deleteMany, incrementMany
 *   tests/sdk_typescript/xlang.sh dump-batch HOST PORT      # `dump` over the `batches` tables
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk from "redbase_examples";

type Json = sdk.Json;
type Obj = { [key: string]: Json };

const DATASET = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "xlang", "dataset.json"), "utf8")) as {
  tables: { [table: string]: { rows?: { key: Obj; values: Obj }[]; increments?: { key: Obj; field: string; part?: Json; amount: string }[] } };
  versions: { [table: string]: { key: Obj; field: string; cells: { timestamp: string; value: Json }[] }[] };
  batches: { [table: string]: { rows: { key: Obj; values: Obj }[]; deletes: Obj[]; increments: { key: Obj; counters: { [field: string]: string } }[] } };
};
const exported = sdk as unknown as Record<string, unknown>;

const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const upperCamel = (s: string): string => camel(s).replace(/^[a-z]/, (c) => c.toUpperCase());

interface AnyTable {
  exists(): Promise<boolean>;
  drop(): Promise<void>;
  create(): Promise<void>;
  put(key: unknown, values: Record<string, unknown>, options?: { timestamp?: bigint }): Promise<void>;
  get(key: unknown, options?: { versions?: number }): Promise<{ versions: Record<string, sdk.Version<unknown>[] | undefined> } | undefined>;
  putMany(rows: [unknown, Record<string, unknown>][]): Promise<void>;
  deleteMany(keys: unknown[]): Promise<void>;
  incrementMany(rows: [unknown, Record<string, bigint>][]): Promise<unknown[]>;
  scan(): AsyncIterable<{ rowKey: Buffer; key: Record<string, unknown>; values: Record<string, unknown> }>;
  [method: string]: unknown;
}

type AnyColumn = sdk.Column<unknown> | sdk.PatternColumn<unknown, unknown>;

const spec = (table: string): sdk.KeySpec => exported[`${table.toUpperCase()}_KEY`] as sdk.KeySpec;
const columns = (table: string): Record<string, AnyColumn> => exported[`${upperCamel(table)}Columns`] as Record<string, AnyColumn>;
const tableOf = (table: string, conn: sdk.Connection): AnyTable =>
  new (exported[`${upperCamel(table)}Table`] as new (c: sdk.Connection) => AnyTable)(conn);

function fromJson(ty: string, j: Json): unknown {
  if (ty === "bytes") return Buffer.from(j as string, "hex");
  if (ty === "i64" || ty === "timestamp-ms" || ty === "counter") return BigInt(j as string);
  if (ty === "f32") return Buffer.from(j as string, "hex").readFloatBE(0);
  if (ty === "f64") return Buffer.from(j as string, "hex").readDoubleBE(0);
  return j;
}

function toJson(ty: string, v: unknown): Json {
  if (ty === "bytes") return Buffer.from(v as Uint8Array).toString("hex");
  if (ty === "i64" || ty === "timestamp-ms" || ty === "counter") return (v as bigint).toString();
  const b = Buffer.alloc(ty === "f32" ? 4 : 8);
  if (ty === "f32") return (b.writeFloatBE(v as number), b.toString("hex"));
  if (ty === "f64") return (b.writeDoubleBE(v as number), b.toString("hex"));
  return v as Json;
}

function part(col: sdk.PatternColumn<unknown, unknown>, p: Json): unknown {
  if (col.partType === "i32") return Number(p);
  if (col.partType === "i64") return BigInt(p as string | number);
  return p;
}

function keyOf(table: string, given: Obj): unknown {
  const components: Record<string, unknown> = {};
  for (const c of spec(table).components) components[camel(c.name)] = fromJson(c.type, given[c.name] as Json);
  return new (exported[`${upperCamel(table)}Key`] as new (c: Record<string, unknown>) => unknown)(components);
}

/** Typed values from the dataset's JSON values (pattern fields: part text -> value). */
function valuesOf(table: string, given: Obj): Record<string, unknown> {
  const cols = columns(table);
  const values: Record<string, unknown> = {};
  for (const [field, j] of Object.entries(given)) {
    const col = cols[camel(field)] as AnyColumn;
    if (col instanceof sdk.PatternColumn) {
      values[camel(field)] = new Map(Object.entries(j as Obj).map(([p, v]) => [part(col, p), fromJson(col.type, v)]));
    } else {
      values[camel(field)] = fromJson(col.type, j);
    }
  }
  return values;
}

/** The table client, its table dropped if it exists and created from the schema. */
async function recreate(table: string, conn: sdk.Connection): Promise<AnyTable> {
  const t = tableOf(table, conn);
  if (await t.exists()) await t.drop();
  await t.create();
  return t;
}

async function write(conn: sdk.Connection): Promise<void> {
  for (const [table, data] of Object.entries(DATASET.tables)) {
    const t = await recreate(table, conn);
    const cols = columns(table);
    for (const row of data.rows ?? []) await t.put(keyOf(table, row.key), valuesOf(table, row.values));
    for (const inc of data.increments ?? []) {
      const method = t[`increment${upperCamel(inc.field)}`] as (...args: unknown[]) => Promise<bigint>;
      const col = cols[camel(inc.field)] as AnyColumn;
      const args = col instanceof sdk.PatternColumn && inc.part !== undefined ? [part(col, inc.part)] : [];
      await method.call(t, keyOf(table, inc.key), ...args, BigInt(inc.amount));
    }
  }
}

/** One put per cell, each at its explicit timestamp, in the listed order. */
async function writeVersions(conn: sdk.Connection): Promise<void> {
  for (const [table, entries] of Object.entries(DATASET.versions)) {
    const t = await recreate(table, conn);
    for (const e of entries) {
      for (const c of e.cells) await t.put(keyOf(table, e.key), valuesOf(table, { [e.field]: c.value }), { timestamp: BigInt(c.timestamp) });
    }
  }
}

/** {table: [{key_hex, field, cells: [{timestamp, value}]}]}: every version, newest first. */
async function dumpVersions(conn: sdk.Connection): Promise<Obj> {
  const out: Obj = {};
  for (const table of Object.keys(DATASET.versions).sort()) {
    const t = tableOf(table, conn);
    const entries: Json[] = [];
    for (const e of DATASET.versions[table] ?? []) {
      const key = keyOf(table, e.key) as { encode(): Buffer };
      const row = await t.get(key, { versions: 3 });
      const ty = (columns(table)[camel(e.field)] as AnyColumn).type;
      const cells = row?.versions[camel(e.field)] ?? [];
      entries.push({ key_hex: key.encode().toString("hex"), field: e.field, cells: cells.map((c) => ({ timestamp: c.timestamp.toString(), value: toJson(ty, c.value) })) });
    }
    out[table] = entries;
  }
  return out;
}

/** Per table: one putMany, one deleteMany, one incrementMany. */
async function writeBatch(conn: sdk.Connection): Promise<void> {
  for (const [table, data] of Object.entries(DATASET.batches)) {
    const t = await recreate(table, conn);
    await t.putMany(data.rows.map((r) => [keyOf(table, r.key), valuesOf(table, r.values)]));
    await t.deleteMany(data.deletes.map((k) => keyOf(table, k)));
    await t.incrementMany(
      data.increments.map((inc) => [keyOf(table, inc.key), Object.fromEntries(Object.entries(inc.counters).map(([f, a]) => [camel(f), BigInt(a)]))]),
    );
  }
}

/** {table: [{key_hex, salt, hash, key: {...}, values: {...}}]}, rows in key order. */
async function dump(conn: sdk.Connection, tables: string[] = Object.keys(DATASET.tables)): Promise<Obj> {
  const out: Obj = {};
  for (const table of [...tables].sort()) {
    const kept = spec(table).components.filter((c) => c.kept);
    const cols = columns(table);
    const rows: Json[] = [];
    for await (const r of tableOf(table, conn).scan()) {
      const values: Obj = {};
      for (const col of Object.values(cols)) {
        const v = r.values[camel(col.field)];
        if (v === undefined) continue;
        if (col instanceof sdk.PatternColumn) {
          const m = v as Map<unknown, unknown>;
          if (m.size > 0) values[col.field] = Object.fromEntries([...m].map(([p, x]) => [col.part.text(p), toJson(col.type, x)]));
        } else {
          values[col.field] = toJson(col.type, v);
        }
      }
      const h = r.key["hash"];
      rows.push({
        key_hex: r.rowKey.toString("hex"),
        salt: r.key["salt"] as number | null,
        hash: h instanceof Uint8Array ? Buffer.from(h).toString("hex") : (h as string | null),
        key: Object.fromEntries(kept.map((c) => [c.name, toJson(c.type, r.key[camel(c.name)])])),
        values,
      });
    }
    out[table] = rows;
  }
  return out;
}

/** JSON text with object keys sorted, so dumps diff line by line. */
function sortedJson(v: Json): Json {
  if (Array.isArray(v)) return v.map(sortedJson);
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortedJson(v[k] as Json)]));
  }
  return v;
}

async function main(argv: string[]): Promise<number> {
  const [command, host, port] = argv;
  const commands: Record<string, (conn: sdk.Connection) => Promise<Obj | void>> = {
    write,
    dump: (conn) => dump(conn),
    "write-versions": writeVersions,
    "dump-versions": dumpVersions,
    "write-batch": writeBatch,
    "dump-batch": (conn) => dump(conn, Object.keys(DATASET.batches)),
  };
  const run = command === undefined ? undefined : commands[command];
  if (argv.length !== 3 || run === undefined) {
    console.error(`unknown command ${String(command)}; usage: xlang.sh ${Object.keys(commands).join("|")} HOST PORT`);
    return 2;
  }
  const conn = await sdk.Connection.open(host, Number(port));
  try {
    const out = await run(conn);
    if (out !== undefined) console.log(JSON.stringify(sortedJson(out), null, 1));
  } finally {
    conn.close();
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(`xlang: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
    process.exitCode = 1;
  },
);
