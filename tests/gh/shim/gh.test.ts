import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HELP_TEXT, JSON_HINT, runGh, VERSION_LINE } from "../../../lib/gh/shim/gh.ts";
import { Recorder } from "../../../lib/gh/shim/record.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const CASSETTE = {
  version: 1,
  calls: [
    { argv: ["issue", "view", "7", "--json", "number,title"], stdout: '{"number":7}\n', exit: 0 },
    { match: "prefix", argv: ["pr"], stdout: "prefix-pr\n" },
    { argv: ["pr", "view", "8", "--json", "title"], stdout: "exact-pr\n" },
    { match: "prefix", argv: ["auth", "status"], stdout: "ok\n" },
    { argv: ["api", "repos/o/r", "--jq", ".name"], stdout: "r\n" },
    { argv: ["issue", "create", "--title", "canned"], stdout: "https://github.com/o/r/issues/99\n" },
    { argv: ["repo", "view", "--json", "name"], stdout: "", stderr: "boom\n", exit: 4 },
    { argv: ["label", "list"], exit: "3" },
    { argv: ["bad", "stdout"], stdout: 5 },
    { argv: ["bad", "exit"], exit: "x" },
    { argv: ["issue", "view", 9, "--json", "title"], stdout: "coerced\n" },
  ],
};

function gh(dir: string, argv: string[], env: Record<string, string | undefined> = {}) {
  return runGh(argv, {
    env: { EVAL_CASSETTES: join(dir, "c.json"), ...env },
    cwd: dir,
    self: [],
    recorder: new Recorder(),
    replay: { cacheDir: null },
  });
}

const NOT_SET = "✗ EVAL_CASSETTES is not set — cannot replay\n";

