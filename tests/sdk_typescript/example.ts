/**
 * The docs/sdks.md example, compiled with tsc --strict and run by e2e.test.ts (and runnable as
 * `node .build/tests/example.js HOST PORT`): seed 000's hashed access-logs table with batches,
 * the buffered writer, versions, a range scan and a server-side filter.
 */

import { AccessLogsColumns, AccessLogsKey, AccessLogsTable, Connection } from "redbase_examples";

/** `logs`: `new AccessLogsTable(conn)` ("access-logs": 16 regions split on '1'..'f'). */
export async function main(logs: AccessLogsTable): Promise<{ versions: bigint[]; hot: number[] }> {
  const key = (userId: string, period: number): AccessLogsKey => new AccessLogsKey({ userId, systemId: "jericho", period });

  // Batches: putMany sends 1,000 rows per call; a BatchError names each row the server refused.
  const users = ["dave", "elton", "fred"];
  await logs.putMany(users.flatMap((u) => [201501, 201502, 201503].map((p) => [key(u, p), { lastSeen: 1_420_070_400_000n }] as const)));
  // The buffered writer flushes by rows, bytes and time; increments of one counter are summed.
  await logs.withWriter({ flushIntervalMs: 500 }, async (w) => {
    for (let i = 0; i < 100; i++) await w.increment(key("dave", 201502), { hits: 1n });
  });

  // Versions: family t keeps 3, a write may carry its own timestamp, reads return them all.
  for (const ts of [1000n, 2000n, 3000n]) await logs.put(key("elton", 201512), { lastSeen: ts * 10n }, { timestamp: ts });
  const row = await logs.get(key("elton", 201512), { versions: 3, columns: [AccessLogsColumns.lastSeen] });
  const versions = (row?.versions.lastSeen ?? []).map((v) => v.timestamp); // [3000n, 2000n, 1000n]

  // A range over the typed key (inclusive), filtered by the server (HBase's filter language).
  const hot: number[] = [];
  const range = { userId: "dave", systemId: "jericho", period: [201502, 201503] as const };
  for await (const r of logs.scan(range, { filter: AccessLogsColumns.hits.ge(100n) })) hot.push(r.key.period); // [201502]
  return { versions, hot };
}

if (require.main === module) {
  void (async () => {
    const conn = await Connection.open(process.argv[2], Number(process.argv[3]));
    try {
      console.log(await main(new AccessLogsTable(conn)));
    } finally {
      conn.close();
    }
  })();
}
