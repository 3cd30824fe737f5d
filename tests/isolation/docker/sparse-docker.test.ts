// Issue 23 against the real engine: an agent that leaves a 2 GiB sparse file in /work costs the host's
// temp folder a few blocks (the snapshot keeps its holes: _sparse.ts), and the next phase gets the file
// whole, holes kept where the image's GNU tar unpacks it (attached, detached) and its bytes right where
// the engine's `docker cp` does (a user the runner's tar cannot write as: the engine reads GNU sparse
// members). What /work carries is capped: over the cap the phase is an infrastructure failure with one
// line and nothing is left in the scratch dir; holes do not count.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dockerRunner, type PhaseSpec } from "../../../lib/isolation/docker/index.ts";
import { tempDir } from "../../support/tmp.ts";
import { DOCKER_TEST_MS, IMAGE_BUILD_MS, testImage } from "./_image.ts";

setDefaultTimeout(DOCKER_TEST_MS);

let image = "";
beforeAll(async () => {
  image = await testImage();
}, IMAGE_BUILD_MS);

const MiB = 1024 * 1024;
const SIZE = 2 * 1024 * MiB;
const AT = 4096 * 1000 + 7;
const MAKE = `truncate -s 2G /work/big && printf x | dd of=/work/big bs=1 seek=${AT} conv=notrunc status=none`;
const LOOK = `stat -c '%s %b %B' /work/big && dd if=/work/big bs=1 skip=${AT} count=1 status=none`;

const runId = () => `t${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
const sh = (script: string) => ["bash", "-c", script];
type Spec = Partial<PhaseSpec> & Pick<PhaseSpec, "phase" | "argv">;

/** Runs phases on `repo` (or an empty /work); each phase's exit, infraError and stdout, the snapshot's size after each, the scratch dir's files at the end. */
async function phases(specs: Spec[], opts: { maxWorkBytes?: number; repo?: string } = {}) {
  const r = dockerRunner(opts.maxWorkBytes ? { maxWorkBytes: opts.maxWorkBytes } : {});
  const id = runId();
  const ws = await r.prepare(id, opts.repo);
  const out: { exit: number | null; infra?: string; stdout: string; snapshot: number }[] = [];
  try {
    for (const spec of specs) {
      const p = await r.runPhase(ws, { runId: id, image, timeoutMs: 120_000, network: "none", ...spec });
      out.push({
        exit: p.exitCode,
        ...(p.infraError ? { infra: p.infraError } : {}),
        stdout: p.stdout,
        snapshot: statSync(join(ws.dir, "work.tar")).size,
      });
    }
    return { phases: out, scratch: readdirSync(ws.dir).sort() };
  } finally {
    await r.dispose(ws);
  }
}

/** LOOK's output read: the file's size, whether it takes under 1 MiB of disk, the byte written. */
function looked(stdout: string) {
  const [stat = "", byte = ""] = stdout.split("\n");
  const [size, blocks, unit] = stat.split(" ").map(Number);
  return { size, holes: blocks! * unit! < MiB, byte };
}

describe("a 2 GiB sparse file left in /work", () => {
  const paths: { name: string; agent: Spec; check: Spec; holes: boolean }[] = [
    {
      name: "attached phases (the image's GNU tar unpacks it)",
      agent: { phase: "agent", argv: sh(MAKE) },
      check: { phase: "check", argv: sh(LOOK) },
      holes: true,
    },
    {
      name: "detached phases (several commands: /work rides the first exec)",
      agent: { phase: "agent", argv: sh("true"), commands: [sh("true"), sh(MAKE)] },
      check: { phase: "check", argv: sh("true"), commands: [sh("true"), sh(LOOK)] },
      holes: true,
    },
    {
      name: "copied in by the engine (a user the runner's tar cannot write as)",
      agent: { phase: "agent", argv: sh(MAKE) },
      check: { phase: "check", argv: sh(LOOK), user: "0:0" },
      // The engine reads the GNU sparse member but writes its holes as zeros.
      holes: false,
    },
  ];
  for (const p of paths)
    test(p.name, async () => {
      const r = await phases([p.agent, p.check]);
      const [agent, check] = r.phases;
      expect({
        agent: { exit: agent!.exit, infra: agent!.infra, small: agent!.snapshot < MiB },
        check: { exit: check!.exit, infra: check!.infra, file: looked(check!.stdout) },
        scratch: r.scratch,
      }).toEqual({
        agent: { exit: 0, infra: undefined, small: true },
        check: { exit: 0, infra: undefined, file: { size: SIZE, holes: p.holes, byte: "x" } },
        scratch: ["empty", "work.tar"],
      });
    });
});

describe("the cap on what /work carries", () => {
  const overCap = (cap: number) =>
    `/work is over the cap: a trial carries at most ${cap} bytes between phases, holes not counted (--max-work-bytes raises it)`;

  test("an agent that leaves more than the cap: an infrastructure failure, one line, nothing left behind", async () => {
    const r = await phases(
      [
        { phase: "agent", argv: sh("head -c 2097152 /dev/urandom > /work/noise") },
        { phase: "check", argv: sh("ls /work") },
      ],
      { maxWorkBytes: MiB },
    );
    expect({ agent: r.phases[0]!.infra, check: r.phases[1]!.stdout, scratch: r.scratch }).toEqual({
      agent: `copy out: ${overCap(MiB)}`,
      check: "",
      scratch: ["empty", "work.tar"],
    });
  });

  test("holes do not count: a 2 GiB sparse file passes a 1 MiB cap", async () => {
    const r = await phases([{ phase: "agent", argv: sh(MAKE) }], { maxWorkBytes: MiB });
    expect(r.phases.map((p) => [p.exit, p.infra])).toEqual([[0, undefined]]);
  });

  test("a repository over the cap is refused when the trial starts", async () => {
    using repo = tempDir("sparse-repo");
    mkdirSync(join(repo.path, "src"));
    writeFileSync(join(repo.path, "src", "noise"), randomBytes(2 * MiB));
    let message = "";
    try {
      await phases([], { maxWorkBytes: MiB, repo: repo.path });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toEqual(`Cannot snapshot repo "${repo.path}": ${overCap(MiB)}`);
  });
});
