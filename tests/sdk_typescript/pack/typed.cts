// TypeScript in CommonJS mode sees the same types through the "require" condition.
import { AccessLogsKey, type AccessLogsValues } from "redbase_examples";

const values: AccessLogsValues = { lastSeen: 5n };
export const row = [new AccessLogsKey({ userId: "dave", systemId: "jericho", period: 201510 }).encode(), values] as const;
