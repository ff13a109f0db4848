// Loaded with --import into every Node process of a judge's unmutated run
// (cmd/kitmutate): at exit it writes the ids of the mutants whose code the
// process executed, from the coverage counters Stryker's instrumented kit
// keeps, to $KIT_REACH_DIR/<pid>.json.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

process.on("exit", () => {
  const cov = globalThis.__stryker__?.mutantCoverage;
  if (!cov || !process.env.KIT_REACH_DIR) return;
  const ids = new Set(Object.keys(cov.static || {}));
  for (const t of Object.values(cov.perTest || {})) for (const id of Object.keys(t)) ids.add(id);
  writeFileSync(join(process.env.KIT_REACH_DIR, `${process.pid}.json`), JSON.stringify([...ids]));
});
