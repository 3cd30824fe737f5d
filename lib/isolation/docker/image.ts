// Offline images for the Docker runner. No registry is reachable, so the base is a debootstrap of
// Debian bookworm (minbase + a few packages, from the Debian mirror the host's own apt uses, or
// --mirror) with the host's node copied in,
// imported with `docker import`; each harness image adds its pinned CLI from evals/clis/node_modules
// listed in evals/images/<harness>/image.json, with `docker build` of evals/images/Dockerfile (FROM the
// local base, COPY only: no RUN, no pull).
// Every image carries `proctor.content=<hash of its inputs>` and is reused while that hash holds.
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";
import { ConfigError, ToolError } from "../../core/errors.ts";
import { which, withFileLock } from "../../core/fsx.ts";
import { sha256File, sha256Hex } from "../../core/hash.ts";
import { run } from "../../core/proc.ts";
import { type DockerCall, tail } from "./engine.ts";

/** Debian packages in the base beyond minbase: bash for scripts, socat for the model forwarder, git for repos. */
export const BASE_PACKAGES = ["bash", "ca-certificates", "socat", "git", "libstdc++6"];
/** Bump when the base recipe below changes in a way the inputs do not show. */
const BASE_RECIPE = 2;

/**
 * The Debian mirror the host's apt is set to (/etc/apt/sources.list, sources.list.d's one-line `.list`
 * and deb822 `.sources` files): the first `deb` source of a non-security suite. A user behind a
 * company mirror needs exactly that; null when there is none (pass --mirror).
 */
export function aptMirror(aptDir = "/etc/apt"): string | null {
  const files: string[] = [join(aptDir, "sources.list")];
  try {
    for (const f of readdirSync(join(aptDir, "sources.list.d")).sort())
      if (f.endsWith(".list") || f.endsWith(".sources")) files.push(join(aptDir, "sources.list.d", f));
  } catch {
    // no sources.list.d
  }
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const found = file.endsWith(".sources") ? fromDeb822(text) : fromOneLine(text);
    if (found) return found;
  }
  return null;
}

const usable = (uri: string, suites: string[]) =>
  /^https?:\/\//.test(uri) && suites.some((s) => !s.endsWith("-security") && !s.includes("/"));

function fromOneLine(text: string): string | null {
  for (const raw of text.split("\n")) {
    const line = raw
      .replace(/#.*$/, "")
      .replace(/\[[^\]]*\]/, "")
      .trim()
      .split(/\s+/);
    if (line[0] === "deb" && line[1] && usable(line[1], [line[2] ?? ""])) return line[1].replace(/\/$/, "");
  }
  return null;
}

function fromDeb822(text: string): string | null {
  for (const stanza of text.split(/\n\s*\n/)) {
    const field = (k: string) =>
      new RegExp(`^${k}:[ \\t]*(.*)$`, "mi").exec(stanza.replace(/^#.*$/gm, ""))?.[1]?.trim().split(/\s+/) ??
      [];
    if (!field("Types").includes("deb") || /^Enabled:\s*no/im.test(stanza)) continue;
    const uri = field("URIs")[0];
    if (uri && usable(uri, field("Suites"))) return uri.replace(/\/$/, "");
  }
  return null;
}

/** The mirror to debootstrap from: `mirror` when given, else the host's apt one; ConfigError when neither. */
export function debianMirror(mirror?: string): string {
  const found = mirror ?? process.env.PROCTOR_DEBIAN_MIRROR ?? aptMirror();
  if (!found)
    throw new ConfigError(
      "Cannot build the base image: no Debian mirror in /etc/apt/sources.list or sources.list.d; pass --mirror URL (or set PROCTOR_DEBIAN_MIRROR)",
    );
  return found;
}

/** evals/images/<harness>/image.json: what the harness layer copies from evals/clis/node_modules. */
export const ImageManifest = z
  .object({
    version: z.literal(1),
    /** The npm package whose version tags the image. */
    package: z.string().min(1),
    /** Package dirs under evals/clis/node_modules to copy, to absolute paths in the image. */
    copy: z.array(z.object({ from: z.string().min(1), to: z.string().startsWith("/") }).strict()).min(1),
    /** Executables linked into /usr/local/bin: name -> absolute target in the image. */
    bin: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), z.string().startsWith("/")),
  })
  .strict();
