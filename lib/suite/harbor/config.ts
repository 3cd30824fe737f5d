// A Harbor task's task.toml (Harbor / Terminal-Bench 2 format), both layouts: `version = "1.0"`
// (free [metadata]) and `schema_version = "1.x"` ([task] name, description, keywords). One zod schema
// for the file; parseHarborConfig() at the boundary normalises it to one shape with Harbor's defaults.
// Every key Harbor's TaskConfig reads is checked: honoured here, or refused in one line naming the
// file and the key (unsupported.ts), never dropped. Keys Harbor does not know are kept and ignored, as
// Harbor ignores them. A refusal is a HarborRefusal: `broken` for a malformed file, not for a feature
// this runner lacks (a dataset goes on without the task either way).
import { readFileSync } from "node:fs";
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { fieldName, shown } from "../yaml.ts";
import { resolveHostEnv } from "./host-env.ts";
import { HarborRefusal } from "./refusal.ts";
import { typoWarnings } from "./typos.ts";
import { refusedKey, resolveNetwork } from "./unsupported.ts";

const seconds = z.number().positive();
const megabytes = z.number().int().positive();
/** Harbor's deprecated size strings ("2G", "512M"), read as megabytes. */
const SIZE = /^(\d+(?:\.\d+)?)\s*([KMGT])i?B?$/i;
const size = z.string().regex(SIZE, { error: 'expected a size like "2G" or "512M"' });
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const env = z
  .record(z.string().regex(ENV_NAME, { error: "expected a variable name" }), z.string())
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Harbor's own template syntax, literally
  .describe("a value that is wholly ${VAR} or ${VAR:-default} takes the host's VAR; any other is literal");
