// One version string for compiled, bun, node and deno runs: the build defines BUILD_VERSION, and
// a source run falls back to package.json.
import pkg from "../../package.json" with { type: "json" };

declare const BUILD_VERSION: string | undefined;

/** Proctor's version. */
export const VERSION: string = typeof BUILD_VERSION === "string" ? BUILD_VERSION : pkg.version;
