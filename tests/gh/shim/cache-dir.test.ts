// Where the per-user index cache lives and when a replay may read it without node:fs
// (lib/gh/shim/cache-dir.ts): the home cache only when no one but us and root can change any
// directory on its path, the temp one only when lstat shows our own private directory.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { FileStat } from "../../../lib/core/runtime.ts";
import {
  defaultCacheDir,
  homeCacheDir,
  readableCacheDir,
  safeDir,
  tempRoot,
} from "../../../lib/gh/shim/cache-dir.ts";
import { tempDir } from "../../support/tmp.ts";

describe("tempRoot is os.tmpdir() without node:os", () => {
  test.each([
    { name: "TMPDIR", env: { TMPDIR: "/var/tmp" } },
    { name: "a trailing slash", env: { TMPDIR: "/var/tmp/" } },
    { name: "TMP then TEMP", env: { TMP: "/a", TEMP: "/b" } },
    { name: "TEMP", env: { TEMP: "/b" } },
    { name: "none", env: {} },
    { name: "the root itself", env: { TMPDIR: "/" } },
  ])("$name", ({ env }) => {
    const saved = { TMPDIR: process.env.TMPDIR, TMP: process.env.TMP, TEMP: process.env.TEMP };
    for (const k of ["TMPDIR", "TMP", "TEMP"]) delete process.env[k];
    Object.assign(process.env, env);
    try {
      expect(tempRoot(env)).toBe(tmpdir());
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

test.each([
  {
    name: "XDG_CACHE_HOME first",
    env: { XDG_CACHE_HOME: "/x/cache/", HOME: "/h" },
    expected: "/x/cache/proctor/cassette-index",
  },
  { name: "else HOME/.cache", env: { HOME: "/h" }, expected: "/h/.cache/proctor/cassette-index" },
  {
    name: "a relative XDG_CACHE_HOME is ignored",
    env: { XDG_CACHE_HOME: "rel", HOME: "/h" },
    expected: "/h/.cache/proctor/cassette-index",
  },
  { name: "neither", env: {}, expected: null },
])("homeCacheDir: $name", ({ env, expected }) => {
  expect(homeCacheDir(env)).toBe(expected);
});

describe("safeDir", () => {
  const dir = (uid: number, mode: number): FileStat => ({
    dev: 1,
    ino: 1,
    size: 0,
    mtimeMs: 0,
    ctimeMs: 0,
    uid,
    mode: 0o040000 | mode,
    isFile: false,
    isDirectory: true,
  });
  const ME = 1000;
  const good: Record<string, FileStat> = {
    "/": dir(0, 0o755),
    "/home": dir(0, 0o755),
    "/home/me": dir(ME, 0o750),
    "/home/me/.cache": dir(ME, 0o755),
    "/home/me/.cache/proctor": dir(ME, 0o755),
    "/home/me/.cache/proctor/cassette-index": dir(ME, 0o700),
  };
  const PATH = "/home/me/.cache/proctor/cassette-index";
  test.each([
    { name: "ours and root's, none writable by others", change: {}, path: PATH, expected: true },
    {
      name: "a world-writable ancestor (HOME=/tmp)",
      change: { "/home": dir(0, 0o1777) },
      path: PATH,
      expected: false,
    },
    {
      name: "a group-writable ancestor",
      change: { "/home/me": dir(ME, 0o770) },
      path: PATH,
      expected: false,
    },
    {
      name: "another user's ancestor",
      change: { "/home/me/.cache": dir(1001, 0o755) },
      path: PATH,
      expected: false,
    },
    { name: "the cache readable by others", change: { [PATH]: dir(ME, 0o755) }, path: PATH, expected: false },
    { name: "the cache root's, not ours", change: { [PATH]: dir(0, 0o700) }, path: PATH, expected: false },
    {
      name: "a file on the way",
      change: { "/home/me/.cache": { ...dir(ME, 0o644), isDirectory: false, isFile: true } },
      path: PATH,
      expected: false,
    },
    { name: "missing", change: { [PATH]: null }, path: PATH, expected: false },
    { name: "a relative path", change: {}, path: "home/me/.cache/proctor/cassette-index", expected: false },
    {
      name: "a path with ..",
      change: {},
      path: "/home/me/.cache/../.cache/proctor/cassette-index",
      expected: false,
    },
  ])("$name", async ({ change, path, expected }) => {
    const table: Record<string, FileStat | null | undefined> = { ...good, ...change };
    expect(await safeDir(path, ME, async (p) => table[p] ?? null)).toBe(expected);
  });
});

describe("the cache a replay reads and the one it writes", () => {
  test("a home no one else can change gets the cache, made private, and a replay reads it there", async () => {
    // Under the user's own cache folder (~/.cache), whose parents no one else can change, wherever
    // the checkout is: a clone under the system temp dir would fall back, as it should.
    const parent = join(homedir(), ".cache");
    mkdirSync(parent, { recursive: true });
    const home = mkdtempSync(join(parent, "proctor-cache-dir-"));
    try {
      chmodSync(home, 0o755);
      const env = { HOME: home, TMPDIR: join(home, "no-tmp") };
      const written = defaultCacheDir(env);
      const read = await readableCacheDir(env);
      const mode = statSync(join(home, ".cache", "proctor", "cassette-index")).mode & 0o777;
      expect({ written, read, mode }).toEqual({
        written: join(home, ".cache", "proctor", "cassette-index"),
        read: join(home, ".cache", "proctor", "cassette-index"),
        mode: 0o700,
      });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a home under a world-writable directory (HOME=/tmp/...) falls back to the temp cache", async () => {
    using dir = tempDir("cache-dir");
    const env = { HOME: join(dir.path, "home"), TMPDIR: join(dir.path, "tmp") };
    mkdirSync(env.HOME);
    mkdirSync(env.TMPDIR);
    const temp = join(dir.path, "tmp", `proctor-${process.getuid?.()}`, "cassette-index");
    expect({
      written: defaultCacheDir(env),
      read: await readableCacheDir(env),
      madeInHome: readdirSync(env.HOME),
    }).toEqual({
      written: temp,
      read: temp,
      madeInHome: [],
    });
  });

  test("a temp cache dir that is a link is refused", async () => {
    using dir = tempDir("cache-dir");
    const elsewhere = join(dir.path, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    chmodSync(elsewhere, 0o700);
    symlinkSync(elsewhere, join(dir.path, `proctor-${process.getuid?.()}`));
    const env = { TMPDIR: dir.path };
    expect({ read: await readableCacheDir(env), written: defaultCacheDir(env) }).toEqual({
      read: null,
      written: null,
    });
  });
});
