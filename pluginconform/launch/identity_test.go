package launch

import (
	"strings"
	"testing"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
)

func TestIdentityProblems(t *testing.T) {
	good := func() *commonv1.ProducerRef {
		return &commonv1.ProducerRef{Name: "p", Version: "1.0.0", Category: commonv1.Category_CATEGORY_MODEL, ProtocolVersion: ProtocolVersion}
	}
	if got := IdentityProblems(good(), commonv1.Category_CATEGORY_MODEL); got != "" {
		t.Fatalf("a full identity: %q, want none", got)
	}
	for _, tc := range []struct {
		name string
		edit func(*commonv1.ProducerRef)
		want string
	}{
		{"no name", func(p *commonv1.ProducerRef) { p.Name = " " }, "no name"},
		{"no version", func(p *commonv1.ProducerRef) { p.Version = "" }, "no version"},
		{"other category", func(p *commonv1.ProducerRef) { p.Category = commonv1.Category_CATEGORY_TOOL }, "not CATEGORY_MODEL"},
		{"protocol unset", func(p *commonv1.ProducerRef) { p.ProtocolVersion = 0 }, "protocol_version 0"},
		{"protocol other", func(p *commonv1.ProducerRef) { p.ProtocolVersion = 2 }, "protocol_version 2"},
	} {
		p := good()
		tc.edit(p)
		if got := IdentityProblems(p, commonv1.Category_CATEGORY_MODEL); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.name, got, tc.want)
		}
	}
	if got := IdentityProblems(nil, commonv1.Category_CATEGORY_MODEL); !strings.Contains(got, "no name") {
		t.Errorf("no producer at all: %q", got)
	}
}
