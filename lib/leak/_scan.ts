// One file's leak scan as a stream (lib/leak/index.ts reads, this matches): the canary as raw bytes
// and in UTF-16/32 (_forms.ts), then everything on the normalised stream (lib/leak/_normalize.ts):
// the normalised canary, its other fixed encodings, its escapes (_escapes.ts) and its pieces
// (_pieces.ts, for the split check), the shingle keys, and the base64/hex runs (lib/leak/_decode.ts),
// each decoded, normalised and scanned the same way. Where normalising changed the text, the raw words are matched
// too, so nothing the raw scan found is lost. Memory is bounded by the read size, the 6 decode
// buffers and the escape scan's carry (64 KiB at most).
import { Buffer } from "node:buffer";
import { AnySearch, ByteSearch } from "./_byte-search.ts";
import { EncodedRuns } from "./_decode.ts";
import { EscapeScan } from "./_escapes.ts";
import { type CanaryForms, canaryForms } from "./_forms.ts";
import { WordWindowSearch } from "./_match.ts";
import { type Normalized, Normalizer, normalizeText } from "./_normalize.ts";
import { PieceSearch } from "./_pieces.ts";
import { Utf8Check } from "./_utf8.ts";

/** What one scan looks for, prepared once per spec. */
export interface Needles {
  /** The canary as given and normalised (both empty: no canary check). */
  canary: Buffer;
  canaryNormalized: Buffer;
  /** The canary's fixed encodings (lib/leak/_forms.ts: UTF-16/32, ROT13, reversed, base32). */
  canaryForms: CanaryForms;
  /** Shingle keys (raw and normalised words) -> held-out marker or criterion ids. */
  keys: ReadonlyMap<string, readonly string[]>;
  /** Bytes in the shortest needle (normalised canary or key): a shorter encoded run cannot hold one. */
  shortest: number;
}

const RUN_END = Buffer.from("\n");

/** The text stretches of binary bytes worth normalising: 3/4 of the shortest needle (NFKC grows by 4/3 at most). */
const stretchFor = (n: Needles): number => Math.ceil((3 * n.shortest) / 4);

/** The needles of a canary and a key table. */
export function needles(canary: string, keys: ReadonlyMap<string, readonly string[]>): Needles {
  const normalized = normalizeText(canary);
  const canaryNormalized = Buffer.from(normalized, "utf8");
  let shortest = canaryNormalized.length > 0 ? canaryNormalized.length : Number.POSITIVE_INFINITY;
  for (const key of keys.keys()) shortest = Math.min(shortest, Buffer.byteLength(key));
  return {
    canary: Buffer.from(canary, "utf8"),
    canaryNormalized,
    canaryForms: canaryForms(canary, normalized),
    keys,
    shortest: Number.isFinite(shortest) ? shortest : 0,
  };
}

/** Normalises, then looks for the canary and the keys: one decoded run at a time. */
class DecodedScan {
  found = false;
  private readonly norm: Normalizer;
  private readonly canary: ByteSearch;
  private readonly words: WordWindowSearch;

  constructor(
    needles: Needles,
    private readonly parent: FileScan,
  ) {
    this.canary = new ByteSearch(needles.canaryNormalized);
    this.words = new WordWindowSearch(needles.keys);
    this.norm = new Normalizer(stretchFor(needles));
  }

  get hits(): ReadonlySet<string> {
    return this.words.hits;
  }

  push(bytes: Buffer): void {
    for (const n of this.norm.push(bytes)) this.take(n);
  }

  end(): void {
    this.take(this.norm.end());
    if (this.parent.wordsOn) this.words.end();
    if (this.canary.found) this.found = true;
    this.canary.reset();
    this.words.reset();
  }

  private take(n: Normalized): void {
    if (n.out.length === 0) return;
    this.canary.push(n.out);
    if (this.parent.wordsOn) this.words.push(n.out);
  }
}

