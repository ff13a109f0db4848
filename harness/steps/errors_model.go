package steps

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentconform/conform/spec/wire"

	"github.com/agentconform/conform/internal/plain"
)

// ---- checks ----

func (s *Scenario) configRefused() error {
	if err := s.mustHaveStarted(); err != nil {
		return err
	}
	if s.Rejected == nil {
		return fmt.Errorf("expected the kernel to refuse the session config (error %d), it accepted it and the session ended %q",
			wire.CodeConfigRejected, s.Result.Status)
	}
	return nil
}

// ER-01: the retries are the failed request again, attempt by attempt.
func (s *Scenario) sameRequestRetried(a, b int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if a < 1 || a > b {
		return fmt.Errorf("model requests %d to %d make no range", a, b)
	}
	if b > len(rs) {
		return notReached("there are no model requests %d to %d: the kernel sent %d", a, b, len(rs))
	}
	first := seen(rs[a-1])
	for n := a + 1; n <= b; n++ {
		if got := seen(rs[n-1]); got != first {
			return fmt.Errorf("expected model request %d to repeat request %d unchanged (a retry), it differs:\nrequest %d: %s\nrequest %d: %s", n, a, a, first, n, got)
		}
		if rs[n-1].Attempt <= rs[n-2].Attempt {
			return fmt.Errorf("expected the attempt number to count up across retries, request %d has attempt %d after %d", n, rs[n-1].Attempt, rs[n-2].Attempt)
		}
	}
	return nil
}

// ER-02: the requests are attempts of one call: the same turn, with the
// attempt number counting up. Whether they are identical is ER-01's.
func (s *Scenario) attemptsOfOneCall(a, b int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if a < 1 || a > b {
		return fmt.Errorf("model requests %d to %d make no range", a, b)
	}
	if b > len(rs) {
		return notReached("there are no model requests %d to %d: the kernel sent %d", a, b, len(rs))
	}
	for n := a + 1; n <= b; n++ {
		if rs[n-1].CallContext.TurnID != rs[a-1].CallContext.TurnID {
			return fmt.Errorf("expected model requests %d to %d to be attempts of one call in one turn; request %d is in turn %q, request %d in turn %q",
				a, b, a, rs[a-1].CallContext.TurnID, n, rs[n-1].CallContext.TurnID)
		}
		if rs[n-1].Attempt <= rs[n-2].Attempt {
			return fmt.Errorf("expected the attempt number to count up across retries, request %d has attempt %d after %d", n, rs[n-1].Attempt, rs[n-2].Attempt)
		}
	}
	return nil
}

// ER-02, ER-06: a call that failed for good ends the session with the
// kernel's model-error status: the reading model_error.status, `failed`
// when undeclared. A declared status must still be a failure
// (failed or an error_* status): the turn did fail.
func (s *Scenario) modelErrorStatus() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	want, declared := s.env.Info.Readings["model_error.status"]
	if !declared {
		want = wire.StatusFailed
	}
	if want != wire.StatusFailed && !strings.HasPrefix(want, "error_") {
		return fmt.Errorf("the kernel declares model_error.status %q, which is not a failure status (failed or error_*): a call that failed for good fails its turn", want)
	}
	if s.Result.Status != want {
		how := "the default of A-26/A-27, model_error.status undeclared"
		if declared {
			how = "the kernel's declared model_error.status"
		}
		return fmt.Errorf("expected the session to end %q (%s) once the call failed for good, it ended %q (error %q)", want, how, s.Result.Status, s.Result.Error)
	}
	return nil
}

// ER-03: the failed request is never sent again unchanged.
func (s *Scenario) noRepeatOf(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if n < 1 || n > len(rs) {
		return notReached("there is no model request %d: the kernel sent %d", n, len(rs))
	}
	failed := seen(rs[n-1])
	for i := n; i < len(rs); i++ {
		if seen(rs[i]) == failed {
			return fmt.Errorf("model request %d repeats the failed request %d unchanged (attempt %d); this error category must never be retried as it is", i+1, n, rs[i].Attempt)
		}
	}
	return nil
}

// ER-06: never a loop of the same failing request.
func (s *Scenario) noRepeats() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	first := map[string]int{}
	for i, r := range rs {
		k := seen(r)
		if j, ok := first[k]; ok {
			return fmt.Errorf("model request %d repeats request %d unchanged", i+1, j+1)
		}
		first[k] = i
	}
	return nil
}

// ER-06: a context pass with reduce: true between two model requests.
func (s *Scenario) reducePassBetween(a, b int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ea, err := s.modelEntry(a)
	if err != nil {
		return err
	}
	eb, err := s.modelEntry(b)
	if err != nil {
		return err
	}
	var passes []string
	for _, e := range s.requests() {
		if e.Seq <= ea.Seq || e.Seq >= eb.Seq {
			continue
		}
		if p, ok := e.Value.(wire.ContextAssembleParams); ok {
			if p.Reduce {
				return nil
			}
			passes = append(passes, fmt.Sprintf("#%d without reduce", e.Seq))
		}
	}
	got := "no context/assemble at all"
	if len(passes) > 0 {
		got = strings.Join(passes, ", ")
	}
	return fmt.Errorf("expected a context/assemble with reduce: true between model requests %d (#%d) and %d (#%d) after context_length_exceeded; saw %s", a, ea.Seq, b, eb.Seq, got)
}

func (s *Scenario) requestsDiffer(a, b int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if a > len(rs) || b > len(rs) {
		return notReached("there is no model request %d: the kernel sent %d", max(a, b), len(rs))
	}
	if seen(rs[a-1]) == seen(rs[b-1]) {
		return fmt.Errorf("expected model request %d to differ from request %d, it is the same request again", a, b)
	}
	return nil
}

func (s *Scenario) modelAskedFewer(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if got := len(s.modelRequests()); got >= n {
		return fmt.Errorf("expected fewer than %s, the kernel sent %d", plain.Count(n, "model request"), got)
	}
	return nil
}

func (s *Scenario) lastRequestNoTools() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if len(rs) == 0 {
		return notReached("the kernel sent no model request")
	}
	return s.requestOfferedNoTools(strconv.Itoa(len(rs)))
}
