// The Kubernetes examples (examples/k8s/*.yaml) checked offline against the Kubernetes API's own
// schemas: kubernetes-models 4.5.1 (generated from the Kubernetes OpenAPI; it knows the native
// sidecar's restartPolicy: Always, and unlike 5.x it installs on Node 20) validates each object with its compiled JSON-schema validators (types, enums,
// required fields), and its typed models, compiled by TypeScript, refuse any field the API does not
// have (the validators let unknown fields through; the API server's strict field validation would
// not). Then what sharding needs: an Indexed Job whose every pod runs shard $JOB_COMPLETION_INDEX/N
// of N completions onto the volume the merge Job reads. Each check is shown to fail on a broken copy.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../support/tools.ts";

const DIR = join(REPO_ROOT, "examples", "k8s");

// biome-ignore lint/suspicious/noExplicitAny: a manifest is untyped YAML until it is checked
type Doc = Record<string, any>;

/** The models each apiVersion/kind is checked with: module, class and its data interface. */
const MODELS: Record<string, { module: string; model: string; data: string }> = {
  "batch/v1 Job": { module: "kubernetes-models/batch/v1/Job", model: "Job", data: "IJob" },
  "v1 PersistentVolumeClaim": {
    module: "kubernetes-models/v1/PersistentVolumeClaim",
    model: "PersistentVolumeClaim",
    data: "IPersistentVolumeClaim",
  },
};

function load(file: string): Doc[] {
  return parseAllDocuments(readFileSync(join(DIR, file), "utf8")).map((d) => d.toJS() as Doc);
}

const modelOf = (doc: Doc) => MODELS[`${doc.apiVersion} ${doc.kind}`];

/** The schema validator's first complaint about each document ("" when it passes). */
async function schemaErrors(docs: Doc[]): Promise<string[]> {
  return Promise.all(
    docs.map(async (doc) => {
      const m = modelOf(doc);
      if (!m) return `no model for ${doc.apiVersion} ${doc.kind}`;
      const Model = (await import(m.module))[m.model] as new (d: Doc) => { validate(): void };
      try {
        new Model(doc).validate();
        return "";
      } catch (error) {
        return (error as Error).message.split("\n")[0] ?? "";
      }
    }),
  );
}

/**
 * What the typed models say of each document (`unknown Interface.field` for a field the API does not
 * have, `missing Interface.field`, else TypeScript's line): each compiled as an object literal of its
 * model's type, one program for all, one document per line.
 */
