import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { lintCassetteFile } from "../../../lib/gh/shim/lint.ts";
import { mergeCaptures } from "../../../lib/gh/shim/recording.ts";
import { tempDir } from "../../support/tmp.ts";
import { BIN, REPO_ROOT } from "../../support/tools.ts";

// Built at run time so no credential shape sits in this file.
const TOKEN = `ghp_${"R3c0rdM3".repeat(5)}`;

/** A fake real gh: canned JSON per argv, exit 1 for issue 2, a token on stderr for auth status. */
const FAKE_GH = `#!/bin/sh
case "$*" in
  "issue view 1 --json title,number") printf '{"number":1,"title":"%s"}\\n' "\${FAKE_TITLE:-One}" ;;
  "issue view 2 --json number") printf 'issue 2 not found\\n' >&2; exit 1 ;;
  "auth status") printf 'token ${TOKEN}\\n' ;;
  *) printf 'unknown: %s\\n' "$*" >&2; exit 4 ;;
esac
`;

const VIEW1 = ["issue", "view", "1", "--json", "number,title"];
const ONE = { argv: VIEW1, stdout: '{"number":1,"title":"One"}\n', stderr: "", exit: 0 };

/** A temp dir with the fake gh in fake/ and a subject script running `lines`. */
function setup(root: string, lines: string[]): { fake: string } {
  const fake = join(root, "fake");
  mkdirSync(fake);
  writeFileSync(join(fake, "gh"), FAKE_GH, { mode: 0o755 });
  writeFileSync(join(root, "subject.sh"), `${lines.join("\n")}\n`);
  return { fake };
}

