/**
 * The generated README's quick start (sdks/typescript/README.md), taken from the README itself
 * rather than copied here: compiled with `tsc --strict` against the built package and run with
 * node against a real Thrift2 gateway, its address the only text changed.
 */

import assert = require("node:assert/strict");
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Target } from "./server";

const HERE = join(__dirname, "..", "..");
const README = join(HERE, "..", "..", "sdks", "typescript", "README.md");
/** The address the README dials: redbase's Thrift2 port. */
const DIAL = 'Connection.open("127.0.0.1", 9091)';

let target: Target;

before(async () => {
  target = await Target.start();
});

after(async () => {
  const code = await target.stop();
  if (code !== 0) assert.fail(`redbase exited with ${code} after SIGTERM:\n${target.logTail()}`);
});

/** The first ts code block under the README's "## Quick start" heading. */
function quickStart(): string {
  const text = readFileSync(README, "utf8");
  const at = text.indexOf("\n## Quick start\n");
  assert.ok(at >= 0, "the README has a Quick start section");
  const m = /```ts\n([\s\S]*?)```/.exec(text.slice(at));
  assert.ok(m !== null && m[1] !== undefined, "a ts block under Quick start");
  return m[1];
}

test("the README's quick start compiles with tsc --strict and runs", () => {
  const code = quickStart();
  assert.equal(code.split(DIAL).length, 2, "the README dials redbase's Thrift2 port, 127.0.0.1:9091");
  const dir = join(HERE, ".build", "readme");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "quick_start.ts"), code.replace(DIAL, `Connection.open(${JSON.stringify(target.host)}, ${target.port})`));
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", lib: ["ES2022"], module: "commonjs", moduleResolution: "node", types: ["node"], strict: true, skipLibCheck: true, outDir: "out" },
      files: ["quick_start.ts"],
    }),
  );
  execFileSync(join(HERE, "node_modules", ".bin", "tsc"), ["-p", dir], { stdio: "pipe" });
  const out = execFileSync(process.execPath, [join(dir, "out", "quick_start.js")], { encoding: "utf8", timeout: 60_000 });
  assert.match(out, /example/, "the quick start printed its row");
});
