/**
 * The TypeScript side of the cross-language test (tests/xlang/README.md), through the generated
 * SDK only:
 *
 *   tests/sdk_typescript/xlang.sh write HOST PORT   # (re)create the tables, write dataset.json
 *   tests/sdk_typescript/xlang.sh dump HOST PORT    # print every table's rows as JSON
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as sdk from "redbase_examples";

type Json = sdk.Json;
type Obj = { [key: string]: Json };

const DATASET = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "xlang", "dataset.json"), "utf8")) as {
  tables: { [table: string]: { rows?: { key: Obj; values: Obj }[]; increments?: { key: Obj; field: string; part?: Json; amount: string }[] } };
};
const exported = sdk as unknown as Record<string, unknown>;

const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const upperCamel = (s: string): string => camel(s).replace(/^[a-z]/, (c) => c.toUpperCase());

interface AnyTable {
  exists(): Promise<boolean>;
  drop(): Promise<void>;
  create(): Promise<void>;
  put(key: unknown, values: Record<string, unknown>): Promise<void>;
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

async function write(conn: sdk.Connection): Promise<void> {
  for (const [table, data] of Object.entries(DATASET.tables)) {
    const t = tableOf(table, conn);
    if (await t.exists()) await t.drop();
    await t.create();
    const cols = columns(table);
    for (const row of data.rows ?? []) {
      const values: Record<string, unknown> = {};
      for (const [field, j] of Object.entries(row.values)) {
        const col = cols[camel(field)] as AnyColumn;
        if (col instanceof sdk.PatternColumn) {
          values[camel(field)] = new Map(Object.entries(j as Obj).map(([p, v]) => [part(col, p), fromJson(col.type, v)]));
        } else {
          values[camel(field)] = fromJson(col.type, j);
        }
      }
      await t.put(keyOf(table, row.key), values);
    }
    for (const inc of data.increments ?? []) {
      const method = t[`increment${upperCamel(inc.field)}`] as (...args: unknown[]) => Promise<bigint>;
      const col = cols[camel(inc.field)] as AnyColumn;
      const args = col instanceof sdk.PatternColumn && inc.part !== undefined ? [part(col, inc.part)] : [];
      await method.call(t, keyOf(table, inc.key), ...args, BigInt(inc.amount));
    }
  }
}

/** {table: [{key_hex, salt, hash, key: {...}, values: {...}}]}, rows in key order. */
async function dump(conn: sdk.Connection): Promise<Obj> {
  const out: Obj = {};
  for (const table of Object.keys(DATASET.tables).sort()) {
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
  if (argv.length !== 3 || (command !== "write" && command !== "dump")) {
    console.error("usage: xlang.sh write|dump HOST PORT");
    return 2;
  }
  const conn = await sdk.Connection.open(host, Number(port));
  try {
    if (command === "write") await write(conn);
    else console.log(JSON.stringify(sortedJson(await dump(conn)), null, 1));
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
