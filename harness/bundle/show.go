package bundle

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentconform/conform/internal/safetext"
)

// ShowOptions tune the transcript.
type ShowOptions struct {
	// PayloadChars bounds each payload shown; 0: 240; negative: no bound.
	PayloadChars int
}

// Show writes the bundle as a transcript a person reads: the scenario and
// its outcome, the kernel, then every message in order, each direction
// marked, with its time and payload, and the kernel's stderr. Everything
// from the bundle is escaped: it is kernel text.
func Show(w io.Writer, b *Bundle, opt ShowOptions) error {
	if opt.PayloadChars == 0 {
		opt.PayloadChars = 240
	}
	m := b.Manifest
	p := &printer{w: w}
	line := safetext.Line
	p.f("Repro bundle %s\n", line(filepath.Base(b.Dir)))
	p.f("Scenario   %s  %s\n", line(m.Scenario.Ref()), line(m.Scenario.Name))
	p.f("Tags       %s\n", line(strings.Join(m.Scenario.Tags, " ")))
	p.f("Outcome    %s\n", m.Scenario.Status)
	if m.Scenario.Reason != "" {
		p.f("%s\n", indent(safetext.Text(m.Scenario.Reason), "           "))
	}
	for _, c := range m.Scenario.Checks {
		p.f("  check %-12s line %-4d %s  [%s]\n", c.Status, c.Line, line(c.Step), line(strings.Join(c.Requirements, " ")))
		if c.Status == "fail" && c.Message != "" {
			p.f("%s\n", indent(safetext.Text(c.Message), "               "))
		}
	}
	k := m.Kernel
	p.f("Kernel     %s %s (%s)\n", line(k.Name), line(k.Version), line(k.Command))
	p.f("           capabilities: %s\n", line(orNone(strings.Join(k.Capabilities, ", "))))
	if len(k.Readings) > 0 {
		keys := make([]string, 0, len(k.Readings))
		for key := range k.Readings {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		var rs []string
		for _, key := range keys {
			rs = append(rs, key+"="+k.Readings[key])
		}
		p.f("           readings: %s\n", line(strings.Join(rs, ", ")))
	}
	p.f("conform    %s, protocol %s, catalog version %d\n", line(m.Conform.Version), line(m.Conform.Protocol), m.Conform.CatalogVersion)
	p.f("Command    %s\n", line(m.CommandLine))
	if m.FuzzSeed != nil {
		p.f("Fuzz seed  %d\n", *m.FuzzSeed)
	}
	p.f("\nExchange (%d lines; ms since the scenario's log started; → kernel to harness, ← harness to kernel)\n", len(b.Exchange))
	for _, l := range b.Exchange {
		at := "         "
		if l.AtMS != nil {
			at = fmt.Sprintf("%8.1fms", *l.AtMS)
		}
		arrow := "→"
		if l.From == "harness" {
			arrow = "←"
		}
		head := fmt.Sprintf("%s #%-4d %s %s %s", at, l.Seq, arrow, l.Kind, l.Method)
		if l.ReplyTo != nil {
			head += fmt.Sprintf(" (to #%d)", *l.ReplyTo)
		}
		if l.Label != "" && l.Label != l.Method {
			head += "  " + l.Label
		}
		if l.Session != "" {
			head += "  session=" + l.Session
		}
		if l.Turn != "" {
			head += " turn=" + l.Turn
		}
		if l.Unanswered {
			head += "  (never answered)"
		}
		p.f("%s\n", line(head))
		for _, part := range []struct {
			name string
			v    any
		}{{"params", l.Params}, {"result", l.Result}} {
			if part.v == nil {
				continue
			}
			p.f("             %s %s\n", part.name, line(abbrev(part.v, opt.PayloadChars)))
		}
		if l.Error != "" {
			p.f("             error %s\n", line(l.Error))
		}
	}
	st := m.Stderr
	p.f("\nKernel stderr (%d bytes; %s)\n", st.Bytes, line(st.Note))
	if b.Stderr == "" {
		p.f("  (empty)\n")
	} else {
		p.f("%s\n", indent(safetext.Text(strings.TrimRight(b.Stderr, "\n")), "  "))
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}

func abbrev(v any, n int) string {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	var s string
	if err := enc.Encode(v); err != nil {
		s = fmt.Sprint(v)
	} else {
		s = strings.TrimSuffix(buf.String(), "\n")
	}
	if n > 0 && len(s) > n {
		cut := n
		for cut > 0 && (s[cut]&0xC0) == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		s = fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
	}
	return s
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
