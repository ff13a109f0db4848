package steps

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"
)

// Line is one step of a scenario given as data: what a feature file says in
// one step line and the table under it. conform fuzz renders its generated
// cases as lines: written out they are the feature file that reproduces a
// failure, and run with RunLines they are the same scenario without godog's
// per-scenario cost (parsing, registering the step library in its
// database, matching every step against every pattern), which is most of a
// short generated session's time.
type Line struct {
	Keyword string     // "Given", "And", "When" or "Then": for the feature file only
	Text    string     // the step text, without its keyword
	Table   [][]string // the data table under the step; nil when it has none
}

// ErrUndefined is the error of a line no step of the library matches.
var ErrUndefined = errors.New("the harness has no step matching")

// RunLines runs one scenario given as lines against a kernel of env.Pool,
// with the step library's own definitions, as godog would run it: the same
// scenario hooks (interruption, capability skip, tags for attribution), each
// step's pattern matched as godog matches it (exactly one must match),
// arguments converted as godog converts them, and the first failing step
// ending the scenario. uri and name stand for the feature file and the
// scenario; tags carry their "@".
func RunLines(ctx context.Context, env *Env, uri, name string, tags []string, lines []Line) Outcome {
	p := linesPickle(uri, name, tags, lines)
	s := newScenario(env)
	var defs defTable
	define(s, &defs)
	s.setTags(p)
	var err error
	switch {
	case ctx.Err() != nil || (env.Stop != nil && env.Stop.Err() != nil):
		s.NotRun = "the run was interrupted before this scenario started"
		err = godog.ErrSkip
	default:
		if reason := capabilitySkip(env, p); reason != "" {
			s.Skip = reason
			err = godog.ErrSkip
			break
		}
		for _, st := range p.Steps {
			s.step = st
			if ctx, err = defs.run(ctx, st); err != nil {
				break
			}
		}
	}
	s.release()
	return Outcome{Pickle: p, State: s, Err: err}
}

// linesPickle is the godog pickle the lines stand for, so that the runner
// reads a scenario run from lines as it reads one run by godog.
func linesPickle(uri, name string, tags []string, lines []Line) *godog.Scenario {
	p := &godog.Scenario{Id: uri + ":scenario", Uri: uri, Name: name}
	for _, t := range tags {
		p.Tags = append(p.Tags, &messages.PickleTag{Name: t})
	}
	for i, l := range lines {
		st := &godog.Step{Id: strconv.Itoa(i), Text: l.Text, AstNodeIds: []string{"line-" + strconv.Itoa(i)}}
		if l.Table != nil {
			t := &messages.PickleTable{}
			for _, row := range l.Table {
				r := &messages.PickleTableRow{}
				for _, c := range row {
					r.Cells = append(r.Cells, &messages.PickleTableCell{Value: c})
				}
				t.Rows = append(t.Rows, r)
			}
			st.Argument = &messages.PickleStepArgument{DataTable: t}
		}
		p.Steps = append(p.Steps, st)
	}
	return p
}

// defTable is the step library bound to one scenario, as a list.
type defTable []stepDef

type stepDef struct {
	re     *regexp.Regexp
	prefix string // what every text the pattern matches starts with
	fn     reflect.Value
}

// Step registers one definition, as godog's ScenarioContext.Step does.
func (t *defTable) Step(expr, fn any) {
	var re *regexp.Regexp
	switch e := expr.(type) {
	case *regexp.Regexp:
		re = e
	case string:
		re = stepRE(e)
	default:
		panic(fmt.Sprintf("steps: a step expression must be a string or a *regexp.Regexp, not %T", expr))
	}
	*t = append(*t, stepDef{re: re, prefix: literalPrefix(re), fn: reflect.ValueOf(fn)})
}

