package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"
)

func renderHTML(t *testing.T, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// voidElements have no end tag in HTML.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// checkBalanced reads doc with the HTML tokenizer: it starts with the
// doctype, every element that is not void is closed, in order, and only SVG
// elements close themselves.
func checkBalanced(t *testing.T, doc []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(doc))
	var stack []string
	first := true
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatalf("HTML tokenizer: %v", z.Err())
			}
			if len(stack) > 0 {
				t.Errorf("elements never closed: %v", stack)
			}
			return
		}
		name, _ := z.TagName()
		switch tt {
		case html.DoctypeToken:
			if !first || string(z.Text()) != "html" {
				t.Errorf("doctype %q not first", z.Text())
			}
		case html.StartTagToken:
			if !voidElements[string(name)] {
				stack = append(stack, string(name))
			}
		case html.SelfClosingTagToken:
			if !inSVG(stack) {
				t.Errorf("<%s/> closes itself outside SVG", name)
			}
		case html.EndTagToken:
			if len(stack) == 0 || stack[len(stack)-1] != string(name) {
				t.Fatalf("</%s> does not close the open element (open: %v)", name, stack)
			}
			stack = stack[:len(stack)-1]
		}
		first = first && (tt == html.TextToken && strings.TrimSpace(string(z.Text())) == "")
	}
}

func inSVG(stack []string) bool {
	for _, s := range stack {
		if s == "svg" {
			return true
		}
	}
	return false
}

// Elements and attributes that load or run something; none may appear.
var (
	fetchingElements = map[string]bool{"script": true, "link": true, "iframe": true, "frame": true, "object": true,
		"embed": true, "img": true, "image": true, "audio": true, "video": true, "source": true, "base": true,
		"use": true, "foreignobject": true, "portal": true, "applet": true, "track": true, "picture": true}
	urlAttributes = map[string]bool{"href": true, "src": true, "srcset": true, "action": true, "formaction": true,
		"poster": true, "data": true, "background": true, "ping": true, "manifest": true, "cite": true,
		"longdesc": true, "codebase": true, "usemap": true, "imagesrcset": true}
	externalURL = regexp.MustCompile(`(?i)^\s*([a-z][a-z0-9+.-]*:|//|\\\\)`)
	cssFetch    = regexp.MustCompile(`(?i)url\s*\(|@import|@font-face|image-set\s*\(|src\s*:`)
)

// externalProblems walks the parsed page and names every way it could
// load or run something: an element that fetches or runs, a URL attribute
// that is not a fragment of the page itself, a stylesheet that fetches, an
// event handler, and a missing Content-Security-Policy that forbids every
// fetch and script.
func externalProblems(doc *html.Node) []string {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	csp := false
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			if fetchingElements[n.Data] {
				bad("page holds a <%s> element", n.Data)
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				switch {
				case key == "xmlns" && a.Val == "http://www.w3.org/2000/svg":
					// A namespace name, never fetched.
				case urlAttributes[key] || a.Namespace == "xlink":
					if !strings.HasPrefix(a.Val, "#") {
						bad("<%s %s=%q> points outside the page", n.Data, a.Key, a.Val)
					}
				case strings.HasPrefix(key, "on"):
					bad("<%s> has an event handler %s", n.Data, a.Key)
				case key == "style" && cssFetch.MatchString(a.Val):
					bad("<%s style=%q> fetches", n.Data, a.Val)
				case key == "http-equiv" && strings.EqualFold(a.Val, "refresh"):
					bad("page refreshes itself")
				case externalURL.MatchString(a.Val) && key != "content":
					bad("<%s %s=%q> holds a URL", n.Data, a.Key, a.Val)
				}
				if key == "http-equiv" && strings.EqualFold(a.Val, "Content-Security-Policy") {
					for _, b := range n.Attr {
						csp = csp || b.Key == "content" && strings.Contains(b.Val, "default-src 'none'") && !strings.Contains(b.Val, "script-src")
					}
				}
			}
			if n.Data == "style" {
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if cssFetch.MatchString(c.Data) {
						bad("stylesheet fetches: %q", cssFetch.FindString(c.Data))
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if !csp {
		bad("page has no Content-Security-Policy forbidding every fetch and script")
	}
	return problems
}

func checkSelfContained(t *testing.T, doc *html.Node) {
	t.Helper()
	for _, p := range externalProblems(doc) {
		t.Error(p)
	}
}

// htmlShape parses doc and returns every element with its attributes, in
// document order, and every text and attribute value as a reader gets it.
func htmlShape(t *testing.T, doc []byte) (shape []string, texts []string, root *html.Node) {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("HTML does not parse: %v", err)
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			s := "<" + n.Data
			for _, a := range n.Attr {
				s += fmt.Sprintf(" %s:%s=%q", a.Namespace, a.Key, a.Val)
				texts = append(texts, a.Val)
			}
			shape = append(shape, s)
		case html.TextNode:
			texts = append(texts, n.Data)
		case html.CommentNode:
			t.Errorf("page holds a comment %q", n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return shape, texts, root
}

// svgBlocks returns every <svg>…</svg> of the page as written.
func svgBlocks(doc []byte) [][]byte {
	var out [][]byte
	for {
		i := bytes.Index(doc, []byte("<svg "))
		if i < 0 {
			return out
		}
		j := bytes.Index(doc[i:], []byte("</svg>"))
		if j < 0 {
			return append(out, doc[i:])
		}
		out = append(out, doc[i:i+j+len("</svg>")])
		doc = doc[i+j+len("</svg>"):]
	}
}

// checkXML decodes doc as XML from start to end.
func checkXML(t *testing.T, what string, doc []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v\n%s", what, err, doc)
		}
	}
}

// checkHTML: whatever the kernel says (text, in every field of
// hostileReport), the page is well-formed, loads nothing, has exactly the
// elements and attributes it has for a benign kernel, and shows the
// kernel's text as text, without secrets or raw control characters. An
// empty text is compared with an empty one: saying nothing leaves sections
// out (no failure text, no error answer), which is not an injection.
func checkHTML(t *testing.T, text, inCode string) {
	t.Helper()
	benign := "plain"
	if text == "" {
		benign = ""
	}
	doc := renderHTML(t, hostileReport(text))
	checkBalanced(t, doc)
	got, texts, root := htmlShape(t, doc)
	checkSelfContained(t, root)
	want, _, _ := htmlShape(t, renderHTML(t, hostileReport(benign)))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kernel text changed the page's elements or attributes (-benign +hostile):\n%s", diff)
	}
	found := inCode == ""
	for _, s := range texts {
		if what, bad := badRune(s); bad {
			t.Errorf("page text holds %s once parsed: %q", what, s)
		}
		noSecret(t, "parsed HTML", s)
		found = found || strings.Contains(s, inCode)
	}
	if !found {
		t.Errorf("%q is not shown as text", inCode)
	}
	svgs := svgBlocks(doc)
	if len(svgs) != 2 {
		t.Errorf("%d sequence diagrams, want 2 (the failing and the erring scenario)", len(svgs))
	}
	for _, s := range svgs {
		checkXML(t, "inline SVG", s)
	}
	if t.Failed() && len(doc) < 1<<20 {
		t.Logf("HTML:\n%s", doc)
	}
}

