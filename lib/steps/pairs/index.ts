// The shadow pair store (halo-shadow's format, originals.md §6.9): JSONL, one pair per row, each row
// plaintext or sealed ({id, time, kid, enc}, see lib/steps/pairs/seal.ts). Reading streams line by line and
// is all or nothing: any row that cannot be decoded fails the whole read naming its line, because a
// silently partial sample would bias every figure built on it. Blank lines are skipped. A row longer
// than the cap (--max-row-bytes) fails the read naming its line before more than the cap is held, and
// no error quotes a row: JSON errors give the line and column only (a key file read as a store
// must not come back in the message).
import { closeSync } from "node:fs";
import { z } from "zod";
import { jsonSyntaxWhere } from "../../compat/py/json.ts";
import { accessProblem, openRegular } from "../../core/confined.ts";
import { ConfigError } from "../../core/errors.ts";
import type { WireName } from "../../wire/index.ts";
import { type Line, LineTooLongError, readLines } from "./lines.ts";
import { keyRing, type PairKey, unseal } from "./seal.ts";

export { keyId, loadPairKey, type PairKey, parsePairKey, seal } from "./seal.ts";

/** halo-shadow's protocol names and the aliases we accept, mapped onto lib/wire's. */
export const PAIR_PROTOCOLS = {
  anthropic: "anthropic",
  messages: "anthropic",
  bedrock: "bedrock",
  responses: "responses",
  openai: "responses",
  "openai-responses": "responses",
  gemini: "gemini",
} as const satisfies Record<string, WireName>;

/** The default longest row (bytes): requests with long histories fit; `--max-row-bytes` raises it. */
export const DEFAULT_MAX_ROW_BYTES = 32 << 20;

/** One arm's replay of the request: where it went, what came back. */
export const PairSide = z.looseObject({
  target: z.looseObject({ variant: z.string().optional(), upstream: z.string(), model: z.string() }),
  status: z.number().int(),
  latency_ms: z.number(),
  input_tokens: z.number(),
  output_tokens: z.number(),
  response: z.unknown().optional().describe("the raw response body (JSON)"),
  error: z.string().optional(),
});
export type PairSide = z.infer<typeof PairSide>;

/** One plaintext pair row. Unknown fields are kept (halo-shadow may add some). */
export const Pair = z.looseObject({
  version: z.literal(1).optional().describe("absent in rows halo-shadow writes"),
  id: z.string().min(1),
  time: z.string().describe("RFC 3339"),
  experiment: z.string(),
  ring: z.string().optional(),
  session_id: z.string().optional(),
  protocol: z.enum(Object.keys(PAIR_PROTOCOLS) as [keyof typeof PAIR_PROTOCOLS]),
  request: z.record(z.string(), z.unknown()).describe("the production request body"),
  control: PairSide,
  candidate: PairSide,
  cost_usd_estimate: z.number().optional(),
});
export type Pair = z.infer<typeof Pair>;

/** A sealed row: the pair JSON encrypted with the key whose id is `kid`. */
export const SealedRow = z.strictObject({
  id: z.string().min(1),
  time: z.string(),
  kid: z.string().regex(/^[0-9a-f]{16}$/),
  enc: z.string().min(1),
});

/** The JSON Schema committed as schemas/pair.schema.json (one plaintext row). */
export function pairJsonSchema(): unknown {
  return z.toJSONSchema(Pair);
}

/** A decoded row and where it came from in the file (to re-read it later without keeping it). */
export interface PairRow {
  pair: Pair;
  line: number;
  offset: number;
  length: number;
  sealed: boolean;
}

function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  const at = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  return `${issue?.message ?? "invalid"}${at}`;
}

const str = (v: unknown) => typeof v === "string";
const optStr = (v: unknown) => v === undefined || typeof v === "string";
const num = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const obj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function isSideFast(v: unknown): boolean {
  if (!obj(v) || !obj(v.target)) return false;
  const t = v.target;
  return (
    str(t.upstream) &&
    str(t.model) &&
    optStr(t.variant) &&
    Number.isSafeInteger(v.status) &&
    num(v.latency_ms) &&
    num(v.input_tokens) &&
    num(v.output_tokens) &&
    optStr(v.error)
  );
}

/**
 * The common case of the Pair schema, checked by hand: zod copies every row it checks, which on a
 * 200 MB store costs more than the decryption. Anything this does not accept goes through zod,
 * which then either accepts it or says precisely what is wrong; this never accepts what zod refuses.
 */
function isPairFast(v: unknown): v is Pair {
  return (
    obj(v) &&
    (v.version === undefined || v.version === 1) &&
    str(v.id) &&
    (v.id as string).length > 0 &&
    str(v.time) &&
    str(v.experiment) &&
    optStr(v.ring) &&
    optStr(v.session_id) &&
    typeof v.protocol === "string" &&
    Object.hasOwn(PAIR_PROTOCOLS, v.protocol) &&
    obj(v.request) &&
    isSideFast(v.control) &&
    isSideFast(v.candidate) &&
    (v.cost_usd_estimate === undefined || num(v.cost_usd_estimate))
  );
}

