package steps

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
	"github.com/cucumber/godog"
)

// refusingSpawner answers every session/spawn with one JSON-RPC error.
type refusingSpawner struct{ code int }

func (r refusingSpawner) Spawn(context.Context, wire.SpawnParams) (wire.RunSessionResult, error) {
	return wire.RunSessionResult{}, &jsonrpc.Error{Code: r.code, Message: "refused"}
}
func (refusingSpawner) Cancel(context.Context, string) error { return nil }

// SA-10's honest-side check on a kernel that runs no sub-agents (it
// answers session/spawn with -32601, as kernelkit and the Node kit do): the
// root's spawn is refused like every other, so the clause (a child's own
// spawn) is not reached; the missing children fail the rows that need
// one. Before, the check failed SA-10 with "refused" on the four framework
// kernels. Any other refusal of an honest spawn still fails.
func TestHonestSpawnWithoutSubagents(t *testing.T) {
	for code, wantNotReached := range map[int]bool{wire.CodeMethodNotFound: true, wire.CodeInvalidParams: false} {
		w := fakes.NewWorld()
		w.Agents.SpawnCapable("spawn_agent")
		w.Agents.Bind(refusingSpawner{code}, "s")
		raw, _ := json.Marshal(wire.ToolInvokeParams{CallContext: wire.CallContext{SessionID: "s", TurnID: "s/t1"},
			CallID: "c1", Provider: "agents", Tool: "spawn_agent", Input: json.RawMessage(`{"profile":"manager","prompt":"go"}`), Attempt: 1})
		if _, err := w.Respond(context.Background(), w.Accept(wire.MethodToolInvoke, raw)); err != nil {
			t.Fatalf("%d: invoke: %v", code, err)
		}
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}}
		err := s.saHonestSpawns()
		var nr *notReachedError
		if got := errors.As(err, &nr); got != wantNotReached || err == nil {
			t.Errorf("refusal %d: not reached %v (%v), want not reached %v and an error", code, got, err, wantNotReached)
		}
		w.Close()
	}
}

// A scenario that needs an optional bound to fire is skipped, with its
// reason, for a kernel that does not declare it, and runs for one that does.
func TestDeclaresCapability(t *testing.T) {
	line := []Line{{Keyword: "Given", Text: `the kernel declares capability "bound.max_cost_usd"`}}
	o := RunLines(context.Background(), &Env{}, "case.feature", "s", []string{"@TA-21"}, line)
	if !errors.Is(o.Err, godog.ErrSkip) || !strings.Contains(o.State.Skip, `"bound.max_cost_usd"`) {
		t.Errorf("without the capability: err %v, skip %q; want a skip naming it", o.Err, o.State.Skip)
	}
	env := &Env{}
	env.Info.Capabilities = []string{"bound.max_cost_usd"}
	if o := RunLines(context.Background(), env, "case.feature", "s", []string{"@TA-21"}, line); o.Err != nil || o.State.Skip != "" {
		t.Errorf("with the capability: err %v, skip %q; want it to run", o.Err, o.State.Skip)
	}
}
