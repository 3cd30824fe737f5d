// What a promotion run records about itself (provenance.json, reference §5.3): the facts the run
// gathered, put in the original's field names, the isolation evidence (what the agent sandbox hides,
// probed before any run) and the artifact digests the manifest and verdict check. run.ts owns the
// sequence of a run; this module owns what it says about it.

import { existsSync, rmSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { join, relative } from "node:path";
import { codepointCompare } from "../compat/py/text.ts";
import { UpstreamError } from "../core/errors.ts";
import { sha256FileSync, sha256Hex } from "../core/hash.ts";
import { type IsolationEvidence, probeIsolation } from "../isolation/agent.ts";
import type { Sandbox } from "../isolation/sandbox/index.ts";
import { prepareWorkDir } from "../isolation/sandbox/index.ts";
import { walkRunRoot } from "../leak/index.ts";
import type { AgentConfig, LoadedTask } from "./formats.ts";
import type { Arm } from "./git.ts";
import { hashConfined } from "./manifest.ts";
import type { Artifact } from "./records.ts";
import { freshRoot } from "./stage.ts";

/** What a finished run knows that provenance.json records. */
export interface RunFacts {
  head: string;
  harness: { path: string; sha256: string }[];
  task: LoadedTask;
  locked: { task_sha256: string; rubric_sha256: string };
  /** The lock file's path, shown relative to `repo` when inside it. */
  lock: string;
  repo: string;
  arms: { baseline: Arm; candidate: Arm };
  config: AgentConfig;
  sandboxed: boolean;
  isolation: IsolationEvidence;
  perArm: number;
  timeoutS: number;
  seed: number;
  seedSupplied: boolean;
  nonce: string;
  leaks: number;
  runDir: string;
  artifacts: Artifact[];
}

/** provenance.json's content, with `verdict: null` until `verdict` fills it; written after sealed/key.json. */
export function buildProvenance(f: RunFacts) {
  const me = userInfo();
  return {
    schema: 1,
    kind: "idd-promotion-provenance",
    tool: "agent_eval",
    sha: f.head,
    clean_tree: true,
    harness: f.harness,
    task: {
      id: f.task.id,
      skill: f.task.skill,
      task_sha256: f.locked.task_sha256,
      rubric_sha256: f.locked.rubric_sha256,
      lock_path: relative(f.repo, f.lock) || f.lock,
      lock_sha256: sha256FileSync(f.lock),
    },
    arms: f.arms,
    agent: {
      declared: {
        model: f.config.model,
        cli: f.config.cli,
        cli_version: f.config.cli_version,
        tools: f.config.tools,
      },
      command: f.config.command,
      pass_env: f.config.pass_env,
    },
    posture: {
      github: "gh_shim cassette replay; GH tokens stripped",
      network: f.sandboxed
        ? "unrestricted (model API); agent sandboxed: run root, read-only system and its own CLI only"
        : "unrestricted (model API); not sandboxed (--no-sandbox)",
    },
    isolation: f.isolation,
    runs: {
      per_arm: f.perArm,
      timeout_s: f.timeoutS,
      min_runs: f.task.min_runs,
      seed_supplied: f.seedSupplied,
      seed_sha256: sha256Hex(`${f.nonce}:${f.seed}`),
    },
    leakcheck: { pre: { held_out: "pass", staging: "pass" }, post_leaks: f.leaks },
    key_sha256: sha256FileSync(join(f.runDir, "sealed", "key.json")),
    executor: { user: me.username, uid: me.uid, host: hostname() },
    written_at: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    artifacts: f.artifacts,
    verdict: null,
  };
}

/** {path, sha256, bytes} for the sealed files, each run's transcripts and call log, and all of blind/. */
export function collectArtifacts(runDir: string, bids: readonly string[]): Artifact[] {
  const paths = ["sealed/key.json", "sealed/order.json"];
  for (const bid of bids)
    for (const f of ["transcript.txt", "transcript.stderr.txt", "gh-calls.jsonl"])
      paths.push(`raw/${bid}/${f}`);
  for (const e of walkRunRoot(join(runDir, "blind"))) if (e.type === "file") paths.push(`blind/${e.path}`);
  return paths
    .filter((p) => existsSync(join(runDir, p)))
    .sort(codepointCompare)
    .map((path) => ({ path, ...hashConfined(runDir, path) }));
}

/** What the agent sandbox binds and hides, probed once before any run; refuses a sandbox that leaks. */
export async function isolationEvidence(
  sandbox: Sandbox | null,
  installDirs: readonly string[],
  hidden: readonly string[],
): Promise<IsolationEvidence> {
  const me = process.getuid?.() ?? null;
  if (!sandbox)
    return {
      mechanism: "none",
      uid: me,
      network: "host",
      binds: { rw: ["(everything: --no-sandbox)"], ro: [], system: [] },
      probe: null,
    };
  const root = freshRoot();
  try {
    prepareWorkDir(sandbox, root);
    const home = process.env.HOME ?? "/root";
    const probe = await probeIsolation(
      sandbox,
      { workDir: root, cwd: root, roBinds: installDirs.map((d) => ({ host: d, inside: d })) },
      [...new Set([...hidden, home])],
    );
    if (!probe.ok)
      throw new UpstreamError(
        `the agent sandbox does not hide ${
          Object.entries(probe.paths)
            .filter(([, v]) => v !== "absent")
            .map(([p]) => p)
            .join(", ") || "what it should"
        } — refusing to run`,
      );
    return {
      mechanism: "bwrap",
      uid: sandbox.subjectUid ?? me,
      network: "host network namespace (the model's API stays reachable, 127.0.0.1 included)",
      binds: {
        rw: ["<run root>"],
        ro: [...installDirs, "<gh shim>"],
        system: ["/usr", "/bin", "/lib*", "/etc (short list)"],
      },
      probe,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
