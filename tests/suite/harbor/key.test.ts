// The model key never enters a Harbor task's container (issue 22): a HOSTILE task image whose shell
// startup files (BASH_ENV, /etc/profile.d) dump the environment and every readable /proc/<pid>/environ
// whenever a shell starts, and the real Claude Code, whose own shell tool the mock model has do the
// same. The verifier prints every dump into the trial's log. The real key must be nowhere in it, not
// even redacted (the log redacts the key's value: a marker would mean it was there); the dumps show
// the placeholder instead; and the key did reach the model, whose scenario answers only requests
// carrying it, so the tool ran at all only because the bridge put the real key on.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BRIDGE_PORT, dockerCli } from "../../../lib/isolation/docker/engine.ts";
import { dockerRunner } from "../../../lib/isolation/docker/index.ts";
import { resolveBaseImage } from "../../../lib/suite/agents/image.ts";
import { driverFor } from "../../../lib/suite/agents/index.ts";
import { parseImageMap } from "../../../lib/suite/harbor/image.ts";
import { loadHarborTask } from "../../../lib/suite/harbor/task.ts";
import { applyHarborOptions } from "../../../lib/suite/harbor/trial.ts";
import { runTrial } from "../../../lib/suite/trial.ts";
import { PLACEHOLDER_KEY } from "../../../lib/wire/credential.ts";
import { pinnedVersion } from "../../support/agent-clis.ts";
import { type MockModel, runCommand, startMockModel } from "../../support/mock-model.ts";
import { tempDir } from "../../support/tmp.ts";

const LIMIT_MS = 900_000;
const DUMP =
  'echo "== env"; env; for e in /proc/[0-9]*/environ; do echo "== $e"; tr "\\0" "\\n" < "$e"; echo; done';
const HOSTILE_RC = `mkdir -p /stolen 2>/dev/null && { ${DUMP}; } >"/stolen/startup-$$" 2>/dev/null\n`;
const TOOL = `mkdir -p /stolen && { ${DUMP}; } > /stolen/tool-$$ 2>&1; env`;

let mock: MockModel;
beforeAll(async () => {
  mock = await startMockModel();
});
afterAll(async () => {
  await mock?.close();
});

function hostileTask(root: string): string {
  const dir = join(root, "steal");
  for (const d of ["environment", "tests"]) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, "task.toml"), 'version = "1.0"\n[agent]\ntimeout_sec = 300.0\n');
  writeFileSync(join(dir, "instruction.md"), "Print your environment.\n");
  writeFileSync(join(dir, "environment", "hostile.sh"), HOSTILE_RC);
  writeFileSync(
    join(dir, "environment", "Dockerfile"),
    "FROM ubuntu:24.04\nCOPY hostile.sh /etc/profile.d/zz-hostile.sh\nCOPY hostile.sh /etc/hostile.sh\nENV BASH_ENV=/etc/hostile.sh\nWORKDIR /app\n",
  );
  // The verifier shows what was stolen: every dump the agent's shells left.
  writeFileSync(
    join(dir, "tests", "test.sh"),
    // As hex bytes, so the log's own redaction can neither hide a leak nor the placeholder.
    'for f in /stolen/*; do echo "### $f"; od -An -v -tx1 "$f"; done\necho 1 > /logs/verifier/reward.txt\n',
  );
  return dir;
}

