// The thrift npm package as a client of redbase's Thrift2 port, for tests/security/test_node.py.
// The Thrift2 client is the Thrift compiler's `--gen js:node` output of idl/hbase2.thrift (run.sh
// puts it in $SECURITY_BUILD/node/gen). One JSON argument:
//   {"mode": "tls" | "plain" | "https", "port": N, "ca": "ca.crt", "cert": "...", "key": "...",
//    "user": "...", "password": "...", "table": "t", "gen": "<dir of the generated code>"}
// Creates the table, puts a row and reads it back: prints "OK <value>", or "ERROR <error>" and
// exits 2.
"use strict";
const fs = require("fs");
const path = require("path");
const thrift = require("thrift");

const opts = JSON.parse(process.argv[2]);
const THBaseService = require(path.join(opts.gen, "THBaseService.js"));
const types = require(path.join(opts.gen, "hbase2_types.js"));

function fail(err) {
  console.log("ERROR " + (err && (err.message || err.statusCode) ? `${err.name}: ${err.message}` : String(err)));
  if (err && err.response && err.statusCode) {
    console.log(`HTTP ${err.statusCode}`);
  }
  process.exit(2);
}

function connect() {
  const common = { transport: thrift.TBufferedTransport, protocol: thrift.TBinaryProtocol };
  const tls = { ca: fs.readFileSync(opts.ca), servername: "localhost" };
  if (opts.cert) {
    tls.cert = fs.readFileSync(opts.cert);
    tls.key = fs.readFileSync(opts.key);
  }
  if (opts.mode === "plain") {
    return thrift.createConnection("127.0.0.1", opts.port, common);
  }
  if (opts.mode === "tls") {
    return thrift.createSSLConnection("127.0.0.1", opts.port, Object.assign({}, common, tls));
  }
  if (opts.mode === "https") {
    const headers = {};
    if (opts.user) {
      headers.Authorization = "Basic " + Buffer.from(`${opts.user}:${opts.password}`).toString("base64");
    }
    return thrift.createHttpConnection("127.0.0.1", opts.port,
      Object.assign({}, common, { https: true, path: "/", headers, nodeOptions: tls }));
  }
  throw new Error("unknown mode " + opts.mode);
}

async function main() {
  const conn = connect();
  conn.on("error", fail);
  const client = thrift.createClient(THBaseService, conn);
  const table = Buffer.from(opts.table);
  await client.createTable(new types.TTableDescriptor({
    tableName: new types.TTableName({ ns: Buffer.from("default"), qualifier: table }),
    columns: [new types.TColumnFamilyDescriptor({ name: Buffer.from("f") })],
  }), null);
  await client.put(table, new types.TPut({
    row: Buffer.from("r1"),
    columnValues: [new types.TColumnValue({
      family: Buffer.from("f"), qualifier: Buffer.from("q"), value: Buffer.from("from node"),
    })],
  }));
  const got = await client.get(table, new types.TGet({ row: Buffer.from("r1") }));
  if (got.columnValues.length !== 1) {
    throw new Error(`get returned ${got.columnValues.length} cells`);
  }
  console.log("OK " + got.columnValues[0].value.toString());
  if (conn.end) {
    conn.end();
  }
  process.exit(0);
}

main().catch(fail);
setTimeout(() => fail(new Error("timed out")), 60000).unref();
