package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/memory"
	"github.com/spf13/cobra"
)

// workingCheckout is the checkout of the current directory: its root
// (the repository's, else the directory) and its project. Evidence of
// that project is checked against it; nil when there is no directory.
func workingCheckout() *deref.Checkout {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	return checkoutOf(wd)
}

// checkoutAt is api.Options.Checkout: the checkout holding dir, the
// current directory's for "".
func checkoutAt(dir string) *deref.Checkout {
	if dir == "" {
		return workingCheckout()
	}
	return checkoutOf(dir)
}

// checkoutRoot is the root of the current directory's checkout, which a
// request to a running server names as the client's; "" when there is no
// current directory.
func checkoutRoot() string {
	if co := workingCheckout(); co != nil {
		return co.Root
	}
	return ""
}

// checkoutOf is the checkout holding dir.
func checkoutOf(dir string) *deref.Checkout {
	root := ingest.RepoRoot(dir)
	if root == "" {
		root = dir
	}
	return deref.NewCheckout(root, projectOf(dir))
}

type handoffOptions struct {
	project string
	budget  int
	json    bool
}

func (a *app) handoffCommand() *cobra.Command {
	var o handoffOptions
	c := &cobra.Command{
		Use:   "handoff [--project P] [--budget N] [--json]",
		Short: "What the next agent needs to know of a project: sessions, notes, open failures, files, commits",
		Long: `Print the handoff capsule of a project, for an agent (any host) starting on it, within
--budget tokens (a hard bound under memex's tokenizer): the latest sessions by any agent
(which agent, when, their task), the notes and decisions (kind note, memex_compress
summaries), the failures still open (a failing command that no later run of it passed),
the files most edited, and the recent commits (memex ingest git). Every line starts with
the ID of its evidence: memex show ID reads it exactly.

Edited files are checked against the current checkout: a line says "file changed since"
when what the last edit showed no longer stands there, "file gone" when the file is.

The project defaults to the current directory's. Agent hosts get the capsule at the start
of a session through memex's SessionStart hook (see docs/memory.md).

--json: {"project","budget","used","sessions","entries","sections":[{"name","title",
"items":[{"id","text","agent","session","created","path","edits","mark","evidence"}],
"omitted"}],"text"}`,
		Example: `  memex handoff
  memex handoff --project github.com/acme/api --budget 800 --json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if o.budget < 0 {
				return usagef("--budget must be a positive number of tokens")
			}
			if _, r, ok := a.runningServer(ctx); ok {
				return a.remoteHandoff(ctx, r, c)
			}
			co := workingCheckout()
			if o.project == "" && co != nil {
				o.project = co.Project
			}
			s, err := a.readStore(ctx)
			if err != nil {
				return err
			}
			capsule, err := memory.Handoff(ctx, s, memory.HandoffOptions{Project: o.project, Budget: o.budget, Checkout: co})
			if err != nil {
				return err
			}
			return a.printHandoff(capsule, o.json)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&o.project}, "project", "the project (default: the current directory's)")
	f.IntVar(&o.budget, "budget", memory.DefaultHandoffBudget, "tokens for the whole capsule")
	f.BoolVar(&o.json, "json", false, "print the capsule as JSON")
	return c
}

type staleOptions struct {
	project string
	limit   int
	json    bool
}

func (a *app) staleCommand() *cobra.Command {
	var o staleOptions
	c := &cobra.Command{
		Use:   "stale [--project P] [--limit N] [--json]",
		Short: "Archived reads and edits whose files changed since, newest first",
		Long: `List the memories of a project that no longer hold: entries that showed lines of a
file (a read, a view, an edit's snippet, grep hits with line numbers) when those lines
no longer stand in the current checkout verbatim ("changed", with the first line that
differs and what it reads now) or the file is gone ("gone"). Newest first. Only the
files those entries name are read, within a time bound; a list cut by it says so.

The checkout is the current directory's repository; its project is the default.

--json: {"project","checked","partial","items":[{"id","summary","session","agent",
"created","mark","evidence":[{"state","path","from","to","line","now"}]}]}`,
		Example: `  memex stale
  memex stale --limit 20 --json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if _, r, ok := a.runningServer(ctx); ok {
				return a.remoteStale(ctx, r, c)
			}
			co := workingCheckout()
			if co == nil {
				return fmt.Errorf("stale: no current directory to check against")
			}
			co.Timeout = staleTimeout
			if o.project == "" {
				o.project = co.Project
			} else {
				co.Project = o.project
			}
			s, err := a.readStore(ctx)
			if err != nil {
				return err
			}
			res, err := memory.Stale(ctx, s, memory.StaleOptions{Project: o.project, Checkout: co, Limit: o.limit})
			if err != nil {
				return err
			}
			return a.printStale(res, co.Root, o.json)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&o.project}, "project", "the project (default: the current directory's)")
	f.IntVar(&o.limit, "limit", 0, "list at most N (0: all)")
	f.BoolVar(&o.json, "json", false, "print the list as JSON")
	return c
}

