/**
 * The docs/sdks.md example, compiled with tsc --strict and run by e2e.test.ts (and runnable as
 * `node .build/tests/example.js HOST PORT`): seed 000's hashed access-logs table.
 */

import { AccessLogsKey, AccessLogsTable, Connection } from "redbase_examples";

export async function main(conn: Connection): Promise<string[]> {
  const logs = new AccessLogsTable(conn); // "access-logs": 16 regions split on '1'..'f'
  for (const userId of ["dave", "elton", "fred"]) {
    const key = new AccessLogsKey({ userId, systemId: "jericho", period: 201510 });
    await logs.put(key, { lastSeen: 1_445_000_000_000n });
    await logs.incrementHits(key, 3n);
  }
  const row = await logs.get(new AccessLogsKey({ userId: "dave", systemId: "jericho", period: 201510 }));
  if (row?.rowKey.toString() !== "16108|jericho|201510") throw new Error("unexpected row key");
  const hits: bigint = row.values.hits ?? 0n;
  if (hits < 3n) throw new Error("hits not counted");
  const systems: string[] = [];
  for await (const r of logs.scan(AccessLogsKey.prefix({ userId: "dave" }))) systems.push(r.key.systemId);
  return systems;
}

if (require.main === module) {
  void (async () => {
    const conn = await Connection.open(process.argv[2], Number(process.argv[3]));
    try {
      console.log(await main(conn));
    } finally {
      conn.close();
    }
  })();
}
