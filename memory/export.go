package memory

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// ProceduresResult is what a project's runs teach: its procedures under
// Rule, learned from Runs runs of Sessions sessions.
type ProceduresResult struct {
	Project    string      `json:"project"`
	Sessions   int         `json:"sessions"`
	Runs       int         `json:"runs"`
	Rule       Rule        `json:"rule"`
	Procedures []Procedure `json:"procedures"`
}

// Procedures builds the procedures of project from the runs Update kept
// (the zero rule is DefaultRule). It fails with memex.ErrInvalid without
// a project; a project with no runs has no procedures.
func Procedures(ctx context.Context, s StateReader, project string, rule Rule) (ProceduresResult, error) {
	if project == "" {
		return ProceduresResult{}, fmt.Errorf("memory: procedures: give a project: %w", memex.ErrInvalid)
	}
	rule = rule.orDefault()
	runs, sessions, err := ProjectRuns(ctx, s, project)
	if err != nil {
		return ProceduresResult{}, err
	}
	ps := BuildProcedures(runs, rule)
	if ps == nil {
		ps = []Procedure{}
	}
	return ProceduresResult{Project: project, Sessions: sessions, Runs: len(runs), Rule: rule, Procedures: ps}, nil
}

// Family keeps the procedures of family f ("" keeps all).
func (r ProceduresResult) Family(f string) ProceduresResult {
	if f == "" {
		return r
	}
	keep := []Procedure{}
	for _, p := range r.Procedures {
		if p.Family == f {
			keep = append(keep, p)
		}
	}
	r.Procedures = keep
	return r
}

// Markdown renders the procedures as Markdown: one section per family,
// each procedure with its steps and variants, every count with the IDs of
// the runs behind it. It holds no time of its own: the same runs render
// the same bytes.
func (r ProceduresResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "How `%s` is tested, built and run, as %s showed: learned by memex from %s of %s. "+
		"A procedure is kept once it passed %s in %s; every line cites the runs behind it (`memex show ID` prints one exactly).\n",
		r.Project, pluralWord(r.Sessions, "its session", "its sessions"), summarize.Plural(r.Runs, "run"), summarize.Plural(r.Sessions, "session"),
		summarize.Plural(r.Rule.MinPasses, "time"), summarize.Plural(r.Rule.MinSessions, "session"))
	if len(r.Procedures) == 0 {
		b.WriteString("\nNo procedure yet: no command of a family (test, build, lint, ...) passed often enough.\n")
		return b.String()
	}
	family := ""
	for _, p := range r.Procedures {
		if p.Family != family {
			family = p.Family
			fmt.Fprintf(&b, "\n### %s\n", family)
		}
		lead := "Usual"
		if p.Rank > 1 {
			lead = "Also"
		}
		fmt.Fprintf(&b, "\n%s: `%s` — passed %d of %d runs in %s, last at %s.\n", lead, p.Command, p.Passed, p.Seen,
			summarize.Plural(p.Sessions, "session"), p.LastPassed)
		if p.Example != "" && p.Example != p.Command {
			fmt.Fprintf(&b, "For example: `%s`\n", p.Example)
		}
		if len(p.Steps) > 1 {
			b.WriteString("Steps:\n")
			for i, s := range p.Steps {
				fmt.Fprintf(&b, "%d. `%s` — seen %d times, passed %d, last at %s (runs %s)\n", i+1, s.Text, s.Seen, s.Passed, s.LastPassed, ids(s.Runs))
			}
		} else {
			fmt.Fprintf(&b, "Runs: %s\n", ids(p.Runs))
		}
		if len(p.Variants) > 0 {
			b.WriteString("Variants:\n")
			for _, v := range p.Variants {
				fmt.Fprintf(&b, "- %s: `%s` — passed %d of %d, last at %s, e.g. `%s` (runs %s)\n", v.Delta, v.Command, v.Passed, v.Seen, v.LastPassed, v.Example, ids(v.Runs))
			}
		}
	}
	return b.String()
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func ids(list []memex.ID) string {
	s := make([]string, len(list))
	for i, id := range list {
		s[i] = id.String()
	}
	return strings.Join(s, ", ")
}

// SkillName is the name of the Claude Code skill memex exports.
const SkillName = "project-procedures"

// Skill is r as a Claude Code skill file (SKILL.md): front matter naming
// it and saying when to use it, then the procedures.
func Skill(r ProceduresResult) []byte {
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString("name: " + SkillName + "\n")
	b.WriteString("description: How to run the tests, the build, the linters and the services of " + r.Project +
		", with the variants that worked (one package, one test, a flag), learned from earlier sessions. Use it before running any of them.\n")
	b.WriteString("---\n\n")
	b.WriteString("# Procedures of " + r.Project + "\n\n")
	b.WriteString("<!-- Written by memex export skills; run it again to bring it up to date. -->\n\n")
	b.WriteString(r.Markdown())
	return []byte(b.String())
}

// Markers delimit memex's section in AGENTS.md.
const (
	agentsBegin = "<!-- memex:procedures begin (memex export agents-md writes this section; edits inside are replaced) -->"
	agentsEnd   = "<!-- memex:procedures end -->"
)

// AgentsMD returns old (an AGENTS.md, nil for none) with memex's section
// set to r: replaced where its markers stand, else appended. Everything
// outside the markers is kept byte for byte, so that running it again on
// its own output changes nothing.
func AgentsMD(old []byte, r ProceduresResult) []byte {
	section := agentsBegin + "\n## Procedures (learned by memex)\n\n" + r.Markdown() + agentsEnd + "\n"
	if i := bytes.Index(old, []byte(agentsBegin)); i >= 0 {
		if j := bytes.Index(old[i:], []byte(agentsEnd)); j >= 0 {
			end := i + j + len(agentsEnd)
			if end < len(old) && old[end] == '\n' {
				end++
			}
			out := append([]byte{}, old[:i]...)
			out = append(out, section...)
			return append(out, old[end:]...)
		}
	}
	out := append([]byte{}, old...)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return append(out, section...)
}
