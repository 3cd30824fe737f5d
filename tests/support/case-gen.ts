// A seeded generator of a realistic 30-assertion case (all six grade tools, artifacts the hermetic
// cases produce) in a directory, for `bun run bench` and load tests of the grader. Same seed, same
// bytes. Every assertion is meant to pass, so a bench run also checks the grade is still correct.
import { join } from "node:path";
import { prng } from "./cassette-gen.ts";
import { writeCase } from "./grade.ts";

const WORDS = [
  "login",
  "redirect",
  "mobile",
  "token",
  "cache",
  "retry",
  "label",
  "sync",
  "parser",
  "timeout",
  "session",
];
const TOOLS = ["idd-lint", "gi-runlog-echo", "file-exists", "red-green", "shell", "gh-calls"] as const;

function issueBody(n: number, topic: string): string {
  return `<!-- gitissue:normalized v1 -->
## Type
Bug (high confidence)

## Description
The ${topic} flow fails for issue ${n}.

**Current behavior:** ${topic} returns an error.
**Expected behavior:** ${topic} succeeds.

> **Reporter Context**
> Seen in CI run ${n}.

## Acceptance Criteria
- [ ] ${topic} succeeds on retry
- [ ] no regression in the ${topic} tests

## Metadata
**Priority:** P${1 + (n % 3)}
**Effort:** S
**Labels:** bug, ${topic}
`;
}

function prBody(n: number, topic: string): string {
  return `Closes #${n}

## Acceptance Criteria Verification
| Criterion | Status | Evidence |
|---|---|---|
| ${topic} succeeds on retry | pass | tests/test_${topic}.py::test_retry |

## Decision Record
**Root cause:** the ${topic} check used the wrong branch.
**Reproduction:** run tests/test_${topic}.py before the fix; it fails.
**Options considered:** fix the check; rewrite the module.
**Options rejected:** a rewrite is out of scope.
**Selected option:** fix the check.
**Residual risk:** none known.
Analyzed at: 2026-01-0${1 + (n % 9)}
`;
}

/** Writes a 30-assertion case and its artifacts under `dir`; returns the case and OUT directories. */
export function makeCase30(dir: string, seed = 30): { caseDir: string; outDir: string } {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const files: Record<string, string> = {};
  const calls: string[][] = [];
  const grade: Record<string, unknown>[] = [];
  const sh = (sub: string, f: string) => `python3 scripts/idd-lint.py ${sub} "$(tr -d '\\n' < OUT/${f})"`;
  for (let i = 0; i < 30; i++) {
    const tool = TOOLS[i % TOOLS.length]!;
    const n = 1 + Math.floor(rand() * 900);
    const topic = pick(WORDS);
    const label = `${tool} #${i} (${topic})`;
    switch (tool) {
      case "idd-lint":
        files[`issue-${i}.md`] = issueBody(n, topic);
        grade.push({ tool, args: ["issue", `OUT/issue-${i}.md`], expect_exit: 0, label });
        break;
      case "gi-runlog-echo":
        files[`run-${i}.json`] =
          `${JSON.stringify({ ts: "2026-01-01T00:00:00Z", issue: n, mode: "auto", skill: "issue-resolver", complexity: pick(["low", "medium"]), qa_cycles: 1, outcome: "success", pr: n + 1, duration_s: 10 + i })}\n`;
        grade.push({ tool, file: `OUT/run-${i}.json`, expect_exit: 0, label });
        break;
      case "file-exists":
        if (rand() < 0.5) {
          files[`gates/${i}.${topic}`] = "";
          grade.push({ tool, file: `OUT/gates/${i}.${topic}`, label });
        } else {
          grade.push({ tool, file: `OUT/absent-${i}.txt`, expect_exit: 1, label });
        }
        break;
      case "red-green":
        files[`red-green-${i}.json`] = '{"red_exit": 1, "green_exit": 0}\n';
        grade.push({ tool, file: `OUT/red-green-${i}.json`, label });
        break;
      case "shell": {
        const kind = pick(["branch", "commit", "pr"] as const);
        if (kind === "branch") {
          files[`branch-${i}.txt`] = `fix/${n}-${topic}-fix\n`;
          grade.push({ tool, args: [sh("branch", `branch-${i}.txt`)], label });
        } else if (kind === "commit") {
          files[`commit-${i}.txt`] = `fix(${topic}): handle the ${topic} case (#${n})\n`;
          grade.push({ tool, args: [sh("commit", `commit-${i}.txt`)], label });
        } else {
          files[`pr-${i}.md`] = prBody(n, topic);
          files[`pr-title-${i}.txt`] = `fix(${topic}): handle the ${topic} case (#${n})\n`;
          const cmd = `python3 scripts/idd-lint.py pr OUT/pr-${i}.md --title "$(tr -d '\\n' < OUT/pr-title-${i}.txt)"`;
          grade.push({ tool, args: [cmd], label });
        }
        break;
      }
      default: {
        const argv = ["issue", "view", String(n), "--json", "body,labels,number,state,title"];
        calls.push(argv);
        grade.push({ tool, label });
      }
    }
  }
  // gh-calls expectations are written once the whole log is known.
  for (const a of grade) {
    if (a.tool === "gh-calls")
      Object.assign(a, {
        expect_count: calls.length,
        expect_by_command: { "issue view": calls.length },
        expect_argv: calls,
      });
  }
  files["gh-calls.jsonl"] = calls.map((argv) => `${JSON.stringify({ argv })}\n`).join("");
  return writeCase(join(dir), { name: "bench/case30", skill: "bench", prompt: "generated", grade }, files);
}
