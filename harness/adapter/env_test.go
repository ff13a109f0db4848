package adapter

import (
	"bufio"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBoxMinimalEnv(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/home/k", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB",
		"GOPATH=/go", "VIRTUAL_ENV=/v", "JAVA_HOME=/j", "TMPDIR=/t",
		"GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=k", "OPENAI_API_KEY=sk", "TERM=xterm",
		"HTTPS_PROXY=http://u:p@proxy", "GOPROXY=https://u:p@goproxy", "LCX=no", "=odd", "noequals",
	}
	want := []string{
		"PATH=/usr/bin", "HOME=/home/k", "LANG=C.UTF-8", "LC_ALL=C", "LC_TIME=en_GB",
		"GOPATH=/go", "VIRTUAL_ENV=/v", "JAVA_HOME=/j", "TMPDIR=/t",
	}
	if d := cmp.Diff(want, MinimalEnv(in)); d != "" {
		t.Errorf("MinimalEnv (-want +got):\n%s", d)
	}
}

func TestBoxResolveEnv(t *testing.T) {
	lookup := func(n string) (string, bool) {
		v, ok := map[string]string{"API_KEY": "k=1", "EMPTY": ""}[n]
		return v, ok
	}
	got, err := ResolveEnv([]string{"API_KEY", "EMPTY", "MODE=fast=yes", "BLANK="}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"API_KEY=k=1", "EMPTY=", "MODE=fast=yes", "BLANK="}, got); d != "" {
		t.Errorf("ResolveEnv (-want +got):\n%s", d)
	}
	for spec, want := range map[string]string{
		"UNSET": "UNSET is not set in conform's environment",
		"=x":    "no variable name",
		"A B=1": "is not a variable name",
	} {
		if _, err := ResolveEnv([]string{spec}, lookup); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ResolveEnv(%q) = %v, want an error saying %q", spec, err, want)
		}
	}
}

func TestBoxMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"PATH=/a", "HOME=/h"}, "PATH=/b", "X=1", "X=2")
	if d := cmp.Diff([]string{"HOME=/h", "PATH=/b", "X=2"}, got); d != "" {
		t.Errorf("mergeEnv (-want +got):\n%s", d)
	}
}

// TestBoxSubprocessEnv: the kernel sees the minimal environment, what Env
// adds, and its marker; nothing else of conform's environment.
func TestBoxSubprocessEnv(t *testing.T) {
	t.Setenv("CONFORM_TEST_SECRET_TOKEN", "do-not-leak-7f3a")
	t.Setenv("LC_CONFORM_TEST", "passed-by-prefix")
	ep, err := Subprocess{Argv: []string{"env"}, Env: []string{"EXTRA=1", "PATH=/override"}}.Launch(t.Context())
	if err != nil {
		t.Skip("no env command:", err)
	}
	defer ep.Close()
	var got []string
	sc := bufio.NewScanner(ep.Out)
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	// Failures name variables, never print values: this test's own
	// environment may hold real secrets.
	for _, w := range []string{"EXTRA=1", "PATH=/override", "LC_CONFORM_TEST=passed-by-prefix"} {
		if !slices.Contains(got, w) {
			t.Errorf("kernel environment lacks %s", w)
		}
	}
	markers := 0
	for _, kv := range got {
		name, _, _ := strings.Cut(kv, "=")
		if strings.Contains(kv, "do-not-leak") {
			t.Errorf("the kernel got %s", name)
		}
		if name == MarkerEnv {
			markers++
			continue
		}
		if name != "EXTRA" && !slices.Contains(PassedEnv, name) && !strings.HasPrefix(name, "LC_") {
			t.Errorf("the kernel got %s, which is not in the minimal environment", name)
		}
	}
	if markers != 1 {
		t.Errorf("%d %s entries, want 1", markers, MarkerEnv)
	}
}
