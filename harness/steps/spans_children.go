package steps

import (
	"fmt"
	"sort"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// How a child session's spans link to its parent's trace (TA-17: "check
// parent links"). The spec does not say whether a sub-agent's session
// starts a trace of its own or continues the parent's under the spawning
// call, and both are common; the kernel declares which (PROTOCOL.md §15,
// trace.child_sessions) and is held to it. Left out, the scenario is
// skipped.

const readingChildTrace = "trace.child_sessions"

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the child sessions' spans link to the parent's trace as the kernel's trace.child_sessions says$`), s.proves(s.childTraceAsDeclared, "TA-17"))
	})
}

// childSessionIDs are the sessions whose session/meta rows name the root
// session as their parent (directly or through another child).
func (s *Scenario) childSessionIDs() map[string]bool {
	parent := map[string]string{}
	for _, m := range s.World.Metas() {
		if m.ParentSessionID != "" {
			parent[m.SessionID] = m.ParentSessionID
		}
	}
	out := map[string]bool{}
	for id := range parent {
		for p, i := parent[id], 0; p != "" && i < 64; p, i = parent[p], i+1 {
			if p == s.SessionID {
				out[id] = true
				break
			}
		}
	}
	return out
}

func (s *Scenario) childTraceAsDeclared() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	children := s.childSessionIDs()
	if len(children) == 0 {
		return notReached("the kernel ran no child session (no session/meta row names the root as its parent)")
	}
	rootTraces := map[string]bool{}
	rootSpans := map[string]bool{}
	childSpans := map[string]wire.Span{}
	for _, sp := range s.World.Spans() {
		switch {
		case sp.SessionID == s.SessionID:
			rootTraces[sp.TraceID] = true
			rootSpans[sp.SpanID] = true
		case children[sp.SessionID]:
			childSpans[sp.SpanID] = sp
		}
	}
	if len(rootSpans) == 0 || len(childSpans) == 0 {
		return notReached("the kernel sent spans for %d root and %d child span(s); the link needs both", len(rootSpans), len(childSpans))
	}
	// The top spans of the children: their parent is no span of a child.
	var own, under, other []string
	unseen := 0
	ids := make([]string, 0, len(childSpans))
	for id := range childSpans {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		sp := childSpans[id]
		if _, inChild := childSpans[sp.ParentSpanID]; inChild {
			continue
		}
		if sp.ParentSpanID != "" && !rootSpans[sp.ParentSpanID] {
			// Its parent never arrived (an outer span a kernel may export
			// after session/run answers): where it hangs cannot be told.
			unseen++
			continue
		}
		desc := fmt.Sprintf("%s span %s of session %s", sp.Role, sp.SpanID, sp.SessionID)
		switch {
		case !rootTraces[sp.TraceID] && sp.ParentSpanID == "":
			own = append(own, desc)
		case rootTraces[sp.TraceID] && rootSpans[sp.ParentSpanID]:
			under = append(under, desc)
		default:
			other = append(other, fmt.Sprintf("%s (trace %s, parent %q)", desc, sp.TraceID, sp.ParentSpanID))
		}
	}
	// Every span of a child continues its top span's trace either way.
	for _, id := range ids {
		sp := childSpans[id]
		if p, ok := childSpans[sp.ParentSpanID]; ok && p.TraceID != sp.TraceID {
			other = append(other, fmt.Sprintf("%s span %s of session %s is in trace %s, its parent span in %s", sp.Role, sp.SpanID, sp.SessionID, sp.TraceID, p.TraceID))
		}
	}
	if len(own)+len(under) == 0 && unseen > 0 && len(other) == 0 {
		return notReached("the child sessions' top spans name %d parent span(s) that never arrived, so where they hang cannot be told", unseen)
	}
	// The scenario's Given step skips a kernel without the reading.
	v, err := s.declared(readingChildTrace)
	if err != nil {
		return err
	}
	var bad []string
	switch v {
	case "own_trace":
		bad = append(under, other...)
	case "parent_trace":
		bad = append(own, other...)
	default:
		return fmt.Errorf("the kernel declares %s = %q, which is neither own_trace nor parent_trace", readingChildTrace, v)
	}
	if len(bad) > 0 {
		return fmt.Errorf("expected every child session's spans to link as the kernel's %s = %s says (own_trace: a root span in a trace of its own; parent_trace: under a span of the parent session, in its trace), these do not: %s",
			readingChildTrace, v, strings.Join(bad, "; "))
	}
	return nil
}
