// Fixture for cleanup.test.ts: a whole suite run on the Docker runner with the stub agent, wired to
// signals as `agent-eval suite` wires it (the hook stops starting trials, then removes all the run
// owns). Prints "ready" once the hook is in, then each docker verb as it is invoked, so the test can
// signal at any chosen call. argv: <runId> <image> <scratchRoot> <suite.yaml> <trials.jsonl>
import { dockerRunner, installSignalCleanup } from "../../../lib/isolation/docker/index.ts";
import { runSuite } from "../../../lib/suite/run.ts";
import { loadSuite } from "../../../lib/suite/suite.ts";
import { stubDriver } from "../../suite/_support.ts";

const [runId = "", image = "", scratchRoot = "", suitePath = "", trialsFile = ""] = process.argv.slice(2);
const controller = new AbortController();
installSignalCleanup(runId, { scratchRoot, onSignal: () => controller.abort() });
process.stdout.write("ready\n");
// As the CLI does: a cancelled run is an error line and exit 1, unless the hook exits first (130/143).
try {
  const { trials } = await runSuite(loadSuite(suitePath), {
    runId,
    runner: dockerRunner({ scratchRoot, onDockerCall: (a) => process.stdout.write(`${a[0]}\n`) }),
    drivers: { claude: stubDriver() },
    image: () => image,
    // Never contacted: the stub agent does not talk to a model; loopback all the same.
    modelUrl: () => "http://127.0.0.1:9",
    parallel: 2,
    signal: controller.signal,
    trialsFile,
  });
  process.stdout.write(`done ${trials.filter((t) => t.pass).length}/${trials.length}\n`);
} catch (error) {
  process.stderr.write(`error: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
