package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProxyStdio serves the MCP tools over in and out by forwarding every call
// to the memex MCP server at endpoint (streamable HTTP, with token as the
// bearer when set). A host that spawns `memex mcp` so keeps working while
// `memex serve` owns the store. session, when set, is filled in as the
// session argument of memex_context and memex_compress calls that give
// none (the server does not know the spawning host's session).
//
// When the server stops answering (memex serve was stopped), a call goes
// to local instead, when it is not nil (its tools over the store itself):
// the host keeps its tools without spawning memex mcp again.
func ProxyStdio(ctx context.Context, endpoint, token, session string, local *Server, in io.Reader, out io.Writer) error {
	hc := &http.Client{Transport: bearerTransport{token, http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "memex-proxy"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	if err != nil {
		return fmt.Errorf("api: proxy: connect %s: %w", endpoint, err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("api: proxy: list tools: %w", err)
	}
	fallback := sync.OnceValues(func() (*mcp.ClientSession, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := local.mcpServer().Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return mcp.NewClient(&mcp.Implementation{Name: "memex-proxy"}, nil).Connect(ctx, ct, nil)
	})
	srv := mcp.NewServer(&mcp.Implementation{Name: "memex"}, &mcp.ServerOptions{Instructions: instructions})
	for _, t := range list.Tools {
		srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			if len(req.Params.Arguments) > 0 {
				if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
					res := &mcp.CallToolResult{}
					res.SetError(fmt.Errorf("arguments: %v", err))
					return res, nil
				}
			}
			if session != "" && (t.Name == "memex_context" || t.Name == "memex_compress") {
				if args == nil {
					args = map[string]any{}
				}
				_, hasSession := args["session"]
				_, hasProject := args["project"]
				if !hasSession && !(t.Name == "memex_context" && hasProject) {
					args["session"] = session
				}
			}
			params := &mcp.CallToolParams{Name: t.Name, Arguments: args}
			res, err := cs.CallTool(ctx, params)
			// A tool's own failure is a result; an error is the server's
			// going away (or its transport's failing).
			if err == nil || local == nil || ctx.Err() != nil {
				return res, err
			}
			lc, lerr := fallback()
			if lerr != nil {
				return nil, err
			}
			return lc.CallTool(ctx, params)
		})
	}
	err = srv.Run(ctx, stdioTransport(in, out))
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token == "" {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
