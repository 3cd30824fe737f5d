// The keys a zod object schema accepts at a path of the data (through arrays, optionals, defaults,
// pipes, lazies and unions), so a refusal of an unknown key can name the closest accepted one, as a
// misspelt tool or flag is named (suggest.ts): `unknown key "varients": did you mean variants?`.
import type { z } from "zod";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  getter?: () => z.ZodType;
  options?: z.ZodType[];
  values?: unknown[];
  left?: z.ZodType;
  right?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The object schemas `schema` may be at this level (wrappers unwrapped, union members spread). */
function objects(schema: z.ZodType, depth = 0): z.ZodType[] {
  if (depth > 16) return [];
  const def = defOf(schema);
  switch (def.type) {
    case "object":
      return [schema];
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
      return def.innerType ? objects(def.innerType, depth + 1) : [];
    case "pipe":
      return [def.in, def.out].flatMap((s) => (s ? objects(s, depth + 1) : []));
    case "lazy":
      return def.getter ? objects(def.getter(), depth + 1) : [];
    case "union":
      return (def.options ?? []).flatMap((s) => objects(s, depth + 1));
    case "intersection":
      return [def.left, def.right].flatMap((s) => (s ? objects(s, depth + 1) : []));
    default:
      return [];
  }
}

/** What `schema` is one step down `key` (an array's element for a number). */
function child(schema: z.ZodType, key: PropertyKey, depth = 0): z.ZodType[] {
  if (depth > 16) return [];
  const def = defOf(schema);
  if (def.type === "array" && typeof key === "number" && def.element) return [def.element];
  if (
    ["optional", "nullable", "default", "prefault", "readonly", "catch"].includes(def.type) &&
    def.innerType
  )
    return child(def.innerType, key, depth + 1);
  if (def.type === "pipe") return [def.in, def.out].flatMap((s) => (s ? child(s, key, depth + 1) : []));
  if (def.type === "lazy" && def.getter) return child(def.getter(), key, depth + 1);
  if (def.type === "union") return (def.options ?? []).flatMap((s) => child(s, key, depth + 1));
  return objects(schema, depth).flatMap((o) => {
    const next = defOf(o).shape?.[String(key)];
    return next ? [next] : [];
  });
}

/** True when every literal field of object schema `o` (a union's tag, e.g. `tool`) holds in `value`. */
function tagsHold(o: z.ZodType, value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.entries(defOf(o).shape ?? {}).every(([k, s]) => {
    const def = defOf(s);
    return def.type !== "literal" || (def.values ?? []).includes((value as Record<string, unknown>)[k]);
  });
}

/**
 * Every key the object(s) at `path` of `data` (checked by `schema`) accept, in declaration order; of
 * a union's members, those whose tag fields match the data there (an assertion's `tool`), if any do.
 */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[], data?: unknown): string[] {
  let at = [schema];
  let value = data;
  for (const key of path) {
    at = at.flatMap((s) => child(s, key));
    value =
      typeof value === "object" && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  const all = at.flatMap((s) => objects(s));
  const tagged = all.filter((o) => tagsHold(o, value));
  const keys = (tagged.length > 0 ? tagged : all).flatMap((o) => Object.keys(defOf(o).shape ?? {}));
  return [...new Set(keys)];
}
