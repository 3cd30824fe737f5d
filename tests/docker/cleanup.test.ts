// Killing a run midway (SIGINT or SIGTERM) leaves none of its containers or scratch dirs, exits
// 130/143, and never touches another run's, even one whose id starts with the same characters.
import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { containersOf, makeScratchDir, removeRunResources, scratchDirsOf } from "../../lib/docker/cleanup.ts";
import { tempDir } from "../support/tmp.ts";
import { BIN } from "../support/tools.ts";
import { DOCKER_TEST_MS, IMAGE_BUILD_MS, testImage } from "./_image.ts";

// Every phase is several docker CLI calls, seconds each on a loaded 2-core machine: minutes, not 60 s.
setDefaultTimeout(DOCKER_TEST_MS);

let image = "";
beforeAll(async () => {
  image = await testImage();
}, IMAGE_BUILD_MS);

describe("signal cleanup", () => {
  test.each([
    { signal: "SIGINT" as const, code: 130 },
    { signal: "SIGTERM" as const, code: 143 },
  ])("$signal removes only this run's containers and dirs", async ({ signal, code }) => {
    using scratch = tempDir("proctor-cleanup");
    const mine = `k${process.pid}${signal}`;
    const other = `${mine}0`; // a prefix match would catch it
    const otherName = `proctor-eval-other-${other}`;
    const started = spawnSync(
      "docker",
      [
        "run",
        "-d",
        "--rm",
        "--name",
        otherName,
        "--label",
        `proctor.run=${other}`,
        "--network",
        "none",
        image,
        "sleep",
        "600",
      ],
      { encoding: "utf8" },
    );
    expect(started.status).toBe(0);
    const otherDir = makeScratchDir(other, scratch.path);
    const child = spawn(BIN.bun, [join(import.meta.dirname, "_killme.ts"), mine, image, scratch.path], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (b) => {
      err += b;
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (b: Buffer) => String(b).includes("ready") && resolve());
      child.on("exit", () => reject(new Error(`fixture exited early: ${err}`)));
    });
    const during = {
      containers: (await containersOf(mine)).length,
      dirs: scratchDirsOf(mine, scratch.path).length,
    };
    const exit = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    child.kill(signal);
    const exitCode = await exit;
    const after = {
      exitCode,
      mine: await containersOf(mine),
      mineDirs: scratchDirsOf(mine, scratch.path),
      other: await containersOf(other),
      otherDirs: scratchDirsOf(other, scratch.path),
    };
    await removeRunResources(other, { scratchRoot: scratch.path });
    expect({ during, ...after }).toEqual({
      during: { containers: 1, dirs: 1 },
      exitCode: code,
      mine: [],
      mineDirs: [],
      other: [otherName],
      otherDirs: [otherDir],
    });
  });
});
