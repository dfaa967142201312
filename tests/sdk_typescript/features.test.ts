/**
 * Issue 21's SDK features end to end against a real Thrift2 gateway: batched puts, deletes and
 * increments with per-row errors, the buffered writer (size, time, order, summed increments,
 * background errors), versions and timestamps on reads and writes, column selection, typed
 * filters, key bounds, caching and batch size on scans.
 */

import assert = require("node:assert/strict");
import { after, before, test } from "node:test";
import {
  AccessLogsByPeriodKey,
  AccessLogsByPeriodTable,
  AccessLogsByUserKey,
  AccessLogsByUserTable,
  AccessLogsColumns,
  AccessLogsKey,
  AccessLogsTable,
  BatchError,
  Connection,
  EventsKey,
  EventsTable,
  Filter,
  FilterError,
  IncrementBatchError,
  KeyEncodingError,
  SocialUsageColumns,
  SocialUsageKey,
  SocialUsageTable,
  TableClient,
  TableDef,
  TableOptions,
  ThriftError,
  renamed,
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
const mine = (make: { readonly definition: TableDef }): TableOptions => ({ name: `ts_${make.definition.name}` });

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

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` every 50 ms until it holds; fails after `ms`. */
async function until(cond: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
const logKey = (userId: string, period = 201510, systemId = "jericho"): AccessLogsKey => new AccessLogsKey({ userId, systemId, period });

before(async () => {
  target = await Target.start();
});

after(async () => {
  for (const c of opened) c.close();
  const code = await target.stop();
  if (code !== 0) assert.fail(`redbase exited with ${code} after SIGTERM:\n${target.logTail()}`);
});

test("putMany writes 1,000 rows in chunks; deleteMany removes them", async () => {
  const logs = await fresh(AccessLogsTable);
  const rows = Array.from({ length: 1000 }, (_, i) => [logKey(`user${i}`), { hits: BigInt(i), lastSeen: 1_445_000_000_000n + BigInt(i) }] as const);
  await logs.putMany(rows, { chunkRows: 300, chunkBytes: 16 * 1024 });
  const got = await collect(logs.scan());
  assert.equal(got.length, 1000);
  const byUser = new Map(rows.map(([k, v]) => [k.encode().toString("hex"), v.hits]));
  for (const r of got) assert.equal(r.values.hits, byUser.get(r.rowKey.toString("hex")));
  await logs.deleteMany(rows.slice(0, 600).map(([k]) => k), { chunkRows: 250 });
  assert.equal((await collect(logs.scan())).length, 400);
  assert.equal(await logs.get(logKey("user0")), undefined);
  assert.equal((await logs.get(logKey("user999")))?.values.hits, 999n);
  await assert.rejects(logs.putMany(rows, { chunkRows: 0 }), RangeError);
});

test("a key that cannot be encoded fails the batch before anything is sent", async () => {
  const logs = await fresh(AccessLogsTable);
  const rows = [logKey("ann"), logKey("bob"), logKey(""), logKey("cy")].map((k) => [k, { hits: 1n }] as const);
  await assert.rejects(logs.putMany(rows), (e: unknown) => e instanceof KeyEncodingError && /user_id/.test(e.message));
  assert.deepEqual(await collect(logs.scan()), []);
});

test("per-row errors: a failed chunk is retried row by row and every failed row is named", async () => {
  const logs = await fresh(AccessLogsTable);
  // The raw runtime client, so some rows can name a family the table does not have.
  const raw = new TableClient(await connect(), renamed(AccessLogsTable.definition, mine(AccessLogsTable)));
  const good = Buffer.from("t");
  const rows = Array.from({ length: 10 }, (_, i) => ({
    row: Buffer.from(`row${i}`),
    cells: [[i === 3 || i === 7 ? Buffer.from("nope") : good, Buffer.from("h"), Buffer.alloc(8)] as const],
  }));
  const err = await raw.putMany(rows, { chunkRows: 4 }).then(
    () => assert.fail("the batch should fail"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof BatchError, String(err));
  assert.deepEqual(err.failures.map((f) => [f.index, f.row.toString()]), [[3, "row3"], [7, "row7"]]);
  assert.ok(err.failures.every((f) => /nope/.test(f.message)), err.message);
  assert.equal(err.total, 10);
  const written = (await collect(raw.scan(AccessLogsKey.prefix()))).map((r) => r.row.toString()).sort();
  assert.deepEqual(written, ["row0", "row1", "row2", "row4", "row5", "row6", "row8", "row9"]);
  void logs;
});

test("mutateRow puts and deletes one row atomically; put/delete with timestamps", async () => {
  const logs = await fresh(AccessLogsTable);
  const k = logKey("dave");
  await logs.put(k, { hits: 1n, lastSeen: 5n });
  await logs.mutateRow(k, { put: { hits: 2n }, delete: [AccessLogsColumns.lastSeen] });
  assert.deepEqual((await logs.get(k))?.values, { hits: 2n });
  await assert.rejects(logs.mutateRow(k, { delete: ["x" as "t"] }), RangeError);
});

test("incrementMany: one increment per row with all its counters, results per row", async () => {
  const logs = await fresh(AccessLogsTable);
  const results = await logs.incrementMany([
    [logKey("a"), { hits: 2n }],
    [logKey("b"), { hits: 5n }],
    [logKey("a"), { hits: 1n }],
  ]);
  assert.deepEqual(results, [{ hits: 2n }, { hits: 5n }, { hits: 3n }]);
  const social = await fresh(SocialUsageTable);
  const u = new SocialUsageKey({ userId: "u1" });
  const [r] = await social.incrementMany([[u, { fbTotal: 3n, fbUsage: new Map([[201510, 2n], [201511, 1n]]), twTotal: 1n }]]);
  assert.deepEqual(r, { fbTotal: 3n, fbUsage: new Map([[201510, 2n], [201511, 1n]]), twTotal: 1n });
  assert.deepEqual(await social.increment(u, { fbUsage: new Map([[201510, 10n]]) }), { fbUsage: new Map([[201510, 12n]]) });
});

test("incrementMany: a row the server refuses is named, the others are counted", async () => {
  const logs = await fresh(AccessLogsTable);
  const raw = new TableClient(await connect(), renamed(AccessLogsTable.definition, mine(AccessLogsTable)));
  await raw.put(logKey("bad").encode(), [[Buffer.from("t"), Buffer.from("h"), Buffer.from("abc")]]); // not an 8-byte long
  const err = await logs.incrementMany([[logKey("ok1"), { hits: 1n }], [logKey("bad"), { hits: 1n }], [logKey("ok2"), { hits: 4n }]]).then(
    () => assert.fail("the increment of a 3-byte cell should fail"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof IncrementBatchError, String(err));
  assert.deepEqual(err.failures.map((f) => [f.index, f.row]), [[1, logKey("bad").encode()]]);
  assert.deepEqual(err.results, [{ hits: 1n }, {}, { hits: 4n }]);
  assert.equal((await logs.get(logKey("ok2")))?.values.hits, 4n);
  // Through the writer, the failure's index counts through the writes of the flush.
  const w = logs.writer({ flushIntervalMs: 0 });
  await w.put(logKey("p1"), { lastSeen: 1n });
  await w.increment(logKey("ok1"), { hits: 1n });
  await w.increment(logKey("bad"), { hits: 1n });
  const flushed = await w.close().then(
    () => assert.fail("the flush should fail"),
    (e: unknown) => e,
  );
  assert.ok(flushed instanceof BatchError, String(flushed));
  assert.deepEqual([flushed.failures.map((f) => f.index), flushed.total], [[2], 3]);
  assert.equal((await logs.get(logKey("ok1")))?.values.hits, 2n);
});

test("buffered writer: flushes by rows, by time, on flush and on close", async () => {
  const logs = await fresh(AccessLogsTable);
  const w = logs.writer({ maxRows: 10, flushIntervalMs: 0 });
  for (let i = 0; i < 25; i++) await w.put(logKey(`w${i}`), { hits: BigInt(i) });
  assert.equal(w.pending, 5);
  assert.equal((await collect(logs.scan())).length, 20, "two flushes of 10 rows");
  await w.flush();
  assert.equal((await collect(logs.scan())).length, 25);
  await w.close();
  await assert.rejects(w.put(logKey("late"), { hits: 1n }), /closed/);

  const timed = logs.writer({ flushIntervalMs: 1500 });
  const t0 = Date.now();
  await timed.put(logKey("timer"), { hits: 42n });
  assert.equal(await logs.get(logKey("timer")), undefined, "still buffered");
  await until(async () => (await logs.get(logKey("timer"))) !== undefined, "the timer's flush");
  assert.ok(Date.now() - t0 >= 1400, "sent by the timer, not before");
  assert.equal(timed.pending, 0, "sent with no further call");
  await timed.close();

  const bytes = logs.writer({ maxBytes: 200, flushIntervalMs: 0 });
  for (let i = 0; i < 5; i++) await bytes.put(logKey(`b${i}`), { hits: 1n, lastSeen: 2n });
  assert.ok(bytes.pending < 5, "flushed by the byte bound");
  await bytes.close();
});

test("buffered writer keeps the order of a row's writes and sums its increments", async () => {
  const logs = await fresh(AccessLogsTable);
  await logs.withWriter({ flushIntervalMs: 0 }, async (w) => {
    await w.put(logKey("gone"), { hits: 1n });
    await w.delete(logKey("gone"));
    await w.delete(logKey("back"));
    await w.put(logKey("back"), { hits: 2n });
    for (let i = 0; i < 3; i++) await w.increment(logKey("sum"), { hits: 1n });
    await w.put(logKey("other"), { hits: 9n });
  });
  assert.equal(await logs.get(logKey("gone")), undefined);
  assert.equal((await logs.get(logKey("back")))?.values.hits, 2n);
  const sum = await logs.get(logKey("sum"), { versions: 3 });
  assert.equal(sum?.values.hits, 3n);
  assert.equal(sum?.versions.hits?.length, 1, "three buffered increments were sent as one");
  assert.equal((await logs.get(logKey("other")))?.values.hits, 9n);
});

// A delete marker hides cells at or before its millisecond: on a fast server, a put or
// increment sent right after the row's delete lands in that millisecond unless the writer
// waits. Repeated, since one round passes by luck as often as not.
test("buffered writer: a write after its row's delete survives the delete's millisecond", async () => {
  const logs = await fresh(AccessLogsTable);
  for (let i = 0; i < 40; i++) {
    const key = logKey(`again${i}`);
    await logs.put(key, { hits: 1n });
    await logs.withWriter({ flushIntervalMs: 0 }, async (w) => {
      await w.delete(key);
      await w.put(key, { lastSeen: BigInt(i) });
      await w.flush(); // the delete, then the put, in one flush
      await w.delete(key);
      await w.increment(key, { hits: 5n });
    });
    const row = await logs.get(key);
    assert.ok(row !== undefined, `round ${i}: the row written after its delete is gone`);
    assert.deepEqual([row.values.hits, row.values.lastSeen], [5n, undefined], `round ${i}`);
  }
});

test("an error of a background flush is raised by the next call and by close", async () => {
  const logs = await fresh(AccessLogsTable);
  const w = logs.writer({ flushIntervalMs: 50 });
  await logs.drop();
  await w.put(logKey("lost"), { hits: 1n });
  let raised: unknown = null;
  // The timer's flush fails in the background; the next call (put here) raises its error.
  await until(() => w.put(logKey("next"), { hits: 1n }).then(() => false, (e: unknown) => ((raised = e), true)), "the failed flush's error");
  assert.ok(raised instanceof BatchError, String(raised));
  assert.match(raised.message, /rows failed/);
  await w.flush().catch(() => undefined);
  const again = logs.writer({ flushIntervalMs: 50 });
  await again.put(logKey("lost"), { hits: 1n });
  await sleep(200);
  await assert.rejects(again.close(), (e: unknown) => e instanceof BatchError || e instanceof ThriftError);
});

test("versions, time ranges and exact timestamps on reads; timestamps on writes", async () => {
  const logs = await fresh(AccessLogsTable); // family t keeps 3 versions
  const k = logKey("dave");
  for (const [ts, hits] of [[1000n, 1n], [2000n, 2n], [3000n, 3n]] as const) await logs.put(k, { hits }, { timestamp: ts });
  const all = await logs.get(k, { versions: 3 });
  assert.equal(all?.values.hits, 3n, "values are the newest");
  assert.deepEqual(all?.versions.hits, [{ timestamp: 3000n, value: 3n }, { timestamp: 2000n, value: 2n }, { timestamp: 1000n, value: 1n }]);
  assert.deepEqual(all?.cells.map((c) => [c.qualifier.toString(), c.timestamp]), [["h", 3000n], ["h", 2000n], ["h", 1000n]]);
  assert.deepEqual((await logs.get(k))?.versions.hits, [{ timestamp: 3000n, value: 3n }], "one version by default");
  assert.equal((await logs.get(k, { at: 2000 }))?.values.hits, 2n);
  assert.equal(await logs.get(k, { at: 2500n }), undefined);
  const range = await logs.get(k, { versions: 3, timeRange: [1000n, 3000n] });
  assert.deepEqual(range?.versions.hits?.map((v) => v.timestamp), [2000n, 1000n], "[min, max)");
  const scanned = await collect(logs.scan({ userId: "dave" }, { versions: 2 }));
  assert.deepEqual(scanned[0]?.versions.hits?.map((v) => v.value), [3n, 2n]);
  await logs.putMany([[k, { lastSeen: 7n }]], { timestamp: 1500n });
  assert.equal((await logs.get(k, { at: 1500n }))?.values.lastSeen, 7n);
  await logs.delete(k, { timestamp: 2000n });
  const left = await logs.get(k, { versions: 3 });
  assert.deepEqual(left?.versions.hits, [{ timestamp: 3000n, value: 3n }], "versions <= 2000 deleted");
  assert.equal(left?.values.lastSeen, undefined);
  await logs.delete(k, { columns: [AccessLogsColumns.hits], timestamp: 3000n });
  assert.equal(await logs.get(k), undefined);
  await assert.rejects(logs.get(k, { at: 1n, timeRange: [0n, 5n] }), RangeError);
  await assert.rejects(logs.get(k, { versions: 0 }), RangeError);
  await assert.rejects(logs.put(k, { hits: 1n }, { timestamp: -1n }), RangeError);
  await assert.rejects(logs.get(k, { timeRange: [5n, 1n] }), RangeError);
});

test("column selection: typed columns, whole families, pattern columns", async () => {
  const logs = await fresh(AccessLogsTable);
  const k = logKey("sel");
  await logs.put(k, { hits: 4n, lastSeen: 9n });
  assert.deepEqual((await logs.get(k, { columns: [AccessLogsColumns.hits] }))?.values, { hits: 4n });
  assert.deepEqual((await logs.get(k, { columns: ["t"] }))?.values, { hits: 4n, lastSeen: 9n });
  const social = await fresh(SocialUsageTable);
  const u = new SocialUsageKey({ userId: "u" });
  await social.put(u, { fbId: "f", fbTotal: 2n, fbUsage: new Map([[201510, 1n]]), twId: "t" });
  assert.deepEqual((await social.get(u, { columns: [SocialUsageColumns.fbUsage] }))?.values, { fbUsage: new Map([[201510, 1n]]) });
  assert.deepEqual((await social.get(u, { columns: [SocialUsageColumns.fbUsage, "tw"] }))?.values, { fbUsage: new Map([[201510, 1n]]), twId: "t" });
  const scanned = await collect(social.scan(undefined, { columns: [SocialUsageColumns.twId] }));
  assert.deepEqual(scanned.map((r) => r.values), [{ twId: "t" }]);
  await assert.rejects(social.delete(u, { columns: [SocialUsageColumns.fbUsage] }), RangeError);
});

test("typed filters: values, key prefix, page, key-only, first-key-only, timestamps, column prefix, all/any", async () => {
  const logs = await fresh(AccessLogsTable);
  const users = ["dave", "elton", "fred", "gina"];
  await logs.putMany(users.flatMap((u, i) => [201510, 201511].map((p) => [logKey(u, p), { hits: BigInt(i * 10 + p - 201510), lastSeen: 100n }] as const)));
  const names = async (filter: Filter): Promise<string[]> =>
    (await collect(logs.scan(undefined, { filter }))).map((r) => `${users.find((u) => logKey(u).encode().subarray(0, 5).equals(r.rowKey.subarray(0, 5)))}:${r.key.period}`).sort();
  assert.deepEqual(await names(AccessLogsColumns.hits.ge(20n)), ["fred:201510", "fred:201511", "gina:201510", "gina:201511"]);
  assert.deepEqual(await names(AccessLogsColumns.hits.eq(11n)), ["elton:201511"]);
  assert.deepEqual(await names(AccessLogsColumns.hits.lt(1n)), ["dave:201510"]);
  assert.deepEqual(await names(AccessLogsKey.prefixFilter({ userId: "elton" })), ["elton:201510", "elton:201511"]);
  assert.deepEqual(await names(Filter.all(AccessLogsKey.prefixFilter({ userId: "gina" }), AccessLogsColumns.hits.ne(30n))), ["gina:201511"]);
  assert.deepEqual(await names(AccessLogsColumns.hits.eq(0n).or(AccessLogsColumns.hits.eq(31n))), ["dave:201510", "gina:201511"]);
  const keysOnly = await collect(logs.scan(undefined, { filter: Filter.keyOnly() }));
  assert.equal(keysOnly.length, 8);
  assert.ok(keysOnly.every((r) => r.cells.every((c) => c.value.length === 0) && r.values.hits === undefined));
  const first = await collect(logs.scan(undefined, { filter: Filter.firstKeyOnly() }));
  assert.ok(first.every((r) => r.cells.length === 1));
  const hitsOnly = await collect(logs.scan(undefined, { filter: Filter.columnPrefix("h") }));
  assert.ok(hitsOnly.every((r) => r.values.lastSeen === undefined && r.values.hits !== undefined));
  await logs.put(logKey("dave"), { hits: 99n }, { timestamp: 12345n });
  const at = await collect(logs.scan(undefined, { filter: Filter.timestamps([12345n]) }));
  assert.deepEqual(at.map((r) => r.values), [{ hits: 99n }]);
  const byUser = await fresh(AccessLogsByUserTable);
  await byUser.putMany(["a", "b", "c", "d", "e"].map((u) => [new AccessLogsByUserKey({ userId: u, systemId: "s", period: 201501 }), { hits: 1n }] as const));
  assert.equal((await collect(byUser.scan(undefined, { filter: Filter.page(3) }))).length, 3);
  assert.throws(() => Filter.all(), FilterError);
  assert.throws(() => Filter.page(-1), FilterError);
  assert.throws(() => Filter.value(SocialUsageColumns.fbUsage as never, "=", 1n), FilterError);
});

test("scan bounds: leading components by value, then one [low, high] pair, inclusive", async () => {
  const logs = await fresh(AccessLogsTable);
  const rows = [];
  for (const u of ["dave", "erin"]) for (const s of ["anvil", "jericho", "zeus"]) for (let m = 1; m <= 12; m++) rows.push([logKey(u, 201500 + m, s), { hits: BigInt(m) }] as const);
  await logs.putMany(rows);
  const got = await collect(logs.scan({ userId: "dave", systemId: "jericho", period: [201503, 201506] }));
  assert.deepEqual(got.map((r) => r.key.period), [201503, 201504, 201505, 201506]);
  const back = await collect(logs.scan({ userId: "dave", systemId: "jericho", period: [201503, 201506] }, { reversed: true, limit: 2 }));
  assert.deepEqual(back.map((r) => r.key.period), [201506, 201505]);
  // system_id's text is followed by `|period` in the key: "k0|" sorts before "k|", so no byte
  // range holds exactly the systems from "b" to "k".
  assert.throws(() => AccessLogsKey.bounds({ userId: "erin", systemId: ["b", "k"] }), (e: unknown) => e instanceof KeyEncodingError && /system_id/.test(e.message) && /not in its value order/.test(e.message));
  assert.equal((await collect(logs.scan({ userId: "erin" }))).length, 36);
  assert.throws(() => AccessLogsKey.prefix({ period: 201501 }), (e: unknown) => e instanceof KeyEncodingError && /user_id/.test(e.message) && /hash prefix/.test(e.message));
  assert.throws(() => AccessLogsKey.bounds({ userId: "dave", period: [201501, 201502] }), (e: unknown) => e instanceof KeyEncodingError && /system_id/.test(e.message));
  assert.throws(() => AccessLogsKey.bounds({ userId: "dave", systemId: ["a", "b"], period: 201501 }), KeyEncodingError);
  assert.throws(() => AccessLogsKey.bounds({ userId: ["a", "b"] }), (e: unknown) => e instanceof KeyEncodingError && /hash/.test(e.message));
  const byPeriod = await fresh(AccessLogsByPeriodTable);
  await byPeriod.putMany([201509, 201510, 201511, 201512].map((period) => [new AccessLogsByPeriodKey({ period, systemId: "s", userId: "u" }), { hits: 1n }] as const));
  assert.deepEqual((await collect(byPeriod.scan({ period: [201510, 201511] }))).map((r) => r.key.period), [201510, 201511]);
  // Text as the last component sorts by value: "k0" is past "k", "jz" within.
  await byPeriod.putMany(["a", "b", "jz", "k", "k0", "l"].map((userId) => [new AccessLogsByPeriodKey({ period: 201601, systemId: "s", userId }), { hits: 1n }] as const));
  const users = await collect(byPeriod.scan({ period: 201601, systemId: "s", userId: ["b", "k"] }));
  assert.deepEqual(users.map((r) => r.key.userId), ["b", "jz", "k"]);
  const events = await fresh(EventsTable); // salted: the bounds hold in every bucket
  await events.putMany(["a1", "a2", "b1", "c1"].map((event) => [new EventsKey({ event }), { at: 1n }] as const));
  assert.deepEqual((await collect(events.scan({ event: ["a", "b1"] }))).map((r) => r.key.event).sort(), ["a1", "a2", "b1"]);
});

test("caching and batch size: rows come back whole", async () => {
  const social = await fresh(SocialUsageTable);
  const usage = new Map(Array.from({ length: 12 }, (_, i) => [201501 + i, BigInt(i)] as const));
  await social.putMany(["a", "b", "c"].map((userId) => [new SocialUsageKey({ userId }), { fbId: userId, fbUsage: usage }] as const));
  const rows = await collect(social.scan(undefined, { batchSize: 5, caching: 1 }));
  assert.deepEqual(rows.map((r) => r.key.userId), ["a", "b", "c"]);
  for (const r of rows) assert.deepEqual(r.values.fbUsage, usage);
  await assert.rejects(social.scan(undefined, { caching: 0 }).next(), RangeError);
});
