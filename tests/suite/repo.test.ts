// A task's repository on the host (originals.md §6.1, the original's TestCloneArgs): the exact clone
// command, and that its transport rules hold when git runs it (file:// and ext:: refused by git
// itself even if a URL got past loadTask), a failed clone is the trial's start error.
import { expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import { checkoutRepo, cloneArgs } from "../../lib/suite/repo.ts";
import type { Task } from "../../lib/suite/task.ts";
import { tempDir } from "../support/tmp.ts";

test("TestCloneArgs: https and ssh only, shallow, quiet, the URL after --", () => {
  expect(cloneArgs("https://github.com/o/r.git", "/tmp/x")).toEqual([
    "git",
    "-c",
    "protocol.allow=never",
    "-c",
    "protocol.https.allow=always",
    "-c",
    "protocol.ssh.allow=always",
    "clone",
    "--quiet",
    "--depth",
    "1",
    "--",
    "https://github.com/o/r.git",
    "/tmp/x",
  ]);
});

test("git itself refuses the file and ext transports under these flags", async () => {
  using dir = tempDir("suite-repo");
  const src = join(dir.path, "src");
  mkdirSync(src);
  await run(["git", "init", "-q", src]);
  const results = await Promise.all(
    [`file://${src}`, "ext::sh -c touch% /tmp/proctor-ext-pwned"].map(async (url, i) => {
      const r = await run(cloneArgs(url, join(dir.path, `out${i}`)));
      return { exitCode: r.exitCode, refused: /not allowed/.test(r.stderr) };
    }),
  );
  expect(results).toEqual([
    { exitCode: 128, refused: true },
    { exitCode: 128, refused: true },
  ]);
});

const remote = (repo: string): Task => ({
  id: "t",
  repo,
  prompt: "p",
  check: "true",
  setup: [],
  tags: [],
  timeoutMs: 60_000,
  path: "/x/task.yaml",
  dir: "/x",
  repoDir: null,
});

test("an unreachable remote: an error naming the URL, no directory", async () => {
  const got = await checkoutRepo(remote("https://127.0.0.1:1/nope.git"));
  expect({
    dir: got.dir,
    error: /^clone "https:\/\/127\.0\.0\.1:1\/nope\.git": exit 128: .*127\.0\.0\.1/.test(got.error ?? ""),
  }).toEqual({
    dir: undefined,
    error: true,
  });
});

test("a local repository is used in place", async () => {
  const task = { ...remote("repo"), repoDir: "/x/repo" };
  const got = await checkoutRepo(task);
  expect({ dir: got.dir, error: got.error }).toEqual({ dir: "/x/repo", error: undefined });
});
