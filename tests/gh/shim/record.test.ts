import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGh } from "../../../lib/gh/shim/gh.ts";
import { lintCassetteFile } from "../../../lib/gh/shim/lint.ts";
import { findRealGh, Recorder, sealCapture } from "../../../lib/gh/shim/record.ts";
import { DETECTORS } from "../../../lib/redact/index.ts";
import { tempDir } from "../../support/tmp.ts";

// Built at run time so no credential shape sits in this file.
const TOKEN = `ghp_${"R3c0rdM3".repeat(5)}`;

/** A PATH with the shim's wrapper first and a fake real gh after it. */
function setup(root: string): { path: string; shimGh: string } {
  const shimBin = join(root, "shim-bin");
  const realBin = join(root, "real-bin");
  mkdirSync(shimBin);
  mkdirSync(realBin);
  const shimGh = join(shimBin, "gh");
  writeFileSync(shimGh, '#!/bin/sh\nexec bun /x/scripts/gh-shim.ts replay -- "$@"\n');
  chmodSync(shimGh, 0o755);
  const real = join(realBin, "gh");
  writeFileSync(
    real,
    `#!/bin/sh\nprintf 'out %s\\n' "$*"\nprintf 'token ${TOKEN}\\n' >&2\n[ "$1" = fail ] && exit 3\nexit 0\n`,
  );
  chmodSync(real, 0o755);
  return { path: `${shimBin}:${realBin}:/usr/bin:/bin`, shimGh };
}

function ctx(root: string, env: Record<string, string>, extra: Partial<Parameters<typeof runGh>[1]> = {}) {
  return {
    env: { EVAL_RECORD: "1", EVAL_CASSETTES: join(root, "c.json"), ...env },
    cwd: root,
    self: [],
    recorder: new Recorder(),
    ...extra,
  };
}

