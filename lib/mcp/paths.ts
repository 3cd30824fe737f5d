// Path containment for the MCP tools. A path an agent passes (relative to the server's working
// directory, or absolute) is mapped lexically onto one of the allowed roots as a root-relative path;
// nothing is resolved or checked on disk here. The caller then opens it with lib/core/confined.ts, which
// walks from the root by descriptors refusing a link at any component: the check and the open are one
// step, so swapping a directory for a link between them cannot reach outside the root.
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** A path placed under a root: the root, the root-relative path (`/`-separated) and the absolute path. */
export interface Located {
  root: string;
  rel: string;
  abs: string;
}

/** The roots as given and as their real paths (a client may name either), without repeats. */
export function rootsOf(roots: readonly string[], cwd: string): string[] {
  const all: string[] = [];
  for (const r of roots) {
    const abs = resolve(cwd, r);
    let real = abs;
    try {
      real = realpathSync(abs);
    } catch {
      // a missing root matches nothing on disk anyway
    }
    for (const x of [abs, real]) if (!all.includes(x)) all.push(x);
  }
  return all;
}

/** `path` placed under the first root that lexically holds it, else undefined (`..` cannot climb out). */
export function locate(path: string, roots: readonly string[], cwd: string): Located | undefined {
  if (typeof path !== "string" || path === "" || path.includes("\0")) return undefined;
  const abs = resolve(cwd, path);
  for (const root of roots) {
    const r = relative(root, abs);
    if (r === ".." || r.startsWith(`..${sep}`) || isAbsolute(r)) continue;
    return { root, rel: r.split(sep).join("/"), abs };
  }
  return undefined;
}
