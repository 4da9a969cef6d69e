package main

import (
	"context"
	"fmt"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/serve"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

func (a *app) serveCommand() *cobra.Command {
	var o serve.Options
	var formats []string
	c := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:7077] [--token-file F]",
		Short: "Serve the archive over HTTP (/v1), MCP (/mcp) and a web viewer (/) from one process that owns the store",
		Long: `Serve the HTTP API under /v1, the MCP tools at /mcp (streamable HTTP) and a web viewer
at / (sessions, replays, entries, search, context at a budget, eval runs: open the
address in a browser; --eval-dir adds a folder of saved eval runs). The server
owns the store while it runs: memex add, run, show, search, deref, context, sessions,
stats, replay, ingest, forget, verify, reindex and the memory commands (handoff, stale,
lessons, procedures, export, distill) talk to it through
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
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error { return a.runServe(c.Context(), o, formats) },
	}
	c.Flags().StringVar(&o.Addr, "addr", "127.0.0.1:7077", "address to listen on (host:port; port 0 picks a free one)")
	c.Flags().StringVar(&o.TokenFile, "token-file", "", "file holding the bearer token (default $MEMEX_HOME/token off loopback)")
	c.Flags().StringSliceVar(&formats, "ingest", nil, "import these hosts' transcripts from their default locations in the background ("+ingest.FormatList(service.Watchable())+")")
	c.Flags().StringSliceVar(&o.AllowHosts, "allow-host", nil, "answer requests for this Host name too (besides localhost and loopback addresses; the --addr host is allowed)")
	c.Flags().StringSliceVar(&o.IngestRoots, "ingest-root", nil, "let POST /v1/ingest read under this directory too (besides the hosts' default locations)")
	c.Flags().StringSliceVar(&o.EvalDirs, "eval-dir", nil, "show the eval runs saved in this folder too (besides $MEMEX_HOME/eval) on the viewer's eval page")
	c.Flags().DurationVar(&o.Every, "ingest-every", 5*time.Minute, "how often --ingest looks for new transcript lines (at least 1s: 30s, 5m, 1h)")
	return c
}

// runServe serves with o, the options the flags set, and the --ingest
// names given.
func (a *app) runServe(ctx context.Context, o serve.Options, ingestNames []string) error {
	// A malformed --addr fails before serve creates anything; whether
	// its host resolves is learnt when serve listens.
	if err := serve.CheckAddr(ctx, o.Addr); err != nil {
		return cli.Usagef("--addr %q: %v", o.Addr, err)
	}
	var err error
	if o.Formats, err = service.WatchFormats(ingestNames); err != nil {
		return cli.Usagef("--ingest %s", memex.Sentence(err))
	}
	if o.Every < time.Second {
		// Below a second the loop would spin on the transcripts' files.
		return cli.Usagef("--ingest-every %s: want a second or more, as 30s or 5m", o.Every)
	}
	if addr, _, ok := service.Running(ctx, a.home); ok {
		return fmt.Errorf("serve: a memex server is already running at %s: %w", addr, memex.ErrBusy)
	}
	h, err := a.openHome(ctx, home.Options{})
	if err != nil {
		return err
	}
	o.Service, o.Version, o.Logger, o.Stderr = a.serviceOptions(), version, a.log, a.stderr
	return serve.Run(ctx, h, o)
}
