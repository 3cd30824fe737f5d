// What the system tar lists in an archive, as rows of words without the size column (links have
// none): numeric owners and UTC times, so the rows are the same on any machine.
import { run } from "../../lib/core/proc.ts";

/** `tar -tv` of `file` (gzip when `gz`): exit code, stderr and one row of words per entry. */
export async function tarListing(file: string, gz = false) {
  const r = await run(["tar", "--numeric-owner", "--utc", gz ? "-tvzf" : "-tvf", file], {
    env: { PATH: "/usr/bin:/bin", TZ: "UTC" },
  });
  const rows = r.stdout
    .trim()
    .split("\n")
    .map((l) => l.split(/\s+/).filter((_, i) => i !== 2));
  return { exitCode: r.exitCode, stderr: r.stderr, rows };
}
