// run-eval as a tool: run_eval.sh's refusals, messages and exit codes for one case (usage, missing
// files, EVAL_RECORD (T10), bad repo_scripts (T9)), the header and verdict lines of a real sandboxed
// run, the subject's own exit code, and that no work directory outlives the run.
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { openTmp, runEval, writeEvalCase } from "./support.ts";

const RECORD_REFUSAL =
  "✗ EVAL_RECORD=1 is set — record mode is forbidden for eval runs (CI fail-closed)\n" +
  "  Unset EVAL_RECORD and use committed cassettes under the case directory.\n";

describe("refused before any subject runs (exit 2)", () => {
  test("no case directory: usage on stdout, and stderr says no case was given", async () => {
    const r = await runEval([]);
    expect({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "Usage: run-eval [options] <case-dir|folder>...\n",
      stderr: "✗ no case given: name case directories (case.json, subject.sh) or folders holding them\n",
    });
  });

  test("T10: EVAL_RECORD=1 is refused with the original's two lines", async () => {
    using dir = tempDir("run-eval-t10");
    const c = writeEvalCase(dir.path, { name: "rec", body: 'echo SUBJECT-RAN; touch "$OUT/marker"' });
    const r = await runEval([c], { EVAL_RECORD: "1" });
    expect({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: RECORD_REFUSAL,
    });
  });

  test("no usable sandbox: refused with the reason and the remedy", async () => {
    using dir = tempDir("run-eval-nosandbox");
    const c = writeEvalCase(dir.path, { name: "x", body: "echo SUBJECT-RAN" });
    const r = await runEval(["--sandbox", "sandbox-exec", c]);
    expect({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: "✗ sandbox-exec is macOS only\n  use bwrap (apt-get install -y bubblewrap)\n",
    });
  });

  test("missing case.json / subject.sh: the original's messages", async () => {
    using dir = tempDir("run-eval-missing");
    const noCase = writeEvalCase(dir.path, { name: "no-case", noCase: true });
    const noSubject = writeEvalCase(dir.path, { name: "no-subject", noSubject: true });
    const empty = join(dir.path, "empty");
    mkdirSync(empty);
    // issue 26: a folder that is no case at all says what run-eval looked for, after the original's line.
    const nested = join(dir.path, "nested");
    mkdirSync(join(nested, "a", "b"), { recursive: true });
    const what = "a case is a directory holding case.json and subject.sh";
    const rows = [
      { dir: noCase, stderr: `✗ missing case.json in ${realpathSync(noCase)}\n` },
      { dir: noSubject, stderr: `✗ missing subject.sh in ${realpathSync(noSubject)}\n` },
      {
        dir: empty,
        stderr: `✗ missing case.json in ${realpathSync(empty)}\n  the folder is empty: ${what}\n`,
      },
      {
        dir: nested,
        stderr: `✗ missing case.json in ${realpathSync(nested)}\n  no case here or in any folder below: ${what}\n`,
      },
    ];
    const got = await Promise.all(rows.map((row) => runEval([row.dir])));
    expect(got.map((r) => ({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }))).toEqual(
      rows.map((row) => ({ code: 2, stdout: "", stderr: row.stderr })),
    );
  });

  test("T9: bad repo_scripts are refused, the subject never runs", async () => {
    using dir = tempDir("run-eval-t9");
    const repo = join(dir.path, "repo");
    mkdirSync(join(repo, "src", "shared", "scripts"), { recursive: true });
    mkdirSync(join(repo, "scripts"));
    writeFileSync(join(repo, "scripts", "idd-lint.py"), "print('x')\n");
    writeFileSync(join(repo, "src", "shared", "scripts", "real-one.py"), "print('x')\n");
    symlinkSync("real-one.py", join(repo, "src", "shared", "scripts", "linked.py"));
    const keep = join(dir.path, "keep");
    const rows = [
      {
        name: "traversal",
        scripts: ["../../etc/passwd"],
        detail: "  repo_scripts entry not allowed: '../../etc/passwd'",
      },
      {
        name: "no-such",
        scripts: ["src/shared/scripts/no-such-script.py"],
        detail: "  repo_scripts entry is not a regular file: src/shared/scripts/no-such-script.py",
      },
      {
        name: "other-dir",
        scripts: ["scripts/idd-lint.py"],
        detail: "  repo_scripts entry not allowed: 'scripts/idd-lint.py'",
      },
      {
        name: "symlink",
        scripts: ["src/shared/scripts/linked.py"],
        detail: "  repo_scripts entry is not a regular file: src/shared/scripts/linked.py",
      },
      {
        name: "not-a-list",
        scripts: "src/shared/scripts/real-one.py",
        detail: "  repo_scripts must be a list",
      },
      { name: "not-a-string", scripts: [7], detail: "  repo_scripts entry not allowed: 7" },
    ];
    const cases = rows.map((row) =>
      writeEvalCase(dir.path, {
        name: row.name,
        body: 'echo SUBJECT-RAN; touch "$OUT/marker"',
        extra: { repo_scripts: row.scripts },
      }),
    );
    const got = await Promise.all(cases.map((c) => runEval(["--repo", repo, "--keep", keep, c])));
    expect(got.map((r) => ({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }))).toEqual(
      rows.map((row, i) => ({
        code: 2,
        stdout: "",
        // run_eval.sh's lines, then the rule (issue 26: the refusal did not say what an entry may be).
        stderr: `${row.detail}\n✗ invalid repo_scripts in ${realpathSync(cases[i]!)}/case.json\n${RULE}\n`,
      })),
    );
    expect(existsSync(keep)).toBe(false); // no case got as far as a work directory
  });

  test("--scripts-root: the entries and the rule of that folder", async () => {
    using dir = tempDir("run-eval-root-refused");
    const repo = join(dir.path, "repo");
    mkdirSync(join(repo, "tools"), { recursive: true });
    mkdirSync(join(dir.path, "outside"));
    writeFileSync(join(dir.path, "outside", "x.sh"), "echo x\n");
    symlinkSync(join(dir.path, "outside"), join(repo, "tools", "out"));
    const c = writeEvalCase(dir.path, {
      name: "link-out",
      body: "echo SUBJECT-RAN",
      extra: { repo_scripts: ["tools/out/x.sh", "../outside/x.sh"] },
    });
    const r = await runEval(["--repo", repo, "--scripts-root", "tools", c]);
    expect({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        "  repo_scripts entry is not a regular file: tools/out/x.sh",
        "  repo_scripts entry not allowed: '../outside/x.sh'",
        `✗ invalid repo_scripts in ${realpathSync(c)}/case.json`,
        '  an entry is a path under tools/ of the repository (--scripts-root) without "..", a regular file reached through no link; each name once (they are copied flat)',
        "",
      ].join("\n"),
    });
  });
});

