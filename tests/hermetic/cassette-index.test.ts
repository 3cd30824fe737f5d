// run-eval indexes a large cassette copy once per case and binds the index read-only into the
// sandbox: the subject's gh calls answer as before (hit, prefix, miss), the subject can neither write,
// remove nor rename the index, and a subject that rewrites its cassette copy is replayed from the new
// bytes, as run_eval.sh's shim would.
import { expect, test } from "bun:test";
import { tempDir } from "../support/tmp.ts";
import { openTmp, runEval, writeEvalCase } from "./support.ts";

// ~80 KB: above the 64 KiB line where the shim uses an index.
const CASSETTE = {
  version: 1,
  calls: [
    { argv: ["issue", "view", "1", "--json", "number"], stdout: "one\n" },
    { argv: ["issue", "view", "9", "--json", "body"], stdout: `${"p".repeat(80_000)}\n` },
    { match: "prefix", argv: ["auth", "status"], stdout: "auth ok\n" },
  ],
};

const BODY = `say() { printf '%s\\n' "$*" >&2; }
IDX="$EVAL_WORK/.cassettes.json.idx"
[ -f "$IDX" ] && say "index: present" || say "index: absent"
say "hit: $(gh issue view 1 --json number)"
say "prefix: $(gh auth status -t)"
gh issue view 2 --json number >/dev/null 2>&1 && say "miss: 0" || say "miss: $?"
( printf x >> "$IDX" ) 2>/dev/null && say "write: allowed" || say "write: refused"
rm -f "$IDX" 2>/dev/null && say "remove: allowed" || say "remove: refused"
mv "$IDX" "$EVAL_WORK/moved" 2>/dev/null && say "rename: allowed" || say "rename: refused"
c=$(cat "$EVAL_CASSETTES")
printf '%s\\n' "\${c/\\"one/\\"ONE}" > "$EVAL_CASSETTES"
say "rewritten: $(gh issue view 1 --json number)"`;

test("a subject's gh calls use the runner's read-only index and follow a rewritten cassette", async () => {
  using dir = tempDir("run-eval-index");
  using tmp = openTmp();
  const c = writeEvalCase(dir.path, { name: "indexed", body: BODY, cassettes: CASSETTE });
  const r = await runEval([c], { TMPDIR: tmp.path });
  expect({ exitCode: r.exitCode, stderr: r.stderr, tail: r.stdout.split("\n").slice(-2) }).toEqual({
    exitCode: 0,
    stderr: [
      "index: present",
      "hit: one",
      "prefix: auth ok",
      "miss: 1",
      "write: refused",
      "remove: refused",
      "rename: refused",
      "rewritten: ONE",
      "",
    ].join("\n"),
    tail: [`✓ eval passed: indexed`, ""],
  });
});