describe("dispatch (§1.2)", () => {
  const cases: {
    name: string;
    argv: string[];
    env?: Record<string, string | undefined>;
    out: { stdout: string; stderr: string; exitCode: number };
  }[] = [
    {
      name: "T1 exact hit",
      argv: ["issue", "view", "7", "--json", "number,title"],
      out: { stdout: '{"number":7}\n', stderr: "", exitCode: 0 },
    },
    {
      name: "T2 field order irrelevant",
      argv: ["issue", "view", "7", "--json", "title, number"],
      out: { stdout: '{"number":7}\n', stderr: "", exitCode: 0 },
    },
    {
      name: "T4 prefix match",
      argv: ["auth", "status", "--hostname", "github.com"],
      out: { stdout: "ok\n", stderr: "", exitCode: 0 },
    },
    {
      name: "T12 exact beats earlier prefix",
      argv: ["pr", "view", "8", "--json", "title"],
      out: { stdout: "exact-pr\n", stderr: "", exitCode: 0 },
    },
    {
      name: "prefix when no exact",
      argv: ["pr", "view", "9", "--json", "title"],
      out: { stdout: "prefix-pr\n", stderr: "", exitCode: 0 },
    },
    {
      name: "gh api is exempt from --json",
      argv: ["api", "repos/o/r", "--jq", ".name"],
      out: { stdout: "r\n", stderr: "", exitCode: 0 },
    },
    {
      name: "recorded stderr and exit",
      argv: ["repo", "view", "--json", "name"],
      out: { stdout: "", stderr: "boom\n", exitCode: 4 },
    },
    {
      name: "exit as a numeric string",
      argv: ["label", "list"],
      out: { stdout: "", stderr: "", exitCode: 3 },
    },
    {
      name: "numeric argv item coerced",
      argv: ["issue", "view", "9", "--json", "title"],
      out: { stdout: "coerced\n", stderr: "", exitCode: 0 },
    },
    {
      name: "cassette wins for issue create",
      argv: ["issue", "create", "--title", "canned"],
      out: { stdout: "https://github.com/o/r/issues/99\n", stderr: "", exitCode: 0 },
    },
    {
      name: "synthetic create otherwise",
      argv: ["issue", "create", "--title", "new"],
      out: { stdout: "https://github.com/eval/harness/issues/1\n", stderr: "", exitCode: 0 },
    },
    {
      name: "T5 bare gh prints help without cassette",
      argv: [],
      env: { EVAL_CASSETTES: undefined },
      out: { stdout: HELP_TEXT, stderr: "", exitCode: 0 },
    },
    {
      name: "T5 --help",
      argv: ["--help"],
      env: { EVAL_CASSETTES: undefined },
      out: { stdout: HELP_TEXT, stderr: "", exitCode: 0 },
    },
    {
      name: "-h",
      argv: ["-h", "x"],
      env: { EVAL_CASSETTES: undefined },
      out: { stdout: HELP_TEXT, stderr: "", exitCode: 0 },
    },
    {
      name: "help",
      argv: ["help"],
      env: { EVAL_CASSETTES: undefined },
      out: { stdout: HELP_TEXT, stderr: "", exitCode: 0 },
    },
    {
      name: "--version",
      argv: ["--version"],
      env: { EVAL_CASSETTES: undefined },
      out: { stdout: VERSION_LINE, stderr: "", exitCode: 0 },
    },
    {
      name: "T3 issue view without --json",
      argv: ["issue", "view", "1"],
      env: { EVAL_CASSETTES: undefined },
      out: {
        stdout: "",
        stderr:
          '✗ gh shim: data-producing command requires --json with explicit fields (got: gh issue view 1). Name the fields the caller reads, e.g. --json number,title,state (see "gh-shim" in Proctor docs/hermetic.md).\n',
        exitCode: 2,
      },
    },
    {
      name: "T11 pr list without --json",
      argv: ["pr", "list"],
      out: {
        stdout: "",
        stderr:
          '✗ gh shim: data-producing command requires --json with explicit fields (got: gh pr list). Name the fields the caller reads, e.g. --json number,title,state (see "gh-shim" in Proctor docs/hermetic.md).\n',
        exitCode: 2,
      },
    },
    {
      name: "trailing bare --json does not count",
      argv: ["pr", "checks", "3", "--json"],
      out: {
        stdout: "",
        stderr:
          '✗ gh shim: data-producing command requires --json with explicit fields (got: gh pr checks 3 --json). Name the fields the caller reads, e.g. --json number,title,state (see "gh-shim" in Proctor docs/hermetic.md).\n',
        exitCode: 2,
      },
    },
    {
      name: "EVAL_CASSETTES unset",
      argv: ["pr", "create"],
      env: { EVAL_CASSETTES: undefined },
      out: { stdout: "", stderr: NOT_SET, exitCode: 2 },
    },
    {
      name: "EVAL_CASSETTES empty",
      argv: ["pr", "create"],
      env: { EVAL_CASSETTES: "" },
      out: { stdout: "", stderr: NOT_SET, exitCode: 2 },
    },
    {
      name: "unset in record mode",
      argv: ["pr", "create"],
      env: { EVAL_CASSETTES: undefined, EVAL_RECORD: "1" },
      out: { stdout: "", stderr: "✗ EVAL_CASSETTES is required even in record mode\n", exitCode: 2 },
    },
    {
      name: "non-string stdout is an error line",
      argv: ["bad", "stdout"],
      out: { stdout: "", stderr: "cassette calls[8].stdout must be a string, got 5\n", exitCode: 1 },
    },
    {
      name: "non-integer exit is an error line",
      argv: ["bad", "exit"],
      out: { stdout: "", stderr: 'cassette calls[9].exit must be an integer, got "x"\n', exitCode: 1 },
    },
  ];
  test.each(cases)("$name", async ({ argv, env, out }) => {
    using dir = tempDir("shim-gh");
    writeFileSync(join(dir.path, "c.json"), JSON.stringify(CASSETTE));
    expect(await gh(dir.path, argv, env)).toEqual(out);
  });
});

