// release.yml's major tag: .github/scripts/major-tag.sh against a stand-in `gh` that answers the
// GitHub API from a table and logs each call (argv, and whether the token came through the
// environment), and the publish job's order (the tag moves only after the release is published).
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { run } from "../../lib/core/proc.ts";
import { tempDir } from "../support/tmp.ts";
import { REPO_ROOT } from "../support/tools.ts";

const SCRIPT = join(REPO_ROOT, ".github", "scripts", "major-tag.sh");
const SHA = "0123456789abcdef0123456789abcdef01234567";

/** A `gh` that lists FAKE_TAGS, says whether the major tag exists (FAKE_HAS_MAJOR) and logs writes. */
const FAKE_GH = `#!/bin/sh
echo "token=\${GH_TOKEN:+env} $*" >>"$FAKE_LOG"
case "$*" in
  *matching-refs*) printf '%s\\n' $FAKE_TAGS | sed 's#^#refs/tags/#' ;;
  "api repos/o/proctor/git/ref/tags/"*) [ "$FAKE_HAS_MAJOR" = 1 ] ;;
  *--method*) exit "\${FAKE_WRITE_EXIT:-0}" ;;
esac
`;

const LIST = "token=env api repos/o/proctor/git/matching-refs/tags/v1. --jq .[].ref";
const HAS = "token=env api repos/o/proctor/git/ref/tags/v1 --silent";

const cases: {
  name: string;
  tag: string;
  tags: string;
  hasMajor: boolean;
  writeExit?: number;
  exitCode: number;
  calls: string[];
  stderr: string;
}[] = [
  {
    name: "the first v1 release creates v1",
    tag: "v1.0.0",
    tags: "v1.0.0",
    hasMajor: false,
    exitCode: 0,
    calls: [
      LIST,
      HAS,
      `token=env api --method POST repos/o/proctor/git/refs -f ref=refs/tags/v1 -f sha=${SHA} --silent`,
    ],
    stderr: `major-tag: created v1 at v1.0.0 (${SHA})\n`,
  },
  {
    name: "the newest v1 release moves v1 (versions compared, not strings)",
    tag: "v1.10.0",
    tags: "v1.0.0 v1.9.3 v1.10.0 v1.11.0-rc.1",
    hasMajor: true,
    exitCode: 0,
    calls: [
      LIST,
      HAS,
      `token=env api --method PATCH repos/o/proctor/git/refs/tags/v1 -f sha=${SHA} -F force=true --silent`,
    ],
    stderr: `major-tag: moved v1 to v1.10.0 (${SHA})\n`,
  },
  {
    name: "a backport older than the newest leaves v1",
    tag: "v1.3.9",
    tags: "v1.3.9 v1.4.2",
    hasMajor: true,
    exitCode: 0,
    calls: [LIST],
    stderr: "major-tag: v1.3.9 is older than v1.4.2; v1 stays where it is\n",
  },
  {
    name: "a prerelease leaves its major alone without a call",
    tag: "v2.0.0-rc.1",
    tags: "",
    hasMajor: false,
    exitCode: 0,
    calls: [],
    stderr: "major-tag: v2.0.0-rc.1 is a prerelease; v2 stays where it is\n",
  },
  {
    name: "a tag that is not a release tag",
    tag: "release-1",
    tags: "",
    hasMajor: false,
    exitCode: 2,
    calls: [],
    stderr:
      '::error title=major-tag::Cannot move a major tag for "release-1": expected a release tag like v1.2.3\n',
  },
  {
    name: "the API refusing the move",
    tag: "v1.4.2",
    tags: "v1.4.2",
    hasMajor: true,
    writeExit: 1,
    exitCode: 1,
    calls: [
      LIST,
      HAS,
      `token=env api --method PATCH repos/o/proctor/git/refs/tags/v1 -f sha=${SHA} -F force=true --silent`,
    ],
    stderr: `::error title=major-tag::Cannot move v1 of o/proctor to ${SHA}\n`,
  },
];

describe("major-tag.sh", () => {
  for (const c of cases) {
    test(c.name, async () => {
      using dir = tempDir("proctor-major-tag");
      writeFileSync(join(dir.path, "gh"), FAKE_GH, { mode: 0o755 });
      const log = join(dir.path, "calls");
      writeFileSync(log, "");
      const r = await run(["bash", SCRIPT, c.tag, SHA], {
        env: {
          PATH: `${dir.path}:/usr/bin:/bin`,
          GH_REPO: "o/proctor",
          GH_TOKEN: "ghs_secret",
          FAKE_LOG: log,
          FAKE_TAGS: c.tags,
          FAKE_HAS_MAJOR: c.hasMajor ? "1" : "0",
          FAKE_WRITE_EXIT: String(c.writeExit ?? 0),
        },
      });
      const calls = readFileSync(log, "utf8");
      expect({ exitCode: r.exitCode, stderr: r.stderr, calls: calls.split("\n").filter(Boolean) }).toEqual({
        exitCode: c.exitCode,
        stderr: c.stderr,
        calls: c.calls,
      });
      expect(calls.includes("ghs_secret") || r.stderr.includes("ghs_secret")).toBe(false);
    });
  }
});

test("release.yml moves the major tag only after publishing, with the token in the environment", () => {
  type Step = { name?: string; run?: string; env?: Record<string, string> };
  const wf = parse(readFileSync(join(REPO_ROOT, ".github", "workflows", "release.yml"), "utf8")) as {
    jobs: { publish: { steps: Step[] } };
  };
  const steps = wf.jobs.publish.steps.filter((s) => s.run);
  expect(
    steps.map((s) => ({
      name: s.name,
      env: Object.keys(s.env ?? {}),
      tokenInRun: /TOKEN|token/.test(s.run ?? ""),
    })),
  ).toEqual([
    { name: "Verify the checksums once more", env: [], tokenInRun: false },
    { name: "Publish the release", env: ["GH_TOKEN", "GH_REPO"], tokenInRun: false },
    { name: "Move the major tag (v1) onto this release", env: ["GH_TOKEN", "GH_REPO"], tokenInRun: false },
  ]);
});
