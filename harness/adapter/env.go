package adapter

import (
	"fmt"
	"slices"
	"strings"
)

// PassedEnv names the variables of conform's own environment that a
// subprocess kernel gets without asking: what a process needs to find its
// interpreter, its home, its locale and its temporary folder, and the
// toolchain settings that decide which interpreter, packages and caches
// `python3 k.py`, `go run .`, `node k.js` or `cargo run` pick up. Everything
// else (tokens, cloud credentials, proxies with passwords in them) stays
// with conform; pass more with Subprocess.Env (`--env NAME`).
//
// TERM is not passed: the kernel's stdio are pipes, and a TERM invites
// colour and cursor codes into the stderr that ends up in reports. URLs that
// may carry credentials (GOPROXY, GOSUMDB, HTTP_PROXY and friends) are not
// passed either.
var PassedEnv = []string{
	// The process itself.
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ",
	"LANG", "LANGUAGE", // and every LC_* (PassedEnvPrefixes)
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"LD_LIBRARY_PATH",
	// Where the system's certificate bundle is, for a kernel whose
	// toolchain fetches packages as it starts (paths, not secrets).
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
	// Go.
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOENV", "GOTOOLCHAIN",
	"GOPRIVATE", "GONOSUMDB", "GOTMPDIR", "GOCOVERDIR", "CGO_ENABLED",
	// Python.
	"PYTHONPATH", "PYTHONHOME", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE",
	"VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_ROOT", "PYENV_VERSION", "UV_CACHE_DIR",
	// JavaScript.
	"NODE_PATH", "NODE_OPTIONS", "NVM_DIR", "NVM_BIN", "DENO_DIR", "BUN_INSTALL",
	// JVM, Rust, Ruby, .NET.
	"JAVA_HOME", "CLASSPATH", "JAVA_TOOL_OPTIONS",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "CARGO_TARGET_DIR",
	"GEM_HOME", "GEM_PATH", "BUNDLE_GEMFILE",
	"DOTNET_ROOT",
}

// PassedEnvPrefixes are name prefixes passed like PassedEnv.
var PassedEnvPrefixes = []string{"LC_"}

// MarkerEnv is set in every subprocess kernel's environment to a value
// unique to that kernel instance; conform finds by it the processes a kernel
// started that have left its process tree (see the package doc).
const MarkerEnv = "CONFORM_KERNEL_ID"

// MinimalEnv keeps the entries of environ (NAME=VALUE, as os.Environ gives
// them) that PassedEnv or PassedEnvPrefixes name.
func MinimalEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if slices.Contains(PassedEnv, name) || slices.ContainsFunc(PassedEnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			out = append(out, kv)
		}
	}
	return out
}

// ResolveEnv turns --env values into NAME=VALUE entries: "NAME=VALUE" sets
// the variable, a bare "NAME" passes on its value in conform's environment
// (lookup, normally os.LookupEnv). A bare name that is not set is an error
// rather than a silent omission: a CI script that forgot to export a key
// should hear so from conform, not from a kernel that fails oddly.
func ResolveEnv(specs []string, lookup func(string) (string, bool)) ([]string, error) {
	out := make([]string, 0, len(specs))
	for _, s := range specs {
		name, value, set := strings.Cut(s, "=")
		if err := checkEnvName(name); err != nil {
			return nil, fmt.Errorf("--env %q: %w", s, err)
		}
		if !set {
			v, ok := lookup(name)
			if !ok {
				return nil, fmt.Errorf("--env %s: %s is not set in conform's environment (use --env %s= to pass it empty)", name, name, name)
			}
			value = v
		}
		if strings.ContainsRune(value, 0) {
			return nil, fmt.Errorf("--env %s: the value contains a NUL byte", name)
		}
		out = append(out, name+"="+value)
	}
	return out, nil
}

func checkEnvName(name string) error {
	if name == "" {
		return fmt.Errorf("no variable name before '='")
	}
	if strings.ContainsAny(name, "\x00 \t\n") {
		return fmt.Errorf("%q is not a variable name", name)
	}
	return nil
}

// mergeEnv returns base with every entry of over applied in order: an entry
// replaces base's entry of the same name, so the last setting of a name
// wins and no name appears twice (which some libcs resolve first-wins).
func mergeEnv(base []string, over ...string) []string {
	out := slices.Clone(base)
	for _, kv := range over {
		name, _, _ := strings.Cut(kv, "=")
		out = slices.DeleteFunc(out, func(e string) bool {
			n, _, _ := strings.Cut(e, "=")
			return n == name
		})
		out = append(out, kv)
	}
	return out
}
