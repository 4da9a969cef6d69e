package main

import (
	"os"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

func (a *app) mcpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memex MCP tools over stdio (for hosts that spawn MCP servers)",
		Long: `Serve memex_search, memex_read, memex_compress and memex_context over stdio (MCP,
newline-delimited JSON-RPC). The store is opened for each tool call and released after
it, so hooks and other memex commands are never locked out while an agent runs. While
memex serve runs, whether it started before memex mcp or after it, the calls are
forwarded to it; once it stops, they are served from the store again.

The live session (the default of memex_compress and memex_context) comes from
$CLAUDE_CODE_SESSION_ID, $CODEX_THREAD_ID or $MEMEX_SESSION.`,
		Example: `  claude mcp add --scope user memex -- memex mcp
  codex mcp add memex -- memex mcp`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			srv, err := a.toolServer()
			if err != nil {
				return err
			}
			if addr, r, ok := service.Running(c.Context(), a.home); ok {
				a.log.Debug("forwarding MCP to the server", "addr", addr)
				// srv answers once the server is gone.
				return api.ProxyStdio(c.Context(), r.Base+"/mcp", r.Token, service.LiveSession(), srv, a.stdin, a.stdout)
			}
			return srv.ServeStdio(c.Context(), a.stdin, a.stdout)
		},
	}
}

// toolServer is an api.Server over the store opened per call, so that a
// long-lived MCP server never holds the store; a call waits up to
// cli.LockTimeout() for the lock, and while a server runs goes to it.
func (a *app) toolServer() (*api.Server, error) {
	l := service.LockedHome(a.home, cli.LockTimeout(), "memex mcp", a.serviceOptions())
	return api.New(api.Options{Service: l, Memory: l, Session: service.LiveSession, Agent: hosts.LiveAgent(os.Getenv),
		Checkout: service.CheckoutAt, Version: version, Logger: a.log})
}
