package provkit

import (
	"fmt"
	"strings"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
	slashcommandv1 "github.com/agentconform/conform/api/gen/pluggableharness/slashcommand/v1"
)

// CheckDeclared judges a category's optional declarations: every hook
// point a real one and declared once, every slash command named, with a
// dispatch, a tool for DIRECT_INVOKE and a template for PROMPT_EXPANSION.
// any is false when nothing is declared.
func CheckDeclared(points []commonv1.HookPoint, cmds []*slashcommandv1.SlashCommandSpec) (msg string, any bool) {
	var bad []string
	seen := map[commonv1.HookPoint]bool{}
	for _, p := range points {
		if p == commonv1.HookPoint_HOOK_POINT_UNSPECIFIED || commonv1.HookPoint_name[int32(p)] == "" {
			bad = append(bad, fmt.Sprintf("hook point %s is not a real one", p))
		} else if seen[p] {
			bad = append(bad, fmt.Sprintf("hook point %s is declared twice", p))
		}
		seen[p] = true
	}
	for i, c := range cmds {
		switch {
		case strings.TrimSpace(c.GetName()) == "":
			bad = append(bad, fmt.Sprintf("slash command %d has no name", i+1))
		case c.GetDispatch() == slashcommandv1.Dispatch_DISPATCH_UNSPECIFIED:
			bad = append(bad, fmt.Sprintf("slash command %q has no dispatch", c.GetName()))
		case c.GetDispatch() == slashcommandv1.Dispatch_DISPATCH_DIRECT_INVOKE && c.GetToolName() == "":
			bad = append(bad, fmt.Sprintf("slash command %q dispatches to a tool but names none", c.GetName()))
		case c.GetDispatch() == slashcommandv1.Dispatch_DISPATCH_PROMPT_EXPANSION && c.GetTemplate() == "":
			bad = append(bad, fmt.Sprintf("slash command %q expands a prompt but has no template", c.GetName()))
		}
	}
	return strings.Join(bad, "; "), len(points)+len(cmds) > 0
}
