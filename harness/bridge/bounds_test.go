package bridge

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

// A bound the profile maps to an environment variable (opencode reads its
// step limit from OPENCODE_CONFIG_CONTENT, not a flag) reaches the agent's
// environment with the session's value; before bounds_env the bound was
// never told and the turn-limit rows were glue.
func TestBoundsEnvTellsTheAgentItsBound(t *testing.T) {
	three := 3
	pr := &Profile{
		Name: "x", Dialect: "openai-chat", Command: []string{"a"},
		BoundsEnv: map[string]map[string]string{
			"max_turns": {"OPENCODE_CONFIG_CONTENT": `{"agent":{"build":{"steps":{max_turns_plus_one}}}}`},
		},
	}
	if err := pr.Check(); err != nil {
		t.Fatal(err)
	}
	r := &run{k: &Kernel{Profile: pr}, dir: t.TempDir()}
	r.p.Config.Bounds = wire.Bounds{MaxTurns: &three}
	vars, err := r.prepare()
	if err != nil {
		t.Fatal(err)
	}
	args, env := r.bounds(vars)
	if len(args) != 0 {
		t.Errorf("args %q, want none", args)
	}
	want := `OPENCODE_CONFIG_CONTENT={"agent":{"build":{"steps":4}}}`
	if !slices.Equal(env, []string{want}) {
		t.Errorf("env %q, want [%s]", env, want)
	}
	if len(r.observed) != 0 {
		t.Errorf("a told bound is no observation: %v", r.observed)
	}

	// Without the bound the variable is not set; with a bound mapped to
	// nothing the session says the agent could not be told.
	r = &run{k: &Kernel{Profile: pr}, dir: t.TempDir()}
	r.p.Config.Bounds = wire.Bounds{MaxWallClockS: ptr(5.0)}
	vars, err = r.prepare()
	if err != nil {
		t.Fatal(err)
	}
	if _, env = r.bounds(vars); len(env) != 0 {
		t.Errorf("env %q for a session without max_turns", env)
	}
	if len(r.observed) != 1 || !strings.Contains(r.observed[0].what, "max_wall_clock_s, which the agent cannot be told") {
		t.Errorf("observations %v, want one naming max_wall_clock_s", r.observed)
	}
}

func TestBoundsEnvProfileCheck(t *testing.T) {
	for _, bad := range []Profile{
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, BoundsEnv: map[string]map[string]string{"max_steps": {"A": "1"}}},
		{Name: "x", Dialect: "anthropic", Command: []string{"a"}, BoundsEnv: map[string]map[string]string{"max_turns": {"A": "{turns}"}}},
	} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}

func ptr[T any](v T) *T { return &v }
