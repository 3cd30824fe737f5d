// A Harbor task's environment image without an engine (a scripted docker CLI): docker_image when it is
// here, else the Dockerfile; a base image or lone docker_image not here and a heredoc without BuildKit
// refused in one line before anything is built; the build's argv (the engine's network unless
// --offline, --force-rm, the labels); a failed build as one line naming the step and instruction.
import { describe, expect, test } from "bun:test";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ProcResult } from "../../../lib/core/proc.ts";
import type { CallOptions } from "../../../lib/isolation/docker/engine.ts";
import { buildFailure, stripEscapes } from "../../../lib/suite/harbor/build-log.ts";
import { buildArgs } from "../../../lib/suite/harbor/builder.ts";
import { heredocLine, planTaskImage, TASK_IMAGE_REPO, taskImage } from "../../../lib/suite/harbor/image.ts";
import { HarborRefusal } from "../../../lib/suite/harbor/refusal.ts";
import { loadHarborTask } from "../../../lib/suite/harbor/task.ts";
import { tempDir } from "../../support/tmp.ts";
import { REPO_ROOT } from "../../support/tools.ts";

const FIXTURES = join(REPO_ROOT, "tests", "fixtures", "harbor");
const LAYOUTS = join(FIXTURES, "layouts");

const result = (o: Partial<ProcResult>): ProcResult => ({
  command: [],
  exitCode: 0,
  signal: null,
  stdout: "",
  stderr: "",
  durationMs: 1,
  timedOut: false,
  ...o,
});

/** A docker CLI that knows `images` (ref -> id), answers `build` with `build`, and logs every call. */
function fakeDocker(images: Record<string, string>, build: Partial<ProcResult> = {}) {
  const calls: { argv: string[]; env?: Record<string, string> }[] = [];
  const call = async (argv: string[], o?: CallOptions) => {
    calls.push({ argv, ...(o?.env ? { env: o.env } : {}) });
    if (argv[0] === "image" && argv[1] === "inspect") {
      const id = images[argv.at(-1)!];
      return result(id ? { stdout: `${id}\n` } : { exitCode: 1, stderr: "Error: No such image" });
    }
    if (argv[0] === "build") return result(build);
    return result({ exitCode: 1, stderr: `unexpected docker ${argv.join(" ")}` });
  };
  return { call, calls };
}

/** What planning `task` gave: the plan's kind and tag, or the refusal's line and fault. */
async function plan(
  dir: string,
  images: Record<string, string>,
  o: { map?: Record<string, string>; buildkit?: boolean } = {},
): Promise<unknown> {
  const { call, calls } = fakeDocker(images);
  try {
    const p = await planTaskImage(call, loadHarborTask(dir), new Map(Object.entries(o.map ?? {})), {
      buildkit: o.buildkit ?? false,
    });
    return {
      plan: p.kind === "image" ? { image: p.tag } : { build: p.dockerfile.slice(dir.length + 1), ids: p.ids },
      builds: calls.filter((c) => c.argv[0] === "build").length,
    };
  } catch (error) {
    if (!(error instanceof HarborRefusal)) throw error;
    return { refused: error.message.replace(FIXTURES, "F"), broken: error.broken };
  }
}

const BASE = { "ubuntu:24.04": "sha256:base" };

