package service

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memex-archive/memex"
)

func TestProjectArg(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("api", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"github.com/acme/api", "github.com/acme/api"},
		{"./api", filepath.Join(dir, "api")},
		{"./api/../api/", filepath.Join(dir, "api")},
		{"./missing", filepath.Join(dir, "missing")},
	} {
		if got := ProjectArg(c.in); got != c.want {
			t.Errorf("ProjectArg(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestScope(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, v := range []string{"MEMEX_SESSION", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID"} {
		t.Setenv(v, "")
	}
	if s, p := Scope("", ""); s != "" || p != dir {
		t.Errorf("outside a session: %q %q, want the directory's project %s", s, p, dir)
	}
	t.Setenv("CODEX_THREAD_ID", "thread-1")
	if s, p := Scope("", ""); s != "thread-1" || p != "" {
		t.Errorf("in a session: %q %q, want the session alone", s, p)
	}
	if s, p := Scope("", "p"); s != "" || p != "p" {
		t.Errorf("a project given: %q %q", s, p)
	}
	if s, p := Scope("mine", ""); s != "mine" || p != "" {
		t.Errorf("a session given: %q %q", s, p)
	}
}

func TestFillDefaults(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("MEMEX_SESSION", "s1")
	e := memex.Entry{}
	FillDefaults(&e)
	if e.Session != "s1" || e.Project != dir {
		t.Errorf("defaults: session %q project %q, want s1 and %s", e.Session, e.Project, dir)
	}
	e = memex.Entry{Session: "mine", Project: "p"}
	FillDefaults(&e)
	if e.Session != "mine" || e.Project != "p" {
		t.Errorf("a caller's session and project were replaced: %+v", e)
	}
}
