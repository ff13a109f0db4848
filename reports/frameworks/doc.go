// Package frameworks holds the four framework judgements
// (reports/frameworks/*.md) to their reports (*.json): every figure in a
// judgement and in the README's framework table is rendered from the JSON
// by this package (Figures, Table), never typed, and every failing
// requirement is listed in its judgement's failing table, labelled
// framework or glue as the report labels it (Check). The test fails when a
// committed text is stale; `go test ./reports/frameworks -update` rewrites
// the generated blocks. It serves the glue label of PROTOCOL.md §15.
package frameworks
