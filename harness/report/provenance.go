package report

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
)

// toolText names the conform and the suite that made a report, for
// people: "conform 0.1.0, commit 1a2b3c4d5e6f, suite sha256:0123456789ab"
// (the digest cut to 12 hex digits; the JSON report has it whole).
func toolText(t Tool) string {
	name := strings.TrimSpace(t.Name + " " + t.Version)
	if name == "" {
		name = "conform"
	}
	commit, suite := "unknown", "unknown"
	if t.Commit != "" {
		commit = t.Commit
	}
	if t.SuiteDigest != "" {
		suite = shortDigest(t.SuiteDigest)
	}
	return name + ", commit " + commit + ", suite " + suite
}

func shortDigest(d string) string {
	if h, ok := strings.CutPrefix(d, "sha256:"); ok && len(h) > 12 {
		return "sha256:" + h[:12]
	}
	return d
}

// provenanceToken is t's version, commit or digest reduced to the
// characters those have, for the places a reader of the file (not of the
// page) looks: a Markdown comment, an SVG comment, an HTML meta element.
// A report read back from JSON may carry anything there.
func provenanceToken(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(".:+-_", r) {
			return r
		}
		return -1
	}, s)
}

// provenanceLine is the whole provenance on one line of tokens:
// "conform 0.1.0 commit 1a2b3c4d5e6f suite-digest sha256:<64 hex>", for the
// HTML page's generator meta element and the SVG badge's comment, where
// SuiteDigestOf finds it.
func provenanceLine(t Tool) string {
	tok := func(s string) string {
		if s = provenanceToken(s); s == "" {
			return "unknown"
		}
		return s
	}
	return "conform " + tok(t.Version) + " commit " + tok(t.Commit) + " suite-digest " + tok(t.SuiteDigest)
}

// The places SuiteDigestOf reads a digest from, one per format. Each is
// written by conform before or apart from any kernel text, and no kernel
// text can forge it: the writers escape "<" and "\"" in HTML, SVG and XML,
// and "|" and line breaks in a Markdown table cell.
var (
	digestHTML     = regexp.MustCompile(`<meta name="generator" content="conform [^"<>]* suite-digest (sha256:[0-9a-f]{64})">`)
	digestSVG      = regexp.MustCompile(`<!-- conform [^<>]* suite-digest (sha256:[0-9a-f]{64}) -->`)
	digestJUnit    = regexp.MustCompile(`<property name="conform\.suite_digest" value="(sha256:[0-9a-f]{64})"`)
	digestMarkdown = regexp.MustCompile("(?m)^\\| Suite digest \\| `(sha256:[0-9a-f]{64})` \\|$")
)

// ErrNoProvenance means a file is a report of a kind that names no suite
// digest: written before reports carried one, or a shields.io endpoint
// document, which has no room for one.
var ErrNoProvenance = errors.New("names no suite digest")

// SuiteDigestOf reads the suite digest a report file names, whichever
// format conform wrote it in (JSON, Markdown, HTML, JUnit XML or SVG
// badge), and says which format it took the file for. A file that names
// none gives ErrNoProvenance.
func SuiteDigestOf(data []byte) (digest, format string, err error) {
	trimmed := strings.TrimSpace(string(data))
	var re *regexp.Regexp
	switch {
	case strings.HasPrefix(trimmed, "{"):
		var doc struct {
			Tool          *Tool `json:"tool"`
			SchemaVersion *int  `json:"schemaVersion"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return "", "JSON", err
		}
		switch {
		case doc.Tool != nil && doc.Tool.SuiteDigest != "":
			return doc.Tool.SuiteDigest, "JSON report", nil
		case doc.Tool != nil:
			return "", "JSON report", ErrNoProvenance
		case doc.SchemaVersion != nil:
			return "", "badge endpoint JSON", errors.New("is a shields.io endpoint document, which has no room for a suite digest (shields.io refuses unknown keys): check the report it was made from")
		}
		return "", "JSON", errors.New("is not a conform report")
	case strings.HasPrefix(trimmed, "<svg"):
		format, re = "SVG badge", digestSVG
	case strings.HasPrefix(trimmed, "<!DOCTYPE html"):
		format, re = "HTML", digestHTML
	case strings.HasPrefix(trimmed, "<?xml") && strings.Contains(trimmed, "<testsuites"):
		format, re = "JUnit XML", digestJUnit
	case strings.HasPrefix(trimmed, "# Conformance report"):
		format, re = "Markdown", digestMarkdown
	default:
		return "", "", errors.New("is not a report conform writes (JSON, Markdown, HTML, JUnit XML or SVG badge)")
	}
	if m := re.FindStringSubmatch(string(data)); m != nil {
		return m[1], format, nil
	}
	return "", format, ErrNoProvenance
}
