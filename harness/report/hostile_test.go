package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// These tests feed strings a hostile kernel could send through every writer,
// in every field a kernel controls, and check what a reader of each format
// would see. They use only the writers' public functions and the process
// environment, so that they hold for the code path the CLI takes.

// The fake secrets a CI job might hold in its environment. The second one is
// full of characters JSON escapes, since the message log holds JSON lines.
const (
	secretTokenName = "CONFORM_HOSTILE_API_TOKEN"
	secretToken     = "tok-7Hq2xR9vLmZ3"
	secretPassName  = "CONFORM_HOSTILE_DB_PASSWORD"
	secretPass      = `pw"9Kd&<q>w`
)

// fakeLie is what a kernel would like a reader to believe.
const fakeLie = "**Compliance: compliant at every level**"

// hostile pairs each hostile string with a piece of it that must reach the
// reader as plain text inside a code block (empty when there is none worth
// checking).
var hostile = []struct{ name, text, inCode string }{
	{"bare CR then bold", "kernel exited: status 2\r" + fakeLie + "\r<img src=http://x>", fakeLie},
	{"CRLF then markdown blocks", "oops\r\n\r\n---\r\n# Injected heading\r\n> quote\r\n- list item\r\n1. item", "# Injected heading"},
	{"raw HTML", `<img src=http://x/a.png onerror=alert(1)> <script>alert(1)</script> <b>bold</b> <!-- c -->`, "<script>alert(1)</script>"},
	{"links and images", "![pwned](http://x/y.png) [click](http://x) <http://x> www.example.com http://example.com a@b.example", "![pwned](http://x/y.png)"},
	{"backtick runs longer than the fence", "``````\n# Injected heading\n``````\n~~~\n" + fakeLie, fakeLie},
	{"emphasis, strike, entities, pipes", "_e_ *e* __s__ ~~strike~~ `code` \\ &amp; &lt;b&gt; | cell | x |\n|---|---|", "~~strike~~"},
	{"ANSI colour", "\x1b[31mred\x1b[0m text", ""},
	{"clear screen and cursor moves", "\x1b[2J\x1b[H\x1b[1A\x1b[2K\x1b7\x1b8 cleared", ""},
	{"OSC window title", "\x1b]0;pwned\x07 title \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", ""},
	{"BEL BS NUL DEL", "bell\x07 back\x08\x08 nul\x00 del\x7f vt\v ff\f", ""},
	{"C1 controls", "csi\u009b31m nel\u0085next st\u009c", ""},
	{"Unicode line separators", "line\u2028" + fakeLie + "\u2029para", ""},
	{"bidi override", "status \u202eliaf\u202c \u2066x\u2069", ""},
	{"invalid UTF-8", "bad \xff\xfe \xc3( \xed\xa0\x80 end", ""},
	{"secret", "env: " + secretTokenName + "=" + secretToken + " pass " + secretPass, ""},
	{"secret past the note's cut", strings.Repeat("x", 110) + secretToken, ""},
}

// hostileReport puts text into every string a kernel controls: its name,
// version, capabilities, readings, the failure and error texts, the skip and
// unverifiable reasons and the message log (raw and JSON-encoded, as a wire
// log holds it).
func hostileReport(text string) *Report {
	enc, _ := json.Marshal(map[string]string{"message": text})
	k := Kernel{
		Name: text, Version: text,
		Capabilities: []string{text, "bound.max_cost_usd"},
		Readings:     map[string]string{"doomloop.window": text},
		Command:      "kernel --token " + text,
	}
	scs := []ScenarioResult{
		{File: "features/turn.feature", Line: 10, Name: "steps run in order", Tags: []string{"@TA-01"}, Status: Pass},
		{File: "features/turn.feature", Line: 40, Name: "max_turns " + text, Tags: []string{"@TA-02"}, Status: Fail,
			Failure: text, Log: []string{"← " + string(enc), text}, Duration: time.Millisecond},
		{File: "features/cost.feature", Line: 5, Name: "cost cap", Tags: []string{"@TA-03"}, Status: Error, Failure: text, Log: []string{text}},
		{File: "features/hooks.feature", Line: 7, Name: "observers", Tags: []string{"@HD-07"}, Status: Skipped, Failure: text},
		{File: "features/hooks.feature", Line: 20, Name: "hidden channel", Tags: []string{"@HD-01"}, Status: Unverifiable, Failure: text},
	}
	// The failing scenario's check, observation and recorded exchange say
	// it too; so does the erring one's exchange, and a warning.
	scs[1].Checks = []CheckResult{{Step: "the kernel ran 1 ordinary turns", Line: 41, Requirements: []string{"TA-02"}, Status: Fail, Message: text}}
	scs[1].Observations = []Observation{{Subject: "A-05", Scenario: "features/turn.feature:40", What: text}}
	scs[1].Exchange, scs[1].ExchangeOmitted = hostileExchange(text), 3
	scs[2].Exchange = hostileExchange(text)
	r := Build(testCatalog(), k, scs, started, time.Second)
	r.Protocol = "conform.wire/v1"
	r.Warnings = []string{"unknown capability " + text}
	return r
}

