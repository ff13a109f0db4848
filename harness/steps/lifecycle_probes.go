package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// Protocol probes of the requests a session's other parties send once it
// has ended, or before it was ever run, and of a repeated initialize: what
// PROTOCOL.md gives each (§4, §6.5, §6.7). As in lifecycle.go, a wrong
// answer is the kernel's protocol error (the scenario's verdict is error),
// not a requirement's.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the kernel answers a second initialize with (-\d+)$`), func(ctx context.Context, code int) error {
			return s.lcProbeCodes(ctx, wire.MethodInitialize, wire.InitializeParams{
				ProtocolVersions: []string{wire.Version},
				Harness:          wire.Peer{Name: "conform", Version: driver.Version},
			}, "a second initialize on the connection", "§4", code)
		})
		sc.Step(stepRE(`^a kernel started anew answers an initialize that offers only "([^"]+)" with (-\d+)$`), s.lcVersionMismatch)
		sc.Step(stepRE(`^the kernel answers session/continue of (the ended session|a session id it never ran) with (-\d+)(?: or (-\d+))?$`), func(ctx context.Context, which string, code int, alt string) error {
			id, what := s.lcProbeSession(which)
			other, _ := strconv.Atoi(alt) // "" is no alternative: 0
			msg := "go on"
			if which != "the ended session" {
				// A line longer than a pipe's buffer arrives in several
				// reads (PROTOCOL.md §2 allows lines up to 8 MiB); no other
				// message of the suite is that long, so a kernel that drops
				// a read's unfinished tail would pass everything else.
				msg, what = longMessage(), what+", with a message of "+strconv.Itoa(longMessageBytes>>10)+" KiB"
			}
			return s.lcProbeCodes(ctx, wire.MethodSessionContinue, wire.ContinueParams{SessionID: id, Message: msg},
				"session/continue of "+what, "§6.5", code, other)
		})
		sc.Step(stepRE(`^the kernel answers memory/write to (the ended session|a session id it never ran) with (-\d+)$`), func(ctx context.Context, which string, code int) error {
			id, what := s.lcProbeSession(which)
			return s.lcProbeCodes(ctx, wire.MethodMemoryWrite, wire.MemoryWriteParams{SessionID: id, CallID: "conform-no-such-call", Values: map[string]json.RawMessage{"k": json.RawMessage(`"v"`)}},
				"memory/write to "+what, "§17.5", code)
		})
		sc.Step(stepRE(`^the kernel answers session/continue of a session id it never ran with (-\d+) when the request's line is 8 MiB long, the most a line may be$`), s.lcLongestLine)
		sc.Step(stepRE(`^the kernel answers session/cancel of a session id it never ran with (-\d+) when the request's newline comes in a write of its own$`), func(ctx context.Context, code int) error {
			id, what := s.lcProbeSession("a session id it never ran")
			return s.lcProbeBy(ctx, lcProbe, func(ctx context.Context, k *driver.Kernel) (json.RawMessage, error) {
				return k.RequestNewlineApart(ctx, wire.MethodSessionCancel, wire.CancelParams{SessionID: id})
			}, "session/cancel of "+what+", its line's newline written apart (§2: a line may arrive in any pieces),", "§6.3", code)
		})
		sc.Step(stepRE(`^the kernel ignores a \$/cancelRequest naming a request id the harness never sent, and answers session/cancel of a session id it never ran with (-\d+) after it$`), s.lcIgnoresCancelRequest)
		sc.Step(stepRE(`^the kernel answers frontend/decide of (the ended session|a session id it never ran) with (-\d+)$`), func(ctx context.Context, which string, code int) error {
			id, what := s.lcProbeSession(which)
			return s.lcProbeCodes(ctx, wire.MethodFrontendDecide, wire.FrontendDecideParams{SessionID: id, Connection: "second"},
				"frontend/decide of "+what, "§6.7", code)
		})
	})
}

// lcIgnoresCancelRequest sends a $/cancelRequest for an id the harness
// never used: a notification gets no answer, and one for an unknown id is
// ignored (PROTOCOL.md §2 Cancellation). The request sent after it is
// answered after the kernel read it, so anything the kernel wrote about
// the notification has been read by then: a response to no request is a
// protocol violation of the connection.
func (s *Scenario) lcIgnoresCancelRequest(ctx context.Context, code int) error {
	k, err := s.lcKernel()
	if err != nil {
		return err
	}
	before := len(k.Faults())
	if err := k.Notify(wire.NotifyCancelRequest, map[string]any{"id": 987654321}); err != nil {
		return s.protocolFault("the harness could not send $/cancelRequest: %v", err)
	}
	id, what := s.lcProbeSession("a session id it never ran")
	if err := s.lcProbeCodes(ctx, wire.MethodSessionCancel, wire.CancelParams{SessionID: id}, "session/cancel of "+what+", sent after a $/cancelRequest naming no request of the harness,", "§6.3", code); err != nil {
		return err
	}
	if f := k.Faults(); len(f) > before {
		return s.protocolFault("after a $/cancelRequest for id 987654321, which the harness never sent, the kernel wrote: %s; PROTOCOL.md §2: a notification is never answered, and one naming an unknown id is ignored", strings.Join(f[before:], "; "))
	}
	return nil
}