describe("record mode", () => {
  test("a miss runs the real gh, echoes it, and writes a redacted capture (parents created) that then replays", async () => {
    using dir = tempDir("shim-record");
    const { path } = setup(dir.path);
    const cassette = join(dir.path, "new", "dir", "c.json");
    const recorded = await runGh(
      ["pr", "view", "1", "--json", "title"],
      ctx(dir.path, { PATH: path, EVAL_CASSETTES: cassette }),
    );
    const replayed = await runGh(["pr", "view", "1", "--json", "title"], {
      ...ctx(dir.path, { PATH: path }),
      env: { EVAL_CASSETTES: cassette },
    });
    expect({ recorded, replayed, file: JSON.parse(readFileSync(cassette, "utf8")) }).toEqual({
      recorded: {
        stdout: "out pr view 1 --json title\n",
        stderr: `token ${TOKEN}\n⚠ gh shim: redacted 1 credential(s) (github-token) before recording\n`,
        exitCode: 0,
      },
      replayed: {
        stdout: "out pr view 1 --json title\n",
        stderr: "token [REDACTED:github-token]\n",
        exitCode: 0,
      },
      file: {
        version: 1,
        calls: [
          {
            argv: ["pr", "view", "1", "--json", "title"],
            stdout: "out pr view 1 --json title\n",
            stderr: "token [REDACTED:github-token]\n",
            exit: 0,
          },
        ],
      },
    });
  });

  test("appends to an existing cassette, keeps its mode, records the exit code; argv secrets are redacted", async () => {
    using dir = tempDir("shim-record");
    const { path } = setup(dir.path);
    const cassette = join(dir.path, "c.json");
    writeFileSync(cassette, JSON.stringify({ version: 1, calls: [{ argv: ["a"] }] }));
    chmodSync(cassette, 0o640);
    const r = await runGh(["fail", `--token=${TOKEN}`], ctx(dir.path, { PATH: path }));
    const file = JSON.parse(readFileSync(cassette, "utf8"));
    expect({
      exitCode: r.exitCode,
      mode: statSync(cassette).mode & 0o777,
      calls: file.calls,
      text: readFileSync(cassette, "utf8").includes(TOKEN),
    }).toEqual({
      exitCode: 3,
      mode: 0o640,
      calls: [
        { argv: ["a"] },
        {
          argv: ["fail", "--token=[REDACTED:github-token]"],
          stdout: "out fail --token=[REDACTED:github-token]\n",
          stderr: "token [REDACTED:github-token]\n",
          exit: 3,
        },
      ],
      text: false,
    });
  });

  test("the rewrite is byte-identical to gh_shim.py's json.dumps(indent=2) and adds a missing version last", async () => {
    using dir = tempDir("shim-record");
    const { path } = setup(dir.path);
    const cassette = join(dir.path, "c.json");
    writeFileSync(cassette, JSON.stringify({ calls: [{ argv: ["a"] }] }));
    await runGh(["ü"], ctx(dir.path, { PATH: path }));
    expect(readFileSync(cassette, "utf8")).toEqual(
      '{\n  "calls": [\n    {\n      "argv": [\n        "a"\n      ]\n    },\n    {\n      "argv": [\n        "\\u00fc"\n      ],\n      "stdout": "out \\u00fc\\n",\n      "stderr": "token [REDACTED:github-token]\\n",\n      "exit": 0\n    }\n  ],\n  "version": 1\n}\n',
    );
  });

  test("a credential that survives redaction is refused: exit 1, cassette untouched", async () => {
    using dir = tempDir("shim-record");
    const { path } = setup(dir.path);
    const cassette = join(dir.path, "c.json");
    const before = JSON.stringify({ version: 1, calls: [] });
    writeFileSync(cassette, before);
    const r = await runGh(
      ["x"],
      ctx(dir.path, { PATH: path }, { redaction: { detectors: [], check: DETECTORS } }),
    );
    expect({ r, file: readFileSync(cassette, "utf8") }).toEqual({
      r: {
        stdout: "out x\n",
        stderr: `token ${TOKEN}\n✗ gh shim: refusing to record: a credential (github-token) survives redaction; the cassette is unchanged\n`,
        exitCode: 1,
      },
      file: before,
    });
  });

  test("no real gh on PATH: exit 1; our own wrapper does not count", async () => {
    using dir = tempDir("shim-record");
    const { shimGh } = setup(dir.path);
    const r = await runGh(["x"], ctx(dir.path, { PATH: join(dir.path, "shim-bin") }));
    expect({
      r,
      wrote: existsSync(join(dir.path, "c.json")),
      found: findRealGh(join(dir.path, "shim-bin"), []),
    }).toEqual({
      r: { stdout: "", stderr: "✗ EVAL_RECORD=1 but no real gh found on PATH\n", exitCode: 1 },
      wrote: false,
      found: null,
    });
    expect(shimGh).toEndWith("gh");
  });

  test("findRealGh skips our own executable (by realpath) and returns the next gh", () => {
    using dir = tempDir("shim-record");
    setup(dir.path);
    const real = join(dir.path, "real-bin", "gh");
    const other = join(dir.path, "other-bin");
    mkdirSync(other);
    writeFileSync(join(other, "gh"), "#!/bin/sh\necho real2\n");
    chmodSync(join(other, "gh"), 0o755);
    expect({
      first: findRealGh(`${join(dir.path, "shim-bin")}:${join(dir.path, "real-bin")}:${other}`, []),
      selfSkipped: findRealGh(`${join(dir.path, "real-bin")}:${other}`, [real]),
    }).toEqual({ first: real, selfSkipped: join(other, "gh") });
  });

  test("a shim that is itself being recorded does not record again", async () => {
    using dir = tempDir("shim-record");
    const { path } = setup(dir.path);
    const r = await runGh(["x"], ctx(dir.path, { PATH: path, PROCTOR_GH_SHIM_RECORDING: "1" }));
    expect(r.stderr).toEqual("✗ EVAL_RECORD=1 but no real gh found on PATH\n");
  });
});

describe("Recorder", () => {
  test("buffered captures replay before they are flushed, and flush writes once, --json fields sorted (lint-clean)", () => {
    using dir = tempDir("shim-record");
    const cassette = join(dir.path, "c.json");
    const rec = new Recorder();
    rec.add({ argv: ["issue", "list", "--json", "title,number"], stdout: "[]\n", stderr: "", exit: 0 });
    const hit = rec.lookup(["issue", "list", "--json", "number,title"]);
    const before = existsSync(cassette);
    rec.flush(cassette);
    rec.flush(cassette);
    expect({
      hit: hit?.stdout,
      before,
      calls: JSON.parse(readFileSync(cassette, "utf8")).calls,
      lint: lintCassetteFile(cassette),
      pending: rec.pending.length,
    }).toEqual({
      hit: "[]\n",
      before: false,
      calls: [{ argv: ["issue", "list", "--json", "number,title"], stdout: "[]\n", stderr: "", exit: 0 }],
      lint: { exitCode: 0, output: "" },
      pending: 0,
    });
  });

  test("sealCapture reports what it redacted and checks the written bytes", () => {
    const sealed = sealCapture({
      argv: ["api", "-H", "Authorization: Bearer abcdefgh12345"],
      stdout: "",
      stderr: "",
      exit: 0,
    });
    expect(sealed).toEqual({
      capture: {
        argv: ["api", "-H", "Authorization: Bearer [REDACTED:http-auth]"],
        stdout: "",
        stderr: "",
        exit: 0,
      },
      redacted: ["http-auth"],
      survivors: [],
    });
  });
});