function typeFindings(docs: Doc[]): string[][] {
  const file = join(REPO_ROOT, "tests", "dist", "__k8s_manifest.ts");
  const source = docs
    .map((doc, i) => {
      const m = modelOf(doc);
      if (!m) return "\n";
      return `import type { ${m.data} as T${i} } from "${m.module}"; export const d${i}: T${i} = ${JSON.stringify(doc)};\n`;
    })
    .join("");
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  const get = host.getSourceFile.bind(host);
  host.readFile = (f) => (f === file ? source : read(f));
  host.fileExists = (f) => f === file || exists(f);
  host.getSourceFile = (f, lang, ...rest) =>
    f === file ? ts.createSourceFile(f, source, lang) : get(f, lang, ...rest);
  const program = ts.createProgram([file], options, host);
  const found: string[][] = docs.map(() => []);
  for (const d of ts.getPreEmitDiagnostics(program, program.getSourceFile(file))) {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const extra = /'"?([^'"]+)"?' does not exist in type '([^']+)'/.exec(text);
    const missing = /^Property '"?([^'"]+)"?' is missing in type .* but required in type '([^']+)'/.exec(
      text,
    );
    found[line]?.push(
      extra
        ? `unknown ${extra[2]}.${extra[1]}`
        : missing
          ? `missing ${missing[2]}.${missing[1]}`
          : (text.split("\n")[0] ?? ""),
    );
  }
  return found;
}

const jobs = (docs: Doc[]) => docs.filter((d) => d.kind === "Job");
const containersOf = (job: Doc): Doc[] => [
  ...(job.spec.template.spec.initContainers ?? []),
  ...job.spec.template.spec.containers,
];
const claimAt = (job: Doc, container: Doc, path: string) => {
  const mount = (container.volumeMounts ?? []).find((m: Doc) => m.mountPath === path);
  const vol = job.spec.template.spec.volumes.find((v: Doc) => v.name === mount?.name);
  return vol?.persistentVolumeClaim?.claimName;
};

/** What the shard and merge Jobs promise each other, as findings ([] when all hold). */
function shardingProblems(shardDocs: Doc[], mergeDocs: Doc[]): string[] {
  const problems: string[] = [];
  const [job] = jobs(shardDocs);
  const [merge] = jobs(mergeDocs);
  if (!job || !merge) return ["expected one shard Job and one merge Job"];
  const n = job.spec.completions;
  if (job.spec.completionMode !== "Indexed") problems.push("the shard Job is not completionMode: Indexed");
  if (!(job.spec.parallelism >= 1 && job.spec.parallelism <= n))
    problems.push("parallelism is not in 1..completions");
  const shard = job.spec.template.spec.containers.find((c: Doc) => c.name === "shard");
  const script = (shard?.args ?? []).join(" ");
  if (!script.includes(`--shard "$JOB_COMPLETION_INDEX/${n}"`))
    problems.push(`the shard container does not run --shard "$JOB_COMPLETION_INDEX/${n}"`);
  if (
    !script.includes(`trials="/trials/shard-$JOB_COMPLETION_INDEX/trials.jsonl"`) ||
    !script.includes(`--trials "$trials"`)
  )
    problems.push("the shard container does not write /trials/shard-K/trials.jsonl");
  const mergeC = merge.spec.template.spec.containers[0];
  if (
    !(mergeC.args ?? [])
      .join(" ")
      .includes("agent-eval suite merge /evals/suites/fixture.yaml /trials/shard-*/trials.jsonl")
  )
    problems.push("the merge Job does not merge /trials/shard-*/trials.jsonl of the same suite");
  const claim = claimAt(job, shard ?? {}, "/trials");
  const claims = shardDocs.filter((d) => d.kind === "PersistentVolumeClaim").map((d) => d.metadata.name);
  if (!claim || claim !== claimAt(merge, mergeC, "/trials") || !claims.includes(claim))
    problems.push("the shards and the merge do not share the claim this file creates at /trials");
  const privileged = containersOf(job)
    .filter((c) => c.securityContext?.privileged)
    .map((c) => c.name);
  if (privileged.join() !== "dind")
    problems.push(`privileged containers: ${privileged.join() || "none"}, expected dind only`);
  const dind = job.spec.template.spec.initContainers?.find((c: Doc) => c.name === "dind");
  if (dind?.restartPolicy !== "Always")
    problems.push("the dind sidecar is not a native sidecar (restartPolicy: Always)");
  const literalKeys = containersOf(job)
    .flatMap((c) => c.env ?? [])
    .filter((e: Doc) => /KEY|TOKEN|SECRET/.test(e.name) && e.value !== undefined);
  if (literalKeys.length > 0) problems.push("a key is written into the manifest instead of a secretKeyRef");
  return problems;
}

describe("examples/k8s against the Kubernetes API schemas", () => {
  test("the files, their objects", () => {
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith(".yaml"))
      .sort();
    expect(files.map((f) => [f, load(f).map((d) => `${d.apiVersion} ${d.kind} ${d.metadata.name}`)])).toEqual(
      [
        [
          "suite-indexed-job.yaml",
          ["v1 PersistentVolumeClaim proctor-trials", "batch/v1 Job proctor-suite-shards"],
        ],
        ["suite-merge-job.yaml", ["batch/v1 Job proctor-suite-merge"]],
      ],
    );
  });

  test("every object validates, has no unknown field, and the Jobs shard and merge as promised", async () => {
    const shard = load("suite-indexed-job.yaml");
    const merge = load("suite-merge-job.yaml");
    expect({
      schema: await schemaErrors([...shard, ...merge]),
      typed: typeFindings([...shard, ...merge]).flat(),
      sharding: shardingProblems(shard, merge),
    }).toEqual({ schema: ["", "", ""], typed: [], sharding: [] });
  });

  // Each row breaks a copy of the shard Job one way; the check meant to catch it must.
  const broken: {
    name: string;
    edit: (job: Doc) => void;
    found: { schema?: string; typed?: string[]; sharding?: string[] };
  }[] = [
    {
      name: "completions as a string",
      edit: (j) => {
        j.spec.completions = "4";
      },
      found: {
        schema: "data/spec/completions must be integer",
        typed: ["Type 'string' is not assignable to type 'number'."],
      },
    },
    {
      name: "completionMode misspelt in case",
      edit: (j) => {
        j.spec.completionMode = "indexed";
      },
      found: {
        schema: "data/spec/completionMode must be equal to one of the allowed values",
        typed: [
          `Type '"indexed"' is not assignable to type '"Indexed" | "NonIndexed" | undefined'. Did you mean '"Indexed"'?`,
        ],
        sharding: ["the shard Job is not completionMode: Indexed"],
      },
    },
    {
      name: "a container without its name",
      edit: (j) => {
        delete j.spec.template.spec.containers[0].name;
      },
      found: {
        schema: "data/spec/template/spec/containers/0 must have required property name",
        typed: ["missing IContainer.name"],
        sharding: [
          'the shard container does not run --shard "$JOB_COMPLETION_INDEX/4"',
          "the shard container does not write /trials/shard-K/trials.jsonl",
          "the shards and the merge do not share the claim this file creates at /trials",
        ],
      },
    },
    {
      name: "an unknown field in the Job spec (completion for completions)",
      edit: (j) => {
        j.spec.completion = 4;
      },
      found: { typed: ["unknown IJobSpec.completion"] },
    },
    {
      name: "an unknown field deep in a container",
      edit: (j) => {
        j.spec.template.spec.containers[0].securityContext.privilegd = false;
      },
      found: { typed: ["unknown ISecurityContext.privilegd"] },
    },
    {
      name: "a shard count that is not the completions",
      edit: (j) => {
        j.spec.completions = 3;
        j.spec.parallelism = 3;
      },
      found: { sharding: ['the shard container does not run --shard "$JOB_COMPLETION_INDEX/3"'] },
    },
    {
      name: "the shard container made privileged too",
      edit: (j) => {
        j.spec.template.spec.containers[0].securityContext.privileged = true;
      },
      found: { sharding: ["privileged containers: dind,shard, expected dind only"] },
    },
    {
      name: "a model key written into the manifest",
      edit: (j) => {
        j.spec.template.spec.containers[0].env[2] = { name: "ANTHROPIC_API_KEY", value: "sk-..." };
      },
      found: { sharding: ["a key is written into the manifest instead of a secretKeyRef"] },
    },
  ];
  // The broken copies compiled in one program (a TypeScript program costs seconds here).
  let outcomes: Promise<{ schema: string; typed: string[]; sharding: string[] }[]> | undefined;
  const outcome = (i: number) => {
    outcomes ??= (async () => {
      const copies = broken.map((c) => {
        const shard = load("suite-indexed-job.yaml");
        c.edit(shard[1] as Doc);
        return shard;
      });
      const merge = load("suite-merge-job.yaml");
      const jobsOnly = copies.map((d) => d[1] as Doc);
      const typed = typeFindings(jobsOnly);
      const schema = await schemaErrors(jobsOnly);
      return copies.map((d, k) => ({
        schema: schema[k] ?? "",
        typed: typed[k] ?? [],
        sharding: shardingProblems(d, merge),
      }));
    })();
    return outcomes.then((all) => all[i]);
  };
  broken.forEach((c, i) => {
    test(`refused: ${c.name}`, async () => {
      expect(await outcome(i)).toEqual({
        schema: c.found.schema ?? "",
        typed: c.found.typed ?? [],
        sharding: c.found.sharding ?? [],
      });
    });
  });
});
