// Progress where people look. On a terminal ("live"): one self-rewriting stderr line (`run-eval 3/11
// · running a, b`, or a count alone when the caller only counts, `eval-steps run 40/48`) that steps
// aside while a case's block is printed, so blocks and the line never mix. Without one (a CI log, a
// pipe: "lines"): one plain line per finished item, `run-eval 3/11 · a · pass · 0.87s`, or, for a
// caller that only counts, one line per tenth of the total. The mode follows lib/core/tty.ts
// isInteractive: CI=true is a log, so it gets the lines, never the redrawn one.
import { isInteractive } from "./tty.ts";

/** live: the redrawn line; lines: one line per finished item (or per tenth); off: nothing. */
export type ProgressMode = "live" | "lines" | "off";

/** The mode for stderr: live on an interactive terminal outside CI, else lines. */
export function progressMode(
  env: Record<string, string | undefined> = process.env,
  stream: { isTTY?: boolean } = process.stderr,
): ProgressMode {
  return isInteractive(env, stream) ? "live" : "lines";
}

/** How a finished item ended, for its line without a terminal. */
export interface ProgressResult {
  /** The name shown (default: the item's key). */
  name?: string;
  /** One word or two: `pass`, `fail`, `exit 7`. */
  result: string;
  ms: number;
}

/** `0.87s`, `12.3s`, `2m05s`. */
export function elapsed(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(2)}s`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

/** A progress display; every method is a no-op when off. */
export class Progress {
  private readonly running = new Set<string>();
  private done = 0;
  private shown = false;
  readonly mode: ProgressMode;
  /** `mode` true is live and false off (a caller that decided itself); absent, progressMode(). */
  constructor(
    private readonly total: number,
    mode: ProgressMode | boolean = progressMode(),
    private readonly stream: Pick<NodeJS.WriteStream, "write" | "columns"> = process.stderr,
    private readonly label: string = "run-eval",
  ) {
    const chosen = mode === true ? "live" : mode === false ? "off" : mode;
    this.mode = total > 0 ? chosen : "off";
  }

  /** True when anything is shown. */
  get enabled(): boolean {
    return this.mode !== "off";
  }

  /** Counts `n` items as done already (a resumed run's), without a line for each. */
  skip(n: number): void {
    this.done += n;
    this.render();
  }

  start(name: string): void {
    this.running.add(name);
    this.render();
  }

  /**
   * One item finished. With a result, the lines mode prints `label n/N · name · result · time`;
   * without one it counts, and prints `label n/N` at each tenth of the total and at the end.
   */
  finish(name: string, result?: ProgressResult): void {
    this.running.delete(name);
    this.done++;
    if (this.mode === "lines") {
      const count = `${this.label} ${this.done}/${this.total}`;
      if (result)
        this.stream.write(`${count} · ${result.name ?? name} · ${result.result} · ${elapsed(result.ms)}\n`);
      else if (this.atStep()) this.stream.write(`${count}\n`);
      return;
    }
    this.render();
  }

  private atStep(): boolean {
    const step = Math.max(1, Math.ceil(this.total / 10));
    return this.done % step === 0 || this.done === this.total;
  }

  /** Removes the live line (before other output). */
  clear(): void {
    if (this.mode !== "live" || !this.shown) return;
    this.stream.write("\r\x1b[2K");
    this.shown = false;
  }

  /** Draws the live line again. */
  render(): void {
    if (this.mode !== "live") return;
    if (this.done >= this.total) {
      this.clear();
      return;
    }
    const names = [...this.running].join(", ");
    const width = Math.max(20, (this.stream.columns ?? 80) - 1);
    const text = `${this.label} ${this.done}/${this.total}${names ? ` · running ${names}` : ""}`;
    this.stream.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.shown = true;
  }
}
