package mutation

import (
	"fmt"
	"strings"
)

// Op is a kind of mutation.
type Op string

// The operators. Each names one plausible slip a person makes when writing
// the kernel; every mutant applies exactly one of them once.
const (
	Boundary   Op = "boundary"    // < <-> <=, > <-> >=
	Negate     Op = "negate"      // == <-> !=, if c -> if !(c)
	RemoveCall Op = "remove_call" // an expression statement (a call, a receive) removed
	Arith      Op = "arith"       // + <-> -, * <-> /, += <-> -=, *= <-> /=, ++ <-> --
	Const      Op = "const"       // an integer literal n -> n+1
	DropAssign Op = "drop_assign" // an assignment (=, +=, ...) removed
	LoopCut    Op = "loop_cut"    // a range loop stops after its first element
)

// Ops lists every operator, in report order.
var Ops = []Op{Boundary, Negate, RemoveCall, Arith, Const, DropAssign, LoopCut}

// Mutant is one mutation of one source file: a single byte-range edit, so
// that line numbers of everything around it stay as they are.
type Mutant struct {
	Package string `json:"package"` // module-relative folder, e.g. refkernel/bounds
	File    string `json:"file"`    // module-relative path
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Op      Op     `json:"op"`
	Func    string `json:"func"` // enclosing declaration: "Check", "Standard.Check", or "" at file level
	Orig    string `json:"orig"` // the code replaced, whitespace collapsed
	Repl    string `json:"repl"` // what replaces it ("" for a removal)
	// Key identifies the mutant across edits elsewhere in the file: it does
	// not contain the line number, so the committed classification of a
	// survivor holds until the mutated code itself changes.
	Key string `json:"key"`

	start, end int // byte offsets of the edit in the file
	text       string
}

// Apply returns src with the mutation applied. src must be the file the
// mutant was enumerated from.
func (m Mutant) Apply(src []byte) ([]byte, error) {
	if m.start < 0 || m.end > len(src) || m.start > m.end {
		return nil, fmt.Errorf("mutant %s: edit %d..%d outside the %d-byte file", m.Key, m.start, m.end, len(src))
	}
	out := make([]byte, 0, len(src)+len(m.text))
	out = append(out, src[:m.start]...)
	out = append(out, m.text...)
	return append(out, src[m.end:]...), nil
}

// Pos is the mutant's place in the source, as an editor opens it.
func (m Mutant) Pos() string { return fmt.Sprintf("%s:%d:%d", m.File, m.Line, m.Col) }

// Describe is the mutation in one line, for reports.
func (m Mutant) Describe() string {
	switch {
	case m.Op == LoopCut:
		return fmt.Sprintf("loop_cut: `%s` ends after the first pass through its whole body", short(m.Orig))
	case m.Repl == "":
		return fmt.Sprintf("%s: `%s` removed", m.Op, short(m.Orig))
	default:
		return fmt.Sprintf("%s: `%s` -> `%s`", m.Op, short(m.Orig), short(m.Repl))
	}
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func short(s string) string {
	const max = 80
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