// hostileExchange puts text into every string of a recorded message a
// kernel controls, in every kind of arrow a diagram draws.
func hostileExchange(text string) []Message {
	at := func(v float64) *float64 { return &v }
	return []Message{
		{Seq: 1, AtMS: 1, DoneMS: at(2), Kind: "request", Method: "model/stream", Session: text, Label: "model/stream"},
		{Seq: 3, AtMS: 3, DoneMS: at(4), Kind: "request", Method: "tool/invoke", Session: text, Label: "invoke " + text},
		{Seq: 5, AtMS: 5, DoneMS: at(6), Kind: "request", Method: "hook/dispatch", Label: "hook pre-tool-call " + text, Error: text},
		{Seq: 7, AtMS: 7, Kind: "notification", Method: "event", Label: "event " + text},
		{Seq: 8, AtMS: 8, Kind: "request", Method: text, Label: text, Unanswered: true},
		{Seq: 9, AtMS: 9, Kind: "harness", Method: "session/spawn", Session: text, Label: "harness spawns " + text, Error: text},
	}
}

func setSecrets(t *testing.T) {
	t.Setenv(secretTokenName, secretToken)
	t.Setenv(secretPassName, secretPass)
}

// noSecret fails when out holds a secret, in full or cut (the first half is
// enough to be a leak), raw or JSON-escaped.
func noSecret(t *testing.T, format, out string) {
	t.Helper()
	for _, s := range []string{secretToken, secretPass} {
		enc, _ := json.Marshal(s)
		for _, form := range []string{s, s[:len(s)/2], strings.Trim(string(enc), `"`)} {
			if strings.Contains(out, form) {
				t.Errorf("%s output holds the secret (%q)", format, form)
			}
		}
	}
}

// badRune reports the first rune that must not reach a reader raw: an
// invalid byte, a control character other than \n and \t, a line or
// paragraph separator, or a bidi control that reorders what is shown.
func badRune(s string) (string, bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("invalid UTF-8 byte %#x", s[i]), true
		case r == '\n' || r == '\t':
		case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r), unicode.Is(unicode.Bidi_Control, r):
			return fmt.Sprintf("%U", r), true
		}
		i += size
	}
	return "", false
}

func TestHostileText(t *testing.T) {
	setSecrets(t)
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			r := hostileReport(h.text)
			t.Run("terminal", func(t *testing.T) { checkText(t, r) })
			t.Run("markdown", func(t *testing.T) { checkMarkdown(t, r, h.inCode) })
			t.Run("junit", func(t *testing.T) { checkJUnit(t, r) })
			t.Run("html", func(t *testing.T) { checkHTML(t, h.text, h.inCode) })
			t.Run("mermaid", func(t *testing.T) { checkMermaid(t, r) })
			t.Run("badge", func(t *testing.T) { checkBadge(t, r) })
		})
	}
}

func checkText(t *testing.T, r *Report) {
	var buf bytes.Buffer
	if err := WriteText(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if what, bad := badRune(out); bad {
		t.Errorf("terminal output holds %s raw:\n%q", what, out)
	}
	noSecret(t, "terminal", out)
	// The kernel cannot add lines of its own: its text is either on a line
	// the harness started or on an indented continuation line.
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "conform: ") || strings.Count(out, "\nCompliance: ") != 1 ||
		!strings.HasPrefix(lines[len(lines)-1], "Compliance: ") {
		t.Errorf("kernel text changed the shape of the terminal summary:\n%s", out)
	}
}

func checkJUnit(t *testing.T, r *Report) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	noSecret(t, "JUnit", buf.String())
	var got xSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, buf.String())
	}
	// What a CI viewer shows after parsing must be as safe as the terminal.
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("JUnit token: %v", err)
		}
		var texts []string
		switch tok := tok.(type) {
		case xml.CharData:
			texts = append(texts, string(tok))
		case xml.StartElement:
			for _, a := range tok.Attr {
				texts = append(texts, a.Value)
			}
		}
		for _, s := range texts {
			if what, bad := badRune(s); bad {
				t.Errorf("JUnit text holds %s once parsed: %q", what, s)
			}
			noSecret(t, "parsed JUnit", s)
		}
	}
	if got.Tests != 5 || got.Failures != 1 || got.Errors != 1 || got.Skipped != 2 {
		t.Errorf("JUnit counts changed: %+v", got)
	}
}

