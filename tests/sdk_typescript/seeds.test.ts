/**
 * The seeds' key designs end to end against a real Thrift2 gateway: seed 003's OpenTSDB-style
 * `[salt][metric][Long.MAX_VALUE - ts][host]` (sdks/schemas/opentsdb.toml), read newest first
 * across its 8 salt buckets; seed 004's cloud-drive directory table keyed by the full (escaped)
 * path (sdks/schemas/cloud_drive.toml), read a subtree at a time.
 */

import assert = require("node:assert/strict");
import { after, before, test } from "node:test";
import {
  Connection,
  DriveDirectoriesKey,
  DriveDirectoriesTable,
  DriveDirectoriesValues,
  TableDef,
  TableOptions,
  TsdbKey,
  TsdbTable,
  TsdbValues,
} from "redbase_examples";
import { Target } from "./server";

let target: Target;
const opened: Connection[] = [];

async function connect(): Promise<Connection> {
  const transport = process.env["REDBASE_SDK_TRANSPORT"] === "framed" ? "framed" : "buffered";
  const c = await Connection.open(target.host, target.port, { transport });
  opened.push(c);
  return c;
}

/** The suite's copy of a table: `ts_`-prefixed, so the suite can share an HBase with others. */
const mine = (make: { readonly definition: TableDef }): TableOptions => ({ name: `ts_seeds_${make.definition.name}` });

async function fresh<T extends { exists(): Promise<boolean>; drop(): Promise<void>; create(): Promise<void> }>(
  make: { new (conn: Connection, options?: TableOptions): T; readonly definition: TableDef },
): Promise<T> {
  const t = new make(await connect(), mine(make));
  if (await t.exists()) await t.drop();
  await t.create();
  return t;
}

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

before(async () => {
  target = await Target.start();
});

after(async () => {
  for (const c of opened) c.close();
  const code = await target.stop();
  if (code !== 0) assert.fail(`redbase exited with ${code} after SIGTERM:\n${target.logTail()}`);
});

const NOW = 1_700_000_000_000n;
/** Seconds before NOW of each cpu.load point (hosts web0..web2 in turn). */
const AGES = [15n, 31n, 35n, 4n, 2n, 9n, 21n, 50n, 1n, 12n, 27n, 44n, 7n, 3n];

/** Writes the points; the cpu.load timestamps newest first. */
async function points(tsdb: TsdbTable): Promise<bigint[]> {
  const rows: [TsdbKey, TsdbValues][] = AGES.map((a, i) => [new TsdbKey({ metric: "cpu.load", ts: NOW - a * 1000n, host: `web${i % 3}` }), { value: Number(a) }]);
  for (const a of [0n, 5n]) rows.push([new TsdbKey({ metric: "mem.used", ts: NOW - a * 1000n, host: "web0" }), { value: -1 }]);
  rows.push([new TsdbKey({ metric: "cpu.loadx", ts: NOW, host: "web0" }), { value: -2 }]);
  await tsdb.putMany(rows);
  return AGES.map((a) => NOW - a * 1000n).sort((a, b) => (a > b ? -1 : 1));
}

test("the newest points of a metric across every bucket", async () => {
  const tsdb = await fresh(TsdbTable);
  const newest = await points(tsdb);
  const every = await collect(tsdb.scan({ metric: "cpu.load" }));
  assert.deepEqual(every.map((r) => r.key.ts), newest);
  assert.ok(new Set(every.map((r) => r.key.salt)).size > 1, "the points are spread over several buckets");
  const three = await collect(tsdb.scan({ metric: "cpu.load" }, { limit: 3 }));
  assert.deepEqual(three.map((r) => r.key.ts), [NOW - 1000n, NOW - 2000n, NOW - 3000n]);
  assert.deepEqual(three.map((r) => r.values.value), [1, 2, 3]);
  const window = await collect(tsdb.scan({ metric: "cpu.load", ts: [NOW - 10_000n, NOW] }));
  assert.deepEqual(window.map((r) => r.key.ts), newest.filter((t) => t >= NOW - 10_000n), "a range means its values");
  const oldest = await collect(tsdb.scan({ metric: "cpu.load" }, { reversed: true, limit: 2 }));
  assert.deepEqual(oldest.map((r) => r.key.ts), [NOW - 50_000n, NOW - 44_000n]);
  const all = await collect(tsdb.scan(undefined, { limit: 20 }));
  assert.deepEqual(all.slice(-3).map((r) => r.key.metric), ["cpu.loadx", "mem.used", "mem.used"]);
});

