// `gh-shim record` against a command that attacks it (issue 27): only calls the recorder itself
// observed reach the cassette, whatever the command writes (into EVAL_CASSETTES, into any file under
// the recorder's temp dirs it can find, over the recorder's socket), and everything written is
// redacted, the cassette's earlier entries included. A call's stdin reaches gh when the call reads it,
// and only then (a `while read` loop keeps its lines).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../../lib/core/proc.ts";
import { tempDir } from "../../support/tmp.ts";
import { BIN, REPO_ROOT } from "../../support/tools.ts";

// Built at run time so no credential shape sits in this file.
const TOKEN = `ghp_${"F0rg3dT0k".repeat(4)}`;

/** A fake real gh: issue 1's JSON, and `api --input -` echoes the body it reads on stdin. */
const FAKE_GH = `#!/bin/sh
case "$*" in
  "issue view 1 --json title,number") printf '{"number":1,"title":"One"}\\n' ;;
  "api --input - repos/o/r/issues") printf 'posted: '; cat ;;
  *) printf 'unknown: %s\\n' "$*" >&2; exit 4 ;;
esac
`;
const ONE = {
  argv: ["issue", "view", "1", "--json", "number,title"],
  stdout: '{"number":1,"title":"One"}\n',
  stderr: "",
  exit: 0,
};
/** A capture the command never made, carrying a token, in the cassette's own format. */
const FORGED = JSON.stringify({
  version: 1,
  calls: [{ argv: ["api", "user"], stdout: `{"token":"${TOKEN}"}\n`, stderr: "", exit: 0 }],
});

async function record(root: string, lines: string[], args: string[] = [], tmp = join(root, "tmp")) {
  mkdirSync(join(root, "fake"), { recursive: true });
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(root, "fake", "gh"), FAKE_GH, { mode: 0o755 });
  writeFileSync(join(root, "subject.sh"), `${lines.join("\n")}\n`);
  writeFileSync(join(root, "forged.json"), FORGED);
  const r = await run(
    [BIN.bun, join(REPO_ROOT, "scripts", "gh-shim.ts"), "record", ...args, "--", "bash", "subject.sh"],
    {
      cwd: root,
      env: { PATH: `${join(root, "fake")}:/usr/bin:/bin`, HOME: process.env.HOME ?? "/", TMPDIR: tmp },
    },
  );
  const file = join(root, "cassettes.json");
  return {
    exitCode: r.exitCode,
    stdout: r.stdout,
    cassette: existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null,
    leaked: existsSync(file) && readFileSync(file, "utf8").includes(TOKEN),
  };
}

describe("only calls the recorder observed are recorded", () => {
  const attacks = [
    {
      name: "a capture written into EVAL_CASSETTES before the call",
      lines: ['cp forged.json "$EVAL_CASSETTES"', "gh issue view 1 --json title,number >/dev/null"],
    },
    {
      name: "a capture written into EVAL_CASSETTES after the last call",
      lines: ["gh issue view 1 --json title,number >/dev/null", 'cp forged.json "$EVAL_CASSETTES"'],
    },
    {
      name: "every file under the recorder's temp dirs overwritten with a capture",
      lines: [
        "gh issue view 1 --json title,number >/dev/null",
        'for f in "$TMPDIR"/proctor-record-*/*.json "$TMPDIR"/proctor-record-*/*/*.json; do [ -e "$f" ] && cp forged.json "$f"; done',
        'for d in "$TMPDIR"/proctor-record-*/; do cp forged.json "$d/captured.json"; done',
      ],
    },
    {
      name: "a capture sent over the recorder's socket instead of a header",
      lines: [
        "gh issue view 1 --json title,number >/dev/null",
        "python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(open('forged.json','rb').read()+b'\\n'); s.shutdown(1); s.recv(65536)\" \"$PROCTOR_GH_RECORDER\" || true",
      ],
    },
  ];
  for (const a of attacks)
    test(a.name, async () => {
      using dir = tempDir("shim-record-attack");
      expect(await record(dir.path, a.lines)).toEqual({
        exitCode: 0,
        stdout: "",
        cassette: { version: 1, calls: [ONE] },
        leaked: false,
      });
    });
});

describe("the command cannot write the cassette itself", () => {
  const cases = [
    { name: "a new cassette written by the command is removed", before: null, calls: false },
    { name: "and so is one it writes while the recorder records a call", before: null, calls: true },
    {
      name: "an existing cassette it rewrites is put back",
      before: JSON.stringify({ version: 1, calls: [ONE] }),
      calls: false,
    },
  ];
  for (const c of cases)
    test(c.name, async () => {
      using dir = tempDir("shim-record-attack");
      if (c.before !== null) writeFileSync(join(dir.path, "cassettes.json"), c.before);
      const lines = [
        ...(c.calls ? ["gh issue view 1 --json title,number >/dev/null"] : []),
        "cp forged.json cassettes.json",
      ];
      const r = await record(dir.path, lines);
      const file = join(dir.path, "cassettes.json");
      expect({
        exitCode: r.exitCode,
        cassette: existsSync(file) ? readFileSync(file, "utf8") : null,
      }).toEqual({ exitCode: 1, cassette: c.before });
    });
});

test("everything written is redacted: an earlier entry's token goes when the cassette is rewritten", async () => {
  using dir = tempDir("shim-record-attack");
  const old = { argv: ["auth", "token"], stdout: `${TOKEN}\n`, stderr: "", exit: 0 };
  writeFileSync(join(dir.path, "cassettes.json"), JSON.stringify({ version: 1, calls: [old] }));
  expect(await record(dir.path, ["gh issue view 1 --json title,number >/dev/null"])).toEqual({
    exitCode: 0,
    stdout: "",
    cassette: { version: 1, calls: [{ ...old, stdout: "[REDACTED:github-token]\n" }, ONE] },
    leaked: false,
  });
});

test("stdin reaches gh when the call reads it (--input -), and a while-read loop keeps its lines", async () => {
  using dir = tempDir("shim-record-attack");
  const r = await record(dir.path, [
    "printf 'hello' | gh api --input - repos/o/r/issues",
    "echo",
    "printf '1\\n1\\n' | while read -r n; do gh issue view \"$n\" --json title,number; done",
  ]);
  expect(r).toEqual({
    exitCode: 0,
    stdout: 'posted: hello\n{"number":1,"title":"One"}\n{"number":1,"title":"One"}\n',
    cassette: {
      version: 1,
      calls: [
        { argv: ["api", "--input", "-", "repos/o/r/issues"], stdout: "posted: hello", stderr: "", exit: 0 },
        ONE,
      ],
    },
    leaked: false,
  });
});
