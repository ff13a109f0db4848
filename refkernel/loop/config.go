package loop

import (
	"errors"
	"fmt"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/spec/wire"
)

// ConfigError is a session config refused before the session started; the
// wire server answers it with wire.CodeConfigRejected.
type ConfigError struct {
	Reason string
}

func (e *ConfigError) Error() string { return "session config rejected: " + e.Reason }

// validate checks everything that can be checked before the session starts
// (HD-16, TA-25, ER-05), so that a bad config never fires a hook.
func validate(p wire.RunParams, parts Parts) error {
	cfg := p.Config
	if p.SessionID == "" {
		return errors.New("session_id is required")
	}
	if err := bounds.Validate(cfg.Bounds); err != nil {
		return err
	}
	if err := doomloop.Validate(cfg.DoomLoop); err != nil {
		return err
	}
	if err := parts.Hooks.Validate(cfg.Hooks); err != nil {
		return err
	}
	if err := plangate.ValidateRules(cfg.Policy.Rules); err != nil {
		return err
	}
	if err := parts.Cost.Validate(cfg.Model.Pricing); err != nil {
		return fmt.Errorf("model %q pricing: %w", cfg.Model.Name, err)
	}
	if err := parts.Retry.Validate(cfg.Retry); err != nil {
		return err
	}
	if err := validateTools(cfg.Tools); err != nil {
		return err
	}
	return validateDF(cfg, parts) // dfirst.go
}

func validateTools(tools []wire.ToolSchema) error {
	seen := map[string]bool{}
	for i, t := range tools {
		switch {
		case t.Name == "":
			return fmt.Errorf("tool %d has no name", i)
		case seen[t.Name]:
			return fmt.Errorf("tool %q is declared twice; tool names must be unique in a session", t.Name)
		}
		switch t.Kind {
		case wire.KindDataSource, wire.KindResource, wire.KindInteractive:
		default:
			return fmt.Errorf("tool %q has unknown kind %q", t.Name, t.Kind)
		}
		seen[t.Name] = true
	}
	return nil
}
