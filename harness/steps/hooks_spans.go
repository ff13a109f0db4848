package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// ---- spans (HD-13) ----

// hookSpans: for every chain, one hook_dispatch span covers its requests
// and has exactly one hook_subscriber child per request, each covering
// its request; no two chains share a span.
func (s *Scenario) hookSpans() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ix := s.spanIndex()
	children := ix.childrenOf(wire.RoleHookSubscribe)
	chains := s.hookChains("")
	if len(chains) == 0 {
		return notReached("the kernel sent no hook/dispatch to check")
	}
	used := map[string]bool{}
	for _, c := range chains {
		first, last := c[0], c[0]
		for _, e := range c {
			if e.End.After(last.End) {
				last = e
			}
		}
		var found *wire.Span
		for _, p := range ix.role(wire.RoleHookDispatch) {
			if used[p.SpanID] || len(children[p.SpanID]) == 0 {
				continue
			}
			if p.StartUnixNano <= first.Start.UnixNano()+int64(spanSlack) && p.EndUnixNano >= last.End.UnixNano()-int64(spanSlack) {
				found = &p
				break
			}
		}
		what := fmt.Sprintf("the %q chain %s (#%d)", hookParams(first).Point, strings.Join(hookChainIDs(c), ", "), first.Seq)
		if found == nil {
			return fmt.Errorf("%s is not covered by a %q span with %q children (spans sent: %d %s, %d %s)", what,
				wire.RoleHookDispatch, wire.RoleHookSubscribe, len(ix.role(wire.RoleHookDispatch)), wire.RoleHookDispatch, len(ix.role(wire.RoleHookSubscribe)), wire.RoleHookSubscribe)
		}
		used[found.SpanID] = true
		kids := children[found.SpanID]
		if len(kids) != len(c) {
			return fmt.Errorf("%s called %d subscribers, its %q span %q has %d %q children", what, len(c), wire.RoleHookDispatch, found.Name, len(kids), wire.RoleHookSubscribe)
		}
		for _, e := range c {
			if !slices.ContainsFunc(kids, func(k wire.Span) bool { return covers(k, e) }) {
				return fmt.Errorf("in %s, the dispatch to %q (#%d) lies inside none of the %q children", what, hookParams(e).Subscriber, e.Seq, wire.RoleHookSubscribe)
			}
		}
	}
	// Spans for chains that called nobody are not counted; every other
	// hook_dispatch span must be one of the chains.
	for _, p := range ix.role(wire.RoleHookDispatch) {
		if len(children[p.SpanID]) > 0 && !used[p.SpanID] {
			return fmt.Errorf("the %q span %q has %d %q children but matches no chain of dispatches", wire.RoleHookDispatch, p.Name, len(children[p.SpanID]), wire.RoleHookSubscribe)
		}
	}
	return nil
}

// hookSpansInTurns: the span of a chain inside a turn lies within that
// turn's span.
func (s *Scenario) hookSpansInTurns() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ix := s.spanIndex()
	checked := 0
	for _, c := range s.hookChains("") {
		p := hookParams(c[0]).Point
		if p == wire.PointSessionStart || p == wire.PointSessionEnd {
			continue
		}
		checked++
		ok := false
		for _, sp := range ix.role(wire.RoleHookDispatch) {
			if !(sp.StartUnixNano <= c[0].Start.UnixNano()+int64(spanSlack) && sp.EndUnixNano >= c[0].End.UnixNano()-int64(spanSlack)) {
				continue
			}
			if ix.inTurn(sp) {
				ok = true
				break
			}
		}
		if !ok {
			return fmt.Errorf("the %q chain (#%d) has no %q span inside a %q span", p, c[0].Seq, wire.RoleHookDispatch, wire.RoleTurn)
		}
	}
	if checked == 0 {
		return notReached("the kernel sent no hook chain inside a turn to check")
	}
	return nil
}

// ---- JSON comparison ----

func hookUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// hookJSONDiff compares two values by their JSON encoding, where an absent
// field, null and an empty array or object all mean the same (PROTOCOL.md
// §3, arrays and null). It returns "" when they are equal.
func hookJSONDiff(a, b any) string {
	return plain.Diff(hookJSONNormal(a), hookJSONNormal(b))
}

func hookJSONNormal(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unencodable: %v", err)
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return hookPruneEmpty(out)
}

func hookPruneEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			if e = hookPruneEmpty(e); e != nil {
				m[k] = e
			}
		}
		if len(m) == 0 {
			return nil
		}
		return m
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = hookPruneEmpty(e)
		}
		return out
	}
	return v
}