describe("which image a task runs in", () => {
  test.each([
    {
      name: "docker_image here: used, the Dockerfile beside it is not built",
      dir: join(LAYOUTS, "prebuilt-image"),
      images: { ...BASE, "proctor-fixtures/prebuilt-image:1.0": "sha256:pre" },
      expected: { plan: { image: "proctor-fixtures/prebuilt-image:1.0" }, builds: 0 },
    },
    {
      name: "docker_image mapped with --image-map to an image here",
      dir: join(LAYOUTS, "prebuilt-image"),
      images: { ...BASE, "mirror/prebuilt:1": "sha256:pre" },
      map: { "proctor-fixtures/prebuilt-image:1.0": "mirror/prebuilt:1" },
      expected: { plan: { image: "mirror/prebuilt:1" }, builds: 0 },
    },
    {
      name: "docker_image not here: the Dockerfile is built",
      dir: join(LAYOUTS, "prebuilt-image"),
      images: BASE,
      expected: { plan: { build: "environment/Dockerfile", ids: ["sha256:base"] }, builds: 0 },
    },
    {
      name: "a FROM image not here",
      dir: join(FIXTURES, "missing-base"),
      images: BASE,
      expected: {
        refused:
          'Cannot build Harbor task "F/missing-base/environment/Dockerfile": FROM image "proctor-no-such-base:1.0" (line 1) is not on this machine; load it (docker pull proctor-no-such-base:1.0) or map it with --image-map proctor-no-such-base:1.0=LOCAL',
        broken: false,
      },
    },
    {
      name: "a heredoc without BuildKit",
      dir: join(LAYOUTS, "heredoc"),
      images: BASE,
      expected: {
        refused:
          'Cannot build Harbor task "F/layouts/heredoc/environment/Dockerfile": line 3: a heredoc (RUN <<EOF) needs BuildKit, and this Docker client has none (docker buildx version fails); install the buildx plugin or write the step without a heredoc',
        broken: false,
      },
    },
    {
      name: "a heredoc with BuildKit",
      dir: join(LAYOUTS, "heredoc"),
      images: BASE,
      buildkit: true,
      expected: { plan: { build: "environment/Dockerfile", ids: ["sha256:base"] }, builds: 0 },
    },
  ])("$name", async ({ dir, images, map, buildkit, expected }) => {
    expect(await plan(dir, images, { ...(map ? { map } : {}), ...(buildkit ? { buildkit } : {}) })).toEqual(
      expected,
    );
  });

  test("a docker_image without a Dockerfile that is not here: refused, never pulled", async () => {
    using tmp = tempDir("harbor-image");
    const dir = join(tmp.path, "t");
    cpSync(join(LAYOUTS, "prebuilt-image"), dir, { recursive: true });
    rmSync(join(dir, "environment", "Dockerfile"));
    expect(await plan(dir, BASE)).toEqual({
      refused: `Cannot run Harbor task "${dir}/task.toml": environment.docker_image: "proctor-fixtures/prebuilt-image:1.0" is not on this machine and there is no environment/Dockerfile to build it; load it (docker pull proctor-fixtures/prebuilt-image:1.0) or map it with --image-map proctor-fixtures/prebuilt-image:1.0=LOCAL`,
      broken: false,
    });
  });
});

test.each([
  { name: "RUN <<EOF", text: "FROM x\nRUN <<EOF\necho\nEOF\n", line: 2 },
  { name: 'COPY <<-"EOF" with a target', text: 'FROM x\nCOPY <<-"EOF" /etc/x\nhi\nEOF\n', line: 2 },
  {
    name: "a heredoc on a continuation line",
    text: "FROM x\nRUN set -e && \\\n  cat <<EOT > /f\nx\nEOT\n",
    line: 2,
  },
  { name: "a shift in arithmetic", text: "FROM x\nRUN echo $((1 << 2))\n", line: undefined },
  { name: "a comment", text: "FROM x\n# RUN <<EOF is BuildKit's\nRUN true\n", line: undefined },
  { name: "none", text: "FROM x\nRUN echo '<<' \n", line: undefined },
])("heredocLine: $name", ({ text, line }) => {
  expect(heredocLine(text)).toEqual(line);
});

test.each<{
  name: string;
  o: { buildkit: boolean; offline?: boolean };
  argv: string[];
  builder: string;
}>([
  {
    name: "the legacy builder, the engine's network",
    o: { buildkit: false },
    argv: ["build", "--force-rm", "--label", "proctor.harbor=1", "-t", "T", "-f", "D", "C"],
    builder: "0",
  },
  {
    name: "--offline",
    o: { buildkit: false, offline: true },
    argv: [
      "build",
      "--force-rm",
      "--network",
      "none",
      "--label",
      "proctor.harbor=1",
      "-t",
      "T",
      "-f",
      "D",
      "C",
    ],
    builder: "0",
  },
  {
    name: "BuildKit",
    o: { buildkit: true },
    argv: ["build", "--progress=plain", "--label", "proctor.harbor=1", "-t", "T", "-f", "D", "C"],
    builder: "1",
  },
])("the build's argv: $name", ({ o, argv, builder }) => {
  const b = buildArgs("T", { dockerfile: "D", context: "C", ...o });
  expect({ argv: b.argv, builder: b.env.DOCKER_BUILDKIT ?? "unset" }).toEqual({ argv, builder });
});

/** The legacy builder's own words for a failed RUN (recorded from docker 20.10, client 28). */
const LEGACY_RUN = {
  exitCode: 100,
  stdout: [
    "Sending build context to Docker daemon  2.048kB\r\r",
    "Step 1/4 : FROM proctor-base:3e78a2b1f4d3e317",
    " ---> fa4f52bb092c",
    "Step 2/4 : WORKDIR /app",
    " ---> Using cache",
    " ---> 4e4e394630ed",
    "Step 3/4 : RUN echo one &&     apt-get install -y foo",
    " ---> Running in 4d594c3007c6",
    "one",
    "Reading package lists...",
    "Building dependency tree...",
    "\x1b[91mE: Unable to locate package foo",
    "\x1b[0mRemoving intermediate container 4d594c3007c6",
    "",
  ].join("\n"),
  stderr: [
    "DEPRECATED: The legacy builder is deprecated and will be removed in a future release.",
    "            BuildKit is currently disabled; enable it by removing the DOCKER_BUILDKIT=0",
    "            environment-variable.",
    "",
    "The command '/bin/sh -c echo one &&     apt-get install -y foo' returned a non-zero code: 100",
    "",
  ].join("\n"),
};

