package main

import (
	"context"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/memory"
	"github.com/spf13/cobra"
)

// Experience memory (package memory): the commands that show and export
// the lessons and procedures distilled after every import and forget
// (internal/service).

func (a *app) proceduresCommand() *cobra.Command {
	var req api.ProceduresRequest
	var asJSON bool
	c := &cobra.Command{
		Use:   "procedures [--project P] [--family F] [--json]",
		Short: "How a project is tested, built, linted and run, learned from the runs that passed",
		Long: `Print the procedures of a project: the ways its tests, builds, linters, type checkers,
formatters, services and installs were run in its sessions, learned from the runs
that passed. A way of running (an invocation: "go test", "python3 tests/runtests.py",
"npm run build") is a procedure once it passed 3 times in 2 sessions; its steps are
what most of its passing runs did (a cd, an environment variable, the command with
its usual kind of target), and its variants what the others did differently (one
test, one package, a flag, PYTHONPATH set), each passing twice or more. Every step and
variant says how often it was seen and passed, the last run that passed, and cites
the runs behind it: memex show ID prints one exactly.

Procedures are brought up to date by every import (memex ingest, the hooks); memex
distill rebuilds them from the whole archive. memex export skills and memex export
agents-md write them for agents to read.

` + cli.JSONHelp(memory.ProceduresResult{}),
		Example: `  memex procedures
  memex procedures --project github.com/django/django --family test --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			res, err := a.procedures(c.Context(), req)
			if err != nil {
				return err
			}
			return cli.Print(a.stdout, asJSON, res, res.Markdown())
		},
	}
	f := c.Flags()
	f.Var(projectValue{&req.Project}, "project", "the project (default: the current directory's)")
	f.StringVar(&req.Family, "family", "", "only this family: test, build, lint, typecheck, format, serve, install")
	f.BoolVar(&asJSON, "json", false, "print the procedures as JSON")
	return c
}

// procedures reads the procedures req asks for, of the current
// directory's project when it names none.
func (a *app) procedures(ctx context.Context, req api.ProceduresRequest) (memory.ProceduresResult, error) {
	req.Project = service.WorkingProject(req.Project)
	return ask(ctx, a.memory, home.Options{Shared: true}, api.Memory.Procedures, req)
}

type exportOptions struct {
	project string
	target  string // --dir or --file
	stdout  bool
}

func (a *app) exportCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "export skills|agents-md",
		Short: "Write a project's procedures where agents read them: a Claude Code skill, AGENTS.md",
		Long: `Write the procedures of a project (see memex procedures) for agents:

  skills      a Claude Code skill, DIR/project-procedures/SKILL.md (DIR default:
              .claude/skills in the repository holding the current directory)
  agents-md   a section of AGENTS.md (default: the repository's), between memex's
              markers: replaced there on every export, the rest of the file untouched

The output holds no date of its own: exporting again with no new runs leaves the file
byte for byte as it was (and says so). Every line cites the runs behind it by ID.`,
	}
	c.AddCommand(
		a.exportToCommand(service.Skill, "skills [--project P] [--dir DIR] [--stdout]",
			"Write the procedures as a Claude Code skill (SKILL.md)",
			`  memex export skills
  memex export skills --project github.com/acme/api --dir ~/.claude/skills`,
			"dir", "the skills folder (default: .claude/skills in the repository)"),
		a.exportToCommand(service.AgentsMD, "agents-md [--project P] [--file FILE] [--stdout]",
			"Write the procedures as a section of AGENTS.md",
			`  memex export agents-md
  memex export agents-md --file docs/AGENTS.md`,
			"file", "the file (default: AGENTS.md in the repository)"))
	return c
}

// exportToCommand is an export subcommand: x written where the flag named
// target says.
func (a *app) exportToCommand(x service.Export, use, short, example, target, targetUsage string) *cobra.Command {
	var o exportOptions
	c := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Args:    cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			res, err := a.procedures(c.Context(), api.ProceduresRequest{Project: o.project})
			if err != nil {
				return err
			}
			if o.stdout {
				data, err := x.Content(o.target, res)
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(data)
				return err
			}
			path, wrote, err := x.Write(o.target, res)
			if err != nil {
				return err
			}
			return render.Exported(a.stdout, path, wrote)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&o.project}, "project", "the project (default: the current directory's)")
	f.StringVar(&o.target, target, "", targetUsage)
	f.BoolVar(&o.stdout, "stdout", false, "print the file instead of writing it")
	return c
}

func (a *app) lessonsCommand() *cobra.Command {
	var req api.LessonsRequest
	var asJSON bool
	c := &cobra.Command{
		Use:   "lessons [--project P] [--session S] [--status fixed|abandoned|reverted] [--limit N] [--json]",
		Short: "Failure lessons distilled from a project's sessions, newest first",
		Long: `List the failure lessons of a project: each failing command of its sessions, what was
done next and how it ended — fixed (the same command passed later, with the files edited
in between), reverted (the edits made were undone) or abandoned (it never passed). Each
lesson is an entry of kind lesson in its session, with the IDs of its evidence; memex
show ID prints it with that evidence, memex search finds it before the raw failures.

` + cli.JSONHelp([]memory.LessonItem{}),
		Example: `  memex lessons
  memex lessons --status fixed --limit 20 --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			req.Project = service.WorkingProject(req.Project)
			items, err := ask(c.Context(), a.memory, home.Options{Shared: true}, api.Memory.Lessons, req)
			if err != nil {
				return err
			}
			return cli.Output(a.stdout, asJSON, items, render.Lessons)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&req.Project}, "project", "the project (default: the current directory's; \"\" with --session for any)")
	f.StringVar(&req.Session, "session", "", "only the lessons of this session")
	f.StringVar(&req.Status, "status", "", "only lessons of this status: fixed, abandoned, reverted")
	f.IntVar(&req.Limit, "limit", 0, "list at most N (0: all)")
	f.BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
}

func (a *app) distillCommand() *cobra.Command {
	var req api.DistillRequest
	var asJSON bool
	c := &cobra.Command{
		Use:   "distill [--project P] [--json]",
		Short: "Distil the lessons and procedures of every session again, from the archive",
		Long: `Distil again, from the archive, the failure lessons and the runs procedures learn
from, for every session (of --project only, when given). Imports and hooks do this for
the sessions they add to; run it for an archive written before memex had lessons, or
after a distillation was interrupted. Lessons that did not change are left as they are.

` + cli.JSONHelp(memory.UpdateReport{}),
		Example: `  memex distill
  memex distill --project github.com/django/django --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			rep, err := ask(c.Context(), a.memory, home.Options{}, api.Memory.Distill, req)
			if err != nil {
				return err
			}
			return cli.Output(a.stdout, asJSON, rep, render.Distill)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&req.Project}, "project", "only the sessions of this project")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}
