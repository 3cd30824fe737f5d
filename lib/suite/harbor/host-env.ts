// task.toml's env tables ([environment.env], [verifier.env], [solution.env]) resolved from the host as
// Harbor resolves them: a value that is wholly `${NAME}` or `${NAME:-default}` takes the host's NAME
// (or the default when NAME is unset; unset without a default refuses the task), any other value is
// literal. The resolved map serialises (JSON.stringify: the suite digest, logs) as written, so a host
// value never leaves the process except into the container's environment, by name.

/** Harbor's template: the whole value, `${NAME}` or `${NAME:-default}`. */
const TEMPLATE = /^\$\{([^}:]+)(?::-(.*))?\}$/;

/** A resolved env table, or the first entry that cannot be resolved here. */
export type HostEnv = { ok: true; env: Record<string, string> } | { ok: false; name: string; why: string };

/**
 * Resolves `written` against `host`. The result's values are the host's; its JSON form (a hidden
 * toJSON) is `written`, so serialising a loaded task never carries a host value.
 */
export function resolveHostEnv(
  written: Record<string, string>,
  host: Readonly<Record<string, string | undefined>>,
): HostEnv {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(written)) {
    const m = TEMPLATE.exec(value);
    if (!m) {
      env[name] = value;
      continue;
    }
    const [, from, fallback] = m as unknown as [string, string, string | undefined];
    const got = host[from] ?? fallback;
    if (got === undefined)
      return {
        ok: false,
        name,
        why: `${value} is not set on this host (export ${from}, or give a default: \${${from}:-value})`,
      };
    env[name] = got;
  }
  const shown = { ...written };
  Object.defineProperty(env, "toJSON", { value: () => shown, enumerable: false });
  return { ok: true, env };
}
