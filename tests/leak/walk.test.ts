// lib/leak/walk.ts: the descriptor walk under a root somebody else wrote. Links are reported and
// never entered (at any depth), specials are reported and never opened, a directory that cannot be
// listed is reported and not entered; order is depth first, names in code-unit order.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { walkRunRoot, walkTree } from "../../lib/leak/walk.ts";
import { tempDir } from "../support/tmp.ts";

describe("walkTree", () => {
  test("reports every entry with its type and enters no link", async () => {
    using dir = tempDir("proctor-walk");
    using host = tempDir("proctor-walk-host");
    writeFileSync(join(host.path, "secret.txt"), "s");
    const root = join(dir.path, "root");
    mkdirSync(join(root, "run", "out", "a"), { recursive: true });
    writeFileSync(join(root, "run", "out", "a", "x.md"), "x");
    writeFileSync(join(root, "run", "out-b"), "b");
    symlinkSync(host.path, join(root, "run", "out", "a", "deep"));
    symlinkSync(join(host.path, "secret.txt"), join(root, "run", "link.txt"));
    expect((await run(["mkfifo", join(root, "run", "pipe")])).exitCode).toBe(0);
    const got = [...walkTree(root)].map((e) => [e.path, e.type, e.abs === join(root, e.path)]);
    expect(got).toEqual([
      ["run", "dir", true],
      ["run/link.txt", "link", true],
      ["run/out", "dir", true],
      ["run/out/a", "dir", true],
      ["run/out/a/deep", "link", true],
      ["run/out/a/x.md", "file", true],
      ["run/out-b", "file", true],
      ["run/pipe", "special", true],
    ]);
    expect([...walkRunRoot(root)].map((e) => [e.path, e.type])).toEqual([
      ["run/out/a/x.md", "file"],
      ["run/out-b", "file"],
      ["run/pipe", "special"],
    ]);
  });

  test("a name that is not UTF-8 is reported unlistable, never skipped", () => {
    using dir = tempDir("proctor-walk");
    writeFileSync(Buffer.concat([Buffer.from(`${dir.path}/f`), Buffer.from([0xff])]), "canary");
    expect([...walkTree(dir.path)].map((e) => [e.path, e.type])).toEqual([["f\uFFFD", "unlistable"]]);
    expect([...walkRunRoot(dir.path)].map((e) => [e.path, e.type])).toEqual([["f\uFFFD", "file"]]);
  });

  test("a missing root is unlistable (the root itself is the caller's, trusted as given)", () => {
    using dir = tempDir("proctor-walk");
    expect([...walkTree(join(dir.path, "missing"))].map((e) => [e.path, e.type])).toEqual([
      [".", "unlistable"],
    ]);
  });

  test("a directory that cannot be listed is reported, not entered (as the scan's unreadable file)", () => {
    using dir = tempDir("proctor-walk");
    const locked = join(dir.path, "locked");
    mkdirSync(locked);
    writeFileSync(join(locked, "x"), "x");
    chmodSync(locked, 0o000);
    const asRoot = process.getuid?.() === 0;
    const got = [...walkTree(dir.path)].map((e) => [e.path, e.type]);
    chmodSync(locked, 0o755);
    expect(got).toEqual(
      asRoot
        ? [
            ["locked", "dir"],
            ["locked/x", "file"],
          ]
        : [["locked", "unlistable"]],
    );
  });
});
