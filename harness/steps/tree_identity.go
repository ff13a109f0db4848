package steps

// TA-12 in a child (issue 29, TA-12.identity, tree side): a call's
// identity is its tool name plus its canonical input in a child too, so a
// child whose arguments change every time never trips the detector and
// runs until its profile's max_turns. A loop that hashes a sub-agent's
// calls by tool name alone stops it early.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild)'s changing calls never tripped the detector: it ran (\d+) ordinary turns?$`), s.proves(s.saChildTurns, "TA-12"))
	})
}
