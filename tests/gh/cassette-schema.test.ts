import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CassetteFile, cassetteJsonSchema } from "../../lib/gh/cassette-schema.ts";

test("schemas/cassette.schema.json is the generated schema", () => {
  const committed = readFileSync(
    join(import.meta.dirname, "..", "..", "schemas", "cassette.schema.json"),
    "utf8",
  );
  expect(committed).toEqual(cassetteJsonSchema());
});

test.each([
  {
    name: "spec example",
    value: { version: 1, calls: [{ argv: ["auth", "status"], match: "prefix", stdout: "ok\n", exit: 0 }] },
    ok: true,
  },
  { name: "version null, calls absent", value: { version: null }, ok: true },
  { name: "$schema allowed", value: { $schema: "../schemas/cassette.schema.json", calls: [] }, ok: true },
  { name: "version 2", value: { version: 2, calls: [] }, ok: false },
  { name: "unknown root key", value: { calls: [], note: "x" }, ok: false },
  { name: "argv number", value: { calls: [{ argv: ["issue", 7] }] }, ok: false },
  { name: "exit out of range", value: { calls: [{ argv: ["a"], exit: 256 }] }, ok: false },
  { name: "typo in match key", value: { calls: [{ argv: ["a"], mtach: "prefix" }] }, ok: false },
])("CassetteFile: $name", ({ value, ok }) => {
  expect(CassetteFile.safeParse(value).success).toEqual(ok);
});
