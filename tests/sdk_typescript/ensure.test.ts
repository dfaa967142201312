/**
 * `Table.ensure()` at start-up against a real Thrift2 gateway: it creates a missing table, adds
 * missing families and sets drifted family settings as the schema says, and rejects with a
 * SchemaDriftError listing every difference it will not fix (a family the schema lacks, other
 * split points). The drift is made behind the SDK's back with `redbase shell`.
 */

import assert = require("node:assert/strict");
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Connection, EventsTable, SchemaDriftError, SocialUsageTable, TableDef, TableOptions } from "redbase_examples";
import { Target } from "./server";

let target: Target;
const opened: Connection[] = [];
const BIN = process.env["REDBASE_BIN"] ?? join(__dirname, "..", "..", "..", "..", "target", "debug", "redbase");

before(async () => {
  target = await Target.start();
});

after(async () => {
  for (const c of opened) c.close();
  const code = await target.stop();
  if (code !== 0) assert.fail(`redbase exited with ${code} after SIGTERM:\n${target.logTail()}`);
});

/** The suite's copy of a table (`ts_ensure_`), dropped if it exists: not created. */
async function missing<T extends { exists(): Promise<boolean>; drop(): Promise<void> }>(
  make: { new (conn: Connection, options?: TableOptions): T; readonly definition: TableDef },
): Promise<[T, string]> {
  const conn = await Connection.open(target.host, target.port);
  opened.push(conn);
  const name = `ts_ensure_${make.definition.name}`;
  const t = new make(conn, { name });
  if (await t.exists()) await t.drop();
  return [t, name];
}

function shell(command: string): void {
  execFileSync(BIN, ["shell", "-n", "--thrift2", `${target.host}:${target.port}`, "-e", command], { stdio: "pipe" });
}

test("ensure creates a missing table, sets drifted settings, adds missing families", async () => {
  const [social, name] = await missing(SocialUsageTable);
  assert.deepEqual(await social.ensure(), [`default:${name}: created the table with its families and split keys`]);
  assert.deepEqual(await social.ensure(), []);
  shell(`alter '${name}', {NAME => 'fb', VERSIONS => 7, TTL => 60}, {NAME => 'tw', METHOD => 'delete'}`);
  assert.deepEqual(await social.ensure(), [
    `default:${name}: family fb: VERSIONS was 7, set to 1`,
    `default:${name}: family fb: TTL was 60, set to FOREVER`,
    `default:${name}: added family tw`,
  ]);
  assert.deepEqual(await social.ensure(), [], "the table matches now");
  shell(`alter '${name}', {NAME => 'x'}`);
  await assert.rejects(social.ensure(), (e: unknown) => e instanceof SchemaDriftError && e.drifts.join() === "extra family x (not in the schema)" && /--allow-drop/.test(e.message));
});

test("ensure refuses other split points", async () => {
  const [events, name] = await missing(EventsTable);
  shell(`create '${name}', 'e', SPLITS => ['m']`);
  await assert.rejects(events.ensure(), (e: unknown) => e instanceof SchemaDriftError && e.drifts.join() === "split points are ['m'], the schema says ['b', 'c', 'd']");
});
