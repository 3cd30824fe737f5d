// Where each harness finds a variant's skills and instructions: under its own HOME, at the user-level
// places its documentation names (so the work dir, the check and the graders never see them), with a
// skill's scripts kept executable; a command agent is told where by two variables.
import { expect, test } from "bun:test";
import { DRIVERS } from "../../../lib/suite/agents/index.ts";
import type { Guidance } from "../../../lib/suite/skills.ts";

const GUIDANCE: Guidance = {
  skills: [
    {
      name: "fix-tests",
      description: "d",
      files: [
        { path: "SKILL.md", text: "s", executable: false },
        { path: "scripts/run.sh", text: "r", executable: true },
      ],
    },
  ],
  instructions: "i",
  digest: "sha256:x",
};

const input = {
  modelBaseUrl: "http://127.0.0.1:1",
  apiKeyEnvName: "K",
  home: "/h",
  workDir: "/work",
  prompt: "p",
  command: "true",
  guidance: GUIDANCE,
};

test.each([
  { harness: "claude", skills: "/h/.claude/skills", instructions: "/h/.claude/CLAUDE.md" },
  { harness: "codex", skills: "/h/.agents/skills", instructions: "/h/.codex/AGENTS.md" },
  { harness: "gemini", skills: "/h/.gemini/skills", instructions: "/h/.gemini/GEMINI.md" },
  { harness: "command", skills: "/h/.proctor/skills", instructions: "/h/.proctor/INSTRUCTIONS.md" },
] as const)(
  "$harness reads skills under $skills and instructions at $instructions",
  ({ harness, skills, instructions }) => {
    const cmd = DRIVERS[harness].command(input);
    const mine = cmd.files.filter((f) => f.path.startsWith(skills) || f.path === instructions);
    expect({
      files: mine.map((f) => [f.path, f.content, f.mode]),
      env: harness === "command" ? [cmd.env.PROCTOR_SKILLS_DIR, cmd.env.PROCTOR_INSTRUCTIONS_FILE] : [],
      inWork: cmd.files.some((f) => f.path.startsWith("/work")),
    }).toEqual({
      files: [
        [`${skills}/fix-tests/SKILL.md`, "s", 0o600],
        [`${skills}/fix-tests/scripts/run.sh`, "r", 0o700],
        [instructions, "i", 0o600],
      ],
      env: harness === "command" ? [skills, instructions] : [],
      inWork: false,
    });
  },
);

test("without guidance a driver adds no such file", () => {
  const { guidance: _, ...plain } = input;
  expect(DRIVERS.claude.command(plain).files.map((f) => f.path)).toEqual(["/h/.claude/settings.json"]);
});
