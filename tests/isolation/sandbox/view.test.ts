// What a run-eval subject sees, through the real entry: a case in a host folder whose subject looks
// for the answers (the host case folder's expected/ and its own copy under EVAL_CASE_DIR), the
// repository and its .git/config, and still has python3, git and the gh shim. Each read is shown
// possible on the host first, so a view that leaks makes the test fail.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openTmp, runEval, writeEvalCase } from "../../hermetic/support.ts";
import { REPO_ROOT } from "../../support/tools.ts";

test("a run-eval subject sees neither the case folder's expected/ (host or copy) nor the repository", async () => {
  // Under the repository (not /tmp, which every sandbox covers), world-readable: only the view hides it.
  const parent = join(REPO_ROOT, "tests/fixtures/sandbox");
  mkdirSync(parent, { recursive: true });
  const root = mkdtempSync(join(parent, ".view-"));
  using tmp = openTmp();
  try {
    chmodSync(root, 0o755);
    const targets = {
      "host expected": join(root, "peek", "expected", "fix.diff"),
      "copied expected": "$EVAL_CASE_DIR/expected/fix.diff",
      repository: join(REPO_ROOT, "package.json"),
      "git config": join(REPO_ROOT, ".git", "config"),
    };
    const body = [
      ...Object.entries(targets).map(
        ([label, path]) =>
          `if cat "${path}" >/dev/null 2>&1; then echo "VIEW readable ${label}"; else echo "VIEW hidden ${label}"; fi`,
      ),
      'echo "VIEW case dir: $(ls "$EVAL_CASE_DIR" | tr "\\n" " ")"',
      "python3 -c 'print(\"VIEW python3 ok\")'",
      'git init -q "$EVAL_STATE_DIR/g" && echo "VIEW git ok"',
      // A cassette miss, but the shim ran (126/127 would mean it could not be executed or found).
      'rc=0; gh issue view 999 >/dev/null 2>&1 || rc=$?; echo "VIEW gh ran: $rc"',
    ].join("\n");
    const caseDir = writeEvalCase(root, { name: "peek", body });
    mkdirSync(join(caseDir, "expected"), { mode: 0o755 });
    writeFileSync(join(caseDir, "expected", "fix.diff"), "the answer\n", { mode: 0o644 });
    // Control: each host path is readable outside the sandbox.
    const outside = [targets["host expected"], targets.repository, targets["git config"]].map(
      (p) => readFileSync(p, "utf8").length > 0,
    );
    const r = await runEval([caseDir], { TMPDIR: tmp.path });
    const lines = r.stdout.split("\n").filter((l) => l.startsWith("VIEW "));
    expect({ outside, exit: r.exitCode, lines }).toEqual({
      outside: [true, true, true],
      exit: 0,
      lines: [
        "VIEW hidden host expected",
        "VIEW hidden copied expected",
        "VIEW hidden repository",
        "VIEW hidden git config",
        "VIEW case dir: case.json subject.sh ",
        "VIEW python3 ok",
        "VIEW git ok",
        expect.stringMatching(/^VIEW gh ran: (?!12[67]$)\d+$/),
      ],
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