describe("misses and bad cassettes", () => {
  test("T7 unmatched: original three lines, then the closest entries and what differs", async () => {
    using dir = tempDir("shim-gh");
    const path = join(dir.path, "c.json");
    writeFileSync(path, JSON.stringify(CASSETTE));
    expect(await gh(dir.path, ["issue", "view", "8", "--json", "title,number"])).toEqual({
      stdout: "",
      stderr: [
        "✗ unmatched gh call (no cassette entry):",
        "  argv: ['issue', 'view', '8', '--json', 'title,number']",
        `  cassette: ${path}`,
        '  hint: the cassette exists and has 11 usable entries; the call normalises to ["issue","view","8","--json","number,title"]',
        "  closest recorded entries:",
        '    calls[0] ["issue","view","7","--json","number,title"]',
        '      argv[2]: recorded "7", called "8"',
        '    calls[10] ["issue","view","9","--json","title"]',
        '      argv[2]: recorded "9", called "8"',
        '      argv[4]: recorded "title", called "number,title"',
        '    calls[5] ["issue","create","--title","canned"]',
        '      argv[1]: recorded "create", called "view"',
        '      argv[2]: recorded "--title", called "8"',
        '      argv[3]: recorded "canned", called "--json"',
        '      extra "number,title" (called argv[4])',
        "",
      ].join("\n"),
      exitCode: 1,
    });
  });

  test("unmatched with no related entry lists what is recorded", async () => {
    using dir = tempDir("shim-gh");
    const path = join(dir.path, "c.json");
    writeFileSync(path, JSON.stringify({ calls: [{ argv: ["pr", "create"] }, "junk"] }));
    expect(await gh(dir.path, ["release", "list"])).toEqual({
      stdout: "",
      stderr: [
        "✗ unmatched gh call (no cassette entry):",
        "  argv: ['release', 'list']",
        `  cassette: ${path}`,
        '  hint: the cassette exists and has 1 usable entry (1 skipped: not an object or argv not a list); the call normalises to ["release","list"]',
        '  no recorded entry starts with "release"; recorded: "pr create"',
        "",
      ].join("\n"),
      exitCode: 1,
    });
  });

  test("cassette not found", async () => {
    using dir = tempDir("shim-gh");
    const path = join(dir.path, "c.json");
    expect(await gh(dir.path, ["pr", "create"])).toEqual({
      stdout: "",
      stderr: `✗ cassette not found: ${path}\n  hint: no file at ${JSON.stringify(path)}; check EVAL_CASSETTES, or record one: gh-shim record --cassette ${JSON.stringify(path)} -- COMMAND\n`,
      exitCode: 1,
    });
  });

  test("paths print as Python's str(Path(...))", async () => {
    using dir = tempDir("shim-gh");
    const raw = `${dir.path}//./c.json`;
    const r = await gh(dir.path, ["pr", "create"], { EVAL_CASSETTES: raw });
    expect(r.stderr.split("\n")[0]).toEqual(`✗ cassette not found: ${join(dir.path, "c.json")}`);
  });

  test.each([
    { name: "root not an object", text: "[1]", stderr: "cassette root must be a JSON object\n" },
    { name: "bad version", text: '{"version": 2, "calls": []}', stderr: "unsupported cassette version: 2\n" },
    { name: "calls not a list", text: '{"calls": "x"}', stderr: "cassette.calls must be a list\n" },
  ])("$name: one line, exit 1", async ({ text, stderr }) => {
    using dir = tempDir("shim-gh");
    writeFileSync(join(dir.path, "c.json"), text);
    expect(await gh(dir.path, ["pr", "create"])).toEqual({ stdout: "", stderr, exitCode: 1 });
  });

  test("malformed JSON: one line naming the file, exit 1", async () => {
    using dir = tempDir("shim-gh");
    const path = join(dir.path, "c.json");
    writeFileSync(path, '{"calls": [');
    const r = await gh(dir.path, ["pr", "create"]);
    expect({
      ...r,
      stderr: r.stderr.startsWith(`cassette is not valid JSON: ${path}: `),
      lines: r.stderr.split("\n").length,
    }).toEqual({
      stdout: "",
      stderr: true,
      exitCode: 1,
      lines: 2,
    });
  });

  test.each([
    { name: "not UTF-8", bytes: [0x7b, 0xff, 0x7d], stderr: "cannot read cassette PATH: not valid UTF-8\n" },
  ])("$name cassette: one line, exit 1", async ({ bytes, stderr }) => {
    using dir = tempDir("shim-gh");
    const path = join(dir.path, "c.json");
    writeFileSync(path, Buffer.from(bytes));
    expect(await gh(dir.path, ["pr", "create"])).toEqual({
      stdout: "",
      stderr: stderr.replace("PATH", path),
      exitCode: 1,
    });
  });

  test("a byte-order mark is invalid JSON, as in Python", async () => {
    using dir = tempDir("shim-gh");
    const path = join(dir.path, "c.json");
    writeFileSync(path, '\uFEFF{"calls": []}');
    const r = await gh(dir.path, ["pr", "create"]);
    expect({
      exitCode: r.exitCode,
      invalid: r.stderr.startsWith(`cassette is not valid JSON: ${path}`),
    }).toEqual({ exitCode: 1, invalid: true });
  });

  test("unreadable cassette (a directory): one line, exit 1", async () => {
    using dir = tempDir("shim-gh");
    const path = join(dir.path, "c.json");
    writeFileSync(join(dir.path, "x"), "");
    mkdirSync(path);
    expect(await gh(dir.path, ["pr", "create"])).toEqual({
      stdout: "",
      stderr: `cannot read cassette ${path}: EISDIR\n`,
      exitCode: 1,
    });
  });
});