export type ImageManifest = z.infer<typeof ImageManifest>;

/** The harnesses with an image recipe. */
export const HARNESSES = ["claude", "codex", "gemini"] as const;
export type Harness = (typeof HARNESSES)[number];

function sha(parts: unknown): string {
  return sha256Hex(JSON.stringify(parts)).slice(0, 16);
}

/** The content label of an image, or null when the image does not exist. */
async function contentOf(call: DockerCall, tag: string): Promise<string | null> {
  const r = await call(["image", "inspect", "--format", '{{index .Config.Labels "proctor.content"}}', tag]);
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

/** One built (or reused) image. */
export interface BuiltImage {
  tag: string;
  content: string;
  reused: boolean;
  ms: number;
}

/** Builds the base image (or reuses it): debootstrap, trim, user 1000 "agent", node, docker import. */
export async function buildBase(
  call: DockerCall,
  o: { node?: string; mirror?: string; log?: (m: string) => void } = {},
): Promise<BuiltImage> {
  const started = performance.now();
  const node = o.node ?? which("node", process.env.PATH);
  if (!node)
    throw new ToolError("Cannot build the base image: no node on PATH (the Gemini CLI needs node >= 20)", 1);
  const content = sha({
    BASE_RECIPE,
    suite: "bookworm",
    // Not the mirror: any Debian mirror serves the same packages, so the image is the same one.
    BASE_PACKAGES,
    node: await sha256File(node),
  });
  const tag = `proctor-base:${content}`;
  if ((await contentOf(call, tag)) === content)
    return { tag, content, reused: true, ms: performance.now() - started };
  // Two builders at once (CI's build step and a test) would debootstrap into the same directory.
  return withFileLock(join(tmpdir(), `proctor-base-${content}.lock`), async () => {
    if ((await contentOf(call, tag)) === content)
      return { tag, content, reused: true, ms: performance.now() - started };
    await debootstrapImport({ node, content, tag, mirror: debianMirror(o.mirror), log: o.log });
    return { tag, content, reused: false, ms: performance.now() - started };
  });
}

async function debootstrapImport(o: {
  node: string;
  content: string;
  tag: string;
  mirror: string;
  log?: (m: string) => void;
}): Promise<void> {
  const { node, content, tag } = o;
  if (!which("debootstrap", `${process.env.PATH}:/usr/sbin:/sbin`))
    throw new ToolError(
      "Cannot build the base image: debootstrap is missing (apt-get install -y debootstrap)",
      1,
    );
  const root = join(tmpdir(), `proctor-base-${content}`);
  rmSync(root, { recursive: true, force: true });
  const cache = join(homedir(), ".cache", "proctor", "debootstrap");
  mkdirSync(cache, { recursive: true });
  try {
    o.log?.(`debootstrap bookworm (${BASE_PACKAGES.join(", ")})`);
    const args = ["--variant=minbase", `--include=${BASE_PACKAGES.join(",")}`, `--cache-dir=${cache}`];
    const db = await run(["debootstrap", ...args, "bookworm", root, o.mirror], {
      env: { ...(process.env as Record<string, string>), PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
    });
    if (db.exitCode !== 0)
      throw new ToolError(`Cannot debootstrap bookworm from ${o.mirror}: ${tail(db.stdout + db.stderr)}`, 1);
    // Trim what a container never reads (docs, locales, apt lists), then the run user and /work.
    for (const p of [
      "usr/share/doc",
      "usr/share/man",
      "usr/share/locale",
      "usr/share/info",
      "var/cache/apt",
      "var/lib/apt/lists",
    ])
      rmSync(join(root, p), { recursive: true, force: true });
    appendFileSync(join(root, "etc/passwd"), "agent:x:1000:1000::/home/agent:/bin/bash\n");
    appendFileSync(join(root, "etc/group"), "agent:x:1000:\n");
    for (const d of ["home/agent", "work"]) mkdirSync(join(root, d), { recursive: true });
    cpSync(node, join(root, "usr/local/bin/node"));
    const imp = await run([
      "sh",
      "-c",
      'chown 1000:1000 "$1/home/agent" "$1/work" && tar -C "$1" --numeric-owner -c . | "$2" import -c "ENV LANG=C.UTF-8" -c "LABEL proctor.content=$3" - "$4"',
      "sh",
      root,
      "docker",
      content,
      tag,
    ]);
    if (imp.exitCode !== 0) throw new ToolError(`Cannot import the base image: ${tail(imp.stderr)}`, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Reads and checks evals/images/<harness>/image.json. */
export function loadManifest(path: string): ImageManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`Cannot load image manifest "${path}": ${(error as Error).message}`, {
      exitCode: 1,
    });
  }
  const r = ImageManifest.safeParse(raw);
  if (!r.success)
    throw new ConfigError(`Cannot load image manifest "${path}": ${z.prettifyError(r.error)}`, {
      exitCode: 1,
    });
  return r.data;
}

/** Builds eval-<harness>:<version> on top of `base` (or reuses it when its inputs are unchanged). */
export async function buildHarness(
  call: DockerCall,
  harness: Harness,
  base: BuiltImage,
  o: { imagesDir: string; modulesDir: string },
): Promise<BuiltImage> {
  const started = performance.now();
  const dir = join(o.imagesDir, harness);
  const manifest = loadManifest(join(dir, "image.json"));
  const dockerfile = readFileSync(join(o.imagesDir, "Dockerfile"), "utf8");
  const pkgJson = join(o.modulesDir, manifest.package, "package.json");
  if (!existsSync(pkgJson))
    throw new ToolError(
      `Cannot build eval-${harness}: "${pkgJson}" is missing (npm ci --prefix evals/clis)`,
      1,
    );
  const version = JSON.parse(readFileSync(pkgJson, "utf8")).version as string;
  const lock = JSON.parse(readFileSync(join(o.modulesDir, "..", "package-lock.json"), "utf8")).packages ?? {};
  const pins = manifest.copy.map((c) => lock[`node_modules/${c.from}`]?.integrity ?? null);
  const content = sha({ base: base.content, dockerfile, manifest, version, pins });
  const tag = `eval-${harness}:${version}`;
  if ((await contentOf(call, tag)) === content)
    return { tag, content, reused: true, ms: performance.now() - started };
  const stage = join(tmpdir(), `proctor-image-${harness}-${content}`);
  rmSync(stage, { recursive: true, force: true });
  try {
    for (const c of manifest.copy) await stageTree(join(o.modulesDir, c.from), join(stage, c.to));
    for (const [name, target] of Object.entries(manifest.bin)) {
      mkdirSync(join(stage, "usr/local/bin"), { recursive: true });
      symlinkSync(target, join(stage, "usr/local/bin", name));
    }
    const r = await call(
      [
        "build",
        "-q",
        "--build-arg",
        `BASE=${base.tag}`,
        "--label",
        `proctor.content=${content}`,
        "-t",
        tag,
        "-f",
        join(o.imagesDir, "Dockerfile"),
        stage,
      ],
      { env: { ...(process.env as Record<string, string>), DOCKER_BUILDKIT: "0" } },
    );
    if (r.exitCode !== 0) throw new ToolError(`Cannot build ${tag}: ${tail(r.stderr || r.stdout)}`, 1);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  return { tag, content, reused: false, ms: performance.now() - started };
}

/** Hard-links a tree into the build context (hundreds of MB: no copy when on one filesystem). */
async function stageTree(from: string, to: string): Promise<void> {
  if (!existsSync(from))
    throw new ToolError(`Cannot stage "${from}": missing (npm ci --prefix evals/clis)`, 1);
  mkdirSync(dirname(to), { recursive: true });
  if ((await run(["cp", "-al", from, to])).exitCode === 0) return;
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

/** The image a variant runs in: `eval-<harness>:<version>` ("latest" when the suite gives none). */
export function imageFor(harness: string, version: string | undefined): string {
  return `eval-${harness}:${version || "latest"}`;
}
