// How our rules cover two maintained rule sets' categories (tests/fixtures/redact/coverage.json):
// every plugin of detect-secrets 1.5, its KeywordDetector's keywords and gitleaks' generic-api-key
// keywords, each with an example our named rule must find (the default table's rules in the default
// table, the entropy rule in the strict set) or with the reason it is left out. The facts (category
// names, keywords) are theirs; the rules and examples are ours.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { DETECTORS, findSecrets } from "../../lib/redact/index.ts";
import { findStrict, STRICT_DETECTORS, STRICT_EXTRA } from "../../lib/redact/strict.ts";
import { expand } from "../support/secret-templates.ts";

const Covered = z
  .object({
    source: z.string().min(1),
    category: z.string().min(1),
    example: z.string().min(1),
    rule: z.string().min(1),
    note: z.string().optional(),
  })
  .strict();
const Gap = z
  .object({ source: z.string().min(1), category: z.string().min(1), gap: z.string().min(20) })
  .strict();
const ROWS = z
  .array(z.union([Covered, Gap]))
  .parse(JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/redact/coverage.json"), "utf8")));

/** Rules of the strict set alone: found there, not by the default table. */
const STRICT_ONLY = new Set(["high-entropy", ...STRICT_EXTRA.map((d) => d.name)]);

test.each(ROWS.filter((r) => "rule" in r) as z.infer<typeof Covered>[])("$source $category: $rule", (row) => {
  const cores = new Set<string>();
  const text = expand(row.category, row.example, cores) as string;
  const found = STRICT_ONLY.has(row.rule) ? findStrict(text, STRICT_DETECTORS, true) : findSecrets(text);
  expect({
    known: STRICT_ONLY.has(row.rule) || DETECTORS.some((d) => d.name === row.rule),
    found: found.map((f) => f.detector),
    strictOnly: STRICT_ONLY.has(row.rule) ? findSecrets(text).length === 0 : row.note === undefined,
  }).toEqual({ known: true, found: [row.rule], strictOnly: true });
});

test("every detect-secrets 1.5 plugin has a row", () => {
  const plugins = new Set(
    ROWS.filter((r) => r.source === "detect-secrets 1.5 plugin").map((r) => r.category.split(" ")[0]),
  );
  expect([...plugins].sort()).toEqual(
    [
      "ArtifactoryDetector",
      "AWSKeyDetector",
      "AzureStorageKeyDetector",
      "Base64HighEntropyString",
      "BasicAuthDetector",
      "CloudantDetector",
      "DiscordBotTokenDetector",
      "GitHubTokenDetector",
      "GitLabTokenDetector",
      "HexHighEntropyString",
      "IbmCloudIamDetector",
      "IbmCosHmacDetector",
      "IPPublicDetector",
      "JwtTokenDetector",
      "KeywordDetector",
      "MailchimpDetector",
      "NpmDetector",
      "OpenAIDetector",
      "PrivateKeyDetector",
      "PypiTokenDetector",
      "SendGridDetector",
      "SlackDetector",
      "SoftlayerDetector",
      "SquareOAuthDetector",
      "StripeDetector",
      "TelegramBotTokenDetector",
      "TwilioKeyDetector",
    ].sort(),
  );
});
