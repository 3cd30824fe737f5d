// A Harbor task's task.toml (Harbor / Terminal-Bench 2 format), both layouts: `version = "1.0"`
// (free [metadata]) and `schema_version = "1.x"` ([task] name, description, keywords). One zod schema
// for the file; loadHarborConfig() at the boundary normalises it to one shape with Harbor's defaults.
// Keys we do not read are kept and ignored, as Harbor ignores them (files written for it load
// unchanged); a known key of the wrong type is one ConfigError line naming the file and the field.
import { readFileSync } from "node:fs";
import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { ConfigError } from "../../core/errors.ts";
import { fieldName, shown } from "../yaml.ts";

const seconds = z.number().positive();
const megabytes = z.number().int().positive();
/** Harbor's deprecated size strings ("2G", "512M"), read as megabytes. */
const SIZE = /^(\d+(?:\.\d+)?)\s*([KMGT])i?B?$/i;
const size = z.string().regex(SIZE, { error: 'expected a size like "2G" or "512M"' });
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const env = z.record(z.string().regex(ENV_NAME, { error: "expected a variable name" }), z.string());
const user = z.string().min(1);

/** task.toml. Harbor keeps adding keys; those we do not read are kept as written (loose objects). */
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
      description: z.string().optional(),
      keywords: z.array(z.string()).optional(),
    })
    .optional(),
  metadata: z.looseObject({ tags: z.array(z.string()).optional() }).optional(),
  agent: z.looseObject({ timeout_sec: seconds.optional(), user: user.optional() }).optional(),
  verifier: z
    .looseObject({ timeout_sec: seconds.optional(), env: env.optional(), user: user.optional() })
    .optional(),
  solution: z.looseObject({ env: env.optional() }).optional(),
  environment: z
    .looseObject({
      build_timeout_sec: seconds.optional(),
      docker_image: z.string().min(1).optional(),
      os: z.literal("linux").optional(),
      cpus: z.number().positive().optional(),
      memory_mb: megabytes.optional(),
      storage_mb: megabytes.optional(),
      memory: size.optional(),
      storage: size.optional(),
      gpus: z.number().int().max(0, { error: "GPUs are not supported here: expected 0" }).optional(),
      allow_internet: z.boolean().optional(),
    })
    .optional(),
});
export type HarborTaskToml = z.infer<typeof HarborTaskToml>;

/** The JSON Schema committed as schemas/harbor-task.schema.json (what Proctor reads of task.toml). */
export function harborTaskJsonSchema(): unknown {
  return z.toJSONSchema(HarborTaskToml);
}

/** A loaded task.toml with Harbor's defaults applied. */
export interface HarborConfig {
  /** The layout as written: "1.0", or the schema_version ("1.1", ...). */
  layout: string;
  name?: string;
  description?: string;
  tags: string[];
  metadata: Record<string, unknown>;
  agentTimeoutMs: number;
  agentUser?: string;
  verifierTimeoutMs: number;
  verifierEnv: Record<string, string>;
  verifierUser?: string;
  solutionEnv: Record<string, string>;
  buildTimeoutMs: number;
  cpus: number;
  memoryMb: number;
  storageMb: number;
  /** True only when the task says allow_internet = true (absent: it runs offline, as every task here). */
  allowInternet: boolean;
  dockerImage?: string;
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

/** Parses task.toml's text; `path` only names the file in errors. */
export function parseHarborConfig(text: string, path: string): HarborConfig {
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (error) {
    const why = error instanceof TomlError ? `${error.line}:${error.column}: invalid TOML` : "invalid TOML";
    const first = ((error as Error).message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "");
    throw new ConfigError(`Cannot load Harbor task "${path}": ${why}: ${first}`);
  }
  const r = HarborTaskToml.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0]!;
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
          : issue.message.replace(/^Invalid input: /, "");
    throw new ConfigError(`Cannot load Harbor task "${path}": ${field}: ${expected}, got ${shown(got)}`);
  }
  const f = r.data;
  if (f.version !== undefined && f.schema_version !== undefined)
    throw new ConfigError(
      `Cannot load Harbor task "${path}": version: give either version = "1.0" or schema_version, not both`,
    );
  const e = f.environment ?? {};
  const ms = (sec: number | undefined) => (sec ?? HARBOR_DEFAULTS.timeoutSec) * 1000;
  const { tags: metaTags, ...metadata } = f.metadata ?? {};
  return {
    layout: f.schema_version ?? f.version ?? "1.0",
    ...(f.task?.name !== undefined ? { name: f.task.name } : {}),
    ...(f.task?.description !== undefined ? { description: f.task.description } : {}),
    tags: [...(metaTags ?? []), ...(f.task?.keywords ?? [])],
    metadata,
    agentTimeoutMs: ms(f.agent?.timeout_sec),
    ...(f.agent?.user !== undefined ? { agentUser: f.agent.user } : {}),
    verifierTimeoutMs: ms(f.verifier?.timeout_sec),
    verifierEnv: f.verifier?.env ?? {},
    ...(f.verifier?.user !== undefined ? { verifierUser: f.verifier.user } : {}),
    solutionEnv: f.solution?.env ?? {},
    buildTimeoutMs: ms(e.build_timeout_sec),
    cpus: e.cpus ?? HARBOR_DEFAULTS.cpus,
    memoryMb: e.memory_mb ?? (e.memory !== undefined ? megabytesOf(e.memory) : HARBOR_DEFAULTS.memoryMb),
    storageMb: e.storage_mb ?? (e.storage !== undefined ? megabytesOf(e.storage) : HARBOR_DEFAULTS.storageMb),
    allowInternet: e.allow_internet === true,
    ...(e.docker_image !== undefined ? { dockerImage: e.docker_image } : {}),
  };
}

/** Reads and parses `<task dir>/task.toml`; ConfigError naming the file when it is missing or unreadable. */
export function loadHarborConfig(path: string): HarborConfig {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : error instanceof TypeError ? "not valid UTF-8" : code;
    throw new ConfigError(`Cannot load Harbor task "${path}": ${why}`);
  }
  return parseHarborConfig(text, path);
}
