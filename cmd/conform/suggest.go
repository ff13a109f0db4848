package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentconform/conform/internal/editdist"
)

// unknownFlagRe reads pflag's "unknown flag: --junit-xml".
var unknownFlagRe = regexp.MustCompile(`^unknown flag: --([^\s=]+)`)

// flagError is every command's answer to a flag it cannot parse: pflag's
// message, and for a misspelt flag the ones it may have meant, as cobra
// already does for a misspelt command; always a usage error (exit 2).
func flagError(cmd *cobra.Command, err error) error {
	m := unknownFlagRe.FindStringSubmatch(err.Error())
	if m == nil {
		return usage("%v (conform %s --help lists the flags)", err, cmd.Name())
	}
	if near := nearFlags(cmd, m[1]); len(near) > 0 {
		return usage("%v: did you mean --%s?", err, strings.Join(near, " or --"))
	}
	return usage("%v (conform %s --help lists the flags)", err, cmd.Name())
}

// nearFlags are the flags of cmd a misspelt name may have meant: one that
// starts the name or that the name starts (--junit-xml, --report), or one
// within a few edits of it (--tag, --markdwon), closest first.
func nearFlags(cmd *cobra.Command, name string) []string {
	name = strings.ToLower(name)
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if f.Hidden || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		d := editdist.Bytes(name, f.Name)
		switch {
		case len(f.Name) >= 3 && (strings.HasPrefix(name, f.Name) || strings.HasPrefix(f.Name, name)):
			d = min(d, 1)
		case d > max(2, len(f.Name)/4):
			return
		}
		cs = append(cs, cand{f.Name, d})
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs {
		if c.d > cs[0].d || len(out) == 3 {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// nearTags are the tags of the suite a tag of an expression that selects
// nothing may have meant (@TA-1 for @TA-01, @Must for @must).
func nearTags(expr string, known []string) []string {
	var out []string
	for _, t := range regexp.MustCompile(`@[^\s,()~&|]+`).FindAllString(expr, -1) {
		if containsFold(known, t) && !contains(known, t) {
			out = append(out, fmt.Sprintf("%s (tags are case-sensitive)", exactFold(known, t)))
			continue
		}
		if contains(known, t) {
			continue
		}
		best, bestD := "", -1
		for _, k := range known {
			if d := editdist.Bytes(strings.ToLower(t), strings.ToLower(k)); bestD < 0 || d < bestD {
				best, bestD = k, d
			}
		}
		if bestD >= 0 && bestD <= 2 {
			out = append(out, best)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func containsFold(ss []string, s string) bool { return exactFold(ss, s) != "" }

func exactFold(ss []string, s string) string {
	for _, x := range ss {
		if strings.EqualFold(x, s) {
			return x
		}
	}
	return ""
}
