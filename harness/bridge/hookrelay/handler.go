package hookrelay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Dispatcher answers one agent hook event: the agent kernel's wrapper
// around kernelkit.Host.Hook. An error means no decision could be had (the
// relay then applies its failure policy); a subscriber's own failure is a
// Decision with Outcome Failed.
type Dispatcher func(ctx context.Context, ev Event) (Decision, error)

// envelope is what the relay POSTs.
type envelope struct {
	Agent      string          `json:"agent"`
	Event      string          `json:"event"`
	Subscriber string          `json:"subscriber,omitempty"`
	Input      json.RawMessage `json:"input"`
}

// maxBody bounds a hook's stdin: tool inputs and outputs can be large, a
// flood is an error.
const maxBody = 16 << 20

// Handler serves the relay: POST a JSON envelope, answered with the
// Decision as JSON (200), 400 for a request that is not one, 500 when the
// Dispatcher failed. The request's context is the dispatch's.
func Handler(dispatch Dispatcher) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			httpError(w, http.StatusMethodNotAllowed, "hook relay: POST a hook event, not %s", r.Method)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		if err != nil {
			httpError(w, http.StatusBadRequest, "hook relay: reading the request: %v", err)
			return
		}
		if len(body) > maxBody {
			httpError(w, http.StatusRequestEntityTooLarge, "hook relay: the hook event is larger than %d bytes", maxBody)
			return
		}
		var env envelope
		if err := json.Unmarshal(body, &env); err != nil {
			httpError(w, http.StatusBadRequest, "hook relay: the request is not a JSON hook envelope: %v", err)
			return
		}
		if !KnownAgent(env.Agent) || env.Event == "" {
			httpError(w, http.StatusBadRequest, "hook relay: unknown agent %q or no event (%q)", env.Agent, env.Event)
			return
		}
		ev, err := parseEvent(env.Agent, env.Event, env.Subscriber, env.Input)
		if err != nil {
			httpError(w, http.StatusBadRequest, "hook relay: %s %s sent stdin that is not a JSON object: %v", env.Agent, env.Event, err)
			return
		}
		d, err := dispatch(r.Context(), ev)
		if err != nil {
			httpError(w, http.StatusInternalServerError, "hook relay: dispatching %s %s: %v", env.Agent, env.Event, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(d)
	})
}

func httpError(w http.ResponseWriter, code int, format string, args ...any) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, format+"\n", args...)
}
