package safetext_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentconform/conform/internal/safetext"
)

var fakeEnv = []string{
	"HOME=/home/ci",
	"PATH=/usr/bin:/bin",
	"GITHUB_TOKEN=ghp_abcdefghijklmnop",
	"aws_secret_access_key=wJalrXUtnFEMI/K7MDENG",
	"DB_PASS=hunter22",
	"MY_PASSWD=pa55wd-x",
	"GOOGLE_APPLICATION_CREDENTIALS=/secrets/gcp.json",
	"HTTP_AUTHORIZATION=Bearer xyz.abc.def",
	"SSH_PRIVATE=-----BEGIN KEY-----",
	"SESSION_ID=sess-0001",
	"COOKIE_JAR=jar=1; other=2",
	"API_KEY=abcd1234",          // a prefix of LONG_API_KEY's value
	"LONG_API_KEY=abcd1234wxyz", // redacted whole, not as API_KEY + "wxyz"
	"JSON_SECRET=q\"<&>\\z",
	"SHORT_TOKEN=abc",    // too short to redact
	"SOME_KEY=1",         // too short
	"FEATURE_TOKEN=true", // harmless value
	"XDG_SESSION_CLASS=user",
	"XDG_SESSION_TYPE=wayland",
	"SSH_AUTH_SOCK=/tmp/ssh-agent.sock",
	"DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
	"EMPTY_SECRET=",
	"NOEQUALS",
	"ODD-NAME.TOKEN=odd-value-42",
}

func TestRedact(t *testing.T) {
	r := safetext.NewRedactor(fakeEnv)
	for _, c := range []struct{ in, want string }{
		{"token ghp_abcdefghijklmnop used", "token [redacted:GITHUB_TOKEN] used"},
		{"AWS wJalrXUtnFEMI/K7MDENG!", "AWS [redacted:aws_secret_access_key]!"},
		{"db hunter22 and pa55wd-x", "db [redacted:DB_PASS] and [redacted:MY_PASSWD]"},
		{"file /secrets/gcp.json", "file [redacted:GOOGLE_APPLICATION_CREDENTIALS]"},
		{"Authorization: Bearer xyz.abc.def", "Authorization: [redacted:HTTP_AUTHORIZATION]"},
		{"-----BEGIN KEY-----", "[redacted:SSH_PRIVATE]"},
		{"sess-0001 jar=1; other=2", "[redacted:SESSION_ID] [redacted:COOKIE_JAR]"},
		{"abcd1234wxyz then abcd1234", "[redacted:LONG_API_KEY] then [redacted:API_KEY]"},
		{`raw q"<&>\z`, "raw [redacted:JSON_SECRET]"},
		{`json {"v":"q\"<&>\\z"}`, `json {"v":"[redacted:JSON_SECRET]"}`},
		{`html-escaped json {"v":"q\"\u003c\u0026\u003e\\z"}`, `html-escaped json {"v":"[redacted:JSON_SECRET]"}`},
		{"odd-value-42", "[redacted]"},
		// Not secrets: short values, harmless values and variables.
		{"abc 1 true user wayland /tmp/ssh-agent.sock unix:path=/run/user/1000/bus /home/ci /usr/bin:/bin",
			"abc 1 true user wayland /tmp/ssh-agent.sock unix:path=/run/user/1000/bus /home/ci /usr/bin:/bin"},
	} {
		if got := r.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	wantNames := []string{"API_KEY", "COOKIE_JAR", "DB_PASS", "GITHUB_TOKEN", "GOOGLE_APPLICATION_CREDENTIALS",
		"HTTP_AUTHORIZATION", "JSON_SECRET", "LONG_API_KEY", "MY_PASSWD", "ODD-NAME.TOKEN", "SESSION_ID", "SSH_PRIVATE",
		"aws_secret_access_key"}
	if diff := cmp.Diff(wantNames, r.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

func TestRedactNothing(t *testing.T) {
	for name, r := range map[string]*safetext.Redactor{
		"nil":        nil,
		"zero":       {},
		"no secrets": safetext.NewRedactor([]string{"HOME=/root", "PATH=/bin"}),
		"empty":      safetext.NewRedactor(nil),
	} {
		if got := r.Redact("text ghp_abcdefghijklmnop"); got != "text ghp_abcdefghijklmnop" {
			t.Errorf("%s redactor changed text: %q", name, got)
		}
		if len(r.Names()) != 0 {
			t.Errorf("%s redactor names %v", name, r.Names())
		}
	}
}

// EnvironRedactor reads conform's own environment when it is called.
func TestEnvironRedactor(t *testing.T) {
	t.Setenv("CONFORM_SAFETEXT_TEST_TOKEN", "tok-environ-5150")
	got := safetext.EnvironRedactor().Redact("echo tok-environ-5150")
	if got != "echo [redacted:CONFORM_SAFETEXT_TEST_TOKEN]" {
		t.Errorf("EnvironRedactor missed a secret of the environment: %q", got)
	}
}

// A redacted string escaped for any format still holds no secret, in any of
// the forms a kernel would echo it.
func TestRedactThenEscape(t *testing.T) {
	r := safetext.NewRedactor(fakeEnv)
	secret := `q"<&>\z`
	enc, _ := json.Marshal(secret)
	in := "a " + secret + "\r\n" + string(enc) + " \x1b[1m" + secret
	for name, out := range map[string]string{
		"Text":           safetext.Text(r.Redact(in)),
		"Line":           safetext.Line(r.Redact(in)),
		"MarkdownInline": safetext.MarkdownInline(r.Redact(in)),
		"MarkdownFence":  safetext.MarkdownFence(r.Redact(in), "  "),
		"HTML":           safetext.HTML(r.Redact(in)),
	} {
		if strings.Contains(out, "<&>") || strings.Contains(out, "&lt;&amp;&gt;") || strings.Contains(out, `\<\&\>`) {
			t.Errorf("%s output holds the secret: %q", name, out)
		}
	}
}
