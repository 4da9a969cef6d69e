package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/spf13/cobra"
)

func (a *app) showCommand() *cobra.Command {
	var req api.ShowRequest
	var lines string
	var asJSON bool
	c := &cobra.Command{
		Use:   "show ID|ALIAS [--lines A:B] [--budget N] [--json]",
		Short: "Print an entry's exact content",
		Long: `Print the exact content of an entry, byte for byte as it was archived (binary
included). --lines A:B prints lines A to B (1-based, inclusive; A: runs to the end,
A alone is one line). --budget N prints at most N tokens of content: the whole entry
when it fits, else exact windows with each elided span marked (as memex deref, without
its header line). --budget is for reading text: for an entry that is not valid UTF-8
(binary) it prints one line instead, "[memex: binary content (N bytes) not shown;
memex show ID > FILE saves it]", on a terminal or not; without --budget the bytes are
printed as they are.

An entry in which credentials were replaced when it was archived says so: a header
line on stderr ("[memex ID · 2 secrets redacted when archived ...]"), "redacted": N in
--json.

--json adds the metadata and puts the content in "content" when it is valid UTF-8,
else base64-encoded in "content_base64" (and no "content"); with --budget it prints
the deref result (as memex deref --json).

` + aliasHelp,
		Example: `  memex show 01JD8X3N6Q4W0G2Y7T5R9KZC1M
  memex show toolu_01ABC --lines 120:140
  memex show sess-42#3 --json`,
		Args: cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if strings.TrimSpace(args[0]) == "" {
				return cli.Usagef("show: give an ID or alias (an empty one names nothing)\nUsage: %s", c.UseLine())
			}
			req.Ref = args[0]
			return a.runShow(c, req, lines, asJSON)
		},
	}
	c.Flags().StringVar(&lines, "lines", "", "only lines A:B (1-based, inclusive)")
	c.Flags().IntVar(&req.Budget, "budget", 0, "at most N tokens of content: exact windows with elided spans marked (as memex deref); 0: no bound")
	c.Flags().Var(projectValue{&req.Project}, "project", "narrow an alias that names entries in several projects")
	c.Flags().BoolVar(&asJSON, "json", false, "print metadata and content as JSON")
	return c
}

// parseLines parses --lines; a malformed range is a usage error.
func parseLines(s string) (from, to int64, err error) {
	from, to, err = memex.ParseLineRange(s)
	if err != nil {
		return 0, 0, cli.Usagef("--lines: %v", err)
	}
	return from, to, nil
}

func (a *app) runShow(c *cobra.Command, req api.ShowRequest, lines string, asJSON bool) error {
	from, to := int64(1), int64(0)
	if lines != "" {
		var err error
		if from, to, err = parseLines(lines); err != nil {
			return err
		}
	}
	if req.Budget < 0 {
		return cli.Usagef("--budget %d: want a positive number of tokens (0: no bound)", req.Budget)
	}
	if req.Budget > 0 && lines != "" {
		return cli.Usagef("--budget and --lines do not combine: give one of them")
	}
	ctx := c.Context()
	svc, err := a.service(ctx, home.Options{Shared: true})
	if err != nil {
		return err
	}
	if req.Budget > 0 {
		res, err := svc.Show(ctx, req)
		if err != nil {
			return err
		}
		if asJSON {
			return cli.WriteJSON(a.stdout, res.Result)
		}
		render.Redacted(a.stderr, res.Item.ID, res.Item.Redacted)
		// A binary entry's content is deref's note, never its bytes.
		_, err = fmt.Fprint(a.stdout, res.Item.Content)
		return err
	}
	e, err := svc.Entry(ctx, req.Ref, req.Project)
	if err != nil {
		return err
	}
	open := func() (io.ReadCloser, error) { return svc.Lines(ctx, api.LinesRequest{ID: e.ID, From: from, To: to}) }
	if asJSON {
		// Streamed, as show without --json: memory stays bounded whatever
		// the entry's size.
		return api.WriteEntryJSON(a.stdout, e, lines, open, "  ")
	}
	rc, err := open()
	if err != nil {
		return err
	}
	defer rc.Close()
	render.Redacted(a.stderr, e.ID.String(), e.Redacted)
	_, err = io.Copy(a.stdout, rc)
	return err
}
