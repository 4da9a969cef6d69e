package service

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	res := memory.ProceduresResult{Project: "p"}
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
