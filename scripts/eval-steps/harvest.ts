// `eval-steps harvest`: shadow-traffic pairs -> redacted step cases (fail closed). Exit 0 done (also
// when nothing was selected), 2 usage (also an --out that exists and is not empty), 3 a bad input
// file or a redaction that failed closed, 4 the cases could not be written. Body: lib/steps/cmd.ts.
import { defineCommand } from "citty";
import { ARGS, harvestCmd } from "../../lib/steps/cmd.ts";

export const harvest = defineCommand({
  meta: { name: "harvest", description: "harvest redacted step cases from a shadow pair store" },
  args: ARGS.harvest,
  run: ({ args }) => harvestCmd(args),
});
