// The real host release archive, as release.yml and the action use it: the release smoke test
// (.github/scripts/smoke.sh) passes on it and refuses a broken one, and the action's install script
// installs it from a local folder, after which the action's run step (run.sh: run-eval, a shard of
// one, --report) runs an example case sandboxed and writes the JUnit report, the HTML report and the
// step summary.
import { describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "../../lib/core/proc.ts";
import pkg from "../../package.json" with { type: "json" };
import { releaseArchive } from "../../scripts/build/archive.ts";
import { HOST_PLATFORM, hostArchive } from "../support/binary.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

const SMOKE = join(REPO_ROOT, ".github", "scripts", "smoke.sh");
const INSTALL = join(REPO_ROOT, ".github", "action", "install.sh");
const RUN_STEP = join(REPO_ROOT, ".github", "action", "run.sh");
const CASE = join(REPO_ROOT, "evals", "cases", "issue-creator", "basic");
const env = (home: string) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home });

describe("the release smoke test", () => {
  test("passes on the host archive", async () => {
    using home = tempDir("proctor-smoke");
    const r = await run(["bash", SMOKE, await hostArchive(), pkg.version, CASE], { env: env(home.path) });
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({
      exitCode: 0,
      stderr: [
        "ok layout: proctor and 6 links",
        `ok version ${pkg.version}`,
        "ok every link answers like proctor <tool>",
        "ok grade lint-branch",
        "ok run-eval basic\n",
      ].join("\n"),
    });
  });

  const broken = [
    {
      name: "an archive without the run-eval link",
      links: ["agent-eval", "eval-mcp", "eval-steps", "gh-shim", "grade"],
      version: "9.9.9",
      stderr: `::error title=smoke::ARCHIVE holds "agent-eval eval-mcp eval-steps gh-shim grade proctor ", expected "agent-eval eval-mcp eval-steps gh-shim grade proctor run-eval "\n`,
    },
    {
      name: "a binary that reports another version",
      links: ["agent-eval", "eval-mcp", "eval-steps", "gh-shim", "grade", "run-eval"],
      version: "1.0.0",
      stderr: `ok layout: proctor and 6 links\n::error title=smoke::proctor --version printed "9.9.9", expected "1.0.0"\n`,
    },
  ];
  for (const c of broken) {
    test(`refuses ${c.name}`, async () => {
      using dir = tempDir("proctor-smoke");
      const binary = join(dir.path, "stand-in");
      writeFileSync(binary, "#!/bin/sh\necho 9.9.9\n", { mode: 0o755 });
      const archive = join(dir.path, "a.tar.gz");
      writeFileSync(archive, releaseArchive({ dir: "p", binary, links: c.links, mtime: 0 }));
      const r = await run(["bash", SMOKE, archive, c.version, CASE], { env: env(dir.path) });
      expect({ exitCode: r.exitCode, stderr: r.stderr.replaceAll(archive, "ARCHIVE") }).toEqual({
        exitCode: 1,
        stderr: c.stderr,
      });
    });
  }
});

describe("the action, end to end against the local archive", () => {
  test("install.sh installs it; run-eval runs the cases with a JUnit report and a step summary", async () => {
    using dir = tempDir("proctor-action-e2e");
    const archive = await hostArchive();
    const asset = `proctor-${HOST_PLATFORM}.tar.gz`;
    copyFileSync(archive, join(dir.path, asset));
    // The release's SHA256SUMS also lists files the release does not carry; only the asset's line counts.
    copyFileSync(join(REPO_ROOT, "dist", "SHA256SUMS"), join(dir.path, "SHA256SUMS"));
    const installDir = join(dir.path, "tool");
    const gh = {
      GITHUB_PATH: join(dir.path, "github_path"),
      GITHUB_OUTPUT: join(dir.path, "github_output"),
      GITHUB_STEP_SUMMARY: join(dir.path, "summary.md"),
    };
    const installed = await run(["bash", INSTALL], {
      env: {
        ...env(dir.path),
        ...gh,
        PROCTOR_DOWNLOAD_BASE: `file://${dir.path}`,
        PROCTOR_INSTALL_DIR: installDir,
      },
    });
    const junit = join(dir.path, "junit.xml");
    const report = join(dir.path, "report.html");
    // The action's run step (run.sh), with the PATH the runner would give it and a shard of one.
    const ran = await run(["bash", RUN_STEP], {
      env: {
        ...env(dir.path),
        ...gh,
        PATH: `${installDir}:${process.env.PATH ?? "/usr/bin:/bin"}`,
        PROCTOR_CASES: CASE,
        PROCTOR_JUNIT: junit,
        PROCTOR_SHARD: "0/1",
        PROCTOR_REPORT: report,
      },
    });
    expect({
      install: installed.exitCode,
      output: readFileSync(gh.GITHUB_OUTPUT, "utf8"),
      runEval: ran.exitCode,
      junitCases: [...readFileSync(junit, "utf8").matchAll(/<testcase [^>]*name="([^"]+)"/g)].map(
        (m) => m[1],
      ),
      summaryMentionsCase: readFileSync(gh.GITHUB_STEP_SUMMARY, "utf8").includes("issue-creator/basic"),
      report: readFileSync(report, "utf8").startsWith("<!doctype html>"),
    }).toEqual({
      install: 0,
      output: `bin-dir=${installDir}\nversion=${pkg.version}\nreport-artifact=proctor-report-shard-0-of-1\nkeep-artifact=proctor-keep-shard-0-of-1\nresult=\n`,
      runEval: 0,
      junitCases: ["issue-creator/basic"],
      summaryMentionsCase: true,
      report: readFileSync(report, "utf8").startsWith("<!doctype html>"),
    });
  });
});
