// The npm package from an ES module: named imports, the default export, and the same objects
// as require() gives (one implementation behind both entry points).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import pkg, { AccessLogsKey, AccessLogsTable, Connection, Filter, KeyEncodingError } from "redbase_examples";

const key = new AccessLogsKey({ userId: "dave", systemId: "jericho", period: 201510 });
assert.equal(key.encode().toString(), "16108|jericho|201510");
assert.equal(typeof AccessLogsTable, "function");
assert.equal(pkg.AccessLogsTable, AccessLogsTable);
assert.equal(Filter.page(3).toString(), "PageFilter(3)");
assert.throws(() => new AccessLogsKey({ userId: "", systemId: "s", period: 1 }).encode(), KeyEncodingError);
const cjs = createRequire(import.meta.url)("redbase_examples");
assert.equal(cjs.Connection, Connection, "the ESM and CommonJS entries share one implementation");
assert.deepEqual(Object.keys(pkg).filter((n) => n !== "default").sort(), Object.keys(cjs).sort());
console.log("esm ok");
