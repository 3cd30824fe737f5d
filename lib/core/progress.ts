// Progress on a terminal: one self-rewriting stderr line (`run-eval 3/11 · running a, b`, or a count
// alone when the caller only counts, `eval-steps run 40/48`), shown only
// when stderr is interactive and not in CI (lib/core/log.ts isInteractive). It steps aside while a case's
// block is printed, so blocks and the line never mix.
import { isInteractive } from "./log.ts";

/** A progress line; every method is a no-op when disabled. */
export class Progress {
  private readonly running = new Set<string>();
  private done = 0;
  private shown = false;
  constructor(
    private readonly total: number,
    readonly enabled: boolean = isInteractive(),
    private readonly stream: NodeJS.WriteStream = process.stderr,
    private readonly label: string = "run-eval",
  ) {}

  start(name: string): void {
    this.running.add(name);
    this.render();
  }

  finish(name: string): void {
    this.running.delete(name);
    this.done++;
    this.render();
  }

  /** Removes the line (before other output). */
  clear(): void {
    if (!this.enabled || !this.shown) return;
    this.stream.write("\r\x1b[2K");
    this.shown = false;
  }

  /** Draws the line again. */
  render(): void {
    if (!this.enabled || this.done >= this.total) {
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
