package runner

import (
	"bytes"
	"sync"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
)

// parsed holds every feature file this process has parsed, by content.
// conform run reads the suite several times before godog parses it once
// more (the selection check, LoadFeatures, Select, each reading every
// file), and a mutation campaign starts conform some 2,700 times (issue
// 25). A document is read, never changed, by its users; each is parsed with
// node IDs of its own, which is all they rely on (lines by node ID).
// At most maxParsed documents are kept: a fuzzer of the feature loader
// parses millions of contents in one process.
var (
	parsedMu sync.Mutex
	parsed   = map[string]parseResult{}
)

const maxParsed = 512

type parseResult struct {
	doc *messages.GherkinDocument
	err error
}

// parseGherkin is gherkin.ParseGherkinDocument of data, once per content.
func parseGherkin(data []byte) (*messages.GherkinDocument, error) {
	parsedMu.Lock()
	r, ok := parsed[string(data)]
	parsedMu.Unlock()
	if ok {
		return r.doc, r.err
	}
	doc, err := gherkin.ParseGherkinDocument(bytes.NewReader(data), (&messages.Incrementing{}).NewId)
	parsedMu.Lock()
	if len(parsed) < maxParsed {
		parsed[string(data)] = parseResult{doc, err}
	}
	parsedMu.Unlock()
	return doc, err
}
