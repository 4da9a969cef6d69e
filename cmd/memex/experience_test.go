package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// jsonlRun is one shell run of a session in memex's JSONL format.
var experienceProject = "github.com/acme/api"

func jsonlRun(session string, minute int, cmd string, exit int, out string) string {
	b, _ := json.Marshal(map[string]any{"project": experienceProject, "session": session, "agent": "claude-code", "kind": "tool",
		"tool": "Bash", "input": cmd, "content": out, "exit": exit, "time": fmt.Sprintf("2026-03-01T10:%02d:00Z", minute),
		"key": fmt.Sprintf("%s:%d", session, minute)})
	return string(b) + "\n"
}

func jsonlEdit(session string, minute int, path string) string {
	b, _ := json.Marshal(map[string]any{"project": experienceProject, "session": session, "agent": "claude-code", "kind": "tool",
		"tool": "Edit", "input": `{"file_path":"` + path + `","old_string":"a","new_string":"b"}`,
		"content": "The file " + path + " has been updated.", "time": fmt.Sprintf("2026-03-01T10:%02d:00Z", minute),
		"key": fmt.Sprintf("%s:%d", session, minute)})
	return string(b) + "\n"
}

type lessonJSON struct {
	ID, Status, Text string
	Cites            []string
}

func lessonsOf(t *testing.T, home string) []lessonJSON {
	t.Helper()
	r := run(t, home, nil, "lessons", "--project", "github.com/acme/api", "--json")
	if r.code != 0 {
		t.Fatalf("lessons: %+v", r)
	}
	var ls []lessonJSON
	if err := json.Unmarshal([]byte(r.stdout), &ls); err != nil {
		t.Fatalf("lessons %q: %v", r.stdout, err)
	}
	return ls
}

