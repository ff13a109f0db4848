package steps

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/agentconform/conform/fakes"
)

var (
	callRe = regexp.MustCompile(`^\s*([A-Za-z_][\w.-]*)\(([^)]*)\)\s*`)
	argRe  = regexp.MustCompile(`^\s*([A-Za-z_]\w*)\s+("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false)\s*(,|$)`)
)

// parseCalls reads `read(path "a"), write(path "b", mode "x")`.
func parseCalls(s string) ([]fakes.Call, error) {
	var calls []fakes.Call
	rest := strings.TrimSpace(s)
	for rest != "" {
		m := callRe.FindStringSubmatch(rest)
		if m == nil {
			return nil, fmt.Errorf("cannot read a tool call at %q; write calls as name(key \"value\", key 2)", rest)
		}
		input, err := parseArgs(m[2])
		if err != nil {
			return nil, fmt.Errorf("call %s: %w", m[1], err)
		}
		calls = append(calls, fakes.Call{Name: m[1], Input: input})
		rest = strings.TrimSpace(rest[len(m[0]):])
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "and "))
	}
	if len(calls) == 0 {
		return nil, fmt.Errorf("no tool call in %q", s)
	}
	return calls, nil
}

func parseArgs(s string) (json.RawMessage, error) {
	obj := map[string]any{}
	rest := strings.TrimSpace(s)
	for rest != "" {
		m := argRe.FindStringSubmatch(rest)
		if m == nil {
			return nil, fmt.Errorf("cannot read argument at %q", rest)
		}
		var v any
		if strings.HasPrefix(m[2], `"`) {
			str, err := strconv.Unquote(m[2])
			if err != nil {
				return nil, err
			}
			v = str
		} else if err := json.Unmarshal([]byte(m[2]), &v); err != nil {
			return nil, err
		}
		obj[m[1]] = v
		rest = strings.TrimSpace(rest[len(m[0]):])
	}
	return json.Marshal(obj)
}

// quotedList reads `"a", "b" and "c"` into its strings.
func quotedList(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// ordinal reads "1st", "2nd", "3", "4th".
func ordinal(s string) (int, error) {
	s = strings.TrimRight(s, "stndrh")
	return strconv.Atoi(s)
}
