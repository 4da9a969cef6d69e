package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/api/web"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/home"
	"github.com/spf13/cobra"
)

type serveOptions struct {
	addr, tokenFile string
	ingest          []string
	ingestEvery     time.Duration
	allowHosts      []string
	ingestRoots     []string
	evalDirs        []string
}

func (a *app) serveCommand() *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:7077] [--token-file F]",
		Short: "Serve the archive over HTTP (/v1), MCP (/mcp) and a web viewer (/) from one process that owns the store",
		Long: `Serve the HTTP API under /v1, the MCP tools at /mcp (streamable HTTP) and a web viewer
at / (sessions, replays, entries, search, context at a budget, eval runs: open the
address in a browser; --eval-dir adds a folder of saved eval runs). The server
owns the store while it runs: memex add, run, show, search, deref, context, sessions,
stats, replay, ingest, forget, verify and reindex talk to it through
$MEMEX_HOME/serve.addr instead of waiting for the lock (POST /v1/forget, /v1/verify
and /v1/reindex do the maintenance); eval says the server holds the store. The index is kept up to date in
the background; with --ingest, so are the hosts' transcripts (incrementally, every
--ingest-every).

$MEMEX_HOME/serve.addr exists while the server runs. Its first line is the address to
dial (127.0.0.1:7077); a second line, present only when the server requires a token, is
the absolute path of the token file. Scripts take the address with head -n1.

It binds loopback by default. Binding any other address requires a bearer token: the
one in --token-file, else $MEMEX_HOME/token, created (mode 0600) on first use. Clients
send "Authorization: Bearer TOKEN". With a loopback address a token is used only when
--token-file is given. A browser signs in to the viewer once with the token (a form,
or a link ending in ?token=TOKEN), which it then keeps as a cookie. SIGTERM or Ctrl-C stops accepting and lets in-flight requests
finish.

A web page the user opens can send requests to a loopback server, so every route
answers only requests for a loopback Host name (localhost, 127.0.0.1, [::1]), the
--addr host, or an --allow-host name, refuses a foreign Origin, and reads JSON only
with Content-Type: application/json. POST /v1/ingest reads only regular files and
directories under the hosts' default locations and --ingest-root; memex itself (which
reads $MEMEX_HOME/serve.key) may import any path.`,
		Example: `  memex serve
  memex serve --addr 0.0.0.0:7077            # token in ~/.memex/token
  memex serve --ingest claude-code,codex      # also import their transcripts as they grow
  curl -s localhost:7077/v1/search?q=nil+map
  curl -s "http://$(head -n1 ~/.memex/serve.addr)/v1/stats"`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error { return a.runServe(c.Context(), o) },
	}
	c.Flags().StringVar(&o.addr, "addr", "127.0.0.1:7077", "address to listen on (host:port; port 0 picks a free one)")
	c.Flags().StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token (default $MEMEX_HOME/token off loopback)")
	c.Flags().StringSliceVar(&o.ingest, "ingest", nil, "import these hosts' transcripts from their default locations in the background ("+formatList(watchable())+")")
	c.Flags().StringSliceVar(&o.allowHosts, "allow-host", nil, "answer requests for this Host name too (besides localhost and loopback addresses; the --addr host is allowed)")
	c.Flags().StringSliceVar(&o.ingestRoots, "ingest-root", nil, "let POST /v1/ingest read under this directory too (besides the hosts' default locations)")
	c.Flags().StringSliceVar(&o.evalDirs, "eval-dir", nil, "show the eval runs saved in this folder too (besides $MEMEX_HOME/eval) on the viewer's eval page")
	c.Flags().DurationVar(&o.ingestEvery, "ingest-every", 5*time.Minute, "how often --ingest looks for new transcript lines (at least 1s: 30s, 5m, 1h)")
	// The routing seam needs the command tree to find the command being
	// run (see store.go); the serve command is the one of this file.
	a.remember(c)
	return c
}

