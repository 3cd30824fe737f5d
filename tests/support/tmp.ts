// Temporary directories that clean themselves up: `using dir = tempDir("x")` removes the tree when
// the block ends, pass or fail.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temp directory, removed on dispose. */
export interface TempDir extends Disposable {
  path: string;
}

/** Makes a temp directory under the system temp dir with the given prefix. */
export function tempDir(prefix = "proctor-test"): TempDir {
  const path = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}
