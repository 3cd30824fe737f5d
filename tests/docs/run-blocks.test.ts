// The docs' quick blocks, run here as written: each section's commands in one `bash -e`, in a network
// namespace holding only lo, with every tool on PATH under both spellings (`proctor grade ...` and
// `grade ...`) running this checkout's source. The ones that need what a test cannot have get a
// stand-in that records what it was asked (kubectl: no cluster), and the test checks those calls
// against the files they name. Blocks that need Docker, the real CLIs against a model, or a long run
// are claimed by their lanes' tests instead (_blocks.ts).
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import { run } from "../../lib/core/proc.ts";
import { QUIET_ENV } from "../../lib/suite/agents/claude.ts";
import { agentCli } from "../support/agent-clis.ts";
import { binDir } from "../support/binary.ts";
import { TOOLS } from "../support/commands.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN, REPO_ROOT } from "../support/tools.ts";
import { sectionCommands } from "./_blocks.ts";

/** A stand-in that appends its argv to $STAND_IN_LOG, one call per line, words split by \x1f. */
const STAND_IN = `#!/bin/sh\n{ printf '%s\\037' "$(basename "$0")" "$@"; printf '\\n'; } >> "$STAND_IN_LOG"\n`;

interface Options {
  cwd?: string;
  env?: Record<string, string>;
  standIns?: string[];
  /** More folders for the front of PATH. */
  path?: string[];
}

/** Runs section `name`'s commands; its stdout lines, stderr and the stand-ins' calls. */
async function runSection(name: string, o: Options = {}) {
  using dir = tempDir("doc-run");
  const bin = join(dir.path, "bin");
  const proctor = join(REPO_ROOT, "scripts", "proctor.ts");
  const write = (file: string, text: string) => writeFileSync(join(bin, file), text, { mode: 0o755 });
  mkdirSync(bin);
  for (const tool of ["proctor", ...Object.keys(TOOLS)])
    write(tool, `#!/bin/sh\nexec '${BIN.bun}' '${proctor}'${tool === "proctor" ? "" : ` ${tool}`} "$@"\n`);
  for (const tool of o.standIns ?? []) write(tool, STAND_IN);
  const log = join(dir.path, "calls");
  writeFileSync(log, "");
  const env = {
    ...(process.env as Record<string, string>),
    ...o.env,
    PATH: [...(o.path ?? []), bin, process.env.PATH].join(":"),
    STAND_IN_LOG: log,
  };
  const netns = ["bwrap", "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", "--"];
  const r = await run([...netns, "bash", "-e", "-c", sectionCommands(name)], {
    cwd: o.cwd ?? REPO_ROOT,
    env,
  });
  const calls = readFileSync(log, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("\x1f").slice(0, -1));
  return { exitCode: r.exitCode, stdout: r.stdout.split("\n").filter(Boolean), stderr: r.stderr, calls };
}

/** Every `secretKeyRef` in a parsed manifest, as "name/key". */
function secretRefs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(secretRefs);
  if (node === null || typeof node !== "object") return [];
  const o = node as Record<string, unknown>;
  const ref = o.secretKeyRef as { name?: string; key?: string } | undefined;
  return [...(ref ? [`${ref.name}/${ref.key}`] : []), ...Object.values(o).flatMap(secretRefs)];
}

const uniq = (xs: string[]) => [...new Set(xs)].sort();

describe("the docs' quick blocks run as written", () => {
  test.concurrent("gh-replay: the shim answers from the case's cassette, and its lint passes", async () => {
    await binDir();
    const r = await runSection("gh-replay");
    // The replayed answer first; what lint prints is its own test's business.
    expect({ exitCode: r.exitCode, replayed: r.stdout[0] }).toEqual({ exitCode: 0, replayed: "[]" });
  });

  test.concurrent("promotion-plan: runs per arm, then what 10 runs per arm can detect", async () => {
    const r = await runSection("promotion-plan");
    const plans = r.stdout.map((l) => JSON.parse(l) as { baseline_rate: number; runs: number | null });
    expect({
      exitCode: r.exitCode,
      plans: plans.map((p) => [p.baseline_rate, p.runs]),
      table: r.stderr.includes("candidate  difference  runs/arm"),
    }).toEqual({
      exitCode: 0,
      plans: [
        [0.5, null],
        [0.5, 10],
      ],
      table: true,
    });
  });

  test.concurrent("mcp-register: Claude Code's project config gets the eval-mcp server", async () => {
    using dir = tempDir("doc-mcp");
    const r = await runSection("mcp-register", {
      cwd: dir.path,
      env: { ...QUIET_ENV, HOME: dir.path },
      path: [dirname(agentCli("claude"))],
    });
    const config = JSON.parse(readFileSync(join(dir.path, ".mcp.json"), "utf8"));
    expect({ exitCode: r.exitCode, config }).toEqual({
      exitCode: 0,
      config: {
        mcpServers: {
          "proctor-eval": { type: "stdio", command: "eval-mcp", args: ["--root", "evals"], env: {} },
        },
      },
    });
  });

  test.concurrent("k8s-run: the secrets, files and Job the commands name are the manifests' own", async () => {
    const r = await runSection("k8s-run", { standIns: ["kubectl"] });
    const verbs = r.calls.map((c) => c[1]);
    const created = r.calls
      .filter((c) => c[1] === "create" && c[2] === "secret")
      .map((c) => `${c[4]}/${c.find((a) => a.startsWith("--from-literal="))?.split("=")[1]}`);
    const applied = r.calls.filter((c) => c[1] === "apply").map((c) => c[c.indexOf("-f") + 1]!);
    const manifests = applied.flatMap((f) =>
      parseAllDocuments(readFileSync(join(REPO_ROOT, f), "utf8")).map(
        (d) => d.toJS() as Record<string, unknown>,
      ),
    );
    const waitedFor = r.calls.find((c) => c[1] === "wait")?.at(-1);
    const jobs = manifests
      .filter((m) => m.kind === "Job")
      .map((m) => `job/${(m.metadata as { name: string }).name}`);
    expect({
      exitCode: r.exitCode,
      // The secrets created are exactly those the manifests read, and the Job waited for is one applied.
      created: uniq(created),
      waitsForAnAppliedJob: waitedFor !== undefined && jobs.includes(waitedFor),
      applyAfterWait: verbs.lastIndexOf("apply") > verbs.indexOf("wait"),
    }).toEqual({
      exitCode: 0,
      created: uniq(secretRefs(manifests)),
      waitsForAnAppliedJob: true,
      applyAfterWait: true,
    });
  });
});
