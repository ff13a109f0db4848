package launch

import (
	"fmt"
	"strings"

	commonv1 "github.com/agentconform/conform/api/gen/pluggableharness/common/v1"
)

// IdentityProblems is what is wrong with the identity a plugin's Describe
// reports, "" when nothing: a name, a version, the category it was
// launched as, and the handshake protocol version it was launched with.
// The last is upstream's definition of ProducerRef.protocol_version (the
// go-plugin protocol version the build was compiled against), and a plugin
// that completed this handshake was compiled against ProtocolVersion; a
// kernel that pins builds by the reported identity would otherwise record
// a version the plugin does not speak.
func IdentityProblems(pr *commonv1.ProducerRef, want commonv1.Category) string {
	var bad []string
	if strings.TrimSpace(pr.GetName()) == "" {
		bad = append(bad, "no name")
	}
	if strings.TrimSpace(pr.GetVersion()) == "" {
		bad = append(bad, "no version")
	}
	if pr.GetCategory() != want {
		bad = append(bad, fmt.Sprintf("category %s, not %s", pr.GetCategory(), want))
	}
	if v := pr.GetProtocolVersion(); v != ProtocolVersion {
		bad = append(bad, fmt.Sprintf("protocol_version %d, though it completed the handshake of protocol version %d", v, ProtocolVersion))
	}
	if len(bad) == 0 {
		return ""
	}
	return "Describe's producer has " + strings.Join(bad, ", ")
}
