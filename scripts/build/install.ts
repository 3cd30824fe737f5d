// `npm run install-bin` (scripts/install.ts, never shipped): puts the built multi-call binary on the
// user's PATH as one link, `<bin>/proctor`, so every tool is `proctor <tool>` (proctor mock-model,
// proctor run-eval, ...). Only that one name: a `gh` link would stand in front of the user's real gh
// (run-eval stages its own gh inside the sandbox). The folder follows the usual conventions: --prefix
// DIR gives DIR/bin, else $PREFIX/bin, else $XDG_BIN_HOME, else ~/.local/bin. A file of that name that
// is not a link is never replaced; a link is (it is an earlier install), and the line says so.
import { existsSync, lstatSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { UsageError } from "../../lib/core/errors.ts";

type Env = Record<string, string | undefined>;

/** The folder the link goes into: --prefix DIR/bin, $PREFIX/bin, $XDG_BIN_HOME, ~/.local/bin. */
export function binFolder(env: Env, prefix?: string): string {
  if (prefix !== undefined && prefix !== "") return resolve(prefix, "bin");
  if (env.PREFIX) return resolve(env.PREFIX, "bin");
  if (env.XDG_BIN_HOME) return resolve(env.XDG_BIN_HOME);
  if (!env.HOME) throw new UsageError("Cannot find the bin folder: HOME is not set (give --prefix DIR)");
  return join(env.HOME, ".local", "bin");
}

/** What installing or removing did, as the lines it prints (stderr). */
export interface Installed {
  link: string;
  lines: string[];
}

/** Links `<folder>/proctor` to `binary` (absolute); refuses to replace anything but a link. */
export function installLink(binary: string, folder: string, env: Env): Installed {
  const link = join(folder, "proctor");
  const lines: string[] = [];
  mkdirSync(folder, { recursive: true });
  const before = linkTarget(link);
  if (before === null)
    throw new UsageError(`Cannot install "${link}": a file that is not a link is there; move it away first`);
  // A new link beside, renamed over the old one: never a moment without `proctor`.
  const tmp = join(folder, `.proctor.${process.pid}.tmp`);
  rmSync(tmp, { force: true });
  symlinkSync(binary, tmp);
  renameSync(tmp, link);
  lines.push(`linked ${link} -> ${binary}${before && before !== binary ? ` (was -> ${before})` : ""}`);
  lines.push(...pathAdvice(folder, link, env));
  return { link, lines };
}

/** Removes `<folder>/proctor` when it is a link to `binary`; anything else is left and named. */
export function removeLink(binary: string, folder: string): Installed {
  const link = join(folder, "proctor");
  const target = linkTarget(link);
  if (target === undefined) return { link, lines: [`nothing to remove: no ${link}`] };
  if (target !== binary)
    throw new UsageError(
      `Cannot remove "${link}": it is not this checkout's proctor (${target ?? "not a link"})`,
    );
  rmSync(link);
  return { link, lines: [`removed ${link}`] };
}

/** A link's target, undefined when nothing is there, null when something that is not a link is. */
function linkTarget(path: string): string | null | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return null;
  } catch {
    return undefined;
  }
  return resolve(dirname(path), readlinkSync(path));
}

/** What to do when the folder is not on PATH, or another `proctor` comes first on it. */
function pathAdvice(folder: string, link: string, env: Env): string[] {
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  const at = dirs.findIndex((d) => resolve(d) === folder);
  if (at < 0)
    return [`${folder} is not on PATH: add it (e.g. in ~/.profile) with`, `  export PATH="${folder}:$PATH"`];
  const first = dirs.slice(0, at).find((d) => existsSync(join(d, "proctor")));
  return first === undefined
    ? [`proctor is on PATH: try \`proctor --help\``]
    : [
        `another proctor comes first on PATH (${join(first, "proctor")}): put ${folder} before ${first}, or call ${link}`,
      ];
}
