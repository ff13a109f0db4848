package diagram

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostileTexts are labels, methods, sessions and errors a kernel controls.
var hostileTexts = []string{
	`<script>alert(1)</script><img src="http://x/a.png">`,
	`]]></text></g></svg><svg onload="alert(1)">`,
	"&amp; &lt; &#x3c; &unknown; \" ' `",
	"line\nbreak\r\nCRLF\rCR \x1b[2J\x07 \u2028 \u202e \xff\xfe",
	"%%{init: {'theme':'dark'}}%%\n```\n# heading; more #35; text: style:#f00;",
	strings.Repeat("long label ", 30),
}

// hostileMessages puts s in every string of every kind of message.
func hostileMessages(s string) []Message {
	return []Message{
		{Seq: 1, AtMS: 1, DoneMS: ms(2), Kind: KindRequest, Method: "model/stream", Label: s, Session: s},
		{Seq: 3, AtMS: 3, DoneMS: ms(4), Kind: KindRequest, Method: "tool/invoke", Label: s, Error: s},
		{Seq: 5, AtMS: 5, Kind: KindNotification, Method: s, Label: s},
		{Seq: 6, AtMS: 6, Kind: KindRequest, Method: s, Label: s, Unanswered: true},
		{Seq: 7, AtMS: 7, Kind: KindHarness, Method: "frontend/decide", Label: s, Error: s},
	}
}

// svgShape parses doc as XML (the whole document) and returns its element
// and attribute names in order, and every text and attribute value.
func svgShape(t *testing.T, doc []byte) (shape []string, texts []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth == 0 && tok.Name.Local != "svg" {
				t.Errorf("root element %q, want svg", tok.Name.Local)
			}
			depth++
			shape = append(shape, "<"+tok.Name.Local)
			for _, a := range tok.Attr {
				shape = append(shape, "@"+a.Name.Local)
				texts = append(texts, a.Value)
			}
		case xml.EndElement:
			depth--
			shape = append(shape, ">")
		case xml.CharData:
			texts = append(texts, string(tok))
		case xml.ProcInst, xml.Directive:
			t.Errorf("SVG holds %T %v", tok, tok)
		}
	}
	return shape, texts
}

func badRune(s string) (string, bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return fmt.Sprintf("invalid byte %#x", s[i]), true
		case r == '\n' || r == '\t':
		case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r), unicode.Is(unicode.Bidi_Control, r):
			return fmt.Sprintf("%U", r), true
		}
		i += size
	}
	return "", false
}

func renderSVG(t *testing.T, d *Diagram, opt SVGOptions) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := d.SVG(&buf, opt); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestSVGHostile: whatever the kernel says, the SVG is well-formed XML with
// the same elements and attributes as for a plain label, and what a viewer
// shows holds no control character.
func TestSVGHostile(t *testing.T) {
	for _, standalone := range []bool{false, true} {
		opt := SVGOptions{Standalone: standalone, Title: "scenario"}
		want, _ := svgShape(t, renderSVG(t, New(hostileMessages("plain"), 0), opt))
		for _, h := range hostileTexts {
			doc := renderSVG(t, New(hostileMessages(h), 0), SVGOptions{Standalone: standalone, Title: h})
			got, texts := svgShape(t, doc)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("label %q changed the SVG's elements or attributes:\n got %v\nwant %v", h, got, want)
			}
			for _, s := range texts {
				if what, bad := badRune(s); bad {
					t.Errorf("label %q: SVG text holds %s once parsed: %q", h, what, s)
				}
				if strings.Contains(s, "\n") && !strings.Contains(s, "svg.sd{") {
					t.Errorf("label %q: SVG text spans lines: %q", h, s)
				}
			}
		}
	}
}

// TestSVGTruncatesWithTooltip: a long label is cut on the arrow and whole
// in the row's title.
func TestSVGTruncatesWithTooltip(t *testing.T) {
	long := "invoke " + strings.Repeat("x", 200)
	d := New([]Message{{Seq: 1, AtMS: 1, DoneMS: ms(2), Kind: KindRequest, Method: "tool/invoke", Label: long}}, 0)
	_, texts := svgShape(t, renderSVG(t, d, SVGOptions{}))
	var titled, cut bool
	for _, s := range texts {
		titled = titled || strings.Contains(s, long)
		if strings.HasPrefix(s, "invoke xxx") && strings.HasSuffix(s, "…") {
			cut = true
			if n := utf8.RuneCountInString(s); n > maxLabel {
				t.Errorf("label of %d runes, want at most %d", n, maxLabel)
			}
		}
	}
	if !titled || !cut {
		t.Errorf("long label: in a title %v, cut on the arrow %v", titled, cut)
	}
}

// TestSVGTwoHundredMessages: the report keeps up to 200 messages; their
// diagram has one fixed-height row per arrow and lifeline names repeated
// every bandEvery rows.
func TestSVGTwoHundredMessages(t *testing.T) {
	var msgs []Message
	for i := range 200 {
		at := float64(i * 2)
		msgs = append(msgs, Message{Seq: 2*i + 1, AtMS: at, DoneMS: ms(at + 1), Kind: KindRequest, Method: "model/stream", Label: "model/stream"})
	}
	d := New(msgs, 45)
	doc := renderSVG(t, d, SVGOptions{Standalone: true})
	shape, _ := svgShape(t, doc)
	lines := 0
	for _, s := range shape {
		if s == "<line" {
			lines++
		}
	}
	if want := 400 + len(d.Lifelines); lines != want {
		t.Errorf("%d lines, want %d (one per arrow, one per lifeline)", lines, want)
	}
	bands := (400 - 1) / bandEvery
	wantH := pad + headH + pad + (1+400+bands)*rowH + pad // the first row says 45 were left out
	if !bytes.Contains(doc, fmt.Appendf(nil, `height="%d"`, wantH)) {
		t.Errorf("SVG height is not %d", wantH)
	}
	if !bytes.Contains(doc, []byte("45 earlier messages left out")) {
		t.Error("SVG does not say 45 earlier messages were left out")
	}
	if !bytes.Contains(doc, []byte("<style>")) {
		t.Error("standalone SVG has no style")
	}
	if n := bytes.Count(doc, []byte(`<g class="sd-band">`)); n != bands {
		t.Errorf("%d name bands, want %d", n, bands)
	}
}

// TestSVGMarks: errors and unanswered requests are drawn as such.
func TestSVGMarks(t *testing.T) {
	doc := string(renderSVG(t, New(sample(), 0), SVGOptions{}))
	for _, want := range []string{`<g class="sd-ans sd-err">`, `<g class="sd-call sd-unans">`, `<g class="sd-note">`, `<g class="sd-push">`, `never answered`, `error: denied`, "<circle"} {
		if !strings.Contains(doc, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(doc, "<style>") {
		t.Error("inline SVG carries its own style")
	}
	if strings.ContainsAny(Style, "<&") {
		t.Error("Style is not safe inside <style>")
	}
}