// lcLongestLine sends a request whose line is 8 MiB long, newline
// excluded: the longest PROTOCOL.md §2 allows, which a kernel must read
// like any other. The bound is a failure detector (the line is read and
// parsed once), not a speed requirement.
func (s *Scenario) lcLongestLine(ctx context.Context, code int) error {
	id, what := s.lcProbeSession("a session id it never ran")
	return s.lcProbeBy(ctx, lcLongLine, func(ctx context.Context, k *driver.Kernel) (json.RawMessage, error) {
		return k.RequestLineOf(ctx, wire.MethodSessionContinue, func(n int) any {
			return wire.ContinueParams{SessionID: id, Message: strings.Repeat("x", n)}
		}, jsonrpc.DefaultMaxLine)
	}, fmt.Sprintf("session/continue of %s, its line %d bytes long (the most §2 allows),", what, jsonrpc.DefaultMaxLine), "§6.5", code)
}

// lcLongLine bounds the answer to an 8 MiB line.
const lcLongLine = 30 * time.Second

// longMessageBytes is three 64 KiB pipe buffers: the size of a message no
// kernel reads in one piece.
const longMessageBytes = 3 << 16

// longMessage is a session/continue message of longMessageBytes.
func longMessage() string {
	const part = "go on, and on "
	return strings.Repeat(part, longMessageBytes/len(part)+1)[:longMessageBytes]
}

// lcProbeSession is the session id a probe names and how its text says so.
func (s *Scenario) lcProbeSession(which string) (id, what string) {
	if which == "the ended session" {
		return s.SessionID, fmt.Sprintf("session %q, which has ended", s.SessionID)
	}
	id = s.SessionID + "-never-run"
	return id, fmt.Sprintf("session %q, which the kernel never ran", id)
}

// lcProbeCodes sends one request and wants an error with one of codes (a
// 0 among them is no alternative), naming section of PROTOCOL.md.
func (s *Scenario) lcProbeCodes(ctx context.Context, method string, params any, what, section string, codes ...int) error {
	return s.lcProbeBy(ctx, lcProbe, func(ctx context.Context, k *driver.Kernel) (json.RawMessage, error) {
		return k.Request(ctx, method, params)
	}, what, section, codes...)
}

// lcProbeBy sends a probe with send, bounded by bound (scaled), and wants
// an error with one of codes.
func (s *Scenario) lcProbeBy(ctx context.Context, bound time.Duration, send func(context.Context, *driver.Kernel) (json.RawMessage, error), what, section string, codes ...int) error {
	k, err := s.lcKernel()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, s.env.Scale(bound))
	defer cancel()
	raw, err := send(cctx, k)
	return s.wantError(what, section, raw, err, codes...)
}

// wantError makes a protocol fault of an answer (raw, err) to what that is
// not an error with one of codes (a 0 among them is no alternative).
func (s *Scenario) wantError(what, section string, raw []byte, err error, codes ...int) error {
	codes = slices.DeleteFunc(slices.Clone(codes), func(c int) bool { return c == 0 })
	want := make([]string, len(codes))
	for i, c := range codes {
		want[i] = fmt.Sprint(c)
	}
	switch {
	case err == nil:
		return s.protocolFault("%s was answered with the result %.200s; PROTOCOL.md %s: error %s", what, raw, section, strings.Join(want, " or "))
	case errors.Is(err, context.DeadlineExceeded):
		return s.protocolFault("%s got no answer in time; PROTOCOL.md %s: error %s", what, section, strings.Join(want, " or "))
	case !slices.Contains(codes, rpcCode(err)):
		return s.protocolFault("%s was answered with %v; PROTOCOL.md %s: error %s", what, err, section, strings.Join(want, " or "))
	}
	return nil
}

// lcVersionMismatch starts a kernel of its own and offers it only version:
// a kernel that shares no version answers code (§4), whatever it does next.
func (s *Scenario) lcVersionMismatch(ctx context.Context, version string, code int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if version == wire.Version {
		return scenarioDefect("the scenario offers %q, the version this harness speaks", version)
	}
	raw, err := s.env.Pool.OfferVersions(ctx, []string{version})
	return s.wantError(fmt.Sprintf("an initialize offering only %q", version), "§4", raw, err, code)
}