/** A user name, or a numeric UID (Harbor: str | int). */
const user = z.union([z.string().min(1), z.number().int().nonnegative()]);
const networkMode = z.enum(["public", "no-network", "allowlist"]);
/** A phase's network override ([agent], [verifier]) or the environment's baseline. */
const network = {
  network_mode: networkMode.optional(),
  allowed_hosts: z.array(z.string()).optional().describe("refused here: host allowlists are not enforced"),
};
const absolute = z.string().regex(/^\//, { error: "expected an absolute path" });
const artifact = z.union([
  z.string().min(1),
  z.looseObject({
    source: z.string().min(1),
    destination: z.string().optional(),
    exclude: z.array(z.string()).optional(),
    service: z.string().optional(),
  }),
]);
const refused = (what: string) => z.unknown().optional().describe(`refused here: ${what}`);

/** task.toml. Harbor keeps adding keys; those it does not know are kept as written (loose objects). */
export const HarborTaskToml = z.looseObject({
  version: z.literal("1.0").optional().describe('the first layout: version = "1.0"'),
  schema_version: z
    .string()
    .regex(/^1\.\d+$/, { error: 'expected "1.1" or another 1.x' })
    .optional()
    .describe('the later layout: schema_version = "1.1" with a [task] table'),
  task: z
    .looseObject({
      name: z.string().min(1).optional(),
      version: z.string().min(1).optional(),
      description: z.string().optional(),
      authors: z.array(z.looseObject({ name: z.string(), email: z.string().optional() })).optional(),
      keywords: z.array(z.string()).optional(),
    })
    .optional(),
  metadata: z.looseObject({ tags: z.array(z.string()).optional() }).optional(),
  source: z.string().optional(),
  agent: z.looseObject({ timeout_sec: seconds.optional(), user: user.optional(), ...network }).optional(),
  verifier: z
    .looseObject({
      timeout_sec: seconds.optional(),
      env: env.optional(),
      user: user.optional(),
      ...network,
      environment_mode: z.enum(["shared", "separate"]).optional(),
      environment: refused("a separate verifier container"),
      collect: z.array(z.looseObject({ command: z.string() })).optional(),
    })
    .optional(),
  solution: z.looseObject({ env: env.optional() }).optional(),
  environment: z
    .looseObject({
      build_timeout_sec: seconds.optional(),
      docker_image: z.string().min(1).optional(),
      os: z
        .string()
        .regex(/^(linux|windows)$/i, { error: 'expected "linux" or "windows"' })
        .optional(),
      cpus: z.number().positive().optional(),
      memory_mb: megabytes.optional(),
      storage_mb: megabytes.optional(),
      memory: size.optional(),
      storage: size.optional(),
      gpus: z.number().int().nonnegative().optional(),
      gpu_types: z.array(z.string()).optional(),
      tpu: refused("TPUs"),
      allow_internet: z.boolean().optional(),
      ...network,
      mcp_servers: z.array(z.looseObject({ name: z.string() })).optional(),
      env: env.optional(),
      skills_dir: z.string().optional(),
      healthcheck: z.looseObject({ command: z.string() }).optional(),
      workdir: absolute.optional(),
    })
    .optional(),
  steps: z.array(z.looseObject({ name: z.string() })).optional(),
  multi_step_reward_strategy: z.enum(["mean", "final"]).optional(),
  artifacts: z.array(artifact).optional(),
});
export type HarborTaskToml = z.infer<typeof HarborTaskToml>;

/** The JSON Schema committed as schemas/harbor-task.schema.json (what Proctor reads of task.toml). */
export function harborTaskJsonSchema(): unknown {
  return z.toJSONSchema(HarborTaskToml);
}

/** A file the trial copies out of the container afterwards (Harbor's artifacts). */
export interface HarborArtifact {
  source: string;
  destination?: string;
  exclude: string[];
}

/** A loaded task.toml with Harbor's defaults applied. */
export interface HarborConfig {
  /** The layout as written: "1.0", or the schema_version ("1.1", ...). */
  layout: string;
  /** Keys ignored as Harbor ignores them, but a letter or two from one it reads (typos.ts). */
  warnings?: string[];
  name?: string;
  description?: string;
  /** metadata.tags then task.keywords, each once, in that order. */
  tags: string[];
  metadata: Record<string, unknown>;
  source?: string;
  authors: { name: string; email?: string }[];
  agentTimeoutMs: number;
  agentUser?: string;
  verifierTimeoutMs: number;
  /** [verifier.env], ${VAR} templates resolved from the host (serialises as written). */
  verifierEnv: Record<string, string>;
  verifierUser?: string;
  /** [solution.env], resolved likewise: the oracle's. */
  solutionEnv: Record<string, string>;
  /** [environment.env], resolved likewise: every process in the task's container gets it, by name. */
  environmentEnv: Record<string, string>;
  /** [environment] workdir: where the agent and verifier run, over the image's WORKDIR. */
  workdir?: string;
  buildTimeoutMs: number;
  cpus: number;
  memoryMb: number;
  storageMb: number;
  /** True when the task's network policy is public (allow_internet = true, network_mode = "public"). */
  allowInternet: boolean;
  /** The key that asked for the internet, for the line that refuses it without --network bridge. */
  internetKey?: string;
  dockerImage?: string;
  /** Files to copy out of the container after the verifier (main container only). */
  artifacts: HarborArtifact[];
}

/** Harbor's defaults (its TaskConfig): 600 s for agent, verifier and build; 1 CPU, 2 GB, 10 GB. */
export const HARBOR_DEFAULTS = { timeoutSec: 600, cpus: 1, memoryMb: 2048, storageMb: 10240 } as const;

const UNIT_MB: Record<string, number> = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 };

function megabytesOf(text: string): number {
  const m = SIZE.exec(text)!;
  return Math.max(1, Math.round(Number(m[1]) * UNIT_MB[m[2]!.toUpperCase()]!));
}

const KINDS: Record<string, string> = { object: "a table", int: "an integer", array: "an array" };

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let cur = data;
  for (const p of path) cur = cur !== null && typeof cur === "object" ? (cur as never)[p] : undefined;
  return cur;
}

/** The first schema issue as `field: expected ..., got ...`. */
function issueLine(error: z.ZodError, data: unknown): string {
  const issue = error.issues[0]!;
  const field = fieldName(issue.path);
  // A record's bad key: the key is what was wrong, not its value.
  const badKey = issue.code === "invalid_key";
  const got = badKey ? issue.path.at(-1) : valueAt(data, issue.path);
  const expected = badKey
    ? "expected a variable name"
    : issue.code === "invalid_type"
      ? `expected ${KINDS[issue.expected] ?? `a ${issue.expected}`}`
      : issue.code === "too_small"
        ? `expected ${issue.inclusive ? ">=" : ">"} ${issue.minimum}`
        : issue.code === "invalid_union"
          ? "expected a string or a table"
          : issue.message.replace(/^Invalid (input|option): /, "");
  return `${field}: ${expected}, got ${shown(got)}`;
}

/**
 * Parses task.toml's text; `path` only names the file in errors, `host` resolves the env templates.
 * HarborRefusal (one line naming the file and the key): broken for a malformed file, not broken for
 * a key this runner cannot honour or a host variable that is not set.
 */
