// A Harbor task's environment image: environment/Dockerfile built with the local engine, offline
// (`--network none`, no pull), tagged `proctor-harbor:<content hash>` so it is built once and reused
// by every trial and run while its inputs hold. The hash covers the Dockerfile as built (after
// --image-map), every file of the build context and the base images' ids. A FROM image that is not
// on this machine is one line naming it before anything is built. The agent layer is agent-image.ts.
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ConfigError, ToolError } from "../../core/errors.ts";
import { withFileLock } from "../../core/fsx.ts";
import { sha256FileSync, sha256Hex } from "../../core/hash.ts";
import type { ProcResult } from "../../core/proc.ts";
import { type DockerCall, tail } from "../../isolation/docker/engine.ts";
import type { HarborTask } from "./task.ts";

/** Bump when the way an image is built changes in a way its inputs do not show. */
const RECIPE = 1;
/** The repository every Harbor environment image is tagged in; the tag is the content hash. */
export const TASK_IMAGE_REPO = "proctor-harbor";

/** base image reference -> local image (`--image-map REF=LOCAL`, repeatable). */
export type ImageMap = ReadonlyMap<string, string>;

/** Parses `--image-map` values; a ToolError (exit 1) names the one that is not REF=LOCAL. */
export function parseImageMap(values: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const v of values) {
    const at = v.indexOf("=");
    const [ref, local] = [v.slice(0, at), v.slice(at + 1)];
    if (at <= 0 || local === "" || /\s/.test(v))
      throw new ToolError(
        `--image-map: expected REF=LOCAL (e.g. ubuntu:24.04=mirror/ubuntu:24.04), got "${v}"`,
        1,
      );
    map.set(ref, local);
  }
  return map;
}

/** One FROM of a Dockerfile: its 1-based line, the image (or earlier stage) and the stage it names. */
export interface FromLine {
  line: number;
  ref: string;
  stage?: string;
}

/** The FROM instructions of a Dockerfile (flags such as --platform skipped, `AS name` kept). */
export function fromLines(text: string): FromLine[] {
  const out: FromLine[] = [];
  text.split("\n").forEach((raw, i) => {
    const words = raw.trim().split(/\s+/);
    if (words[0]?.toUpperCase() !== "FROM") return;
    const rest = words.slice(1).filter((w) => !w.startsWith("--"));
    if (rest[0] === undefined) return;
    const stage = rest[1]?.toUpperCase() === "AS" ? rest[2]?.toLowerCase() : undefined;
    out.push({ line: i + 1, ref: rest[0], ...(stage ? { stage } : {}) });
  });
  return out;
}

/** The Dockerfile with each mapped FROM image replaced, and the base images it then needs. */
export function mapDockerfile(text: string, map: ImageMap): { text: string; bases: FromLine[] } {
  const lines = text.split("\n");
  const stages = new Set<string>();
  const bases: FromLine[] = [];
  for (const f of fromLines(text)) {
    // `FROM ${BASE}` is resolved by the build from its ARG: left to the engine, not checked here.
    if (!stages.has(f.ref.toLowerCase()) && f.ref !== "scratch" && !f.ref.includes("$")) {
      const local = map.get(f.ref);
      if (local !== undefined) lines[f.line - 1] = lines[f.line - 1]!.replace(f.ref, local);
      bases.push({ ...f, ref: local ?? f.ref });
    }
    if (f.stage) stages.add(f.stage);
  }
  return { text: lines.join("\n"), bases };
}

/** The id of a local image, or null when it is not on this machine. */
export async function imageId(call: DockerCall, ref: string): Promise<string | null> {
  const r = await call(["image", "inspect", "--format", "{{.Id}}", ref], { timeoutMs: 60_000 });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/** Every regular file and link under `dir` as `path mode sha256`, sorted: what the build can see. */
export function contextListing(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const e of readdirSync(at, { withFileTypes: true })) {
      const p = join(at, e.name);
      const st = lstatSync(p);
      const rel = relative(dir, p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) out.push(`${rel} ${(st.mode & 0o111) !== 0 ? "x" : "-"} ${sha256FileSync(p)}`);
      else out.push(`${rel} ${st.isSymbolicLink() ? "l" : "?"} ${sha256Hex(String(st.mode))}`);
    }
  };
  walk(dir);
  return out.sort();
}

