package model

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/internal/testrace"
	_ "github.com/agentconform/conform/pluginconform" // registers the tool category
	"github.com/agentconform/conform/pluginconform/category"
)

// Detect tells a model provider from a tool provider by what each serves,
// and names what a plugin that never handshakes did.
func TestDetect(t *testing.T) {
	testrace.SkipUnderRace(t)
	for name, want := range map[string]string{"reference": "model", "tool": "tool"} {
		c, err := category.Detect(context.Background(), options(t, name))
		if err != nil || c.Name != want {
			t.Errorf("%s: category %q, err %v; want %q", name, c.Name, err, want)
		}
	}
	opt := options(t, "hang")
	opt.StartTimeout = time.Second
	_, err := category.Detect(context.Background(), opt)
	var nl *category.NotLaunched
	if err == nil || !strings.Contains(err.Error(), "handshake") {
		t.Errorf("a plugin that never handshakes: %v", err)
	} else if !errors.As(err, &nl) {
		t.Errorf("%T is not a NotLaunched", err)
	}
}
