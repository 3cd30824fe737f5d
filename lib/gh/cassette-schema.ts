// The strict cassette format as authors should write it: one zod schema, the source of
// schemas/cassette.schema.json and of `gh-shim lint`'s type checks. The replayer is deliberately
// more lenient (lib/gh/cassette.ts mirrors gh_shim.py), so this file stays off the replay hot path.
import { z } from "zod";

/** One recorded gh call. */
export const CassetteEntry = z
  .object({
    argv: z
      .array(z.string())
      .describe("gh arguments after `gh`; --json field lists are compared after sorting field names"),
    match: z
      .enum(["exact", "prefix"])
      .optional()
      .describe('"prefix" matches any call that starts with argv; anything else is an exact match'),
    stdout: z.string().optional().describe("printed on stdout when the call replays (default empty)"),
    stderr: z.string().optional().describe("printed on stderr when the call replays (default empty)"),
    exit: z.number().int().min(0).max(255).optional().describe("exit code of the replayed call (default 0)"),
  })
  .strict();
export type CassetteEntry = z.infer<typeof CassetteEntry>;

/** A cassette file: canned gh argv -> stdout/stderr/exit. */
export const CassetteFile = z
  .object({
    $schema: z.string().optional(),
    version: z.literal(1).nullable().optional().describe("format version: 1 (null or absent also read as 1)"),
    calls: z
      .array(CassetteEntry)
      .optional()
      .describe("recorded calls; exact entries win over prefix entries"),
  })
  .strict()
  .describe("gh record/replay cassette (Proctor gh-shim, compatible with gh_shim.py)");
export type CassetteFile = z.infer<typeof CassetteFile>;

/** The JSON Schema committed as schemas/cassette.schema.json. */
export function cassetteJsonSchema(): string {
  return `${JSON.stringify(z.toJSONSchema(CassetteFile, { target: "draft-2020-12" }), null, 2)}\n`;
}
