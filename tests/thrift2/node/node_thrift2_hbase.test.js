// node-thrift2-hbase 0.6.2 from npm, unmodified, against a real `redbase serve` (Thrift2 only,
// on a free loopback port) or, with REDBASE_SDK_TARGET=host:port, against a running Thrift2
// gateway such as the HBase oracle's. Tables are made with `redbase shell`, since the library
// has no DDL. Every call goes through the library's public API: Put/Get/Del/Inc/Scan objects,
// the promisified service methods, salting, typed columns and the scan stream.
"use strict";

const { test, before, after } = require("node:test");
const assert = require("node:assert/strict");
const { spawn, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..", "..");
const BIN = process.env.REDBASE_BIN || path.join(ROOT, "target", "debug", "redbase");
const PREFIX = "nt2h_" + process.pid + "_";
const T = PREFIX + "users";
const SALTED = PREFIX + "salted";

let server = null;
let dir = null;
let host = "127.0.0.1";
let port = 0;
let HBase = null;

function freePort() {
  return new Promise((done, fail) => {
    const s = net.createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const p = s.address().port;
      s.close(() => done(p));
    });
  });
}

function accepts(p) {
  return new Promise((done) => {
    const sock = net.createConnection({ host: "127.0.0.1", port: p }, () => {
      sock.destroy();
      done(true);
    });
    sock.once("error", () => done(false));
  });
}

/** Runs HBase shell commands through `redbase shell` against the gateway under test. */
function shell(commands) {
  const script = path.join(os.tmpdir(), `nt2h-${process.pid}-${Date.now()}.hb`);
  fs.writeFileSync(script, commands.join("\n") + "\n");
  try {
    return execFileSync(BIN, ["shell", "--thrift2", `${host}:${port}`, script], {
      encoding: "utf8",
    });
  } finally {
    fs.rmSync(script, { force: true });
  }
}

before(async () => {
  const given = process.env.REDBASE_SDK_TARGET;
  if (given) {
    const at = given.lastIndexOf(":");
    host = given.slice(0, at);
    port = Number(given.slice(at + 1));
  } else {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "redbase-nt2h-"));
    port = await freePort();
    const log = fs.openSync(path.join(dir, "redbase.log"), "a");
    server = spawn(
      BIN,
      ["serve", "--data-dir", path.join(dir, "data"), "--gateways", "thrift2",
        "--thrift2-addr", `127.0.0.1:${port}`, "--http-addr", "127.0.0.1:0"],
      { stdio: ["ignore", log, log] },
    );
    const deadline = Date.now() + 30000;
    while (!(await accepts(port))) {
      assert.ok(server.exitCode === null && Date.now() < deadline, "redbase did not start");
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  shell([
    `create '${T}', {NAME => 'info', VERSIONS => 3}, 'ecf'`,
    `create '${SALTED}', 'f'`,
  ]);
  HBase = require("node-thrift2-hbase")({ hosts: [host], port, saltMap: {} });
  HBase.saltMap[SALTED] = HBase.saltFunctions.saltByLastKeyCharCode;
});