describe("state-backed issues", () => {
  test("create then view from state, fields in requested order, unknown → null", async () => {
    using dir = tempDir("shim-gh");
    const state = join(dir.path, "state");
    writeFileSync(join(dir.path, "c.json"), JSON.stringify(CASSETTE));
    writeFileSync(join(dir.path, "body.md"), "line1\r\nline2 ü\n");
    const env = { EVAL_STATE_DIR: state };
    const created = await gh(
      dir.path,
      ["issue", "create", "--title", "first", "--body-file", "body.md"],
      env,
    );
    const second = await gh(dir.path, ["issue", "create", "--title=Zweite ü", "--body", "b"], env);
    const view = await gh(dir.path, ["issue", "view", "2", "--json", "url,title,nope,number"], env);
    const viewFirst = await gh(dir.path, ["issue", "view", "--json", "body", "1"], env);
    expect({
      created,
      second,
      view,
      viewFirst,
      counter: readFileSync(join(state, "issue_counter"), "utf8"),
      json2: readFileSync(join(state, "issue_2.json"), "utf8"),
      md1: readFileSync(join(state, "issue_1.md"), "utf8"),
    }).toEqual({
      created: { stdout: "https://github.com/eval/harness/issues/1\n", stderr: "", exitCode: 0 },
      second: { stdout: "https://github.com/eval/harness/issues/2\n", stderr: "", exitCode: 0 },
      view: {
        stdout:
          '{"url":"https://github.com/eval/harness/issues/2","title":"Zweite \\u00fc","nope":null,"number":2}\n',
        stderr: "",
        exitCode: 0,
      },
      viewFirst: { stdout: '{"body":"line1\\nline2 \\u00fc\\n"}\n', stderr: "", exitCode: 0 },
      counter: "2",
      json2:
        '{\n  "number": 2,\n  "title": "Zweite \\u00fc",\n  "body": "b",\n  "state": "OPEN",\n  "url": "https://github.com/eval/harness/issues/2"\n}\n',
      md1: "line1\nline2 ü\n",
    });
  });

  test("issue view falls through to the cassette when the issue is not stored", async () => {
    using dir = tempDir("shim-gh");
    writeFileSync(join(dir.path, "c.json"), JSON.stringify(CASSETTE));
    const r = await gh(dir.path, ["issue", "view", "7", "--json", "number,title"], {
      EVAL_STATE_DIR: join(dir.path, "s"),
    });
    expect(r).toEqual({ stdout: '{"number":7}\n', stderr: "", exitCode: 0 });
  });

  test("issue view without --json is refused before state", async () => {
    using dir = tempDir("shim-gh");
    const state = join(dir.path, "s");
    await gh(dir.path, ["issue", "create"], { EVAL_STATE_DIR: state });
    const r = await gh(dir.path, ["issue", "view", "1"], { EVAL_STATE_DIR: state });
    expect(r.exitCode).toEqual(2);
  });

  test("issue create without a cassette file still allocates", async () => {
    using dir = tempDir("shim-gh");
    const r = await gh(dir.path, ["issue", "create", "--title", "x"], {
      EVAL_STATE_DIR: join(dir.path, "s"),
    });
    expect({ r, exists: existsSync(join(dir.path, "s", "issue_1.json")) }).toEqual({
      r: { stdout: "https://github.com/eval/harness/issues/1\n", stderr: "", exitCode: 0 },
      exists: true,
    });
  });

  test("unreadable --body-file is one line, exit 1", async () => {
    using dir = tempDir("shim-gh");
    const r = await gh(dir.path, ["issue", "create", "--body-file", "nope.md"], {
      EVAL_STATE_DIR: join(dir.path, "s"),
    });
    expect(r).toEqual({
      stdout: "",
      stderr: "✗ gh shim: cannot read --body-file nope.md: ENOENT\n",
      exitCode: 1,
    });
  });
});

