// Package report turns scenario outcomes into requirement verdicts and writes
// them as reports.
//
// The runner hands Build one ScenarioResult per executed Gherkin scenario,
// each naming the requirement IDs its tags claim to prove. Build folds those
// outcomes into one verdict per catalog requirement (pass, fail, error,
// skipped, unverifiable or not_tested), counts them per area and computes the
// compliance level a kernel has earned. The aggregation rules are the
// product's honesty rules and are spelled out on Build: a requirement nobody
// tested is never a pass, a MUST is never skipped, and what cannot be seen
// from outside the kernel is never counted as a pass either.
//
// The writers render one Report for different readers:
//
//   - WriteJSON: the machine-readable report, described by
//     spec/report.schema.json (ValidateJSON checks a report against it);
//   - WriteJUnit: JUnit XML for CI test-result viewers, one testcase per
//     scenario;
//   - WriteMarkdown: a CI step summary for people, with a Mermaid sequence
//     diagram of each failing scenario's exchange;
//   - WriteHTML: one self-contained page for people, its sequence diagrams
//     drawn as inline SVG (package diagram);
//   - WriteBadge and WriteBadgeJSON: a README badge, as SVG or as a
//     shields.io endpoint document (spec/badge.schema.json);
//   - WriteText: the terminal summary the CLI prints at the end of a run.
//
// A kernel that adapts a framework may label requirements glue (its
// adapter's own code decides them, PROTOCOL.md §15). Every writer shows the
// label and its reason, and counts a glue failure apart, as "fail (glue)",
// never among the loop's failures (Summary.GlueFail, glue.go).
//
// Every writer names the conform that made the report and the suite it ran
// (Tool: version, commit, suite digest; package harness/provenance), and
// SuiteDigestOf reads the digest back from a file of any of those formats
// (conform report check). The people's writers fold failing checks that say
// the same thing in several scenarios into one, naming the scenarios, and
// count partial passes in a column of their own.
//
// Report.Failing gives the requirements that should fail a CI gate at a
// chosen level; a glue failure still gates (the kernel under test is the
// adapter).
package report