const RULE =
  "  an entry is src/shared/scripts/<name>.py (<name>: lowercase letters and digits, words joined by -), a regular file reached through no link; run-eval --scripts-root DIR takes any file under DIR of --repo instead";

describe("a sandboxed run", () => {
  test("--scripts-root: a repository laid out otherwise gives its scripts, mode kept, to EVAL_SCRIPTS_DIR", async () => {
    using dir = tempDir("run-eval-root");
    using tmpDir = openTmp();
    const repo = join(dir.path, "repo");
    mkdirSync(join(repo, "tools", "ci"), { recursive: true });
    writeFileSync(join(repo, "tools", "ci", "Check_It.sh"), "#!/bin/sh\necho checked\n", { mode: 0o755 });
    const c = writeEvalCase(dir.path, {
      name: "any-layout",
      extra: { repo_scripts: ["tools/ci/Check_It.sh"] },
      body: '"$EVAL_SCRIPTS_DIR/Check_It.sh" > "$OUT/hi.txt"',
      grade: [{ tool: "file-exists", file: "OUT/hi.txt", label: "the repo script ran" }],
    });
    const r = await runEval(["--repo", repo, "--scripts-root", ".", c], { TMPDIR: tmpDir.path });
    expect({ code: r.exitCode, tail: r.stdout.split("\n").slice(-3), stderr: r.stderr }).toEqual({
      code: 0,
      tail: ["✓ grade passed: 1 assertions", "✓ eval passed: any-layout", ""],
      stderr: "",
    });
  });

  test("header, subject, grade, verdict; valid repo_scripts reach EVAL_SCRIPTS_DIR; WORK removed", async () => {
    using dir = tempDir("run-eval-one");
    using tmpDir = openTmp();
    const tmp = tmpDir.path;
    const repo = join(dir.path, "repo");
    mkdirSync(join(repo, "src", "shared", "scripts"), { recursive: true });
    writeFileSync(join(repo, "src", "shared", "scripts", "say-hi.py"), "print('hi from the repo')\n");
    const c = writeEvalCase(dir.path, {
      name: "ok",
      extra: { repo_scripts: ["src/shared/scripts/say-hi.py"] },
      body: 'python3 "$EVAL_SCRIPTS_DIR/say-hi.py" > "$OUT/hi.txt"\necho subject-out\necho subject-err >&2',
      grade: [
        { tool: "file-exists", file: "OUT/hi.txt", label: "the repo script ran" },
        { tool: "file-exists", file: "OUT/sandbox.json", label: "isolation recorded" },
        { tool: "file-exists", file: "OUT/nope.txt", expect_exit: 1, label: "no stray file" },
      ],
    });
    const r = await runEval(["--repo", repo, c], { TMPDIR: tmp });
    const work = /gh: {3}(\S+)\/bin\/gh\n/.exec(r.stdout)?.[1] ?? "";
    expect({ code: r.exitCode, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: [
        "◆ eval ok",
        "┄".repeat(20),
        `  case: ${realpathSync(c)}`,
        "  out:  deleted after the run (--keep DIR keeps it)",
        `  gh:   ${work}/bin/gh`,
        "subject-out",
        "  ✓ subject completed",
        "◆ grade ok",
        "┄".repeat(40),
        "  ✓ the repo script ran",
        "  ✓ isolation recorded",
        "  ✓ no stray file",
        "┄".repeat(40),
        "✓ grade passed: 3 assertions",
        "✓ eval passed: ok",
        "",
      ].join("\n"),
      stderr: "subject-err\n",
    });
    expect(work.startsWith(join(tmp, "proctor-eval-"))).toBe(true);
    expect(readdirSync(tmp).filter((n) => n.startsWith("proctor-eval-"))).toEqual([]);
  });

  test("the subject's own exit code is the case's; a failed grade is 1, an unusable case 2", async () => {
    using dir = tempDir("run-eval-codes");
    using tmpDir = openTmp();
    const tmp = tmpDir.path;
    const rows = [
      { name: "exit7", body: "exit 7", code: 7, tail: "✗ subject.sh exited 7\n" },
      {
        name: "grade-fails",
        body: "",
        grade: [{ tool: "file-exists", file: "OUT/absent.txt", label: "needs a file" }],
        code: 1,
        tail: "✗ eval failed: grade-fails\n",
      },
      {
        name: "unusable",
        body: "",
        grade: [],
        code: 2,
        tail: "✗ case unusable: grade section missing or empty\n✗ eval failed: unusable\n",
      },
    ];
    const got = await Promise.all(
      rows.map((row) => runEval([writeEvalCase(dir.path, row)], { TMPDIR: tmp })),
    );
    expect(got.map((r) => ({ code: r.exitCode, stderr: r.stderr }))).toEqual(
      rows.map((row) => ({ code: row.code, stderr: row.tail })),
    );
    expect(readdirSync(tmp).filter((n) => n.startsWith("proctor-eval-"))).toEqual([]);
  });
});

