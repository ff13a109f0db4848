// Package features embeds the conformance scenarios: one Gherkin file per
// area, every scenario tagged with the requirement IDs it proves (@TA-01)
// and its level (@must, @should, @may). `conform run` runs these unless
// told to run other files.
package features

import "embed"

// FS holds every .feature file of this folder.
//
//go:embed *.feature
var FS embed.FS
