// The `json-path` tool's paths and values: `a.b[0].c` (a leading `$` or `$.` allowed; "" or "$" is
// the whole document; keys are [A-Za-z0-9_-]+, or any text as ["key"]), the value found there, and
// JSON equality (numbers by value across int and float, booleans only equal booleans, objects by key).
import { PyFloat } from "../compat/py/value.ts";

type Step = string | number;

const STEP = /^(?:\.?([A-Za-z0-9_-]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;

/** The steps of `path`, or null when it does not parse. */
export function parseJsonPath(path: string): Step[] | null {
  let rest = path.startsWith("$") ? path.slice(1) : path;
  const steps: Step[] = [];
  let first = true;
  while (rest !== "") {
    const m = STEP.exec(rest);
    if (!m || (!first && m[1] !== undefined && !m[0].startsWith("."))) return null;
    if (first && m[0].startsWith(".") && !path.startsWith("$")) return null;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
    else steps.push(JSON.parse(m[3] as string) as string);
    rest = rest.slice(m[0].length);
    first = false;
  }
  return steps;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);
}

/** The value at `steps` in `doc`, or why there is none. */
export function jsonAt(
  doc: unknown,
  steps: Step[],
): { ok: true; value: unknown } | { ok: false; why: string } {
  let cur = doc;
  let where = "$";
  for (const step of steps) {
    if (typeof step === "number") {
      if (!Array.isArray(cur)) return { ok: false, why: `${where} is not a list` };
      if (step >= cur.length) return { ok: false, why: `${where} has ${cur.length} item(s)` };
      cur = cur[step];
      where += `[${step}]`;
    } else {
      if (!isObject(cur)) return { ok: false, why: `${where} is not an object` };
      if (!Object.hasOwn(cur, step)) return { ok: false, why: `${where} has no key ${JSON.stringify(step)}` };
      cur = cur[step];
      where += /^[A-Za-z_][A-Za-z0-9_]*$/.test(step) ? `.${step}` : `[${JSON.stringify(step)}]`;
    }
  }
  return { ok: true, value: cur };
}

function numeric(v: unknown): number | bigint | null {
  if (typeof v === "number" || typeof v === "bigint") return v;
  return v instanceof PyFloat ? v.value : null;
}

/** JSON equality of two parsed values. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== null || nb !== null) {
    if (na === null || nb === null) return false;
    return typeof na === "bigint" || typeof nb === "bigint" ? String(na) === String(nb) : na === nb;
  }
  if (Array.isArray(a) || Array.isArray(b))
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEquals(v, b[i]))
    );
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEquals(a[k], b[k]))
    );
  }
  return a === b;
}

/** A parsed value as compact JSON (floats as numbers, big ints as digits). */
export function showJson(v: unknown): string {
  return (
    JSON.stringify(v, (_k, x) => (x instanceof PyFloat ? x.value : typeof x === "bigint" ? Number(x) : x)) ??
    "null"
  );
}
