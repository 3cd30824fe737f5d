// What a run leaves in the system temp dir: only the documented per-machine caches (lib/gh/stage.ts's
// `proctor-gh-<key>`, the sandbox's `proctor-subject-<uid>`, the replay index under `proctor-<uid>`).
// Each run-eval work directory, promotion run root, probe and pre-run extract is removed.
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { openTmp, runEval, writeEvalCase } from "../hermetic/support.ts";
import { agentEval, makeLane, runArgs } from "../promotion/_lane.ts";
import { tempDir } from "../support/tmp.ts";

/** The temp dir's entries, each named by the documented cache it is (or as it is, when it is none). */
function entries(dir: string): string[] {
  return readdirSync(dir)
    .map((n) =>
      /^proctor-gh-[0-9a-f]{16}$/.test(n)
        ? "proctor-gh-<key>"
        : /^proctor-subject-\d+$/.test(n)
          ? "proctor-subject-<uid>"
          : /^proctor-\d+$/.test(n)
            ? "proctor-<uid>"
            : n,
    )
    .sort();
}

const DOCUMENTED = new Set(["proctor-gh-<key>", "proctor-subject-<uid>", "proctor-<uid>"]);

describe("a run leaves only the documented caches in the temp dir", () => {
  test("run-eval", async () => {
    using tmp = openTmp();
    using cases = tempDir("stage-temp-cases");
    const dir = writeEvalCase(cases.path, { name: "temp/one", body: 'echo hi > "$OUT/hi.txt"' });
    const before = entries(tmp.path);
    const r = await runEval([dir], { TMPDIR: tmp.path });
    const after = entries(tmp.path);
    expect({ code: r.exitCode, before, left: after.filter((n) => !DOCUMENTED.has(n)) }).toEqual({
      code: 0,
      before: [],
      left: [],
    });
    expect(after).toContain("proctor-gh-<key>");
  });

  test("agent-eval run", async () => {
    using tmp = openTmp();
    using dir = tempDir("stage-temp-promotion");
    const lane = makeLane(dir.path);
    const before = entries(tmp.path);
    const r = await agentEval(runArgs(lane, "--runs", "1"), lane.repo, { TMPDIR: tmp.path });
    const after = entries(tmp.path);
    expect({ code: r.code, before, left: after.filter((n) => !DOCUMENTED.has(n)) }).toEqual({
      code: 0,
      before: [],
      left: [],
    });
  });
});