describe("call log", () => {
  test("every invocation is logged before dispatch, even refused ones; failure only warns", async () => {
    using dir = tempDir("shim-gh");
    const log = join(dir.path, "calls.jsonl");
    writeFileSync(join(dir.path, "c.json"), JSON.stringify(CASSETTE));
    const env = { EVAL_GH_CALL_LOG: log };
    await gh(dir.path, ["--version"], env);
    await gh(dir.path, ["issue", "view", "1"], env);
    await gh(dir.path, [], env);
    await gh(dir.path, ["issue", "view", "7", "--json", "title,number"], env);
    await gh(dir.path, ["api", "x"], { ...env, EVAL_CASSETTES: undefined });
    const bad = await gh(dir.path, ["--version"], { EVAL_GH_CALL_LOG: join(dir.path, "missing", "log") });
    expect({
      log: readFileSync(log, "utf8"),
      bad: { ...bad, stderr: bad.stderr.split(": ENOENT")[0] },
    }).toEqual({
      log: [
        '{"argv": ["--version"]}',
        '{"argv": ["issue", "view", "1"]}',
        '{"argv": []}',
        '{"argv": ["issue", "view", "7", "--json", "number,title"]}',
        '{"argv": ["api", "x"]}',
        "",
      ].join("\n"),
      bad: {
        stdout: VERSION_LINE,
        stderr: `⚠ gh shim: cannot append to EVAL_GH_CALL_LOG ${join(dir.path, "missing", "log")}`,
        exitCode: 0,
      },
    });
  });

  test("unset: nothing is written", async () => {
    using dir = tempDir("shim-gh");
    await gh(dir.path, ["--version"]);
    expect(readdirSync(dir.path)).toEqual([]);
  });

  test("the log keeps its mode and appends", async () => {
    using dir = tempDir("shim-gh");
    const log = join(dir.path, "calls.jsonl");
    writeFileSync(log, "");
    chmodSync(log, 0o600);
    await gh(dir.path, ["--version"], { EVAL_GH_CALL_LOG: log });
    expect(readFileSync(log, "utf8")).toEqual('{"argv": ["--version"]}\n');
  });
});

test("the --json refusal names a docs section that exists", () => {
  const page = readFileSync(join(REPO_ROOT, "docs", "hermetic.md"), "utf8");
  const headings = page.split("\n").filter((l) => /^#+ gh-shim:/.test(l));
  expect({ hint: JSON_HINT, headings }).toEqual({
    hint: 'Name the fields the caller reads, e.g. --json number,title,state (see "gh-shim" in Proctor docs/hermetic.md).',
    headings: ["## gh-shim: replay `gh` from cassettes"],
  });
});
