// node-hbase (npm `hbase`) against redbase's REST API through the library's own calls:
// tables and schemas, puts, gets with versions, scanners with filters, deletes, cluster info.
// REST_PORT names the server's port (tests/rest/test_clients.py starts the server).
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const hbase = require('hbase');

const client = hbase({ host: '127.0.0.1', port: Number(process.env.REST_PORT) });

// The library's callbacks as promises.
const call = (obj, method, ...args) =>
  new Promise((resolve, reject) =>
    obj[method](...args, (err, value) => (err ? reject(err) : resolve(value))));

test('node-hbase drives tables, rows and scanners', async () => {
  const table = client.table('node_t');
  await call(table, 'create', { ColumnSchema: [{ name: 'cf', VERSIONS: 3 }] });
  assert.strictEqual(await call(table, 'exists'), true);
  const schema = await call(table, 'schema');
  assert.strictEqual(schema.name, 'node_t');
  assert.strictEqual(schema.ColumnSchema[0].name, 'cf');
  const tables = await call(client, 'tables');
  assert.ok(tables.some((t) => t.name === 'node_t'));

  const row = table.row('r1');
  await call(row, 'put', 'cf:a', 'one');
  await call(row, 'put', 'cf:a', 'two');
  await call(table.row('r2'), 'put', ['cf:a', 'cf:b'], ['x', 'y']);
  let cells = await call(row, 'get', 'cf:a');
  assert.strictEqual(cells.length, 1);
  assert.strictEqual(cells[0].$, 'two');
  cells = await call(row, 'get', 'cf:a', { v: 3 });
  assert.deepStrictEqual(cells.map((c) => c.$), ['two', 'one']);
  cells = await call(table.row('r*'), 'get');
  assert.deepStrictEqual([...new Set(cells.map((c) => c.key))], ['r1', 'r2']);

  const rows = await call(table, 'scan', { startRow: 'r1', endRow: 'r3', maxVersions: 1 });
  assert.deepStrictEqual(rows.map((c) => `${c.key}/${c.column}=${c.$}`),
    ['r1/cf:a=two', 'r2/cf:a=x', 'r2/cf:b=y']);
  const filtered = await call(table, 'scan', {
    filter: { type: 'ValueFilter', op: 'EQUAL', comparator: { type: 'BinaryComparator', value: 'y' } },
  });
  assert.deepStrictEqual(filtered.map((c) => c.key), ['r2']);
  // No maxVersions: every version (HBase's scanner default), both of r1's.
  const prefixed = await call(table, 'scan', { filter: { type: 'PrefixFilter', value: 'r1' } });
  assert.deepStrictEqual(prefixed.map((c) => c.$), ['two', 'one']);

  await call(table.row('r2'), 'delete', 'cf:b');
  cells = await call(table.row('r2'), 'get');
  assert.deepStrictEqual(cells.map((c) => c.column), ['cf:a']);
  await call(table.row('r1'), 'delete');
  await assert.rejects(call(table.row('r1'), 'get'), (e) => e.code === 404);

  const regions = await call(table, 'regions');
  assert.strictEqual(regions.name, 'node_t');
  const version = await call(client, 'version_cluster');
  assert.ok(String(JSON.stringify(version)).includes('2.6.1'));
  await call(table, 'delete');
  assert.strictEqual(await call(table, 'exists'), false);
});
