// The pre-run leak checks of `agent-eval run` (reference §5.3 step 7): before any agent starts, each
// arm's skills/ for the canary, the prompt's shingles and the criteria's shingles (held-out), and the
// staged prompt, fixture and cassettes for the canary, criteria shingles and a byte copy of the
// rubric (staging). Any offender is exit 3 with the original's report; no agent is started.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findLeaks, type Offender, type ScanTarget, scanSkills, walkRunRoot, words } from "../leak/index.ts";
import type { loadRubric } from "./formats.ts";
import { type Arm, extractSkills } from "./git.ts";
import { ReportedError } from "./options.ts";
import { ARMS, type ArmName } from "./records.ts";
import { freshRoot } from "./stage.ts";

type Rubric = ReturnType<typeof loadRubric>;

function heldOutReason(o: Offender, prompt: string): string {
  if (o.kind === "held-out") return words(prompt).length < 8 ? "prompt-text" : "prompt-shingle";
  return o.kind;
}

/** The pre-run held-out, criteria-shingle and staging checks; offenders are exit 3 with the report. */
export async function preRunChecks(
  repo: string,
  arms: Record<ArmName, Arm>,
  prompt: string,
  rubric: Rubric,
  fixtureDir: string | null,
  cassettes: string | null,
  rubricSha: string,
): Promise<void> {
  const scratch = freshRoot();
  try {
    const heldOut: Record<string, unknown>[] = [];
    for (const arm of ARMS) {
      const dir = await extractSkills(repo, arms[arm].sha, join(scratch, arm));
      const { offenders } = await scanSkills(arm, dir, rubric, prompt);
      for (const o of offenders)
        heldOut.push({
          arm,
          path: o.path,
          reason: heldOutReason(o, prompt),
          ...(o.criterion ? { criterion: o.criterion } : {}),
        });
    }
    const promptFile = join(scratch, "prompt.txt");
    writeFileSync(promptFile, prompt);
    const targets: ScanTarget[] = [{ path: "prompt", abs: promptFile }];
    if (fixtureDir)
      for (const e of walkRunRoot(fixtureDir)) targets.push({ path: `fixture_repo/${e.path}`, abs: e.abs });
    if (cassettes) targets.push({ path: "cassettes.json", abs: cassettes });
    const staging = await findLeaks(
      { canary: rubric.canary, criteria: rubric.criteria, rubricSha256: rubricSha },
      targets,
    );
    const stagingOut = staging.offenders.map((o) => ({
      path: o.path,
      reason: o.kind,
      ...(o.criterion ? { criterion: o.criterion } : {}),
    }));
    if (heldOut.length || stagingOut.length) {
      const first = [...heldOut, ...stagingOut][0] as { path: string; reason: string; criterion?: string };
      const what = first.criterion ? `${first.reason} ${first.criterion}` : first.reason;
      throw new ReportedError(
        `pre-run leak: ${what} in ${first.path}${first.reason === "criteria-shingle" ? " — rephrase the criterion" : ""} (${heldOut.length + stagingOut.length} offender(s); no agent started)`,
        3,
        { leak: true, stage: "pre", held_out: heldOut, staging: stagingOut },
      );
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
