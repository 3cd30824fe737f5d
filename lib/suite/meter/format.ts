// The meter's formats: what the model bridge counted for one trial (Trial.meter) and where the agent's
// own figures differed (Trial.mismatch), the shapes the Trial schema (scorecard/schema.ts) embeds; and
// the price table file (--prices, schemas/prices.schema.json). Zod and types only; the counting is
// meter.ts, its use on the trial apply.ts, prices read and applied by prices.ts.
import { z } from "zod";

const count = z.number().int().min(0);

/** Token totals; `input` and `output` are whole, the rest are parts of them. */
const TokenFields = {
  input: count.describe("every input token, cache reads and writes included"),
  output: count.describe("every output token, reasoning included"),
  cacheRead: count.describe("of input: read from the prompt cache"),
  cacheWrite: count.describe("of input: written to the prompt cache"),
  reasoning: count.describe("of output: reasoning tokens, where the protocol counts them apart"),
};

/** One model's share of a trial's traffic. */
export const ModelMeter = z.looseObject({
  turns: count,
  ...TokenFields,
  costUSD: z.number().min(0).optional().describe("absent: no price table names the model"),
});
export type ModelMeter = z.infer<typeof ModelMeter>;

/** What the bridge forwarded during a trial's agent phase, counted on the host. */
export const Metered = z.looseObject({
  source: z.literal("bridge"),
  requests: count.describe("requests the bridge forwarded on a model protocol's path"),
  turns: count.describe("model replies that succeeded (2xx): the trial's turns"),
  failed: count.describe("requests that got an error status or no reply"),
  unread: count
    .optional()
    .describe(
      "successful replies whose usage could not be read (cut off): their tokens are not in the counts",
    ),
  ...TokenFields,
  costUSD: z
    .number()
    .min(0)
    .optional()
    .describe("absent when a model the agent used has no price: not measured, never $0"),
  unpriced: z.array(z.string()).optional().describe("the models no price table names"),
  prices: z.string().describe("the price table used: `default <date>`, or the --prices file and its date"),
  models: z.record(z.string(), ModelMeter).optional().describe("the counts per model the requests named"),
});
export type Metered = z.infer<typeof Metered>;

/** The metrics the bridge counts and an agent may also report. */
export const METERED_METRICS = ["cost", "tokens", "turns"] as const;

/** One figure the agent reported that the bridge's count contradicts. */
export const Mismatch = z.looseObject({
  metric: z.enum(METERED_METRICS),
  bridge: z.number().min(0).describe("the bridge's count (the trial's figure)"),
  agent: z.number().min(0).describe("what the agent's output said"),
});
export type Mismatch = z.infer<typeof Mismatch>;

const usd = z.number().min(0).describe("US dollars per million tokens");
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date YYYY-MM-DD");

const Rates = {
  input: usd.describe("fresh (uncached) input: US dollars per million tokens"),
  output: usd.describe("output, reasoning included: US dollars per million tokens"),
  cacheRead: usd.optional().describe("input read from the prompt cache (default: the input rate)"),
  cacheWrite: usd.optional().describe("input written to the prompt cache (default: the input rate)"),
};

/** One model's prices: the names it answers for and its rates. */
export const PriceEntry = z.strictObject({
  match: z
    .array(z.string().min(1))
    .min(1)
    .describe("model names as requests send them; `*` matches any run of characters; the most specific wins"),
  ...Rates,
  longContext: z
    .strictObject({ above: z.number().int().min(1).describe("input tokens of one request"), ...Rates })
    .optional()
    .describe("the rates of a request whose input passes `above` tokens"),
  asOf: day.optional().describe("when this entry was checked, when not the table's date"),
  note: z.string().optional().describe("where the prices come from"),
});
export type PriceEntry = z.infer<typeof PriceEntry>;

/** A price table file. */
export const PriceTable = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  date: day.describe("when these prices were checked"),
  defaults: z
    .boolean()
    .optional()
    .describe("false: only this file prices models (default: the built-in table answers the others)"),
  models: z.array(PriceEntry),
});
export type PriceTable = z.infer<typeof PriceTable>;
