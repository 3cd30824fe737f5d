// `run-eval new SKILL/CASE`: scaffolds a hermetic case that passes `grade lint` and `gh-shim lint` and
// runs green as it stands (case.json, an executable subject.sh, cassettes.json, expected/), so a user
// starts from a working case and edits it rather than writing JSON by hand. It writes into a fresh
// directory only: an existing one, or a name that is not SKILL/CASE in lowercase-hyphen words, is
// refused (exit 2). It knows nothing about running cases; lib/hermetic/cmd.ts does that.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { ArgsDef, ParsedArgs } from "citty";
import { UsageError } from "../core/errors.ts";
import { createLogger } from "../core/log.ts";

/** The flags of `run-eval new`. */
export const NEW_ARGS = {
  name: { type: "positional", required: true, description: "SKILL/CASE, e.g. issue-creator/basic" },
  root: { type: "string", description: "the cases folder to create it under (default: evals/cases)" },
} as const satisfies ArgsDef;

const WORD = /^[a-z0-9][a-z0-9-]*$/;

/** The one example call the scaffold makes, its cassette entry and its answer. */
const ARGV = ["issue", "view", "1", "--json", "number,title"];
const ANSWER = '{"number":1,"title":"Example issue"}\n';

/** The files of a new case, by path relative to its directory. */
export function scaffoldFiles(skill: string, name: string): Record<string, string> {
  const caseJson = {
    name: `${skill}/${name}`,
    skill,
    prompt: `What ${skill} is asked to do in this case`,
    grade: [
      { tool: "file-exists", file: "OUT/result.md", expect_exit: 0, label: "the subject writes its result" },
      {
        tool: "gh-calls",
        expect_argv: [ARGV],
        expect_exit: 0,
        label: "the subject reads issue 1 once",
      },
      {
        tool: "gh-calls",
        expect_by_command: { "issue create": 1 },
        expect_exit: 1,
        label: "the subject files no issue (a negative check: lint wants one)",
      },
    ],
  };
  const cassettes = { version: 1, calls: [{ argv: ARGV, stdout: ANSWER, stderr: "", exit: 0 }] };
  const subject = [
    "#!/usr/bin/env bash",
    `# Stand-in for ${skill}: fixed inputs -> fixed artifacts under $EVAL_OUT. gh is the shim: every`,
    "# call it makes must be in cassettes.json (record them with `gh-shim record -- bash subject.sh`).",
    "set -euo pipefail",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion, not a template
    'OUT="${EVAL_OUT:?EVAL_OUT is required}"',
    'mkdir -p "$OUT"',
    "",
    `issue=$(gh ${ARGV.join(" ")})`,
    'printf \'# Result\\n\\n%s\\n\' "$issue" > "$OUT/result.md"',
    "",
  ].join("\n");
  return {
    "case.json": `${JSON.stringify(caseJson, null, 2)}\n`,
    "subject.sh": subject,
    "cassettes.json": `${JSON.stringify(cassettes, null, 2)}\n`,
    "expected/README.md":
      "Fixtures and golden files this case's assertions compare OUT against (optional).\n",
  };
}

/** Splits and checks SKILL/CASE; a bad name is one UsageError line. */
export function parseCaseName(spec: string): { skill: string; name: string } {
  const parts = spec.split("/");
  const [skill, name] = parts;
  if (parts.length !== 2 || !skill || !name || !WORD.test(skill) || !WORD.test(name))
    throw new UsageError(
      `Cannot scaffold "${spec}": expected SKILL/CASE, two lowercase words of letters, digits and hyphens (e.g. issue-creator/basic)`,
    );
  return { skill, name };
}

/**
 * Writes the scaffold into `<root>/SKILL/CASE` and returns that directory. The files are written
 * into a sibling temp directory renamed into place, so a failure leaves no half case behind.
 */
export function scaffoldCase(spec: string, root: string): string {
  const { skill, name } = parseCaseName(spec);
  const dir = resolve(root, skill, name);
  if (existsSync(dir)) throw new UsageError(`Cannot scaffold "${dir}": the directory exists`);
  mkdirSync(dirname(dir), { recursive: true });
  const tmp = `${dir}.new-${process.pid}`;
  try {
    for (const [rel, text] of Object.entries(scaffoldFiles(skill, name))) {
      mkdirSync(dirname(join(tmp, rel)), { recursive: true });
      writeFileSync(join(tmp, rel), text, { mode: rel === "subject.sh" ? 0o755 : 0o644 });
    }
    renameSync(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return dir;
}

/** `run-eval new SKILL/CASE [--root DIR]`: prints the new directory on stdout, the next steps on stderr. */
export function newCmd(args: ParsedArgs<typeof NEW_ARGS>): number {
  const dir = scaffoldCase(args.name, resolve(args.root ?? join("evals", "cases")));
  const shown = relative(process.cwd(), dir) || ".";
  createLogger("run-eval").info(
    `created ${shown}: edit subject.sh, record its gh calls (gh-shim record), then run-eval ${shown}`,
  );
  process.stdout.write(`${dir}\n`);
  return 0;
}