func (a *app) printHandoff(c memory.Capsule, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, c)
	}
	_, err := fmt.Fprint(a.stdout, ensureNewline(c.Text))
	return err
}

func (a *app) printStale(res memory.StaleResult, root string, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, res)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	for _, it := range res.Items {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.ID, it.Created.UTC().Format("2006-01-02 15:04"), deref.MarkText(it.Evidence), oneLine(it.Summary, 100))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "memex: %d of %d checked memories of %s stale in %s\n", len(res.Items), res.Checked, res.Project, root)
	if res.Partial {
		fmt.Fprintf(a.stderr, "memex: the check ran out of time (%s); older memories were not checked\n", staleTimeout)
	}
	return nil
}

// remoteHandoff is memex handoff through a running server, whose check of
// the edited files runs against this checkout.
func (a *app) remoteHandoff(ctx context.Context, r *api.Client, c *cobra.Command) error {
	f := c.Flags()
	q := url.Values{"checkout": {checkoutRoot()}}
	project, _ := f.GetString("project")
	if project == "" {
		if co := workingCheckout(); co != nil {
			project = co.Project
		}
	}
	q.Set("project", project)
	if budget, _ := f.GetInt("budget"); budget > 0 {
		q.Set("budget", strconv.Itoa(budget))
	}
	var capsule memory.Capsule
	if err := r.GetJSON(ctx, "/v1/handoff", q, &capsule); err != nil {
		return err
	}
	asJSON, _ := f.GetBool("json")
	return a.printHandoff(capsule, asJSON)
}

// remoteStale is memex stale through a running server, checked against
// this checkout.
func (a *app) remoteStale(ctx context.Context, r *api.Client, c *cobra.Command) error {
	f := c.Flags()
	root := checkoutRoot()
	if root == "" {
		return fmt.Errorf("stale: no current directory to check against")
	}
	q := url.Values{"checkout": {root}}
	project, _ := f.GetString("project")
	if project == "" {
		project = workingCheckout().Project
	}
	q.Set("project", project)
	if limit, _ := f.GetInt("limit"); limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var res memory.StaleResult
	if err := r.GetJSON(ctx, "/v1/stale", q, &res); err != nil {
		return err
	}
	asJSON, _ := f.GetBool("json")
	return a.printStale(res, root, asJSON)
}

// staleTimeout bounds memex stale's file checks.
const staleTimeout = 10 * time.Second

// oneLine is s on one line, cut to n bytes.
func oneLine(s string, n int) string {
	b := []rune(s)
	out := make([]rune, 0, len(b))
	for _, r := range b {
		if r == '\n' || r == '\t' {
			r = ' '
		}
		out = append(out, r)
	}
	if len(out) > n {
		return string(out[:n-3]) + "..."
	}
	return string(out)
}

// memoryService serves the project-memory requests of the API from a
// store, for the checkout of dir (the directory the server runs in): its
// project is the default one, and its files are what evidence is checked
// against.
type memoryService struct {
	store memory.Store
	dir   string
}

var _ api.Memory = memoryService{}

func newMemoryService(s memory.Store) memoryService {
	wd, _ := os.Getwd()
	return memoryService{store: s, dir: wd}
}

// checkout is the checkout of dir, the client's (a request names it),
// else of the directory the server runs in.
func (m memoryService) checkout(dir string) *deref.Checkout {
	if dir != "" {
		return checkoutOf(dir)
	}
	if m.dir == "" {
		return nil
	}
	return checkoutOf(m.dir)
}

func (m memoryService) Handoff(ctx context.Context, req api.HandoffRequest) (api.HandoffResult, error) {
	co := m.checkout(req.Checkout)
	if req.Project == "" && co != nil {
		req.Project = co.Project
	}
	c, err := memory.Handoff(ctx, m.store, memory.HandoffOptions{Project: req.Project, Budget: req.Budget, Exclude: req.Exclude, Checkout: co})
	if err != nil {
		return api.HandoffResult{}, err
	}
	return api.HandoffResult{Text: c.Text, Sessions: c.Sessions, Capsule: c}, nil
}

func (m memoryService) Stale(ctx context.Context, req api.StaleRequest) (any, error) {
	co := m.checkout(req.Checkout)
	if co == nil {
		return nil, fmt.Errorf("stale: the server has no working directory to check against: %w", memex.ErrInvalid)
	}
	co.Timeout = staleTimeout
	if req.Project == "" {
		req.Project = co.Project
	} else {
		co.Project = req.Project
	}
	return memory.Stale(ctx, m.store, memory.StaleOptions{Project: req.Project, Checkout: co, Limit: req.Limit})
}
