// run-eval's cost per case against bare bubblewrap (issue 29): 20 trivial cases (a subject that does
// nothing) at -j 1 through the release binary, against a loop that runs the same subjects in bare
// bwrap sandboxes with the same namespaces (--unshare-all, a user namespace, --disable-userns, the
// same minimal view over the same work directories, setpriv first when root: what run-eval's sandbox
// is without its additions). Between the two, where the rest goes:
//   sandbox as built:  the same loop with the sandbox exactly as run-eval wraps a subject
//                      (lib/isolation/sandbox: the limits prefix with rlimits, the seccomp program and
//                      a cgroup per subject, then the isolation probe before the subject), and the
//                      same without the cgroup and without the probe, to price each
//   runner:            run-eval minus that: Bun's start, finding the sandbox once, and per case the
//                      work directory (case copy, cassettes, gh, chown), the probe's loopback listener,
//                      reading OUT back, grading, the output, removing the work directory
// Each side runs whole as a child under GNU time (its CPU includes every process it waits for);
// interleaved rounds, medians. Targets: run-eval <= 1.5x the floor's wall, <= 2x its CPU.
// Runs alone: `npx bun tests/bench/hermetic.ts` (BENCH_HERMETIC_ROUNDS, default 5).
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { layOut, subjectEnv } from "../../lib/hermetic/layout.ts";
import {
  detectSandbox,
  openProbe,
  prepareWorkDir,
  type Sandbox,
  SUBJECT_ID,
} from "../../lib/isolation/sandbox/index.ts";
import { systemViewArgs } from "../../lib/isolation/sandbox/view.ts";
import { quantile } from "../../lib/stats/quantile.ts";
import { writeTrivialCases } from "../hermetic/support.ts";
import { binDir } from "../support/binary.ts";
import { tempDir } from "../support/tmp.ts";
import { runChild } from "./_child.ts";
import type { BenchRow } from "./run.ts";

const ROUNDS = Number(process.env.BENCH_HERMETIC_ROUNDS ?? 5);
const CASES = 20;

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** One line of a loop script: `argv` with exactly `env`. */
function line(argv: string[], env: Record<string, string>): string {
  const vars = Object.entries(env).map(([k, v]) => quote(`${k}=${v}`));
  return `env -i ${vars.join(" ")} ${argv.map(quote).join(" ")}`;
}

/** The bare sandbox: the same namespaces and view as run-eval's bwrap, nothing else. */
function bareArgv(work: string, cwd: string, command: string[]): string[] {
  const drop =
    process.getuid?.() === 0
      ? [
          "setpriv",
          `--reuid=${SUBJECT_ID}`,
          `--regid=${SUBJECT_ID}`,
          "--clear-groups",
          "--inh-caps=-all",
          "--bounding-set=-all",
          "--no-new-privs",
          "--",
        ]
      : [];
  const tmpfs = ["/dev/shm", "/tmp", "/run", "/var/tmp"].flatMap((d) => ["--tmpfs", d]);
  return [
    ...drop,
    "bwrap",
    "--unshare-all",
    "--unshare-user",
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    ...systemViewArgs(),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...tmpfs,
    "--remount-ro",
    "/dev",
    "--bind",
    work,
    work,
    "--chdir",
    cwd,
    "--",
    ...command,
  ];
}

/**
 * Loop scripts over the cases' own work directories: bare bwrap; the sandbox as run-eval builds it;
 * the same without the cgroup (`plain`: a sandbox found with no cgroup to make); without the probe.
 */
async function loops(
  dir: string,
  cases: string[],
  sandbox: Sandbox,
  plain: Sandbox,
): Promise<Record<"bare" | "built" | "noCgroup" | "noProbe", string>> {
  mkdirSync(dir, { mode: 0o755 });
  const bare = ["set -e"];
  const built = ["set -e"];
  const noCgroup = ["set -e"];
  const noProbe = ["set -e"];
  for (const [i, c] of cases.entries()) {
    const holder = join(dir, `w${i}`);
    mkdirSync(holder);
    chmodSync(holder, 0o755);
    const root = join(holder, "work");
    const w = layOut(root, c);
    prepareWorkDir(sandbox, root);
    const env = subjectEnv(w);
    const subject = ["bash", join(w.case, "subject.sh")];
    bare.push(line(bareArgv(root, w.repo, subject), env));
    const spec = { workDir: root, cwd: w.repo, env };
    const probe = await openProbe(sandbox, spec);
    // The wrap's own environment (the subject's, and the limits prefix's) as run-eval passes it.
    const wrapped = (s: Sandbox, command: string[]) => {
      const w = s.wrap({ ...spec, command });
      return `${line(w.argv, w.env as Record<string, string>)} > /dev/null`;
    };
    built.push(wrapped(sandbox, probe.command(subject)));
    noCgroup.push(wrapped(plain, probe.command(subject)));
    noProbe.push(wrapped(sandbox, subject));
    probe.close();
  }
  const write = (name: string, lines: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o755 });
    return path;
  };
  return {
    bare: write("bare.sh", bare),
    built: write("built.sh", built),
    noCgroup: write("no-cgroup.sh", noCgroup),
    noProbe: write("no-probe.sh", noProbe),
  };
}