test.each([
  {
    name: "the legacy builder: a RUN that fails, colour codes and all",
    r: LEGACY_RUN,
    line: "step 3/4 (RUN echo one && apt-get install -y foo) exited 100: E: Unable to locate package foo",
  },
  {
    name: "the legacy builder: a COPY of a missing file",
    r: {
      exitCode: 1,
      stdout: "Step 1/3 : FROM b\n ---> fa4f52bb092c\nStep 3/3 : COPY nope.txt /app/\n",
      stderr: `${LEGACY_RUN.stderr.split("\n").slice(0, 4).join("\n")}\nCOPY failed: file not found in build context or excluded by .dockerignore: stat nope.txt: file does not exist\n`,
    },
    line: "step 3/3 (COPY nope.txt /app/) failed: COPY failed: file not found in build context or excluded by .dockerignore: stat nope.txt: file does not exist",
  },
  {
    name: "the legacy builder: a Dockerfile it cannot parse",
    r: {
      exitCode: 1,
      stdout: "Sending build context to Docker daemon  3.584kB\r\r\n",
      stderr: "Error response from daemon: dockerfile parse error line 3: unknown instruction: ECHO\n",
    },
    line: "dockerfile parse error line 3: unknown instruction: ECHO",
  },
  {
    name: "BuildKit: a RUN that fails in a named stage",
    r: {
      exitCode: 1,
      stdout: "",
      stderr: [
        '#0 building with "default" instance using docker driver',
        "#5 [build 2/3] RUN make",
        "#5 0.317 cc -o x x.c",
        "#5 0.330 x.c:1: error: expected ';'",
        '#5 ERROR: process "/bin/sh -c make" did not complete successfully: exit code: 2',
        "------",
        " > [build 2/3] RUN make:",
        "0.317 cc -o x x.c",
        "0.330 x.c:1: error: expected ';'",
        "------",
        "Dockerfile:3",
        "--------------------",
        "   3 | >>> RUN make",
        "--------------------",
        'ERROR: failed to solve: process "/bin/sh -c make" did not complete successfully: exit code: 2',
      ].join("\n"),
    },
    line: "step 2/3 (RUN make) exited 2: x.c:1: error: expected ';'",
  },
  {
    name: "BuildKit: a Dockerfile it cannot parse",
    r: {
      exitCode: 1,
      stdout: "",
      stderr: "ERROR: failed to solve: dockerfile parse error on line 3: unknown instruction: echo\n",
    },
    line: "dockerfile parse error on line 3: unknown instruction: echo",
  },
])("a failed build in one line: $name", ({ r, line }) => {
  expect(buildFailure(r)).toEqual(line);
});

test("terminal escapes go, newlines stay", () => {
  expect(stripEscapes("\x1b[1;31mred\x1b[0m\r\nnext\x1b]0;title\x07 \x1b(B\x07end")).toEqual("red\nnext end");
});

test("a failed build is one ToolError line naming the Dockerfile and the step; nothing is kept", async () => {
  using tmp = tempDir("harbor-build-fails");
  const dir = join(tmp.path, "t");
  cpSync(join(FIXTURES, "fix-add"), dir, { recursive: true });
  writeFileSync(join(dir, "environment", "marker"), tmp.path);
  const { call, calls } = fakeDocker(BASE, LEGACY_RUN);
  const task = loadHarborTask(dir);
  const attempt = async () => {
    try {
      await taskImage(call, task, new Map(), { buildkit: false, offline: true });
      return "built";
    } catch (error) {
      return (error as Error).message;
    }
  };
  const [first, second] = [await attempt(), await attempt()];
  const builds = calls.filter((c) => c.argv[0] === "build");
  expect({
    first,
    second,
    builds: builds.length,
    argv: builds[0]!.argv.filter((a) => a.startsWith("--") || a.startsWith("proctor.")),
    tag: builds[0]!.argv[builds[0]!.argv.indexOf("-t") + 1]!.split(":")[0],
  }).toEqual({
    first: `Cannot build Harbor task "${dir}/environment/Dockerfile": step 3/4 (RUN echo one && apt-get install -y foo) exited 100: E: Unable to locate package foo`,
    second: first,
    // A failure is not cached: the next trial builds again.
    builds: 2,
    argv: ["--force-rm", "--network", "--label", "proctor.harbor=1"],
    tag: TASK_IMAGE_REPO,
  });
});
