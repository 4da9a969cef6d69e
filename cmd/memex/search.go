package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/spf13/cobra"
)

func (a *app) searchCommand() *cobra.Command {
	var q api.Query
	var since time.Time
	var asJSON bool
	c := &cobra.Command{
		Use:   "search QUERY [--limit N] [--project P] [--session S] [--agent A] [--kind K] [--tool T] [--since T] [--before ID|T] [--after ID|T] [--sessions] [--json]",
		Short: "Find archived entries by words, phrases and filters",
		Long: `Search the archive's index. Entries with all the plain words come first, best
first; when fewer than --limit have them all, entries with most of them fill the rest
(the last line on stderr says how many; "partly" in --json). "Quoted
phrases" match words in order. field:value filters: project: session: agent: kind:
tool: path: exit: before: after:, and summary: content: input: for a word in one
field. Identifiers are split: "parse config" finds parseConfigFile.

before: and after: (and --before, --after) take an entry's ID, or a time: a span back
from now (30m, 2d, 1w), a date (2026-11-01, midnight local time), a local time
(2026-11-01T15:04) or RFC 3339 (2026-11-01T15:04:05Z). after:T keeps entries
created at T or later, before:T those created earlier; --before and --after also
take an alias. --since T is --after T.

Each hit: id, score, summary, a short exact snippet, tokens (the cost of a full
deref), session, project, agent, created, aliases. A search is bounded to one
second; a result cut short says partial.

--sessions ranks sessions instead of entries: the 200 best hits grouped by session,
a session scored by its best hit times the share of the query's words (weighted by
rarity) that its hits hold together, so that the session whose entries between
them answer a question comes first; --limit counts sessions, each shown with its
best hits.`,
		Example: `  memex search "nil map" --project myrepo
  memex search 'go test "nil map" exit:1' --limit 5
  memex search migration --since 2d
  memex search 'timeout after:2026-11-01 before:2026-11-08'
  memex search auth/middleware.go --before 01JD8X3N6Q4W0G2Y7T5R9KZC1M --json
  memex search "migration rollback staging" --sessions --limit 5`,
		Args: cli.NeedArgs("search takes a query"),
		RunE: func(c *cobra.Command, args []string) error {
			q.Text = index.Since(strings.Join(args, " "), since)
			return a.runSearch(c, q, asJSON)
		},
	}
	f := c.Flags()
	f.IntVar(&q.Limit, "limit", index.DefaultLimit, "hits to return")
	f.Var(projectValue{&q.Project}, "project", "only entries of this project")
	f.StringVar(&q.Session, "session", "", "only entries of this session (a unique prefix of its name names it)")
	f.StringVar(&q.Agent, "agent", "", "only entries of this agent")
	f.StringVar(&q.Kind, "kind", "", "only entries of this kind")
	f.StringVar(&q.Tool, "tool", "", "only entries of this tool")
	f.StringVar(&q.Before, "before", "", "only entries older than this ID, alias or time (2d, 2026-11-01)")
	f.StringVar(&q.After, "after", "", "only entries newer than this ID, alias or time (2d, 2026-11-01)")
	f.Var(cli.Time(&since), "since", "only entries created since this time: 2d, 12h, 2026-11-01, RFC 3339")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	f.BoolVar(&q.Sessions, "sessions", false, "rank sessions by the evidence their entries hold together")
	return c
}

// fullNotice says that a search reads the index as it is: the store's
// disk is full (home.Options.OnFull).
func (a *app) fullNotice() {
	fmt.Fprintln(a.stderr, "memex: the store's disk is full: searching the index as it was last brought up to date")
}

func (a *app) runSearch(c *cobra.Command, q api.Query, asJSON bool) error {
	if q.Limit <= 0 {
		return cli.Usagef("--limit %d: want a positive number", q.Limit)
	}
	ctx := c.Context()
	svc, err := a.service(ctx, home.Options{MustExist: true, OnFull: a.fullNotice})
	if err != nil {
		return err
	}
	if q.Limit > index.MaxLimit {
		fmt.Fprintf(a.stderr, "memex: search: --limit %d: at most %d hits are returned\n", q.Limit, index.MaxLimit)
	}
	res, err := svc.Search(ctx, q)
	if err != nil {
		return searchError(err)
	}
	if asJSON {
		return cli.WriteJSON(a.stdout, res)
	}
	if q.Sessions {
		render.SessionHits(a.stdout, a.stderr, res)
		return nil
	}
	render.Hits(a.stdout, a.stderr, res)
	return nil
}

// searchError is a search's error as the CLI reports it, local or served:
// a malformed query is a usage error, like a bad flag (exit 2), in the
// words of the error.
func searchError(err error) error {
	if !errors.Is(err, memex.ErrInvalid) {
		return err
	}
	return cli.Usagef("search: %s", memex.Sentence(err))
}