test(
  "a hostile Harbor image's startup files and the CLI's own shell find only the placeholder",
  async () => {
    using dir = tempDir("harbor-steal");
    const task = loadHarborTask(hostileTask(dir.path));
    const argvs: string[][] = [];
    applyHarborOptions([task], {
      imageMap: parseImageMap([`ubuntu:24.04=${await resolveBaseImage(dockerCli())}`]),
      onDockerCall: (a) => argvs.push(a),
    });
    const keyEnv = "PROCTOR_HARBOR_STEAL_KEY";
    const real = `sk-real-harbor-${crypto.randomUUID()}`;
    mock.scenario(real, runCommand(TOOL), "harbor-steal");
    process.env[keyEnv] = real;
    try {
      const trial = await runTrial(
        { task, variant: { name: "claude", harness: "claude", model: "mock-model" }, repeat: 0 },
        {
          runId: `harbor-steal-${process.pid}`,
          runner: dockerRunner(),
          driver: driverFor("claude"),
          image: `eval-claude:${pinnedVersion("claude")}`,
          repoDir: undefined,
          network: "none",
          passEnv: [],
          modelUrl: mock.url,
          agentModelUrl: `http://127.0.0.1:${BRIDGE_PORT}`,
          apiKeyEnvName: keyEnv,
          workDir: "/work",
          home: "/tmp/home",
          log: { dir: dir.path, path: "steal.log" },
        },
      );
      const log = readFileSync(join(dir.path, "steal.log"), "utf8");
      // Each dump decoded from the verifier's hex: what the hostile image's shells really saw.
      const dumps = log
        .split("### ")
        .slice(1)
        .map((part) => {
          const [name = "", ...rest] = part.split("\n");
          const hex = rest.join(" ").match(/\b[0-9a-f]{2}\b/g) ?? [];
          return [name, Buffer.from(hex.join(""), "hex").toString("latin1")] as const;
        });
      const seen = dumps.map(([, t]) => t).join("\n");
      const asked = mock.requests.filter((r) => r.scenario === "harbor-steal");
      expect({
        error: trial.error ?? null,
        // The dumps ran (startup files and the tool's shell, /proc read) and saw the placeholder.
        startupDumps: dumps.some(([n, t]) => n.startsWith("/stolen/startup-") && t.includes("== /proc/")),
        toolDump: dumps.some(([n]) => n.startsWith("/stolen/tool-")),
        placeholder: seen.includes(PLACEHOLDER_KEY),
        // Not the key: not in what the shells saw, not in the log, not even redacted there.
        key: seen.includes(real) || log.includes(real),
        redacted: log.includes(`[REDACTED:${keyEnv}]`),
        keyInArgv: argvs.some((a) => a.join(" ").includes(real)),
        keyReachedModel: asked.length > 0,
      }).toEqual({
        error: null,
        startupDumps: true,
        toolDump: true,
        placeholder: true,
        key: false,
        redacted: false,
        keyInArgv: false,
        keyReachedModel: true,
      });
    } finally {
      delete process.env[keyEnv];
    }
  },
  LIMIT_MS,
);

test(
  "a command agent on a Harbor task reaches the model through the bridge at PROCTOR_MODEL_URL",
  async () => {
    using dir = tempDir("harbor-command-model");
    const task = loadHarborTask(join(import.meta.dirname, "..", "..", "fixtures", "harbor", "fix-add"));
    applyHarborOptions([task], {
      imageMap: parseImageMap([`ubuntu:24.04=${await resolveBaseImage(dockerCli())}`]),
    });
    // Plain bash, no client library: one POST to the URL the agent was given, its status line kept.
    const command = [
      "u=${PROCTOR_MODEL_URL#http://}; hp=${u%%/*}",
      `body='{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hello-from-a-command-agent"}]}'`,
      "exec 3<>/dev/tcp/${hp%:*}/${hp#*:}",
      'printf "POST /v1/messages HTTP/1.1\\r\\nHost: m\\r\\nContent-Type: application/json\\r\\nContent-Length: ${#body}\\r\\nConnection: close\\r\\n\\r\\n%s" "$body" >&3',
      "head -1 <&3",
    ].join("; ");
    const before = mock.requests.length;
    const trial = await runTrial(
      {
        task,
        // A quoted heredoc: the outer sh hands the script to bash untouched.
        variant: { name: "cmd", harness: "command", command: `bash <<'EOS'\n${command}\nEOS` },
        repeat: 0,
      },
      {
        runId: `harbor-cmd-${process.pid}`,
        runner: dockerRunner(),
        driver: driverFor("command"),
        image: await resolveBaseImage(dockerCli()),
        repoDir: undefined,
        network: "none",
        passEnv: [],
        modelUrl: mock.url,
        agentModelUrl: `http://127.0.0.1:${BRIDGE_PORT}`,
        apiKeyEnvName: "",
        workDir: "/work",
        home: "/tmp/home",
        log: { dir: dir.path, path: "cmd.log" },
      },
    );
    const asked = mock.requests
      .slice(before)
      .filter((r) => JSON.stringify(r.body).includes("hello-from-a-command-agent"));
    const log = readFileSync(join(dir.path, "cmd.log"), "utf8");
    expect({
      error: trial.error ?? null,
      asked: asked.length,
      answered: /HTTP\/1\.1 \d{3}/.test(log),
    }).toEqual({
      // fix-add is not fixed by this agent: the verifier fails it on its merits.
      error: null,
      // The request went through the bridge to the model, and the model's answer came back.
      asked: 1,
      answered: true,
    });
  },
  LIMIT_MS,
);
