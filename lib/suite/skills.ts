// What a variant gives its agent to read: `skills:` (a folder of Agent Skills, each a folder with a
// SKILL.md whose front matter names it and says when to use it) and `instructions:` (the project
// instruction file the harness reads: CLAUDE.md, AGENTS.md, GEMINI.md). Either comes from the working
// tree (`skills: skills`) or from a git revision of the repository holding the suite (`skills: {path:
// skills, ref: main}`), so CI compares a pull request's skills with main's without copying folders.
// Paths are relative to the suite's directory and confined to its repository (to the suite's
// directory outside git); links, submodules and non-text files are refused, sizes capped. The loaded
// content is part of the variant, so the shard and resume digests cover it. Where each harness reads
// them is the drivers' (lib/suite/agents/): only the agent phase ever gets them.
import { lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { z } from "zod";
import { ConfigError } from "../core/errors.ts";
import { sha256Hex } from "../core/hash.ts";
import { runSync } from "../core/proc.ts";

/** `skills:` / `instructions:` as written: a path, or a path at a git revision. */
export const GuidanceSource = z.union(
  [
    z.string().min(1),
    z
      .object({
        path: z.string().min(1).describe("relative to the suite's directory"),
        ref: z
          .string()
          .min(1)
          .optional()
          .describe("a git revision of the suite's repository (absent: the working tree)"),
      })
      .strict(),
  ],
  { error: "expected a path, or {path, ref} for a git revision" },
);
export type GuidanceSource = z.infer<typeof GuidanceSource>;

/** One file of a skill: its path inside the skill's folder, its text, whether it is executable. */
export interface SkillFile {
  path: string;
  text: string;
  executable: boolean;
}

/** One Agent Skill: its folder name, the front matter's name and description, its files. */
export interface Skill {
  name: string;
  description: string;
  files: SkillFile[];
}

/** What a variant's agent is given to read, loaded; `digest` covers every byte. */
export interface Guidance {
  skills?: Skill[];
  instructions?: string;
  digest: string;
}

/** Caps: skills are instructions and small scripts, not data sets. */
export const GUIDANCE_LIMITS = { files: 500, fileBytes: 1024 * 1024, totalBytes: 8 * 1024 * 1024 } as const;

const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A file as read: path relative to the source root (posix), bytes, exec bit. */
interface RawFile {
  path: string;
  bytes: Buffer;
  executable: boolean;
}

/** Where a source is: its root on disk (working tree) or in git (top-level dir, revision, repo path). */
type Where =
  | { kind: "tree"; root: string; at: string }
  | { kind: "git"; top: string; ref: string; at: string };

function gitTop(dir: string): string | null {
  const r = runSync(["git", "-C", dir, "rev-parse", "--show-toplevel"]);
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

function locate(suiteDir: string, source: GuidanceSource, what: string): Where {
  const path = typeof source === "string" ? source : source.path;
  const ref = typeof source === "string" ? undefined : source.ref;
  if (isAbsolute(path) || path.startsWith("~"))
    throw new ConfigError(`${what}: "${path}": expected a path relative to the suite's directory`);
  const top = gitTop(suiteDir);
  if (ref !== undefined && top === null)
    throw new ConfigError(
      `${what}: ref "${ref}": the suite's directory ${suiteDir} is not in a git repository`,
    );
  const root = realpathSync(top ?? suiteDir);
  const abs = resolve(realpathSync(suiteDir), path);
  const rel = relative(root, abs);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new ConfigError(
      `${what}: "${path}" leaves ${top === null ? "the suite's directory" : "its repository"} ${root}`,
    );
  const at = rel.split(sep).join("/");
  return ref === undefined ? { kind: "tree", root, at } : { kind: "git", top: root, ref, at };
}

/** Every file under `where` (a file source: that one file), checked against the caps and refusals. */
function readSource(where: Where, what: string): { files: RawFile[]; isDir: boolean } {
  const out: RawFile[] = [];
  let total = 0;
  const add = (f: RawFile) => {
    if (out.length >= GUIDANCE_LIMITS.files)
      throw new ConfigError(`${what}: more than ${GUIDANCE_LIMITS.files} files`);
    if (f.bytes.length > GUIDANCE_LIMITS.fileBytes)
      throw new ConfigError(
        `${what}: ${f.path}: ${f.bytes.length} bytes, over the ${GUIDANCE_LIMITS.fileBytes}-byte cap`,
      );
    total += f.bytes.length;
    if (total > GUIDANCE_LIMITS.totalBytes)
      throw new ConfigError(`${what}: over ${GUIDANCE_LIMITS.totalBytes} bytes in all`);
    out.push(f);
  };
  if (where.kind === "git") return readGit(where, what, add, out);
  const start = join(where.root, where.at);
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(start);
  } catch {
    throw new ConfigError(`${what}: ${start}: no such file or directory`);
  }
  const walk = (abs: string, rel: string) => {
    const s = lstatSync(abs);
    if (s.isSymbolicLink())
      throw new ConfigError(`${what}: ${abs}: a link (links are refused: copy the file in)`);
    if (s.isDirectory()) {
      for (const n of readdirSync(abs).sort()) walk(join(abs, n), rel === "" ? n : `${rel}/${n}`);
    } else if (s.isFile()) add({ path: rel, bytes: readFileSync(abs), executable: (s.mode & 0o111) !== 0 });
    else throw new ConfigError(`${what}: ${abs}: not a regular file or directory`);
  };
  walk(start, st.isDirectory() ? "" : posix.basename(where.at));
  return { files: out, isDir: st.isDirectory() };
}

function readGit(
  where: Extract<Where, { kind: "git" }>,
  what: string,
  add: (f: RawFile) => void,
  out: RawFile[],
): { files: RawFile[]; isDir: boolean } {
  const spec = `${where.ref}:${where.at}`;
  const type = runSync(["git", "-C", where.top, "cat-file", "-t", spec]);
  if (type.exitCode !== 0) throw new ConfigError(`${what}: ${spec}: not in the repository at that revision`);
  const isDir = type.stdout.trim() === "tree";
  const listing = runSync([
    "git",
    "-C",
    where.top,
    "ls-tree",
    "-r",
    "-z",
    "--full-tree",
    where.ref,
    "--",
    where.at,
  ]);
  if (listing.exitCode !== 0) throw new ConfigError(`${what}: ${spec}: ${listing.stderr.trim()}`);
  for (const entry of listing.stdout.split("\0").filter(Boolean)) {
    const tab = entry.indexOf("\t");
    const [mode = "", kind = "", oid = ""] = entry.slice(0, tab).split(" ");
    const full = entry.slice(tab + 1);
    const rel = isDir ? full.slice(where.at === "" ? 0 : where.at.length + 1) : posix.basename(full);
    if (mode === "120000") throw new ConfigError(`${what}: ${where.ref}:${full}: a link (links are refused)`);
    if (kind !== "blob")
      throw new ConfigError(`${what}: ${where.ref}:${full}: a ${kind} (submodules are refused)`);
    const blob = runSync(["git", "-C", where.top, "cat-file", "blob", oid]);
    add({ path: rel, bytes: blob.stdoutBytes, executable: mode === "100755" });
  }
  return { files: out, isDir };
}

function text(f: RawFile, what: string): string {
  try {
    const t = new TextDecoder("utf-8", { fatal: true }).decode(f.bytes);
    if (t.includes("\0")) throw new Error("NUL");
    return t;
  } catch {
    throw new ConfigError(
      `${what}: ${f.path}: not UTF-8 text (skills carry instructions and scripts, not binaries)`,
    );
  }
}

/** The front matter's `name` and `description` of a SKILL.md (the Agent Skills standard). */
export function skillFrontMatter(md: string, file: string): { name: string; description: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(md);
  if (!m)
    throw new ConfigError(`${file}: expected front matter (--- name: ... description: ... ---) at the top`);
  const field = (key: string) => {
    const line = new RegExp(`^${key}:[ \\t]*(.*)$`, "m").exec(m[1]!)?.[1]?.trim() ?? "";
    return line.replace(/^(["'])(.*)\1$/, "$2");
  };
  const name = field("name");
  const description = field("description");
  if (!SKILL_NAME.test(name) || name.length > 64)
    throw new ConfigError(
      `${file}: name: expected lowercase letters, digits and hyphens (at most 64), got "${name}"`,
    );
  if (description === "")
    throw new ConfigError(`${file}: description: expected what the skill does and when to use it`);
  return { name, description };
}

/** The skills at `source`: a folder of skill folders, or one skill folder (it holds SKILL.md itself). */
export function loadSkills(suiteDir: string, source: GuidanceSource, what = "skills"): Skill[] {
  const where = locate(suiteDir, source, what);
  const { files, isDir } = readSource(where, what);
  if (!isDir) throw new ConfigError(`${what}: "${where.at}": expected a folder of skills`);
  const groups = new Map<string, RawFile[]>();
  const single = files.some((f) => f.path === "SKILL.md");
  for (const f of files) {
    const [head = "", ...rest] = f.path.split("/");
    const key = single ? "" : head;
    const inner = single ? f.path : rest.join("/");
    if (!single && rest.length === 0) continue; // a README beside the skill folders
    groups.set(key, [...(groups.get(key) ?? []), { ...f, path: inner }]);
  }
  const skills: Skill[] = [];
  for (const [folder, group] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const md = group.find((f) => f.path === "SKILL.md");
    const label = `${what}: ${posix.join(where.at, folder)}`;
    if (!md) throw new ConfigError(`${label}: no SKILL.md`);
    const front = skillFrontMatter(text(md, label), `${label}/SKILL.md`);
    const name = folder === "" ? front.name : folder;
    if (front.name !== name)
      throw new ConfigError(
        `${label}/SKILL.md: name: expected "${name}" (the folder's name), got "${front.name}"`,
      );
    skills.push({
      name,
      description: front.description,
      files: group.map((f) => ({ path: f.path, text: text(f, label), executable: f.executable })),
    });
  }
  if (skills.length === 0)
    throw new ConfigError(`${what}: "${where.at}": no skill (a folder with SKILL.md) in it`);
  return skills;
}

/** The instruction file at `source` (one UTF-8 file). */
export function loadInstructions(suiteDir: string, source: GuidanceSource, what = "instructions"): string {
  const where = locate(suiteDir, source, what);
  const { files, isDir } = readSource(where, what);
  if (isDir || files.length !== 1)
    throw new ConfigError(
      `${what}: "${where.at}": expected one file (CLAUDE.md, AGENTS.md or GEMINI.md text)`,
    );
  return text(files[0]!, what);
}

/** A variant's guidance loaded from its keys (undefined when it has neither). */
export function loadGuidance(
  suiteDir: string,
  v: { skills?: GuidanceSource; instructions?: GuidanceSource },
  label: string,
): Guidance | undefined {
  if (v.skills === undefined && v.instructions === undefined) return undefined;
  const skills = v.skills !== undefined ? loadSkills(suiteDir, v.skills, `${label}: skills`) : undefined;
  const instructions =
    v.instructions !== undefined
      ? loadInstructions(suiteDir, v.instructions, `${label}: instructions`)
      : undefined;
  const digest = `sha256:${sha256Hex(JSON.stringify({ skills, instructions }))}`;
  return { ...(skills ? { skills } : {}), ...(instructions !== undefined ? { instructions } : {}), digest };
}

/** The files a harness reads, under `skillsDir` (one folder per skill) and at `instructionsFile`. */
export function guidanceFiles(
  g: Guidance | undefined,
  at: { skillsDir: string; instructionsFile: string },
): { path: string; content: string; mode: number }[] {
  if (g === undefined) return [];
  const files = (g.skills ?? []).flatMap((s) =>
    s.files.map((f) => ({
      path: posix.join(at.skillsDir, s.name, f.path),
      content: f.text,
      mode: f.executable ? 0o700 : 0o600,
    })),
  );
  if (g.instructions !== undefined)
    files.push({ path: at.instructionsFile, content: g.instructions, mode: 0o600 });
  return files;
}
