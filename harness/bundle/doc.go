// Package bundle writes, reads and replays repro bundles: everything needed
// to reproduce one failing or erroring scenario on another machine.
//
// A bundle is a folder holding
//
//   - scenario.feature: the scenario as a standalone feature file, exactly as
//     it ran (background steps first, an outline's example row filled in),
//     tagged as it was, so that `conform run --features` runs it alone;
//   - exchange.jsonl: the complete recorded message exchange, one JSON object
//     per line, both directions, with payloads and timestamps;
//   - stderr.txt: what the kernel wrote to stderr while it ran the scenario;
//   - bundle.json: the manifest (spec/bundle.schema.json): conform, protocol
//     and catalog versions, the command line, the kernel's name, version,
//     declared capabilities and readings, the scenario's outcome and checks,
//     what the stderr holds (complete or not), and the seed of a fuzz case.
//
// Every string written passes through the environment redactor, so a secret
// of the machine that wrote the bundle does not travel with it.
//
// Replay re-runs the bundle's scenario against a kernel and says whether the
// outcome is the same (same scenario status, same check outcomes in the same
// order); Show prints the exchange as a transcript a person reads.
//
// It serves the CI workflow of issue 14 and, through the scenario it
// replays, whichever requirements that scenario proves.
package bundle
