// Test helper: round every number in a value to `digits` decimals, so whole values can be compared
// with toEqual against figures computed elsewhere (python3, published tables).

/** `value` with every number rounded to `digits` decimals (and -0 turned into 0). */
export function rounded<T>(value: T, digits = 12): T {
  const f = 10 ** digits;
  const walk = (v: unknown): unknown => {
    if (typeof v === "number") return Math.round(v * f) / f + 0;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