// serveToken returns the bearer token the server requires ("" for none)
// and the file it came from.
func (a *app) serveToken(o serveOptions) (string, string, error) {
	if o.tokenFile == "" && api.IsLoopback(o.addr) {
		return "", "", nil
	}
	tok, path, created, err := home.Token(a.home, o.tokenFile)
	if err != nil {
		return "", "", fmt.Errorf("serve: refusing to serve %s without a token: %w", o.addr, err)
	}
	if created {
		fmt.Fprintf(a.stderr, "memex: created a bearer token in %s\n", path)
	}
	return tok, path, nil
}

// checkAddr checks --addr before serve creates anything: a value that is
// not host:port with a port from 0 to 65535 (or a service name) is a
// usage error. Whether the host resolves is learnt when serve listens.
func checkAddr(ctx context.Context, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return usagef("--addr %q: %v: want HOST:PORT, as 127.0.0.1:7077 (port 0 picks a free one)", addr, err)
	}
	if _, err := net.DefaultResolver.LookupPort(ctx, "tcp", port); err != nil {
		return usagef("--addr %q: port %q: want a number from 0 to 65535", addr, port)
	}
	return nil
}

// watchable lists the formats --ingest takes: those with default
// locations to read.
func watchable() []ingest.Format {
	var out []ingest.Format
	for _, f := range ingest.Formats {
		if len(ingest.DefaultPaths(f, "")) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// ingestFormats parses --ingest: each name must be a format with default
// locations (the server has no paths to give the others); anything else
// is a usage error. A name given twice is read once; empty ones are
// skipped.
func ingestFormats(names []string) ([]ingest.Format, error) {
	var formats []ingest.Format
	for _, name := range names {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		f, err := ingest.ParseFormat(name)
		if err != nil {
			return nil, usagef("--ingest %q: not a transcript format; --ingest takes %s", name, formatList(watchable()))
		}
		if !slices.Contains(watchable(), f) {
			return nil, usagef("--ingest %s: that format has no default location to read; --ingest takes %s "+
				"(import %s files with memex ingest %s PATH or POST /v1/ingest)", f, formatList(watchable()), f, f)
		}
		if !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
	}
	return formats, nil
}

func formatList(fs []ingest.Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

func (a *app) runServe(ctx context.Context, o serveOptions) error {
	if err := checkAddr(ctx, o.addr); err != nil {
		return err
	}
	formats, err := ingestFormats(o.ingest)
	if err != nil {
		return err
	}
	if o.ingestEvery < time.Second {
		// Below a second the loop would spin on the transcripts' files.
		return usagef("--ingest-every %s: want a second or more, as 30s or 5m", o.ingestEvery)
	}
	if addr, _, ok := a.runningServer(ctx); ok {
		return fmt.Errorf("serve: a memex server is already running at %s: %w", addr, memex.ErrBusy)
	}
	h, err := a.open(ctx, home.Options{})
	if err != nil {
		return err
	}
	s := h.Store
	ix, err := h.Index()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	// The token is read, or created, only once the address is known to
	// serve: a server that cannot listen leaves no token file behind.
	token, tokenPath, err := a.serveToken(o)
	if err != nil {
		ln.Close()
		return err
	}
	key, err := home.NewKey()
	if err != nil {
		ln.Close()
		return err
	}
	viewer, err := web.New(web.Options{Store: s, Catalog: sessionKeys{s}, Index: searcher{s, ix},
		Evals: evalRuns(append([]string{evalDir(a.home)}, o.evalDirs...)), Checkout: workingCheckout,
		Version: version, Logger: a.log})
	if err != nil {
		ln.Close()
		return err
	}
	srv, err := api.New(api.Options{
		Store: redactingStore{s, a.log}, Index: searcher{s, ix}, Catalog: catalog{s}, Ingester: importer{s, ix}, Viewer: viewer,
		Maintainer: maintainer{s, ix, a.home},
		Memory:     newMemoryService(s), Checkout: checkoutAt,
		Token: token, Version: version, Logger: a.log, Agent: "mcp",
		Hosts: serveHosts(o), IngestRoots: ingestRoots(o), Key: key,
		// An add through the server takes what a local add takes: the
		// archive's free-space reserve is the bound.
		MaxBody: -1,
	})
	if err != nil {
		ln.Close()
		return err
	}
	addr := dialAddr(ln.Addr())
	if err := home.WriteServer(a.home, addr, tokenPath, key); err != nil {
		ln.Close()
		return err
	}
	defer home.RemoveServer(a.home, addr)

	fctx, stopFollow := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() {
		catchup.Follow(fctx, s, ix, catchup.FollowOptions{
			OnError: func(err error) { a.log.Warn("index catch-up", "err", err) },
			OnRound: func(st catchup.Stats) {
				// Hooks spool what they could not archive while the store
				// was taken; the server holds it for good, so it archives
				// the spool itself.
				if err := a.drainSpool(fctx, s); err != nil {
					a.log.Warn("spool", "err", err)
				}
				if st.Indexed+st.Deleted > 0 {
					a.log.Debug("index caught up", "indexed", st.Indexed, "deleted", st.Deleted)
				}
			},
		})
	})
	if len(formats) > 0 {
		wg.Go(func() { a.ingestLoop(fctx, s, formats, o.ingestEvery) })
	}
	fmt.Fprintf(a.stderr, "memex: serving %s on http://%s (HTTP /v1, MCP /mcp, viewer /)\n", a.home, addr)
	err = srv.Serve(ctx, ln)
	stopFollow()
	wg.Wait()
	return err
}

// ingestLoop imports the hosts' transcripts from their default locations
// at once and then every interval, until ctx is done. Imports are
// incremental: a round reads only what the files gained.
func (a *app) ingestLoop(ctx context.Context, s *archive.Store, formats []ingest.Format, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		for _, f := range formats {
			rep, err := a.ingestAndDistill(ctx, s, nil, ingest.Options{Format: f})
			switch {
			case err != nil && ctx.Err() == nil:
				a.log.Warn("background import", "format", f, "err", err)
			case err == nil:
				a.log.Debug("background import", "format", f, "files", rep.Files, "added", rep.Added)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// serveHosts are the Host names the server answers besides loopback
// ones: --allow-host, and the host of --addr when it names one.
func serveHosts(o serveOptions) []string {
	hosts := append([]string(nil), o.allowHosts...)
	if h, _, err := net.SplitHostPort(o.addr); err == nil && h != "" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsUnspecified() {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// ingestRoots are the directories POST /v1/ingest reads from: every
// format's default locations and --ingest-root. memex itself, which can
// read the home's serve.key, may import any path.
func ingestRoots(o serveOptions) []string {
	var roots []string
	for _, f := range ingest.Formats {
		roots = append(roots, ingest.DefaultPaths(f, "")...)
	}
	for _, r := range o.ingestRoots {
		if abs, err := filepath.Abs(r); err == nil {
			roots = append(roots, abs)
		}
	}
	return roots
}

// dialAddr is the address clients on this machine dial: loopback for a
// listener on every interface.
func dialAddr(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok || !ta.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
}

// searcher adapts the index to api.Index, resolving before/after refs.
type searcher struct {
	s  *archive.Store
	ix *index.Index
}

func (x searcher) Search(ctx context.Context, q api.Query) (api.SearchResult, error) {
	iq := index.Query{Text: q.Text, Limit: q.Limit, Project: q.Project, Session: q.Session,
		Agent: q.Agent, Kind: q.Kind, Tool: q.Tool}
	if err := resolveBounds(ctx, x.s, &iq, q.Before, q.After); err != nil {
		return api.SearchResult{}, err
	}
	if _, err := catchup.CatchUp(ctx, x.s, x.ix); err != nil {
		return api.SearchResult{}, err
	}
	res, err := x.ix.Search(ctx, iq)
	if err != nil {
		return api.SearchResult{}, err
	}
	return api.SearchResult{Hits: res.Hits, Total: res.Total, Partial: res.Partial, Relaxed: res.Relaxed, Partly: res.Partly, Took: res.Took}, nil
}

// importer adapts ingest to api.Ingester.
type importer struct {
	s  *archive.Store
	ix *index.Index
}

// maxIngestWarnings is how many problems memex ingest prints as they
// happen; the rest are counted ("more problems; see the report").
const maxIngestWarnings = 20

// ingestAnswer is what POST /v1/ingest answers: the report as memex ingest
// --json prints it, and the first problems met, in order, as memex ingest
// prints them while it runs, with the count of the others.
type ingestAnswer struct {
	ingest.Report
	Indexed      int      `json:"indexed"`
	Warnings     []string `json:"warnings,omitempty"`
	MoreWarnings int      `json:"more_warnings,omitempty"`
}

// Ingest imports as memex ingest does. Unless req.NoIndex, the entries
// added are indexed before it answers; Indexed counts them (the server's
// index follows the archive, so other pending entries are indexed anyway).
func (im importer) Ingest(ctx context.Context, req api.IngestRequest) (any, error) {
	f, err := ingest.ParseFormat(req.Format)
	if err != nil {
		return nil, err
	}
	var ans ingestAnswer
	var mu sync.Mutex
	warn := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if len(ans.Warnings) < maxIngestWarnings {
			ans.Warnings = append(ans.Warnings, msg)
		} else {
			ans.MoreWarnings++
		}
	}
	opts := ingest.Options{Format: f, Paths: req.Paths, Project: req.Project, NoRedact: req.NoRedact, Full: req.Full, Warn: warn}
	refs := sessionsAdded(&opts)
	ans.Report, err = ingest.Run(ctx, im.s, opts)
	if err != nil {
		return nil, err
	}
	if _, err := distill(ctx, im.s, im.ix, refs(), nil); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if !req.NoIndex && ans.Added > 0 {
		if _, err := catchup.CatchUp(ctx, im.s, im.ix); err != nil {
			return nil, fmt.Errorf("ingest: entries archived, indexing failed (the server retries): %w", err)
		}
		ans.Indexed = ans.Added
	}
	return ans, nil
}

// maintainer does memex forget, verify and reindex for the server.
type maintainer struct {
	s    *archive.Store
	ix   *index.Index
	home string
}

func (m maintainer) Forget(ctx context.Context, req api.ForgetRequest) (api.ForgetResult, error) {
	ids, err := forgetSelect(ctx, m.s, req)
	if err != nil {
		return api.ForgetResult{}, err
	}
	if req.DryRun {
		return api.ForgetResult{Matched: len(ids)}, nil
	}
	if err := forgetEntries(ctx, m.s, m.ix, ids, func() error { return catchup.Forget(ctx, m.s, m.ix, ids...) }); err != nil {
		return api.ForgetResult{}, err
	}
	return api.ForgetResult{Forgotten: len(ids)}, nil
}

func (m maintainer) Verify(ctx context.Context) (api.VerifyResult, error) {
	return verifyHome(ctx, m.s, func() (*index.Index, error) { return m.ix, nil }, m.home)
}

func (m maintainer) Reindex(ctx context.Context) (api.ReindexResult, error) {
	return reindexStore(ctx, m.s, m.ix, nil)
}

// remoteForget has the server forget what the command names, asking first
// as memex forget does (the server counts them).
func (a *app) remoteForget(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	req := api.ForgetRequest{Refs: f.Args()}
	req.Session, _ = f.GetString("session")
	req.Project, _ = f.GetString("project")
	yes, _ := f.GetBool("yes")
	asJSON, _ := f.GetBool("json")
	if !yes {
		dry := req
		dry.DryRun = true
		var res api.ForgetResult
		if err := r.PostJSON(ctx, "/v1/forget", dry, &res); err != nil {
			return err
		}
		if err := a.confirmForget(res.Matched, false); err != nil {
			return err
		}
	}
	var res api.ForgetResult
	if err := r.PostJSON(ctx, "/v1/forget", req, &res); err != nil {
		return err
	}
	return a.printForgotten(res.Forgotten, asJSON)
}

// catalog adapts the archive to api.Catalog.
type catalog struct{ s *archive.Store }

// Sessions answers as memex sessions lists.
func (c catalog) Sessions(ctx context.Context, f api.SessionFilter) ([]api.SessionInfo, error) {
	return collectSessions(ctx, c.s, f.Project, f.Agent)
}

// Stats answers as memex stats --json prints.
func (c catalog) Stats(ctx context.Context) (any, error) {
	st, err := c.s.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return statsJSON(st), nil
}

// The client side of a running server: CLI commands that find one in
// serve.addr send their work to it (the routing seam in store.go).

// remote is a client of a running memex serve.
type remote struct {
	api.Client
	base string // Client.Base, as the messages name it
}

// runningServer returns the server named in serve.addr when it answers
// /healthz; a stale file (a server that was killed) is ignored.
func (a *app) runningServer(ctx context.Context) (string, *remote, bool) {
	srv, ok := home.ReadServer(a.home)
	if !ok {
		return "", nil, false
	}
	addr := srv.Addr
	r := &remote{Client: api.Client{Base: "http://" + addr, Token: srv.Token, Key: srv.Key}, base: "http://" + addr}
	if !r.Healthy(ctx, 2*time.Second) {
		return "", nil, false
	}
	return addr, r, true
}

// route runs the command being executed on the running server, if there is
// one. routed reports that it did; err is then the command's outcome (a
// success is an exitStatus of 0, which stops the local command without a
// message).
func (a *app) route(ctx context.Context) (routed bool, err error) {
	addr, r, ok := a.runningServer(ctx)
	if !ok {
		return false, nil
	}
	c := a.executing()
	name := ""
	if c != nil {
		name = c.Name()
	}
	switch name {
	case "add":
		err = a.remoteAdd(ctx, r, c)
	case "show":
		err = a.remoteShow(ctx, r, c)
	case "search":
		err = a.remoteSearch(ctx, r, c)
	case "deref":
		err = a.remoteDeref(ctx, r, c)
	case "context":
		err = a.remoteContext(ctx, r, c)
	case "handoff":
		err = a.remoteHandoff(ctx, r, c)
	case "stale":
		err = a.remoteStale(ctx, r, c)
	case "sessions":
		err = a.remoteSessions(ctx, r, c)
	case "stats":
		err = a.remoteStats(ctx, r, c)
	case "replay":
		err = a.remoteReplay(ctx, r, c)
	case "ingest":
		err = a.remoteIngest(ctx, r, c)
	case "forget":
		err = a.remoteForget(ctx, r, c)
	case "verify":
		var res api.VerifyResult
		if err = r.PostJSON(ctx, "/v1/verify", struct{}{}, &res); err == nil {
			asJSON, _ := c.Flags().GetBool("json")
			err = a.printVerify(res, asJSON)
		}
	case "reindex":
		var res api.ReindexResult
		if err = r.PostJSON(ctx, "/v1/reindex", struct{}{}, &res); err == nil {
			asJSON, _ := c.Flags().GetBool("json")
			err = a.printReindex(res, asJSON)
		}
	default:
		return true, fmt.Errorf("%s: the memex server at %s owns the store and does not run %s; stop the server, then run this again: %w",
			name, addr, name, memex.ErrBusy)
	}
	a.log.Debug("routed through the server", "command", name, "addr", addr)
	if err != nil {
		return true, err
	}
	return true, &exitStatus{code: exitOK}
}

// add archives body under e's metadata on the server (which redacts it
// as every write path does) and returns the stored entry.
func (r *remote) add(ctx context.Context, e memex.Entry, body io.Reader, noRedact bool) (memex.Entry, error) {
	q := url.Values{}
	for k, v := range map[string]string{"project": e.Project, "session": e.Session, "agent": e.Agent,
		"kind": string(e.Kind), "tool": e.Tool, "input": e.Input, "summary": e.AgentSummary} {
		if v != "" {
			q.Set(k, v)
		}
	}
	q["alias"] = e.Aliases
	if noRedact {
		q.Set("no_redact", "1")
	}
	if e.Exit != nil {
		q.Set("exit", strconv.Itoa(*e.Exit))
	}
	if !e.Created.IsZero() {
		q.Set("created", e.Created.Format(time.RFC3339Nano))
	}
	for _, k := range slices.Sorted(maps.Keys(e.Attrs)) {
		q.Add("attr", k+"="+e.Attrs[k])
	}
	// The body is streamed, whatever its size, as a local add reads it.
	resp, err := r.Do(ctx, "POST", "/v1/entries", q, body, "application/octet-stream")
	if err != nil {
		return memex.Entry{}, err
	}
	defer resp.Body.Close()
	var got memex.Entry
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		return memex.Entry{}, fmt.Errorf("add through %s: %w", r.base, err)
	}
	return got, nil
}

func (a *app) remoteAdd(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	str := func(n string) string { v, _ := f.GetString(n); return v }
	aliases, _ := f.GetStringArray("alias")
	e := memex.Entry{Project: str("project"), Session: str("session"), Agent: str("agent"),
		Kind: memex.Kind(str("kind")), Tool: str("tool"), Input: str("input"), AgentSummary: str("summary")}
	fillDefaults(&e)
	e.Aliases = aliases
	if f.Changed("exit") {
		n, _ := f.GetInt("exit")
		e.Exit = memex.IntPtr(n)
	}
	in, err := a.input(f.Args())
	if err != nil {
		return err
	}
	defer in.Close()
	noRedact, _ := f.GetBool("no-redact")
	got, err := r.add(ctx, e, in, noRedact)
	if err != nil {
		return err
	}
	asJSON, _ := f.GetBool("json")
	return a.printAdded(got, asJSON)
}

func (a *app) remoteShow(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	args := f.Args() // one, as show's Args checked
	q := url.Values{}
	lines, _ := f.GetString("lines")
	project, _ := f.GetString("project")
	budget, _ := f.GetInt("budget")
	asJSON, _ := f.GetBool("json")
	if lines != "" {
		q.Set("lines", lines)
	}
	if project != "" {
		q.Set("project", project)
	}
	if budget > 0 {
		q.Set("budget", strconv.Itoa(budget))
		q.Set("header", "0") // as show --budget counts locally
	}
	if asJSON || budget > 0 {
		q.Set("format", "json")
	}
	if asJSON && budget == 0 {
		q.Set("indent", "2") // as show --json prints it, streamed by the server
	}
	resp, err := r.Do(ctx, "GET", "/v1/entries/"+url.PathEscape(args[0]), q, nil, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if budget == 0 {
		_, err = io.Copy(a.stdout, resp.Body)
		return err
	}
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		return err
	}
	if asJSON {
		return writeJSON(a.stdout, raw)
	}
	var res struct{ Items []struct{ Content string } }
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Items) != 1 {
		return fmt.Errorf("show: unexpected answer from the server: %v", err)
	}
	_, err = io.WriteString(a.stdout, res.Items[0].Content)
	return err
}

func (a *app) remoteSearch(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	q := url.Values{"q": {sinceText(strings.Join(f.Args(), " "), timeFlag(c, "since"))}}
	for _, n := range []string{"project", "session", "agent", "kind", "tool", "before", "after"} {
		if v, _ := f.GetString(n); v != "" {
			q.Set(n, v)
		}
	}
	limit, _ := f.GetInt("limit")
	if limit <= 0 {
		return usagef("--limit %d: want a positive number", limit)
	}
	q.Set("limit", strconv.Itoa(limit))
	var res index.Result
	if err := r.GetJSON(ctx, "/v1/search", q, &res); err != nil {
		return searchError(err)
	}
	if asJSON, _ := f.GetBool("json"); asJSON {
		return writeJSON(a.stdout, res)
	}
	printHits(a.stdout, a.stderr, res)
	return nil
}

func (a *app) remoteDeref(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	budget, _ := f.GetInt("budget")
	query, _ := f.GetString("query")
	project, _ := f.GetString("project")
	var res struct {
		deref.Result
		Text string `json:"text"`
	}
	req := map[string]any{"refs": f.Args(), "budget": budget, "query": query, "project": project}
	if noCheck, _ := f.GetBool("no-check"); !noCheck {
		// The server checks the file lines against this checkout, not
		// the directory it runs in.
		req["checkout"] = checkoutRoot()
	}
	err := r.PostJSON(ctx, "/v1/deref", req, &res)
	if err != nil {
		return err
	}
	if asJSON, _ := f.GetBool("json"); asJSON {
		err = writeJSON(a.stdout, res.Result)
	} else {
		_, err = fmt.Fprint(a.stdout, ensureNewline(res.Text))
	}
	if err == nil && len(res.Items) == 0 {
		return &exitStatus{code: exitFailure}
	}
	return err
}

func (a *app) remoteContext(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	q := url.Values{}
	for _, n := range []string{"session", "project", "before"} {
		if v, _ := f.GetString(n); v != "" {
			q.Set(n, v)
		}
	}
	if q.Get("session") == "" && q.Get("project") == "" {
		if s := liveSession(); s != "" {
			q.Set("session", s)
		} else if wd, err := os.Getwd(); err == nil {
			q.Set("project", projectOf(wd))
		}
	}
	budget, _ := f.GetInt("budget")
	q.Set("budget", strconv.Itoa(budget))
	if noCheck, _ := f.GetBool("no-check"); !noCheck {
		q.Set("checkout", checkoutRoot())
	}
	var res api.ContextResult
	if err := r.GetJSON(ctx, "/v1/context", q, &res); err != nil {
		return err
	}
	if asJSON, _ := f.GetBool("json"); asJSON {
		return writeJSON(a.stdout, res.ContextResult)
	}
	_, err := fmt.Fprint(a.stdout, ensureNewline(res.Text))
	return err
}

func (a *app) remoteSessions(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	q := url.Values{}
	for _, n := range []string{"project", "agent"} {
		if v, _ := f.GetString(n); v != "" {
			q.Set(n, v)
		}
	}
	var res struct {
		Sessions []api.SessionInfo `json:"sessions"`
	}
	if err := r.GetJSON(ctx, "/v1/sessions", q, &res); err != nil {
		return err
	}
	asJSON, _ := f.GetBool("json")
	return a.printSessions(res.Sessions, asJSON)
}

// remoteStats reads the server's figures into archive.Stats (the fields
// of statsJSON that are not derived from others), so that both paths
// print from the same value.
func (a *app) remoteStats(ctx context.Context, r *remote, c *cobra.Command) error {
	var st archive.Stats
	if err := r.GetJSON(ctx, "/v1/stats", nil, &st); err != nil {
		return err
	}
	asJSON, _ := c.Flags().GetBool("json")
	return a.printStats(st, asJSON)
}

// remoteReplay reads the session's entries (with their content for
// --full) from GET /v1/sessions/{session} and prints them as replay does.
func (a *app) remoteReplay(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	args := f.Args() // one, as replay's Args checked
	full, _ := f.GetBool("full")
	asJSON, _ := f.GetBool("json")
	q := url.Values{}
	if full {
		q.Set("content", "1")
	}
	for _, name := range []string{"project", "agent"} {
		if v, _ := f.GetString(name); v != "" {
			q.Set(name, v)
		}
	}
	var res struct {
		Entries []api.EntryJSON `json:"entries"`
	}
	if err := r.GetJSON(ctx, "/v1/sessions/"+url.PathEscape(args[0]), q, &res); err != nil {
		return err
	}
	steps := make([]replayStep, 0, len(res.Entries))
	for i, e := range res.Entries {
		var content *string
		if full {
			b, ok, err := e.Body()
			if err != nil {
				return fmt.Errorf("replay: entry %s from %s: %w", e.ID, r.base, err)
			}
			if !ok {
				return fmt.Errorf("replay: entry %s from %s came without its content", e.ID, r.base)
			}
			text := string(b)
			content = &text
		}
		steps = append(steps, newReplayStep(i, e.Entry, content))
	}
	return a.printReplay(steps, asJSON)
}

// remoteIngest has the server import the paths (absolute: the server
// reads them from its own filesystem, whatever its working directory) and
// prints its answer as memex ingest prints a local import: the problems
// met, the report, the file problems and the status.
func (a *app) remoteIngest(ctx context.Context, r *remote, c *cobra.Command) error {
	f := c.Flags()
	args := f.Args()
	format, _ := ingest.ParseFormat(args[0]) // ingest's Args checked it
	var o ingestOptions
	o.project, _ = f.GetString("project")
	o.noRedact, _ = f.GetBool("no-redact")
	o.full, _ = f.GetBool("full")
	o.noIndex, _ = f.GetBool("no-index")
	o.quiet, _ = f.GetBool("quiet")
	o.json, _ = f.GetBool("json")
	paths, names, err := absPaths(args[1:])
	if err != nil {
		return err
	}
	var ans ingestAnswer
	if err := r.PostJSON(ctx, "/v1/ingest", api.IngestRequest{Format: string(format), Paths: paths, Project: o.project,
		NoRedact: o.noRedact, Full: o.full, NoIndex: o.noIndex}, &ans); err != nil {
		return err
	}
	renamed := names.rename(ans.FileErrors)
	w := &ingestWarner{stderr: a.stderr, said: map[string]bool{}}
	if !o.quiet {
		for _, msg := range ans.Warnings {
			if n, ok := renamed[msg]; ok {
				msg = n
			}
			w.warn(msg)
		}
		w.more(ans.MoreWarnings)
	}
	return a.finishIngest(format, o, ans.Report, ans.Indexed, w.said)
}

// givenPaths remembers the relative paths memex ingest sent as absolute
// ones, to name them in its messages as the user wrote them.
type givenPaths []struct{ given, abs string }

// absPaths resolves paths against the working directory.
func absPaths(paths []string) ([]string, givenPaths, error) {
	var names givenPaths
	out := make([]string, len(paths))
	for i, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, fmt.Errorf("ingest: %s: %w", p, err)
		}
		out[i] = abs
		if abs != p {
			names = append(names, struct{ given, abs string }{p, abs})
		}
	}
	return out, names, nil
}

// rename rewrites, in place, the problems of the paths given (ingest
// says "PATH: what is wrong", PATH as it was given) to name each relative
// path as the user wrote it, and returns the messages it changed, old to
// new. A path given has at most one such problem, the first that names
// it; the files found under a path are named absolutely either way.
func (names givenPaths) rename(problems []string) map[string]string {
	renamed := map[string]string{}
	used := make([]bool, len(names))
	for i, msg := range problems {
		for j, n := range names {
			if !used[j] && strings.HasPrefix(msg, n.abs+": ") {
				used[j] = true
				problems[i] = n.given + msg[len(n.abs):]
				if _, ok := renamed[msg]; !ok {
					renamed[msg] = problems[i]
				}
				break
			}
		}
	}
	return renamed
}

// printHits prints search hits as memex search does.
func printHits(stdout, stderr io.Writer, res index.Result) {
	for _, h := range res.Hits {
		fmt.Fprintf(stdout, "%s  %6.2f  %s\n", h.ID, h.Score, h.Summary)
		if h.Snippet != "" {
			fmt.Fprintf(stdout, "    %s\n", h.Snippet)
		}
	}
	switch {
	case len(res.Hits) == 0:
		fmt.Fprintln(stderr, "no matches")
	case res.Partial:
		fmt.Fprintln(stderr, "(partial: the search ran out of time; narrow the query)")
	case res.Relaxed:
		fmt.Fprintln(stderr, "(no entry matches every word; these match some)")
	case res.Partly > 0:
		fmt.Fprintf(stderr, "(the last %d match only some of the words)\n", res.Partly)
	}
}
