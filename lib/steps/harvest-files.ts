// Where a harvest reads and writes. Inputs (store, keys, history) are opened as regular files only,
// never waiting on a FIFO: by the paths as given (the CLI), or confined under a root with no link at
// any component (eval-mcp). The cases are published all or nothing: built in a private 0700 sibling
// of --out, then renamed onto --out in one step. --out must be absent or an empty directory, so no
// existing file is ever replaced and no existing directory chmodded; any failure removes the stage
// and leaves --out exactly as it was.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmdirSync,
  unlinkSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import {
  accessProblem,
  type ConfinedDir,
  type ConfinedFile,
  openConfined,
  openDirConfined,
  openRegular,
  readConfined,
  readRegular,
} from "../core/confined.ts";
import { writeInDir } from "../core/confined-write.ts";
import { ToolError, UpstreamError, UsageError } from "../core/errors.ts";

/** How a harvest reaches its files (the CLI: paths as given; eval-mcp: confined under its root). */
export interface HarvestFiles {
  /** Opens an input as a regular file (a FIFO, socket or device is refused without blocking). */
  open(path: string): ConfinedFile;
  /** Reads a small input whole, refusing more than `maxBytes`. */
  read(path: string, maxBytes: number): Buffer;
  /** Opens the directory that holds `out` (made when missing) and names `out` inside it. */
  outParent(out: string): { dir: ConfinedDir; name: string };
}

/** The CLI's files: the user's own paths, links followed, non-regular files refused. */
export const plainFiles: HarvestFiles = {
  open: (p) => openRegular(p, { follow: true }),
  read: (p, maxBytes) => readRegular(p, { follow: true, maxBytes }),
  outParent(out) {
    const abs = resolve(out);
    const parent = dirname(abs);
    mkdirSync(parent, { recursive: true });
    return {
      dir: { fd: openSync(parent, constants.O_RDONLY | constants.O_DIRECTORY), path: parent },
      name: basename(abs),
    };
  },
};

/** Files confined under the root that `locate` maps each path to (eval-mcp's --root or cwd). */
export function confinedFiles(locate: (path: string) => { root: string; rel: string }): HarvestFiles {
  return {
    open(p) {
      const { root, rel } = locate(p);
      return openConfined(root, rel);
    },
    read(p, maxBytes) {
      const { root, rel } = locate(p);
      return readConfined(root, rel, { maxBytes });
    },
    outParent(out) {
      const { root, rel } = locate(out);
      const parts = rel.split("/").filter((x) => x !== "" && x !== ".");
      const name = parts.pop();
      if (name === undefined)
        throw new UsageError(`Cannot write cases to "${out}": out must name a new directory below the root`);
      return { dir: openDirConfined(root, parts.join("/"), { create: true }), name };
    },
  };
}

/** Refuses an --out that exists and is anything but an empty directory (before any work is done). */
export function checkOut(dir: ConfinedDir, name: string, out: string): void {
  const at = `${dir.path}/${name}`;
  let isDir: boolean;
  try {
    isDir = lstatSync(at).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  if (!isDir || readdirSync(at).length > 0)
    throw new UsageError(
      `Cannot write cases to "${out}": it exists and is not an empty directory (harvest writes a new suite directory)`,
    );
}

/** A case file to publish: its file name and its text. */
export interface CaseFile {
  name: string;
  text: string;
}

/**
 * Writes every case into a private stage beside `out`, then renames the stage onto `out` (absent or
 * empty). `next` yields the cases one at a time (only one is held); a throw from it, a write error or
 * an --out that filled up meanwhile removes the stage and leaves `out` as it was.
 */
export function publishCases(files: HarvestFiles, out: string, next: Iterable<CaseFile>): string[] {
  const fail = (error: unknown): never => {
    if (error instanceof ToolError) throw error;
    throw new UpstreamError(`Cannot write cases to "${out}": ${accessProblem(error)}; nothing written`, {
      cause: error,
    });
  };
  let parent: { dir: ConfinedDir; name: string } | undefined;
  try {
    parent = files.outParent(out);
  } catch (error) {
    fail(error);
  }
  const { dir, name } = parent as { dir: ConfinedDir; name: string };
  const stageName = `.${name}.harvest-${randomBytes(6).toString("hex")}`;
  const names: string[] = [];
  let stage: ConfinedDir | undefined;
  let published = false;
  try {
    checkOut(dir, name, out);
    mkdirSync(`${dir.path}/${stageName}`, { mode: 0o700 });
    stage = openDirConfined(dir.path, stageName);
    fchmodSync(stage.fd, 0o700); // cases quote real traffic: the suite directory is private (umask aside)
    for (const c of next) {
      writeInDir(stage, c.name, c.text, { exclusive: true, mode: 0o600 }); // the open stage: no walk per file
      names.push(c.name);
    }
    renameSync(`${dir.path}/${stageName}`, `${dir.path}/${name}`); // fails if --out is not empty now
    published = true;
    const abs = resolve(out);
    return names.map((n) => join(abs, n));
  } catch (error) {
    return fail(error);
  } finally {
    if (!published) {
      // Only what this harvest made: its own files by name, then its (then empty) stage.
      for (const n of names) ignore(() => unlinkSync(`${stage?.path}/${n}`));
      ignore(() => rmdirSync(`${dir.path}/${stageName}`));
    }
    if (stage) closeSync(stage.fd);
    closeSync(dir.fd);
  }
}

function ignore(f: () => void): void {
  try {
    f();
  } catch {
    // the stage may not exist yet
  }
}
