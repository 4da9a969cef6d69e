package main

import (
	"github.com/memex-archive/memex/eval"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/memory"
	"github.com/spf13/cobra"
)

func (a *app) evalExperienceCommand() *cobra.Command {
	var o eval.ExperienceOptions
	var asJSON bool
	c := &cobra.Command{
		Use:   "experience [--project P] [--sample N] [--seed N] [--json]",
		Short: "Measure procedures and lessons against the later sessions of each project",
		Long: `Measure experience memory on the archive (docs/experience.md). Procedures: for every
project with --min-sessions sessions or more, each session with --earlier sessions before
it is checked against the procedures learned from those: does the first-ranked (top-1) or
one of the first three (top-3) test procedures name the invocation and the form of the
first test run that passed in it? Beside it, the baselines of the most frequent command
line, invocation and form. Lessons: how many per 100 sessions, by status; the failures of
later sessions that a lesson of an earlier one foretold (strict: the same command and
error; loose: the same invocation and error), and how often the earlier lesson's fix
files are among those the later session edited to fix it; and --sample lessons drawn
with --seed, with their evidence, for a hand check.`,
		Example: `  MEMEX_HOME=$(mktemp -d) sh -c 'memex ingest mini-swe-agent corpora/mini-swe-agent && memex eval experience'
  memex eval experience --project github.com/django/django --json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			s, err := a.readStore(ctx)
			if err != nil {
				return err
			}
			rep, err := eval.Experience(ctx, s, o)
			if err != nil {
				return err
			}
			return cli.Output(a.stdout, asJSON, rep, eval.WriteExperience)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&o.Project}, "project", "measure this project only")
	f.IntVar(&o.MinSessions, "min-sessions", 4, "measure procedures of projects with at least this many sessions")
	f.IntVar(&o.MinEarlier, "earlier", 3, "score a session when at least this many came before it")
	f.IntVar(&o.Rule.MinPasses, "min-passes", memory.DefaultRule.MinPasses, "rule: passing runs that make a procedure")
	f.IntVar(&o.Rule.MinSessions, "min-pass-sessions", memory.DefaultRule.MinSessions, "rule: sessions those runs must come from")
	f.IntVar(&o.Rule.MinVariantPasses, "min-variant-passes", memory.DefaultRule.MinVariantPasses, "rule: passing runs that make a variant")
	f.IntVar(&o.Sample, "sample", 20, "lessons to draw for the hand check")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the draw")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}