after(async () => {
  if (HBase) {
    // The library's destroy() drains the pool but never calls its callback back (its wrapper
    // of generic-pool's drain drops it), so close the idle connections directly after it.
    HBase.destroy();
    await new Promise((done) => HBase.clientPool.destroyAllNow(done));
  }
  shell([`disable '${T}'`, `drop '${T}'`, `disable '${SALTED}'`, `drop '${SALTED}'`]);
  if (server) {
    const code = await new Promise((done) => {
      server.once("exit", (c) => done(c));
      server.kill("SIGTERM");
    });
    assert.equal(code, 0, "redbase stopped cleanly");
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const text = (b) => Buffer.from(b).toString();
/** A TResult as {qualifier: value} of one family, values as strings. */
function cells(result, family = "info") {
  const out = {};
  for (const cv of result.columnValues) {
    if (text(cv.family) === family) out[text(cv.qualifier)] = text(cv.value);
  }
  return out;
}

test("typed puts read back through typed gets", async () => {
  const put = new HBase.Put("typed");
  put.add("info", "name", "alice");
  put.add("info", "age", { type: "integer", value: 30 });
  put.add("info", "score", { type: "float", value: 1.5 });
  put.add("info", "ratio", { type: "double", value: -7.25 });
  put.add("info", "big", { type: "integer48", value: 2 ** 40 + 3 });
  put.add("info", "doc", { type: "json", value: { a: [1, 2], b: "x" } });
  await HBase.putAsync(T, put);

  const get = new HBase.Get("typed");
  get.add("info", { name: "age", type: "integer" });
  get.add("info", { name: "score", type: "float" });
  get.add("info", { name: "ratio", type: "double" });
  get.add("info", { name: "big", type: "integer48" });
  get.add("info", { name: "doc", type: "json" });
  get.add("info", "name");
  const row = await HBase.getAsync(T, get);
  assert.deepEqual(row, {
    rowkey: "typed",
    info: { age: 30, big: 2 ** 40 + 3, doc: { a: [1, 2], b: "x" }, name: "alice", ratio: -7.25, score: 1.5 },
  });
});

test("getRow by column and by family; a missing row has no cells", async () => {
  await HBase.putRowAsync(T, "r1", "info", { name: "bob", city: "Oslo" });
  const p = new HBase.Put("r1");
  p.add("ecf", "tag", "t1");
  await HBase.putAsync(T, p);

  const one = await HBase.getRowAsync(T, "r1", ["info:name"], 1);
  assert.equal(text(one.row), "r1");
  assert.deepEqual(cells(one), { name: "bob" });
  assert.equal(one.columnValues.length, 1);

  const fam = await HBase.getRowAsync(T, "r1", ["ecf"], 1);
  assert.deepEqual(cells(fam, "ecf"), { tag: "t1" });
  assert.equal(fam.columnValues.length, 1);

  const all = await HBase.getRowAsync(T, "r1", [], 1);
  assert.deepEqual(cells(all), { city: "Oslo", name: "bob" });
  assert.equal(all.columnValues.length, 3);

  const none = await HBase.getRowAsync(T, "no-such-row", ["info"], 1);
  assert.equal(none.columnValues.length, 0);
});

test("versions: explicit timestamps, maxVersions, time ranges, a timestamp on a column, a version delete", async () => {
  for (const [ts, v] of [[1000, "v1"], [2000, "v2"], [3000, "v3"], [4000, "v4"]]) {
    const p = new HBase.Put("ver");
    p.add("info", "q", v, ts);
    await HBase.putAsync(T, p);
  }
  // VERSIONS => 3 keeps the newest three.
  const get = new HBase.Get("ver");
  get.addColumn("info", "q");
  get.setMaxVersions(10);
  let r = await HBase.getAsync(T, get);
  assert.deepEqual(r.columnValues.map((c) => text(c.value)), ["v4", "v3", "v2"]);
  assert.deepEqual(r.columnValues.map((c) => c.timestamp.toNumber()), [4000, 3000, 2000]);

  // [2000, 4000): v3 and v2.
  const ranged = new HBase.Get("ver", { maxVersions: 10, timeRange: { minStamp: 2000, maxStamp: 4000 } });
  ranged.addColumn("info", "q");
  r = await HBase.getAsync(T, ranged);
  assert.deepEqual(r.columnValues.map((c) => text(c.value)), ["v3", "v2"]);

  // HBase's gateway ignores a TColumn's timestamp in a get (ThriftUtilities.getFromThrift), so
  // the library's addTimestamp reads the newest version, not the one at 3000.
  const exact = new HBase.Get("ver");
  exact.addTimestamp("info", "q", 3000);
  r = await HBase.getAsync(T, exact);
  assert.deepEqual(r.columnValues.map((c) => text(c.value)), ["v4"]);

  // The library's deletes carry deleteType DELETE_COLUMNS, the IDL's default: a timestamp
  // deletes that version and every older one.
  const del = new HBase.Del("ver");
  del.addTimestamp("info", "q", 3000);
  await HBase.delAsync(T, del);
  r = await HBase.getAsync(T, get);
  assert.deepEqual(r.columnValues.map((c) => text(c.value)), ["v4"]);
});

test("deletes of a column, a family and a row", async () => {
  await HBase.putRowAsync(T, "d1", "info", { a: "1", b: "2" });
  const p = new HBase.Put("d1");
  p.add("ecf", "c", "3");
  p.add("ecf", "", "empty qualifier");
  await HBase.putAsync(T, p);

  let del = new HBase.Del("d1");
  del.addColumn("info", "a");
  await HBase.delAsync(T, del);
  let r = await HBase.getRowAsync(T, "d1", [], 1);
  assert.deepEqual(cells(r), { b: "2" });
  assert.deepEqual(cells(r, "ecf"), { "": "empty qualifier", c: "3" });

  // A column without a qualifier under DELETE_COLUMNS is the empty qualifier in HBase 2
  // (Delete.addColumns(family, null)), so the library's addFamily leaves the family's other
  // columns alone.
  del = new HBase.Del("d1");
  del.addFamily("ecf");
  await HBase.delAsync(T, del);
  r = await HBase.getRowAsync(T, "d1", [], 1);
  assert.deepEqual(cells(r, "ecf"), { c: "3" });
  assert.deepEqual(cells(r), { b: "2" });

  await HBase.delAsync(T, new HBase.Del("d1"));
  r = await HBase.getRowAsync(T, "d1", [], 1);
  assert.equal(r.columnValues.length, 0);
});

test("increments: inc and incRow return the new 8-byte counts", async () => {
  const inc = new HBase.Inc("ctr");
  inc.add("info", "hits", 5);
  inc.add("info", "misses");
  let r = await HBase.incAsync(T, inc);
  const counts = (res) =>
    Object.fromEntries(res.columnValues.map((c) => [text(c.qualifier), Buffer.from(c.value).readBigInt64BE()]));
  assert.deepEqual(counts(r), { hits: 5n, misses: 1n });

  r = await HBase.incRowAsync(T, "ctr", [{ cf: "info", qualifier: "hits", amount: -7 }]);
  assert.deepEqual(counts(r), { hits: -2n });

  const get = new HBase.Get("ctr");
  get.add("info", { name: "hits", type: "int64" });
  const row = await HBase.getAsync(T, get);
  assert.equal(row.info.hits.toNumber(), -2);
});

test("durability and attributes are accepted on every mutation", async () => {
  const setters = ["setSkipWalDurability", "setAsyncWalDurability", "setSyncWalDurability", "setFSyncWalDurability"];
  for (const [i, set] of setters.entries()) {
    const p = new HBase.Put("dur");
    p.add("info", `q${i}`, set);
    p[set]();
    p.setAttributes({ origin: Buffer.from("node") });
    await HBase.putAsync(T, p);
  }
  const r = await HBase.getRowAsync(T, "dur", ["info"], 1);
  assert.deepEqual(cells(r), Object.fromEntries(setters.map((s, i) => [`q${i}`, s])));
});

test("scans: bounds, a limit, columns, a filter string, typed columns", async () => {
  for (let i = 0; i < 12; i++) {
    const p = new HBase.Put(`s${String(i).padStart(2, "0")}`);
    p.add("info", "n", { type: "integer", value: i });
    p.add("ecf", "odd", i % 2 ? "yes" : "no");
    await HBase.putAsync(T, p);
  }
  const rows = (res) => res.map((r) => text(r.row));

  let scan = new HBase.Scan();
  scan.setStartRow("s03").setStopRow("s07");
  scan.setLimit(100);
  assert.deepEqual(rows(await HBase.scanAsync(T, scan)), ["s03", "s04", "s05", "s06"]);

  scan = new HBase.Scan();
  scan.setStartRow("s00").setStopRow("s99").setLimit(5);
  assert.deepEqual(rows(await HBase.scanAsync(T, scan)), ["s00", "s01", "s02", "s03", "s04"]);

  scan = new HBase.Scan();
  scan.setStartRow("s00").setStopRow("s99").setLimit(100);
  scan.setFilterString("SingleColumnValueFilter('ecf', 'odd', =, 'binary:yes', true, true)");
  scan.add("ecf", "odd");
  const odd = await HBase.scanAsync(T, scan);
  assert.deepEqual(rows(odd), ["s01", "s03", "s05", "s07", "s09", "s11"]);
  assert.ok(odd.every((r) => r.columnValues.length === 1 && text(r.columnValues[0].qualifier) === "odd"));

  scan = new HBase.Scan();
  scan.setStartRow("s08").setStopRow("s99").setLimit(100);
  scan.add("info", { name: "n", type: "integer" });
  assert.deepEqual(await HBase.scanAsync(T, scan), [
    { rowkey: "s08", info: { n: 8 } },
    { rowkey: "s09", info: { n: 9 } },
    { rowkey: "s10", info: { n: 10 } },
    { rowkey: "s11", info: { n: 11 } },
  ]);
});

test("the scan stream pages through a scanner in chunks and closes it", async () => {
  const read = (scan) =>
    new Promise((done, fail) => {
      const chunks = [];
      const s = HBase.createScanStream(T, scan);
      s.on("data", (c) => chunks.push(c.map((r) => text(r.row))));
      s.on("end", () => done(chunks));
      s.on("error", fail);
    });
  let scan = new HBase.Scan();
  scan.setStartRow("s00").setStopRow("s99").setChunkSize(5);
  assert.deepEqual(await read(scan), [
    ["s00", "s01", "s02", "s03", "s04"],
    ["s05", "s06", "s07", "s08", "s09"],
    ["s10", "s11"],
  ]);
  scan = new HBase.Scan();
  scan.setStartRow("s00").setStopRow("s99").setChunkSize(4).setLimit(6);
  assert.deepEqual(await read(scan), [["s00", "s01", "s02", "s03"], ["s04", "s05"]]);
});

test("salted keys: the service salts puts and gets alike", async () => {
  await HBase.putRowAsync(SALTED, "user7", "f", { v: "seven" });
  const r = await HBase.getRowAsync(SALTED, "user7", ["f"], 1);
  // saltByLastKeyCharCode: '7' is 55, so the stored row is "5user7".
  assert.equal(text(r.row), "5user7");
  assert.deepEqual(cells(r, "f"), { v: "seven" });
});

test("errors reach the caller and the connection pool recovers", async () => {
  const get = new HBase.Get("x");
  await assert.rejects(HBase.getAsync(PREFIX + "no_such_table", get), (e) => {
    assert.match(String(e.message || e), /no_such_table/);
    return true;
  });
  const p = new HBase.Put("x");
  p.add("nofamily", "q", "v");
  await assert.rejects(HBase.putAsync(T, p), (e) => {
    assert.match(String(e.message || e), /nofamily/);
    return true;
  });
  // The pool replaced the connections it dropped on error: calls still work.
  await HBase.putRowAsync(T, "after-errors", "info", { ok: "yes" });
  const r = await HBase.getRowAsync(T, "after-errors", ["info"], 1);
  assert.deepEqual(cells(r), { ok: "yes" });
});
