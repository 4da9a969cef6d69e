package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex/api"
)

// Runs typed in a terminal, outside any agent's session, are one session
// per project and day: memex sessions lists it and memex replay walks it.
func TestRunOutsideASessionIsListedAndReplayed(t *testing.T) {
	for _, v := range []string{"MEMEX_SESSION", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID"} {
		t.Setenv(v, "")
	}
	home := t.TempDir()
	proj := filepath.Join(t.TempDir(), "demo")
	if err := os.Mkdir(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(proj)
	for _, word := range []string{"first", "second"} {
		if r := run(t, home, nil, "run", "--quiet", "--", "echo", word); r.code != 0 {
			t.Fatal(r)
		}
	}
	if r := run(t, home, nil, "run", "--quiet", "--session", "mine", "--", "echo", "third"); r.code != 0 {
		t.Fatal(r)
	}
	r := run(t, home, nil, "sessions", "--json")
	var list api.SessionList
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != 0 {
		t.Fatalf("sessions: %+v, %v", r, err)
	}
	want := "run-demo-" + time.Now().Format(time.DateOnly)
	got := map[string]int{}
	for _, s := range list.Sessions {
		got[s.Session] = s.Entries
	}
	if len(got) != 2 || got[want] != 2 || got["mine"] != 1 {
		t.Fatalf("sessions %v, want %s with 2 entries and mine with 1", got, want)
	}
	rp := run(t, home, nil, "replay", want, "--full")
	if rp.code != 0 || !strings.Contains(rp.stdout, "echo first") || strings.Index(rp.stdout, "first") > strings.Index(rp.stdout, "second") {
		t.Fatalf("replay %s: %+v", want, rp)
	}
}
