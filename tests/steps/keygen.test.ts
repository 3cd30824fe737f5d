// `eval-steps keygen` (issue 26): a plaintext pair store has no pair key to derive the session key
// from, and nothing made one. keygen writes a new key (32 bytes, base64, mode 0600, never over a
// file) that harvest takes as --session-key-file; without --out it prints it.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { loadPairKey } from "../../lib/steps/pairs/index.ts";
import { generateSessions, sessionPairs, writePairStore } from "../support/pair-gen.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

async function evalSteps(args: string[]) {
  const r = await run([BIN.bun, join(REPO_ROOT, "scripts", "eval-steps.ts"), ...args], {
    env: { PATH: process.env.PATH ?? "" },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

test("keygen --out: a key file harvest takes; a plaintext store harvested with it; never overwritten", async () => {
  using dir = tempDir("keygen");
  const key = join(dir.path, "session.key");
  const made = await evalSteps(["keygen", "--out", key]);
  const { kid } = loadPairKey(key);
  const pairs = join(dir.path, "pairs.jsonl");
  writePairStore(
    pairs,
    generateSessions({ seed: 3, sessions: 2, maxDepth: 4 }).flatMap((s) => sessionPairs(s).pairs),
    {},
  );
  const out = join(dir.path, "suite");
  const base = ["harvest", "--pairs", pairs, "--experiment", "exp", "--select", "sample"];
  const without = await evalSteps([...base, "--out", join(dir.path, "none")]);
  const harvested = await evalSteps([...base, "--session-key-file", key, "--out", out]);
  writeFileSync(join(dir.path, "mine.key"), "keep me\n");
  const again = await evalSteps(["keygen", "--out", join(dir.path, "mine.key")]);
  expect({
    made,
    mode: (statSync(key).mode & 0o777).toString(8),
    without: { exitCode: without.exitCode, stderr: without.stderr },
    harvested: harvested.exitCode,
    cases: readdirSync(out).length > 0,
    again,
    kept: readFileSync(join(dir.path, "mine.key"), "utf8"),
  }).toEqual({
    made: {
      exitCode: 0,
      stdout: "",
      stderr: `✓ wrote a new key to ${key} (id ${kid}): harvest --session-key-file ${key} hashes session ids with it\n`,
    },
    mode: "600",
    without: {
      exitCode: 2,
      stderr:
        "✗ Cannot harvest: session ids are hashed with a key: give --pair-key-file or --session-key-file (eval-steps keygen --out FILE makes one)\n",
    },
    harvested: 0,
    cases: true,
    again: {
      exitCode: 2,
      stdout: "",
      stderr: `✗ Cannot write key "${join(dir.path, "mine.key")}": it exists (a key file is never overwritten)\n`,
    },
    kept: "keep me\n",
  });
});

test("keygen alone prints a new key, a different one each time", async () => {
  const [a, b] = await Promise.all([evalSteps(["keygen"]), evalSteps(["keygen"])]);
  expect({
    shape: [a, b].map((r) => ({
      exitCode: r.exitCode,
      line: /^[A-Za-z0-9+/]{43}=\n$/.test(r.stdout),
      stderr: r.stderr,
    })),
    differ: a.stdout !== b.stdout,
  }).toEqual({
    shape: [
      { exitCode: 0, line: true, stderr: "" },
      { exitCode: 0, line: true, stderr: "" },
    ],
    differ: true,
  });
});
