package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/summarize"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type forgetOptions struct {
	session, project string
	yes, json        bool
}

func (a *app) forgetCommand() *cobra.Command {
	var o forgetOptions
	c := &cobra.Command{
		Use:   "forget ID...|--session S|--project P [--yes]",
		Short: "Remove entries from the archive and the index for good",
		Long: `Remove entries from the archive and from the search index: their content can no
longer be found or shown. Takes IDs or aliases, or every entry of a session or a
project. Asks for confirmation on a terminal; elsewhere --yes is required.`,
		Example: `  memex forget 01JD8X3N6Q4W0G2Y7T5R9KZC1M
  memex forget --session 4e27c414-a885-46a0-b5c8-d58e1417377d --yes`,
		RunE: func(c *cobra.Command, args []string) error {
			n := 0
			// --project alone forgets a project; with --session it
			// narrows the session's name, as it does for replay.
			for _, set := range []bool{len(args) > 0, o.session != "", o.project != "" && o.session == ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				return usagef("forget takes IDs, or --session, or --project (one of them)\nUsage: %s", c.UseLine())
			}
			return a.runForget(c, o, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.session, "session", "", "forget every entry of this session")
	f.Var(projectValue{&o.project}, "project", "forget every entry of this project (with --session: of that session in this project)")
	f.BoolVar(&o.yes, "yes", false, "do not ask for confirmation")
	f.BoolVar(&o.json, "json", false, `print {"forgotten":N} as JSON`)
	return c
}

func (a *app) runForget(c *cobra.Command, o forgetOptions, args []string) error {
	ctx := c.Context()
	s, ix, err := a.openIndex(ctx)
	if err != nil {
		return err
	}
	var ids []memex.ID
	switch {
	case len(args) > 0:
		for _, ref := range args {
			id, err := s.Resolve(ctx, ref, "")
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
	case o.session != "":
		ref := memex.SessionRef{Session: o.session, Project: o.project}
		err = s.Session(ctx, ref, func(e memex.Entry) error { ids = append(ids, e.ID); return nil })
	default:
		err = s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
			if e.Project == o.project {
				ids = append(ids, e.ID)
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		what := "project " + o.project
		if o.session != "" {
			what = fmt.Sprintf("session %q", o.session)
		}
		return fmt.Errorf("forget: no entries for %s: %w", what, memex.ErrNotFound)
	}
	if !o.yes {
		f, ok := a.stdin.(*os.File)
		if !ok || !term.IsTerminal(int(f.Fd())) {
			return usagef("forget %s for good? add --yes to confirm", summarize.Plural(len(ids), "entry"))
		}
		fmt.Fprintf(a.stderr, "Forget %s for good? [y/N] ", summarize.Plural(len(ids), "entry"))
		line, _ := bufio.NewReader(f).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			return &exitStatus{code: exitFailure}
		}
	}
	if err := catchup.Forget(ctx, s, ix, ids...); err != nil {
		return err
	}
	if o.json {
		return writeJSON(a.stdout, map[string]int{"forgotten": len(ids)})
	}
	fmt.Fprintf(a.stdout, "forgot %s\n", summarize.Plural(len(ids), "entry"))
	return nil
}
