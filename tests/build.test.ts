// scripts/build.ts: two builds of the same sources, from two checkouts at different paths, give
// byte-identical binaries, archives and bundles (the whole SHA256SUMS is compared); the host archive
// keeps to its budget (60 MB to download, 150 MB unpacked); bad command lines exit 2 with one line.
import { describe, expect, test } from "bun:test";
import {
  copyFileSync,
  cpSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { run } from "../lib/core/proc.ts";
import { unpackedBytes } from "../lib/core/tar.ts";
import { ARCHIVE_LINKS } from "../scripts/build.ts";
import { HOST_PLATFORM } from "./support/binary.ts";
import { tempDir } from "./support/tmp.ts";
import { BIN, REPO_ROOT } from "./support/tools.ts";

const TREE = ["lib", "scripts", "package.json", "tsconfig.json", "bunfig.toml"];

/** Mirrors the tree at `src` into `dest` with hard links (a copy where linking fails), links kept as links. */
function linkTree(src: string, dest: string): void {
  mkdirSync(dest, { recursive: true });
  for (const e of readdirSync(src, { withFileTypes: true })) {
    const [from, to] = [join(src, e.name), join(dest, e.name)];
    if (e.isDirectory()) linkTree(from, to);
    else if (e.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
      }
    }
  }
}

/**
 * Copies what the build reads into `dest`, node_modules inside it (hard-linked), as a second checkout
 * would be. Not a symlink to ours: the bundler names each --splitting chunk by a hash over module
 * paths relative to the checkout, and a symlink resolves to a path whose relative form differs with
 * the checkout's depth, which no real checkout has.
 */
function checkout(dest: string): string {
  mkdirSync(dest, { recursive: true });
  for (const entry of TREE) cpSync(join(REPO_ROOT, entry), join(dest, entry), { recursive: true });
  linkTree(join(REPO_ROOT, "node_modules"), join(dest, "node_modules"));
  return dest;
}

async function build(root: string, args: string[], env: Record<string, string> = {}) {
  const r = await run([BIN.bun, join(root, "scripts", "build.ts"), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/root", ...env },
  });
  return { exitCode: r.exitCode, stderr: r.stderr };
}

describe("reproducible builds", () => {
  // Two full builds (binary, archive, six bundles) take one to two minutes on a loaded two-core
  // machine: the only test here that needs more than the suite's 60 s.
  test("two checkouts at different paths build byte-identical artifacts, and the archive keeps its budget", async () => {
    using dir = tempDir("proctor-build");
    const a = checkout(join(dir.path, "a"));
    const b = checkout(join(dir.path, "elsewhere", "deeper", "b"));
    const env = { SOURCE_DATE_EPOCH: "1700000000" };
    const [ra, rb] = await Promise.all([
      build(a, ["--archives", "--bundles"], env),
      build(b, ["--archives", "--bundles"], env),
    ]);
    const sums = (root: string) => readFileSync(join(root, "dist", "SHA256SUMS"), "utf8");
    const names = (text: string) => text.split("\n").flatMap((l) => (l ? [l.slice(66)] : []));
    const archive = readFileSync(join(a, "dist", `proctor-${HOST_PLATFORM}.tar.gz`));
    expect({
      exitCodes: [ra.exitCode, rb.exitCode],
      files: names(sums(a)),
      identical: sums(a) === sums(b),
      underDownloadBudget: archive.length <= 60e6,
      underDiskBudget: unpackedBytes(gunzipSync(archive)) <= 150e6,
    }).toEqual({
      exitCodes: [0, 0],
      files: [
        ...["agent-eval", "eval-mcp", "eval-steps", "gh-shim", "grade", "run-eval"].map((t) => `js/${t}.js`),
        `proctor-${HOST_PLATFORM}`,
        `proctor-${HOST_PLATFORM}.tar.gz`,
      ],
      identical: true,
      underDownloadBudget: true,
      underDiskBudget: true,
    });
    expect(statSync(join(a, "dist", "bin", "gh")).isFile()).toBe(true);
  }, 600_000);
});

describe("bad command lines", () => {
  const cases: { name: string; args: string[]; env: Record<string, string>; stderr: string }[] = [
    {
      name: "an unknown option",
      args: ["--everything"],
      env: {},
      stderr:
        '✗ Unknown option "--everything": expected --all, --archives, --bundles, --no-bytecode, --outdir=DIR\n',
    },
    {
      name: "an empty --outdir",
      args: ["--outdir="],
      env: {},
      stderr:
        '✗ Unknown option "--outdir=": expected --all, --archives, --bundles, --no-bytecode, --outdir=DIR\n',
    },
    {
      name: "a SOURCE_DATE_EPOCH that is not whole seconds",
      args: ["--archives"],
      env: { SOURCE_DATE_EPOCH: "2024-01-01" },
      stderr: '✗ Cannot read SOURCE_DATE_EPOCH "2024-01-01": expected whole seconds\n',
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      expect(await build(REPO_ROOT, c.args, c.env)).toEqual({ exitCode: 2, stderr: c.stderr });
    });
  }
  test("the archive links are every tool but gh", () => {
    expect(ARCHIVE_LINKS).toEqual(["gh-shim", "grade", "run-eval", "agent-eval", "eval-steps", "eval-mcp"]);
  });
});
