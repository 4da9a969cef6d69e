package service

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/testutil"
	"github.com/memex-archive/memex/memory"
)

func TestExportFilesInRepository(t *testing.T) {
	repo, _ := filepath.EvalSymlinks(testutil.NewRepo(t, "").Dir)
	sub := filepath.Join(repo, "pkg", "auth")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	if got, err := SkillFile(""); err != nil || got != filepath.Join(repo, ".claude", "skills", memory.SkillName, "SKILL.md") {
		t.Fatalf("skill file: %q %v", got, err)
	}
	if got, err := SkillFile("/x/skills"); err != nil || got != filepath.Join("/x/skills", memory.SkillName, "SKILL.md") {
		t.Fatalf("skill file under --dir: %q %v", got, err)
	}
	if got, err := AgentsFile(""); err != nil || got != filepath.Join(repo, "AGENTS.md") {
		t.Fatalf("agents file: %q %v", got, err)
	}
	if got, err := AgentsFile("docs/AGENTS.md"); err != nil || got != "docs/AGENTS.md" {
		t.Fatalf("agents file given: %q %v", got, err)
	}
}

func TestExportFilesOutsideRepository(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	t.Chdir(dir)
	if root, _ := RepoRoot(); root != dir {
		t.Skipf("%s is inside a repository", dir)
	}
	if got, err := AgentsFile(""); err != nil || got != filepath.Join(dir, "AGENTS.md") {
		t.Fatalf("agents file outside a repository: %q %v", got, err)
	}
}

func TestExportAgentsMDKeepsTheRestAndIsStable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "AGENTS.md")
	res := memory.ProceduresResult{Project: "p", Sessions: 1}
	if data, err := AgentsMD.Content(path, res); err != nil || !strings.Contains(string(data), "memex:procedures begin") {
		t.Fatalf("agents-md of a missing file: %q %v", data, err)
	}
	os.WriteFile(path, []byte("# Notes\n\nkeep me\n"), 0o644)
	if got, wrote, err := AgentsMD.Write(path, res); err != nil || !wrote || got != path {
		t.Fatalf("first export: %q %v %v", got, wrote, err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "keep me") || !strings.Contains(string(b), "memex:procedures end") {
		t.Fatalf("AGENTS.md after export:\n%s", b)
	}
	if _, wrote, err := AgentsMD.Write(path, res); err != nil || wrote {
		t.Fatalf("export again with nothing new: wrote %v %v", wrote, err)
	}
	if data, _ := AgentsMD.Content(path, res); string(data) != string(b) {
		t.Fatalf("--stdout differs from the file written")
	}

	dir := t.TempDir()
	skill := filepath.Join(dir, memory.SkillName, "SKILL.md")
	if got, wrote, err := Skill.Write(dir, res); err != nil || !wrote || got != skill {
		t.Fatalf("skill export: %q %v %v", got, wrote, err)
	}
	if b, _ := os.ReadFile(skill); string(b) != string(memory.Skill(res)) {
		t.Fatalf("SKILL.md: %q", b)
	}
	if _, wrote, err := Skill.Write(dir, res); err != nil || wrote {
		t.Fatalf("skill export again: wrote %v %v", wrote, err)
	}
}

// TestExportOfAProjectWithoutSessions: a project memex has seen no run of
// (a mistyped --project) exports nothing: the file it names is left as it
// was, and the error says why.
func TestExportOfAProjectWithoutSessions(t *testing.T) {
	dir := t.TempDir()
	skill := filepath.Join(dir, memory.SkillName, "SKILL.md")
	good := memory.ProceduresResult{Project: "p", Sessions: 3}
	if _, _, err := Skill.Write(dir, good); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(skill)
	agents := filepath.Join(dir, "AGENTS.md")
	os.WriteFile(agents, []byte("keep me\n"), 0o644)
	for _, c := range []struct {
		x     Export
		given string
		file  string
		want  []byte
	}{{Skill, dir, skill, before}, {AgentsMD, agents, agents, []byte("keep me\n")}} {
		_, wrote, err := c.x.Write(c.given, memory.ProceduresResult{Project: "nope"})
		if wrote || !errors.Is(err, memex.ErrNotFound) || !strings.Contains(err.Error(), `project "nope": no run archived`) {
			t.Errorf("export of an unknown project to %s: wrote %v, %v", c.file, wrote, err)
		}
		if b, _ := os.ReadFile(c.file); string(b) != string(c.want) {
			t.Errorf("%s changed: %q", c.file, b)
		}
	}
}
