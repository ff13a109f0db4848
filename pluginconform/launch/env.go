package launch

import "os"

// passedEnv are the variables of conform's environment a plugin gets, the
// same three the upstream launcher passes: a plugin that works only with
// something more from the caller's environment would fail under the kernel.
var passedEnv = []string{"PATH", "HOME", "TMPDIR"}

// BaseEnv returns PATH, HOME and TMPDIR from lookup (normally os.LookupEnv)
// followed by extra (NAME=VALUE entries the user asked for).
func BaseEnv(lookup func(string) (string, bool), extra ...string) []string {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var env []string
	for _, k := range passedEnv {
		if v, ok := lookup(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, extra...)
}
