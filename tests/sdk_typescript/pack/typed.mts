// TypeScript in ES module mode (module/moduleResolution nodenext) sees the package's types
// through its "import" condition.
import { AccessLogsKey, AccessLogsTable, Connection, type AccessLogsValues } from "redbase_examples";

const values: AccessLogsValues = { hits: 1n };
const key: AccessLogsKey = new AccessLogsKey({ userId: "dave", systemId: "jericho", period: 201510 });
export async function write(conn: Connection): Promise<void> {
  await new AccessLogsTable(conn).put(key, values);
}
