// runCase through its in-process API with a stand-in sandbox: a proof that is not ok fails the case
// (exit 2, saying why) even when the subject and the grade pass, and OUT/sandbox.json is written.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type RunContext, runCase } from "../../lib/runner/case-run.ts";
import { stageGh } from "../../lib/runner/gh-stage.ts";
import type { IsolationProof, Sandbox } from "../../lib/sandbox.ts";
import { tempDir } from "../support/tmp.ts";
import { writeEvalCase } from "./support.ts";

// Runs the command as is: only the proof decides here, and the subject below does nothing.
const passThrough: Sandbox = {
  mechanism: "unshare",
  subjectUid: null,
  subjectGid: null,
  wrap: (spec) => ({ argv: spec.command, env: spec.env }),
};

const proof = (ok: boolean): IsolationProof => ({
  version: 1,
  mechanism: "unshare",
  namespaces: [],
  uid: 1000,
  interfaces: ["lo", "eth0"],
  egress: { target: "127.0.0.1:1 (host loopback)", blocked: ok, detail: ok ? "refused" : "connected" },
  ok,
  problems: ok ? [] : ["egress not shown blocked: connected"],
});

test("an isolation proof that is not ok fails the case with exit 2", async () => {
  using dir = tempDir("case-run-proof");
  const keep = join(dir.path, "keep");
  const c = writeEvalCase(dir.path, { name: "quiet", body: "" });
  const gh = await stageGh();
  const ctx = (ok: boolean): RunContext => ({
    sandbox: passThrough,
    prepare: () => {},
    prove: async () => proof(ok),
    gh,
    repoRoot: dir.path,
    keep,
  });
  const bad = await runCase(c, ctx(false));
  const noList = await runCase(c, {
    ...ctx(false),
    prove: async () => ({ ...proof(false), problems: undefined }),
  });
  const good = await runCase(c, ctx(true));
  expect([bad, noList, good].map((o) => [o.exitCode, o.stage, o.message])).toEqual([
    [2, "isolation", "isolation not shown: egress not shown blocked: connected"],
    [
      2,
      "isolation",
      "isolation not shown: egress to 127.0.0.1:1 (host loopback) was not blocked (connected)",
    ],
    [0, "done", null],
  ]);
  expect(JSON.parse(readFileSync(join(keep, "quiet", "out", "sandbox.json"), "utf8"))).toEqual(proof(true));
});
