// `npm run install-bin` (scripts/install.ts) in a temp HOME (issue 26): after it, `proctor` and every
// tool through it (`proctor mock-model`, `proctor run-eval`, ...) are one command away, and nothing
// named `gh` stands in front of the user's real gh. The folder honours --prefix, $PREFIX and
// $XDG_BIN_HOME, else ~/.local/bin; a file that is not a link is never replaced.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { VERSION } from "../../lib/core/version.ts";
import { binDir } from "../support/binary.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";

const DIST_PROCTOR = join(REPO_ROOT, "dist", "proctor");

beforeAll(async () => {
  await binDir(); // dist/proctor, built when stale
}, 600_000);

async function install(env: Record<string, string>, ...argv: string[]) {
  const r = await run([BIN.bun, join(REPO_ROOT, "scripts", "install.ts"), "--no-build", ...argv], {
    env: { PATH: "/usr/bin:/bin", ...env },
  });
  return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
}

const notOnPath = (folder: string) =>
  `${folder} is not on PATH: add it (e.g. in ~/.profile) with\n  export PATH="${folder}:$PATH"\n`;

test.each([
  { name: "~/.local/bin by default", env: {}, argv: [], folder: "home/.local/bin" },
  { name: "$XDG_BIN_HOME", env: { XDG_BIN_HOME: "<T>/xdg" }, argv: [], folder: "xdg" },
  {
    name: "$PREFIX/bin before $XDG_BIN_HOME",
    env: { PREFIX: "<T>/p", XDG_BIN_HOME: "<T>/xdg" },
    argv: [],
    folder: "p/bin",
  },
  {
    name: "--prefix DIR before $PREFIX",
    env: { PREFIX: "<T>/p" },
    argv: ["--prefix", "<T>/q"],
    folder: "q/bin",
  },
])("$name: one link, proctor, and every tool through it", async ({ env, argv, folder }) => {
  using tmp = tempDir("install");
  const t = (s: string) => s.replaceAll("<T>", tmp.path);
  const home = join(tmp.path, "home");
  mkdirSync(home);
  const r = await install(
    { HOME: home, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, t(v)])) },
    ...argv.map(t),
  );
  const bin = join(tmp.path, folder);
  const proctor = join(bin, "proctor");
  const version = await run([proctor, "--version"], { env: { PATH: "/usr/bin:/bin" } });
  const mock = await run([proctor, "mock-model", "--help"], { env: { PATH: "/usr/bin:/bin" } });
  expect({
    r,
    files: readdirSync(bin),
    version: version.stdout,
    mock: { exitCode: mock.exitCode, usage: mock.stdout.includes("USAGE mock-model") },
  }).toEqual({
    r: { exitCode: 0, stdout: "", stderr: `linked ${proctor} -> ${DIST_PROCTOR}\n${notOnPath(bin)}` },
    files: ["proctor"], // no gh in front of the user's own
    version: `${VERSION}\n`,
    mock: { exitCode: 0, usage: true },
  });
});

test("on PATH it says so; an earlier proctor on PATH is named; a second install replaces the link", async () => {
  using tmp = tempDir("install-path");
  const bin = join(tmp.path, "bin");
  const other = join(tmp.path, "other");
  mkdirSync(other);
  writeFileSync(join(other, "proctor"), "#!/bin/sh\n", { mode: 0o755 });
  const first = await install({ HOME: tmp.path, XDG_BIN_HOME: bin, PATH: `${bin}:/usr/bin` });
  const shadowed = await install({ HOME: tmp.path, XDG_BIN_HOME: bin, PATH: `${other}:${bin}:/usr/bin` });
  expect({ first, shadowed }).toEqual({
    first: {
      exitCode: 0,
      stdout: "",
      stderr: `linked ${bin}/proctor -> ${DIST_PROCTOR}\nproctor is on PATH: try \`proctor --help\`\n`,
    },
    shadowed: {
      exitCode: 0,
      stdout: "",
      stderr: `linked ${bin}/proctor -> ${DIST_PROCTOR}\nanother proctor comes first on PATH (${other}/proctor): put ${bin} before ${other}, or call ${bin}/proctor\n`,
    },
  });
});

test("a file that is not a link is never replaced; --remove takes only this checkout's link", async () => {
  using tmp = tempDir("install-refused");
  const bin = join(tmp.path, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "proctor"), "mine\n");
  const env = { HOME: tmp.path, XDG_BIN_HOME: bin };
  const refused = await install(env);
  const notOurs = await install(env, "--remove");
  const kept = readFileSync(join(bin, "proctor"), "utf8");
  const other = join(tmp.path, "b2");
  const installed = await install({ ...env, XDG_BIN_HOME: other });
  const removed = await install({ ...env, XDG_BIN_HOME: other }, "--remove");
  const again = await install({ ...env, XDG_BIN_HOME: other }, "--remove");
  expect({
    refused,
    notOurs,
    kept,
    installed: installed.exitCode,
    removed,
    gone: existsSync(join(other, "proctor")),
    again,
  }).toEqual({
    refused: {
      exitCode: 2,
      stdout: "",
      stderr: `✗ Cannot install "${bin}/proctor": a file that is not a link is there; move it away first\n`,
    },
    notOurs: {
      exitCode: 2,
      stdout: "",
      stderr: `✗ Cannot remove "${bin}/proctor": it is not this checkout's proctor (not a link)\n`,
    },
    kept: "mine\n",
    installed: 0,
    removed: { exitCode: 0, stdout: "", stderr: `removed ${other}/proctor\n` },
    gone: false,
    again: { exitCode: 0, stdout: "", stderr: `nothing to remove: no ${other}/proctor\n` },
  });
});

test("package.json's install-bin runs it", () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
  expect(pkg.scripts["install-bin"]).toEqual("bun scripts/install.ts");
});