interface Cost {
  wallMs: number;
  cpuMs: number;
}

function cost(argv: string[]): Cost {
  const r = runChild(argv, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CI: "true" } });
  if (r.status !== 0) throw new Error(`${argv.join(" ")}: exited ${r.status}: ${r.stderr.slice(-500)}`);
  return { wallMs: r.wallMs, cpuMs: r.cpuMs };
}

/** run-eval over 20 trivial cases at -j 1 against bare bwrap, and what lies between. */
export async function bench(): Promise<BenchRow[]> {
  const bin = await binDir();
  const d = await detectSandbox();
  if (!d.ok || d.sandbox.mechanism !== "bwrap")
    throw new Error(`hermetic bench: needs bwrap: ${d.ok ? d.sandbox.mechanism : d.reason}`);
  using dir = tempDir("bench-hermetic");
  chmodSync(dir.path, 0o755);
  const cases = writeTrivialCases(join(dir.path, "cases"), CASES);
  const plain = await detectSandbox({ cgroupRoot: join(dir.path, "no-cgroups") });
  if (!plain.ok) throw new Error(`hermetic bench: ${plain.reason}`);
  const scripts = await loops(join(dir.path, "loops"), cases, d.sandbox, plain.sandbox);
  const sides = {
    floor: ["bash", scripts.bare],
    built: ["bash", scripts.built],
    noCgroup: ["bash", scripts.noCgroup],
    noProbe: ["bash", scripts.noProbe],
    runEval: [join(bin, "run-eval"), "-j", "1", ...cases],
    one: [join(bin, "run-eval"), "-j", "1", cases[0]!],
  };
  const seen = Object.fromEntries(Object.keys(sides).map((k) => [k, [] as Cost[]])) as Record<
    keyof typeof sides,
    Cost[]
  >;
  const names = Object.keys(sides) as (keyof typeof sides)[];
  for (let round = 0; round <= ROUNDS; round++)
    for (let j = 0; j < names.length; j++) {
      const name = names[(round + j) % names.length]!;
      const c = cost(sides[name]);
      if (round > 0) seen[name].push(c); // round 0 warms the page cache and the gh stage
    }
  const med = (k: keyof typeof sides): Cost => ({
    wallMs: quantile(
      seen[k].map((c) => c.wallMs),
      0.5,
    ),
    cpuMs: quantile(
      seen[k].map((c) => c.cpuMs),
      0.5,
    ),
  });
  const [floor, built, runEval, one] = [med("floor"), med("built"), med("runEval"), med("one")];
  const [noCgroup, noProbe] = [med("noCgroup"), med("noProbe")];
  const floorName = `floor: ${CASES} subjects in bare bwrap (same namespaces and view), a bash loop`;
  const per = (x: number) => x / CASES;
  const rows: BenchRow[] = [];
  for (const [what, key, unit] of [
    ["wall", "wallMs", "ms"],
    ["CPU", "cpuMs", "ms CPU"],
  ] as const) {
    const base = `${floorName}, ${what}`;
    rows.push(
      { bench: "hermetic", name: base, value: floor[key], unit, ratio: 1, baseline: "itself" },
      {
        bench: "hermetic",
        name: `run-eval -j 1, ${CASES} trivial cases, ${what}`,
        value: runEval[key],
        unit,
        ratio: runEval[key] / floor[key],
        baseline: base,
        target: what === "wall" ? "<= 1.5x" : "<= 2x",
      },
      {
        bench: "hermetic",
        name: `  of it: the sandbox as run-eval builds it (limits, seccomp, cgroup, probe), ${what}`,
        value: built[key],
        unit,
        ratio: built[key] / floor[key],
        baseline: base,
      },
      {
        bench: "hermetic",
        name: `    in that: a cgroup per subject (made, capped, joined, the last one removed), per case, ${what}`,
        value: per(built[key] - noCgroup[key]),
        unit,
        ratio: (built[key] - noCgroup[key]) / floor[key],
        baseline: base,
      },
      {
        bench: "hermetic",
        name: `    in that: the isolation probe before the subject, per case, ${what}`,
        value: per(built[key] - noProbe[key]),
        unit,
        ratio: (built[key] - noProbe[key]) / floor[key],
        baseline: base,
      },
      {
        bench: "hermetic",
        name: `  of it: the runner (run-eval less that sandbox loop), per case, ${what}`,
        value: per(runEval[key] - built[key]),
        unit,
        ratio: (runEval[key] - built[key]) / floor[key],
        baseline: base,
      },
      {
        bench: "hermetic",
        name: `  of it: run-eval's start and one case (-j 1, 1 case), ${what}`,
        value: one[key],
        unit,
        ratio: one[key] / floor[key],
        baseline: base,
      },
    );
  }
  return rows;
}

if (import.meta.main) console.log(await bench());