export function parseHarborConfig(
  text: string,
  path: string,
  host: Readonly<Record<string, string | undefined>> = process.env,
): HarborConfig {
  const broken = (why: string) => new HarborRefusal(path, why, { broken: true });
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (error) {
    const why = error instanceof TomlError ? `${error.line}:${error.column}: invalid TOML` : "invalid TOML";
    const first = ((error as Error).message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "");
    throw broken(`${why}: ${first}`);
  }
  const r = HarborTaskToml.safeParse(data);
  if (!r.success) throw broken(issueLine(r.error, data));
  const f = r.data;
  if (f.version !== undefined && f.schema_version !== undefined)
    throw broken('version: give either version = "1.0" or schema_version, not both');
  const refusal = refusedKey(f);
  if (refusal !== undefined) throw new HarborRefusal(path, refusal, { broken: false });
  const net = resolveNetwork(f);
  if (!net.ok) throw new HarborRefusal(path, net.why, { broken: false });
  const envs = { verifier: f.verifier?.env, solution: f.solution?.env, environment: f.environment?.env };
  const resolved: Record<string, Record<string, string>> = {};
  for (const [section, written] of Object.entries(envs)) {
    const got = resolveHostEnv(written ?? {}, host);
    if (!got.ok) throw new HarborRefusal(path, `${section}.env.${got.name}: ${got.why}`, { broken: false });
    resolved[section] = got.env;
  }
  const e = f.environment ?? {};
  const ms = (sec: number | undefined) => (sec ?? HARBOR_DEFAULTS.timeoutSec) * 1000;
  const { tags: metaTags, ...metadata } = f.metadata ?? {};
  const userOf = (u: string | number | undefined) => (u === undefined ? {} : { user: String(u) });
  const agentUser = userOf(f.agent?.user).user;
  const verifierUser = userOf(f.verifier?.user).user;
  const warnings = typoWarnings(data, path, HarborTaskToml);
  return {
    layout: f.schema_version ?? f.version ?? "1.0",
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(f.task?.name !== undefined ? { name: f.task.name } : {}),
    ...(f.task?.description !== undefined ? { description: f.task.description } : {}),
    tags: [...new Set([...(metaTags ?? []), ...(f.task?.keywords ?? [])])],
    metadata,
    ...(f.source !== undefined ? { source: f.source } : {}),
    authors: (f.task?.authors ?? []).map((a) => ({ name: a.name, ...(a.email ? { email: a.email } : {}) })),
    agentTimeoutMs: ms(f.agent?.timeout_sec),
    ...(agentUser !== undefined ? { agentUser } : {}),
    verifierTimeoutMs: ms(f.verifier?.timeout_sec),
    verifierEnv: resolved.verifier!,
    ...(verifierUser !== undefined ? { verifierUser } : {}),
    solutionEnv: resolved.solution!,
    environmentEnv: resolved.environment!,
    ...(e.workdir !== undefined ? { workdir: e.workdir } : {}),
    buildTimeoutMs: ms(e.build_timeout_sec),
    cpus: e.cpus ?? HARBOR_DEFAULTS.cpus,
    memoryMb: e.memory_mb ?? (e.memory !== undefined ? megabytesOf(e.memory) : HARBOR_DEFAULTS.memoryMb),
    storageMb: e.storage_mb ?? (e.storage !== undefined ? megabytesOf(e.storage) : HARBOR_DEFAULTS.storageMb),
    allowInternet: net.internetKey !== undefined,
    ...(net.internetKey !== undefined ? { internetKey: net.internetKey } : {}),
    ...(e.docker_image !== undefined ? { dockerImage: e.docker_image } : {}),
    artifacts: (f.artifacts ?? []).map((a) =>
      typeof a === "string"
        ? { source: a, exclude: [] }
        : {
            source: a.source,
            ...(a.destination ? { destination: a.destination } : {}),
            exclude: a.exclude ?? [],
          },
    ),
  };
}

/** Reads and parses `<task dir>/task.toml`; a HarborRefusal naming the file when it is missing or unreadable. */
export function loadHarborConfig(
  path: string,
  host: Readonly<Record<string, string | undefined>> = process.env,
): HarborConfig {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "no such file" : error instanceof TypeError ? "not valid UTF-8" : String(code);
    throw new HarborRefusal(path, why, { broken: true });
  }
  return parseHarborConfig(text, path, host);
}
