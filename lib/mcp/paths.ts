// Path containment for the MCP tools: a path an agent passes (relative to the server's working
// directory, or absolute) is accepted only when it lies under one of the allowed roots after every
// symlink is resolved, so neither `..` nor a link can reach outside. Nothing here reads a file.
import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";

/** The real path of `p`, or of its nearest existing parent joined with the rest (for files to be made). */
function realish(p: string): string {
  let head = p;
  const tail: string[] = [];
  while (!existsSync(head)) {
    const up = dirname(head);
    if (up === head) break;
    tail.unshift(head.slice(up.length).replace(/^[\\/]/, ""));
    head = up;
  }
  return resolve(realpathSync(head), ...tail);
}

/** True when `child` is `parent` or below it. */
function isUnder(parent: string, child: string): boolean {
  const r = relative(parent, child);
  return r === "" || (!r.startsWith("..") && !isAbsolute(r));
}

/** The absolute real path of `path` when it lies under one of `roots`, else undefined. */
export function containedPath(path: string, roots: readonly string[], cwd: string): string | undefined {
  if (typeof path !== "string" || path === "" || path.includes("\0")) return undefined;
  const real = realish(resolve(cwd, path));
  return roots.some((root) => isUnder(realish(resolve(cwd, root)), real)) ? real : undefined;
}
