// The isolation proof: a probe run through the same wrap() as the subject reports which namespaces it
// is in, its uid, the interfaces it sees and whether it can reach a TCP server the runner holds open
// on the host's 127.0.0.1. Inside a new network namespace 127.0.0.1 is the sandbox's own loopback, so
// that connection must fail; the runner first connects itself (the control) so a blocked result means
// the sandbox blocked it, not that the server was down. No packet ever leaves the host's loopback.
// The probe also writes a token into the work dir, which the host must see: the subject's output
// has to reach the runner.
import { randomBytes } from "node:crypto";
import { readFileSync, readlinkSync, rmSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { messageOf } from "../errors.ts";
import { run } from "../proc.ts";
import type { Sandbox, SandboxMechanism, SandboxSpec } from "../sandbox.ts";

/** What isolation was in force for a run; written to OUT/sandbox.json. */
export const IsolationProofSchema = z.object({
  version: z.literal(1),
  mechanism: z.enum(["bwrap", "unshare", "sandbox-exec"]),
  namespaces: z.array(z.string()),
  uid: z.number().int(),
  interfaces: z.array(z.string()),
  egress: z.object({ target: z.string(), blocked: z.boolean(), detail: z.string() }),
  ok: z.boolean(),
  /** Why ok is false (empty when ok). */
  problems: z.array(z.string()).optional(),
});
export type IsolationProof = z.infer<typeof IsolationProofSchema>;

/** Namespaces compared between the runner and the probe. */
export const NAMESPACES = ["user", "net", "pid", "ipc", "mnt"] as const;

// Bash only (plus readlink): every line is "key value". The egress attempt runs in a subshell so a
// failure cannot end the probe; bash's /dev/tcp needs no other tool.
const PROBE = `
for n in ${NAMESPACES.join(" ")}; do printf 'ns %s %s\\n' "$n" "$(readlink "/proc/self/ns/$n" 2>/dev/null)"; done
printf 'uid %s\\n' "$EUID"
if [ -r /proc/net/dev ]; then
  while IFS= read -r line; do
    case "$line" in *:*) name="\${line%%:*}"; printf 'if %s\\n' "\${name//[[:space:]]/}";; esac
  done < /proc/net/dev
fi
printf '%s' "$2" > "$3/.proctor-sandbox-probe" 2>/dev/null && printf 'wrote %s\\n' "$2"
err=$( (exec 3<>"/dev/tcp/127.0.0.1/$1" && echo CONNECTED) 2>&1 )
printf 'egress %s\\n' "$(printf '%s' "$err" | tr '\\n' ' ')"
`;

function hostNamespaces(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of NAMESPACES) {
    try {
      out[n] = readlinkSync(`/proc/self/ns/${n}`);
    } catch {
      // no /proc (macOS)
    }
  }
  return out;
}

function listen(): Promise<{ server: Server; port: number; accepted: () => number }> {
  let count = 0;
  const server = createServer((s) => {
    count++;
    s.destroy();
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      resolvePromise({ server, port, accepted: () => count });
    });
  });
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const s = connect({ host: "127.0.0.1", port }, () => {
      s.destroy();
      resolvePromise(true);
    });
    s.once("error", () => resolvePromise(false));
  });
}

/** Runs the probe inside the sandbox (same workDir, cwd and env as the subject) and judges it. */
export async function proveIsolation(
  sandbox: Sandbox,
  spec: Omit<SandboxSpec, "command">,
): Promise<IsolationProof> {
  const mechanism: SandboxMechanism = sandbox.mechanism;
  const linux = mechanism !== "sandbox-exec";
  const { server, port, accepted } = await listen();
  const target = `127.0.0.1:${port} (host loopback)`;
  try {
    const control = await reachable(port);
    const before = accepted();
    const token = randomBytes(8).toString("hex");
    const mark = join(spec.workDir, ".proctor-sandbox-probe");
    const { argv, env } = sandbox.wrap({
      ...spec,
      command: [
        "/bin/bash",
        "--norc",
        "--noprofile",
        "-c",
        PROBE,
        "probe",
        String(port),
        token,
        spec.workDir,
      ],
    });
    let stdout = "";
    let failure = "";
    try {
      const r = await run(argv, { env, timeoutMs: 20_000 });
      stdout = r.stdout;
      if (r.exitCode !== 0)
        failure = `probe exited ${r.exitCode ?? r.signal}: ${r.stderr.trim().slice(0, 300)}`;
    } catch (error) {
      failure = `probe could not start: ${messageOf(error)}`;
    }
    let shared = false;
    try {
      shared = readFileSync(mark, "utf8") === token;
    } catch {
      // not written, or not where the host sees it
    }
    rmSync(mark, { force: true });
    const lines = stdout.split("\n");
    const field = (key: string) =>
      lines.filter((l) => l.startsWith(`${key} `)).map((l) => l.slice(key.length + 1));
    const host = hostNamespaces();
    const inside: Record<string, string> = {};
    for (const l of field("ns")) {
      const [name, link] = l.split(" ");
      if (name && link) inside[name] = link;
    }
    const namespaces = NAMESPACES.filter((n) => inside[n] && host[n] && inside[n] !== host[n]);
    const uidText = field("uid")[0];
    const uid = uidText !== undefined && /^\d+$/.test(uidText) ? Number(uidText) : -1;
    const interfaces = field("if");
    const egressText = (field("egress")[0] ?? "").trim();
    const connected = egressText.includes("CONNECTED") || accepted() > before;
    const blocked = control && !connected && failure === "";
    const detail = !control
      ? "control failed: the runner itself could not reach the probe server"
      : connected
        ? "the probe reached the host's loopback server"
        : egressText || "no result from the probe";
    const problems: string[] = [];
    if (failure) problems.push(failure);
    if (!shared) problems.push("a file written in the work dir inside did not appear in the host's work dir");
    if (uid <= 0) problems.push(uid === 0 ? "the subject runs as uid 0" : "the probe reported no uid");
    if (!blocked) problems.push(`egress not shown blocked: ${detail}`);
    if (linux) {
      for (const n of NAMESPACES) if (!namespaces.includes(n)) problems.push(`not in a new ${n} namespace`);
      const foreign = interfaces.filter((i) => i !== "lo");
      if (foreign.length > 0) problems.push(`interfaces other than lo: ${foreign.join(", ")}`);
      if (interfaces.length === 0) problems.push("the probe saw no interface list");
    }
    return {
      version: 1,
      mechanism,
      namespaces: [...namespaces],
      uid,
      interfaces,
      egress: { target, blocked, detail },
      ok: problems.length === 0,
      problems,
    };
  } finally {
    server.close();
  }
}