// run matches one step and calls its definition. As with godog in strict
// mode, a text two patterns match is an error, and so is one no pattern
// matches. The literal prefix of each pattern is compared first: it rules
// out nearly every pattern without running it.
func (t defTable) run(ctx context.Context, st *godog.Step) (rctx context.Context, err error) {
	var match *stepDef
	var args []string
	for i := range t {
		d := &t[i]
		if !strings.HasPrefix(st.Text, d.prefix) {
			continue
		}
		m := d.re.FindStringSubmatch(st.Text)
		if m == nil {
			continue
		}
		if match != nil {
			return ctx, fmt.Errorf("ambiguous step, step text: %s\n    matches:\n        %s\n        %s", st.Text, match.re, d.re)
		}
		match, args = d, m[1:]
	}
	if match == nil {
		return ctx, fmt.Errorf("%w: %s", ErrUndefined, st.Text)
	}
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("%v", e)
		}
	}()
	return call(ctx, match.fn, args, st.Argument)
}

var (
	contextType = reflect.TypeFor[context.Context]()
	tableType   = reflect.TypeFor[*godog.Table]()
	docType     = reflect.TypeFor[*godog.DocString]()
)

// call converts the matched texts to the definition's parameters the way
// godog does (an optional leading context, strings, integers, floats, and a
// table or doc string last) and reads its results the way godog does.
func call(ctx context.Context, fn reflect.Value, args []string, arg *messages.PickleStepArgument) (context.Context, error) {
	typ := fn.Type()
	in := make([]reflect.Value, 0, typ.NumIn())
	first := 0
	if typ.NumIn() > 0 && typ.In(0).Implements(contextType) {
		in, first = append(in, reflect.ValueOf(ctx)), 1
	}
	for i := first; i < typ.NumIn(); i++ {
		param, k := typ.In(i), i-first
		switch {
		case param == tableType || param == docType:
			if arg == nil || k != len(args) {
				return ctx, fmt.Errorf("cannot convert argument %d: the step has no %s", k, param.Elem().Name())
			}
			if param == tableType {
				in = append(in, reflect.ValueOf(arg.DataTable))
			} else {
				in = append(in, reflect.ValueOf(arg.DocString))
			}
			continue
		case k >= len(args):
			return ctx, fmt.Errorf("func expected more arguments than given: expected %d arguments, matched %d from step", typ.NumIn()-first, len(args))
		}
		v, err := convert(args[k], param)
		if err != nil {
			return ctx, fmt.Errorf("cannot convert argument %d: %q: %w", k, args[k], err)
		}
		in = append(in, v)
	}
	out := fn.Call(in)
	var res any
	switch len(out) {
	case 0:
		return ctx, nil
	case 1:
		if c, ok := out[0].Interface().(context.Context); ok {
			return c, nil
		}
		res = out[0].Interface()
	default:
		if c, ok := out[0].Interface().(context.Context); ok && c != nil {
			ctx = c
		}
		res = out[1].Interface()
	}
	if res == nil {
		return ctx, nil
	}
	if err, ok := res.(error); ok {
		return ctx, err
	}
	return ctx, fmt.Errorf("the step returned %T, which a scenario given as lines cannot run", res)
}

func convert(s string, t reflect.Type) (reflect.Value, error) {
	switch t.Kind() {
	case reflect.String:
		return reflect.ValueOf(s).Convert(t), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v, err := strconv.ParseInt(s, 10, t.Bits())
		return reflect.ValueOf(v).Convert(t), err
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v, err := strconv.ParseUint(s, 10, t.Bits())
		return reflect.ValueOf(v).Convert(t), err
	case reflect.Float32, reflect.Float64:
		v, err := strconv.ParseFloat(s, t.Bits())
		return reflect.ValueOf(v).Convert(t), err
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return reflect.ValueOf([]byte(s)), nil
		}
	}
	return reflect.Value{}, fmt.Errorf("the parameter type %s is not supported", t)
}

var prefixes sync.Map // *regexp.Regexp → string

// literalPrefix is the text every match of an anchored pattern starts with
// ("" when the pattern is not anchored or starts with a choice).
func literalPrefix(re *regexp.Regexp) string {
	if p, ok := prefixes.Load(re); ok {
		return p.(string)
	}
	p := ""
	if t, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		t = t.Simplify()
		if t.Op == syntax.OpConcat && len(t.Sub) > 0 && t.Sub[0].Op == syntax.OpBeginText {
			var b strings.Builder
			for _, sub := range t.Sub[1:] {
				if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase != 0 {
					break
				}
				b.WriteString(string(sub.Rune))
			}
			p = b.String()
		}
	}
	prefixes.Store(re, p)
	return p
}