// mermaidBlock matches a Mermaid code block of the Markdown report.
var mermaidBlock = regexp.MustCompile("(?s)\n```mermaid\n(.*?)```\n")

// mermaidLine is every line a diagram may hold: its header, a participant
// of the fixed set, an arrow between two of them or a note, each text only
// plain characters and entity codes.
var mermaidLine = regexp.MustCompile(`^(sequenceDiagram|    participant [KCMTHFRX] as [a-z ]+|    [KCMTHFRX](->>|-->>|--\)|--x|-x)[KCMTHFRX]: (?:[A-Za-z0-9 .,_\-+=()\[\]/!?@]|#[0-9]+;)+|    Note (over [KCMTHFRX](,[KCMTHFRX])?|right of [KCMTHFRX]): (?:[A-Za-z0-9 .,_\-+=()\[\]/!?@]|#[0-9]+;)+)$`)

// checkMermaid: each failing or erring scenario's diagram is in a mermaid
// code block of its own, and kernel text never leaves its message.
func checkMermaid(t *testing.T, r *Report) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	blocks := mermaidBlock.FindAllStringSubmatch(buf.String(), -1)
	if len(blocks) != 2 {
		t.Fatalf("%d Mermaid blocks, want 2", len(blocks))
	}
	for _, b := range blocks {
		lines := strings.Split(strings.TrimSuffix(b[1], "\n"), "\n")
		for _, l := range lines {
			if !mermaidLine.MatchString(l) {
				t.Errorf("Mermaid line outside the grammar: %q", l)
			}
		}
		// Header, participants (kernel, model, tools, hooks, recorder,
		// harness), the note on what was left out (the failing scenario's
		// only), 9 arrows and the note on the request never answered.
		if n := len(lines); n != 1+6+9+1 && n != 1+6+1+9+1 {
			t.Errorf("Mermaid block of %d lines:\n%s", n, b[1])
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	r := richReport()
	doc := renderHTML(t, r)
	checkBalanced(t, doc)
	_, _, root := htmlShape(t, doc)
	checkSelfContained(t, root)
	for _, s := range svgBlocks(doc) {
		checkXML(t, "inline SVG", s)
	}
}

// TestHTMLCheckerCatchesExternalReferences: the check above finds what it
// looks for, so its silence on the report means something.
func TestHTMLCheckerCatchesExternalReferences(t *testing.T) {
	for _, bad := range []string{
		`<img src="x.png">`, `<a href="https://example.com">x</a>`, `<a href="//example.com">x</a>`,
		`<link rel="stylesheet" href="s.css">`, `<script>1</script>`, `<style>@import "x.css";</style>`,
		`<style>@font-face{src:url(f.woff)}</style>`, `<div style="background:url(x.png)"></div>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><image href="x.png"/></svg>`, `<b onclick="x()">b</b>`,
	} {
		doc := []byte(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body>` + bad + `</body></html>`)
		_, _, root := htmlShape(t, doc)
		if len(externalProblems(root)) == 0 {
			t.Errorf("checkSelfContained accepts %s", bad)
		}
	}
}