// TestExperienceEndToEnd: ingest distils lessons and procedures, again
// and again without change; export writes them idempotently; forget
// removes an entry from the lessons that cite it; a session that goes on
// updates its lesson.
func TestExperienceEndToEnd(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	file := filepath.Join(dir, "sessions.jsonl")
	var b strings.Builder
	b.WriteString(jsonlRun("s1", 1, "go test ./auth", 1, "--- FAIL: TestRefresh (0.00s)\n    token_test.go:9: token expired check\nFAIL\nFAIL\tgithub.com/acme/api/auth\t0.01s\n"))
	b.WriteString(jsonlEdit("s1", 2, "auth/token.go"))
	b.WriteString(jsonlRun("s1", 3, "go test ./auth", 0, "ok  \tgithub.com/acme/api/auth\t0.01s\n"))
	b.WriteString(jsonlRun("s2", 10, "go test ./...", 0, "ok  \tgithub.com/acme/api/auth\t0.01s\n"))
	b.WriteString(jsonlRun("s2", 11, "go test -run TestRefresh ./auth", 0, "ok  \tgithub.com/acme/api/auth\t0.01s\n"))
	b.WriteString(jsonlRun("s2", 12, "go vet ./...", 1, "auth/token.go:4:2: unreachable code\n"))
	b.WriteString(jsonlRun("s2", 13, "ls", 0, "auth\n"))
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, home, nil, "ingest", "jsonl", file, "-q"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	ls := lessonsOf(t, home)
	if len(ls) != 2 {
		t.Fatalf("lessons %+v", ls)
	}
	var fixed, abandoned lessonJSON
	for _, l := range ls {
		switch l.Status {
		case "fixed":
			fixed = l
		case "abandoned":
			abandoned = l
		}
	}
	if !strings.Contains(fixed.Text, "go test ./auth failed") || !strings.Contains(fixed.Text, "fixed by editing auth/token.go") || len(fixed.Cites) != 3 ||
		!strings.Contains(abandoned.Text, "go vet ./... failed") {
		t.Fatalf("lessons %+v", ls)
	}
	show := run(t, home, nil, "show", fixed.ID)
	if show.code != 0 || !strings.Contains(show.stdout, fixed.Cites[1]+"  edited auth/token.go") {
		t.Fatalf("show lesson: %+v", show)
	}

	// Procedures: go test passed 3 times in 2 sessions.
	r := run(t, home, nil, "procedures", "--project", "github.com/acme/api", "--json")
	var procs struct {
		Procedures []struct {
			Family, Command string
			Passed          int
			Variants        []struct{ Delta string }
		}
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &procs) != nil || len(procs.Procedures) != 1 ||
		procs.Procedures[0].Command != "go test <path>" || procs.Procedures[0].Passed != 3 {
		t.Fatalf("procedures %+v: %s", r, r.stdout)
	}

	// Export, twice: the second leaves the files as they are.
	skills := filepath.Join(dir, "skills")
	agents := filepath.Join(dir, "AGENTS.md")
	if err := os.WriteFile(agents, []byte("# Agents\n\nBe kind.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"wrote ", "unchanged"} {
		r := run(t, home, nil, "export", "skills", "--project", "github.com/acme/api", "--dir", skills)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("export skills %d: %+v", i, r)
		}
		r = run(t, home, nil, "export", "agents-md", "--project", "github.com/acme/api", "--file", agents)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Fatalf("export agents-md %d: %+v", i, r)
		}
	}
	skill, err := os.ReadFile(filepath.Join(skills, "project-procedures", "SKILL.md"))
	if err != nil || !strings.HasPrefix(string(skill), "---\nname: project-procedures\n") || !strings.Contains(string(skill), "`go test <path>`") {
		t.Fatalf("SKILL.md %q %v", skill, err)
	}
	md, _ := os.ReadFile(agents)
	if !strings.HasPrefix(string(md), "# Agents\n\nBe kind.\n\n<!-- memex:procedures begin") || !strings.Contains(string(md), fixed.Cites[2]) && !strings.Contains(string(md), "go test") {
		t.Fatalf("AGENTS.md %q", md)
	}

	// Importing again adds nothing and changes no lesson.
	if r := run(t, home, nil, "ingest", "jsonl", file, "-q", "--full"); r.code != 0 {
		t.Fatalf("ingest again: %+v", r)
	}
	if again := lessonsOf(t, home); len(again) != 2 || again[0].ID != ls[0].ID || again[1].ID != ls[1].ID {
		t.Fatalf("lessons changed on a second import: %+v, were %+v", again, ls)
	}

	// Forget the edit: the lesson that cited it no longer does.
	if r := run(t, home, nil, "forget", fixed.Cites[1], "--yes"); r.code != 0 {
		t.Fatalf("forget: %+v", r)
	}
	for _, l := range lessonsOf(t, home) {
		for _, c := range l.Cites {
			if c == fixed.Cites[1] {
				t.Fatalf("lesson %s still cites the forgotten entry", l.Text)
			}
		}
		if l.Status == "fixed" && strings.Contains(l.Text, "auth/token.go") {
			t.Fatalf("lesson %s still names the forgotten edit", l.Text)
		}
	}

	// The second session goes on: go vet passes, its lesson is fixed.
	f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(jsonlEdit("s2", 14, "auth/token.go"))
	f.WriteString(jsonlRun("s2", 15, "go vet ./...", 0, ""))
	f.Close()
	if r := run(t, home, nil, "ingest", "jsonl", file, "-q"); r.code != 0 {
		t.Fatalf("ingest appended: %+v", r)
	}
	n := 0
	for _, l := range lessonsOf(t, home) {
		if strings.Contains(l.Text, "go vet") {
			n++
			if l.Status != "fixed" || !strings.Contains(l.Text, "fixed by editing auth/token.go") {
				t.Fatalf("go vet lesson %+v", l)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d go vet lessons, want 1", n)
	}
}

// TestHookRemindsOfLesson: a command that failed in an earlier session,
// and was fixed there, fails again the same way in a live session: the
// PostToolUse hook adds the lesson's line to the agent's context, once,
// unless MEMEX_LESSONS is off.
func TestHookRemindsOfLesson(t *testing.T) {
	home := t.TempDir()
	repo := testutil.NewRepo(t, "git@github.com:acme/api.git")
	repo.Commit("init", map[string]string{"auth/token.go": "package auth\n"})
	failure := "--- FAIL: TestRefresh (0.00s)\n    token_test.go:9: token expired check\nFAIL\nFAIL\tgithub.com/acme/api/auth\t0.01s\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	os.WriteFile(file, []byte(jsonlRun("s1", 1, "go test ./auth", 1, failure)+jsonlEdit("s1", 2, "auth/token.go")+
		jsonlRun("s1", 3, "go test ./auth", 0, "ok  \tgithub.com/acme/api/auth\t0.01s\n")), 0o644)
	if r := run(t, home, nil, "ingest", "jsonl", file, "-q"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	ls := lessonsOf(t, home)
	if len(ls) != 1 || ls[0].Status != "fixed" {
		t.Fatalf("lessons %+v", ls)
	}
	fail := func(session, id string) result {
		return hostHook(t, home, "claude-code", "PostToolUseFailure", map[string]any{"session_id": session, "cwd": repo.Dir,
			"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": id,
			"tool_input": map[string]any{"command": "go test ./auth"}, "error": "Exit code 1\n" + failure})
	}
	r := fail("live", "toolu_1")
	var out struct {
		HookSpecificOutput struct{ HookEventName, AdditionalContext string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || out.HookSpecificOutput.HookEventName != "PostToolUse" ||
		!strings.Contains(out.HookSpecificOutput.AdditionalContext, "lesson (fixed): go test ./auth failed") ||
		!strings.Contains(out.HookSpecificOutput.AdditionalContext, "[lesson "+ls[0].ID+"]") {
		t.Fatalf("hook output %q: %v", r.stdout, err)
	}
	if r := fail("live", "toolu_2"); r.stdout != "" {
		t.Fatalf("told twice in one session: %q", r.stdout)
	}
	t.Setenv("MEMEX_LESSONS", "off")
	if r := fail("other", "toolu_3"); r.stdout != "" {
		t.Fatalf("told with MEMEX_LESSONS=off: %q", r.stdout)
	}
}

// TestHooksDistilLiveSession: a live session captured by the PostToolUse
// hooks alone (no transcript imported) has its lesson as soon as the
// failing command passes: failed, edited, passed makes a fixed lesson
// citing the three calls; the same hooks delivered again change nothing.
func TestHooksDistilLiveSession(t *testing.T) {
	home := t.TempDir()
	repo := testutil.NewRepo(t, "git@github.com:acme/api.git")
	repo.Commit("init", map[string]string{"auth/token.go": "package auth\n"})
	failure := "--- FAIL: TestRefresh (0.00s)\n    token_test.go:9: token expired check\nFAIL\nFAIL\tgithub.com/acme/api/auth\t0.01s\n"
	calls := []map[string]any{
		{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": "toolu_1",
			"tool_input": map[string]any{"command": "go test ./auth"}, "error": "Exit code 1\n" + failure},
		{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_use_id": "toolu_2",
			"tool_input":    map[string]any{"file_path": filepath.Join(repo.Dir, "auth/token.go"), "old_string": "a", "new_string": "b"},
			"tool_response": map[string]any{"filePath": filepath.Join(repo.Dir, "auth/token.go")}},
		{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_3",
			"tool_input":    map[string]any{"command": "go test ./auth"},
			"tool_response": map[string]any{"stdout": "ok  \tgithub.com/acme/api/auth\t0.01s\n", "stderr": "", "interrupted": false}},
	}
	send := func() {
		for _, c := range calls {
			c["session_id"], c["cwd"] = "live", repo.Dir
			hostHook(t, home, "claude-code", c["hook_event_name"].(string), c)
		}
	}
	send()
	ls := lessonsOf(t, home)
	if len(ls) != 1 || ls[0].Status != "fixed" || !strings.Contains(ls[0].Text, "go test ./auth failed") ||
		!strings.Contains(ls[0].Text, "fixed by editing auth/token.go") || len(ls[0].Cites) != 3 {
		t.Fatalf("lessons after the live calls: %+v", ls)
	}
	send()
	if again := lessonsOf(t, home); len(again) != 1 || again[0].ID != ls[0].ID {
		t.Fatalf("lessons after the same calls again: %+v, were %+v", again, ls)
	}
}

// TestForgetRemovesRunFromProcedures: a passing run that is forgotten is
// no longer counted or cited by the procedure it taught, which stays
// while enough other runs justify it.
func TestForgetRemovesRunFromProcedures(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "runs.jsonl")
	ok := "ok  \tgithub.com/acme/api/auth\t0.01s\n"
	os.WriteFile(file, []byte(jsonlRun("s1", 1, "go test ./auth", 0, ok)+jsonlRun("s1", 2, "go test ./auth", 0, ok)+
		jsonlRun("s2", 3, "go test ./api", 0, ok)+jsonlRun("s2", 4, "go test ./auth", 0, ok)), 0o644)
	if r := run(t, home, nil, "ingest", "jsonl", file, "-q"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	type procs struct {
		Procedures []struct {
			Command string
			Passed  int
		}
	}
	read := func() (procs, string) {
		r := run(t, home, nil, "procedures", "--project", experienceProject, "--json")
		var p procs
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &p) != nil {
			t.Fatalf("procedures: %+v", r)
		}
		return p, r.stdout
	}
	before, text := read()
	gone := run(t, home, nil, "show", "s2:3", "--json")
	var e struct{ ID string }
	if gone.code != 0 || json.Unmarshal([]byte(gone.stdout), &e) != nil || e.ID == "" {
		t.Fatalf("show s2:3: %+v", gone)
	}
	if len(before.Procedures) != 1 || before.Procedures[0].Passed != 4 || !strings.Contains(text, e.ID) {
		t.Fatalf("procedures before forget: %s", text)
	}
	if r := run(t, home, nil, "forget", e.ID, "--yes"); r.code != 0 {
		t.Fatalf("forget: %+v", r)
	}
	after, text := read()
	if len(after.Procedures) != 1 || after.Procedures[0].Passed != 3 || strings.Contains(text, e.ID) {
		t.Fatalf("procedures after forgetting %s: %s", e.ID, text)
	}
}
