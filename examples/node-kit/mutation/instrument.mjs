// Instruments the Node kit with Stryker's mutant schema for cmd/kitmutate
// (internal/kitmutation): every mutant Stryker's mutators make of the kit's
// files is compiled into one copy behind a switch read from
// __STRYKER_ACTIVE_MUTANT__, and the list of mutants is written as JSON.
// Stryker's CLI is not used because the Go judge, not Stryker's runner,
// decides reach, reproduction and timeouts for both kits alike.
//
//   KIT_EXCLUDED=Mutator,... node instrument.mjs OUT_DIR FILE... > mutants.json
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { Instrumenter } from "@stryker-mutator/instrumenter";

const [out, ...names] = process.argv.slice(2);
const quiet = { isTraceEnabled: () => false, isDebugEnabled: () => false, isInfoEnabled: () => false, isWarnEnabled: () => false,
  isErrorEnabled: () => false, isFatalEnabled: () => false, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
const files = names.map((name) => ({ name, content: readFileSync(name, "utf8"), mutate: true }));
const res = await new Instrumenter(quiet).instrument(files, { plugins: null, excludedMutations: (process.env.KIT_EXCLUDED || "").split(",").filter(Boolean), ignorers: [], noHeader: false });
mkdirSync(out, { recursive: true });
for (const f of res.files) writeFileSync(join(out, basename(f.name)), f.content);
// A mutant of an excluded mutator is listed as ignored and has no switch.
process.stdout.write(JSON.stringify(res.mutants.filter((m) => m.status !== "Ignored").map((m) => ({
  id: m.id, file: basename(m.fileName), op: m.mutatorName, repl: m.replacement, start: m.location.start, end: m.location.end,
}))) + "\n");