type SealedRowData = z.infer<typeof SealedRow>;
const KID = /^[0-9a-f]{16}$/;

/** SealedRow checked by hand (zod copies the row and its long `enc`); a miss goes through zod. */
function isSealedFast(v: object): v is SealedRowData {
  const r = v as Record<string, unknown>;
  let n = 0;
  for (const _ in r) n++;
  return (
    n === 4 &&
    !Array.isArray(r) &&
    str(r.id) &&
    (r.id as string).length > 0 &&
    str(r.time) &&
    str(r.kid) &&
    KID.test(r.kid as string) &&
    str(r.enc) &&
    (r.enc as string).length > 0
  );
}

/** A reusable row decoder over a set of keys; throws plain Errors the reader prefixes with the line. */
export function pairDecoder(keys: readonly PairKey[]): (text: string) => { pair: Pair; sealed: boolean } {
  const ring = keyRing(keys);
  return (text) => {
    let row: unknown;
    try {
      row = JSON.parse(text);
    } catch {
      throw new Error(`not JSON: ${jsonSyntaxWhere(text)}`);
    }
    let sealed = false;
    if (typeof row === "object" && row !== null && "kid" in row) {
      let sr: SealedRowData;
      if (isSealedFast(row)) sr = row;
      else {
        const s = SealedRow.safeParse(row);
        if (!s.success) throw new Error(`bad sealed row: ${issueOf(s.error)}`);
        sr = s.data;
      }
      if (ring.size === 0) throw new Error("sealed row and no --pair-key-file given");
      const plain = unseal(sr.enc, sr.id, sr.kid, ring);
      try {
        row = JSON.parse(plain);
      } catch {
        throw new Error(`sealed pair is not JSON: ${jsonSyntaxWhere(plain)}`);
      }
      if (typeof row === "object" && row !== null && (row as { id?: unknown }).id !== sr.id)
        throw new Error("sealed pair id differs from the row id");
      sealed = true;
    }
    if (isPairFast(row)) return { pair: row, sealed };
    const p = Pair.safeParse(row);
    if (!p.success) throw new Error(issueOf(p.error));
    return { pair: row as Pair, sealed };
  };
}

/** Wraps a row failure as the read's ConfigError: `Cannot read pair store "<path>": line <n>: <why>`. */
export function rowError(path: string, line: number, error: unknown): ConfigError {
  return new ConfigError(`Cannot read pair store "${path}": line ${line}: ${(error as Error).message}`, {
    cause: error,
  });
}

/** How to read a store: an already-open descriptor (eval-mcp opens it confined), the row cap. */
export interface ReadPairsOptions {
  /** Read this descriptor (from offset 0; left open) instead of opening `path`. */
  fd?: number;
  /** Longest row in bytes (default DEFAULT_MAX_ROW_BYTES). */
  maxRowBytes?: number;
  /** Receives the largest read buffer held (see lib/steps/pairs/lines.ts). */
  stats?: { peakBuffer: number };
}

/** Opens a store path for reading: a regular file only (a FIFO is refused, never waited on). */
export function openPairStore(path: string): number {
  try {
    return openRegular(path, { follow: true }).fd;
  } catch (error) {
    throw new ConfigError(`Cannot read pair store "${path}": ${accessProblem(error)}`, { cause: error });
  }
}

/** Streams every pair of the store; the first undecodable row throws (ConfigError, exit 3). */
export function* readPairs(
  path: string,
  keys: readonly PairKey[] = [],
  o: ReadPairsOptions = {},
): Generator<PairRow> {
  const decode = pairDecoder(keys);
  const fd = o.fd ?? openPairStore(path);
  try {
    const lines = readLines(fd, { maxLine: o.maxRowBytes ?? DEFAULT_MAX_ROW_BYTES, stats: o.stats });
    for (const l of iterate(lines, path)) {
      if (l.text.trim() === "") continue;
      let row: { pair: Pair; sealed: boolean };
      try {
        row = decode(l.text);
      } catch (error) {
        throw rowError(path, l.n, error);
      }
      yield { ...row, line: l.n, offset: l.offset, length: l.length };
    }
  } finally {
    if (o.fd === undefined) closeSync(fd);
  }
}

// File-system errors surface on a next(): name the file (and the line of a row too long), never a stack.
function* iterate(lines: Generator<Line>, path: string): Generator<Line> {
  for (;;) {
    let r: IteratorResult<Line>;
    try {
      r = lines.next();
    } catch (error) {
      if (error instanceof LineTooLongError)
        throw rowError(path, error.n, new Error(`${error.message} (the row cap; --max-row-bytes raises it)`));
      throw new ConfigError(`Cannot read pair store "${path}": ${accessProblem(error)}`, { cause: error });
    }
    if (r.done) return;
    yield r.value;
  }
}

/** The lib/wire protocol name of a pair. */
export function wireProtocol(pair: Pair): (typeof PAIR_PROTOCOLS)[keyof typeof PAIR_PROTOCOLS] {
  return PAIR_PROTOCOLS[pair.protocol];
}
