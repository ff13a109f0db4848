// Package mutation measures how many plausible bugs in the reference
// kernel's own code the conformance suite catches (issue 12, §3). It
// enumerates mutants of every refkernel package on go/ast, one small edit
// each — conditional boundaries (< <-> <=, > <-> >=), negated conditions
// (== <-> !=, if c -> if !(c)), removed expression statements (calls,
// receives), swapped arithmetic (+ <-> -, * <-> /, their assignments,
// ++ <-> --), integer constants off by one, dropped assignments, and range
// loops cut to their first element — and judges each by the suite, never by
// the package's unit tests: the conform CLI is built with mutated files
// laid over the real ones (`go build -overlay`, so the working tree is
// never written), and `conform run --require all` runs against its embedded
// kernel, restricted to the scenarios that execute the mutated statement
// (scenarios.go): before judging, each scenario runs alone on a coverage
// build of the unmutated kernel, and a mutant is judged by the scenarios
// whose coverage holds its statement (for a case expression, which
// coverage does not count, those that run its function) — every other
// scenario runs the mutant exactly as it runs the original, so no whole-
// suite run is needed to call it a survivor. A copy of the feature files
// gives each scenario a tag of its own, so such a run sets up only the
// scenarios it runs. A mutant of a package-level constant or variable is
// judged by the scenarios that execute a use of what it declares
// (declreach.go), through the constants it feeds, when every use is in a
// function of the tree. A mutant outside any function otherwise (a
// declaration every scenario may depend on), and every mutant with
// -per-scenario=false, is judged as before: by the scenarios tagged with
// the requirement IDs its package's doc.go names, then, if they let it
// through, by the whole suite. Each run stops
// at its first failure (conform run --fail-fast: a kill needs one); when
// that failure does not come back on its own scenarios, the run may have
// stopped before a real one, so the same scenarios run again to the end.
// A mutant no scenario executes is never built: it is not viable if
// go/types refuses it, a survivor not reached otherwise.
//
// Builds are mutant schemata (schema.go, schema_build.go): instead of one
// build per mutant, each mutated file is rewritten so that every mutant of
// a group of non-overlapping ones sits behind a switch —
// `(func() T { if conformMutantOn(N) { return <mutated> }; return <orig> }())`
// for a comparison, an arithmetic expression or a constant (T from
// go/types; a literal inside a constant expression switches the whole
// constant expression, both sides computed exactly at compile time), `if !conformMutantOn(N) { <stmt> }` for a removed statement,
// `if conformMutantOn(N) { x-- } else { x++ }` for a swapped ++ or op=,
// `; if conformMutantOn(N) { break }` where a cut loop's break goes — and
// one small added file per package reads the switch, the environment
// variable CONFORM_MUTANT, once; with no switch every site is the
// original. Nested mutants go to different programs (one group per file
// per program), so a campaign of the reference kernel compiles a handful of
// programs and runs each mutant with CONFORM_MUTANT set to its index. A
// mutant is built alone, exactly as before, when the schema cannot hold it
// safely: it sits in a slot that takes a simple
// statement only (except a for loop's post statement and an if, switch or
// for init statement that declares nothing: those become a called
// function literal holding the switched statement), it removes a panic,
// it is in a package-level constant that some use cannot take as a
// variable (an array length, a constant expression, an untyped constant
// made another type, another constant fed or repeated; where every use
// can, the constant is renamed and a variable of its name holds its value
// or the mutated one, set when the program starts, so such a mutant runs
// as a process of its own, never on a judging server), its type cannot be
// named in its file, it calls
// recover, or the type checker or the compiler refuses its rewritten site
// (the site is taken out and the schema checked again, a bounded number of
// times). A mutant go/types refuses alone is not viable without a build
// (a build that can only fail costs seconds; make mutation-compare checks
// against builds that the verdicts agree). -alone builds every mutant
// alone, and judges a mutant that does not compile by its failed build.
// Measured from scratch at -j 6 on 2 cores, before per-scenario reach:
// 1648 mutants, 127 programs built (4 schema builds), 32.5 min of wall
// time and 11,268 s of worker time with --fail-fast judging (48 min and
// 16,880 s without it, under load), against about 65 min and 25,097 s
// (8,966 s of it building) with one build per mutant. With per-scenario
// reach, on a seeded sample at load 45-85: 2.5 CPU s per judged mutant
// (mean; median 1.3 s) plus 189 CPU s of setup once, against about 17.5
// CPU s per mutant built alone with the old scope (README, Mutation
// testing). The report carries the campaign's CPU time (cpu_s) and each
// mutant's (cpu_ms).
//
// The per-run timeout is derived from the unmutated scenarios' own times,
// measured in the coverage runs (timeout.go, runTimeout): 5x the longest
// reaching scenario's wall time plus the others' CPU time shared by the
// cores, that second part stretched by jobs/(2*cores), at least a minute; a
// package-level mutant's runs take the whole suite's, and without
// per-scenario reach the unmutated suite's run decides as before
// (timeoutFor); -timeout overrides both. A hung mutant reached by a few
// one-second scenarios is thus given up after a minute, not after 5x a suite
// that ER-01's minute of retries bounds. The mutants expected to run
// longest (by the same times) are judged first, the @slow scenarios'
// coverage runs start first, and the unmutated suite runs beside them.
// The mutants an earlier campaign's report (-order-from) says timed out
// are judged at once by workers of their own beside the -j jobs: a hang
// holds its worker for three timeouts and uses no CPU (order.go). So are
// the mutants expected to take at least 30 s (ER-01's minute of backoff
// reaches them), by as many workers again as -j: a survivor among them
// waits that minute out on little CPU.
//
// What a judged run costs is mostly conform's own start (about 0.3 CPU s
// against some 17 ms per scenario in a whole-suite run), so a schema
// program's runs go through judging servers (judgeserver.go, -serve): the
// program, started once, serves run after run in one process with the
// switch set for each, and one whose run left anything behind is never
// used again. Each run is
// given only the feature files of its scenarios (conform parses every file
// it is given three times before it runs one), its conform starts without
// the go command on PATH (godog's builder package runs go env in its
// init), and every program is linked without symbol table and DWARF. The
// report's cpu_s splits the campaign's CPU time: coverage, baseline,
// schema and alone builds, and the judged runs by verdict.
//
// Verdicts: killed (a requirement of any profile fails or errs in the run's
// JSON report, and fails again when its scenarios run a second time),
// crashed (the in-process kernel panicked), timeout (no verdict within the
// per-run timeout, twice: a run that times out runs once more with twice
// the time, and that run's verdict counts, so a slow but correct run on a
// loaded machine is no kill; or, once, more CPU time than its budget: 5x
// what its reaching scenarios used against the unmutated kernel, at least
// 15 s, since CPU time does not grow with the machine's load), survived (nothing failed), not viable (does not
// compile; excluded from scores). A survivor is either classified in the
// committed list (survivors.json: equivalent; a legal variant, a correct
// kernel that declares what it does because the mutated value also feeds
// a reading it declares; not observable over the wire, naming the clause
// it would break; or a reading the specification leaves open) or reported
// as unclassified. The list may also record a survivor as
// needs_check, naming the requirement it breaks and the scenario that would
// kill it: a known hole, not an acceptance, so it still counts against the
// score until the check exists.
//
// Scores: the strict score is kills over viable mutants that are neither
// equivalent nor legal variants; the spec score, the figure the 90% target
// applies to, also leaves out the open readings (a mutant that implements a reading the
// specification leaves open is equivalent with respect to it; killing it
// would fail a correct kernel). Not observable survivors count against
// both. The report names the packages below the target on the strict
// score.
//
// A campaign may carry verdicts from an earlier one (carry.go) where the
// mutated declaration is byte for byte unchanged (kills, mutants that do
// not compile, equivalent survivors; every other survivor is judged again,
// since a new check or reading may kill it), and judges a seeded sample of
// the carried kills again to measure how far they still hold (a campaign
// from scratch found five carried kills that no longer held);
// -only judges the mutants at given places, for the author of a new check.
//
// Why not github.com/go-gremlins/gremlins (v0.6.0, evaluated for this):
// it judges a mutant by `go test` of the mutated package (or of the whole
// module with --integration) with no way to select tests, so a mutant
// would be judged by the package's own unit tests, not by the conformance
// scenarios of the requirements the package serves; it only tests mutants
// its coverage run reached; its operators are token swaps only (no removed
// statements, no constants off by one, no dropped assignments, no cut
// loops); and it mutates files in per-worker copies of the module rather
// than through an overlay.
//
// The reference plugins (plugin.go, issue 30; cmd/mutate -tree refplugin,
// make mutation-plugins) are judged the same way by conform plugin instead
// of conform run. PluginUnits maps each plugin package to the plugin
// binaries that link it (go list -deps of each main): the model provider
// (refmodel, checked with --require all), the context provider
// (refcontext, --category context at should and, as its legal variant
// -compactor, at all), the memory provider (refmemory, plain and -ratify,
// at all) and the tool provider (refplugin, --allow-effects in a fresh
// scratch folder, --process-backed exec, at all). A package is judged by
// the unit that owns it, and its survivors by every other unit that links
// it in turn (the shared refplugin package, refkit); the kill matrices'
// helpers (refkit/matrix, */mutants) are linked by no plugin and are not
// mutated. Schema builds work as for the kernel: the plugin is launched
// with PATH, HOME and TMPDIR only, so CONFORM_MUTANT reaches it through
// conform plugin's own --env flag. Every run has a fixed --seed (default
// 1), so judging is reproducible; a mutant the first seed lets through is
// confirmed under the next (-plugin-seeds, default 1,2). Verdicts are the
// kernel's: killed when a requirement of any level fails or errs in the
// JSON report (a plugin that crashes makes its checks err), crashed,
// timeout; a plugin that cannot be launched or configured at all (exit
// status 2) twice in a row is killed. Reach is one coverage build of the
// plugin's main run under every invocation and seed (GOCOVERDIR handed
// over with --env); per-scenario reach does not apply, since a plugin
// check has no scenarios, so every reached mutant is judged by the whole
// check. A kill is reproduced by running the invocations again
// (-plugin-reproduce).
//
// Kernels built on the mutated tree (kitkernel.go, issue 29; cmd/mutate
// -tree kernelkit, make mutation-kernelkit): the reference kernel runs only
// kernelkit's wire layer, so a kit's survivors of the embedded kernel are
// judged again against each KitKernels main (examples/kitloop, a loop on
// every helper the kit exports), served by `conform run --kernel` with the
// schema switch and the coverage folder handed over with --env. Such a
// kernel need not pass the whole suite: per-scenario reach is measured on
// its own coverage build, and every scenario it fails unmutated, alone or
// in a whole-suite run, is taken out of reach (baseline difference), so a
// mutant is judged only by scenarios that pass without it and any failure
// of one is the mutant's.
//
// This package serves no requirement ID itself: it measures the suite's
// power over all of them.
package mutation