test("bucket order is an explicit option", async () => {
  const tsdb = await fresh(TsdbTable);
  const newest = await points(tsdb);
  const rows = await collect(tsdb.scan({ metric: "cpu.load" }, { bucketOrder: true }));
  const salts = rows.map((r) => r.key.salt ?? -1);
  assert.deepEqual(salts, [...salts].sort((a, b) => a - b), "one bucket after the other");
  assert.deepEqual(rows.map((r) => r.key.ts).sort((a, b) => (a > b ? -1 : 1)), newest);
  for (const b of new Set(salts)) {
    const inBucket = rows.filter((r) => r.key.salt === b).map((r) => r.key.ts);
    assert.deepEqual(inBucket, [...inBucket].sort((a, c) => (a > c ? -1 : 1)), "each bucket newest first");
  }
  const one = await collect(tsdb.scan({ metric: "cpu.load" }, { bucketOrder: true, limit: 1 }));
  assert.deepEqual(one.map((r) => r.key.salt), [rows[0]?.key.salt]);
});

test("a metric prefix across every bucket", async () => {
  const tsdb = await fresh(TsdbTable);
  const newest = await points(tsdb);
  const cpu = await collect(tsdb.scan({ metric: { startsWith: "cpu." } }));
  assert.deepEqual(
    cpu.map((r) => `${r.key.metric}@${r.key.ts}`),
    [...newest.map((t) => `cpu.load@${t}`), `cpu.loadx@${NOW}`],
  );
  const filtered = await collect(tsdb.scan(undefined, { filter: TsdbKey.prefixFilter({ metric: { startsWith: "cpu." } }) }));
  assert.deepEqual(filtered.map((r) => r.rowKey), cpu.map((r) => r.rowKey), "the same rows as a PrefixFilter");
});

/**
 * Seed 004's directories; `|` is the key's separator and a backslash its escape, so both are
 * escaped in the keys, and `/dir10` shares the text `/dir1` without being under it.
 */
const PATHS = ["/", "/dir1", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3", "/dir1/a|b", "/dir10", "/dir1|odd", "/dir1\\x", "/dir2"];

/** The paths starting with `prefix`, in key order (escaped bytes). */
const under = (prefix: string): string[] =>
  PATHS.filter((p) => p.startsWith(prefix)).sort((a, b) => Buffer.compare(new DriveDirectoriesKey({ path: a }).encode(), new DriveDirectoriesKey({ path: b }).encode()));

test("a subtree of escaped paths", async () => {
  const dirs = await fresh(DriveDirectoriesTable);
  await dirs.putMany(PATHS.map((path, i) => [new DriveDirectoriesKey({ path }), { creator: "tom", children: new Map([[`d_${i}`, "1"]]) } as DriveDirectoriesValues] as const));
  const paths = async (...args: Parameters<typeof dirs.scan>): Promise<string[]> => (await collect(dirs.scan(...args))).map((r) => r.key.path);
  const sub = await paths({ path: { startsWith: "/dir1/" } });
  assert.deepEqual(sub, ["/dir1/a|b", "/dir1/dir2", "/dir1/dir2/dir4", "/dir1/dir3"]);
  assert.deepEqual(under("/dir1/"), sub);
  for (const prefix of ["/dir1", "/dir1|", "/dir1\\", "/dir1/dir2", "/", "", "/nothing"]) {
    assert.deepEqual(await paths({ path: { startsWith: prefix } }), under(prefix), prefix);
  }
  assert.deepEqual(await paths({ path: { startsWith: "/dir1/" } }, { reversed: true, limit: 2 }), ["/dir1/dir3", "/dir1/dir2/dir4"]);
  const filter = DriveDirectoriesKey.prefixFilter({ path: { startsWith: "/dir1/" } });
  assert.deepEqual(await paths(undefined, { filter }), sub, "the same subtree as a server-side PrefixFilter");
  const odd = await collect(dirs.scan({ path: { startsWith: "/dir1|" } }));
  assert.deepEqual(odd.map((r) => [r.key.path, r.values.creator]), [["/dir1|odd", "tom"]]);
});
