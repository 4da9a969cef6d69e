package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgentsMDReplacesItsSectionOnly(t *testing.T) {
	s := newSession(t, "s1")
	for i := 0; i < 3; i++ {
		s.run("go test ./...", 0, "ok")
	}
	s2 := newSession(t, "s2")
	s2.run("go test ./...", 0, "ok")
	r := ProceduresResult{Project: "p", Sessions: 2, Runs: 4, Rule: DefaultRule,
		Procedures: BuildProcedures(append(Observations(s.entries), Observations(s2.entries)...), DefaultRule)}
	if len(r.Procedures) != 1 {
		t.Fatalf("procedures %+v", r.Procedures)
	}
	md := r.Markdown()
	if !strings.Contains(md, "Usual: `go test ./...` — passed 4 of 4 runs in 2 sessions, last at "+r.Procedures[0].LastPassed.String()) {
		t.Fatalf("markdown %s", md)
	}
	old := []byte("# Agents\n\nKeep it short.\n")
	once := AgentsMD(old, r)
	if !strings.HasPrefix(string(once), string(old)+"\n"+agentsBegin) || !strings.HasSuffix(string(once), agentsEnd+"\n") {
		t.Fatalf("appended %q", once)
	}
	if twice := AgentsMD(once, r); string(twice) != string(once) {
		t.Fatalf("not idempotent:\n%s\n---\n%s", once, twice)
	}
	// Text after the section stays, and a changed section replaces the old.
	withTail := append(append([]byte{}, once...), "\n## Later\n"...)
	r.Runs = 5
	next := string(AgentsMD(withTail, r))
	if strings.Count(next, agentsBegin) != 1 || !strings.HasSuffix(next, agentsEnd+"\n\n## Later\n") || !strings.Contains(next, "from 5 runs") {
		t.Fatalf("replaced %q", next)
	}
	if sk := string(Skill(r)); !strings.HasPrefix(sk, "---\nname: project-procedures\ndescription: ") || !strings.Contains(sk, md[:40]) {
		t.Fatalf("skill %q", sk)
	}
	if got := AgentsMD(nil, r); !strings.HasPrefix(string(got), agentsBegin) {
		t.Fatalf("new file %q", got)
	}
}

// TestWriteExportOnlyWhenChanged: the file is written when its content
// would change, and left alone (not even rewritten) otherwise.
func TestWriteExportOnlyWhenChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skills", "SKILL.md")
	render := func([]byte) []byte { return []byte("procedures\n") }
	for i, want := range []bool{true, false} {
		wrote, err := WriteExport(path, render)
		if err != nil || wrote != want {
			t.Fatalf("export %d: wrote %v, %v; want %v", i, wrote, err, want)
		}
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "procedures\n" {
		t.Fatalf("file %q %v", b, err)
	}
}