/** One environment image. */
export interface TaskImage {
  tag: string;
  reused: boolean;
  ms: number;
}

const building = new Map<string, Promise<TaskImage>>();

/**
 * The task's environment image, built or reused. ConfigError (one line) for a FROM image that is not
 * here or a docker_image that is not here; ToolError for a failed build (its last lines).
 */
export async function taskImage(call: DockerCall, task: HarborTask, map: ImageMap): Promise<TaskImage> {
  const started = performance.now();
  const h = task.harbor;
  if (!h.dockerfile) {
    const ref = map.get(h.config.dockerImage!) ?? h.config.dockerImage!;
    if ((await imageId(call, ref)) === null)
      throw new ConfigError(
        `Cannot use image "${ref}" of Harbor task "${task.path}": not on this machine (load it, or map it with --image-map ${h.config.dockerImage}=LOCAL)`,
      );
    return { tag: ref, reused: true, ms: performance.now() - started };
  }
  const written = readFileSync(h.dockerfile, "utf8");
  const { text, bases } = mapDockerfile(written, map);
  const ids: string[] = [];
  for (const b of bases) {
    const id = await imageId(call, b.ref);
    if (id === null)
      throw new ConfigError(
        `Cannot build Harbor task "${h.dockerfile}": FROM image "${b.ref}" (line ${b.line}) is not on this machine; load it or map it with --image-map ${b.ref}=LOCAL`,
      );
    ids.push(id);
  }
  const content = sha256Hex(JSON.stringify({ RECIPE, text, ids, files: contextListing(h.environmentDir) }));
  const tag = `${TASK_IMAGE_REPO}:${content.slice(0, 16)}`;
  const first = building.get(tag);
  // The first trial of this process builds (or finds) it; every later one reuses that.
  if (first) return { ...(await first), reused: true, ms: performance.now() - started };
  const p = build(call, {
    tag,
    text,
    context: h.environmentDir,
    timeoutMs: h.config.buildTimeoutMs,
    started,
  });
  building.set(tag, p);
  p.catch(() => building.delete(tag));
  return p;
}

async function build(
  call: DockerCall,
  o: { tag: string; text: string; context: string; timeoutMs: number; started: number },
): Promise<TaskImage> {
  const done = (reused: boolean) => ({ tag: o.tag, reused, ms: performance.now() - o.started });
  const r = await buildOnce(call, o.tag, { dockerfile: o.text, context: o.context, timeoutMs: o.timeoutMs });
  if (r === null) return done(true);
  if (r.timedOut) throw new ToolError(`Cannot build ${o.tag}: timed out after ${o.timeoutMs / 1000}s`, 1);
  if (r.exitCode !== 0) throw new ToolError(`Cannot build ${o.tag}: ${tail(r.stderr || r.stdout)}`, 1);
  return done(false);
}

/**
 * Builds `tag` offline (`--network none`, labelled proctor.harbor=1) unless the engine has it; null
 * when it does. Two runs at once would build the same image twice, so the second waits on a file
 * lock and reuses it. The Dockerfile (and `files`) go to a fresh directory, the build context
 * unless `context` names another.
 */
export async function buildOnce(
  call: DockerCall,
  tag: string,
  o: { dockerfile: string; files?: Record<string, string>; context?: string; timeoutMs: number },
): Promise<ProcResult | null> {
  if ((await imageId(call, tag)) !== null) return null;
  return withFileLock(join(tmpdir(), `${tag.replace(/[^A-Za-z0-9]/g, "-")}.lock`), async () => {
    if ((await imageId(call, tag)) !== null) return null;
    const scratch = mkdtempSync(join(tmpdir(), "proctor-harbor-build-"));
    try {
      const dockerfile = join(scratch, "Dockerfile");
      writeFileSync(dockerfile, o.dockerfile);
      for (const [name, text] of Object.entries(o.files ?? {})) writeFileSync(join(scratch, name), text);
      return await call(
        [
          "build",
          "-q",
          "--network",
          "none",
          "--label",
          "proctor.harbor=1",
          "-t",
          tag,
          ...(o.context !== undefined ? ["-f", dockerfile, o.context] : [scratch]),
        ],
        { env: { ...(process.env as Record<string, string>), DOCKER_BUILDKIT: "0" }, timeoutMs: o.timeoutMs },
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
}