/** The scan of one file: `push` each chunk as read, then `end`, then read the verdict. */
export class FileScan {
  wordsOn: boolean;
  /** false once a byte of the file is not UTF-8: shingles are not checked then (the original's rule). */
  utf8 = true;
  private readonly rawCanary: ByteSearch;
  private readonly canary: ByteSearch;
  /** The canary is its own normal form: unchanged text need not be searched twice. */
  private readonly sameCanary: boolean;
  /** The canary in UTF-16/32 (NUL bytes: never in the normalised stream), in the raw bytes. */
  private readonly wideForms: AnySearch;
  /** The canary in ROT13 and reversed, in the normalised stream. */
  private readonly forms: AnySearch;
  /** The canary in base32, in the runs of base64 characters the decoder finds. */
  private readonly base32: AnySearch;
  /** The canary written with escapes, in the normalised stream. */
  private readonly escapes: EscapeScan;
  /** Pieces of the normalised canary in the normalised stream, for the split check across files. */
  readonly pieces: PieceSearch;
  private readonly utf8Check = new Utf8Check();
  private readonly norm: Normalizer;
  private readonly words: WordWindowSearch;
  /** The raw words, only while they may differ from the normalised ones. */
  private readonly rawWords: WordWindowSearch;
  private rawActive = false;
  private readonly runs: EncodedRuns;
  private readonly decoded: DecodedScan[] = [];

  constructor(
    needles: Needles,
    shingles: boolean,
    private readonly decode = true,
  ) {
    this.norm = new Normalizer(stretchFor(needles));
    this.rawCanary = new ByteSearch(needles.canary);
    this.canary = new ByteSearch(needles.canaryNormalized);
    this.sameCanary = needles.canary.equals(needles.canaryNormalized);
    this.wideForms = new AnySearch(needles.canaryForms.wide);
    this.forms = new AnySearch(needles.canaryForms.text);
    this.base32 = new AnySearch(needles.canaryForms.base32);
    this.escapes = new EscapeScan(needles.canary, needles.canaryNormalized);
    this.pieces = new PieceSearch(needles.canaryNormalized);
    this.words = new WordWindowSearch(needles.keys);
    this.rawWords = new WordWindowSearch(needles.keys);
    this.wordsOn = shingles && this.words.active;
    this.runs = new EncodedRuns(
      () => {
        const scan = new DecodedScan(needles, this);
        this.decoded.push(scan);
        return scan;
      },
      needles.shortest,
      stretchFor(needles),
      // A separator between runs: a core is never matched across two of them.
      { push: (run) => this.base32.push(run), end: () => this.base32.push(RUN_END) },
    );
  }

  push(chunk: Buffer): void {
    if (this.idle) return;
    this.rawCanary.push(chunk);
    this.wideForms.push(chunk);
    if (this.wordsOn && !this.utf8Check.push(chunk).ok) this.stopWords();
    for (const n of this.norm.push(chunk)) this.take(n);
  }

  end(): void {
    if (this.idle) return;
    this.take(this.norm.end());
    if (this.wordsOn && !this.utf8Check.end()) this.stopWords();
    if (this.wordsOn) {
      this.words.end();
      if (this.rawActive) this.rawWords.end();
    }
    if (this.decode) this.runs.end();
  }

  /** The canary, as given, normalised or in another form, anywhere (decoded runs included). */
  get canaryFound(): boolean {
    return (
      this.rawCanary.found ||
      this.canary.found ||
      this.wideForms.found ||
      this.forms.found ||
      this.base32.found ||
      this.escapes.found ||
      this.decoded.some((d) => d.found)
    );
  }

  /** The key values seen (empty unless the whole file is UTF-8). */
  get hits(): ReadonlySet<string> {
    if (!this.utf8) return new Set();
    const all = new Set([...this.words.hits, ...this.rawWords.hits]);
    for (const d of this.decoded) for (const h of d.hits) all.add(h);
    return all;
  }

  /** No canary and no words to look for: nothing to normalise or decode. */
  private get idle(): boolean {
    return !this.wordsOn && this.rawCanary.needle.length === 0;
  }

  private stopWords(): void {
    this.utf8 = false;
    this.wordsOn = false;
  }

  private take(n: Normalized): void {
    if (n.raw.length === 0) return;
    // Bytes normalising left alone were searched for the same canary as raw bytes already.
    if (!n.changed && this.sameCanary) this.canary.skip(n.out);
    else this.canary.push(n.out);
    this.forms.push(n.out);
    this.escapes.push(n.out);
    this.pieces.push(n.out);
    if (this.wordsOn) {
      if (n.changed && !this.rawActive) {
        this.rawWords.follow(this.words);
        this.rawActive = true;
      }
      this.words.push(n.out);
      if (this.rawActive) {
        this.rawWords.push(n.raw);
        if (this.words.idle && this.rawWords.idle) this.rawActive = false;
      }
    }
    if (!this.decode) return;
    // The word scan notes runs of base64 characters as it goes: text without one is not searched again.
    const clear = this.wordsOn && !this.runs.inRun && !this.words.sawEncoded;
    this.words.sawEncoded = false;
    if (clear) this.runs.skip(n.out);
    else this.runs.push(n.out);
  }
}
