// runCase through its in-process API with a stand-in sandbox: a proof that is not ok fails the case
// (exit 2, saying why) even when the subject and the grade pass, and OUT/sandbox.json is written; the
// real probe run without isolation refuses to start the subject at all.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { stageGh } from "../../lib/gh/stage.ts";
import { type RunContext, runCase } from "../../lib/hermetic/case-run.ts";
import {
  type IsolationProbe,
  type IsolationProof,
  openProbe,
  type Sandbox,
} from "../../lib/isolation/sandbox/index.ts";
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

// A probe that adds nothing to the command and returns a fixed proof.
const fixedProbe = (p: IsolationProof) => async (): Promise<IsolationProbe> => ({
  command: (command) => command,
  judge: (r) => ({ proof: p, stdout: "stdout" in r ? r.stdout : "", started: true }),
  close: () => {},
});

test("an isolation proof that is not ok fails the case with exit 2", async () => {
  using dir = tempDir("case-run-proof");
  const keep = join(dir.path, "keep");
  const c = writeEvalCase(dir.path, { name: "quiet", body: "" });
  const gh = await stageGh();
  const ctx = (ok: boolean): RunContext => ({
    sandbox: passThrough,
    prepare: () => {},
    probe: fixedProbe(proof(ok)),
    gh,
    repoRoot: dir.path,
    keep,
  });
  const bad = await runCase(c, ctx(false));
  const noList = await runCase(c, {
    ...ctx(false),
    probe: fixedProbe({ ...proof(false), problems: undefined }),
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

test.skipIf(process.platform !== "linux")(
  "without isolation the real probe never starts the subject",
  async () => {
    using dir = tempDir("case-run-refused");
    const keep = join(dir.path, "keep");
    const c = writeEvalCase(dir.path, { name: "eager", body: 'echo ran > "$OUT/ran"' });
    const o = await runCase(c, {
      sandbox: passThrough,
      prepare: () => {},
      probe: openProbe,
      gh: await stageGh(),
      repoRoot: dir.path,
      keep,
    });
    expect({
      code: o.exitCode,
      stage: o.stage,
      message: o.message?.split(":")[0],
      subjectMs: o.subjectMs,
      ran: existsSync(join(keep, "eager", "out", "ran")),
      ok: o.sandbox?.ok,
      namespaces: o.sandbox?.namespaces,
    }).toEqual({
      code: 2,
      stage: "isolation",
      message: "isolation not shown, subject not started",
      subjectMs: null,
      ran: false,
      ok: false,
      namespaces: [],
    });
  },
);

test("grading has its own bound: past --grade-timeout the case ends with exit 2 and one line", async () => {
  using dir = tempDir("case-run-grade-timeout");
  // idd-lint repo awaits a git child, so the 1 ms bound always lands first
  const c = writeEvalCase(dir.path, {
    name: "slow-grade",
    body: "",
    grade: [{ tool: "idd-lint", args: ["repo"], label: "repo" }],
  });
  const o = await runCase(c, {
    sandbox: passThrough,
    prepare: () => {},
    probe: fixedProbe(proof(true)),
    gh: await stageGh(),
    repoRoot: dir.path,
    gradeTimeoutMs: 1,
  });
  expect({
    code: o.exitCode,
    stage: o.stage,
    message: o.message,
    lines: o.chunks.filter((ch) => ch.text.startsWith("✗")).map((ch) => ch.text),
  }).toEqual({
    code: 2,
    stage: "grade",
    message: "eval failed: slow-grade",
    lines: ["✗ grading timed out after 0.001s (--grade-timeout)\n", "✗ eval failed: slow-grade\n"],
  });
});
