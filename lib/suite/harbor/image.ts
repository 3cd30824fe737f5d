// A Harbor task's environment image. task.toml's docker_image when that image is on this machine;
// else environment/Dockerfile, built with the engine's own network (`--offline`: `--network none`),
// tagged `proctor-harbor:<content hash>` so it is built once and reused by every trial and run while
// its inputs hold. The hash covers the Dockerfile as built (after --image-map), every file of the
// build context and the base images' ids. Nothing is pulled: what cannot be had here (a FROM image,
// or a docker_image without a Dockerfile, not on this machine; a heredoc without BuildKit) is a
// HarborRefusal before anything is built; a failed build is one line naming the step (build-log.ts).
// The agent layer is agent-image.ts; the docker build itself is builder.ts.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ToolError } from "../../core/errors.ts";
import { sha256FileSync, sha256Hex } from "../../core/hash.ts";
import type { DockerCall } from "../../isolation/docker/engine.ts";
import { buildFailure, failedStep } from "./build-log.ts";
import { type BuildOptions, buildOnce, buildOptionsOf, hasBuildKit } from "./builder.ts";
import { HarborRefusal } from "./refusal.ts";
import type { HarborTask } from "./task.ts";

export { type BuildOptions, buildOnce, setBuildOptions } from "./builder.ts";

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

/**
 * The 1-based line of the first RUN, COPY or ADD with a heredoc (`RUN <<EOF`, `COPY <<-"EOF" /f`),
 * which only BuildKit reads; undefined when there is none. Continuation lines count with their
 * instruction; comments do not.
 */
export function heredocLine(text: string): number | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let instruction = lines[i]!;
    while (/\\\s*$/.test(lines[i]!) && i + 1 < lines.length) instruction += `\n${lines[++i]}`;
    if (
      /^\s*(RUN|COPY|ADD)\s/i.test(instruction) &&
      /<<-?\s*["']?[A-Za-z_][A-Za-z0-9_]*["']?/.test(instruction)
    )
      return start + 1;
  }
  return undefined;
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

/** How a task's environment image is had: an image here, or a Dockerfile to build (its bases here). */
export type ImagePlan =
  | { kind: "image"; tag: string }
  | { kind: "build"; dockerfile: string; text: string; ids: string[] };

/**
 * How `task`'s image is had, before anything is built: docker_image (after --image-map) when that
 * image is here, else the Dockerfile. HarborRefusal (not broken: this machine lacks it) for a lone
 * docker_image or a FROM image not here, or a heredoc without BuildKit.
 */
export async function planTaskImage(
  call: DockerCall,
  task: HarborTask,
  map: ImageMap,
  o: BuildOptions = buildOptionsOf(task),
): Promise<ImagePlan> {
  const h = task.harbor;
  const named = h.config.dockerImage;
  const ref = named === undefined ? undefined : (map.get(named) ?? named);
  if (ref !== undefined && (await imageId(call, ref)) !== null) return { kind: "image", tag: ref };
  if (!h.dockerfile)
    throw new HarborRefusal(
      task.path,
      `environment.docker_image: "${ref}" is not on this machine and there is no environment/Dockerfile to build it; load it (docker pull ${ref}) or map it with --image-map ${named}=LOCAL`,
      { broken: false, verb: "run" },
    );
  const dockerfile = h.dockerfile;
  const { text, bases } = mapDockerfile(readFileSync(dockerfile, "utf8"), map);
  const heredoc = heredocLine(text);
  if (heredoc !== undefined && !(o.buildkit ?? (await hasBuildKit(call))))
    throw new HarborRefusal(
      dockerfile,
      `line ${heredoc}: a heredoc (RUN <<EOF) needs BuildKit, and this Docker client has none (docker buildx version fails); install the buildx plugin or write the step without a heredoc`,
      { broken: false, verb: "build" },
    );
  const ids: string[] = [];
  for (const b of bases) {
    const id = await imageId(call, b.ref);
    if (id === null)
      throw new HarborRefusal(
        dockerfile,
        `FROM image "${b.ref}" (line ${b.line}) is not on this machine; load it (docker pull ${b.ref}) or map it with --image-map ${b.ref}=LOCAL`,
        { broken: false, verb: "build" },
      );
    ids.push(id);
  }
  return { kind: "build", dockerfile, text, ids };
}

/** One environment image. */
export interface TaskImage {
  tag: string;
  reused: boolean;
  ms: number;
}

const building = new Map<string, Promise<TaskImage>>();

/**
 * The task's environment image, built or reused (planTaskImage says which). HarborRefusal for what
 * this machine cannot give; ToolError, one line naming the Dockerfile and the failing step, for a
 * failed build.
 */
export async function taskImage(
  call: DockerCall,
  task: HarborTask,
  map: ImageMap,
  o: BuildOptions = buildOptionsOf(task),
): Promise<TaskImage> {
  const started = performance.now();
  const plan = await planTaskImage(call, task, map, o);
  if (plan.kind === "image") return { tag: plan.tag, reused: true, ms: performance.now() - started };
  const cannot = `Cannot build Harbor task "${plan.dockerfile}"`;
  const context = task.harbor.environmentDir;
  const { text, ids } = plan;
  const content = sha256Hex(JSON.stringify({ RECIPE, text, ids, files: contextListing(context) }));
  const tag = `${TASK_IMAGE_REPO}:${content.slice(0, 16)}`;
  const first = building.get(tag);
  // The first trial of this process builds (or finds) it; every later one reuses that.
  if (first) return { ...(await first), reused: true, ms: performance.now() - started };
  const timeoutMs = task.harbor.config.buildTimeoutMs;
  const p = buildOnce(call, tag, { dockerfile: text, context, timeoutMs, ...o }).then((r) => {
    if (r?.timedOut) {
      const at = failedStep(r.stdout, r.stderr);
      const where = at ? ` in step ${at.step} (${at.instruction})` : "";
      throw new ToolError(
        `${cannot}: timed out after ${timeoutMs / 1000}s${where} (environment.build_timeout_sec)`,
        1,
      );
    }
    if (r !== null && r.exitCode !== 0) throw new ToolError(`${cannot}: ${buildFailure(r)}`, 1);
    return { tag, reused: r === null, ms: performance.now() - started };
  });
  building.set(tag, p);
  p.catch(() => building.delete(tag));
  return p;
}
