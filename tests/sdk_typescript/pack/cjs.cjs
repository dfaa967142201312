// The npm package from CommonJS: require() and destructuring.
"use strict";
const assert = require("node:assert/strict");
const { AccessLogsKey, AccessLogsTable, Filter } = require("redbase_examples");

assert.equal(new AccessLogsKey({ userId: "dave", systemId: "jericho", period: 201510 }).encode().toString(), "16108|jericho|201510");
assert.equal(typeof AccessLogsTable, "function");
assert.equal(Filter.keyOnly().toString(), "KeyOnlyFilter()");
assert.equal(require("redbase_examples/package.json").version, process.argv[2]);
console.log("cjs ok");
