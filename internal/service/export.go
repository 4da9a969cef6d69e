package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memex-archive/memex"
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

// An Export writes a project's procedures into a file agents read
// (memex export): Skill or AgentsMD.
type Export struct {
	// File is the file written for the path given (memex export's --dir,
	// --file); "" is the default, in the repository holding the current
	// directory.
	File func(given string) (string, error)
	// Render is the file's content for what it holds now (nil: nothing).
	Render func(old []byte, res memory.ProceduresResult) []byte
	// Whole says that Render does not read what the file holds: printing
	// the export needs no file.
	Whole bool
}

var (
	// Skill writes the procedures as a Claude Code skill, whole.
	Skill = Export{File: SkillFile, Whole: true,
		Render: func(_ []byte, res memory.ProceduresResult) []byte { return memory.Skill(res) }}
	// AgentsMD writes them as memex's section of an AGENTS.md, the rest
	// of the file untouched.
	AgentsMD = Export{File: AgentsFile, Render: memory.AgentsMD}
)

// Write writes res into the file for given and returns the file's path
// and whether it changed: exporting again with nothing new leaves the
// file byte for byte as it was.
func (x Export) Write(given string, res memory.ProceduresResult) (string, bool, error) {
	path, err := x.File(given)
	if err != nil {
		return "", false, err
	}
	if res.Sessions == 0 {
		// A project memex has seen no run of (a name mistyped): its
		// export would replace a good file with an empty one.
		return path, false, fmt.Errorf("export: %w", memex.Errorf(memex.ErrNotFound,
			"project %q: no run archived to learn procedures from (memex sessions lists the projects): %s left as it was", res.Project, path))
	}
	wrote, err := memory.WriteExport(path, func(old []byte) []byte { return x.Render(old, res) })
	return path, wrote, err
}

// Content is the file for given as Write would write it (memex export
// --stdout); a missing file is an empty one.
func (x Export) Content(given string, res memory.ProceduresResult) ([]byte, error) {
	if x.Whole {
		return x.Render(nil, res), nil
	}
	path, err := x.File(given)
	if err != nil {
		return nil, err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return x.Render(old, res), nil
}
