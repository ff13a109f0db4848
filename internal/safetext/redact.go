package safetext

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
)

// secretWords mark a variable name as holding a secret, matched
// case-insensitively anywhere in the name. PASS catches DB_PASS and
// SMTP_PASS as well as PASSWORD and PASSWD; CRED catches CREDENTIAL(S).
var secretWords = []string{"TOKEN", "KEY", "SECRET", "PASS", "CRED", "AUTH", "PRIVATE", "SESSION", "COOKIE"}

// harmlessNames match a secret word but hold well-known values that are not
// secret and would otherwise be redacted from ordinary text (a desktop
// session's "user" or "x11", a socket path).
var harmlessNames = map[string]bool{
	"XDG_SESSION_ID": true, "XDG_SESSION_TYPE": true, "XDG_SESSION_CLASS": true,
	"XDG_SESSION_DESKTOP": true, "XDG_SESSION_PATH": true,
	"DESKTOP_SESSION": true, "SESSION_MANAGER": true, "DBUS_SESSION_BUS_ADDRESS": true,
	"SSH_AUTH_SOCK": true, "XAUTHORITY": true, "SSH_ASKPASS": true, "GIT_ASKPASS": true,
	"SUDO_ASKPASS": true, "KEYTIMEOUT": true,
}

// harmlessValues are values too common in ordinary text to redact: replacing
// every "true" in a failure text would hide more than it protects.
var harmlessValues = map[string]bool{
	"true": true, "false": true, "yes": true, "none": true, "null": true, "unset": true,
	"enabled": true, "disabled": true, "default": true, "auto": true, "user": true,
}

// minSecretLen is the shortest value redacted: "1", "on" and "no" are
// everywhere in failure texts, and a secret that short protects nothing.
const minSecretLen = 4

// Redactor replaces the values of secret-looking environment variables in
// text with "[redacted:NAME]". The zero value and nil redact nothing.
type Redactor struct {
	names    []string
	replacer *strings.Replacer
}

// EnvironRedactor is NewRedactor over conform's own environment.
func EnvironRedactor() *Redactor {
	return NewRedactor(os.Environ())
}

// NewRedactor collects, from environ ("NAME=value" entries as os.Environ
// gives them), the variables whose name contains a secret word (TOKEN, KEY,
// SECRET, PASS, CREDENTIAL, AUTH, PRIVATE, SESSION, COOKIE, any case),
// except well-known harmless ones, values shorter than four bytes and values
// such as "true". Besides each value as it is, its JSON-escaped forms are
// redacted too, since the message log holds the kernel's JSON lines.
func NewRedactor(environ []string) *Redactor {
	type secret struct{ name, value string }
	var secrets []secret
	var names []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !secretName(name) || len(value) < minSecretLen || harmlessValues[strings.ToLower(value)] {
			continue
		}
		names = append(names, name)
		for _, form := range forms(value) {
			secrets = append(secrets, secret{name, form})
		}
	}
	if len(secrets) == 0 {
		return &Redactor{}
	}
	// Longest first, so a secret that contains another is redacted whole:
	// strings.Replacer tries its pairs in argument order at each position.
	slices.SortStableFunc(secrets, func(a, b secret) int {
		if d := len(b.value) - len(a.value); d != 0 {
			return d
		}
		return strings.Compare(a.name, b.name)
	})
	pairs := make([]string, 0, 2*len(secrets))
	for _, s := range secrets {
		pairs = append(pairs, s.value, marker(s.name))
	}
	slices.Sort(names)
	return &Redactor{names: slices.Compact(names), replacer: strings.NewReplacer(pairs...)}
}

// Redact returns s with every secret value replaced by its marker.
func (r *Redactor) Redact(s string) string {
	if r == nil || r.replacer == nil {
		return s
	}
	return r.replacer.Replace(s)
}

// Names returns the names of the variables whose values are redacted,
// sorted, so that a run can say what it hides without saying what it is.
func (r *Redactor) Names() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.names)
}

func secretName(name string) bool {
	up := strings.ToUpper(name)
	if harmlessNames[up] {
		return false
	}
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// forms returns value and the distinct forms a JSON encoder writes it in
// inside a string, with and without HTML escaping.
func forms(value string) []string {
	out := []string{value}
	for _, escapeHTML := range []bool{false, true} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(escapeHTML)
		if enc.Encode(value) != nil {
			continue
		}
		s := strings.TrimSuffix(buf.String(), "\n")
		s = s[1 : len(s)-1]
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// marker names the variable, unless its name is odd enough (the environment
// allows any byte but '=') to need escaping itself.
func marker(name string) string {
	for _, c := range []byte(name) {
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return "[redacted]"
		}
	}
	return "[redacted:" + name + "]"
}
