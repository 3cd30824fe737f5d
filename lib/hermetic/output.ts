// Where a case's lines go: straight to the terminal for a single case, or into a buffer that is
// printed whole, in input order, when cases run in parallel (never interleaved). These are
// run_eval.sh's byte-exact blocks (its stdout and stderr, the subject's output inside), not log
// lines, so they are written as they are rather than through the logger (lib/core/log.ts).

/** One piece of a case's output, on stdout (1) or stderr (2). */
export interface OutputChunk {
  fd: 1 | 2;
  text: string;
}

/** A writer for one case's output. */
export interface Sink {
  out(text: string): void;
  err(text: string): void;
}

/** Keeps every chunk in order; `text()` is the whole output as one string (stdout and stderr merged). */
export class BufferSink implements Sink {
  readonly chunks: OutputChunk[] = [];
  constructor(private readonly tee?: Sink) {}
  out(text: string): void {
    if (!text) return;
    this.chunks.push({ fd: 1, text });
    this.tee?.out(text);
  }
  err(text: string): void {
    if (!text) return;
    this.chunks.push({ fd: 2, text });
    this.tee?.err(text);
  }
  text(): string {
    return this.chunks.map((c) => c.text).join("");
  }
}

/** Writes to the process's own stdout and stderr. */
export const processSink: Sink = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** Writes buffered chunks to the process's streams, in order. */
export function flushChunks(chunks: readonly OutputChunk[]): void {
  for (const c of chunks) (c.fd === 1 ? process.stdout : process.stderr).write(c.text);
}

/**
 * The header's `out:` value: OUT is deleted with the work directory, so its path is shown only when
 * --keep copies it (run_eval.sh printed a path that was gone when anyone looked).
 */
export function outShown(out: string, keep: string | undefined): string {
  return keep ? `${out} (copied under ${keep} after the run)` : "deleted after the run (--keep DIR keeps it)";
}