var mdParser = goldmark.New(goldmark.WithExtensions(extension.GFM))

// forbidden are the node kinds no kernel text may produce: the writer itself
// never makes them.
var forbidden = map[ast.NodeKind]bool{
	ast.KindHTMLBlock: true, ast.KindRawHTML: true, ast.KindLink: true, ast.KindImage: true,
	ast.KindAutoLink: true, east.KindStrikethrough: true, east.KindTaskCheckBox: true,
}

// shape counts the node kinds of a Markdown document, except the text nodes
// whose number depends on the characters escaped.
func shape(t *testing.T, md []byte) (map[string]int, []string) {
	counts, code, _ := shapeEmph(t, md)
	return counts, code
}

// nodeText is the text under n as a reader sees it.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(src))
			case *ast.String:
				b.Write(c.Value)
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// shapeEmph is shape, plus the text of every emphasis node.
func shapeEmph(t *testing.T, md []byte) (map[string]int, []string, []string) {
	t.Helper()
	doc := mdParser.Parser().Parse(text.NewReader(md))
	counts := map[string]int{}
	var code, emph []string
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if forbidden[n.Kind()] {
			t.Errorf("kernel text made a %s node", n.Kind())
		}
		switch n.Kind() {
		case ast.KindText, ast.KindString:
			return ast.WalkContinue, nil
		case ast.KindEmphasis:
			emph = append(emph, nodeText(n, md))
		case ast.KindFencedCodeBlock:
			var b strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				b.Write(seg.Value(md))
			}
			code = append(code, b.String())
		}
		counts[n.Kind().String()]++
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts, code, emph
}

// rowWidths counts the cell separators of each table row: an unescaped pipe in
// kernel text would add a cell (which CommonMark drops silently).
var (
	lineEnd        = regexp.MustCompile(`\r\n|\r|\n`)
	requirementRow = regexp.MustCompile(`^\| (TA|HD)\\?-`)
)

func rowWidths(md string) map[int]bool {
	widths := map[int]bool{}
	for _, line := range lineEnd.Split(md, -1) {
		if requirementRow.MatchString(line) {
			n := 0
			for i := 0; i < len(line); i++ {
				switch line[i] {
				case '\\':
					i++
				case '|':
					n++
				}
			}
			widths[n] = true
		}
	}
	return widths
}

func checkMarkdown(t *testing.T, r *Report, inCode string) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	md := buf.Bytes()
	var benignBuf bytes.Buffer
	if err := WriteMarkdown(&benignBuf, hostileReport("plain")); err != nil {
		t.Fatal(err)
	}

	got, code, emph := shapeEmph(t, md)
	want, _ := shape(t, benignBuf.Bytes())
	for k, n := range want {
		if got[k] != n {
			t.Errorf("kernel text changed the document: %d %s nodes, want %d", got[k], k, n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("kernel text added %d %s nodes", n, k)
		}
	}
	if got, want := rowWidths(string(md)), rowWidths(benignBuf.String()); len(got) != 1 || len(want) != 1 || !cmp.Equal(got, want) {
		t.Errorf("requirement rows have cell separator counts %v, want %v", got, want)
	}
	// Goldmark, unlike CommonMark, does not end a line at a bare CR, so the
	// raw text is checked as well: a CR would end the line for GitHub.
	if what, bad := badRune(string(md)); bad {
		t.Errorf("Markdown holds %s raw", what)
	}
	if inCode != "" {
		found := false
		for _, c := range code {
			found = found || strings.Contains(c, inCode)
		}
		if !found {
			t.Errorf("%q did not stay inside a code block; code blocks: %q", inCode, code)
		}
	}
	for _, c := range code {
		if what, bad := badRune(c); bad {
			t.Errorf("code block holds %s raw: %q", what, c)
		}
	}

	var rendered bytes.Buffer
	if err := mdParser.Convert(md, &rendered); err != nil {
		t.Fatal(err)
	}
	seen := html.UnescapeString(rendered.String())
	noSecret(t, "Markdown", string(md))
	noSecret(t, "rendered Markdown", seen)
	if what, bad := badRune(seen); bad {
		t.Errorf("rendered Markdown holds %s raw", what)
	}
	for _, e := range emph {
		if strings.Contains(e, "compliant at every level") {
			t.Errorf("kernel text is rendered in bold: %q", e)
		}
	}
	if t.Failed() {
		t.Logf("Markdown:\n%s", md)
	}
}
