// A missing input, tool by tool (issue 26): one line in one style, `Cannot read <what> "<path>": no
// such file` (or `no such directory`), never Node's raw `ENOENT: no such file or directory, scandir
// 'x'`, and the exit code the tool's own vocabulary gives unreadable input (README, Exit codes): 2 for
// gh-shim, grade and run-eval (the originals' "unusable"), 3 for eval-steps and the promotion lane
// (invalid input), 1 for agent-eval suite (halo's error), 2 for mock-model. grade and run-eval keep
// the originals' own lines for a missing case.json. Rows run in-process through each entry's main().
import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureStreams } from "../support/capture.ts";
import { TOOLS } from "../support/commands.ts";
import { tempDir } from "../support/tmp.ts";

const captured = captureStreams();

const dir = tempDir("missing-files");
afterAll(() => dir[Symbol.dispose]());
const M = (name: string) => join(dir.path, name);
const KEY = M("k.key");
writeFileSync(KEY, randomBytes(32).toString("base64"));

const line = (what: string, path: string, kind = "file") => `Cannot read ${what} "${path}": no such ${kind}`;
const plain = (exitCode: number, message: string): Outcome => ({
  exitCode,
  stdout: "",
  stderr: `✗ ${message}\n`,
});
/** The promotion lane's refusal: its JSON object on stdout too. */
const promotion = (message: string): Outcome => ({
  exitCode: 3,
  stdout: `{"error": ${JSON.stringify(message)}, "exit": 3}\n`,
  stderr: `✗ ${message}\n`,
});

interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

test.each<{ tool: string; argv: string[]; want: Outcome }>([
  { tool: "gh-shim", argv: ["lint", M("c.json")], want: plain(2, line("cassette", M("c.json"))) },
  {
    tool: "grade",
    argv: ["--case", M("case"), "--out", M("out")],
    want: plain(2, `missing case.json: ${M("case")}/case.json`),
  },
  { tool: "grade", argv: ["lint", M("case")], want: plain(2, `missing case.json: ${M("case")}/case.json`) },
  { tool: "grade", argv: ["lint-issue", M("i.md")], want: plain(2, line("file", M("i.md"))) },
  { tool: "grade", argv: ["lint-pr", M("p.md")], want: plain(2, line("file", M("p.md"))) },
  { tool: "run-eval", argv: [M("case")], want: plain(2, line("case directory", M("case"), "directory")) },
  { tool: "run-eval", argv: ["merge", M("r.json")], want: plain(2, line("run result", M("r.json"))) },
  {
    tool: "run-eval",
    argv: ["compare", M("a.json"), M("b.json")],
    want: plain(2, line("run result", M("a.json"))),
  },
  { tool: "agent-eval", argv: ["plan", "--suite", M("s.yaml")], want: promotion(line("suite", M("s.yaml"))) },
  {
    tool: "agent-eval",
    argv: ["verify", "--run-dir", M("run")],
    want: promotion(line("promotion run", M("run"), "directory")),
  },
  {
    tool: "agent-eval",
    argv: ["compare", M("a.json"), M("b.json")],
    want: plain(3, line("scorecard", M("a.json"))),
  },
  {
    tool: "agent-eval",
    argv: ["suite", M("s.yaml")],
    want: { exitCode: 1, stdout: "", stderr: `error: ${line("suite", M("s.yaml"))}\n` },
  },
  {
    tool: "agent-eval",
    argv: ["suite", "merge", M("s.yaml"), M("t.jsonl")],
    want: { exitCode: 1, stdout: "", stderr: `error: ${line("suite", M("s.yaml"))}\n` },
  },
  {
    tool: "eval-steps",
    argv: [
      "harvest",
      "--pairs",
      M("p.jsonl"),
      "--pair-key-file",
      M("none.key"),
      "--experiment",
      "e",
      "--out",
      M("o"),
    ],
    want: plain(3, line("pair key", M("none.key"))),
  },
  {
    tool: "eval-steps",
    argv: ["harvest", "--pairs", M("p.jsonl"), "--pair-key-file", KEY, "--experiment", "e", "--out", M("o")],
    want: plain(3, line("pair store", M("p.jsonl"))),
  },
  {
    tool: "eval-steps",
    argv: ["run", "--suite", M("suite"), "--model", "m", "--url", "http://127.0.0.1:9", "--key-env", "HOME"],
    want: plain(3, line("step suite", M("suite"), "directory")),
  },
  { tool: "eval-steps", argv: ["merge", M("s.json")], want: plain(3, line("scorecard", M("s.json"))) },
  { tool: "mock-model", argv: ["--replies", M("r.yaml")], want: plain(2, line("replies", M("r.yaml"))) },
])("$tool $argv.0: a missing input is one line and the tool's code", async ({ tool, argv, want }) => {
  const { main } = await (TOOLS[tool] as (typeof TOOLS)[string])();
  const exitCode = await main([...argv]);
  expect({ exitCode, ...captured() }).toEqual(want);
});