describe("a subject that does not end", () => {
  test("--timeout kills it: exit 124, work directory removed", async () => {
    using dir = tempDir("run-eval-timeout");
    using tmpDir = openTmp();
    const c = writeEvalCase(dir.path, { name: "hangs", body: "sleep 60" });
    const r = await runEval(["--timeout", "1", c], { TMPDIR: tmpDir.path });
    expect({ code: r.exitCode, stderr: r.stderr }).toEqual({
      code: 124,
      stderr: "✗ subject.sh timed out after 1s\n",
    });
    expect(readdirSync(tmpDir.path).filter((n) => n.startsWith("proctor-eval-"))).toEqual([]);
  });

  test.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)(
    "%s to run-eval mid-subject ends the run (exit %d) and removes the work directory",
    async (signal, want) => {
      using dir = tempDir("run-eval-signal");
      using tmpDir = openTmp();
      const c = writeEvalCase(dir.path, { name: "hangs", body: "sleep 60" });
      const child = spawn(BIN.bun, [join(REPO_ROOT, "scripts", "run-eval.ts"), c], {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/",
          TMPDIR: tmpDir.path,
          CI: "true",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      const code = await new Promise<number | null>((resolveExit) => {
        child.stdout.on("data", (b: Buffer) => {
          stdout += b.toString();
          if (stdout.includes("  gh:   ")) child.kill(signal); // the header is printed before the subject starts
        });
        child.on("close", (exitCode) => resolveExit(exitCode));
      });
      expect({ code, left: readdirSync(tmpDir.path).filter((n) => n.startsWith("proctor-eval-")) }).toEqual({
        code: want,
        left: [],
      });
    },
  );

  // issue 26: Ctrl-C said nothing and printed no summary of the cases that had finished.
  test("SIGINT during a run of several cases: one line, the partial summary, exit 130, nothing left", async () => {
    using dir = tempDir("run-eval-partial");
    using tmpDir = openTmp();
    const quick = writeEvalCase(dir.path, { name: "a-quick", body: 'touch "$OUT/marker"' });
    const hangs = writeEvalCase(dir.path, { name: "b-hangs", body: "sleep 60" });
    const child = spawn(BIN.bun, [join(REPO_ROOT, "scripts", "run-eval.ts"), "-j", "1", quick, hangs], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/",
        TMPDIR: tmpDir.path,
        CI: "true",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const code = await new Promise<number | null>((resolveExit) => {
      child.stdout.on("data", (b: Buffer) => {
        stdout += b.toString();
      });
      child.stderr.on("data", (b: Buffer) => {
        stderr += b.toString();
        // a-quick's progress line: b-hangs is next, and its subject sleeps
        if (stderr.includes("run-eval 1/2 · a-quick · pass")) child.kill("SIGINT");
      });
      child.on("close", (exitCode) => resolveExit(exitCode));
    });
    const rows = stdout.slice(stdout.indexOf("◆ run-eval summary")).split("\n");
    expect({
      code,
      last: stderr.trimEnd().split("\n").at(-1),
      summary: [rows[2], rows[3]?.replace(/\d+\.\d+s$/, "T"), rows[5]?.replace(/\d+\.\d+s/, "T")],
      left: readdirSync(tmpDir.path).filter((n) => n.startsWith("proctor-eval-")),
    }).toEqual({
      code: 130,
      last: "✗ SIGINT: stopped, 1 of 2 case(s) finished",
      summary: [
        "case     result  assertions  time",
        "a-quick  pass    1/1         T",
        "✗ 1 passed, 0 failed, 0 errors (1 cases, T, exit 130)",
      ],
      left: [],
    });
  });
});
