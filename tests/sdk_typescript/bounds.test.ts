/**
 * Key-component bounds against a real Thrift2 gateway: a `[low, high]` pair selects exactly the
 * rows whose component lies between the two values (inclusive), never a longer value that
 * merely starts with `high`; a whole key given by value is that row alone; and a range is
 * refused with a KeyEncodingError naming the component wherever the key's byte order is not the
 * component's value order (hashed, reversed, escaped, separated text followed by more
 * components, separated numbers without a width) or its low is above its high, since start and
 * stop rows could then only return the wrong rows.
 */

import assert = require("node:assert/strict");
import { after, before, test } from "node:test";
import {
  AccessLogsByPeriodKey,
  AccessLogsByPeriodTable,
  AccessLogsByUserKey,
  AccessLogsByUserTable,
  AccessLogsKey,
  AccessLogsTable,
  Connection,
  CountersKey,
  CountersTable,
  EventsKey,
  EventsTable,
  KeyEncodingError,
  KeyRange,
  KeySpec,
  LeaderboardKey,
  LeaderboardTable,
  TableDef,
  TableOptions,
  WebPagesKey,
  WebPagesTable,
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
const mine = (make: { readonly definition: TableDef }): TableOptions => ({ name: `ts_bounds_${make.definition.name}` });

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

/** A KeyEncodingError whose message matches `why`. */
const refused =
  (why: RegExp) =>
  (e: unknown): boolean =>
    e instanceof KeyEncodingError && why.test(e.message);

before(async () => {
  target = await Target.start();
});

after(async () => {
  for (const c of opened) c.close();
  const code = await target.stop();
  if (code !== 0) assert.fail(`redbase exited with ${code} after SIGTERM:\n${target.logTail()}`);
});

/** In value order; "k0", "k_" and "ka" start with "k" but are greater than it. */
const USERS = ["i", "j", "k", "k0", "k_", "ka", "l"];

/** period|system_id|user_id: user_id is the last component of a separated key. */
async function byPeriod(): Promise<AccessLogsByPeriodTable> {
  const t = await fresh(AccessLogsByPeriodTable);
  await t.putMany(USERS.map((userId) => [new AccessLogsByPeriodKey({ period: 201501, systemId: "s", userId }), { hits: 1n }] as const));
  return t;
}

const userIds = (rows: readonly { key: { userId: string } }[]): string[] => rows.map((r) => r.key.userId);

test("a text range on the last component stops at the high value", async () => {
  const t = await byPeriod();
  const got = userIds(await collect(t.scan({ period: 201501, systemId: "s", userId: ["j", "k"] })));
  assert.deepEqual(got, ["j", "k"], "high 'k' includes 'k' itself, not 'k0', 'k_' or 'ka'");
  const same = AccessLogsByPeriodKey.bounds({ period: 201501, systemId: "s", userId: ["j", "k"] });
  assert.deepEqual(userIds(await collect(t.scan(same))), ["j", "k"]);
  assert.deepEqual(userIds(await collect(t.scan(same, { reversed: true }))), ["k", "j"]);
  assert.deepEqual(userIds(await collect(t.scan({ period: 201501, systemId: "s", userId: ["k", "k_"] }))), ["k", "k0", "k_"]);
  assert.deepEqual(userIds(await collect(t.scan({ period: 201501, systemId: "s", userId: ["k0", "l"] }))), ["k0", "k_", "ka", "l"]);
});

test("a range on a salted last component stops at the high value in every bucket", async () => {
  const events = await fresh(EventsTable);
  const names = ["foo0004", "foo0005", "foo0006", "foo0008", "foo00080", "foo0008a", "foo0009"];
  await events.putMany(names.map((event, i) => [new EventsKey({ event }), { at: BigInt(i) }] as const));
  const got = (await collect(events.scan({ event: ["foo0005", "foo0008"] }))).map((r) => r.key.event).sort();
  assert.deepEqual(got, ["foo0005", "foo0006", "foo0008"]);
  assert.equal(EventsKey.bounds({ event: ["foo0005", "foo0008"] }).ranges.length, 4, "one range per salt bucket (4 buckets)");
});

test("a whole key given by value is that row alone", async () => {
  const t = await byPeriod();
  assert.deepEqual(userIds(await collect(t.scan({ period: 201501, systemId: "s", userId: "k" }))), ["k"]);
  assert.deepEqual(userIds(await collect(t.scan(AccessLogsByPeriodKey.prefix({ period: 201501, systemId: "s", userId: "k" })))), ["k"]);
  assert.deepEqual(userIds(await collect(t.scan(AccessLogsByPeriodKey.prefix({ period: 201501, systemId: "s" })))), USERS);
  const pages = await fresh(WebPagesTable);
  for (const path of ["", "/", "/a"]) await pages.put(new WebPagesKey({ domain: "www.example.com", path }), { fetched: 1n });
  const root = (await collect(pages.scan(WebPagesKey.prefix({ domain: "www.example.com", path: "" })))).map((r) => r.key.path);
  assert.deepEqual(root, [""], "an empty last component matches only the empty path (docs/schema.md)");
  assert.deepEqual((await collect(pages.scan({ domain: "www.example.com" }))).map((r) => r.key.path), ["", "/", "/a"]);
});

test("separated text followed by more components is not in value order: a range on it is refused", async () => {
  const t = await fresh(AccessLogsByUserTable); // user_id|system_id|period
  await t.putMany(["j", "k", "k0", "l"].map((userId) => [new AccessLogsByUserKey({ userId, systemId: "s", period: 201501 }), { hits: 1n }] as const));
  assert.deepEqual(userIds(await collect(t.scan())), ["j", "k0", "k", "l"], "'k0|' sorts before 'k|': key order is not value order");
  const why = /component user_id: .*separated.* not in its value order/;
  await assert.rejects(t.scan({ userId: ["k", "l"] }).next(), refused(why));
  assert.throws(() => AccessLogsByUserKey.bounds({ userId: ["j", "k"] }), refused(why));
  await assert.rejects(t.scan({ userId: "k", systemId: ["a", "z"] }).next(), refused(/component system_id: .*separated.* not in its value order/));
  const periods = await collect(t.scan({ userId: "k", systemId: "s", period: [201501, 201501] }));
  assert.deepEqual(periods.map((r) => r.key.period), [201501], "a number with a width may be a range");
  const logs = await fresh(AccessLogsTable); // md5(user_id)[:5]|system_id|period
  await assert.rejects(logs.scan({ userId: "dave", systemId: ["anvil", "jericho"] }).next(), refused(/component system_id: .*separated.* not in its value order/));
  assert.throws(() => AccessLogsKey.bounds({ userId: "dave", systemId: ["anvil", "jericho"] }), refused(/component system_id: .*not in its value order/));
});

test("reversed and escaped components are not in value order: a range on them is refused", async () => {
  const counters = await fresh(CountersTable); // separated, its only component escaped
  for (const name of ["a]", "a|", "a~", "b"]) await counters.put(new CountersKey({ name }), { slots: new Map([[1, 1n]]) });
  assert.deepEqual((await collect(counters.scan())).map((r) => r.key.name), ["a|", "a]", "a~", "b"], "'a\\|' sorts before 'a]'");
  await assert.rejects(counters.scan({ name: ["a]", "a~"] }).next(), refused(/component name: .*escape.* not in its value order/));
  assert.deepEqual((await collect(counters.scan({ name: "a|" }))).map((r) => r.key.name), ["a|"], "one value still works");
  const pages = await fresh(WebPagesTable);
  await assert.rejects(pages.scan({ domain: ["a.com", "b.com"] }).next(), refused(/component domain: .*reversed.* not in its value order/));
});

test("separated numbers without a width are not in value order: a range on them is refused", () => {
  const component = { charset: "any", escape: false, desc: false, reverseTimestamp: false, allowEmpty: false, kept: true } as const;
  const spec = new KeySpec("separated", "|", [{ ...component, name: "host", type: "string", charset: "word" }, { ...component, name: "n", type: "i64" }], null, null, "unpadded");
  assert.ok(Buffer.compare(spec.encode(["h", 10n]), spec.encode(["h", 9n])) < 0, "'10' sorts before '9'");
  assert.throws(() => KeyRange.bounds(spec, ["h", [9n, 10n]]), refused(/component n: .*without a width.* not in its value order/));
  const one = KeyRange.bounds(spec, ["h", 9n]).ranges.map(([start, stop]) => [start.toString("hex"), stop?.toString("hex")]);
  assert.deepEqual(one, [[Buffer.from("h|9").toString("hex"), Buffer.from("h|9\0").toString("hex")]], "one value still works");
});

test("hashed components and ranges whose low is above their high are refused", async () => {
  const t = await byPeriod();
  await assert.rejects(t.scan({ period: 201501, systemId: "s", userId: ["k", "j"] }).next(), refused(/component user_id: the range's low 'k' is above its high 'j'/));
  const board = await fresh(LeaderboardTable); // score is descending: the key holds high values first
  await board.putMany([10n, 100n, 300n, 500n].map((score) => [new LeaderboardKey({ game: "chess", score, name: "p" }), { player: { score: Number(score) } }] as const));
  await assert.rejects(board.scan({ game: "chess", score: [300n, 10n] }).next(), refused(/component score: the range's low 300 is above its high 10/));
  const scores = (await collect(board.scan({ game: "chess", score: [10n, 300n] }))).map((r) => r.key.score);
  assert.deepEqual(scores, [300n, 100n, 10n], "a descending component: highest first, both ends included");
  const start = LeaderboardKey.bounds({ game: "chess", score: [10n, 300n] }).ranges[0]?.[0];
  assert.deepEqual(start, LeaderboardKey.prefix({ game: "chess", score: 300n }).ranges[0]?.[0]);
  const logs = await fresh(AccessLogsTable);
  await assert.rejects(logs.scan({ userId: ["a", "b"] }).next(), refused(/component user_id is hashed/));
});

test("a component after a missing one, or a range before another component, is refused naming it", () => {
  assert.throws(() => AccessLogsByPeriodKey.bounds({ period: 201501, userId: "k" }), refused(/component system_id: /));
  assert.throws(() => AccessLogsByPeriodKey.bounds({ period: [201501, 201502], systemId: "s" }), refused(/component system_id: only the last component given may be a range \(period is one\)/));
  assert.throws(() => AccessLogsKey.bounds({ systemId: "s" }), refused(/component user_id: .*hash prefix/));
});
