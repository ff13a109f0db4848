// Loaded with --import into every Node process of a judge's unmutated run
// (cmd/kitmutate): at exit it writes the ids of the mutants whose code the
// process executed, from the coverage counters Stryker's instrumented kit
// keeps, to $KIT_REACH_DIR/<pid>.json.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// It writes every 20 ms while the set grows, too: the harness
// may end a kernel with a signal, which no exit handler sees.
let written = 0;
const dump = () => {
  const cov = globalThis.__stryker__?.mutantCoverage;
  if (!cov || !process.env.KIT_REACH_DIR) return;
  const ids = new Set(Object.keys(cov.static || {}));
  for (const t of Object.values(cov.perTest || {})) for (const id of Object.keys(t)) ids.add(id);
  if (ids.size === written) return;
  const file = join(process.env.KIT_REACH_DIR, `${process.pid}.json`);
  writeFileSync(file + ".tmp", JSON.stringify([...ids]));
  renameSync(file + ".tmp", file);
  written = ids.size;
};
process.on("exit", dump);
setInterval(dump, 20).unref();
