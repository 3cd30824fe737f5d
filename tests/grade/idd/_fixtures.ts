// The IDD fixture bodies (ported from the original hermetic cases), read once by name.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const FIXTURES = join(import.meta.dirname, "..", "..", "fixtures", "idd");

export type FixtureName =
  | "issue-basic.md"
  | "issue-negative-empty.md"
  | "pr-trivial-bug.md"
  | "pr-missing-closes.md"
  | "pr-intentional-refs.md"
  | "pr-all-deferred.md";

/** The text of one fixture file. */
export function fixture(name: FixtureName): string {
  return readFileSync(join(FIXTURES, name), "utf8");
}
