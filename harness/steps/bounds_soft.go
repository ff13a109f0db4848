package steps

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentconform/conform/internal/plain"
)

// Soft limits after the first pause (TA-09): where a resumed session pauses
// again, and the notice the kernel adds of its own. Which pause follows a
// continuation is the kernel's reading bound.soft_resume (PROTOCOL.md §15):
// fresh_allowance is held exactly; any other reading only to what every
// reading shares.

// freshAllowance is the bound.soft_resume reading under which a resumed
// bound allows its full size again, counted from the continuation.
const freshAllowance = "fresh_allowance"

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the session paused after model requests ([\d, and]+), as a fresh allowance after each continuation gives$`), s.proves(s.pausedAfter, "TA-09"))
		// The weighted-token budget refines max_cost_usd (TA-05): soft, it
		// pauses and resumes exactly as the dollar bound does.
		sc.Step(stepRE(`^the weighted-token budget paused the session after model requests ([\d, and]+), as the soft cost bound it refines would$`), s.proves(s.pausedAfter, "TA-05"))
		sc.Step(stepRE(`^model request (\d+) carried a notice of the kernel's own, new since the request before it$`), s.proves(s.softNotice, "TA-09"))
	})
}

// parseCounts reads "2 and 4" or "2, 4 and 6".
func parseCounts(list string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(strings.ReplaceAll(list, " and ", ","), func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("cannot read %q as a list of request numbers", list)
		}
		out = append(out, n)
	}
	return out, nil
}

// pausedAfter: the ordinary model requests the kernel had made when each
// limit_reached soft event came. The first pause is where the bound was hit,
// whatever the reading; under fresh_allowance every later one is too (the
// bound's full size after the continuation). Under another reading, or none
// declared, each later pause only has to follow at least one ordinary turn
// of its own: the turns resume (PROTOCOL.md §5 item 5).
func (s *Scenario) pausedAfter(list string) error {
	want, err := parseCounts(list)
	if err != nil {
		return err
	}
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	s.limits.mu.Lock()
	pauses := append([]pause(nil), s.limits.pauses...)
	s.limits.mu.Unlock()
	turns := s.turnEntries()
	var got []int
	for _, p := range pauses {
		n := 0
		for _, e := range turns {
			if e.Seq < p.eventSeq {
				n++
			}
		}
		got = append(got, n)
	}
	if len(got) == 0 {
		return fmt.Errorf("expected the session to pause after model requests %s (limit_reached events with soft: true); it never paused and ended %q", plain.Ints(want), s.Result.Status)
	}
	if got[0] != want[0] {
		return fmt.Errorf("expected the first pause after model request %d, where the soft bound is reached; it came after %d", want[0], got[0])
	}
	reading, declared := s.env.Info.Readings["bound.soft_resume"]
	if reading != freshAllowance {
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				return fmt.Errorf("pause %d came after model request %d, with no ordinary turn since the continuation of pause %d: the turns must resume", i+1, got[i], i)
			}
		}
		why := "undeclared"
		if declared {
			why = fmt.Sprintf("%q", reading)
		}
		s.observe("TA-09", "bound.soft_resume is %s: the session paused after model requests %s (a fresh allowance would give %s)", why, plain.Ints(got), plain.Ints(want))
		return nil
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("the kernel declares bound.soft_resume %q, so each continuation grants the bound's full size again and the session pauses after model requests %s; it paused after %s", freshAllowance, plain.Ints(want), plain.Ints(got))
	}
	return nil
}

// softNotice: the first request after a continuation carries a text of the
// kernel's own (PROTOCOL.md §5 item 5: "adds a notice of its own to the
// history") that the request before the pause did not, besides the user's
// continuation. Like the final-answer instruction, it is words, not a mark.
func (s *Scenario) softNotice(nth string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	n, _ := ordinal(nth)
	before := map[string]bool{s.limits.continueWith: true}
	if n > 1 {
		prev, _ := s.modelRequest(strconv.Itoa(n - 1))
		for _, t := range s.kernelTexts(prev) {
			before[t] = true
		}
	}
	var short []string
	for _, t := range s.kernelTexts(r) {
		if before[t] {
			continue
		}
		if isInstruction(t) {
			return nil
		}
		short = append(short, fmt.Sprintf("%q", truncate(t, 60)))
	}
	if len(short) > 0 {
		return fmt.Errorf("expected model request %s to carry the kernel's notice that a soft limit paused the session; its only new text, %s, has fewer than %d words", nth, strings.Join(short, ", "), instructionWords)
	}
	return fmt.Errorf("expected model request %s, the first after the continuation, to carry a notice of the kernel's own that the soft limit was reached; it carries no text the harness did not send besides the continuation", nth)
}