/** `gh-shim record ARGS -- bash subject.sh` in `root`; the fake gh on PATH unless `onPath` is false. */
async function record(root: string, args: string[], env: Record<string, string> = {}, onPath = true) {
  const path = [...(onPath ? [join(root, "fake")] : []), "/usr/bin", "/bin"].join(":");
  const r = await run(
    [BIN.bun, join(REPO_ROOT, "scripts", "gh-shim.ts"), "record", ...args, "--", "bash", "subject.sh"],
    { cwd: root, env: { PATH: path, HOME: process.env.HOME ?? "/", ...env } },
  );
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const cassetteOf = (root: string, name = "cassettes.json") =>
  existsSync(join(root, name)) ? JSON.parse(readFileSync(join(root, name), "utf8")) : null;

describe("gh-shim record", () => {
  test("records through the shim: --json fields sorted, a repeat replayed not duplicated, credentials redacted, lint-clean", async () => {
    using dir = tempDir("shim-recording");
    setup(dir.path, [
      "gh issue view 1 --json title,number",
      "gh issue view 1 --json title,number",
      "gh auth status",
    ]);
    const r = await record(dir.path, []);
    const lint = lintCassetteFile(join(dir.path, "cassettes.json"));
    expect({ r, cassette: cassetteOf(dir.path), lint }).toEqual({
      r: {
        exitCode: 0,
        stdout: `{"number":1,"title":"One"}\n{"number":1,"title":"One"}\ntoken ${TOKEN}\n`,
        stderr:
          "⚠ gh shim: redacted 1 credential(s) (github-token) before recording\n" +
          "✓ wrote cassettes.json (2 new, 0 re-recorded, 0 unchanged)\n",
      },
      cassette: {
        version: 1,
        calls: [
          ONE,
          { argv: ["auth", "status"], stdout: "token [REDACTED:github-token]\n", stderr: "", exit: 0 },
        ],
      },
      lint: { exitCode: 0, output: "" },
    });
  });

  const failing = [
    {
      name: "a failing call is refused and nothing is written",
      args: [],
      exitCode: 1,
      stderr:
        "issue 2 not found\n⚠ the command exited 1\n" +
        "✗ gh issue view 2 --json number exited 1: not recorded (pass --allow-failing to record a failing call)\n" +
        "✗ cassettes.json is unchanged (0 new, 0 re-recorded, 0 unchanged; 1 refused)\n",
      cassette: null,
    },
    {
      name: "--allow-failing records it with its exit code",
      args: ["--allow-failing"],
      exitCode: 0,
      stderr:
        "issue 2 not found\n⚠ the command exited 1\n✓ wrote cassettes.json (1 new, 0 re-recorded, 0 unchanged)\n",
      cassette: {
        version: 1,
        calls: [
          {
            argv: ["issue", "view", "2", "--json", "number"],
            stdout: "",
            stderr: "issue 2 not found\n",
            exit: 1,
          },
        ],
      },
    },
  ];
  for (const c of failing)
    test(c.name, async () => {
      using dir = tempDir("shim-recording");
      setup(dir.path, ["gh issue view 2 --json number"]);
      const r = await record(dir.path, c.args);
      expect({ r, cassette: cassetteOf(dir.path) }).toEqual({
        r: { exitCode: c.exitCode, stdout: "", stderr: c.stderr },
        cassette: c.cassette,
      });
    });

  const existing = [
    {
      name: "an entry already there with the same answer is kept",
      title: "One",
      args: [],
      exitCode: 0,
      stderr: "nothing new for c.json (0 new, 0 re-recorded, 1 unchanged)\n",
      calls: [ONE],
    },
    {
      name: "a different answer is reported and the cassette left alone",
      title: "Renamed",
      args: [],
      exitCode: 1,
      stderr:
        "✗ gh issue view 1 --json number,title: the answer differs from calls[0] in CASSETTE (stdout); pass --update to re-record it\n" +
        "✗ c.json is unchanged (0 new, 0 re-recorded, 0 unchanged; 1 refused)\n",
      calls: [ONE],
    },
    {
      name: "--update re-records it in place",
      title: "Renamed",
      args: ["--update"],
      exitCode: 0,
      stderr: "✓ wrote c.json (0 new, 1 re-recorded, 0 unchanged)\n",
      calls: [{ ...ONE, stdout: '{"number":1,"title":"Renamed"}\n' }],
    },
  ];
  for (const c of existing)
    test(c.name, async () => {
      using dir = tempDir("shim-recording");
      setup(dir.path, ["gh issue view 1 --json title,number >/dev/null"]);
      writeFileSync(join(dir.path, "c.json"), JSON.stringify({ version: 1, calls: [ONE] }));
      const r = await record(dir.path, ["--cassette", "c.json", ...c.args], { FAKE_TITLE: c.title });
      expect({ r, cassette: cassetteOf(dir.path, "c.json") }).toEqual({
        r: {
          exitCode: c.exitCode,
          stdout: "",
          stderr: c.stderr.replace("CASSETTE", join(dir.path, "c.json")),
        },
        cassette: { version: 1, calls: c.calls },
      });
    });

  test("the command's own flags after -- are its own, --help included", async () => {
    using dir = tempDir("shim-recording");
    setup(dir.path, ['[ "$1" = --help ] && gh issue view 1 --json title,number >/dev/null']);
    const r = await run(
      [BIN.bun, join(REPO_ROOT, "scripts", "gh-shim.ts"), "record", "--", "bash", "subject.sh", "--help"],
      {
        cwd: dir.path,
        env: { PATH: `${join(dir.path, "fake")}:/usr/bin:/bin`, HOME: process.env.HOME ?? "/" },
      },
    );
    expect({
      r: { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr },
      cassette: cassetteOf(dir.path),
    }).toEqual({
      r: { exitCode: 0, stdout: "", stderr: "✓ wrote cassettes.json (1 new, 0 re-recorded, 0 unchanged)\n" },
      cassette: { version: 1, calls: [ONE] },
    });
  });

  test("--gh names a real gh that is not on PATH", async () => {
    using dir = tempDir("shim-recording");
    setup(dir.path, ["gh issue view 1 --json title,number >/dev/null"]);
    const r = await record(dir.path, ["--gh", "fake/gh"], {}, false);
    expect({ r, cassette: cassetteOf(dir.path) }).toEqual({
      r: { exitCode: 0, stdout: "", stderr: "✓ wrote cassettes.json (1 new, 0 re-recorded, 0 unchanged)\n" },
      cassette: { version: 1, calls: [ONE] },
    });
  });

  const refusals: {
    name: string;
    env?: Record<string, string>;
    onPath?: boolean;
    args?: string[];
    cassette?: string;
    line: string | ((root: string) => string);
  }[] = [
    {
      name: "CI=true",
      env: { CI: "true" },
      line: "Cannot record under CI: gh-shim record runs the real gh, which needs the network and credentials; record locally and commit the cassette",
    },
    {
      name: "GITHUB_ACTIONS=true",
      env: { GITHUB_ACTIONS: "true" },
      line: "Cannot record under CI: gh-shim record runs the real gh, which needs the network and credentials; record locally and commit the cassette",
    },
    {
      name: "no real gh on PATH",
      onPath: false,
      line: "Cannot record: no real gh on PATH (install gh, or name it with --gh PATH)",
    },
    {
      name: "a --gh that is not executable",
      args: ["--gh", "subject.sh"],
      line: 'Cannot use --gh "subject.sh": expected an executable file',
    },
    {
      name: "a cassette that is not JSON",
      cassette: "{",
      line: (root: string) =>
        `Cannot record into "${join(root, "cassettes.json")}": not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2`,
    },
    {
      name: "a cassette whose calls is not a list",
      cassette: '{"version":1,"calls":{}}',
      line: (root: string) =>
        `Cannot record into "${join(root, "cassettes.json")}": cassette.calls must be a list`,
    },
  ];
  for (const c of refusals)
    test(`refuses ${c.name}: exit 2, one line, nothing run or written`, async () => {
      using dir = tempDir("shim-recording");
      setup(dir.path, ["touch ran", "gh issue view 1 --json title,number"]);
      if (c.cassette) writeFileSync(join(dir.path, "cassettes.json"), c.cassette);
      const r = await record(dir.path, c.args ?? [], c.env ?? {}, c.onPath ?? true);
      const line = typeof c.line === "function" ? c.line(dir.path) : c.line;
      const file = join(dir.path, "cassettes.json");
      expect({
        r,
        ran: existsSync(join(dir.path, "ran")),
        cassette: existsSync(file) ? readFileSync(file, "utf8") : null,
      }).toEqual({
        r: { exitCode: 2, stdout: "", stderr: `✗ ${line}\n` },
        ran: false,
        cassette: c.cassette ?? null,
      });
    });
});

describe("mergeCaptures", () => {
  const prefix = { match: "prefix", argv: ["issue", "view"], stdout: "p\n" };
  const cases = [
    {
      name: "a prefix entry is never the one re-recorded: the exact call is added beside it",
      root: { version: 1, calls: [prefix] },
      captures: [
        { argv: ["issue", "view", "1", "--json", "title,number"], stdout: "x\n", stderr: "", exit: 0 },
      ],
      opts: { update: true, allowFailing: false },
      expected: {
        root: { version: 1, calls: [prefix, { ...ONE, stdout: "x\n" }] },
        added: 1,
        updated: 0,
        unchanged: 0,
        refusals: [],
      },
    },
    {
      name: "an entry written with unsorted fields matches its sorted capture; a missing version becomes 1",
      root: { calls: [{ argv: ["issue", "view", "1", "--json", "title,number"], stdout: ONE.stdout }] },
      captures: [ONE],
      opts: { update: false, allowFailing: false },
      expected: {
        root: {
          version: 1,
          calls: [{ argv: ["issue", "view", "1", "--json", "title,number"], stdout: ONE.stdout }],
        },
        added: 0,
        updated: 0,
        unchanged: 1,
        refusals: [],
      },
    },
  ];
  for (const c of cases)
    test(c.name, () => {
      expect(mergeCaptures(c.root, c.captures, { ...c.opts, cassette: "c.json" })).toEqual(c.expected);
    });
});
