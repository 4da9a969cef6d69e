package service

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/memex-archive/memex/memory"
)

// Where memex export writes a project's procedures, and how: the skill
// under a skills folder, the AGENTS.md section between memex's markers.

// SkillFile is the file memex export skills writes: DIR/project-procedures/SKILL.md,
// DIR by default .claude/skills in the repository holding the current
// directory.
func SkillFile(dir string) (string, error) {
	if dir == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(root, ".claude", "skills")
	}
	return filepath.Join(dir, memory.SkillName, "SKILL.md"), nil
}

// AgentsFile is the file memex export agents-md writes: file, by default
// AGENTS.md in the repository holding the current directory.
func AgentsFile(file string) (string, error) {
	if file != "" {
		return file, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "AGENTS.md"), nil
}

// ExportSkill writes res as the skill at path and reports whether the file
// changed.
func ExportSkill(path string, res memory.ProceduresResult) (bool, error) {
	data := memory.Skill(res)
	return memory.WriteExport(path, func([]byte) []byte { return data })
}

// ExportAgentsMD writes res as memex's section of the AGENTS.md at path,
// the rest of the file untouched, and reports whether the file changed.
func ExportAgentsMD(path string, res memory.ProceduresResult) (bool, error) {
	return memory.WriteExport(path, func(old []byte) []byte { return memory.AgentsMD(old, res) })
}

// AgentsMDOf is the AGENTS.md at path as ExportAgentsMD would write it
// (memex export agents-md --stdout); a missing file is an empty one.
func AgentsMDOf(path string, res memory.ProceduresResult) ([]byte, error) {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return memory.AgentsMD(old, res), nil
}
