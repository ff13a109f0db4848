package dfirst

import (
	"bytes"
	"fmt"

	"github.com/agentconform/conform/spec/wire"
)

// validate refuses, before the session starts, a deterministic_first block
// the profile could not run as written (PROTOCOL.md §17.2).
func validate(cfg wire.DFConfig, tools []wire.ToolSchema) error {
	known := map[string]bool{}
	for _, t := range tools {
		known[t.Name] = true
	}
	gated := map[string]bool{}
	for i, g := range cfg.Tools {
		switch {
		case !known[g.Tool]:
			return fmt.Errorf("deterministic_first.tools[%d] gates %q, which is not a tool of the session", i, g.Tool)
		case gated[g.Tool]:
			return fmt.Errorf("deterministic_first.tools gates %q twice", g.Tool)
		}
		gated[g.Tool] = true
		if err := validateConds(g.Requires); err != nil {
			return fmt.Errorf("deterministic_first.tools[%d] (%s): %w", i, g.Tool, err)
		}
	}
	for i, b := range cfg.Blocks {
		for j, st := range b.Steps {
			if err := validateStep(st, known); err != nil {
				return fmt.Errorf("deterministic_first.blocks[%d] (%s) step %d: %w", i, b.Name, j+1, err)
			}
		}
	}
	skills := map[string]bool{}
	for i, sk := range cfg.Skills {
		if sk.Name == "" || skills[sk.Name] {
			return fmt.Errorf("deterministic_first.skills[%d]: skill names must be unique and non-empty", i)
		}
		skills[sk.Name] = true
		if err := validateConds(sk.Requires); err != nil {
			return fmt.Errorf("deterministic_first.skills[%d] (%s): %w", i, sk.Name, err)
		}
	}
	if cfg.ActiveSkill != "" && !skills[cfg.ActiveSkill] {
		return fmt.Errorf("deterministic_first.active_skill %q is not one of the skills", cfg.ActiveSkill)
	}
	return nil
}

func validateStep(st wire.DFStep, tools map[string]bool) error {
	switch st.Type {
	case wire.StepExecuteTool:
		if !tools[st.Tool] {
			return fmt.Errorf("execute_tool names %q, which is not a tool of the session", st.Tool)
		}
	case wire.StepSetMemory:
		if st.Key == "" || len(bytes.TrimSpace(st.Value)) == 0 {
			return fmt.Errorf("set_memory needs a key and a value")
		}
	case wire.StepCollect:
		if st.Key == "" {
			return fmt.Errorf("collect needs a key")
		}
	case wire.StepNoop, wire.StepAction, wire.StepModel:
	default:
		return fmt.Errorf("unknown step type %q", st.Type)
	}
	return nil
}

func validateConds(conds []wire.DFCondition) error {
	for _, c := range conds {
		if c.Key == "" {
			return fmt.Errorf("a condition has no key")
		}
		switch c.Op {
		case "", wire.OpTruthy:
		case wire.OpEq, wire.OpNe, wire.OpGt, wire.OpGe, wire.OpLt, wire.OpLe:
			if len(bytes.TrimSpace(c.Value)) == 0 {
				return fmt.Errorf("the %q condition on %q has no value", c.Op, c.Key)
			}
		default:
			return fmt.Errorf("unknown condition operator %q", c.Op)
		}
	}
	return nil
}
